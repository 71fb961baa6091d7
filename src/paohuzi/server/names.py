"""What a computer seat is called at the table: one name per match seat, so that two
computers are never both "电脑" (every name starts with 电脑, which no person's nickname
may: inputs.clean_nickname)."""

from __future__ import annotations

__all__ = ["COMPUTER_NAMES", "LEVEL_WORDS", "computer_name"]

COMPUTER_NAMES = ("阿福", "小翠", "老刘", "春生")
"""One given name per match seat (a room has at most 4 seats: hunan's 醒家)."""

LEVEL_WORDS = {"easy": "简单", "normal": "普通", "hard": "困难"}
"""The lobby's levels in Chinese; other computer players keep their own name."""


def computer_name(seat: int, kind: str) -> str:
    """The name shown for a computer at match seat ``seat``, with its level.

    >>> computer_name(1, "normal"), computer_name(2, "normal")
    ('电脑·小翠 (普通)', '电脑·老刘 (普通)')
    >>> computer_name(0, "heuristic")
    '电脑·阿福 (heuristic)'
    """
    name = COMPUTER_NAMES[seat % len(COMPUTER_NAMES)]
    return f"电脑·{name} ({LEVEL_WORDS.get(kind, kind)})"
