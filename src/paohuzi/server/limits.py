"""Rate limits and bounds of the server: token buckets per account and per address.

A :class:`TokenBucket` holds up to ``burst`` tokens and gains ``rate`` a second;
each request takes one. A :class:`RateLimiter` keeps one bucket per key (an
account, an address) in memory, forgetting the oldest keys beyond ``max_keys``.

>>> bucket = TokenBucket(rate=1.0, burst=2, tokens=2.0, stamp=0.0)
>>> bucket.take(0.0), bucket.take(0.0), bucket.take(0.0), bucket.take(1.0)
(True, True, False, True)
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Literal, Protocol

__all__ = ["FrameBudget", "Limiter", "Limits", "OpenCount", "RateLimiter", "TokenBucket"]


@dataclass
class TokenBucket:
    """``burst`` requests at once, then ``rate`` a second."""

    rate: float
    burst: int
    tokens: float
    stamp: float

    def take(self, now: float) -> bool:
        """Take one token if there is one (refilled up to ``now``)."""
        self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


class Limiter(Protocol):
    """What the server asks of a rate limit (in memory here, or shared: cluster.py)."""

    def allow(self, key: str) -> bool: ...


@dataclass
class RateLimiter:
    """One token bucket per key, the ``max_keys`` most recently used kept.

    >>> limiter = RateLimiter(rate=0.0, burst=1)
    >>> limiter.allow("a", now=0.0), limiter.allow("a", now=5.0), limiter.allow("b", now=5.0)
    (True, False, True)
    """

    rate: float
    burst: int
    max_keys: int = 100_000
    _buckets: OrderedDict[str, TokenBucket] = field(default_factory=OrderedDict, repr=False)

    def allow(self, key: str, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = TokenBucket(self.rate, self.burst, float(self.burst), now)
            self._buckets[key] = bucket
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket.take(now)


@dataclass
class FrameBudget:
    """The WebSocket frames all connections of one key (an address) may send together:
    ``rate`` a second after a ``burst``. A frame beyond is refused (``"refuse"``: the
    server answers "too many messages"); refused frames have a budget of their own,
    ``overflow`` times as large, and a frame beyond that one too closes its connection
    (``"close"``) — as a single connection is answered beyond 30 frames a second and
    closed beyond 3 x 30 (protocol.py). The ``max_keys`` most recently used are kept.

    >>> budget = FrameBudget(rate=0.0, burst=2, overflow=1)
    >>> [budget.take("a", now=0.0) for _ in range(5)], budget.take("b", now=0.0)
    (['ok', 'ok', 'refuse', 'refuse', 'close'], 'ok')
    >>> budget = FrameBudget(rate=10.0, burst=1, overflow=2)
    >>> budget.take("a", now=0.0), budget.take("a", now=0.05), budget.take("a", now=0.1)
    ('ok', 'refuse', 'ok')
    """

    rate: float
    burst: int
    overflow: int = 2
    max_keys: int = 100_000
    _buckets: OrderedDict[str, tuple[TokenBucket, TokenBucket]] = field(
        default_factory=OrderedDict, repr=False)

    def take(self, key: str, now: float) -> Literal["ok", "refuse", "close"]:
        """Count one frame of ``key``: whether it goes on, is refused, or closes."""
        buckets = self._buckets.get(key)
        if buckets is None:
            spare = self.burst * self.overflow
            buckets = (TokenBucket(self.rate, self.burst, float(self.burst), now),
                       TokenBucket(self.rate * self.overflow, spare, float(spare), now))
            self._buckets[key] = buckets
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        if buckets[0].take(now):
            return "ok"
        return "refuse" if buckets[1].take(now) else "close"


@dataclass
class OpenCount:
    """How many of something (connections) each key holds open, at most ``cap`` each.

    >>> count = OpenCount(cap=2)
    >>> count.enter("a"), count.enter("a"), count.enter("a"), count.enter("b")
    (True, True, False, True)
    >>> count.leave("a")
    >>> count.enter("a"), count.held("a")
    (True, 2)
    """

    cap: int
    _open: dict[str, int] = field(default_factory=dict, repr=False)

    def held(self, key: str) -> int:
        return self._open.get(key, 0)

    def enter(self, key: str) -> bool:
        """Count one more for ``key`` unless it holds ``cap`` already."""
        held = self._open.get(key, 0)
        if held >= self.cap:
            return False
        self._open[key] = held + 1
        return True

    def leave(self, key: str) -> None:
        """One of ``key``'s is closed (keys holding none are forgotten)."""
        held = self._open.get(key, 0) - 1
        if held > 0:
            self._open[key] = held
        else:
            self._open.pop(key, None)


@dataclass(frozen=True)
class Limits:
    """Every bound of the server in one place (docs/protocol.md, "Limits").

    Rates are ``(per second, burst)``; ``None`` turns a limit off. The connection rates'
    bursts also cap the connections an account / an address holds open (:class:`OpenCount`).
    """

    players_per_address: tuple[float, int] | None = (0.5, 30)
    rooms_per_account: tuple[float, int] | None = (0.5, 20)
    rooms_per_address: tuple[float, int] | None = (2.0, 60)
    connections_per_account: tuple[float, int] | None = (2.0, 40)
    connections_per_address: tuple[float, int] | None = (10.0, 200)
    """New WebSocket connections and room lookups of one address (an IPv6 address's /48,
    ``roombounds.room_address``: its /64s do not multiply the rate), and as many open
    connections of one address (an IPv6 /64) at most."""
    replays_per_address: tuple[float, int] | None = (1.0, 30)
    """Replays made (a game's steps not kept yet: tens of ms of CPU each); kept ones are
    free."""
    frames_per_address: tuple[float, int] | None = (100.0, 300)
    """WebSocket frames (every message, any kind) all connections of one address — an
    IPv6 address's /48, as the room cap counts it (``roombounds.room_address``) — send
    together: beyond, each is answered "too many messages: slow down" unread, and beyond
    twice as much again (:class:`FrameBudget`) the connection that sent it is closed
    (1008). Each connection's own 30 a second times the 200 connections of an address
    let one address make the server answer ~6,000 frames a second (a full state of ~2 KB
    for each ``resync``: about a third of a core, ``benchmarks/flood.py``); a household
    behind one address playing (a few frames a second a player) stays far below. Kept
    in memory by each process (a Redis round trip a frame would cost more than the
    frame), where the room is served: a cluster of N processes lets an address send up
    to N times as much."""
    max_body: int = 4096
    """Largest HTTP request body (bytes); larger ones get 413 without being read."""
    body_timeout: float = 10.0
    """Seconds a request body may take to arrive (408 beyond)."""
    header_timeout: float = 5.0
    """Seconds a connection may take to send a request's headers before it is closed."""
    keep_alive: int = 5
    """Seconds an idle keep-alive connection is kept."""
    max_spectators: int = 16
    """Connections without a seat one room takes (seated players always get in)."""
    room_idle_hours: float = 24.0
    """A room with nobody connected and no action for this long expires."""
    unjoined_room_minutes: float = 5.0
    """A room nobody has connected to since it was made expires after this long (a
    red team filled ``max_rooms`` with rooms made and never joined, each kept for
    ``room_idle_hours``): the normal flow connects at once. A restored room that never
    dealt a hand and has no other person's seat is given this long again from the
    restart."""
    sweep_seconds: float = 60.0
    """How often idle rooms are looked for."""
    max_open_rooms_per_player: int | None = 8
    """Live rooms an account created that no other person has joined; one more ends the
    oldest nobody is connected to, or is refused (429: roombounds.py)."""
    max_open_rooms_per_address: int | None = 32
    """Live rooms created from one address (joined or not), across its accounts."""
    max_rooms: int | None = 5000
    """Live rooms one process serves (restored and hall rooms included); beyond, 503."""

    def __post_init__(self) -> None:
        for name in ("max_open_rooms_per_player", "max_open_rooms_per_address", "max_rooms"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                      or value < 1):
                raise ValueError(f"{name} must be a whole number of at least 1 or None, "
                                 f"got {value!r}")

    def limiter(self, name: str) -> RateLimiter | None:
        setting: tuple[float, int] | None = getattr(self, name)
        return None if setting is None else RateLimiter(*setting)

    def frame_budget(self) -> FrameBudget | None:
        """The budget of frames per address (``frames_per_address``), None if off."""
        setting = self.frames_per_address
        return None if setting is None else FrameBudget(*setting)

    def open_count(self, name: str) -> OpenCount | None:
        """The cap on what is held open at once under the rate ``name``: its burst (a
        rate bounds how fast connections come, not how many stay open)."""
        setting: tuple[float, int] | None = getattr(self, name)
        return None if setting is None else OpenCount(setting[1])
