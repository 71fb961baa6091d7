"""The game server: storage, the live rooms (one :class:`Runtime` each), rate limits,
ratings, idle expiry."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import unicodedata
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from paohuzi.core.kinds import EndReason
from paohuzi.core.settlement import beans_of
from paohuzi.players import searches
from paohuzi.server.economy import practice
from paohuzi.server.limits import Limiter, Limits, OpenCount
from paohuzi.server.matchmaking import Matchmaker, MatchSettings
from paohuzi.server.pgstorage import LeaseLostError
from paohuzi.server.quickchat import ChatLimiter
from paohuzi.server.replays import ReplayCache
from paohuzi.server.roombounds import (
    Creator,
    LiveRoom,
    RoomCaps,
    ServerFull,
    SpareRoom,
    TooManyOpenRooms,
    rooms_to_end,
)
from paohuzi.server.runtime import Runtime
from paohuzi.server.scheduler import FairPool
from paohuzi.server.seen import KEPT_HANDS, Seen
from paohuzi.server.storage import PlayerUpdate, Storage
from paohuzi.server.table import TIMINGS, RoomConfig, Table, TableError

if TYPE_CHECKING:
    from paohuzi.server.cluster import Cluster

__all__ = ["COMPUTER_THREADS", "ROOM_CODE_DIGITS", "Server", "new_room_code", "normal_room_code"]

log = logging.getLogger("paohuzi.server")

COMPUTER_THREADS = 2
"""Computer moves of all rooms run at once (shared fairly: FairPool), in as many worker
processes shared by all rooms unless the server is made without them."""

ROOM_CODE_DIGITS = 6
"""A room's code: 6 decimal digits, easy to read out and type on a phone."""
ROOM_CODE_TRIES = 50
"""Codes drawn before giving up (the first free one is taken)."""
ROOM_END_TRIES = 3
"""Passes at ending rooms to make room for a new one (a room chosen may be connected to
meanwhile: it is kept, and the choice made again)."""


def new_room_code() -> str:
    """A random room code of :data:`ROOM_CODE_DIGITS` digits (no leading zero).

    >>> code = new_room_code()
    >>> len(code), code.isdigit(), code[0] != "0"
    (6, True, True)
    """
    low = 10 ** (ROOM_CODE_DIGITS - 1)
    return str(low + secrets.randbelow(9 * low))


def joined(table: Table, creator: int | None) -> bool:
    """A person other than ``creator`` (any person, for a room without one) holds a seat
    of a match not yet over."""
    playing = table.match is None or not table.match.over
    return playing and any(s.kind == "human" and s.player not in (None, creator)
                           for s in table.seats)


def normal_room_code(text: str) -> str:
    """A room code as typed (spaces, dashes, full-width digits, any case) made the
    stored form; codes of older servers (letters) keep their letters.

    >>> normal_room_code(" 123 456 ")
    '123456'
    >>> normal_room_code("１２３-４５６")
    '123456'
    """
    return "".join(ch for ch in unicodedata.normalize("NFKC", text) if ch not in " -\t")


class Server:
    """The game server: storage, live tables, ratings."""

    def __init__(self, storage: Storage, limits: Limits | None = None,
                 match: MatchSettings | None = None, computer_processes: bool = True) -> None:
        self.storage = storage
        self.limits = limits or Limits()
        self.runtimes: dict[str, Runtime] = {}
        self.pool = FairPool(COMPUTER_THREADS, processes=computer_processes)
        """Computer moves, in worker processes (``computer_processes``): not in this
        interpreter, where a searching computer's thinking would slow the event loop in
        ways a client can time (scheduler.py)."""
        self.replays = ReplayCache()
        self.matchmaker = Matchmaker(self, match)  # quick match (issue 16)
        self.chat = ChatLimiter()  # quick chat, per player
        self.cluster: Cluster | None = None
        """Set when several processes share the database (cluster.py)."""
        self.limiters: dict[str, Limiter | None] = {
            name: self.limits.limiter(name) for name in (
                "players_per_address", "rooms_per_account", "rooms_per_address",
                "connections_per_account", "connections_per_address",
                "replays_per_address")}
        self.open_counts: dict[str, OpenCount | None] = {
            name: self.limits.open_count(name) for name in (
                "connections_per_account", "connections_per_address")}
        """Connections open now per account and per address (capped at the rate's burst)."""
        self.frames = self.limits.frame_budget()
        """WebSocket frames per address (``Limits.frames_per_address``): in this process's
        memory even in a cluster (counted where the room is served, :meth:`take_frame`)."""
        self.creators: dict[str, Creator] = {}
        """Who created each live room a person created, oldest first (roombounds.py)."""
        self.opening = asyncio.Lock()
        """Held while a person's room is made: the bounds are checked and the room created
        as one step."""

    def allow(self, name: str, key: str) -> bool:
        """Whether the rate limit ``name`` lets ``key`` (an account, an address) go on."""
        limiter = self.limiters[name]
        return limiter is None or limiter.allow(key)

    def take_frame(self, key: str, now: float) -> str:
        """Count one WebSocket frame of an address (``roombounds.room_address``): "ok",
        "refuse" (answer "too many messages") or "close" (close the connection, 1008)."""
        return "ok" if self.frames is None else self.frames.take(key, now)

    def enter(self, name: str, key: str) -> bool:
        """Whether ``key`` may hold one more connection open under ``name`` (then counted
        until :meth:`leave`)."""
        count = self.open_counts[name]
        return count is None or count.enter(key)

    def leave(self, name: str, key: str) -> None:
        count = self.open_counts[name]
        if count is not None:
            count.leave(key)

    def restore(self) -> int:
        """Rebuild every open table from its log (after a restart); returns how many.
        Rooms idle too long are ended first and not replayed."""
        for code in self.storage.idle_rooms(time.time() - self.idle_seconds):
            self.storage.end_room(code)
        for code, config in self.storage.rooms():
            try:
                RoomConfig.from_json(config)
            except TableError as exc:  # options no longer accepted (e.g. huge stakes)
                log.error("room %s: options refused (%s); room ended", code, exc)
                self.storage.end_room(code)
                continue
            self.restore_room(code, config)
        return len(self.runtimes)

    def restore_room(self, code: str, config: dict[str, Any]) -> Runtime:
        """Rebuild one table from its log (options already accepted) and serve it."""
        table = Table(code, RoomConfig.from_json(config))
        moves: list[tuple[int, int, bool]] = []  # who decided each person's decision
        seen = Seen()  # who held each seat, from where (a settlement asks: seen.py)
        for i, entry in enumerate(self.storage.load_log(code)):
            try:
                if entry.get("k") == "seen":
                    seen.restore(entry)
                    continue
                table.apply(entry)
            except Exception as exc:  # a bad entry must not keep the server down
                log.error("table %s: log entry %d does not apply (%s); skipped", code, i,
                          type(exc).__name__)
                continue
            if entry.get("k") == "act" and table.seats[entry["seat"]].kind == "human":
                moves.append((table.hand_no, entry["seat"], entry.get("player") is not None))
        runtime = self.runtimes[code] = Runtime(self, table)
        seen.forget_before(table.hand_no - KEPT_HANDS)
        runtime.seen = seen
        # a hand the dead process left unsettled: its settlement asks whether the computer
        # made every decision of a person's seat (托管, timeouts), as it would have there
        for hand_no, seat, own in moves:
            if hand_no >= table.hand_no - 2:
                runtime.note_move(hand_no, seat, own)
        try:  # a 大结算 the process died before storing (stored once: save_match)
            runtime.record_match()
        except Exception as exc:  # the room is served all the same
            log.error("table %s: its match summary is not stored (%s)", code,
                      type(exc).__name__)
        creator = self.storage.room_creator(code)
        if creator is not None:  # it counts toward its creator's open rooms again
            self.creators[code] = creator
        # who connected before the restart is not stored: a room that dealt a hand, or
        # where another person holds a seat, was come to (the idle rule); any other is
        # given ``unjoined_room_minutes`` from now to be connected to
        runtime.connected_ever = table.hand is not None or \
            joined(table, None if creator is None else creator.player)
        return runtime

    @property
    def idle_seconds(self) -> float:
        return self.limits.room_idle_hours * 3600.0

    @property
    def unjoined_seconds(self) -> float:
        return self.limits.unjoined_room_minutes * 60.0

    def expired(self, runtime: Runtime, now: float) -> bool:
        """Nobody connected and no action for ``room_idle_hours``, or nobody ever
        connected for ``unjoined_room_minutes``."""
        return runtime.idle_for(now) >= self.idle_seconds or \
            runtime.unjoined_for(now) >= self.unjoined_seconds

    async def expire_idle_rooms(self) -> list[str]:
        """End the rooms that have :meth:`expired`."""
        ended = []
        for code, runtime in list(self.runtimes.items()):
            if not self.expired(runtime, time.time()):
                continue
            async with runtime.lock:
                if self.runtimes.get(code) is not runtime or \
                        not self.expired(runtime, time.time()):
                    continue
                self._end_room(code, runtime)
                ended.append(code)
        return ended

    def _end_room(self, code: str, runtime: Runtime) -> None:
        """End a live room for good (the caller holds its lock): its log is kept, it is
        marked ended, its runtime stopped (one another process took over meanwhile is let
        go, not ended: it is no longer this one's). A hand in progress is settled first, as
        an escape (:meth:`Runtime.abandon`)."""
        creator = self.creators.get(code)
        try:
            runtime.abandon(None if creator is None else creator.player)
        except LeaseLostError:  # taken over by another process: not this one's to settle
            log.warning("room %s: lease lost to another process; its hand not settled here",
                        code)
        except Exception as exc:  # the room ends all the same (its log keeps the hand)
            log.error("room %s: its hand in progress was not settled (%s)", code,
                      type(exc).__name__)
        runtime.stop()
        try:
            self.storage.end_room(code)
        except LeaseLostError:  # taken over by another process: not this one's to end
            log.warning("room %s: lease lost to another process; not ended, let go", code)
        self.runtimes.pop(code, None)
        self.creators.pop(code, None)

    def live_rooms(self) -> list[LiveRoom]:
        """The live rooms people created, oldest first, as the bounds see them."""
        rooms = []
        for code, creator in list(self.creators.items()):
            runtime = self.runtimes.get(code)
            if runtime is None:
                del self.creators[code]
                continue
            rooms.append(LiveRoom(code, creator, joined(runtime.table, creator.player),
                                  bool(runtime.clients)))
        return rooms

    def spare_rooms(self) -> list[SpareRoom]:
        """The live rooms a full process may end to make space for a new one (roombounds.py):
        nobody connected, no hand in progress, no other person's seat in a match not over
        (a room nobody created by name: nobody's seat); a room somebody came to only once
        idle ``unjoined_room_minutes`` (its player may be reconnecting: a phone that slept
        between hands)."""
        now = time.time()
        spare = []
        for code, runtime in list(self.runtimes.items()):
            if runtime.clients or runtime.playing_hand():
                continue
            if runtime.connected_ever and runtime.idle_for(now) < self.unjoined_seconds:
                continue
            creator = self.creators.get(code)
            if joined(runtime.table, None if creator is None else creator.player):
                continue
            spare.append(SpareRoom(code, not runtime.connected_ever, runtime.idle_for(now)))
        return spare

    def full(self) -> bool:
        """At ``max_rooms`` live rooms."""
        cap = self.limits.max_rooms
        return cap is not None and len(self.runtimes) >= cap

    def room_for_more(self) -> bool:
        """Whether a new room could be made now: below ``max_rooms``, or a room could end
        to make space (:meth:`spare_rooms`)."""
        return not self.full() or bool(self.spare_rooms())

    @property
    def room_caps(self) -> RoomCaps:
        return RoomCaps(self.limits.max_open_rooms_per_player,
                        self.limits.max_open_rooms_per_address, self.limits.max_rooms)

    async def open_room(self, options: dict[str, Any], creator: Creator,
                        entries: Sequence[dict[str, Any]] = (),
                        on_code: Callable[[str], None] | None = None) -> Table:
        """Create a room a person asked for, within the bounds on live rooms: his (or his
        address's) oldest open room nobody is connected to is ended first if need be, and
        in a full process the rooms nobody ever connected to, then the longest idle ones.
        ``entries``: the first of its log (its people seated), stored with it;
        ``on_code``: told each code drawn, before the room is stored under it.
        Raises :class:`TooManyOpenRooms` (429), :class:`ServerFull` (503),
        :class:`TableError` (bad options, checked before any room is ended)."""
        config = RoomConfig.from_json(options)
        async with self.opening:
            await self._make_room_for(creator)
            return self._create(config, creator, entries, on_code)

    async def _make_room_for(self, creator: Creator) -> None:
        for _ in range(ROOM_END_TRIES):
            spare = self.spare_rooms() if self.full() else []
            ending = rooms_to_end(self.live_rooms(), creator, self.room_caps,
                                  live=len(self.runtimes), spare=spare)
            kept = 0
            for code in ending:
                runtime = self.runtimes.get(code)
                if runtime is None:
                    continue
                async with runtime.lock:
                    # (a spare room cannot start a hand meanwhile: dealing needs a person
                    # connected; one a creator's cap ends settles its hand as an escape)
                    if runtime.clients or self.runtimes.get(code) is not runtime:
                        kept += 1  # connected to meanwhile: kept
                        continue
                    self._end_room(code, runtime)
                    log.info("room %s ended to make space for a new room (a cap on rooms)",
                             code)
            if not kept:
                return
        raise TooManyOpenRooms("too many open rooms: every room that could be ended has "
                               "just been connected to; try again")

    async def sweep(self) -> None:
        while True:
            await asyncio.sleep(self.limits.sweep_seconds)
            try:
                ended = await self.expire_idle_rooms()
            except Exception as exc:  # pragma: no cover - the sweeper must go on
                log.error("idle room sweep failed (%s)", type(exc).__name__)
                continue
            if ended:
                log.info("%d idle room(s) ended", len(ended))

    def create_room(self, options: dict[str, Any]) -> Table:
        """Create a room nobody asked for by name (the hall's quick match); raises
        :class:`ServerFull` beyond ``max_rooms``."""
        return self._create(RoomConfig.from_json(options), None)

    def _create(self, config: RoomConfig, creator: Creator | None,
                entries: Sequence[dict[str, Any]] = (),
                on_code: Callable[[str], None] | None = None) -> Table:
        """A new room, stored with the first ``entries`` of its log in one transaction (a
        crash never leaves a room whose people were never seated), applied as a restored
        room's log is."""
        if self.full():
            raise ServerFull(f"the server is full ({len(self.runtimes)} rooms open): "
                             "try again later")
        code = self._store_new_room(config, creator, entries, on_code)
        try:
            table = Table(code, config)
            for entry in entries:
                table.apply(entry)
            self.runtimes[code] = Runtime(self, table)
        except Exception:
            # stored, but not opened here (a database error reading its people, say): it
            # is ended, else it would stay open with its people seated and nobody told
            # (a review); whoever asked for it is refused as if it was never made
            self.runtimes.pop(code, None)
            self._end_unopened(code)
            raise
        if creator is not None:
            self.creators[code] = creator
        return table

    def _end_unopened(self, code: str) -> None:
        try:
            self.storage.end_room(code)
            if self.cluster is not None:
                self.cluster.storage.release_lease(code, self.cluster.owner)
        except Exception as exc:  # it stays open: restored (or taken over) as any room
            log.error("room %s: stored but not opened, and not ended (%s)", code,
                      type(exc).__name__)

    def _store_new_room(self, config: RoomConfig, creator: Creator | None = None,
                        entries: Sequence[dict[str, Any]] = (),
                        on_code: Callable[[str], None] | None = None) -> str:
        """Store a room under a fresh code (:func:`new_room_code`); a code an ended room
        kept in storage is refused there, and another one is drawn. Several processes:
        the room is stored with its lease, owned by this process from the start."""
        store = self.storage.create_room if self.cluster is None else self.cluster.store_room
        for _ in range(ROOM_CODE_TRIES - 1):
            code = new_room_code()
            if code in self.runtimes:
                continue
            if on_code is not None:
                on_code(code)
            try:
                store(code, config.to_json(), creator, entries)
            except Exception:  # the storage's unique-key error (SQLite or another backend)
                continue
            return code
        code = new_room_code()
        if on_code is not None:
            on_code(code)
        store(code, config.to_json(), creator, entries)  # lets the storage's error out
        return code

    def find_room(self, code: str) -> Runtime | None:
        """The open room a code names, as a person types it (:func:`normal_room_code`)."""
        return self.runtimes.get(code) or self.runtimes.get(normal_room_code(code))

    def rate(self, table: Table, summary: Any, *, sharing: set[int] | None = None,
             computer_played: set[int] | None = None) -> list[PlayerUpdate]:
        """Player totals and OpenSkill ratings after a hand (written by the settlement) —
        from standard-stake rooms only: raised stakes must not buy levels
        (docs/protocol.md). ``sharing``: match seats played from an address another seat
        of the hand was played from (:meth:`Runtime.sharing_seats`): their losses count,
        never a gain, a win or a rating change (accounts of one person feeding one of
        them, as the quick match never seats them together; and a seat that shows up at
        a partner's address to void a losing hand only keeps its loss).
        ``computer_played``: match seats whose every decision of the hand the computer
        made (:meth:`Runtime.computer_played`), and the 醒家 if no connection held his seat
        while the hand was dealt: their losses count, nothing else (an account must not
        gain while the computer plays for it, nor while it is away)."""
        if not table.config.standard_stakes:
            return []
        settings = self.matchmaker.settings
        if any(table.seats[i].kind != "human" and practice(table.seats[i].kind, settings.computer)
               for i in summary.players):
            return []  # practice against a weaker computer than the hall's: no level
        if table.config.claim_window < TIMINGS["claim_window"][0] and any(
                table.seats[i].kind != "human" and searches(table.seats[i].kind)
                for i in summary.players):
            return []  # a window so short it cuts a searching computer's claim answers
        if not (sharing and settings.distinct_addresses):
            sharing = set()
        seated = [*summary.players] + ([summary.xingjia] if summary.xingjia is not None else [])
        # the 醒家 sits the hand out but is paid (or pays nothing): his totals count it too
        humans = [(i, table.seats[i].player) for i in seated
                  if table.seats[i].kind == "human" and table.seats[i].player is not None]
        ratings: dict[int, tuple[float, float]] = {}
        read: dict[int, tuple[float, float]] = {}  # the ratings the new ones come from
        escape = summary.result.reason is EndReason.ESCAPE
        leaver = None if summary.result.leaver is None else \
            summary.players[summary.result.leaver]
        try:
            from openskill.models import PlackettLuce

            model = PlackettLuce()
            teams = []
            ranks: list[float] = []
            for seat in summary.players:
                pid = table.seats[seat].player
                rec = self.storage.player(pid) if pid is not None else None
                if rec is not None:
                    read[rec.id] = (rec.rating_mu, rec.rating_sigma)
                rating = model.rating(mu=rec.rating_mu, sigma=rec.rating_sigma) if rec \
                    else model.rating()
                teams.append([rating])
                won = summary.result.winner is not None and \
                    summary.players[summary.result.winner] == seat
                # an escape is the leaver's loss (never a draw that raises his rating)
                lost = seat == leaver if escape else not won and summary.result.winner is not None
                ranks.append(2.0 if lost else 1.0)
            rated = model.rate(teams, ranks=ranks)
            for seat, team in zip(summary.players, rated, strict=True):
                pid = table.seats[seat].player
                if pid is not None:
                    ratings[pid] = (team[0].mu, team[0].sigma)
        except ImportError:  # pragma: no cover - openskill is a server dependency
            pass
        updates = []
        for seat, pid in humans:
            assert pid is not None
            rec = self.storage.player(pid)
            if rec is None:
                continue
            read.setdefault(pid, (rec.rating_mu, rec.rating_sigma))  # the 醒家's, kept
            points = summary.points[seat]
            won = summary.result.winner is not None and \
                summary.players[summary.result.winner] == seat
            mu, sigma = ratings.get(pid, (rec.rating_mu, rec.rating_sigma))  # 醒家: unrated
            if escape and seat != leaver:
                # an escape's penalty is the table's, never a lifetime gain (points or
                # rating): accounts that sit down and leave at once would otherwise feed
                # another's level
                points, (mu, sigma) = 0, read[pid]
            if seat in sharing or seat in (computer_played or ()):  # its losses only
                points, won, (mu, sigma) = min(points, 0), False, read[pid]
            updates.append(PlayerUpdate(pid, points, beans_of(points, table.config.ruleset),
                                        won, mu, sigma, rated_from=read.get(pid)))
        return updates
