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
At the process's cap, a new room first ends the rooms nobody has ever connected to,
oldest first, then those idle the longest (:class:`SpareRoom`: nobody connected, no hand
in progress, no other person's seat in a match not over); when none is left, it is
refused (:class:`ServerFull`). An address here is an IPv6 address's /48 (a site is given
a whole /48; counted by /64, one person rotating through it multiplied his cap: a red
team), an IPv4 address as it is (:func:`address_key`). A room the hall's
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
>>> spare = [SpareRoom("100004", unjoined=False, idle=90.0),
...          SpareRoom("100005", unjoined=True, idle=10.0),
...          SpareRoom("100006", unjoined=False, idle=600.0)]
>>> rooms_to_end(rooms, b, RoomCaps(per_player=None, per_address=None, total=4),
...              live=6, spare=spare)
['100005', '100006', '100004']
"""

from __future__ import annotations

import hashlib
import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass

from paohuzi.core.errors import PaohuziError
from paohuzi.server.refusals import refusal

__all__ = ["IPV6_ROOM_PREFIX", "Creator", "LiveRoom", "RoomCaps", "RoomLimitError",
           "ServerFull", "SpareRoom", "TooManyOpenRooms", "address_key", "room_address",
           "rooms_to_end"]

IPV6_ROOM_PREFIX = 48
"""The IPv6 network counted as one address by the cap on rooms per address."""


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
    """An address (``protocol.person_address``) as the rooms' creators are kept (in
    memory and in the database): a digest of its :func:`room_address`, so that no
    address is stored.

    >>> address_key("10.0.0.1") == address_key("10.0.0.1") != address_key("10.0.0.2")
    True
    >>> address_key("2001:db8:7:1::/64") == address_key("2001:db8:7:ffff::/64")
    True
    >>> len(address_key("::1"))
    32
    """
    key = room_address(address)
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def room_address(address: str) -> str:
    """The address the cap on rooms per address counts: an IPv6 address or network as its
    /48 (:data:`IPV6_ROOM_PREFIX`); anything else (an IPv4 address) as it is.

    >>> room_address("2001:db8:7:1::/64"), room_address("2001:db8:7:1::a")
    ('2001:db8:7::/48', '2001:db8:7::/48')
    >>> room_address("192.0.2.7"), room_address("unknown")
    ('192.0.2.7', 'unknown')
    """
    try:
        network = ipaddress.ip_network(address, strict=False)
    except ValueError:
        return address
    if network.version != 6 or network.prefixlen <= IPV6_ROOM_PREFIX:
        return address
    return str(network.supernet(new_prefix=IPV6_ROOM_PREFIX))


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
class SpareRoom:
    """A live room (created by a person or not) a full process may end to make space for a
    new one: nobody is connected to it, no hand is in progress in it, and no person other
    than its creator holds a seat of a match not over."""

    code: str
    unjoined: bool
    """Nobody has ever connected to it: these end first, the oldest first."""
    idle: float
    """Seconds since anything happened in it: the others end the longest idle first."""


@dataclass(frozen=True, slots=True)
class RoomCaps:
    """The caps (``None``: no cap): open rooms per account, live rooms created per
    address, live rooms in the process."""

    per_player: int | None
    per_address: int | None
    total: int | None


def rooms_to_end(rooms: Sequence[LiveRoom], creator: Creator, caps: RoomCaps,
                 live: int | None = None, spare: Sequence[SpareRoom] = ()) -> list[str]:
    """The rooms to end before ``creator`` gets one more (``rooms``: the live rooms with a
    creator, oldest first; ``live``: every live room of the process, ``len(rooms)`` if
    not given; ``spare``: the rooms that may end to keep the process below its cap).
    Raises :class:`TooManyOpenRooms` or :class:`ServerFull`."""
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
        ending += _make_space(spare, total - len(ending) - caps.total + 1, ending, total)
    return ending


def _make_space(spare: Sequence[SpareRoom], needed: int, ending: list[str],
                total: int) -> list[str]:
    """The ``needed`` rooms of ``spare`` (beyond those ``ending`` already) to end for a
    full process: the ones nobody ever connected to, oldest first, then the longest idle."""
    chosen = sorted((r for r in spare if r.code not in ending),
                    key=lambda r: (not r.unjoined, -r.idle))
    if len(chosen) < needed:
        raise refusal(ServerFull, "server_full", rooms=total)
    return [r.code for r in chosen[:needed]]


_ZH = {"your account": "你的账号", "your address": "你的网络地址",
       "nobody else has joined": "还没有别人加入的", "created from it": "从这个地址创建的"}
"""The Chinese of :func:`_over`'s ``who`` and ``which``."""


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
        raise refusal(TooManyOpenRooms, "too_many_open_rooms", who=who, open=len(left),
                      rooms="room" if len(left) == 1 else "rooms", which=which,
                      who_zh=_ZH.get(who, who), which_zh=_ZH.get(which, which))
    return idle[:excess]
