"""Red team of the cluster (several processes on one PostgreSQL and one Redis,
docs/scaling.md): what the single-process red team (test_server_redteam*.py) could not
cover — a stale room owner, the connection forwarded to a room's owner by another
process, the limits of several processes. Each test fails on the hole it found, or on
the defence it checks if that defence is taken out.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

pytest.importorskip("psycopg")
pytest.importorskip("redis")
pytest.importorskip("starlette")

from paohuzi.server.limits import Limits
from paohuzi.server.pgstorage import LeaseLostError, PostgresStorage
from paohuzi.server.roombounds import Creator
from paohuzi.server.server import Server

TWO_SEATS: dict[str, Any] = {"seats": ["human", "human", "normal"], "timer": 60}


# ---- fencing: a stale owner never writes ---------------------------------------------

def test_a_stale_owner_cannot_end_a_room_another_process_serves(postgres_url: str) -> None:
    """Ending a room is a room write like an append: fenced. It was not: an owner whose
    lease had been taken over (a stall, a partition) marked the room ended and deleted
    the new owner's lease row, so the new owner dropped it at its next upkeep, no process
    ever took it over again, and the game in play was lost."""
    a = PostgresStorage(postgres_url, shared=True)
    b = PostgresStorage(postgres_url, shared=True)
    try:
        assert a.create_leased_room("r", {}, "A", "http://a", ttl=30) == 1
        a.acquire_lease("r", "A", "http://a", ttl=-1)  # A stalls past its lease
        assert b.acquire_lease("r", "B", "http://b", ttl=30) == 3
        assert b.append_log("r", {"k": "by B"}) == 1
        with pytest.raises(LeaseLostError):
            a.end_room("r")  # A, stale, ends "its" room (idle expiry, a room cap)
        assert b.room("r") == {}  # still open
        assert b.lease_holder("r") == ("B", "http://b")
        assert b.renew_leases("B", 30) == set()  # B keeps serving it
        assert a.renew_leases("A", 30) == {"r"}  # A is told it lost the room
        b.end_room("r")  # the owner may end it
        assert b.room("r") is None and b.lease_holder("r") is None
    finally:
        a.close()
        b.close()


def test_a_stale_owner_making_room_under_a_cap_ends_nothing_it_lost(postgres_url: str,
                                                                   redis_url: str) -> None:
    """The same through the server: an account at its cap of open rooms creates one more
    on a process whose lease of its oldest room was taken over meanwhile (the process has
    not seen it yet). The process used to end that room — which another process serves —
    for the new one; now it lets the room go (it is not its own any more) and the new
    room is made."""
    from paohuzi.server.cluster import Cluster

    storage = PostgresStorage(postgres_url, shared=True)
    other = PostgresStorage(postgres_url, shared=True)
    cluster = Cluster(storage, redis_url, "http://127.0.0.1:1")
    server = Server(storage, Limits(max_open_rooms_per_player=1))
    server.cluster = cluster
    creator = Creator(1, "address")

    async def go() -> tuple[str, str]:
        first = (await server.open_room(dict(TWO_SEATS), creator)).code
        # the process stalls past the lease: another process takes the room over
        storage.acquire_lease(first, cluster.owner, cluster.address, ttl=-1)
        assert other.acquire_lease(first, "B", "http://b", ttl=30) is not None
        second = (await server.open_room(dict(TWO_SEATS), creator)).code
        for runtime in server.runtimes.values():
            runtime.stop()
        return first, second

    try:
        first, second = asyncio.run(go())
        assert other.room(first) is not None, "the room another process serves was ended"
        assert other.lease_holder(first) == ("B", "http://b")
        assert other.renew_leases("B", 30) == set()
        assert first not in server.runtimes and second in server.runtimes
    finally:
        cluster.redis.close()
        server.pool.close()
        storage.close()
        other.close()


# ---- the forwarded connection ----------------------------------------------------------

def _player_and_room(proc: Any) -> tuple[str, str]:
    """A new player's token and a room he created through ``proc`` (owned by it)."""
    import httpx

    token = httpx.post(f"{proc.base}/api/players", json={"nickname": "甲"}).json()["token"]
    reply = httpx.post(f"{proc.base}/api/rooms", json=TWO_SEATS,
                       headers={"authorization": f"Bearer {token}"})
    assert reply.status_code == 200, reply.text
    return token, str(reply.json()["code"])


async def _first_message(url: str) -> tuple[dict[str, Any], int | None]:
    """The first message a new connection to ``url`` gets, and its close code if the
    server closes it right after (None: still open)."""
    import json

    import websockets

    async with websockets.connect(url) as ws:
        first = json.loads(await ws.recv())
        try:
            await asyncio.wait_for(ws.recv(), 0.3)
        except websockets.ConnectionClosed:
            return first, ws.close_code
        except TimeoutError:
            pass
        return first, None


def _drop_buckets(redis_url: str) -> None:
    """Every shared rate-limit bucket full again."""
    import redis

    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(match="paohuzi:limit:*"):
        client.delete(key)
    client.close()


def test_processes_agree_on_the_forwarding_secret_after_redis_loses_it(
        postgres_url: str, redis_url: str) -> None:
    """Redis keeps nothing that must survive a restart (deploy/compose.yaml runs it
    without persistence), but the cluster's secret — what tells an owner that a
    connection was forwarded by another process, and counted there — was written once
    (``SET NX``) and read once, at start. A process started after Redis lost it minted
    a new one; the older processes kept theirs, so every connection forwarded between
    them was counted twice, the second time against the forwarding process's own
    address: a few hundred players forwarded to one owner and every further one was
    refused ("too many connections from your address"). Now every upkeep round sets
    the secret again if it is missing and takes the one Redis holds."""
    import redis
    from cluster_util import Process

    from paohuzi.server.cluster import RENEW_EVERY

    limits = {"connections_per_address": [0.001, 4]}  # four connections, no refill
    a = Process(postgres_url, redis_url, limits=limits)
    c = None
    try:
        token, room = _player_and_room(a)
        client = redis.Redis.from_url(redis_url)
        client.flushall()  # Redis restarts: it held nothing durable
        c = Process(postgres_url, redis_url, limits=limits)  # a process (re)started now
        client.flushall()  # and once more, as any restart may come
        client.close()
        time.sleep(3 * RENEW_EVERY)  # upkeep rounds of both
        _drop_buckets(redis_url)
        for i in range(3):  # through C to A's room: each counted once, by C
            first, closed = asyncio.run(_first_message(f"{c.ws(room)}?token={token}"))
            assert first["type"] == "welcome" and closed is None, (i, first)
    finally:
        a.stop()
        if c is not None:
            c.stop()


def test_the_owner_checks_who_a_forwarded_connection_is(postgres_url: str,
                                                        redis_url: str) -> None:
    """What held: the forwarding process checks nothing but its own per-address limit;
    the owner checks the token (a bad one is refused by the owner, its close code passed
    on), and trusts a connection as forwarded only with the cluster's secret — a client
    that sends the header itself is counted against its address as any other."""
    import json

    import websockets
    from cluster_util import Process

    limits = {"connections_per_address": [0.001, 4]}
    a = Process(postgres_url, redis_url, limits=limits)
    b = Process(postgres_url, redis_url, limits=limits)
    try:
        token, room = _player_and_room(a)
        _drop_buckets(redis_url)
        first, closed = asyncio.run(_first_message(f"{b.ws(room)}?token=not-a-token"))
        assert first == {"type": "error", "message": "unknown token"} and closed == 4001
        first, closed = asyncio.run(_first_message(f"{b.ws(room)}?token={token}"))
        assert first["type"] == "welcome" and first["room"] == room and closed is None

        async def forged() -> list[str]:
            kinds = []
            for _ in range(5):
                async with websockets.connect(
                        f"{a.ws(room)}?token={token}",
                        additional_headers={"x-paohuzi-forwarded": "a-guess"}) as ws:
                    kinds.append(json.loads(await ws.recv())["type"])
            return kinds

        _drop_buckets(redis_url)
        assert asyncio.run(forged()) == ["welcome"] * 4 + ["error"]
    finally:
        a.stop()
        b.stop()


# ---- the relay to a room's owner -----------------------------------------------------

def test_a_relayed_client_that_reads_nothing_is_cut_off(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """The connection another process relays to a room's owner (cluster.forward) awaited
    each send to its client without a bound: a client that read nothing held the relay,
    and its connection to the owner, open for as long as it kept its socket. Now a
    message not taken within SEND_TIMEOUT cuts it off (1013), and a close frame not taken
    either aborts the connection, as the owner does with its own connections."""
    import websockets

    from paohuzi.server import cluster, connection
    from paohuzi.server.transport import SEND_TEXT_NOW

    monkeypatch.setattr(connection, "SEND_TIMEOUT", 0.2)

    class ReadsNothing:
        """A client socket whose peer takes nothing: not a message, not the close."""

        def __init__(self) -> None:
            self.aborted = False
            self.closes: list[int] = []
            self.scope = {"extensions": {SEND_TEXT_NOW: {"abort": self.abort}}}

        def abort(self) -> None:
            self.aborted = True

        async def receive(self) -> dict[str, Any]:
            await asyncio.Event().wait()  # nothing from the client
            raise AssertionError("unreachable")

        async def send_text(self, text: str) -> None:
            await asyncio.Event().wait()

        async def send_bytes(self, data: bytes) -> None:
            await asyncio.Event().wait()

        async def close(self, code: int = 1000) -> None:
            self.closes.append(code)
            await asyncio.Event().wait()

    async def owner(conn: Any) -> None:  # the room's owner: state messages, on and on
        while True:
            await conn.send('{"type":"state"}')
            await asyncio.sleep(0.01)

    async def main() -> ReadsNothing:
        client = ReadsNothing()
        async with websockets.serve(owner, "127.0.0.1", 0) as served:
            port = served.sockets[0].getsockname()[1]
            await asyncio.wait_for(
                cluster.forward(client, f"ws://127.0.0.1:{port}/ws/r", "s"),  # type: ignore[arg-type]
                timeout=5)
        return client

    import threading

    done: list[ReadsNothing] = []
    started = time.monotonic()  # in a thread of its own: before, the relay never ended
    relay = threading.Thread(target=lambda: done.append(asyncio.run(main())), daemon=True)
    relay.start()
    relay.join(timeout=10)
    assert done, "the relay to a client that reads nothing never ended"
    assert done[0].closes == [1013] and done[0].aborted
    assert time.monotonic() - started < 3


def test_a_route_redis_did_not_take_stores_the_room_once(postgres_url: str,
                                                        redis_url: str) -> None:
    """A review: a room stored (with its lease) and then a Redis error publishing its
    route made the server draw another code and store the same room — the same people
    seated — a second time. Once stored, nothing raises: the route is published at the
    next upkeep."""
    from paohuzi.server.cluster import Cluster

    storage = PostgresStorage(postgres_url, shared=True)
    cluster = Cluster(storage, redis_url, "http://127.0.0.1:1")
    server = Server(storage, Limits())
    server.cluster = cluster
    real_route = cluster._route
    failed: list[str] = []

    def route_fails_once(*codes: str, **kwargs: Any) -> None:
        if codes and not failed:
            failed.extend(codes)
            raise ConnectionError("redis went away")
        real_route(*codes, **kwargs)

    cluster._route = route_fails_once  # type: ignore[method-assign]
    codes: list[str] = []

    async def go() -> str:
        code = (await server.open_room(dict(TWO_SEATS), Creator(1, "address"), (),
                                       codes.append)).code
        for runtime in server.runtimes.values():
            runtime.stop()
        return code

    try:
        code = asyncio.run(go())
        assert failed == [code] and codes == [code]  # one code drawn, one room stored
        assert [c for c, _ in storage.rooms()] == [code]
        assert cluster._stale_routes(server.runtimes) == [code]  # published next upkeep
    finally:
        cluster.redis.close()
        server.pool.close()
        storage.close()
