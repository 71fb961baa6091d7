"""The game: actions, the deal, the hand engine, matches, seat views, records and resampling.

Built on :mod:`paohuzi.core` only (``tests/test_layers.py`` checks).
"""
