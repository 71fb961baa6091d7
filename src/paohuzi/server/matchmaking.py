"""Quick match (快速开始, issue 16): a queue per 场次 and preset; waiting people are
seated together, computers fill the empty seats after a wait, and a hall room with
computer seats keeps taking people between hands (rules-notes N40, N41).

:class:`Queue` is the matching itself, pure and synchronous (no server, no clock of its
own); :class:`Matchmaker` runs it for the server: rooms, seats, the HTTP answers.

Matching, each tick, for each (场次, preset):

1. the longest-waiting person first, his partners the waiting people nearest to him in
   rating (OpenSkill ordinal), never two from one address (every hall room is a
   standard-stakes room: ranked); a full table of people is seated at once;
2. a person left over takes a computer seat of a hall room of his 场次 and preset that
   has people in it (from the next hand);
3. a person who has waited ``wait`` seconds is seated with whoever could join him, and
   computers in the empty seats.

>>> q = Queue(wait=10.0)
>>> for pid, address in [(1, "a"), (2, "a"), (3, "b"), (4, "c")]:
...     q.join(Ticket(pid, f"p{pid}", address, 0.0, "xinshou", "qq", since=float(pid)))
>>> [[t.player for t in g.people] for g in q.match(5.0, {"qq": 3})]
[[1, 3, 4]]
>>> [[t.player for t in g.people] for g in q.match(12.0, {"qq": 3})]
[[2]]
>>> q.join(Ticket(5, "p5", "d", 0.0, "xinshou", "qq", since=13.0))
>>> q.join(Ticket(5, "p5", "d", 0.0, "xinshou", "qq", since=14.0))
Traceback (most recent call last):
...
paohuzi.server.matchmaking.AlreadyQueued: you are already in the quick-match queue \
(新手场, qq): leave it first
"""

from __future__ import annotations

import asyncio
import bisect
import json
import logging
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from paohuzi.core.errors import PaohuziError
from paohuzi.core.options import label_of
from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.players import PLAYER_NAMES
from paohuzi.server.economy import EconomyError, EntryRefused, changci, check_entry
from paohuzi.server.hall import Census, hall_counts
from paohuzi.server.refusals import refusal, words, words_of
from paohuzi.server.roombounds import Creator, RoomLimitError, TooManyOpenRooms, address_key

if TYPE_CHECKING:
    from paohuzi.server.runtime import Runtime
    from paohuzi.server.server import Server
    from paohuzi.server.storage import PlayerRecord

__all__ = ["SCAN", "AlreadyQueued", "Group", "MatchSettings", "Matchmaker", "Placement",
           "Queue", "QueueError", "SharedQueue", "Ticket"]

log = logging.getLogger("paohuzi.server")

SCAN = 64
"""How many rating neighbours on each side of the longest-waiting person are looked at
for his partners (bounds a tick's cost with thousands waiting)."""

Key = tuple[str, str]
"""A queue: (场次 key, preset name)."""


class QueueError(PaohuziError):
    """A quick-match request refused (its message names what was wrong)."""


BEING_SEATED = words("being_seated")["en"]


def _reason_json(reason: str) -> dict[str, Any]:
    """A refusal kept as the JSON of its words (:meth:`Matchmaker.refuse`) as a status
    tells it: ``reason`` in English and ``words`` in every language (an older process's
    plain English text: the reason alone)."""
    try:
        said = json.loads(reason)
    except ValueError:
        said = None
    if not isinstance(said, dict) or not isinstance(said.get("en"), str):
        return {"reason": reason}
    return {"reason": said["en"], "words": said}


def already_queued(ticket: Ticket) -> AlreadyQueued:
    """The refusal of a second place in the queue (``ticket``: the one he holds)."""
    return refusal(AlreadyQueued, "already_queued", title=changci(ticket.changci).title,
                   preset=ticket.preset, preset_zh=label_of(ticket.preset)["zh"])


class AlreadyQueued(QueueError):
    """The player is in the queue already."""


@dataclass(frozen=True)
class MatchSettings:
    """How the hall seats people: ``wait`` seconds before computers fill the empty
    seats, a matching pass every ``tick`` seconds, the ``computer`` that fills them,
    ``distinct_addresses`` (never two accounts from one address at one ranked table:
    only a test of three browsers on one machine turns it off) and extra room
    ``options`` (timings) of the rooms it makes."""

    wait: float = 20.0
    tick: float = 0.5
    computer: str = "normal"
    distinct_addresses: bool = True
    options: Mapping[str, Any] = field(default_factory=dict)
    entry_ttl: float = 30.0
    """Several processes (a queue shared through Redis): seconds a queued person's entry
    lives unless refreshed — by the process he queued through, at each tick, and by each
    status request of his, on any process — so a process's death does not leave its
    people queued (and matched) forever."""

    def __post_init__(self) -> None:
        if self.computer not in PLAYER_NAMES:
            raise ValueError(f"computer must be one of {', '.join(PLAYER_NAMES)}")
        if not (self.wait >= 0 and self.tick > 0):
            raise ValueError("wait must be >= 0 and tick > 0 seconds")
        if not self.entry_ttl > self.tick:
            raise ValueError("entry_ttl must be longer than a tick")


@dataclass(frozen=True, slots=True)
class Ticket:
    """One person waiting: who, from where, his rating, which queue, since when."""

    player: int
    nickname: str
    address: str
    rating: float
    changci: str
    preset: str
    since: float

    @property
    def key(self) -> Key:
        return (self.changci, self.preset)

    def to_json(self) -> str:
        """The ticket as text (the queue shared through Redis).

        >>> t = Ticket(7, "p", "a", 1.5, "chuji", "qq", since=2.0)
        >>> Ticket.from_json(t.to_json()) == t
        True
        """
        return json.dumps([self.player, self.nickname, self.address, self.rating,
                           self.changci, self.preset, self.since], ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str | bytes) -> Ticket:
        player, nickname, address, rating, changci_key, preset, since = json.loads(text)
        return cls(int(player), str(nickname), str(address), float(rating),
                   str(changci_key), str(preset), float(since))


@dataclass(frozen=True, slots=True)
class Group:
    """People to seat together at a new room of ``seats`` seats (computers in the rest)."""

    key: Key
    people: tuple[Ticket, ...]
    seats: int


@dataclass(frozen=True, slots=True)
class OpenRoom:
    """A hall room that takes people: its code, free computer seats, people's addresses."""

    code: str
    key: Key
    free: int
    addresses: frozenset[str]

    def to_json(self) -> list[Any]:
        """The room as JSON (the open rooms shared through Redis).

        >>> r = OpenRoom("123456", ("xinshou", "qq"), 1, frozenset({"a", "b"}))
        >>> OpenRoom.from_json(r.to_json()) == r
        True
        """
        return [self.code, list(self.key), self.free, sorted(self.addresses)]

    @classmethod
    def from_json(cls, data: Any) -> OpenRoom:
        code, (changci_key, preset), free, addresses = data
        return cls(str(code), (str(changci_key), str(preset)), int(free),
                   frozenset(str(a) for a in addresses))


@dataclass(frozen=True, slots=True)
class Placement:
    """A person placed at a computer seat of an existing hall room."""

    ticket: Ticket
    code: str


class Queue:
    """The waiting people, by queue and by rating (see the module's doc)."""

    def __init__(self, wait: float, distinct_addresses: bool = True) -> None:
        self.wait = wait
        self.distinct_addresses = distinct_addresses
        self.tickets: dict[int, Ticket] = {}
        self._by_rating: dict[Key, list[tuple[float, float, int]]] = {}

    def join(self, ticket: Ticket) -> None:
        """Queue ``ticket``; :class:`AlreadyQueued` if its player is queued already."""
        old = self.tickets.get(ticket.player)
        if old is not None:
            raise already_queued(old)
        self.tickets[ticket.player] = ticket
        bisect.insort(self._by_rating.setdefault(ticket.key, []),
                      (ticket.rating, ticket.since, ticket.player))

    def leave(self, player: int) -> Ticket | None:
        """Take ``player`` out of the queue; his ticket, None if he was not queued."""
        ticket = self.tickets.pop(player, None)
        if ticket is not None:
            row = self._by_rating[ticket.key]
            row.pop(bisect.bisect_left(row, (ticket.rating, ticket.since, ticket.player)))
            if not row:
                del self._by_rating[ticket.key]
        return ticket

    def waiting(self, key: Key) -> int:
        return len(self._by_rating.get(key, ()))

    def ticket(self, player: int) -> Ticket | None:
        """``player``'s ticket, None if he is not queued."""
        return self.tickets.get(player)

    def all_tickets(self) -> list[Ticket]:
        return list(self.tickets.values())

    def match(self, now: float, seats: Mapping[str, int],
              rooms: Iterable[OpenRoom] = ()) -> list[Group | Placement]:
        """One matching pass: the groups to seat and the placements at open rooms, taken
        out of the queue. ``seats``: each preset's table size."""
        open_rooms: dict[Key, list[OpenRoom]] = {}
        for room in rooms:
            open_rooms.setdefault(room.key, []).append(room)
        out: list[Group | Placement] = []
        for key in list(self._by_rating):
            out += self._match_queue(key, now, seats[key[1]], open_rooms.get(key, []))
        return out

    def _match_queue(self, key: Key, now: float, size: int,
                     rooms: list[OpenRoom]) -> list[Group | Placement]:
        row = self._by_rating[key]
        taken: set[int] = set()
        out: list[Group | Placement] = []
        left: list[Ticket] = []
        for _, _, pid in sorted(row, key=lambda r: (r[1], r[2])):  # longest waiting first
            if pid in taken:
                continue
            anchor = self.tickets[pid]
            partners = self._partners(row, anchor, size - 1, taken)
            if len(partners) == size - 1:
                taken.update(t.player for t in (anchor, *partners))
                out.append(Group(key, (anchor, *partners), size))
            else:
                left.append(anchor)
        free = {r.code: r.free for r in rooms}
        addresses = {r.code: set(r.addresses) for r in rooms}
        for anchor in left:
            if anchor.player in taken:
                continue
            room = next((r for r in rooms if free[r.code] > 0 and not (
                self.distinct_addresses and anchor.address in addresses[r.code])), None)
            if room is not None:
                free[room.code] -= 1
                addresses[room.code].add(anchor.address)
                taken.add(anchor.player)
                out.append(Placement(anchor, room.code))
            elif now - anchor.since >= self.wait:
                partners = self._partners(row, anchor, size - 1, taken)
                taken.update(t.player for t in (anchor, *partners))
                out.append(Group(key, (anchor, *partners), size))
        for pid in taken:
            self.leave(pid)
        return out

    def _partners(self, row: list[tuple[float, float, int]], anchor: Ticket, wanted: int,
                  taken: set[int]) -> list[Ticket]:
        """Up to ``wanted`` waiting people nearest to ``anchor`` in rating, none taken,
        none from an address already at the table."""
        at = bisect.bisect_left(row, (anchor.rating, anchor.since, anchor.player))
        lo, hi = at - 1, at + 1
        found: list[Ticket] = []
        addresses = {anchor.address}
        looked = 0
        while len(found) < wanted and (lo >= 0 or hi < len(row)) and looked < 2 * SCAN:
            looked += 1
            below = row[lo] if lo >= 0 else None
            above = row[hi] if hi < len(row) else None
            if above is None or (below is not None and
                                 anchor.rating - below[0] <= above[0] - anchor.rating):
                pick, lo = below, lo - 1
            else:
                pick, hi = above, hi + 1
            assert pick is not None
            ticket = self.tickets[pick[2]]
            if ticket.player in taken or (self.distinct_addresses and
                                          ticket.address in addresses):
                continue
            found.append(ticket)
            addresses.add(ticket.address)
        return found


@dataclass(frozen=True, slots=True)
class Seated:
    """Where the queue seated a player (``from_next_hand``: at a hand in progress;
    ``provisional``: written before the room was stored, :meth:`Matchmaker.status`
    confirms it)."""

    code: str
    seat: int
    computers: int
    from_next_hand: bool
    provisional: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"status": "seated", "code": self.code, "seat": self.seat,
                "computers": self.computers, "from_next_hand": self.from_next_hand}

_PREFIX = "paohuzi:mm:"
"""Redis keys of the shared queue: ``ticket:{player}`` (his ticket, expiring),
``queue:{场次}:{preset}`` (a sorted set of the players queued there, by when they
joined), ``queues`` (the names of those sorted sets), ``seated:{player}`` (where he
was seated), ``seating:{player}`` (his ticket while a pass seats him: taken out of the
queue, not seated yet; expiring), ``lock`` (the process matching), ``rooms:{process}``
(a process's hall rooms with a computer seat free, expiring), ``nodes`` (the processes
that published some), ``place:{process}`` (people placed at that process's rooms, for it
to seat)."""

_JOIN = """
if redis.call('EXISTS', KEYS[5]) == 1 then return '' end
local old = redis.call('GET', KEYS[1])
if old then return old end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
redis.call('SADD', KEYS[4], KEYS[2])
redis.call('DEL', KEYS[3])
return false
"""
"""Queue a ticket unless its player is queued already (then: his ticket) or a pass of
some process is seating him (KEYS[5], ``seating:{player}``; then: an empty string)."""

_LEAVE = """
local old = redis.call('GET', KEYS[1])
if not old then return false end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return old
"""
"""Take a player's ticket (KEYS[1]) out of its queue (KEYS[2]); his ticket, or nil."""

_CLAIM = """
local n = #KEYS / 3
for i = 1, n do
  if redis.call('GET', KEYS[i]) ~= ARGV[i] then return 0 end
end
for i = 1, n do
  redis.call('DEL', KEYS[i])
  redis.call('ZREM', KEYS[n + i], ARGV[n + i])
  redis.call('SET', KEYS[2 * n + i], ARGV[2 * n + 2] .. ' ' .. ARGV[i], 'PX', ARGV[2 * n + 1])
end
return 1
"""
"""Take the tickets of one group out of the queue, all of them or none: none when one
of them has left, expired or changed meanwhile; each one taken is marked as being
seated by this process (KEYS: the n ticket keys, their queue keys, their ``seating``
keys; ARGV: the n tickets expected, their players, how long the marks last in ms, the
process's id)."""

_SEATING_DONE = """
local mine = ARGV[1] .. ' '
for i = 1, #KEYS do
  local mark = redis.call('GET', KEYS[i])
  if mark and string.sub(mark, 1, #mine) == mine then redis.call('DEL', KEYS[i]) end
end
return 0
"""
"""Clear this process's (ARGV[1]) ``seating`` marks among KEYS; another process's mark
(it took the person after this one put him back) stays."""

_REPLACE_IF = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1])
else redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) end
return 1
"""
"""Replace KEYS[1] by ARGV[2] (expiring in ARGV[3] seconds; ``''``: delete it) only if
it still holds ARGV[1]: a provisional place confirmed or forgotten, never a newer one
written meanwhile."""

_SEATED_TTL = 3600
"""Seconds every process can read where a person was seated."""

_SEATING_MS = 30_000
"""How long a person taken out of the queue by a pass stays marked as being seated if
the process seating him dies before it seats, refuses or re-queues him (a pass seats
its people within a second)."""

_LOCK_MS = 5000
"""How long the matching lock lasts if its holder dies mid-pass (a pass takes
milliseconds; it is released at once)."""

_ROOMS_TICKS = 6
"""A process's open rooms live this many ticks unless published again (each tick): a
dead process's rooms are no longer offered soon after its death."""

_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


class SharedQueue:
    """The quick-match queue of several processes, kept in Redis (docs/scaling.md).

    The tickets live in Redis, each expiring ``ttl`` seconds after its last refresh
    (:meth:`refresh`, :meth:`ticket`). A matching pass is run by one process at a time
    (a lock that expires): it reads every ticket, matches them with the same
    :class:`Queue` as one process does, and takes each group's tickets out atomically
    (a script: all of them or none, so a person who left meanwhile is never seated),
    then creates the room itself. Where people were seated is written to Redis, so a
    person who queued through another process learns his room from any process (his
    status requests) and is forwarded to it as any connection is.

    The hall rooms that take people (a computer seat free) are every process's: each
    publishes its own at each tick (:meth:`match`). A person the matching process
    places at a room served elsewhere is handed to that room's process (a list in
    Redis) *without* taking his ticket: that process takes it (the same atomic take)
    and seats him at its next tick, so he is never taken twice nor lost — were that
    process dead, his ticket simply stays queued."""

    def __init__(self, client: Any, wait: float, distinct_addresses: bool,
                 ttl: float) -> None:
        self.redis = client
        self.wait, self.distinct_addresses, self.ttl = wait, distinct_addresses, ttl
        self.local: set[int] = set()  # queued through this process: refreshed by it
        self._id = secrets.token_hex(8)
        self.tick = 0.5  # seconds between matching passes (Matchmaker.share sets it)
        self._owners: dict[str, str] = {}  # a room served elsewhere -> its process
        self._join = client.register_script(_JOIN)
        self._leave = client.register_script(_LEAVE)
        self._claim = client.register_script(_CLAIM)
        self._unlock = client.register_script(_UNLOCK)
        self._seating_done = client.register_script(_SEATING_DONE)
        self._replace_if = client.register_script(_REPLACE_IF)

    @staticmethod
    def _queue_key(key: Key) -> str:
        return f"{_PREFIX}queue:{key[0]}:{key[1]}"

    def join(self, ticket: Ticket) -> None:
        """Queue ``ticket``; :class:`AlreadyQueued` if its player is queued already, or
        if a matching pass (of any process) is seating him."""
        old = self._join(keys=[f"{_PREFIX}ticket:{ticket.player}",
                               self._queue_key(ticket.key), f"{_PREFIX}seated:{ticket.player}",
                               f"{_PREFIX}queues", f"{_PREFIX}seating:{ticket.player}"],
                         args=[ticket.to_json(), int(self.ttl * 1000), ticket.since,
                               ticket.player])
        if old is not None and not old:
            raise refusal(AlreadyQueued, "being_seated")
        if old:
            was = Ticket.from_json(old)
            raise already_queued(was)
        self.local.add(ticket.player)

    def leave(self, player: int) -> Ticket | None:
        found = self.ticket(player, refresh=False)
        self.local.discard(player)
        if found is None:
            return None
        old = self._leave(keys=[f"{_PREFIX}ticket:{player}", self._queue_key(found.key)],
                          args=[player])
        return Ticket.from_json(old) if old else None

    def seating(self, player: int) -> Ticket | None:
        """The ticket of ``player`` if a pass of some process is seating him now."""
        text = self.redis.get(f"{_PREFIX}seating:{player}")
        return None if text is None else Ticket.from_json(_text(text).split(" ", 1)[1])

    def seating_done(self, players: Iterable[int]) -> None:
        """Clear this process's marks of people its pass has seated, refused or put back
        (not another's: a person put back may have been taken by another pass since)."""
        keys = [f"{_PREFIX}seating:{p}" for p in players]
        if keys:
            self._seating_done(keys=keys, args=[self._id])

    def ticket(self, player: int, refresh: bool = True) -> Ticket | None:
        """``player``'s ticket (None: not queued), its life renewed (``refresh``: he
        asked where he stands, so he is still there)."""
        key = f"{_PREFIX}ticket:{player}"
        if refresh:
            pipe = self.redis.pipeline(transaction=False)
            pipe.get(key)
            pipe.pexpire(key, int(self.ttl * 1000))
            text = pipe.execute()[0]
        else:
            text = self.redis.get(key)
        return None if text is None else Ticket.from_json(text)

    def refresh(self) -> None:
        """Renew the tickets of the people queued through this process (each tick);
        forget those no longer queued (seated by another process, or left)."""
        players = sorted(self.local)
        if not players:
            return
        pipe = self.redis.pipeline(transaction=False)
        for player in players:
            pipe.pexpire(f"{_PREFIX}ticket:{player}", int(self.ttl * 1000))
        for player, alive in zip(players, pipe.execute(), strict=True):
            if not alive:
                self.local.discard(player)

    def waiting(self, key: Key) -> int:
        return int(self.redis.zcard(self._queue_key(key)))

    def all_tickets(self) -> list[Ticket]:
        """Every live ticket; the queues' members whose ticket expired are dropped."""
        queues = sorted(k.decode() if isinstance(k, bytes) else str(k)
                        for k in self.redis.smembers(f"{_PREFIX}queues"))
        tickets: list[Ticket] = []
        for queue in queues:
            members = [int(m) for m in self.redis.zrange(queue, 0, -1)]
            if not members:
                continue
            texts = self.redis.mget([f"{_PREFIX}ticket:{m}" for m in members])
            gone = []
            for member, text in zip(members, texts, strict=True):
                ticket = None if text is None else Ticket.from_json(text)
                if ticket is None or self._queue_key(ticket.key) != queue:
                    gone.append(member)
                else:
                    tickets.append(ticket)
            if gone:
                self.redis.zrem(queue, *gone)
        return tickets

    def match(self, now: float, seats: Mapping[str, int],
              rooms: Iterable[OpenRoom] = ()) -> list[Group | Placement]:
        """Publish this process's open ``rooms``, take the people other processes placed
        at them, and run one matching pass over the shared queue if no other process
        is running one: the groups and placements whose tickets this process took out
        of Redis (to seat here)."""
        local = list(rooms)
        self.publish_rooms(local)
        out: list[Group | Placement] = [p for p in self._handed() if self._take(p)]
        lock = f"{_PREFIX}lock"
        if not self.redis.set(lock, self._id, nx=True, px=_LOCK_MS):
            return out
        try:
            queue = Queue(self.wait, self.distinct_addresses)
            for ticket in self.all_tickets():
                queue.join(ticket)
            served = {r.code for r in local}  # a room taken over: its old owner's is stale
            remote = [r for r in self.other_rooms() if r.code not in served]
            for code in served:
                self._owners.pop(code, None)
            for result in queue.match(now, seats, local + remote):
                if isinstance(result, Placement) and result.code in self._owners:
                    self._hand_over(result)  # seated by the room's process, not here
                elif self._take(result):
                    out.append(result)
            return out
        finally:
            self._unlock(keys=[lock], args=[self._id])

    def publish_rooms(self, rooms: list[OpenRoom]) -> None:
        """Publish this process's hall rooms with a computer seat free (each tick; they
        expire :data:`_ROOMS_TICKS` ticks later)."""
        pipe = self.redis.pipeline(transaction=False)
        key = f"{_PREFIX}rooms:{self._id}"
        if rooms:
            pipe.set(key, json.dumps([r.to_json() for r in rooms]),
                     px=max(1, int(_ROOMS_TICKS * self.tick * 1000)))
            pipe.sadd(f"{_PREFIX}nodes", self._id)
        else:
            pipe.delete(key)
        pipe.execute()

    def other_rooms(self) -> list[OpenRoom]:
        """The open hall rooms the other live processes published (remembering which
        process serves each); processes with none published are forgotten."""
        nodes = sorted(n for n in (_text(m) for m in self.redis.smembers(f"{_PREFIX}nodes"))
                       if n != self._id)
        texts = self.redis.mget([f"{_PREFIX}rooms:{n}" for n in nodes]) if nodes else []
        self._owners = {}
        found, gone = [], []
        for node, text in zip(nodes, texts, strict=True):
            if text is None:
                gone.append(node)
                continue
            for data in json.loads(text):
                room = OpenRoom.from_json(data)
                self._owners[room.code] = node
                found.append(room)
        if gone:
            self.redis.srem(f"{_PREFIX}nodes", *gone)
        return found

    def _hand_over(self, placement: Placement) -> None:
        """Hand a person placed at a room served elsewhere to that room's process."""
        inbox = f"{_PREFIX}place:{self._owners[placement.code]}"
        pipe = self.redis.pipeline(transaction=False)
        pipe.rpush(inbox, json.dumps([placement.ticket.to_json(), placement.code]))
        pipe.pexpire(inbox, max(1, int(_ROOMS_TICKS * self.tick * 1000)))
        pipe.execute()

    def _handed(self) -> list[Placement]:
        """The people other processes placed at this process's rooms (taken out of the
        list; their tickets are still to be taken)."""
        inbox = f"{_PREFIX}place:{self._id}"
        pipe = self.redis.pipeline(transaction=True)
        pipe.lrange(inbox, 0, -1)
        pipe.delete(inbox)
        out = []
        for text in pipe.execute()[0]:
            ticket, code = json.loads(text)
            out.append(Placement(Ticket.from_json(ticket), str(code)))
        return out

    def _take(self, result: Group | Placement) -> bool:
        people = result.people if isinstance(result, Group) else (result.ticket,)
        keys = [f"{_PREFIX}ticket:{t.player}" for t in people] + \
            [self._queue_key(t.key) for t in people] + \
            [f"{_PREFIX}seating:{t.player}" for t in people]
        args: list[Any] = [t.to_json() for t in people] + [t.player for t in people] + \
            [_SEATING_MS, self._id]
        taken = bool(self._claim(keys=keys, args=args))
        if taken:
            self.local.difference_update(t.player for t in people)
        return taken

    def note_seated(self, player: int, seated: Seated) -> None:
        """Where ``player`` was seated, readable by every process for an hour."""
        self.redis.set(f"{_PREFIX}seated:{player}", _seated_text(seated), ex=_SEATED_TTL)

    def replace_seated(self, player: int, old: Seated, new: Seated | None) -> bool:
        """Where ``player`` was seated, ``old`` replaced by ``new`` (None: forgotten) if
        it still says ``old``, in one step (he may have been seated anew meanwhile)."""
        return bool(self._replace_if(
            keys=[f"{_PREFIX}seated:{player}"],
            args=[_seated_text(old), "" if new is None else _seated_text(new), _SEATED_TTL]))

    def note_refused(self, player: int, reason: str) -> None:
        """Why ``player`` left the queue unseated (:meth:`Matchmaker.refuse`), readable by
        every process for ten minutes (instead of where he was seated before)."""
        self.redis.delete(f"{_PREFIX}seated:{player}")
        self.redis.set(f"{_PREFIX}refused:{player}", reason, ex=600)

    def refused(self, player: int) -> str | None:
        text = self.redis.get(f"{_PREFIX}refused:{player}")
        return None if text is None else _text(text)

    def forget_refused(self, player: int) -> None:
        self.redis.delete(f"{_PREFIX}refused:{player}")

    def seated(self, player: int) -> Seated | None:
        text = self.redis.get(f"{_PREFIX}seated:{player}")
        if text is None:
            return None
        data = json.loads(text)
        return Seated(str(data["code"]), int(data["seat"]), int(data["computers"]),
                      bool(data["from_next_hand"]), bool(data.get("provisional", False)))


class Matchmaker:
    """The server's quick match: its queue, its rooms, where it seated whom."""

    def __init__(self, server: Server, settings: MatchSettings | None = None) -> None:
        self.server = server
        self.settings = settings or MatchSettings()
        self.queue: Queue | SharedQueue = Queue(self.settings.wait,
                                                self.settings.distinct_addresses)
        self.clock: Callable[[], float] = time.monotonic  # what tickets' ``since`` count
        self.rooms: dict[str, Key] = {}
        self.seated: dict[int, Seated] = {}
        self.refused: dict[int, str] = {}  # why a person left the queue unseated
        self.addresses: dict[int, str] = {}  # the address a seated person queued from
        self.placing: dict[int, Ticket] = {}
        """The people of this pass's groups and placements, taken out of the queue and
        not seated yet: they may not queue again meanwhile (a review queued one in the
        window and seated him twice, or made the pass's re-queue fail for everyone)."""
        self.last_tick_seconds = 0.0

    def share(self, client: Any) -> None:
        """Queue through Redis (``client``): one queue for every process of a cluster
        (:class:`SharedQueue`; the clock is then the wall clock, shared too)."""
        self.queue = SharedQueue(client, self.settings.wait, self.settings.distinct_addresses,
                                 self.settings.entry_ttl)
        self.queue.tick = self.settings.tick
        self.clock = time.time

    # ---- requests --------------------------------------------------------------------

    def join(self, rec: PlayerRecord, address: str, changci_key: object, preset: object,
             now: float | None = None) -> dict[str, Any]:
        """Queue a player for a 场次 and preset; his status. Raises :class:`QueueError`
        (unknown 场次 or preset, queued already) or
        :class:`~paohuzi.server.economy.EntryRefused` (the entry minimum)."""
        try:
            tier = changci(changci_key)
        except EconomyError as exc:
            raise QueueError(str(exc)) from None
        if not isinstance(preset, str) or preset not in PRESETS:
            raise QueueError(f"preset must be one of {', '.join(PRESETS)}, got "
                             f"{str(preset)[:24]!r}")
        check_entry(tier, rec.beans)
        if rec.id in self.placing:
            raise refusal(AlreadyQueued, "being_seated")
        ticket = Ticket(rec.id, rec.nickname, address, rec.rating_mu - 3 * rec.rating_sigma,
                        tier.key, preset, self.clock() if now is None else now)
        self.queue.join(ticket)
        self.seated.pop(rec.id, None)
        self.refused.pop(rec.id, None)
        if isinstance(self.queue, SharedQueue):
            self.queue.forget_refused(rec.id)
        return self.status(rec.id)

    def leave(self, player: int) -> bool:
        return self.queue.leave(player) is not None

    def status(self, player: int, now: float | None = None) -> dict[str, Any]:
        """``waiting`` (with seconds waited and people in that queue), ``seated`` (where),
        ``refused`` (taken out of the queue, with the ``reason``: :meth:`refuse`) or
        ``idle``."""
        ticket = self.queue.ticket(player) or self.placing.get(player)
        if ticket is None and isinstance(self.queue, SharedQueue):
            ticket = self.queue.seating(player)  # another process's pass seats him
        if ticket is not None:
            now = self.clock() if now is None else now
            return {"status": "waiting", "changci": ticket.changci, "preset": ticket.preset,
                    "waited": round(now - ticket.since, 1), "wait": self.settings.wait,
                    "waiting": self.queue.waiting(ticket.key)}
        if isinstance(self.queue, SharedQueue):
            # what every process wrote: this one's memory may be stale (a review: he
            # queued again through another process and was seated there, and this one
            # still sent him to his old table)
            reason = self.queue.refused(player)
            seated = None if reason is not None else self.queue.seated(player)
            if seated is not None and seated.provisional:
                seated = self._confirm(player, seated)
        else:
            seated = self.seated.get(player)
            reason = None if seated is not None else self.refused.get(player)
        if seated is not None:
            return seated.to_json()
        if reason is not None:
            return {"status": "refused", **_reason_json(reason)}
        return {"status": "idle"}

    def _confirm(self, player: int, seated: Seated) -> Seated | None:
        """A place written before its room was stored, and no pass seating him any more
        (the process that wrote it died, or took longer than the mark lasts): his place
        if the room was stored (the process died after storing it: else nobody would
        ever tell him of the table he sits at), forgotten if not."""
        assert isinstance(self.queue, SharedQueue)
        confirmed = replace(seated, provisional=False) \
            if self.server.storage.room_is_open(seated.code) else None
        if self.queue.replace_seated(player, seated, confirmed):
            return confirmed
        again = self.queue.seated(player)  # written anew meanwhile: that one, confirmed
        return again if again is None or not again.provisional else None

    def hall(self) -> list[dict[str, Any]]:
        """Each 场次 with its stake, entry minimum, people online (seated at a table of
        that 场次 and connected, or waiting in its queue), tables playing and people
        waiting — of every process of a cluster (:class:`~paohuzi.server.hall.SharedHall`),
        else of this one."""
        censuses = [Census.of(self.server.runtimes.values())]
        cluster = self.server.cluster
        if cluster is not None:
            censuses += cluster.hall.others()
        return hall_counts(censuses, self.queue.all_tickets())

    # ---- the matching loop -------------------------------------------------------------

    def adopt(self, codes: Iterable[str] | None = None) -> None:
        """Know the hall rooms of a restored server again (their ``hall`` log entry); or
        of the rooms ``codes`` only (taken over from another process)."""
        for code in list(self.server.runtimes) if codes is None else codes:
            runtime = self.server.runtimes.get(code)
            hall = None if runtime is None else runtime.table.hall
            if hall is not None:
                self.rooms[code] = (hall["changci"], hall["preset"])

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.settings.tick)
            try:
                await self.tick()
            except Exception as exc:  # pragma: no cover - the loop must go on
                log.error("quick match failed (%s)", type(exc).__name__)

    async def tick(self, now: float | None = None) -> int:
        """One matching pass; how many people it seated."""
        started = time.perf_counter()
        now = self.clock() if now is None else now
        if isinstance(self.queue, SharedQueue):
            self.queue.refresh()
        seats = {name: Ruleset.preset(name).seats for name in PRESETS}
        seated = 0
        results = self.queue.match(now, seats, self._open_rooms())
        for result in results:
            for ticket in _people(result):
                self.placing[ticket.player] = ticket
        for result in results:
            try:
                if isinstance(result, Group):
                    seated += await self._seat_group(result)
                else:
                    seated += await self._place(result)
            except Exception as exc:  # (a database error, say) the pass goes on
                log.error("quick match: seating failed (%s); its people queue again",
                          type(exc).__name__)
                for ticket in _people(result):
                    if ticket.player not in self.seated:
                        self._requeue(ticket)
            finally:
                for ticket in _people(result):
                    self.placing.pop(ticket.player, None)
                if isinstance(self.queue, SharedQueue):
                    self.queue.seating_done(t.player for t in _people(result))
        self.last_tick_seconds = time.perf_counter() - started
        return seated

    def _open_rooms(self) -> list[OpenRoom]:
        rooms = []
        for code, key in list(self.rooms.items()):
            runtime = self.server.runtimes.get(code)
            people = [] if runtime is None else \
                [s.player for s in runtime.table.seats if s.kind == "human"]
            if runtime is None or not people:
                del self.rooms[code]  # ended, or nobody left: no one is sent there
                continue
            free = len(runtime.seating.free_computer_seats(runtime.table))
            addresses = self._addresses_at(runtime)
            if free and (addresses is not None or not self.settings.distinct_addresses):
                rooms.append(OpenRoom(code, key, free, frozenset(addresses or ())))
        return rooms

    def _addresses_at(self, runtime: Runtime) -> set[str] | None:
        """The addresses of the people seated at a hall room: the one each queued from
        (if this process seated him) and those of his connections now; None when a
        person's is unknown — a room restored or taken over from another process,
        whose person has not connected since — as then nobody may be placed there
        while ``distinct_addresses`` holds (a review placed a second account of one
        address at a taken-over table)."""
        found: set[str] = set()
        for seat, s in enumerate(runtime.table.seats):
            if s.kind != "human" or s.player is None:
                continue
            mine = {c.address for c in runtime.clients if c.seat == seat and c.address}
            if s.player in self.addresses:
                mine.add(self.addresses[s.player])
            if not mine:
                return None
            found |= mine
        return found

    def refuse(self, ticket: Ticket) -> bool:
        """Take ``ticket`` out of the queue unseated if its player no longer meets his
        场次's entry minimum (N40: he may have lost beans at another table while he
        waited; the minimum was checked when he queued); whether it did. His status then
        says why."""
        rec = self.server.storage.player(ticket.player)
        try:
            check_entry(changci(ticket.changci), rec.beans if rec is not None else 0)
        except EntryRefused as exc:
            reason = json.dumps(words_of(exc) or {"en": str(exc)}, ensure_ascii=False)
        else:
            return False
        self.seated.pop(ticket.player, None)
        self.refused[ticket.player] = reason
        if isinstance(self.queue, SharedQueue):
            self.queue.note_refused(ticket.player, reason)
        return True

    async def _seat_group(self, group: Group) -> int:
        changci_key, preset = group.key
        kept = [t for t in group.people if not self.refuse(t)]
        if len(kept) < len(group.people):  # the others wait on as they were, regrouped
            for ticket in kept:
                self._requeue(ticket)
            return 0
        computers = group.seats - len(group.people)
        options = {**self.settings.options, "rules": preset, "changci": changci_key,
                   "seats": ["human"] * len(group.people) + [self.settings.computer] * computers}
        anchor = group.people[0]  # the longest waiting: the room is counted as his
        # the room, its hall entry and its people seated: one transaction
        entries = [{"k": "hall", "changci": changci_key, "preset": preset,
                    "computer": self.settings.computer}] + [
            {"k": "sit", "seat": seat, "player": ticket.player, "nickname": ticket.nickname}
            for seat, ticket in enumerate(group.people)]
        def provisional(code: str) -> None:
            # where each of them sits, before the room is stored under ``code``: a
            # process killed after storing it (before :meth:`_note`) leaves them told
            if isinstance(self.queue, SharedQueue):
                for seat, ticket in enumerate(group.people):
                    self.queue.note_seated(ticket.player,
                                           Seated(code, seat, computers, False, True))
        try:
            # within the caps on live rooms of an account and an address (roombounds.py),
            # as a room he created: his oldest open room nobody is connected to ends first
            table = await self.server.open_room(
                options, Creator(anchor.player, address_key(anchor.address)), entries,
                provisional)
        except TooManyOpenRooms:
            # the anchor's own caps: the others wait on as they were, and he goes to the
            # back of the queue — else he would anchor the same group every tick and hold
            # them for ever (a review: one account at its cap of 8 open rooms starved the
            # two people nearest it); another of them anchors the next group, with him
            # in it if he is near, as a room of theirs
            for ticket in group.people[1:]:
                self._requeue(ticket)
            self._requeue(replace(anchor, since=self.clock()))
            return 0
        except RoomLimitError:  # no room for a new table now: they wait on, in the queue
            for ticket in group.people:
                self._requeue(ticket)
            return 0
        runtime = self.server.runtimes[table.code]
        async with runtime.lock:
            for seat, ticket in enumerate(group.people):
                runtime.note_level(seat, ticket.player)
                self._note(ticket, Seated(table.code, seat, computers, False))
            runtime.schedule()
        self.rooms[table.code] = group.key
        return len(group.people)

    async def _place(self, placement: Placement) -> int:
        runtime = self.server.runtimes.get(placement.code)
        ticket = placement.ticket
        if self.refuse(ticket):
            return 0
        if runtime is None:  # the room ended meanwhile: back to the queue
            self._requeue(ticket)
            return 0
        async with runtime.lock:
            if self.settings.distinct_addresses:
                # as the room is now: the pass saw it as its process last published it,
                # maybe before a person placed there from another process sat (a review
                # seated two accounts of one address at one table so)
                addresses = self._addresses_at(runtime)
                if addresses is None or ticket.address in addresses:
                    self._requeue(ticket)
                    return 0
            seat = runtime.reserve_seat(ticket.player, ticket.nickname)
            if seat is None:
                self._requeue(ticket)
                return 0
            # what the table has been shown: a hand the engine has ended on the card in
            # play is still in progress for everyone until its end is shown
            hand = runtime.table.hand
            between = hand is None or (hand.ended and runtime.end_shown())
            computers = sum(1 for s in runtime.table.seats if s.kind != "human") - 1
            self._note(ticket, Seated(placement.code, seat, computers, not between))
            runtime.schedule()
        return 1

    def _requeue(self, ticket: Ticket) -> None:
        """Put a ticket of this pass back (its room could not be made or taken); one
        queued meanwhile (through another process) is left as it is: the pass goes on."""
        if isinstance(self.queue, SharedQueue):
            self.queue.seating_done([ticket.player])
        try:
            self.queue.join(ticket)
        except AlreadyQueued:
            log.info("quick match: a person of this pass was queued again meanwhile")

    def _note(self, ticket: Ticket, seated: Seated) -> None:
        self.seated[ticket.player] = seated
        self.addresses[ticket.player] = ticket.address
        if isinstance(self.queue, SharedQueue):
            self.queue.note_seated(ticket.player, seated)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _seated_text(seated: Seated) -> str:
    """How :class:`SharedQueue` stores where a person sits (the same text for the same
    place: :meth:`SharedQueue.replace_seated` compares it)."""
    return json.dumps({**seated.to_json(), "provisional": seated.provisional})


def _people(result: Group | Placement) -> tuple[Ticket, ...]:
    """The tickets of a pass's group or placement."""
    return tuple(result.people) if isinstance(result, Group) else (result.ticket,)
