"""The command line and its tools: ``paohuzi`` (:mod:`~paohuzi.apps.cli`) with ``play``,
``simulate``, ``evaluate``, ``arena``, ``replay`` and ``serve``.

Uses the core, the game and the players; only the command line's ``serve`` reaches the
server, lazily (``tests/test_layers.py`` checks).
"""
