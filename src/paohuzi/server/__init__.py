"""The game server (``paohuzi serve``); needs the ``server`` extra."""
