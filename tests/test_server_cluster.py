"""Three server processes on one PostgreSQL and one Redis (docs/scaling.md): a room
created through one process is joined through the two others (forwarded to its owner),
played to settlement; then its owner is killed (-9) mid-hand, another process takes
the room over within a bounded time, and the hand finishes exactly as its log replays."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest
from cluster_util import Process, owner_port

from paohuzi.server.client import BotClient
from paohuzi.server.cluster import LEASE_TTL, RENEW_EVERY
from paohuzi.server.table import RoomConfig, Table

pytest.importorskip("psycopg")
pytest.importorskip("redis")

FAILOVER_BOUND = LEASE_TTL + 2 * RENEW_EVERY + 3.0
"""Seconds from the owner's death to its room served again, at most (the lease's
lifetime and two upkeep rounds, and a margin for a loaded test machine)."""


def replayed(database: str, room: str) -> tuple[Table, list[dict[str, Any]]]:
    """The room's table rebuilt from its log alone, and the records stored for it."""
    import psycopg

    with psycopg.connect(database) as conn:
        config = conn.execute("SELECT config FROM rooms WHERE code = %s", (room,)).fetchone()
        entries = conn.execute("SELECT entry FROM table_log WHERE room = %s ORDER BY seq",
                               (room,)).fetchall()
        records = conn.execute("SELECT record FROM games WHERE room = %s ORDER BY hand_no",
                               (room,)).fetchall()
    table = Table(room, RoomConfig.from_json(json.loads(config[0])))
    for (raw,) in entries:
        table.apply(json.loads(raw))
    return table, [json.loads(r) for (r,) in records]


def finished(bot: BotClient, hand_no: int) -> bool:
    """Whether the bot has been shown the end of hand ``hand_no`` (or a later hand)."""
    state = bot.last_state or {}
    shown = state.get("table", {}).get("hand_no", 0)
    ended = (state.get("view") or {}).get("result") is not None
    return bool(shown > hand_no or (shown == hand_no and ended))


def test_three_processes_one_room_and_a_failover(postgres_url: str, redis_url: str) -> None:
    procs = [Process(postgres_url, redis_url) for _ in range(3)]
    a, b, c = procs
    try:
        tokens = [httpx.post(f"{p.base}/api/players", json={"nickname": f"p{i}"}).json()["token"]
                  for i, p in enumerate(procs)]
        me = httpx.get(f"{c.base}/api/me", headers={"authorization": f"Bearer {tokens[0]}"})
        assert me.status_code == 200  # accounts are the same from every process
        room = httpx.post(f"{a.base}/api/rooms", json={
            "seats": ["human"] * 3, "timer": 60, "next_delay": 0.2, "bot_delay": 0,
            "claim_window": 0.05}, headers={"authorization": f"Bearer {tokens[0]}"}
        ).json()["code"]
        assert owner_port(postgres_url, room) == a.port
        info = httpx.get(f"{b.base}/api/rooms/{room}")  # relayed by B, not redirected
        assert info.status_code == 200 and info.json()["code"] == room
        assert str(a.port) not in info.text and "location" not in info.headers
        gone = httpx.get(f"{b.base}/api/rooms/000000")
        assert gone.status_code == 404 and "room not found" in gone.json()["error"]
        # 1. joined through A, B and C (B and C forward to A), played to settlement
        bots = [BotClient(p.ws(room), tokens[s], seat=s, seed=s, think=0.02,
                          keep_messages=False) for s, p in enumerate(procs)]
        bots[0].fallback_urls = (b.ws(room),)  # A's player knows another address

        async def first_hand() -> None:
            await asyncio.gather(*(bot.play(1, timeout=90) for bot in bots))

        asyncio.run(first_hand())
        assert all(finished(bot, 1) for bot in bots)
        table, records = replayed(postgres_url, room)
        assert len(records) >= 1 and records[0]["hand_no"] == 1
        assert not any(bot.errors for bot in bots), [bot.errors for bot in bots]
        assert [bot.reconnects for bot in bots] == [0, 0, 0]

        # 2. kill -9 the owner mid-hand; another process takes the room over, and the
        # bots reconnect by themselves (A's player to B, the others to B and C again)
        async def second_hand() -> tuple[float, float]:
            task = asyncio.gather(*(bot.play(2, timeout=120) for bot in bots))
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                state = bots[1].last_state or {}
                if state.get("table", {}).get("hand_no") == 2 and \
                        state.get("events_from", 0) + len(state.get("events", [])) > 3 \
                        and (state.get("view") or {}).get("result") is None:
                    break
                await asyncio.sleep(0.02)
            else:
                raise AssertionError("the second hand did not start")
            a.kill9()
            killed = time.monotonic()
            async with httpx.AsyncClient(follow_redirects=True) as http:
                while True:
                    with_owner = False
                    for p in (b, c):
                        try:
                            got = await http.get(f"{p.base}/api/debug/rooms/{room}/hash",
                                                 timeout=1)
                            with_owner = with_owner or got.status_code == 200
                        except httpx.HTTPError:
                            pass
                    if with_owner:
                        break
                    assert time.monotonic() - killed < 60, "nobody took the room over"
                    await asyncio.sleep(0.05)
            failover = time.monotonic() - killed
            while not all(bot.reconnects for bot in bots):  # every bot is back at the table
                assert time.monotonic() - killed < 60, [bot.reconnects for bot in bots]
                await asyncio.sleep(0.02)
            resumed = time.monotonic() - killed
            await task
            return failover, resumed

        failover, resumed = asyncio.run(second_hand())
        print(f"takeover after kill -9: {failover:.2f} s; every client back: {resumed:.2f} s")
        assert failover < FAILOVER_BOUND, f"takeover took {failover:.1f} s"
        assert resumed < FAILOVER_BOUND + 3.2, f"clients back after {resumed:.1f} s"
        assert owner_port(postgres_url, room) in (b.port, c.port)
        assert all(finished(bot, 2) for bot in bots)
        assert [bot.reconnects for bot in bots] == [1, 1, 1], [b.reconnects for b in bots]
        assert not any(bot.errors for bot in bots), [bot.errors for bot in bots]

        # 3. the hand finished exactly as its log replays, and no acknowledged act is lost
        table, records = replayed(postgres_url, room)
        assert [r["hand_no"] for r in records][:2] == [1, 2]
        logged = {(e["seat"], e["seq"]) for e in _acts(postgres_url, room)}
        acked = {(s, q) for s, bot in enumerate(bots) for q, _ in bot.acked}
        assert acked <= logged
        replay = Table(room, table.config)
        for entry in _entries(postgres_url, room):
            replay.apply(entry)
            if entry == {"k": "settled", "hand": 2}:
                break
        # the record the new owner stored is the one the log alone gives
        assert records[1]["actions"] == _without_totals(records[1])["actions"]
        assert replay.last_summary is not None and replay.last_hand is not None
        rebuilt = replay.finished_record()
        stored = _without_totals(records[1])
        assert rebuilt == stored
        owner = b if owner_port(postgres_url, room) == b.port else c
        live = httpx.get(f"{owner.base}/api/debug/rooms/{room}/hash").json()["hash"]
        table, _ = replayed(postgres_url, room)
        assert live == table.state_hash()
    finally:
        for p in procs:
            p.stop()


def _entries(database: str, room: str) -> list[dict[str, Any]]:
    import psycopg

    with psycopg.connect(database) as conn:
        rows = conn.execute("SELECT entry FROM table_log WHERE room = %s ORDER BY seq",
                            (room,)).fetchall()
    return [json.loads(r) for (r,) in rows]


def _acts(database: str, room: str) -> list[dict[str, Any]]:
    return [e for e in _entries(database, room)
            if e["k"] == "act" and e.get("player") is not None]


def _without_totals(record: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k != "totals"}


def test_rate_limits_are_shared_through_redis(redis_url: str) -> None:
    import redis

    from paohuzi.server.cluster import RedisRateLimiter

    one, two = redis.Redis.from_url(redis_url), redis.Redis.from_url(redis_url)
    first = RedisRateLimiter(one, "rooms_per_address", rate=0.0, burst=3)
    second = RedisRateLimiter(two, "rooms_per_address", rate=0.0, burst=3)
    answers = [first.allow("1.2.3.4"), second.allow("1.2.3.4"), first.allow("1.2.3.4"),
               second.allow("1.2.3.4")]
    assert answers == [True, True, True, False]  # one bucket for both processes
    assert second.allow("5.6.7.8")  # another key, its own bucket
    one.close()
    two.close()


def test_quick_chat_is_limited_across_processes(redis_url: str) -> None:
    """Two processes' chat limiters as a cluster sets them (``share_limits``): one
    player's quick phrases count against one bucket, whichever process relays them."""
    from types import SimpleNamespace

    import redis

    from paohuzi.server.cluster import Cluster
    from paohuzi.server.quickchat import CHAT_RATE, ChatRefused

    # what share_limits reads and replaces of a server
    servers = [SimpleNamespace(limiters={}, limits=None, chat=None) for _ in range(2)]
    clients = [redis.Redis.from_url(redis_url) for _ in servers]
    for server, client in zip(servers, clients, strict=True):
        cluster = Cluster.__new__(Cluster)  # only its Redis client is needed here
        cluster.redis = client
        cluster.share_limits(server)  # type: ignore[arg-type]
    burst = CHAT_RATE[1]
    for i in range(burst):
        servers[i % 2].chat.check(7)  # type: ignore[attr-defined]
    with pytest.raises(ChatRefused):
        servers[burst % 2].chat.check(7)  # type: ignore[attr-defined]
    servers[1].chat.check(8)  # type: ignore[attr-defined]  # another player
    for client in clients:
        client.close()


def test_a_failed_take_over_is_tried_again_once_the_database_answers(
        postgres_url: str, redis_url: str) -> None:
    """A review: a process took a dead process's room's lease, its replay failed (a
    transient database error: here reading the log refused for a few seconds), and the
    lease stayed with it, renewed every second — no process served the room again
    (404, "unknown room") for as long as that process lived. Now a failed take-over
    gives the lease back (and only leases of rooms served are renewed): the next upkeep
    takes the room over once the database answers."""
    import psycopg

    admin = postgres_url.rsplit("/", 1)[0] + "/postgres"
    role = f"app{int(time.time() * 1000) % 10_000_000}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN")
        conn.execute(f"CREATE DATABASE {role} OWNER {role}")
    host = postgres_url.split("@", 1)[1].rsplit("/", 1)[0]
    app_url, super_url = f"postgresql://{role}@{host}/{role}", \
        f"postgresql://postgres@{host}/{role}"
    a, b = Process(app_url, redis_url), Process(app_url, redis_url)
    try:
        token = httpx.post(f"{a.base}/api/players", json={"nickname": "甲"}).json()["token"]
        room = httpx.post(f"{a.base}/api/rooms", json={"seats": ["human"] * 3, "sit": True},
                          headers={"authorization": f"Bearer {token}"}).json()["code"]
        assert owner_port(app_url, room) == a.port
        a.kill9()
        with psycopg.connect(super_url, autocommit=True) as conn:
            conn.execute(f"REVOKE SELECT ON table_log FROM {role}")  # a transient failure
            time.sleep(LEASE_TTL + 3 * RENEW_EVERY)  # B's upkeep takes it and fails
            conn.execute(f"GRANT SELECT ON table_log TO {role}")
        deadline = time.monotonic() + LEASE_TTL + 10 * RENEW_EVERY
        info = httpx.get(f"{b.base}/api/rooms/{room}")
        while info.status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.2)
            info = httpx.get(f"{b.base}/api/rooms/{room}")
        assert info.status_code == 200, info.text
        assert info.json()["seats"][0]["nickname"] == "甲"
    finally:
        a.stop()
        b.stop()


def test_a_code_typed_with_wide_digits_or_a_space_is_relayed_to_its_owner(
        postgres_url: str, redis_url: str) -> None:
    """A review: the owner answers ``/api/rooms/{code}`` typed with full-width digits or
    a space (the code is normalised), but another process relayed the path as typed and
    answered 503 (urllib sends neither)."""
    from urllib.parse import quote

    a, b = Process(postgres_url, redis_url), Process(postgres_url, redis_url)
    try:
        token = httpx.post(f"{a.base}/api/players", json={"nickname": "甲"}).json()["token"]
        room = httpx.post(f"{a.base}/api/rooms", json={"seats": ["human"] * 3},
                          headers={"authorization": f"Bearer {token}"}).json()["code"]
        assert owner_port(postgres_url, room) == a.port
        wide = "".join(chr(ord(c) - ord("0") + ord("０")) for c in room)
        for typed in (room, wide, f"{room[:3]} {room[3:]}"):
            for proc in (a, b):
                reply = httpx.get(f"{proc.base}/api/rooms/{quote(typed)}")
                assert reply.status_code == 200, (typed, proc.port, reply.text)
                assert reply.json()["code"] == room
    finally:
        a.stop()
        b.stop()
