"""Red team of the online game (round 4, R4): live rooms are bounded. An account could
create a room every 2 s and an address two a second, each kept in memory for a day
(until idle expiry): memory grew without bound. Now an account keeps 8 open rooms, an
address 32, a process 5,000 (docs/protocol.md, "Limits"; roombounds.py). Also: a player
who sits through one connection sits through his other ones too.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from server_util import LiveServer, auth, live_server, seat_people, until
from test_server_protocol import connect

pytest.importorskip("starlette")

from paohuzi.server.economy import STARTING_BEANS
from paohuzi.server.limits import Limits
from paohuzi.server.roombounds import Creator, ServerFull
from paohuzi.server.server import Server
from paohuzi.server.storage import SQLiteStorage

TWO_SEATS = {"seats": ["human", "human", "normal"], "timer": 60}


def post_room(srv: LiveServer, token: str, path: str = "/api/rooms",
              **options: Any) -> httpx.Response:
    return httpx.post(f"{srv.base}{path}", json={**TWO_SEATS, **options}, headers=auth(token))


async def room_joined_by(srv: LiveServer, owner: str, guest: str) -> str:
    """A room ``owner`` creates in which ``guest`` takes a seat, then disconnects."""
    code = srv.room(owner, **TWO_SEATS)
    conn = await connect(srv, code, guest)
    await conn.send({"type": "sit", "seat": 0})
    await conn.until(lambda m: m.get("type") == "ack")
    await conn.ws.close()
    return code


def live(srv: LiveServer, code: str) -> bool:
    return httpx.get(f"{srv.base}/api/rooms/{code}").status_code == 200


def test_an_account_keeps_its_cap_of_open_rooms_the_oldest_idle_one_ends(tmp_path):
    with live_server(str(tmp_path / "g.db"), Limits(max_open_rooms_per_player=2)) as srv:
        _, token = srv.player("房主")
        codes = [srv.room(token, **TWO_SEATS) for _ in range(4)]
        assert [live(srv, c) for c in codes] == [False, False, True, True]
        # ended as idle expiry ends a room: no longer served, marked ended in storage
        assert not ({codes[0], codes[1]} & {c for c, _ in srv.server.storage.rooms()})


def test_open_rooms_with_someone_connected_are_never_ended_the_new_one_is_refused(tmp_path):
    async def go(srv: LiveServer) -> None:
        _, token = srv.player("房主")
        codes = [srv.room(token, **TWO_SEATS) for _ in range(2)]
        conns = [await connect(srv, code, token) for code in codes]
        reply = post_room(srv, token)
        assert reply.status_code == 429, reply.text
        assert reply.json()["error"].startswith("too many open rooms: your account has 2 ")
        assert all(live(srv, c) for c in codes)
        await conns[0].ws.close()
        # its disconnection is seen (the server's side may end after the close returned)
        assert await asyncio.to_thread(until, lambda: not srv.server.runtimes[codes[0]].clients, 10)
        assert post_room(srv, token).status_code == 200
        assert not live(srv, codes[0]) and live(srv, codes[1])
        await conns[1].ws.close()
    with live_server(str(tmp_path / "g.db"), Limits(max_open_rooms_per_player=2)) as srv:
        asyncio.run(go(srv))


def test_a_room_another_person_joined_no_longer_counts_for_its_creator(tmp_path):
    async def go(srv: LiveServer) -> None:
        _, token = srv.player("房主")
        _, guest = srv.player("来客")
        joined = await room_joined_by(srv, token, guest)
        others = [srv.room(token, **TWO_SEATS) for _ in range(3)]
        assert live(srv, joined)
        assert [live(srv, c) for c in others] == [False, True, True]
    with live_server(str(tmp_path / "g.db"), Limits(max_open_rooms_per_player=2)) as srv:
        asyncio.run(go(srv))


def test_an_address_keeps_its_cap_across_accounts_and_joined_rooms(tmp_path):
    """Accounts are free to make: rooms created from one address are bounded whatever
    account made them, and one account of that address joining another's room does not
    lift the bound."""
    async def go(srv: LiveServer) -> None:
        _, first = srv.player("甲")
        _, second = srv.player("乙")
        joined = await room_joined_by(srv, first, second)
        codes = [srv.room(token, **TWO_SEATS) for token in (first, second, first, second)]
        assert sum(live(srv, c) for c in [joined, *codes]) == 3
        assert live(srv, codes[-1]) and live(srv, codes[-2])
        assert live(srv, joined)  # a match with another person is never ended for a cap
    bounds = Limits(max_open_rooms_per_player=100, max_open_rooms_per_address=3)
    with live_server(str(tmp_path / "g.db"), bounds) as srv:
        asyncio.run(go(srv))


def test_joined_rooms_are_refused_a_new_room_rather_than_ended(tmp_path):
    """When only rooms with another person's seat (matches not over) fill an address's
    cap, a new room is refused (429): nobody's match is ended, even with nobody
    connected (they may be reconnecting)."""
    async def go(srv: LiveServer) -> None:
        _, first = srv.player("甲")
        _, second = srv.player("乙")
        joined = [await room_joined_by(srv, first, second) for _ in range(2)]
        await asyncio.sleep(0.2)  # the disconnections are seen
        reply = post_room(srv, second)
        assert reply.status_code == 429, reply.text
        assert "too many open rooms" in reply.json()["error"]
        assert all(live(srv, c) for c in joined)
    bounds = Limits(max_open_rooms_per_player=100, max_open_rooms_per_address=2)
    with live_server(str(tmp_path / "g.db"), bounds) as srv:
        asyncio.run(go(srv))


def test_the_process_serves_at_most_max_rooms_then_503(tmp_path):
    """Beyond ``max_rooms``, with someone connected to every room (none can end to make
    space: test_server_redteam.py), new rooms and the quick match get 503."""
    async def go(srv: LiveServer) -> None:
        _, token = srv.player("甲")
        _, other = srv.player("乙")
        conns = [await connect(srv, srv.room(who, **TWO_SEATS), who) for who in (token, other)]
        for path in ("/api/rooms", "/api/rooms/quick"):
            body = TWO_SEATS if path == "/api/rooms" else {}
            reply = httpx.post(f"{srv.base}{path}", json=body, headers=auth(token))
            assert reply.status_code == 503, reply.text
            assert "the server is full (2 rooms open)" in reply.json()["error"]
        reply = httpx.post(f"{srv.base}/api/match", json={}, headers=auth(other))
        assert reply.status_code == 503, reply.text
        assert len(srv.server.runtimes) == 2
        for conn in conns:
            await conn.ws.close()
    with live_server(str(tmp_path / "g.db"), Limits(max_rooms=2)) as srv:
        asyncio.run(go(srv))


def test_a_full_process_keeps_quick_match_people_queued_without_a_crash():
    async def go() -> None:
        server = Server(SQLiteStorage(":memory:"), Limits(max_rooms=1))
        rec, _ = server.storage.create_player("甲", beans=STARTING_BEANS)
        guest, _ = server.storage.create_player("乙", beans=STARTING_BEANS)
        table = server.create_room(TWO_SEATS)
        runtime = server.runtimes[table.code]
        async with runtime.lock:  # a person's seat: not a room to end to make space
            seat_people(runtime, [guest.id])
        server.matchmaker.join(rec, "10.0.0.1", "xinshou", "qq", now=0.0)
        with pytest.raises(ServerFull):
            server.create_room(TWO_SEATS)
        assert await server.matchmaker.tick(now=10**9) == 0  # nobody seated, no error
        assert server.matchmaker.status(rec.id)["status"] == "waiting"
        assert len(server.runtimes) == 1
        for runtime in server.runtimes.values():
            runtime.stop()
        server.pool.close()
    asyncio.run(go())


def test_rooms_restored_after_a_restart_count_toward_their_creators_cap(tmp_path):
    database = str(tmp_path / "g.db")
    bounds = Limits(max_open_rooms_per_player=2)
    with live_server(database, bounds) as srv:
        _, token = srv.player("房主")
        before = [srv.room(token, **TWO_SEATS) for _ in range(2)]
    with live_server(database, bounds) as srv:
        assert all(live(srv, c) for c in before)
        assert srv.server.creators[before[0]] == srv.server.creators[before[1]]
        srv.room(token, **TWO_SEATS)
        assert [live(srv, c) for c in before] == [False, True]


def test_hall_rooms_have_no_creator(tmp_path):
    async def go() -> None:
        server = Server(SQLiteStorage(":memory:"), Limits(max_open_rooms_per_player=1))
        table = server.create_room(TWO_SEATS)
        assert server.storage.room_creator(table.code) is None
        mine = await server.open_room(TWO_SEATS, Creator(7, "ab"))
        assert server.storage.room_creator(mine.code) == Creator(7, "ab")
        assert list(server.creators) == [mine.code]
        for runtime in server.runtimes.values():
            runtime.stop()
        server.pool.close()
    asyncio.run(go())


def test_sitting_through_one_connection_seats_the_players_other_connections(tmp_path):
    async def go(srv: LiveServer) -> None:
        _, owner = srv.player("房主")
        _, token = srv.player("来客")
        _, watcher = srv.player("看客")
        code = srv.room(owner, **TWO_SEATS)
        first = await connect(srv, code, token)
        second = await connect(srv, code, token)
        third = await connect(srv, code, watcher)
        await first.send({"type": "sit", "seat": 1})
        await first.until(lambda m: m.get("type") == "ack")
        welcome = await second.until(lambda m: m.get("type") == "welcome")
        assert welcome["seat"] == 1 and welcome["last_seq"] == 1
        state = await second.until(lambda m: m.get("type") == "state" and m["you"] == 1)
        assert state["you"] == 1
        second.seq = welcome["last_seq"]
        seq = await second.send({"type": "chat", "id": "hello"})
        reply = await second.until(lambda m: m.get("seq") == seq)
        assert reply == {"type": "ack", "seq": seq}, reply
        # the other person's connection is told nothing of it but the seat taken
        await asyncio.sleep(0.3)
        while True:
            try:
                msg = await third.recv(timeout=0.2)
            except TimeoutError:
                break
            assert msg.get("type") != "welcome" and msg.get("you") is None, msg
        for conn in (first, second, third):
            await conn.ws.close()
    with live_server(str(tmp_path / "g.db")) as srv:
        asyncio.run(go(srv))
