"""The ASGI application of ``paohuzi serve``: the HTTP routes, and the app's lifespan.

The WebSocket protocol is in protocol.py, a room's async side in runtime.py, the
server's rooms and ratings in server.py (docs/protocol.md).
"""

from __future__ import annotations

import asyncio
import os
import re
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from paohuzi.core.errors import PaohuziError
from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.game.record import RecordError
from paohuzi.players import PLAYER_NAMES
from paohuzi.server import hall, quickchat
from paohuzi.server.backends import open_storage
from paohuzi.server.economy import STARTING_BEANS, EconomyError, EntryRefused, check_entry
from paohuzi.server.inputs import BadInput, clean_nickname, parse_json, read_body, reserved_fold
from paohuzi.server.limits import Limits
from paohuzi.server.matchmaking import AlreadyQueued, MatchSettings, QueueError
from paohuzi.server.protocol import CARDS, address_of, player_json, serve_socket
from paohuzi.server.refusals import refusal, words_of
from paohuzi.server.replays import public_record
from paohuzi.server.roombounds import (
    Creator,
    RoomLimitError,
    ServerFull,
    address_key,
    room_address,
)
from paohuzi.server.rulesdoc import rules_doc
from paohuzi.server.server import Server, log, normal_room_code
from paohuzi.server.storage import PlayerRecord, Storage, StoredGame
from paohuzi.server.table import RoomConfig, TableError

__all__ = ["CARDS", "STATIC", "create_app"]

STATIC = Path(__file__).parent / "static"
"""The built browser game (from frontend/, built by `npm run build`)."""

FAVICON = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 48">'
           b'<rect x="1" y="1" width="30" height="46" rx="4" fill="#f8f1dc" stroke="#b9ad86"/>'
           b'<text x="16" y="32" font-size="24" text-anchor="middle" fill="#c4161c">'
           b'\xe8\xb4\xb0</text></svg>')
"""The browser tab's icon: a 字牌 card (贰), also linked from index.html."""


async def _json_body(request: Request, limits: Limits) -> dict[str, Any]:
    """The JSON object of a request, its body capped before it is read."""
    return parse_json(await read_body(request, limits.max_body, limits.body_timeout))



_PUBLIC_ID = re.compile(r"[A-Za-z0-9_-]{22}")
"""What a public game id looks like (storage.new_public_id)."""


TOO_MANY_ZH = {
    "new players from your address": "从你的网络地址注册新玩家",
    "rooms created by your account": "你的账号创建房间",
    "rooms created from your address": "从你的网络地址创建房间",
    "room lookups from your address": "从你的网络地址查房间",
    "replays from your address": "从你的网络地址看回放",
    "quick-match requests by your account": "你的账号快速匹配",
}
"""The Chinese of each request counted by a rate bound (a player's refusal words)."""

QUICK_OPTIONS = ("rules", "timer", "grace", "bot_delay", "next_delay", "claim_window", "base",
                 "multiplier", "escape_bonus", "xingjia", "hands", "changci")
"""Room options a quick room takes (besides ``level``); its seats are one person and
computers of that level (two, or three with hunan's 醒家; one in a two-player game)."""


def _quick_options(data: dict[str, Any]) -> dict[str, Any]:
    """The room options of a quick room: one person against computers of one level."""
    if not isinstance(data, dict):
        raise BadInput("room options must be an object")
    unknown = sorted(set(data) - {"level", *QUICK_OPTIONS})
    if unknown:
        raise BadInput(f"unknown quick room option(s): {', '.join(unknown)}; known: level, "
                       f"{', '.join(QUICK_OPTIONS)}")
    level = data.get("level", "normal")
    if not isinstance(level, str) or level not in PLAYER_NAMES:  # never "human"
        raise BadInput(f"level must be a computer player's name ({', '.join(PLAYER_NAMES)}), "
                       f"got {str(level)[:20]!r}")
    options: dict[str, Any] = {key: data[key] for key in QUICK_OPTIONS if key in data}
    seats = len(RoomConfig.from_json(options).seats)  # validates; raises TableError
    options["seats"] = ["human"] + [level] * (seats - 1)
    return options


def _creator_sits(data: Any, quick: bool) -> bool:
    """Whether the room's creator takes its first human seat: always in a quick room;
    with ``"sit": true`` (taken out of the options) in another room."""
    if not isinstance(data, dict):
        return quick
    sit = data.pop("sit", False)
    if not isinstance(sit, bool):
        raise BadInput("sit must be true or false")
    return quick or sit


def create_app(storage: Storage | None = None, database: str | Path | None = None,
               limits: Limits | None = None, match: MatchSettings | None = None,
               redis: str | None = None, address: str | None = None,
               computer_processes: bool = True) -> Starlette:
    """The ASGI app (``storage`` given, or the one ``database`` names — a SQLite file or a
    ``postgresql://`` URL, :func:`~paohuzi.server.backends.open_storage` — closed on
    shutdown);
    ``limits`` bounds request bodies, rates, spectators and idle rooms (:class:`Limits`
    by default); ``match``: how quick match seats people (:class:`MatchSettings`).

    With ``redis`` (a ``redis://`` URL) the process is one of several sharing a
    PostgreSQL ``database`` (cluster.py), reachable by the others at ``address``
    (``http://host:port``).

    Computer moves run in worker processes unless ``computer_processes`` is false (then
    on threads of this process: tests that replace a computer player in this process).

    Raises :class:`~paohuzi.server.dblock.DatabaseInUseError` when another server
    uses that database."""
    owned = storage is None
    if storage is None:
        storage = open_storage(database or ":memory:", shared=redis is not None)
    cluster = None
    if redis is not None:
        from paohuzi.server.cluster import Cluster
        from paohuzi.server.pgstorage import PostgresStorage

        if not isinstance(storage, PostgresStorage) or address is None:
            raise ValueError("several processes (--redis) need a PostgreSQL --database and "
                             "this process's address")
        cluster = Cluster(storage, redis, address)
    server = Server(storage, limits, match, computer_processes)
    bounds = server.limits

    def player_of(request: Request) -> PlayerRecord | None:
        token = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        return server.storage.player_by_token(token) if token else None

    def authed(request: Request) -> PlayerRecord:
        rec = player_of(request)
        if rec is None:
            raise PermissionError("unknown or missing player token")
        return rec

    def error(status: int, refused: str | BaseException) -> JSONResponse:
        """The answer to a refused request: its English text, and where it is a player's
        refusal (refusals.py) its words in every language."""
        # a body refused unread (413, 408) leaves the connection useless: close it
        headers = {"connection": "close"} if status in (408, 413) else None
        body: dict[str, Any] = {"error": str(refused)}
        said = words_of(refused) if isinstance(refused, BaseException) else None
        if said is not None:
            body["words"] = said
        return JSONResponse(body, status_code=status, headers=headers)

    def too_many(what: str) -> JSONResponse:
        return error(429, refusal(PaohuziError, "too_many_requests", what=what,
                                  what_zh=TOO_MANY_ZH.get(what, what)))

    async def new_player(request: Request) -> Response:
        if not server.allow("players_per_address", address_of(request)):
            return too_many("new players from your address")
        try:
            data = await _json_body(request, bounds)
            unknown = sorted(set(data) - {"nickname"})
            if unknown:
                raise BadInput(f"unknown field(s): {', '.join(unknown)[:200]}; known: nickname")
            nickname = clean_nickname(data.get("nickname"))
        except BadInput as exc:
            return error(exc.status, exc)
        rec, token = server.storage.create_player(nickname, beans=STARTING_BEANS)
        return JSONResponse({"player": player_json(rec), "token": token})

    async def me(request: Request) -> Response:
        try:
            rec = authed(request)
        except PermissionError as exc:
            return error(401, exc)
        return JSONResponse({"player": player_json(rec),
                             "games": server.storage.games_of(rec.id)})

    async def new_room(request: Request, quick: bool) -> Response:
        try:
            rec = authed(request)
        except PermissionError as exc:
            return error(401, exc)
        if not server.allow("rooms_per_account", str(rec.id)):
            return too_many("rooms created by your account")
        if not server.allow("rooms_per_address", address_of(request)):
            return too_many("rooms created from your address")
        try:
            data = await _json_body(request, bounds)
            sit = _creator_sits(data, quick)
            options = _quick_options(data) if quick else data
            config = RoomConfig.from_json(options)
            # the 场次's entry minimum: checked before the room exists
            check_entry(config.tier, rec.beans)
            seat = config.seats.index("human") if sit and "human" in config.seats else None
            sat = [] if seat is None else [
                {"k": "sit", "seat": seat, "player": rec.id, "nickname": rec.nickname}]
            # the room and its creator in his seat: one transaction
            table = await server.open_room(
                options, Creator(rec.id, address_key(address_of(request))), sat)
        except BadInput as exc:
            return error(exc.status, exc)
        except EntryRefused as exc:
            return error(403, exc)
        except RoomLimitError as exc:
            return error(exc.status, exc)
        except TableError as exc:
            return error(400, exc)
        if seat is None:
            return JSONResponse({"code": table.code, "config": table.config.to_json()})
        runtime = server.runtimes[table.code]
        async with runtime.lock:
            runtime.note_level(seat, rec.id)  # the creator's title beside his name
            runtime.schedule()
        return JSONResponse({"code": table.code, "config": table.config.to_json(),
                             "seat": seat})

    async def create_room(request: Request) -> Response:
        return await new_room(request, quick=False)

    async def quick_room(request: Request) -> Response:
        """A room against two computer players, in one click."""
        return await new_room(request, quick=True)

    async def elsewhere(request: Request, code: str) -> Response | None:
        """The owner's answer to a GET about ``code``, when another process of the
        cluster serves it (relayed, never a redirect to a process's own address); None
        when no other process does."""
        cluster = server.cluster
        if cluster is None or code in server.runtimes or cluster.is_forwarded(request):
            return None  # a relayed request is never relayed again (a stale route)
        owner = cluster.owner_address(code)
        if owner is None or owner == cluster.address:
            return None
        query = f"?{request.url.query}" if request.url.query else ""
        # the path as typed may hold a code's full-width digits or a space (the owner
        # reads it as normal_room_code does): relayed percent-encoded, as sent
        path = quote(request.url.path, safe="/")
        status, body, kind = await cluster.relay_get(owner, f"{path}{query}")
        return Response(body, status_code=status, media_type=kind)

    def lookups_refused(request: Request) -> JSONResponse | None:
        """A room code looked up over HTTP costs what a connection attempt does (the
        connection rate per address): six digits must not be swept faster this way.
        A lookup relayed by another process was counted where it arrived. An IPv6
        address counts as its /48 (``roombounds.room_address``): a red team swept every
        code from the /64s of one /48, each with a bucket of its own."""
        if server.cluster is not None and server.cluster.is_forwarded(request):
            return None
        if server.allow("connections_per_address", room_address(address_of(request))):
            return None
        return too_many("room lookups from your address")

    def public_match(summary: dict[str, Any]) -> dict[str, Any]:
        """A stored 大结算 without account ids (older ones were stored with them)."""
        return {**summary, "seats": [{k: v for k, v in row.items() if k != "player"}
                                     for row in summary.get("seats", [])]}

    async def room_info(request: Request) -> Response:
        if (refused := lookups_refused(request)) is not None:
            return refused
        code = request.path_params["code"]
        runtime = server.find_room(code)
        if runtime is None:
            return await elsewhere(request, normal_room_code(code)) or error(
                404, refusal(PaohuziError, "room_not_found", code=code[:40]))
        t = runtime.table
        return JSONResponse({"code": t.code, "config": t.config.to_json(),
                             "seats": [{"kind": s.kind, "nickname": s.nickname,
                                        "taken": s.player is not None} for s in t.seats],
                             "hand_no": t.hand_no,
                             "matches": [public_match(m) for m in
                                         server.storage.matches_in_room(t.code)]})

    async def preset_rules(request: Request) -> Response:
        """A preset's rules page (options, 胡息 table, 名堂 list: rulesdoc.py)."""
        name = request.path_params["name"]
        if name not in PRESETS:
            return error(404, f"no preset {name[:40]!r}; known: {', '.join(sorted(PRESETS))}")
        return JSONResponse(rules_doc(Ruleset.preset(name)))

    async def room_rules(request: Request) -> Response:
        """The rules a room plays, stakes included (its code is what it takes)."""
        if (refused := lookups_refused(request)) is not None:
            return refused
        code = request.path_params["code"]
        runtime = server.find_room(code)
        if runtime is not None:
            return JSONResponse(rules_doc(runtime.table.config.ruleset))
        if server.cluster is not None:  # served by another process: its options are shared
            stored = server.cluster.storage.room(normal_room_code(code))
            try:
                if stored is not None:
                    return JSONResponse(rules_doc(RoomConfig.from_json(stored).ruleset))
            except TableError:
                pass
        return error(404, refusal(PaohuziError, "room_not_found", code=code[:40]))

    def readable_game(request: Request) -> tuple[str, StoredGame, bool] | JSONResponse:
        """The game a request names if the requester may read it (its players always;
        anyone with its id once its room has ended), with whether he played it."""
        game_id = request.path_params["game_id"]
        found = server.storage.game_by_public_id(game_id) if _PUBLIC_ID.fullmatch(game_id) \
            else None
        if found is None:
            return error(404, refusal(PaohuziError, "game_not_found", game=game_id[:40]))
        rec = player_of(request)
        played = rec is not None and rec.id in found.players
        if not played and not found.room_ended:
            return error(403, refusal(PaohuziError, "game_private"))
        return game_id, found, played

    async def game(request: Request) -> Response:
        found = readable_game(request)
        if isinstance(found, JSONResponse):
            return found
        _, stored, played = found
        rec = player_of(request)
        return JSONResponse(public_record(stored.record, names_of(stored.record),
                                          rec.id if rec is not None else None, played))

    def names_of(record: dict[str, Any]) -> list[str]:
        """The seats' names of a record: stored with it, or (a record stored before they
        were) each account's nickname now."""
        names = record.get("names")
        if isinstance(names, list):
            return [str(name) for name in names]
        shown = []
        for player in record.get("players") or []:
            found = server.storage.player(player) if isinstance(player, int) else None
            shown.append(found.nickname if found is not None else "电脑")
        return shown

    async def index(request: Request) -> Response:
        page = STATIC / "index.html"
        if not page.exists():  # a source checkout without `npm run build`
            return error(404, "the browser game is not built: cd frontend && npm run build")
        return HTMLResponse(page.read_text(encoding="utf-8"))

    async def favicon(request: Request) -> Response:
        return Response(FAVICON, media_type="image/svg+xml",
                        headers={"cache-control": "max-age=86400"})

    async def cards(request: Request) -> Response:
        return JSONResponse(CARDS)

    async def game_steps(request: Request) -> Response:
        """A finished game, step by step, every hand visible (for the replay page):
        computed off the event loop, once per game (records never change)."""
        found = readable_game(request)
        if isinstance(found, JSONResponse):
            return found
        game_id, stored, _ = found
        if not server.replays.known(game_id) and \
                not server.allow("replays_per_address", address_of(request)):
            return too_many("replays from your address")  # each one made costs CPU
        try:
            body = await server.replays.get(game_id, {**stored.record,
                                                      "names": names_of(stored.record)})
        except RecordError as exc:  # stored by an engine whose rules have changed since
            return error(422, refusal(PaohuziError, "game_unreplayable", game=game_id,
                                      detail=str(exc)))
        return Response(body, media_type="application/json")

    async def presets(request: Request) -> Response:
        return JSONResponse(hall.lobby_catalog(server.matchmaker.settings.computer))

    async def leaderboard(request: Request) -> Response:
        try:
            by, limit = hall.leaderboard_query(dict(request.query_params))
        except BadInput as exc:
            return error(exc.status, exc)
        return JSONResponse(hall.leaderboard_json(server.storage.leaderboard(by, limit), by))

    async def relief(request: Request) -> Response:
        try:
            rec = authed(request)
        except PermissionError as exc:
            return error(401, exc)
        try:
            beans = hall.claim_relief(server.storage, rec)
        except EconomyError as exc:
            return error(409, exc)
        return JSONResponse({"beans": beans, "relief": beans - max(0, rec.beans)})

    async def hall_info(request: Request) -> Response:
        """The hall: each 场次 with people online and tables playing, the quick chat."""
        return JSONResponse({"changci": server.matchmaker.hall(),
                             "wait": server.matchmaker.settings.wait,
                             "chat": quickchat.catalog()})

    async def quick_match(request: Request) -> Response:
        """Quick match: POST joins a queue, GET tells where one stands, DELETE leaves."""
        try:
            rec = authed(request)
        except PermissionError as exc:
            return error(401, exc)
        mm = server.matchmaker
        if request.method == "GET":
            return JSONResponse(mm.status(rec.id))
        if request.method == "DELETE":
            return JSONResponse({"left": mm.leave(rec.id), **mm.status(rec.id)})
        if not server.allow("rooms_per_account", str(rec.id)):
            return too_many("quick-match requests by your account")
        if not server.room_for_more():  # full, and no room could end to make space
            return error(ServerFull.status,
                         refusal(ServerFull, "server_full", rooms=len(server.runtimes)))
        try:
            data = await _json_body(request, bounds)
            unknown = sorted(set(data) - {"changci", "preset"})
            if unknown:
                raise BadInput(f"unknown quick-match field(s): {', '.join(unknown)}; "
                               "known: changci, preset")
            return JSONResponse(mm.join(rec, address_of(request), data.get("changci"),
                                        data.get("preset", "qq")))
        except BadInput as exc:
            return error(exc.status, exc)
        except EntryRefused as exc:
            return error(403, exc)
        except QueueError as exc:
            return error(409 if isinstance(exc, AlreadyQueued) else 400, exc)

    async def debug_hash(request: Request) -> Response:
        runtime = server.runtimes.get(request.path_params["code"])
        if runtime is None:
            return await elsewhere(request, request.path_params["code"]) or \
                error(404, "no such room")
        return JSONResponse({"hash": runtime.table.state_hash()})

    async def websocket(ws: WebSocket) -> None:
        await serve_socket(server, ws)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        if cluster is not None:  # only the rooms no live process owns
            restored = await cluster.start(server)
        else:
            restored = server.restore()
            for runtime in server.runtimes.values():
                runtime.settle_if_needed()  # a hand a crash left unsettled
                runtime.schedule()
        if restored:
            log.info("restored %d table(s)", restored)
        server.matchmaker.adopt()
        server.pool.warm()  # the computers' workers, before the first move needs them
        reserved_fold("")  # the look-alike table (~0.2 s), before a nickname waits on it
        sweeper = asyncio.create_task(server.sweep())
        matcher = asyncio.create_task(server.matchmaker.run())
        yield
        sweeper.cancel()
        matcher.cancel()
        if cluster is not None:
            cluster.stop()
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
        Route("/api/rooms/{code}/rules", room_rules),
        Route("/api/rules/{name}", preset_rules),
        Route("/favicon.ico", favicon),
        Route("/api/games/{game_id}", game),
        Route("/api/games/{game_id}/steps", game_steps),
        Route("/api/cards", cards),
        Route("/api/presets", presets),
        Route("/api/leaderboard", leaderboard),
        Route("/api/relief", relief, methods=["POST"]),
        Route("/api/hall", hall_info),
        Route("/api/match", quick_match, methods=["GET", "POST", "DELETE"]),
        Mount("/assets", app=StaticFiles(directory=STATIC / "assets", check_dir=False),
              name="assets"),
        WebSocketRoute("/ws/{code}", websocket),
    ]
    if os.environ.get("PAOHUZI_DEBUG_STATE_HASH") == "1":  # tests only: it covers hidden cards
        routes.append(Route("/api/debug/rooms/{code}/hash", debug_hash))
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.server = server
    return app

