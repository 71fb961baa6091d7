"""A hall room's seats between hands, and what the table is told about its people
(issue 16): who is connected, away or in 托管, who is ready (准备) for the next hand.

:class:`Seating` keeps the seat changes a hall room makes between hands only (rules-notes
N41): a person the queue placed at a computer seat takes it once the hand in progress
ends (a ``join`` log entry), and a person idle (in 托管 or not connected) at the end of
:data:`IDLE_HANDS` hands in a row gives his seat back to a computer (a ``free`` entry),
which the queue may fill again.

>>> s = Seating()
>>> s.note_hand({0: True, 1: False})
>>> s.note_hand({0: True, 1: True})
>>> s.note_hand({0: True, 1: False})
>>> sorted(s.idle_seats())
[0]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paohuzi.server.table import Table

__all__ = ["IDLE_HANDS", "PRESENCE_ENTRIES", "Seating", "presence_json"]

IDLE_HANDS = 3
"""Hands in a row a person may end idle (托管, or not connected) before his hall seat is
freed for the queue."""

PRESENCE_ENTRIES = frozenset({"sit", "join", "free", "tuoguan", "leave", "start", "hall"})
"""Log entries after which the table's presence is sent again."""


class Seating:
    """A hall room's pending seat changes (see the module's doc)."""

    def __init__(self, idle_hands: int = IDLE_HANDS) -> None:
        self.idle_hands = idle_hands
        self.reserved: dict[int, tuple[int, str]] = {}  # seat -> (player, nickname)
        self.idle: dict[int, int] = {}  # seat -> hands in a row ended idle
        self.counted = 0  # the last settled hand counted

    def free_computer_seats(self, table: Table) -> list[int]:
        """Computer seats no one is waiting to take."""
        return [i for i, s in enumerate(table.seats)
                if s.kind != "human" and i not in self.reserved]

    def reserve(self, table: Table, player: int, nickname: str) -> int | None:
        """Reserve a computer seat for ``player`` (taken between hands); None if none."""
        free = self.free_computer_seats(table)
        if not free:
            return None
        self.reserved[free[0]] = (player, nickname)
        return free[0]

    def note_hand(self, idle_by_seat: Mapping[int, bool]) -> None:
        """Count one finished hand: for each person's seat, whether he ended it idle."""
        for seat, idle in idle_by_seat.items():
            self.idle[seat] = self.idle.get(seat, 0) + 1 if idle else 0

    def idle_seats(self) -> list[int]:
        return [seat for seat, n in self.idle.items() if n >= self.idle_hands]

    def entries(self, table: Table, computer: str) -> list[dict[str, Any]]:
        """The log entries to apply now (between hands): idle seats freed, then the
        reserved seats taken."""
        out: list[dict[str, Any]] = []
        for seat in self.idle_seats():
            if table.seats[seat].kind == "human":
                out.append({"k": "free", "seat": seat, "kind": computer})
            del self.idle[seat]
        for seat, (player, nickname) in sorted(self.reserved.items()):
            if table.seats[seat].kind != "human" and table.seat_of_player(player) is None:
                out.append({"k": "join", "seat": seat, "player": player, "nickname": nickname})
        self.reserved.clear()
        return out


def presence_json(table: Table, connected: Iterable[int | None],
                  ready: Iterable[int], between: bool | None = None) -> dict[str, Any]:
    """The ``presence`` message: per match seat its status (``computer``, ``empty``,
    ``tuoguan``, ``connected`` or ``away``) and, between hands, whether it is ready.
    Nothing in it is hidden from anyone: connections, 托管 and readiness are public."""
    online = set(connected)
    votes = set(ready)
    if between is None:  # else what the seats have been shown (Runtime.end_shown)
        between = table.hand is None or table.hand.ended
    seats = []
    for i, s in enumerate(table.seats):
        if s.kind != "human":
            status = "computer"
        elif s.player is None:
            status = "empty"
        elif s.tuoguan:
            status = "tuoguan"
        else:
            status = "connected" if i in online else "away"
        seats.append({"status": status, "ready": between and s.kind == "human"
                      and i in votes})
    connected = sorted(i for i in online if i is not None)
    return {"type": "presence", "seats": seats, "connected": connected}
