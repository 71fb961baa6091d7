"""Red team of the cluster (several processes on one PostgreSQL and one Redis,
docs/scaling.md): what the single-process red team (test_server_redteam*.py) could not
cover — a stale room owner, the connection forwarded to a room's owner by another
process, the limits of several processes. Each test fails on the hole it found, or on
the defence it checks if that defence is taken out.
"""

from __future__ import annotations

import asyncio
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
