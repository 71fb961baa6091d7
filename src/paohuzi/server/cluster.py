"""Several server processes on one PostgreSQL and one Redis (docs/scaling.md).

Every open room is owned by exactly one process at a time, through a lease in
PostgreSQL with a fencing token (:class:`~paohuzi.server.pgstorage.PostgresStorage`):
the owner renews its leases every :data:`RENEW_EVERY` seconds; a process that finds a
room's lease expired (its owner died, or stalled) takes it over, replays the room's
log and resumes the table. A stale owner can never write again: the token is checked
in the same transaction as every log append.

A connection to a room owned elsewhere is *forwarded*: the process it reached opens a
WebSocket to the owner and relays the frames both ways (:func:`forward`), so any load
balancer and any client work unchanged; HTTP requests about such a room are
relayed (:meth:`Cluster.relay_get`): the client never sees a process's own address.
Redis holds the routes (room -> owner's address, a cache of the leases),
the live processes, and the shared rate limits (:class:`RedisRateLimiter`).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import logging
import os
import secrets
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from paohuzi.server.hall import Census, SharedHall
from paohuzi.server.pgstorage import PostgresStorage
from paohuzi.server.quickchat import CHAT_RATE, ChatLimiter
from paohuzi.server.roombounds import Creator
from paohuzi.server.table import RoomConfig, TableError

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.websockets import WebSocket

    from paohuzi.server.server import Server

__all__ = ["FORWARDED_FOR", "LEASE_TTL", "RENEW_EVERY", "Cluster", "RedisRateLimiter",
           "forward"]

log = logging.getLogger("paohuzi.server")

LEASE_TTL = 4.0
"""Seconds a room's lease lasts without renewal: a dead owner's rooms are taken over
within ``LEASE_TTL + RENEW_EVERY`` seconds of its last renewal."""
RENEW_EVERY = 1.0
"""Seconds between renewals of a process's leases (and its looks for orphan rooms)."""
FORWARDED = "x-paohuzi-forwarded"
"""The header a forwarding process sends the owner (the cluster's shared secret): the
client's connection was counted where it arrived."""
FORWARDED_FOR = "x-paohuzi-forwarded-for"
"""The client's own address, sent with :data:`FORWARDED` (believed only with the secret):
the owner rates a room's hands by who plays them from where (Server.rate)."""
RELAY_TIMEOUT = 3.0
"""Seconds a process waits for a room's owner to answer a relayed HTTP request."""
RELAY_LIMIT = 1 << 20
"""Bytes of a relayed answer passed on at most (a room's summary is a few hundred)."""
SECRET_KEY = "paohuzi:cluster-secret"
"""Where Redis holds the cluster's shared secret (the :data:`FORWARDED` header's value)."""

_BUCKET = """
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens, stamp = tonumber(state[1]) or burst, tonumber(state[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
local allowed = 0
if tokens >= 1 then tokens = tokens - 1; allowed = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / math.max(rate, 0.001)) + 1)
return allowed
"""


class RedisRateLimiter:
    """A token bucket per key kept in Redis, so every process counts against one limit
    (the same rule as :class:`~paohuzi.server.limits.RateLimiter`, atomic in a script
    that reads Redis's clock: one round trip a request)."""

    def __init__(self, client: Any, name: str, rate: float, burst: int) -> None:
        self._client = client
        self._prefix = f"paohuzi:limit:{name}:"
        self._rate, self._burst = rate, burst
        self._script = client.register_script(_BUCKET)

    def allow(self, key: str) -> bool:
        """Take a token from ``key``'s bucket if it has one (one round trip)."""
        return bool(self._script(keys=[self._prefix + key], args=[self._rate, self._burst]))


class Cluster:
    """This process's part in a cluster: its leases, routes, presence and limits."""

    def __init__(self, storage: PostgresStorage, redis_url: str, address: str,
                 ttl: float = LEASE_TTL, renew_every: float = RENEW_EVERY) -> None:
        import redis

        if not storage.shared:
            raise ValueError("a cluster's storage must be opened shared (several processes)")
        self.storage = storage
        self.address = address.rstrip("/")
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self.ttl, self.renew_every = ttl, renew_every
        self.redis = redis.Redis.from_url(redis_url, socket_timeout=5)
        self.redis.set(SECRET_KEY, secrets.token_urlsafe(24), nx=True)
        self.secret = _text(self.redis.get(SECRET_KEY))
        """The cluster's shared secret (:data:`FORWARDED`); taken again from Redis at each
        upkeep round (:meth:`_route`), where it is set again if Redis lost it."""
        self.hall = SharedHall(self.redis, self.owner, ttl, cache=renew_every / 2)
        """The hall's figures of every process (hall.py): this one's published at each
        upkeep round, expiring after a lease lifetime."""
        self.server: Server | None = None
        self._routed: dict[str, float] = {}  # room -> when its route was last published
        self._task: asyncio.Task[None] | None = None

    # ---- rate limits shared by every process ---------------------------------------------

    def share_limits(self, server: Server) -> None:
        """Replace the server's in-memory rate limits by limits counted in Redis (the
        quick chat's too)."""
        for name in list(server.limiters):
            setting: tuple[float, int] | None = getattr(server.limits, name)
            server.limiters[name] = None if setting is None else \
                RedisRateLimiter(self.redis, name, *setting)
        server.chat = ChatLimiter(shared=RedisRateLimiter(self.redis, "chat", *CHAT_RATE))

    def is_forwarded(self, conn: WebSocket | Request) -> bool:
        """Whether a connection or a request was forwarded by another process of this
        cluster."""
        given = conn.headers.get(FORWARDED, "")
        return bool(given) and secrets.compare_digest(given, self.secret)

    async def relay_get(self, owner: str, target: str) -> tuple[int, bytes, str]:
        """GET ``target`` (a path and query) from the process at ``owner``, as this
        cluster's member (the :data:`FORWARDED` header): its status, body and content
        type. The owner's address is a process's own (``--advertise``), often reachable
        only inside the cluster, so a client is answered through the process it reached
        instead of being redirected there. 503 when the owner does not answer within
        :data:`RELAY_TIMEOUT` seconds (it died: the room's next owner is found by a
        retry once its lease has expired)."""
        request = urllib.request.Request(f"{owner}{target}", headers={FORWARDED: self.secret})

        def fetch() -> tuple[int, bytes, str]:
            try:
                with urllib.request.urlopen(request, timeout=RELAY_TIMEOUT) as reply:
                    return (reply.status, reply.read(RELAY_LIMIT),
                            reply.headers.get("content-type", "application/json"))
            except urllib.error.HTTPError as exc:  # the owner's own 4xx/5xx answer
                return exc.code, exc.read(RELAY_LIMIT), \
                    exc.headers.get("content-type", "application/json")

        try:
            return await asyncio.to_thread(fetch)
        except (OSError, ValueError, http.client.HTTPException):  # no answer, or a broken one
            body = json.dumps({"error": "the room's server did not answer; try again"})
            return 503, body.encode(), "application/json"

    # ---- leases, routes, takeover -------------------------------------------------------

    def store_room(self, code: str, config: dict[str, Any], creator: Creator | None = None,
                   entries: Sequence[dict[str, Any]] = ()) -> None:
        """Store a room created here (with the first entries of its log), owned by this
        process from the start (the room, its entries and its lease in one transaction),
        and publish its route. Once stored, nothing here raises: a caller retrying with
        another code would store the room twice (a route Redis did not take is published
        at the next upkeep, :meth:`_stale_routes`)."""
        self.storage.create_leased_room(code, config, self.owner, self.address, self.ttl,
                                        creator, entries)
        try:
            self._route(code)
        except Exception as exc:
            self._routed.pop(code, None)
            log.warning("room %s: its route was not published (%s); the next upkeep "
                        "publishes it", code, type(exc).__name__)

    def _route(self, *codes: str, census: Census | None = None) -> None:
        """Publish (or refresh) the routes of ``codes``, this process's presence and its
        hall ``census`` if given, in one round trip (a plain pipeline: no transaction is
        needed, each key stands alone)."""
        now = time.monotonic()
        pipe = self.redis.pipeline(transaction=False)
        # the cluster's secret, set again if Redis lost it (a restart: it keeps nothing),
        # and the one it holds taken: every process forwards and checks with one secret
        pipe.set(SECRET_KEY, self.secret, nx=True)
        pipe.get(SECRET_KEY)
        for code in codes:
            pipe.set(f"paohuzi:route:{code}", self.address, ex=max(1, int(self.ttl * 2)))
            self._routed[code] = now
        pipe.set(f"paohuzi:process:{self.owner}", self.address, ex=max(1, int(self.ttl * 2)))
        if census is not None:
            self.hall.publish(census, pipe)
        held = pipe.execute()[1]
        if held is not None:
            self.secret = _text(held)

    def _stale_routes(self, codes: Iterable[str]) -> list[str]:
        """Of the rooms served here, those whose route was last published a lease
        lifetime ago or more (a route lives two: each is refreshed every ``ttl``
        seconds, not every round); forgets the rooms no longer served."""
        now, served = time.monotonic(), set(codes)
        for code in set(self._routed) - served:
            del self._routed[code]
        return [code for code in served
                if now - self._routed.get(code, -self.ttl) >= self.ttl]

    def owner_address(self, code: str) -> str | None:
        """Where ``code`` is served (Redis's route, else the lease); None: nowhere now."""
        cached = self.redis.get(f"paohuzi:route:{code}")
        if cached is not None:
            return _text(cached)
        holder = self.storage.lease_holder(code)
        return None if holder is None else holder[1]

    def processes(self) -> dict[str, str]:
        """The live processes of the cluster and their addresses."""
        out = {}
        for key in self.redis.scan_iter(match="paohuzi:process:*"):
            value = self.redis.get(key)
            if value is not None:
                out[_text(key).removeprefix("paohuzi:process:")] = _text(value)
        return out

    async def start(self, server: Server) -> int:
        """Take this process's part: share the limits, adopt the orphan rooms, and keep
        the leases (a background task). The number of rooms adopted."""
        self.server = server
        server.cluster = self
        self.share_limits(server)
        server.matchmaker.share(self.redis)  # one quick-match queue for every process
        adopted = self.adopt()
        self._task = asyncio.create_task(self._keep())
        return adopted

    def adopt(self) -> int:
        """Take over every open room whose lease is free or expired: replay its log and
        resume it. The number taken."""
        server = self.server
        assert server is not None
        taken = []
        for code in self.storage.unowned_rooms():
            if code in server.runtimes:
                continue
            config = self.storage.room(code)
            if config is None or self.storage.acquire_lease(
                    code, self.owner, self.address, self.ttl) is None:
                continue
            try:
                RoomConfig.from_json(config)
            except TableError as exc:
                log.error("room %s: options refused (%s); room ended", code, exc)
                self.storage.end_room(code)
                continue
            started = time.monotonic()
            try:
                runtime = server.restore_room(code, config)
            except Exception as exc:  # a database error, say: give the lease back
                self._give_up(code, exc)
                continue
            runtime.settle_if_needed()  # a hand its dead owner left unsettled
            runtime.schedule()
            taken.append(code)
            log.info("room %s taken over (replayed in %.3f s)", code,
                     time.monotonic() - started)
        self._route(*taken)
        server.matchmaker.adopt(taken)  # its hall rooms take people from the queue again
        return len(taken)

    def _give_up(self, code: str, exc: Exception) -> None:
        """A room whose lease this process took could not be replayed: it is not served
        here, and its lease is given back (and no longer renewed, were giving it back to
        fail too), so that the next upkeep of any process tries again — a review kept a
        room leased and served by nobody after one failed replay."""
        log.error("room %s: take-over failed (%s); tried again at the next upkeep", code,
                  type(exc).__name__)
        server = self.server
        assert server is not None
        runtime = server.runtimes.pop(code, None)
        server.creators.pop(code, None)
        if runtime is not None:
            runtime.stop()
        try:
            self.storage.release_lease(code, self.owner)
        except Exception as again:
            log.error("room %s: its lease was not given back (%s); it lapses",
                      code, type(again).__name__)

    async def _keep(self) -> None:
        while True:
            await asyncio.sleep(self.renew_every)
            try:
                lost = self.storage.renew_leases(self.owner, self.ttl)
                for code in lost:
                    await self.drop(code)
                server = self.server
                assert server is not None
                self._route(*self._stale_routes(server.runtimes),
                            census=Census.of(server.runtimes.values()))
                self.adopt()
            except Exception as exc:  # pragma: no cover - the keeper must go on
                log.error("cluster: lease upkeep failed (%s: %s)", type(exc).__name__, exc)

    async def drop(self, code: str) -> None:
        """Stop serving a room whose lease was lost: its connections are closed (1012,
        service restart), so their clients reconnect and are forwarded to the new owner."""
        server = self.server
        assert server is not None
        runtime = server.runtimes.pop(code, None)
        server.creators.pop(code, None)
        if runtime is None:
            return
        log.warning("room %s: lease lost to another process; no longer served here", code)
        runtime.stop()
        # each closed apart, bounded (a client that reads nothing would hold the lease
        # keeper in its close for ever, and every lease of this process would lapse)
        for client in list(runtime.clients):
            client.close_soon(1012)

    def stop(self) -> None:
        """A clean shutdown: give every lease up, so other processes take the rooms now."""
        if self._task is not None:
            self._task.cancel()
        server = self.server
        if server is not None:
            for code in list(server.runtimes):
                with contextlib.suppress(Exception):
                    self.storage.release_lease(code, self.owner)
        with contextlib.suppress(Exception):
            self.redis.delete(f"paohuzi:process:{self.owner}")
        with contextlib.suppress(Exception):
            self.hall.withdraw()
        self.redis.close()


def _text(value: Any) -> str:
    """A Redis reply as text.

    >>> _text(b"http://a:1"), _text("x")
    ('http://a:1', 'x')
    """
    return value.decode() if isinstance(value, bytes) else str(value)


async def forward(ws: WebSocket, url: str, secret: str, address: str = "") -> None:
    """Relay an accepted connection (from ``address``) to the room's owner at ``url``
    (``ws://…``) and back, until either side closes; the owner's close code is passed on
    (1012 when the owner cannot be reached: the client reconnects, and finds the room's
    next owner).

    A client that does not take a message within ``SEND_TIMEOUT`` is cut off (1013), as
    the owner cuts off its own connections, and a close frame it does not take either
    aborts the connection: a client that reads nothing holds no relay open."""
    import websockets

    from paohuzi.server import connection

    send_timeout = connection.SEND_TIMEOUT
    cut_off = False

    try:
        upstream = await websockets.connect(
            url, max_size=2**22, open_timeout=5, close_timeout=send_timeout,
            additional_headers={FORWARDED: secret, FORWARDED_FOR: address})
    except (OSError, websockets.InvalidHandshake, TimeoutError):
        await ws.close(code=1012)
        return

    async def client_to_owner() -> None:
        while True:
            frame = await ws.receive()
            if frame["type"] == "websocket.disconnect":
                return
            data = frame.get("text")
            await upstream.send(data if data is not None else frame.get("bytes") or b"")

    async def owner_to_client() -> None:
        nonlocal cut_off
        async for data in upstream:
            try:
                async with asyncio.timeout(send_timeout):
                    if isinstance(data, str):
                        await ws.send_text(data)
                    else:
                        await ws.send_bytes(data)
            except TimeoutError:
                cut_off = True
                return

    tasks = [asyncio.create_task(client_to_owner()), asyncio.create_task(owner_to_client())]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        code = 1013 if cut_off else upstream.close_code or 1012  # 1013: try again later
        await upstream.close()
        await connection.close_or_abort(
            ws, code if 1000 <= code < 5000 and code != 1006 else 1012,
            connection.send_text_now_of(ws).get("abort"))
