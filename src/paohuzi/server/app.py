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
from paohuzi.server.delivery import Delivery, Frame
from paohuzi.server.levels import level_of
from paohuzi.server.replays import replay_pages
from paohuzi.server.scheduler import FairPool
from paohuzi.server.storage import PlayerRecord, SQLiteStorage, Storage
from paohuzi.server.table import RoomConfig, Table, TableError
from paohuzi.view import observe

__all__ = ["Server", "create_app"]

log = logging.getLogger("paohuzi.server")

MAX_MESSAGE = 4096
"""Largest client message accepted (bytes); larger ones close the connection."""
RATE_PER_SECOND = 30
MAX_CONNECTIONS_PER_PLAYER = 3
"""Connections one player may hold to one room (rate limits are per connection)."""
MAX_CONNECTIONS_PER_ROOM = 64
MAX_SEQ = 2**53 - 1
"""Largest sequence number (what a JavaScript client can count to)."""
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
        self._capture(self.frame(None, claim_point=False))

    def settle_if_needed(self) -> None:
        """Side effects of a finished hand, once: game record, player totals, rating."""
        t = self.table
        if t.last_summary is None or t.settled >= len(t.match.history if t.match else []):
            return
        summary = t.last_summary
        record = t.finished_record()
        players = [p for p in record["players"] if p is not None]
        self.server.storage.save_game(t.code, record, players)
        self.server.rate(t, summary)
        self.commit({"k": "settled", "hand": len(t.match.history) if t.match else 0})

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
        waited = 0.0
        while waited < delay:
            humans = {i for i, s in enumerate(t.seats) if s.kind == "human"}
            if humans and humans <= self.next_votes:
                break
            await asyncio.sleep(0.05)
            waited += 0.05
        async with self.lock:
            if t.hand_no != hand_no or not self.ready_to_deal():
                return
            self.next_votes.clear()
            self.commit(t.new_start_entry())
            self.schedule()


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

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self.runtimes: dict[str, Runtime] = {}
        self.pool = FairPool(COMPUTER_THREADS)

    def restore(self) -> int:
        """Rebuild every table from its log (after a restart); returns how many."""
        for code, config in self.storage.rooms():
            table = Table(code, RoomConfig.from_json(config))
            for i, entry in enumerate(self.storage.load_log(code)):
                try:
                    table.apply(entry)
                except Exception as exc:  # a bad entry must not keep the server down
                    log.error("table %s: log entry %d does not apply (%s); skipped", code, i,
                              type(exc).__name__)
            self.runtimes[code] = Runtime(self, table)
        return len(self.runtimes)

    def create_room(self, options: dict[str, Any]) -> Table:
        config = RoomConfig.from_json(options)
        code = secrets.token_urlsafe(6)
        self.storage.create_room(code, config.to_json())
        table = Table(code, config)
        self.runtimes[code] = Runtime(self, table)
        return table

    def rate(self, table: Table, summary: Any) -> None:
        """Player totals and OpenSkill ratings after a hand."""
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
        for seat, pid in humans:
            assert pid is not None
            rec = self.storage.player(pid)
            if rec is None:
                continue
            points = summary.points[seat]
            won = summary.result.winner is not None and \
                summary.players[summary.result.winner] == seat
            mu, sigma = ratings.get(pid, (rec.rating_mu, rec.rating_sigma))
            self.storage.update_player(pid, points, points * table.config.ruleset.multiplier,
                                       won, mu, sigma)


# ---- HTTP ------------------------------------------------------------------------

async def _json_body(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if len(raw) > MAX_MESSAGE:
        raise TableError("request body too large")
    try:
        data = json.loads(raw or b"{}")
    except json.JSONDecodeError as exc:
        raise TableError(f"malformed JSON: {exc}") from None
    if not isinstance(data, dict):
        raise TableError("expected a JSON object")
    return data


def _player_json(rec: PlayerRecord) -> dict[str, Any]:
    data = rec.to_json()
    data["level"] = level_of(rec.points)
    return data


def create_app(storage: Storage | None = None, database: str | Path | None = None) -> Starlette:
    """The ASGI app (``storage`` given, or SQLite at ``database``)."""
    if storage is None:
        storage = SQLiteStorage(database or ":memory:")
    server = Server(storage)

    def authed(request: Request) -> PlayerRecord:
        token = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        rec = server.storage.player_by_token(token) if token else None
        if rec is None:
            raise PermissionError("unknown or missing player token")
        return rec

    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message}, status_code=status)

    async def new_player(request: Request) -> Response:
        try:
            data = await _json_body(request)
        except TableError as exc:
            return error(400, str(exc))
        nickname = str(data.get("nickname", "")).strip()[:24] or "玩家"
        rec, token = server.storage.create_player(nickname)
        return JSONResponse({"player": _player_json(rec), "token": token})

    async def me(request: Request) -> Response:
        try:
            rec = authed(request)
        except PermissionError as exc:
            return error(401, str(exc))
        return JSONResponse({"player": _player_json(rec),
                             "games": server.storage.games_of(rec.id)})

    async def create_room(request: Request) -> Response:
        try:
            authed(request)
            data = await _json_body(request)
            table = server.create_room(data)
        except PermissionError as exc:
            return error(401, str(exc))
        except TableError as exc:
            return error(400, str(exc))
        return JSONResponse({"code": table.code, "config": table.config.to_json()})

    async def quick_room(request: Request) -> Response:
        """A room against two computer players, in one click."""
        try:
            rec = authed(request)
            data = await _json_body(request)
            level = str(data.get("level", "normal"))
            options = {"rules": data.get("rules", "qq"), "seats": ["human", level, level]}
            for key in ("timer", "bot_delay", "next_delay", "claim_window", "base",
                        "multiplier"):
                if key in data:
                    options[key] = data[key]
            table = server.create_room(options)
        except PermissionError as exc:
            return error(401, str(exc))
        except TableError as exc:
            return error(400, str(exc))
        runtime = server.runtimes[table.code]
        async with runtime.lock:
            runtime.commit({"k": "sit", "seat": 0, "player": rec.id, "nickname": rec.nickname})
            runtime.schedule()
        return JSONResponse({"code": table.code, "config": table.config.to_json(), "seat": 0})

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

    def stored_game(request: Request) -> dict[str, Any] | JSONResponse:
        """The finished game a request names, or the error response."""
        try:
            game_id = int(request.path_params["game_id"])
        except ValueError:
            return error(400, "game id must be a number")
        if not 1 <= game_id < 2**63:
            return error(404, f"no game {game_id}")
        record = server.storage.game(game_id)
        return error(404, f"no game {game_id}") if record is None else record

    async def game(request: Request) -> Response:
        found = stored_game(request)
        return found if isinstance(found, JSONResponse) else JSONResponse(found)

    async def index(request: Request) -> Response:
        page = STATIC / "index.html"
        if page.exists():
            return HTMLResponse(page.read_text(encoding="utf-8"))
        return HTMLResponse(_INDEX)

    async def cards(request: Request) -> Response:
        return JSONResponse(CARDS)

    async def game_steps(request: Request) -> Response:
        """A finished game, step by step, every hand visible (for the replay page)."""
        found = stored_game(request)
        return found if isinstance(found, JSONResponse) else JSONResponse(replay_pages(found))

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
            runtime.schedule()
        if restored:
            log.info("restored %d table(s)", restored)
        yield
        for runtime in server.runtimes.values():
            for task in (runtime.timer_task, runtime.bot_task, runtime.next_task,
                         runtime.deliver_task):
                if task is not None:
                    task.cancel()
        server.pool.close()

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
    runtime = server.runtimes.get(code)
    rec = server.storage.player_by_token(token) if token else None
    if runtime is None or rec is None:
        await ws.send_text(json.dumps({"type": "error", "message":
                                       "unknown room" if runtime is None else "unknown token"}))
        await ws.close(code=4004 if runtime is None else 4001)
        return
    t = runtime.table
    mine = sum(1 for c in runtime.clients if c.player.id == rec.id)
    if mine >= MAX_CONNECTIONS_PER_PLAYER or len(runtime.clients) >= MAX_CONNECTIONS_PER_ROOM:
        await ws.send_text(json.dumps({"type": "error", "message": "too many connections"}))
        await ws.close(code=1008)
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
            raw = frame.get("text")
            if raw is None:
                await runtime.send(client, {"type": "error",
                                            "message": "send JSON text, not binary frames"})
                continue
            if len(raw.encode()) > MAX_MESSAGE:
                await runtime.send(client, {"type": "error", "message": "message too large"})
                await ws.close(code=1009)
                break
            now = time.monotonic()
            if now - client.window_start >= 1.0:
                client.window_start, client.window_count = now, 0
            client.window_count += 1
            if client.window_count > 3 * RATE_PER_SECOND:
                await ws.close(code=1008)
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
        if client.seat is not None and not any(c.seat == client.seat for c in runtime.clients):
            runtime.disconnected_at[client.seat] = time.monotonic()


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
                                 "takeover, next, leave, resync or ping")
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
