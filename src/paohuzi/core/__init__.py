"""The rules core: cards, groups, the hand solver, 名堂, settlement and presets.

Standard library only, and it imports nothing of the game, the players, the apps or the
server (``tests/test_layers.py`` checks). Its public names are exported by :mod:`paohuzi`.
"""
