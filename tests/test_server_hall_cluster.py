"""The hall's figures across processes (docs/scaling.md, "The hall's figures"): with
Redis, a table playing on process A is counted by process B and the other way round,
each room and person once; a process killed with ``kill -9`` leaves the figures within
its census's lifetime."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx
import pytest
from cluster_util import Process, owner_port
from server_util import auth

from paohuzi.server.cluster import LEASE_TTL, RENEW_EVERY

pytest.importorskip("psycopg")
pytest.importorskip("redis")
websockets = pytest.importorskip("websockets")

GONE_BOUND = LEASE_TTL + RENEW_EVERY + 1.5
"""Seconds from a process's death to its figures gone from the hall, at most: its
census lives a lease lifetime after its last publication (at most at the kill), a
hall reads the others at most every half upkeep round, and a margin for a loaded
machine."""


def new_player(proc: Process, nickname: str) -> str:
    reply = httpx.post(f"{proc.base}/api/players", json={"nickname": nickname})
    assert reply.status_code == 200, reply.text
    return str(reply.json()["token"])


def new_room(proc: Process, token: str) -> str:
    """A 新手场 room of three people, its creator seated (no hand starts: it waits for
    the two others)."""
    reply = httpx.post(f"{proc.base}/api/rooms", json={
        "seats": ["human"] * 3, "changci": "xinshou", "timer": 60, "sit": True},
        headers=auth(token))
    assert reply.status_code == 200, reply.text
    return str(reply.json()["code"])


async def xinshou(http: httpx.AsyncClient, proc: Process) -> tuple[int, int]:
    """(online, tables) of the 新手场 as ``proc``'s hall shows them."""
    reply = await http.get(f"{proc.base}/api/hall")
    assert reply.status_code == 200, reply.text
    row: dict[str, Any] = next(c for c in reply.json()["changci"] if c["key"] == "xinshou")
    return int(row["online"]), int(row["tables"])


async def until_shown(http: httpx.AsyncClient, proc: Process, wanted: tuple[int, int],
                      timeout: float) -> float:
    """Seconds until ``proc``'s hall shows ``wanted``; fails past ``timeout``."""
    started = time.monotonic()
    while True:
        got = await xinshou(http, proc)
        if got == wanted:
            return time.monotonic() - started
        assert time.monotonic() - started < timeout, (proc.base, got, wanted)
        await asyncio.sleep(0.05)


def test_tables_on_one_process_are_counted_by_the_other_and_a_dead_ones_leave(
        postgres_url: str, redis_url: str) -> None:
    a, b = Process(postgres_url, redis_url), Process(postgres_url, redis_url)
    try:
        one, two, watcher = (new_player(a, "甲"), new_player(b, "乙"), new_player(b, "丙"))
        on_a, on_b = new_room(a, one), new_room(b, two)
        assert owner_port(postgres_url, on_a) == a.port
        assert owner_port(postgres_url, on_b) == b.port
        for code in (on_a, on_b):  # a room and its rules, from either process
            for proc in (a, b):
                got = httpx.get(f"{proc.base}/api/rooms/{code}/rules")  # no redirect
                assert got.status_code == 200 and got.json()["options"], (code, got.text)

        async def scenario() -> None:
            async with httpx.AsyncClient(timeout=5) as http:
                assert await xinshou(http, a) == (0, 0) == await xinshou(http, b)
                # 甲 at his table on A; 乙 at his on B, connected through A (forwarded:
                # counted by B, the owner, once); 丙 only watches 甲's table, through B
                at_a = await websockets.connect(f"{a.ws(on_a)}?token={one}")
                at_b = await websockets.connect(f"{a.ws(on_b)}?token={two}")
                watching = await websockets.connect(f"{b.ws(on_a)}?token={watcher}")
                try:
                    for ws in (at_a, at_b, watching):
                        assert '"welcome"' in await asyncio.wait_for(ws.recv(), 10)
                    for proc in (a, b):  # a table of A counted by B, and the other way
                        await until_shown(http, proc, (2, 2), timeout=5 * RENEW_EVERY)
                    await at_b.close()  # 乙 leaves: his table is no longer playing
                    for proc in (a, b):
                        await until_shown(http, proc, (1, 1), timeout=5 * RENEW_EVERY)
                    at_b = await websockets.connect(f"{b.ws(on_b)}?token={two}")
                    assert '"welcome"' in await asyncio.wait_for(at_b.recv(), 10)
                    await until_shown(http, b, (2, 2), timeout=5 * RENEW_EVERY)
                    # A dies: its census outlives it a while, then expires
                    a.kill9()
                    killed = time.monotonic()
                    assert await xinshou(http, b) == (2, 2)
                    gone = await until_shown(http, b, (1, 1), timeout=GONE_BOUND)
                    assert time.monotonic() - killed <= GONE_BOUND, gone
                    await asyncio.sleep(2 * RENEW_EVERY)  # and it stays gone
                    assert await xinshou(http, b) == (1, 1)
                finally:
                    for ws in (at_a, at_b, watching):
                        await ws.close()

        asyncio.run(scenario())
    finally:
        a.stop()
        b.stop()
