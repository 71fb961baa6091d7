"""Bounds on live rooms (docs/protocol.md, "Limits"): how many open rooms an account and
an address may keep, and how many rooms one process serves.

A room a person creates is *open* for his account while no other person holds one of its
seats in a match not yet over. Creating one room more than the account's cap first ends
the account's oldest open room that nobody is connected to (as idle expiry ends a room);
when every one of them has a connection, the new room is refused
(:class:`TooManyOpenRooms`). An address's cap counts every live room created from it,
joined or not (accounts are free to make: another account of the same address joining
must not lift the bound), and ends the oldest open one nobody is connected to. A joined
room is never ended for a cap — its people may only be reconnecting, and losing their
match is worse than refusing a room: when nothing can be ended, the new room is refused.
Beyond the process's cap new rooms are refused (:class:`ServerFull`). A room the hall's
quick match makes for a group is counted as created by its longest-waiting person
(matchmaking.py); one it makes otherwise (``Server.create_room``) has no creator: only
the process's cap counts it.

>>> a, b = Creator(1, address_key("10.0.0.1")), Creator(2, address_key("10.0.0.1"))
>>> rooms = [LiveRoom("100001", a, joined=False, connected=False),
...          LiveRoom("100002", a, joined=False, connected=True),
...          LiveRoom("100003", b, joined=True, connected=False)]
>>> rooms_to_end(rooms, a, RoomCaps(per_player=2, per_address=None, total=None))
['100001']
>>> rooms_to_end(rooms, b, RoomCaps(per_player=2, per_address=3, total=None))
['100001']
>>> rooms_to_end(rooms[1:], a, RoomCaps(per_player=1, per_address=None, total=None))
... # doctest: +ELLIPSIS
Traceback (most recent call last):
...
paohuzi.server.roombounds.TooManyOpenRooms: too many open rooms: your account has 1 room ...
>>> rooms_to_end(rooms[1:], b, RoomCaps(per_player=None, per_address=2, total=None))
... # doctest: +ELLIPSIS
Traceback (most recent call last):
...
paohuzi.server.roombounds.TooManyOpenRooms: too many open rooms: your address has 2 rooms ...
>>> rooms_to_end(rooms, b, RoomCaps(per_player=None, per_address=None, total=3))
Traceback (most recent call last):
...
paohuzi.server.roombounds.ServerFull: the server is full (3 rooms open): try again later
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from paohuzi.core.errors import PaohuziError

__all__ = ["Creator", "LiveRoom", "RoomCaps", "RoomLimitError", "ServerFull",
           "TooManyOpenRooms", "address_key", "rooms_to_end"]


class RoomLimitError(PaohuziError):
    """A new room refused by a bound on live rooms; ``status`` is its HTTP status."""

    status = 429


class TooManyOpenRooms(RoomLimitError):
    """The account (or the address) has as many open rooms as it may, each with someone
    connected: none can be ended to make room (429)."""

    status = 429


class ServerFull(RoomLimitError):
    """The process serves as many rooms as it may (503)."""

    status = 503


def address_key(address: str) -> str:
    """An address as the rooms' creators are kept (in memory and in the database): a
    digest, so that no address is stored.

    >>> address_key("10.0.0.1") == address_key("10.0.0.1") != address_key("10.0.0.2")
    True
    >>> len(address_key("::1"))
    32
    """
    return hashlib.sha256(address.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Creator:
    """Who created a room: the account and the address (:func:`address_key`)."""

    player: int
    address: str


@dataclass(frozen=True, slots=True)
class LiveRoom:
    """A live room a person created, as the bounds see it."""

    code: str
    creator: Creator
    joined: bool
    """A person other than its creator holds one of its seats, in a match not over: the
    room is never ended for a cap."""
    connected: bool
    """Somebody is connected to it now."""


@dataclass(frozen=True, slots=True)
class RoomCaps:
    """The caps (``None``: no cap): open rooms per account, live rooms created per
    address, live rooms in the process."""

    per_player: int | None
    per_address: int | None
    total: int | None


def rooms_to_end(rooms: Sequence[LiveRoom], creator: Creator, caps: RoomCaps,
                 live: int | None = None) -> list[str]:
    """The rooms to end before ``creator`` gets one more (``rooms``: the live rooms with a
    creator, oldest first; ``live``: every live room of the process, ``len(rooms)`` if
    not given). Raises :class:`TooManyOpenRooms` or :class:`ServerFull`."""
    ending: list[str] = []
    if caps.per_player is not None:
        mine = [r for r in rooms if r.creator.player == creator.player and not r.joined]
        ending += _over(mine, caps.per_player, ending, "your account", "nobody else has joined")
    if caps.per_address is not None:
        ours = [r for r in rooms if r.creator.address == creator.address]
        ours.sort(key=lambda r: r.joined)  # stable: oldest first, the unjoined ones first
        ending += _over(ours, caps.per_address, ending, "your address", "created from it")
    total = len(rooms) if live is None else live
    if caps.total is not None and total - len(ending) >= caps.total:
        raise ServerFull(f"the server is full ({total} rooms open): try again later")
    return ending


def _over(counted: list[LiveRoom], cap: int, ending: list[str], who: str,
          which: str) -> list[str]:
    """The rooms of ``counted`` to end (beyond those ``ending`` already) to bring it
    below ``cap``: the first ones nobody is connected to."""
    left = [r for r in counted if r.code not in ending]
    excess = len(left) - cap + 1
    if excess <= 0:
        return []
    idle = [r.code for r in left if not r.connected and not r.joined]
    if len(idle) < excess:
        rooms = "room" if len(left) == 1 else "rooms"
        raise TooManyOpenRooms(
            f"too many open rooms: {who} has {len(left)} {rooms} {which}, each with someone "
            "connected or a match with other people; leave one of them and try again")
    return idle[:excess]
