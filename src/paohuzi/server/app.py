"""The ASGI application of ``paohuzi serve``: HTTP API and the WebSocket protocol.

See docs/protocol.md. One process, one event loop; each table's changes are
serialised by its lock; every change is logged (committed) before it is
applied and acknowledged; every message a seat receives is built from the
engine's seat view for that seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import secrets
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from paohuzi.actions import Action, ActionTextError, Pass
from paohuzi.cards import ALL_CARDS
from paohuzi.engine import Hand, Phase
from paohuzi.errors import PaohuziError
from paohuzi.players import Player
from paohuzi.server import settlement
from paohuzi.server.delivery import Delivery, Frame
from paohuzi.server.inputs import BadInput, clean_nickname, parse_json, read_body
from paohuzi.server.levels import level_of
from paohuzi.server.limits import Limits, RateLimiter
from paohuzi.server.replays import ReplayCache
from paohuzi.server.scheduler import FairPool
from paohuzi.server.storage import (
    PlayerRecord,
    PlayerUpdate,
    SQLiteStorage,
    Storage,
    StoredGame,
)
from paohuzi.server.table import RoomConfig, Table, TableError
from paohuzi.settlement import beans_of
from paohuzi.view import observe

__all__ = ["Server", "create_app"]

log = logging.getLogger("paohuzi.server")

MAX_MESSAGE = 4096
"""Largest client message accepted (bytes); larger ones close the connection."""
RATE_PER_SECOND = 30
MAX_CONNECTIONS_PER_PLAYER = 3
"""Connections one player may hold to one room (rate limits are per connection)."""
MAX_SEQ = 2**53 - 1
"""Largest sequence number (what a JavaScript client can count to)."""
MAX_SEQ_STEP = 2**20
"""How far above a seat's last applied ``seq`` a message may jump: a huge ``seq`` would
otherwise leave no number above it, and the seat could never act again."""
TOUCH_EVERY = 60.0
"""Seconds between notes of a room's activity in storage (for idle expiry)."""
STATIC = Path(__file__).parent / "static"
"""The built browser game (from frontend/, built by `npm run build`)."""
CARDS = [{"text": c.text, "ascii": c.ascii, "red": c.is_red, "big": c.is_big, "point": c.point}
         for c in ALL_CARDS]
"""What the browser needs to draw cards; rules stay here (RULES.md §1)."""
"""Messages a connection may send per second; beyond, an error; at 3x, a close."""


@dataclass(eq=False)
class Client:
    """One WebSocket connection."""

    ws: WebSocket
    player: PlayerRecord
    seat: int | None  # match seat, None for a spectator
    events_hand: int = 0
    events_sent: int = 0
    window_start: float = 0.0
    window_count: int = 0
    sent: int = 0  # state messages numbered per connection
    last_hash: str = ""
    dropped: bool = False
    sending: asyncio.Lock = field(default_factory=asyncio.Lock)  # messages leave in order

    async def send_now(self, message: dict[str, Any]) -> None:
        """Send at once; a client that does not take it within SEND_TIMEOUT is cut off."""
        if self.dropped:
            return
        async with self.sending:
            try:
                async with asyncio.timeout(SEND_TIMEOUT):
                    await self.ws.send_text(json.dumps(message, ensure_ascii=False))
            except Exception:
                self.dropped = True
                with contextlib.suppress(Exception):
                    await self.ws.close(code=1013)

ENTROPY_WAIT = 1.0
"""Seconds after a hand's commitment is published that the deal waits for the values
of the seated people still missing (a silent one counts as an empty value)."""
SEND_TIMEOUT = 2.0
"""Seconds a connection may take to accept a message before it is cut off: a client that
stops reading holds a table up once, for this long at most."""
MIN_COMPUTER_DELAY = 0.05
"""Seconds a computer waits at least before it discards, whatever the room's
``bot_delay`` (no computer-vs-computer marathon spins a core)."""
COMPUTER_THREADS = 2
"""Threads that run the computer moves of every room (shared fairly: FairPool)."""


class Runtime:
    """The async side of a table: connections, what they are shown and when, timers,
    computer moves."""

    def __init__(self, server: Server, table: Table) -> None:
        self.server = server
        self.table = table
        self.lock = asyncio.Lock()
        self.clients: set[Client] = set()
        self.timer_task: asyncio.Task[None] | None = None
        self.bot_task: asyncio.Task[None] | None = None
        self.next_task: asyncio.Task[None] | None = None
        self.deliver_task: asyncio.Task[None] | None = None
        self.disconnected_at: dict[int, float] = {}
        self.grace_used: set[tuple[int, int]] = set()
        self.next_votes: set[int] = set()
        self.deadlines: dict[int, tuple[tuple[Any, ...], float]] = {}
        self.last_active = time.time()
        self._touched = 0.0
        self.settle_failures = 0
        self.settle_retry: asyncio.TimerHandle | None = None
        self.committed_at = 0.0  # when the next hand's commitment was published
        self.delivery = Delivery(table.config.claim_window)
        self.delivery.current = self.frame(None, claim_point=False)
        self.caught_up = asyncio.Event()  # set while every frame has been released
        self.caught_up.set()
        table.on_claim_point = self._claim_point

    # ---- logging and applying ----------------------------------------------------

    def commit(self, entry: dict[str, Any]) -> None:
        """Check, log (committed), then apply, then queue what the seats will be shown.
        The caller holds the lock.

        A decision is checked against the engine before it is logged, so the log only
        ever holds entries that apply.
        """
        t = self.table
        if entry["k"] == "act":
            if t.hand is None or t.hand.ended:
                raise TableError("no hand in progress")
            hand_seat = t.hand_seat(entry["seat"])
            if hand_seat is None or not t.hand.can(hand_seat, Action.from_text(entry["action"])):
                raise TableError("that action is not legal now")
        self.server.storage.append_log(t.code, entry)
        t.apply(entry)
        self.note_activity()
        self._capture(self.frame(None, claim_point=False))

    def note_activity(self) -> None:
        """The room is in use: noted in memory, and in storage once a minute."""
        self.last_active = time.time()
        if self.last_active - self._touched >= TOUCH_EVERY:
            self._touched = self.last_active
            self.server.storage.touch_room(self.table.code, self.last_active)

    def idle_for(self, now: float) -> float:
        """Seconds since anything happened, 0 while a person is connected."""
        return 0.0 if self.clients else now - self.last_active

    def stop(self) -> None:
        for task in (self.timer_task, self.bot_task, self.next_task, self.deliver_task):
            if task is not None:
                task.cancel()
        if self.settle_retry is not None:
            self.settle_retry.cancel()

    def settle_if_needed(self) -> None:
        """Side effects of a finished hand, once and in one transaction: game record,
        player totals, rating, ``settled`` (settlement.py). A failure is logged (its
        type only: no card detail) and retried later; it never reaches the caller."""
        t = self.table
        if not t.needs_settlement():
            return
        full = self.settle_failures < settlement.FULL_ATTEMPTS
        try:
            settlement.settle(self.server.storage, t, self.server.rate if full else None)
        except Exception as exc:
            self.settle_failures += 1
            log.error("table %s: settling hand %d failed (%s, attempt %d)%s", t.code,
                      t.finished_hands, type(exc).__name__, self.settle_failures,
                      "" if full else " without the players' totals")
            self._retry_settlement()
            return
        self.settle_failures = 0

    def _retry_settlement(self) -> None:
        if self.settle_retry is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a direct call): the next change retries
            return
        delays = settlement.RETRY_DELAYS
        delay = delays[min(self.settle_failures, len(delays)) - 1]
        self.settle_retry = loop.call_later(
            delay, lambda: self._spawn(self._settle_later()))

    async def _settle_later(self) -> None:
        async with self.lock:
            self.settle_retry = None
            self.settle_if_needed()
            self.schedule()
        await self.broadcast()

    # ---- what the seats are shown, and when (delivery.py) ----------------------------

    def frame(self, hand: Hand | None, claim_point: bool) -> Frame:
        """Every viewer's message body now (``hand``: as it is at a claim point)."""
        t = self.table
        viewers: list[int | None] = [i for i, s in enumerate(t.seats) if s.kind == "human"]
        bodies = {v: t.view_for(v, 0, hand) for v in [*viewers, None]}
        shown = hand if hand is not None else t.hand
        decisions: dict[int, tuple[Any, ...]] = {}
        if shown is not None and not shown.ended:
            for hand_seat in shown.pending_seats():
                seat = t.match_seat(hand_seat)
                decisions[seat] = (t.hand_no, len(shown.events), shown.phase.value, seat)
        return Frame(t.hand_no, bodies, decisions, claim_point)

    def _claim_point(self, hand: Hand) -> None:
        self._capture(self.frame(hand, claim_point=True))

    def _capture(self, frame: Frame) -> None:
        self.delivery.capture(frame)
        if self.delivery.pending:
            self.caught_up.clear()
            if self.deliver_task is None or self.deliver_task.done():
                self.deliver_task = self._spawn(self._deliver())

    async def _deliver(self) -> None:
        """Release the frames in order, a claim window after each claim point."""
        d = self.delivery
        while d.pending:
            wait = d.wait(time.monotonic())
            if wait > 0:
                await asyncio.sleep(wait)
                continue
            d.release(time.monotonic())
            if not d.pending:
                self.caught_up.set()
            self._arm_timers()  # a human's clock starts when his decision is shown
            await self.broadcast()

    def decision_open(self, seat: int) -> bool:
        """``seat`` must decide now and has been shown that decision."""
        return seat in self.pending_match_seats() and \
            self.delivery.released(seat, self.decision_key(seat))

    async def send(self, client: Client, message: dict[str, Any]) -> None:
        await client.send_now(message)

    async def send_state(self, client: Client, snapshot: bool = False) -> None:
        frame = self.delivery.current
        if frame is None:
            return
        if snapshot or client.events_hand != frame.hand_no:
            client.events_sent = 0
            client.events_hand = frame.hand_no
        full = frame.bodies.get(client.seat, frame.bodies[None])
        events = full["events"]
        start = client.events_sent if 0 <= client.events_sent <= len(events) else 0
        body = {**full, "events_from": start, "events": events[start:]}
        if not snapshot and body["hash"] == client.last_hash and not body["events"]:
            return  # nothing this seat can see changed (e.g. another seat's secret answer)
        client.last_hash = body["hash"]
        client.events_sent = start + len(body["events"])
        body["deadline"] = self.deadline_for(client.seat)
        client.sent += 1
        await client.send_now({"type": "state", "n": client.sent, **body})

    async def broadcast(self) -> None:
        await asyncio.gather(*(self.send_state(c) for c in list(self.clients)))

    def deadline_for(self, seat: int | None) -> float | None:
        """Seconds left to decide — told only to the seat that must decide."""
        if seat is None or seat not in self.deadlines:
            return None
        if seat not in self.pending_humans():
            return None
        return max(0.0, self.deadlines[seat][1] - time.monotonic())

    # ---- scheduling: computers, timers, the next hand ------------------------------

    def pending_match_seats(self) -> list[int]:
        t = self.table
        if t.hand is None or t.hand.ended:
            return []
        return [t.match_seat(s) for s in t.hand.pending_seats()]

    def pending_humans(self) -> list[int]:
        """Human seats that must decide and have been shown it."""
        t = self.table
        return [s for s in self.pending_match_seats() if not t.controlled_by_computer(s)
                and self.delivery.released(s, self.decision_key(s))]

    def decision_key(self, seat: int) -> tuple[Any, ...]:
        """Identifies the decision a seat faces (another seat's secret answer changes
        nothing in it; a new event, a new phase or a new hand does)."""
        t = self.table
        hand = t.hand
        assert hand is not None
        return (t.hand_no, len(hand.events), hand.phase.value, seat)

    def paused(self) -> bool:
        """Every person at the table is in 托管: the computers do not play on alone."""
        humans = [s for s in self.table.seats if s.kind == "human"]
        return bool(humans) and all(s.tuoguan for s in humans)

    def computer_seat(self) -> int | None:
        """The seat a computer must decide for now, if any (none while paused)."""
        if self.paused():
            return None
        t = self.table
        bots = [s for s in self.pending_match_seats() if t.controlled_by_computer(s)]
        return bots[0] if bots else None

    def schedule(self) -> None:
        """After every change: computer moves, the human timers, the next hand."""
        if self.computer_seat() is not None and (self.bot_task is None or self.bot_task.done()):
            self.bot_task = self._spawn(self._bot_move())
        self.schedule_except_bots()

    def ready_to_deal(self) -> bool:
        """Every human seat taken and at least one of its players connected, and not
        everyone in 托管: an abandoned room stops dealing."""
        return self.table.ready_to_deal() and not self.paused() and any(
            c.seat is not None and self.table.seats[c.seat].kind == "human"
            for c in self.clients)

    def _spawn(self, coro: Any) -> asyncio.Task[None]:
        task = asyncio.create_task(coro)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[None]) -> None:
        if task.cancelled() or task.exception() is None:
            return
        # never log the exception text: it may name cards or options
        log.error("a task of table %s failed (%s); rescheduling", self.table.code,
                  type(task.exception()).__name__)
        asyncio.get_running_loop().call_later(0.5, self.schedule)

    def _arm_timers(self) -> None:
        """Each pending human seat gets its own deadline when its decision is shown to
        it; one seat's answer never moves another's deadline."""
        now = time.monotonic()
        humans = self.pending_humans()
        changed = False
        for seat in list(self.deadlines):
            if seat not in humans:
                del self.deadlines[seat]
                changed = True
        for seat in humans:
            key = self.decision_key(seat)
            if seat not in self.deadlines or self.deadlines[seat][0] != key:
                self.deadlines[seat] = (key, now + self.table.config.timer)
                changed = True
        running = self.timer_task is not None and not self.timer_task.done()
        if running and not changed:
            return
        if running:
            assert self.timer_task is not None
            self.timer_task.cancel()
        if self.deadlines:
            self.timer_task = self._spawn(self._timer())

    def _still_due(self, seat: int, key: tuple[Any, ...]) -> bool:
        return self.deadlines.get(seat, (None,))[0] == key and \
            seat in self.pending_humans() and self.decision_key(seat) == key

    async def _timer(self) -> None:
        t = self.table
        while self.deadlines:
            seat, (key, deadline) = min(self.deadlines.items(), key=lambda kv: kv[1][1])
            await asyncio.sleep(max(0.0, deadline - time.monotonic()))
            grace_key = (t.hand_no, seat)
            if seat in self.disconnected_at and grace_key not in self.grace_used \
                    and t.config.grace > 0:
                # a disconnected player's first grace period of a hand does not count
                self.grace_used.add(grace_key)
                self.deadlines[seat] = (key, time.monotonic() + t.config.grace)
                continue
            async with self.lock:
                if not self._still_due(seat, key):
                    self._arm_timers()
                    return
                assert t.hand is not None
                if t.hand.phase is not Phase.DISCARD:
                    # a missed claim answer is a pass, nothing more: no computer decides
                    # it, and it does not count toward 托管 (that would tell who had one)
                    del self.deadlines[seat]
                    self.commit({"k": "act", "seat": seat, "action": Pass().text,
                                 "player": None, "auto": True})
                    self.settle_if_needed()
                    self.timer_task = None
                    self.schedule()
                    return
                player, obs, legal = self._observation(seat)
            # a missed discard (public anyway): the computer discards, off the event loop
            action = await self.server.pool.run(t.code, _choose, player, obs, legal)
            async with self.lock:
                if not self._still_due(seat, key):
                    self._arm_timers()
                    return
                del self.deadlines[seat]
                self.commit({"k": "timeout", "seat": seat})
                if t.seats[seat].timeouts >= 2 and not t.seats[seat].tuoguan:
                    self.commit({"k": "tuoguan", "seat": seat, "on": True})
                self.commit({"k": "act", "seat": seat, "action": action.text,
                             "player": None, "auto": True})
                self.settle_if_needed()
                self.timer_task = None
                self.schedule()
            return

    def _observation(self, seat: int) -> tuple[Player, Any, list[Action]]:
        """The computer player of a seat, its observation and its legal actions now."""
        t = self.table
        hand_seat = t.hand_seat(seat)
        assert t.hand is not None and hand_seat is not None
        return (t.computer_player(seat), observe(t.hand, hand_seat, events=False),
                t.hand.legal_actions(hand_seat))

    async def _bot_move(self) -> None:
        """One computer decision at a time for this room, on the shared fair pool.

        A computer's answer on a claim is made at once: it is hidden in the claim window
        like anyone's. A computer's discard (its turn is public) comes once the turn has
        been shown, after the room's ``bot_delay`` (at least MIN_COMPUTER_DELAY)."""
        t = self.table
        while True:
            async with self.lock:
                seat = self.computer_seat()
                if seat is None:
                    return
                key = self.decision_key(seat)
                assert t.hand is not None
                discarding = t.hand.phase is Phase.DISCARD
                player, obs, legal = self._observation(seat)
            if discarding:
                await self.caught_up.wait()
                await asyncio.sleep(max(t.config.bot_delay, MIN_COMPUTER_DELAY))
            action = await self.server.pool.run(t.code, _choose, player, obs, legal)
            async with self.lock:
                if t.hand is None or t.hand.ended or self.decision_key(seat) != key or \
                        self.computer_seat() != seat:
                    continue
                if action not in legal:
                    action = legal[-1]
                self.commit({"k": "act", "seat": seat, "action": action.text,
                             "player": None, "auto": True})
                self.settle_if_needed()
                self.schedule_except_bots()

    def schedule_except_bots(self) -> None:
        t = self.table
        self._arm_timers()
        if (t.hand is None or t.hand.ended) and self.ready_to_deal() and (
                self.next_task is None or self.next_task.done()):
            delay = 0.0 if t.hand is None else t.config.next_delay
            self.next_task = self._spawn(self._next_hand(t.hand_no, delay))

    async def _next_hand(self, hand_no: int, delay: float) -> None:
        t = self.table
        await self._publish_commitment(hand_no)
        waited = 0.0
        while waited < delay:
            humans = {i for i, s in enumerate(t.seats) if s.kind == "human"}
            if humans and humans <= self.next_votes:
                break
            await asyncio.sleep(0.05)
            waited += 0.05
        await self._collect_entropy(hand_no)
        async with self.lock:
            if t.hand_no != hand_no or not self.ready_to_deal() or t.next_secret is None:
                return
            self.next_votes.clear()
            self.commit(t.new_start_entry())
            self.committed_at = 0.0
            self.schedule()


    async def _publish_commitment(self, hand_no: int) -> None:
        """The server's secret for the next hand, committed and published before any
        seat's value is taken."""
        t = self.table
        async with self.lock:
            if t.hand_no != hand_no or not self.ready_to_deal():
                return
            if t.next_secret is not None:  # published before (or before a restart)
                self.committed_at = self.committed_at or time.monotonic()
                return
            self.commit(t.new_commit_entry())
            self.committed_at = time.monotonic()
        await self.broadcast()

    async def _collect_entropy(self, hand_no: int) -> None:
        """Wait, until ENTROPY_WAIT after the commitment at most, for the value of every
        connected human seat."""
        t = self.table
        while time.monotonic() < self.committed_at + ENTROPY_WAIT and t.hand_no == hand_no:
            connected = {c.seat for c in self.clients if c.seat is not None
                         and t.seats[c.seat].kind == "human"}
            if connected <= set(t.entropy):
                return
            await asyncio.sleep(0.05)


def _choose(player: Player, obs: Any, legal: list[Action]) -> Action:
    """A computer's decision (on a pool thread); always a legal one."""
    try:
        action = player.choose(obs, legal)
    except Exception:  # pragma: no cover - defensive: a table must never stop
        log.error("a computer player failed")
        return legal[-1]
    return action if action in legal else legal[-1]


class Server:
    """The game server: storage, live tables, ratings."""

    def __init__(self, storage: Storage, limits: Limits | None = None) -> None:
        self.storage = storage
        self.limits = limits or Limits()
        self.runtimes: dict[str, Runtime] = {}
        self.pool = FairPool(COMPUTER_THREADS)
        self.replays = ReplayCache()
        self.limiters: dict[str, RateLimiter | None] = {
            name: self.limits.limiter(name) for name in (
                "players_per_address", "rooms_per_account", "rooms_per_address",
                "connections_per_account", "connections_per_address")}

    def allow(self, name: str, key: str) -> bool:
        """Whether the rate limit ``name`` lets ``key`` (an account, an address) go on."""
        limiter = self.limiters[name]
        return limiter is None or limiter.allow(key)

    def restore(self) -> int:
        """Rebuild every open table from its log (after a restart); returns how many.
        Rooms idle too long are ended first and not replayed."""
        for code in self.storage.idle_rooms(time.time() - self.idle_seconds):
            self.storage.end_room(code)
        for code, config in self.storage.rooms():
            try:
                room_config = RoomConfig.from_json(config)
            except TableError as exc:  # options no longer accepted (e.g. huge stakes)
                log.error("room %s: options refused (%s); room ended", code, exc)
                self.storage.end_room(code)
                continue
            table = Table(code, room_config)
            for i, entry in enumerate(self.storage.load_log(code)):
                try:
                    table.apply(entry)
                except Exception as exc:  # a bad entry must not keep the server down
                    log.error("table %s: log entry %d does not apply (%s); skipped", code, i,
                              type(exc).__name__)
            self.runtimes[code] = Runtime(self, table)
        return len(self.runtimes)

    @property
    def idle_seconds(self) -> float:
        return self.limits.room_idle_hours * 3600.0

    async def expire_idle_rooms(self) -> list[str]:
        """End the rooms with nobody connected and no action for ``room_idle_hours``."""
        now = time.time()
        ended = []
        for code, runtime in list(self.runtimes.items()):
            if runtime.idle_for(now) < self.idle_seconds:
                continue
            async with runtime.lock:
                if runtime.idle_for(time.time()) < self.idle_seconds:
                    continue
                runtime.stop()
                self.storage.end_room(code)
                del self.runtimes[code]
                ended.append(code)
        return ended

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
        config = RoomConfig.from_json(options)
        code = secrets.token_urlsafe(6)
        self.storage.create_room(code, config.to_json())
        table = Table(code, config)
        self.runtimes[code] = Runtime(self, table)
        return table

    def rate(self, table: Table, summary: Any) -> list[PlayerUpdate]:
        """Player totals and OpenSkill ratings after a hand (written by the settlement) —
        from standard-stake rooms only: raised stakes must not buy levels
        (docs/protocol.md)."""
        if not table.config.standard_stakes:
            return []
        humans = [(i, table.seats[i].player) for i in summary.players
                  if table.seats[i].kind == "human" and table.seats[i].player is not None]
        ratings: dict[int, tuple[float, float]] = {}
        try:
            from openskill.models import PlackettLuce

            model = PlackettLuce()
            teams = []
            ranks: list[float] = []
            for seat in summary.players:
                pid = table.seats[seat].player
                rec = self.storage.player(pid) if pid is not None else None
                rating = model.rating(mu=rec.rating_mu, sigma=rec.rating_sigma) if rec \
                    else model.rating()
                teams.append([rating])
                won = summary.result.winner is not None and \
                    summary.players[summary.result.winner] == seat
                ranks.append(1.0 if won or summary.result.winner is None else 2.0)
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
            points = summary.points[seat]
            won = summary.result.winner is not None and \
                summary.players[summary.result.winner] == seat
            mu, sigma = ratings.get(pid, (rec.rating_mu, rec.rating_sigma))
            updates.append(PlayerUpdate(pid, points, beans_of(points, table.config.ruleset),
                                        won, mu, sigma))
        return updates


# ---- HTTP ------------------------------------------------------------------------

async def _json_body(request: Request, limits: Limits) -> dict[str, Any]:
    """The JSON object of a request, its body capped before it is read."""
    return parse_json(await read_body(request, limits.max_body, limits.body_timeout))


def _address(request: Request | WebSocket) -> str:
    return request.client.host if request.client is not None else "unknown"


_PUBLIC_ID = re.compile(r"[A-Za-z0-9_-]{22}")
"""What a public game id looks like (storage.new_public_id)."""


def _quick_options(data: dict[str, Any]) -> dict[str, Any]:
    """The room options of a quick room: one person against two computers."""
    level = data.get("level", "normal")
    if not isinstance(level, str):
        raise BadInput("level must be a computer player's name, e.g. 'normal'")
    options: dict[str, Any] = {"rules": data.get("rules", "qq"), "seats": ["human", level, level]}
    for key in ("timer", "bot_delay", "next_delay", "claim_window", "base", "multiplier"):
        if key in data:
            options[key] = data[key]
    return options


def _player_json(rec: PlayerRecord) -> dict[str, Any]:
    data = rec.to_json()
    data["level"] = level_of(rec.points)
    return data


def create_app(storage: Storage | None = None, database: str | Path | None = None,
               limits: Limits | None = None) -> Starlette:
    """The ASGI app (``storage`` given, or SQLite at ``database``, closed on shutdown);
    ``limits`` bounds request bodies, rates, spectators and idle rooms (:class:`Limits`
    by default).

    Raises :class:`~paohuzi.server.dblock.DatabaseInUseError` when another server
    uses that database."""
    owned = storage is None
    if storage is None:
        storage = SQLiteStorage(database or ":memory:")
    server = Server(storage, limits)
    bounds = server.limits

    def player_of(request: Request) -> PlayerRecord | None:
        token = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        return server.storage.player_by_token(token) if token else None

    def authed(request: Request) -> PlayerRecord:
        rec = player_of(request)
        if rec is None:
            raise PermissionError("unknown or missing player token")
        return rec

    def error(status: int, message: str) -> JSONResponse:
        # a body refused unread (413, 408) leaves the connection useless: close it
        headers = {"connection": "close"} if status in (408, 413) else None
        return JSONResponse({"error": message}, status_code=status, headers=headers)

    def too_many(what: str) -> JSONResponse:
        return error(429, f"too many {what} in a short time: wait a little and try again")

    async def new_player(request: Request) -> Response:
        if not server.allow("players_per_address", _address(request)):
            return too_many("new players from your address")
        try:
            data = await _json_body(request, bounds)
            nickname = clean_nickname(data.get("nickname"))
        except BadInput as exc:
            return error(exc.status, str(exc))
        rec, token = server.storage.create_player(nickname)
        return JSONResponse({"player": _player_json(rec), "token": token})

    async def me(request: Request) -> Response:
        try:
            rec = authed(request)
        except PermissionError as exc:
            return error(401, str(exc))
        return JSONResponse({"player": _player_json(rec),
                             "games": server.storage.games_of(rec.id)})

    async def new_room(request: Request, quick: bool) -> Response:
        try:
            rec = authed(request)
        except PermissionError as exc:
            return error(401, str(exc))
        if not server.allow("rooms_per_account", str(rec.id)):
            return too_many("rooms created by your account")
        if not server.allow("rooms_per_address", _address(request)):
            return too_many("rooms created from your address")
        try:
            data = await _json_body(request, bounds)
            options = _quick_options(data) if quick else data
            table = server.create_room(options)
        except BadInput as exc:
            return error(exc.status, str(exc))
        except TableError as exc:
            return error(400, str(exc))
        if not quick:
            return JSONResponse({"code": table.code, "config": table.config.to_json()})
        runtime = server.runtimes[table.code]
        async with runtime.lock:
            runtime.commit({"k": "sit", "seat": 0, "player": rec.id, "nickname": rec.nickname})
            runtime.schedule()
        return JSONResponse({"code": table.code, "config": table.config.to_json(), "seat": 0})

    async def create_room(request: Request) -> Response:
        return await new_room(request, quick=False)

    async def quick_room(request: Request) -> Response:
        """A room against two computer players, in one click."""
        return await new_room(request, quick=True)

    async def room_info(request: Request) -> Response:
        code = request.path_params["code"]
        runtime = server.runtimes.get(code)
        if runtime is None:
            return error(404, f"no room {code!r}")
        t = runtime.table
        return JSONResponse({"code": code, "config": t.config.to_json(),
                             "seats": [{"kind": s.kind, "nickname": s.nickname,
                                        "taken": s.player is not None} for s in t.seats],
                             "hand_no": t.hand_no})

    def readable_game(request: Request) -> tuple[str, StoredGame, bool] | JSONResponse:
        """The game a request names if the requester may read it (its players always;
        anyone with its id once its room has ended), with whether he played it."""
        game_id = request.path_params["game_id"]
        found = server.storage.game_by_public_id(game_id) if _PUBLIC_ID.fullmatch(game_id) \
            else None
        if found is None:
            return error(404, f"no game {game_id[:40]!r}")
        rec = player_of(request)
        played = rec is not None and rec.id in found.players
        if not played and not found.room_ended:
            return error(403, "a game is readable only by its players until its room ends")
        return game_id, found, played

    async def game(request: Request) -> Response:
        found = readable_game(request)
        if isinstance(found, JSONResponse):
            return found
        _, stored, played = found
        record = stored.record
        if not played:  # the room code is for the people who played there
            record = {k: v for k, v in record.items() if k != "room"}
        return JSONResponse(record)

    async def index(request: Request) -> Response:
        page = STATIC / "index.html"
        if page.exists():
            return HTMLResponse(page.read_text(encoding="utf-8"))
        return HTMLResponse(_INDEX)

    async def cards(request: Request) -> Response:
        return JSONResponse(CARDS)

    async def game_steps(request: Request) -> Response:
        """A finished game, step by step, every hand visible (for the replay page):
        computed off the event loop, once per game (records never change)."""
        found = readable_game(request)
        if isinstance(found, JSONResponse):
            return found
        game_id, stored, _ = found
        body = await server.replays.get(game_id, stored.record)
        return Response(body, media_type="application/json")

    async def debug_hash(request: Request) -> Response:
        runtime = server.runtimes.get(request.path_params["code"])
        if runtime is None:
            return error(404, "no such room")
        return JSONResponse({"hash": runtime.table.state_hash()})

    async def websocket(ws: WebSocket) -> None:
        await _serve_socket(server, ws)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        restored = server.restore()
        for runtime in server.runtimes.values():
            runtime.settle_if_needed()  # a hand a crash left unsettled
            runtime.schedule()
        if restored:
            log.info("restored %d table(s)", restored)
        sweeper = asyncio.create_task(server.sweep())
        yield
        sweeper.cancel()
        for runtime in server.runtimes.values():
            runtime.stop()
        server.pool.close()
        if owned:
            server.storage.close()

    routes = [
        Route("/", index),
        Route("/api/players", new_player, methods=["POST"]),
        Route("/api/me", me),
        Route("/api/rooms", create_room, methods=["POST"]),
        Route("/api/rooms/quick", quick_room, methods=["POST"]),
        Route("/api/rooms/{code}", room_info),
        Route("/api/games/{game_id}", game),
        Route("/api/games/{game_id}/steps", game_steps),
        Route("/api/cards", cards),
        Mount("/assets", app=StaticFiles(directory=STATIC / "assets", check_dir=False),
              name="assets"),
        WebSocketRoute("/ws/{code}", websocket),
    ]
    if os.environ.get("PAOHUZI_DEBUG_STATE_HASH") == "1":  # tests only: it covers hidden cards
        routes.append(Route("/api/debug/rooms/{code}/hash", debug_hash))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.server = server
    return app


# ---- the WebSocket protocol --------------------------------------------------------

async def _serve_socket(server: Server, ws: WebSocket) -> None:
    code = ws.path_params["code"]
    token = ws.query_params.get("token", "")
    await ws.accept()

    async def refuse(message: str, close_code: int) -> None:
        await ws.send_text(json.dumps({"type": "error", "message": message}))
        await ws.close(code=close_code)

    if not server.allow("connections_per_address", _address(ws)):
        await refuse("too many connections from your address: slow down", 1008)
        return
    runtime = server.runtimes.get(code)
    rec = server.storage.player_by_token(token) if token else None
    if runtime is None or rec is None:
        await refuse("unknown room" if runtime is None else "unknown token",
                     4004 if runtime is None else 4001)
        return
    if not server.allow("connections_per_account", str(rec.id)):
        await refuse("too many connections by your account: slow down", 1008)
        return
    t = runtime.table
    refused = _connection_refused(runtime, rec, server.limits.max_spectators)
    if refused is not None:
        await refuse(refused, 1008)
        return
    client = Client(ws, rec, t.seat_of_player(rec.id))
    runtime.clients.add(client)
    if client.seat is not None:
        runtime.disconnected_at.pop(client.seat, None)
    await runtime.send(client, {"type": "welcome", "player": _player_json(rec), "room": code,
                                "seat": client.seat, "cards": CARDS,
                                "last_seq": t.seats[client.seat].last_seq
                                if client.seat is not None else 0})
    await runtime.send_state(client, snapshot=True)
    async with runtime.lock:
        runtime.schedule()  # a room deals only while one of its people is connected
    try:
        while not client.dropped:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                break
            now = time.monotonic()  # every frame counts toward the rate, binary ones too
            if now - client.window_start >= 1.0:
                client.window_start, client.window_count = now, 0
            client.window_count += 1
            if client.window_count > 3 * RATE_PER_SECOND:
                await ws.close(code=1008)
                break
            raw = frame.get("text")
            if raw is None:
                await runtime.send(client, {"type": "error",
                                            "message": "send JSON text, not binary frames"})
                continue
            if len(raw.encode("utf-8", "surrogatepass")) > MAX_MESSAGE:
                await runtime.send(client, {"type": "error", "message": "message too large"})
                await ws.close(code=1009)
                break
            if client.window_count > RATE_PER_SECOND:
                seq = _seq_of(raw)
                await runtime.send(client, {"type": "error", "seq": seq,
                                            "message": "too many messages: slow down"})
                continue
            await _handle(runtime, client, raw)
    except WebSocketDisconnect:
        pass
    finally:
        runtime.clients.discard(client)
        runtime.last_active = max(runtime.last_active, time.time())  # idle from now on
        if client.seat is not None and not any(c.seat == client.seat for c in runtime.clients):
            runtime.disconnected_at[client.seat] = time.monotonic()


def _connection_refused(runtime: Runtime, rec: PlayerRecord, max_spectators: int) -> str | None:
    """Why a new connection is refused, if it is: 3 per player; connections without a
    seat capped, with room left for people taking a free seat — a seated player is never
    locked out by spectators."""
    if sum(1 for c in runtime.clients if c.player.id == rec.id) >= MAX_CONNECTIONS_PER_PLAYER:
        return "too many connections"
    if runtime.table.seat_of_player(rec.id) is not None:
        return None
    free = sum(1 for s in runtime.table.seats if s.kind == "human" and s.player is None)
    watching = sum(1 for c in runtime.clients if c.seat is None)
    if watching >= max_spectators + free * MAX_CONNECTIONS_PER_PLAYER:
        return "too many connections: this room's spectator places are full"
    return None


def _seq_of(raw: str) -> int | None:
    try:
        seq = json.loads(raw).get("seq")
    except (ValueError, AttributeError, RecursionError):
        return None
    return seq if isinstance(seq, int) else None


async def _handle(runtime: Runtime, client: Client, raw: str) -> None:
    try:
        msg = json.loads(raw)
    except (ValueError, RecursionError):
        await runtime.send(client, {"type": "error", "message": "malformed JSON"})
        return
    if not isinstance(msg, dict):
        await runtime.send(client, {"type": "error", "message": "expected a JSON object"})
        return
    seq = msg.get("seq")
    kind = msg.get("type")
    if not isinstance(seq, int) or isinstance(seq, bool) or not 1 <= seq <= MAX_SEQ:
        await runtime.send(client, {"type": "error",
                                    "message": f"'seq' must be an integer 1..{MAX_SEQ}"})
        return
    t = runtime.table
    changed = False
    async with runtime.lock:
        seat = client.seat
        if seat is not None and seq <= t.seats[seat].last_seq:
            await runtime.send(client, {"type": "ack", "seq": seq, "duplicate": True})
            return
        if seat is not None and seq > t.seats[seat].last_seq + MAX_SEQ_STEP:
            await runtime.send(client, {"type": "error", "seq": seq, "message":
                                        f"'seq' may be at most {MAX_SEQ_STEP} above the "
                                        f"last one applied ({t.seats[seat].last_seq})"})
            return
        try:
            if kind == "act":
                if seat is None:
                    raise TableError("you do not sit at this table")
                text = msg.get("action")
                if not isinstance(text, str):
                    raise TableError("'action' must be text, e.g. 'discard 三'")
                try:
                    action = Action.from_text(text)
                except ActionTextError as exc:
                    raise TableError(str(exc)) from None
                # judged on what the seat has been shown (the engine may be a claim window
                # ahead): the same words whatever the others may decide
                in_hand = t.hand is not None and not t.hand.ended
                if (runtime.delivery.pending or in_hand) and not runtime.decision_open(seat):
                    raise TableError("it is not your decision now")
                t.verify_act(seat, action)
                runtime.commit({"k": "act", "seat": seat, "action": action.text,
                                "player": client.player.id, "seq": seq})
                runtime.settle_if_needed()
                changed = True
            elif kind == "sit":
                target = msg.get("seat")
                if not isinstance(target, int) or isinstance(target, bool):
                    raise TableError("'seat' must be a seat number")
                t.verify_sit(target, client.player.id)
                if t.seats[target].player != client.player.id:
                    runtime.commit({"k": "sit", "seat": target, "player": client.player.id,
                                    "nickname": client.player.nickname, "seq": seq})
                    changed = True
                client.seat = target
                runtime.disconnected_at.pop(target, None)
                t.seats[target].last_seq = max(t.seats[target].last_seq, seq)
            elif kind == "takeover":
                if seat is None:
                    raise TableError("you do not sit at this table")
                if t.seats[seat].tuoguan:
                    runtime.commit({"k": "tuoguan", "seat": seat, "on": False, "seq": seq})
                    changed = True
                t.seats[seat].last_seq = max(t.seats[seat].last_seq, seq)
            elif kind == "next":
                if seat is not None:
                    if t.hand is None or t.hand.ended:  # a vote counts between hands only
                        runtime.next_votes.add(seat)
                    t.seats[seat].last_seq = max(t.seats[seat].last_seq, seq)
            elif kind == "leave":
                if seat is None:
                    raise TableError("you do not sit at this table")
                if t.hand is not None and not t.hand.ended and t.hand_seat(seat) is not None:
                    runtime.commit({"k": "escape", "seat": seat, "seq": seq})
                    runtime.settle_if_needed()
                    changed = True
                t.seats[seat].last_seq = max(t.seats[seat].last_seq, seq)
            elif kind == "entropy":
                if seat is None:
                    raise TableError("you do not sit at this table")
                entry = t.verify_entropy(seat, msg.get("hand"), msg.get("value"))
                runtime.commit({**entry, "seq": seq})
                changed = True
            elif kind == "resync":
                events = msg.get("events", 0)
                shown = runtime.delivery.current
                shown_no = shown.hand_no if shown is not None else 0
                hand_no = msg.get("hand", shown_no)
                if hand_no == shown_no and isinstance(events, int) and events >= 0:
                    client.events_hand, client.events_sent = shown_no, events
                    await runtime.send_state(client)
                else:
                    await runtime.send_state(client, snapshot=True)
                if seat is not None:
                    t.seats[seat].last_seq = max(t.seats[seat].last_seq, seq)
            elif kind == "ping":
                if seat is not None:
                    t.seats[seat].last_seq = max(t.seats[seat].last_seq, seq)
            else:
                raise TableError(f"unknown message type {kind!r}; expected act, sit, "
                                 "takeover, next, leave, entropy, resync or ping")
        except (TableError, PaohuziError) as exc:
            if seat is not None:
                t.seats[seat].last_seq = max(t.seats[seat].last_seq, seq)
            await runtime.send(client, {"type": "error", "seq": seq, "message": str(exc)})
            return
        await runtime.send(client, {"type": "ack", "seq": seq})
        if changed:
            runtime.schedule()


_INDEX = """<!doctype html><html lang="zh"><meta charset="utf-8"><title>跑胡子</title>
<body style="font-family:sans-serif;max-width:40em;margin:2em auto">
<h1>跑胡子 · paohuzi</h1>
<p>The game server is running. The browser table is being built; meanwhile the
HTTP API and the WebSocket protocol (docs/protocol.md) are live, and
<code>paohuzi play</code> plays in the terminal.</p></body></html>"""
