"""The bean economy of the game hall (欢乐豆): a new player's balance, the 场次 (rooms by
stake, each with its multiplier and entry minimum), the daily relief, and the one rule
that keeps beans from going below zero (rules-notes N25, N26).

The §7 points of a hand stay as the rules compute them; only the bean transfer is
capped (:func:`pay`), inside the settlement's storage transaction.

>>> changci("chuji").multiplier, changci("chuji").entry
(2, 1000)
>>> pay([-90, -90, 180], [50, None, 0])
[-50, -90, 140]
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from paohuzi.core.errors import PaohuziError
from paohuzi.server.refusals import refusal

__all__ = ["CHANGCI", "COMPUTER_RANK", "DEFAULT_CHANGCI", "RELIEF", "RELIEF_BELOW",
           "STARTING_BEANS", "Changci", "EconomyError", "EntryRefused", "ReliefRefused", "changci",
           "check_entry", "pay", "practice", "utc_day"]

STARTING_BEANS = 2000
"""Beans a new player starts with."""
RELIEF = 1000
"""Beans of the daily relief (救济)."""
RELIEF_BELOW = 200
"""The relief is for a player holding fewer beans than this; once per UTC day."""


@dataclass(frozen=True, slots=True)
class Changci:
    """A 场次: rooms whose beans are the hand's points × ``multiplier`` (§7.5), open to
    players holding at least ``entry`` beans."""

    key: str
    title: str
    english: str
    multiplier: int
    entry: int

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "title": self.title, "english": self.english,
                "multiplier": self.multiplier, "entry": self.entry}


CHANGCI: tuple[Changci, ...] = (
    Changci("xinshou", "新手场", "Novice room", 1, 0),
    Changci("chuji", "初级场", "Junior room", 2, 1000),
    Changci("zhongji", "中级场", "Middle room", 5, 5000),
    Changci("gaoji", "高级场", "Senior room", 10, 20000),
)
"""The 场次, lowest first (docs/protocol.md, "Beans")."""
DEFAULT_CHANGCI = "xinshou"
"""A room's 场次 unless it names one (multiplier 1, open to all: the rooms of before)."""


class EconomyError(PaohuziError):
    """A bean-economy request refused (its message names what was wrong)."""


class EntryRefused(EconomyError):
    """A player holds fewer beans than a 场次's entry minimum."""


class ReliefRefused(EconomyError):
    """The daily relief is not due (enough beans, or claimed today)."""


def changci(key: object) -> Changci:
    """The 场次 named ``key``; :class:`EconomyError` naming the choices otherwise."""
    for c in CHANGCI:
        if c.key == key:
            return c
    raise EconomyError(f"changci must be one of {', '.join(c.key for c in CHANGCI)}, "
                     f"got {key!r}")


def check_entry(tier: Changci, beans: int) -> None:
    """Refuse a player who holds fewer beans than the 场次's entry minimum.

    >>> check_entry(changci("gaoji"), 300)
    Traceback (most recent call last):
    ...
    paohuzi.server.economy.EntryRefused: 高级场 (Senior room) needs at least 20000 beans to \
sit; you hold 300
    """
    if beans < tier.entry:
        raise refusal(EntryRefused, "entry_minimum", title=tier.title, english=tier.english,
                      entry=tier.entry, beans=beans)


def pay(owed: list[int], balances: list[int | None]) -> list[int]:
    """The beans each seat actually gains (+) or pays (−), given what the rules say it
    owes (``owed``, summing to zero) and what it holds (``None``: no limit — a computer).

    A payer pays at most what he holds (never below zero, rules-notes N25); the
    receivers share what was actually paid in proportion to what they were owed, the
    remainder of the division going to the first receivers: the transfer still sums to
    zero, and nobody receives more than he was owed.

    >>> pay([-10, -10, 20], [3, 100, 0])
    [-3, -10, 13]
    >>> pay([-10, 5, 5], [3, 0, 0])
    [-3, 2, 1]
    >>> pay([0, 0, 0], [0, 0, 0])
    [0, 0, 0]
    """
    if len(owed) != len(balances):
        raise ValueError("one balance per seat")
    paid = [owed_i if owed_i >= 0 else -min(-owed_i, max(0, held) if held is not None
                                           else -owed_i)
            for owed_i, held in zip(owed, balances, strict=True)]
    total_paid = -sum(p for p in paid if p < 0)
    total_owed = sum(o for o in owed if o > 0)
    if total_owed == 0:
        return [min(p, 0) for p in paid]
    gains = [o * total_paid // total_owed if o > 0 else 0 for o in owed]
    left = total_paid - sum(gains)
    for i, o in enumerate(owed):
        if left == 0:
            break
        if o > 0 and gains[i] < o:
            gains[i] += 1
            left -= 1
    return [g if o > 0 else p for o, g, p in zip(owed, gains, paid, strict=True)]


def utc_day(now: float | None = None) -> str:
    """The UTC calendar day of ``now`` (seconds since the epoch), as ``YYYY-MM-DD``.

    >>> utc_day(0.0)
    '1970-01-01'
    """
    return time.strftime("%Y-%m-%d", time.gmtime(time.time() if now is None else now))


COMPUTER_RANK: dict[str, int] = {"random": 0, "easy": 1, "heuristic": 2, "search": 3,
                                 "normal": 3, "hard": 4, "expert": 2}
"""The computer players from weakest to strongest (the README's ladder; ``expert`` plays as
the heuristic). A hand against a computer weaker than the one the hall seats
(``MatchSettings.computer``, ``normal``; ``Server.rate``) is practice: it counts toward no lifetime
total (a review farmed +387 points and a level in 40 unattended hands against ``random``,
+11 points a hand on the ladder)."""


def practice(computer: str, hall_computer: str) -> bool:
    """Whether a hand against ``computer`` is practice on a server whose hall seats
    ``hall_computer`` (:data:`COMPUTER_RANK`; an unknown name ranks lowest).

    >>> practice("easy", "normal"), practice("hard", "normal"), practice("random", "random")
    (True, False, False)
    """
    return COMPUTER_RANK.get(computer, 0) < COMPUTER_RANK.get(hall_computer, 0)
