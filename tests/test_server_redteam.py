"""Red team of the online game (round 4, R1): each test replays an attack a hostile
player could make against a live server and fails on the hole it found (docs/protocol.md).

What existing tests already prove is not repeated here (test_server_limits.py: bodies,
nicknames, stakes, rates; test_server_fuzz.py: hidden cards in state messages;
test_server_timing.py: claim windows; test_server_protocol.py: seq, errors, spectators).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest
import websockets
from server_util import LiveServer, auth, live_server, play_out, seat_people
from test_server_protocol import connect

pytest.importorskip("starlette")

from paohuzi.server.limits import Limits
from paohuzi.server.messages import MAX_SEQ


@pytest.fixture
def srv(tmp_path):
    with live_server(str(tmp_path / "game.db")) as server:
        yield server


# ---- HTTP: every parameter a player chooses -----------------------------------------

@pytest.mark.parametrize("limit", ["²", "①", "𝟗", "٣", "9" * 4301, "1" + "0" * 5000,
                                   "0" * 4301, "0" * 4300 + "5"])
def test_a_leaderboard_limit_in_other_digits_is_a_clear_400(srv, limit):
    # str.isdigit() holds for superscripts and circled digits that int() cannot read
    # (it was a 500); digits of other scripts are refused too: the limit is ASCII; and
    # so were more than 4300 digits, which int() refuses to read
    reply = httpx.get(f"{srv.base}/api/leaderboard", params={"limit": limit})
    assert reply.status_code == 400, reply.text
    assert "limit must be a whole number" in reply.json()["error"]


def test_a_leaderboard_limit_with_leading_zeros_is_read(srv):
    reply = httpx.get(f"{srv.base}/api/leaderboard", params={"limit": "0005"})
    assert reply.status_code == 200, reply.text


# ---- WebSocket: sequence numbers ----------------------------------------------------

def test_taking_a_seat_cannot_use_up_its_sequence_numbers(srv):
    """A spectator's ``sit`` carried a seq the seat had not bounded yet (the 2^20 step is
    checked for seated connections only): a seq of 2^53 - 1 was recorded as the seat's
    last, and no message of that seat could ever be applied again."""
    async def go() -> None:
        _, owner = srv.player("房主")
        _, token = srv.player("来客")
        code = srv.room(owner, seats=["human", "human", "normal"], sit=True, timer=60)
        conn = await connect(srv, code, token)
        await conn.send({"type": "sit", "seat": 1}, seq=MAX_SEQ)
        reply = await conn.until(lambda m: m.get("seq") == MAX_SEQ)
        assert reply["type"] == "error" and "at most" in reply["message"], reply
        runtime = srv.server.runtimes[code]
        assert runtime.table.seats[1].player is None  # nothing recorded
        seq = await conn.send({"type": "sit", "seat": 1}, seq=1)
        assert await conn.until(lambda m: m.get("seq") == seq) == {"type": "ack", "seq": 1}
        seq = await conn.send({"type": "ping"}, seq=2)
        assert await conn.until(lambda m: m.get("seq") == seq) == {"type": "ack", "seq": 2}
        await conn.ws.close()
    asyncio.run(go())


# ---- resource abuse: sockets held open --------------------------------------------------

async def _refused(srv: LiveServer, code: str, token: str) -> str:
    """The error a new connection gets before it is closed (1008)."""
    async with websockets.connect(f"{srv.ws_url(code)}?token={token}") as ws:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert msg["type"] == "error", msg
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        return str(msg["message"])


def test_an_address_cannot_hold_more_sockets_open_than_its_burst(tmp_path):
    """The connection rates bounded how fast sockets come, not how many stay open: one
    address reached any number of open sockets (10 more a second, with rooms and
    accounts of its own), enough to use up the server's file descriptors."""
    bounds = Limits(connections_per_address=(1000.0, 3))  # refills at once: only the cap
    with live_server(str(tmp_path / "game.db"), limits=bounds) as srv:
        async def go() -> None:
            _, a = srv.player("甲")
            _, b = srv.player("乙")
            code = srv.quick(a, level="heuristic", bot_delay=0.5, timer=60)
            conns = [await connect(srv, code, a), await connect(srv, code, a),
                     await connect(srv, code, b)]
            await asyncio.sleep(0.05)
            assert "open connections from your address" in await _refused(srv, code, b)
            await conns.pop().ws.close()
            await asyncio.sleep(0.2)  # the server sees the close
            conns.append(await connect(srv, code, b))  # a slot was given back
            for c in conns:
                await c.ws.close()
        asyncio.run(go())


def test_an_account_cannot_hold_more_sockets_open_than_its_burst(tmp_path):
    bounds = Limits(connections_per_account=(1000.0, 2))
    with live_server(str(tmp_path / "game.db"), limits=bounds) as srv:
        async def go() -> None:
            _, a = srv.player("甲")
            first = srv.quick(a, level="heuristic", bot_delay=0.5, timer=60)
            second = srv.quick(a, level="heuristic", bot_delay=0.5, timer=60)
            conns = [await connect(srv, first, a), await connect(srv, second, a)]
            assert "open connections by your account" in await _refused(srv, first, a)
            await conns.pop().ws.close()
            await asyncio.sleep(0.2)
            conns.append(await connect(srv, first, a))
            for c in conns:
                await c.ws.close()
        asyncio.run(go())


# ---- information: the engine is a claim window ahead of what the seats are shown -------

async def _hand_won_on_a_shown_card(server: Any) -> Any:
    """A room whose hand the engine has ended (won on a shown card) while the card is
    still in its claim window for the seats: its runtime (seeded deals; deterministic)."""
    players = [server.storage.create_player(f"p{s}", beans=2000)[0].id for s in range(3)]
    for seed in range(200):
        table = server.create_room({"seats": ["human"] * 3, "claim_window": 0.3})
        runtime = server.runtimes[table.code]
        async with runtime.lock:
            seat_people(runtime, players)
            runtime.commit({"k": "start", "seed": seed, "salt": "x"})  # a fixed deal
            play_out(runtime, players)
            hand = table.hand
        if runtime.delivery.pending and hand.result.winner is not None:
            # the seats have been shown every frame but the last (the hand's end): as
            # the room's delivery does, a claim window at a time
            delivery = runtime.delivery
            while len(delivery.queue) > 1:
                delivery.release(time.monotonic())
            assert delivery.current.claim_point  # the card in play, its fate not shown
            return runtime
        runtime.stop()
    raise AssertionError("no seed ends its hand on a shown card")


def test_a_next_vote_does_not_tell_that_the_hand_is_over_before_it_is_shown(tmp_path):
    """``next`` was counted as soon as the engine's hand was over, and the ``presence``
    message (sent at once) showed the seat ready: a seat that pressed "next" on every
    shown card learned that another seat had won on it a claim window before the table
    showed it (who had a 胡 option must stay secret while the card is in play)."""
    from paohuzi.server.backends import open_storage
    from paohuzi.server.server import Server

    async def go() -> None:
        server = Server(open_storage(str(tmp_path / "game.db")))
        runtime = await _hand_won_on_a_shown_card(server)
        in_play = runtime.presence()
        runtime.vote_next(0)
        assert runtime.next_votes == set()
        assert runtime.presence() == in_play
        assert all(seat["ready"] is False for seat in in_play["seats"])
        await asyncio.wait_for(runtime.caught_up.wait(), 10)  # the end is shown now
        runtime.vote_next(0)
        assert runtime.next_votes == {0}
        assert [seat["ready"] for seat in runtime.presence()["seats"]] == [True, False, False]
        runtime.stop()
        server.pool.close()
    asyncio.run(go())


def test_a_leave_does_not_tell_that_the_hand_is_over_before_it_is_shown(tmp_path):
    """``leave`` branched on the engine's hand: on a hand secretly won on the card in play
    it was logged at once as a leave between hands (no escape penalty), and the
    ``presence`` message it sends at once told the table that someone had won a claim
    window before it was shown. It now waits for the end to be shown, then leaves."""
    from types import SimpleNamespace

    from paohuzi.server import protocol
    from paohuzi.server.backends import open_storage
    from paohuzi.server.messages import Leave
    from paohuzi.server.server import Server

    async def go() -> None:
        server = Server(open_storage(str(tmp_path / "game.db")))
        runtime = await _hand_won_on_a_shown_card(server)
        t = runtime.table
        seat = next(s for s in range(3) if t.hand_seat(s) != t.hand.result.winner)
        logged = len(server.storage.load_log(t.code))
        in_play = runtime.presence()
        async with runtime.lock:
            changed = await protocol._leave(runtime, SimpleNamespace(seat=seat), Leave(7))
        assert changed is False and len(server.storage.load_log(t.code)) == logged
        assert runtime.presence() == in_play and not t.match.over
        await asyncio.wait_for(runtime.caught_up.wait(), 10)  # the end is shown now
        left = [e for e in server.storage.load_log(t.code)[logged:] if e["k"] == "leave"]
        assert [(e["seat"], e["seq"]) for e in left] == [(seat, 7)]
        assert t.match.over and not any(
            e["k"] == "escape" for e in server.storage.load_log(t.code))
        runtime.stop()
        server.pool.close()
    asyncio.run(go())


def test_a_next_vote_takes_a_seat_out_of_tuoguan(tmp_path):
    """A table whose people are all in 托管 pauses; a person who pressed 下一局 there was
    counted ready but stayed in 托管, so the next hand never came (found on a phone: a
    room with no reconnection grace, its only person idle for a while, then back)."""
    from types import SimpleNamespace

    from paohuzi.server import protocol
    from paohuzi.server.backends import open_storage
    from paohuzi.server.messages import Next
    from paohuzi.server.server import Server

    async def go() -> None:
        server = Server(open_storage(str(tmp_path / "game.db")))
        runtime = await _hand_won_on_a_shown_card(server)
        await asyncio.wait_for(runtime.caught_up.wait(), 10)  # the end is shown
        async with runtime.lock:
            for seat in range(3):
                runtime.commit({"k": "tuoguan", "seat": seat, "on": True})
        assert runtime.paused()
        assert runtime.table.view_for(0)["table"]["paused"] is True  # shown to the seats
        async with runtime.lock:
            changed = await protocol._next(runtime, SimpleNamespace(seat=0), Next(9))
        assert changed and not runtime.table.seats[0].tuoguan and not runtime.paused()
        assert runtime.table.view_for(0)["table"]["paused"] is False
        assert runtime.next_votes == {0}
        assert runtime.server.storage.load_log(runtime.table.code)[-1] == \
            {"k": "tuoguan", "seat": 0, "on": False, "seq": 9}
        runtime.stop()
        server.pool.close()
    asyncio.run(go())


@pytest.mark.parametrize("level", ["human", "Normal", ""])
def test_a_quick_room_is_against_computers_only(srv, level):
    """``level: "human"`` made a "quick room against computers" of free human seats."""
    _, token = srv.player()
    reply = httpx.post(f"{srv.base}/api/rooms/quick", json={"level": level},
                       headers=auth(token))
    assert reply.status_code == 400, reply.text
    assert "level must be a computer player" in reply.json()["error"]
    assert srv.server.runtimes == {}


def test_a_new_player_with_an_unknown_field_is_refused(srv):
    """``{"nick": ...}`` (a typo) made a player named 玩家, as the other routes refuse."""
    reply = httpx.post(f"{srv.base}/api/players", json={"nick": "阿明"})
    assert reply.status_code == 400, reply.text
    assert "unknown field(s): nick; known: nickname" in reply.json()["error"]
    assert srv.server.storage._db.execute("SELECT COUNT(*) FROM players").fetchone()[0] == 0


def test_room_codes_cannot_be_guessed_faster_over_http(tmp_path):
    """Six-digit codes are bounded against guessing by the connection rate per address
    (docs/protocol.md, "Room codes"), but ``GET /api/rooms/{code}`` (and ``/rules``)
    answered 404 / 200 without any limit: an address could sweep all 900 000 codes in
    minutes, then watch or join every room. A lookup now costs what a connection does."""
    bounds = Limits(connections_per_address=(0.0, 4))
    with live_server(str(tmp_path / "game.db"), limits=bounds) as srv:
        _, token = srv.player()
        code = srv.quick(token, level="heuristic", bot_delay=0.5, timer=60)
        guesses = [f"{srv.base}/api/rooms/{100000 + n}" for n in range(3)]
        assert [httpx.get(url).status_code for url in guesses] == [404, 404, 404]
        assert httpx.get(f"{srv.base}/api/rooms/{code}/rules").status_code == 200
        for path in (f"/api/rooms/{code}", f"/api/rooms/{code}/rules", "/api/rooms/123456"):
            reply = httpx.get(f"{srv.base}{path}")
            assert reply.status_code == 429, reply.text
            assert "room lookups from your address" in reply.json()["error"]


def test_a_leave_chosen_between_hands_never_becomes_an_escape(tmp_path):
    """The settlement window's 返回大厅 sends ``leave`` between hands; if the next hand was
    dealt just before it arrived (the countdown ran out), it was an escape with its
    penalty. Sent ``after`` the hand whose end the seat saw, it leaves when the hand now
    dealt ends (played out by its computer). Without ``after`` it is still an escape."""
    from types import SimpleNamespace

    from paohuzi.server import protocol
    from paohuzi.server.backends import open_storage
    from paohuzi.server.messages import Leave, parse_message
    from paohuzi.server.server import Server

    assert parse_message('{"type": "leave", "seq": 3, "after": 1}') == Leave(3, 1)
    assert parse_message('{"type": "leave", "seq": 3, "after": -1}').kind == "leave"

    async def go() -> None:
        server = Server(open_storage(str(tmp_path / "game.db")))
        players = [server.storage.create_player(f"q{s}", beans=2000)[0].id for s in range(3)]
        table = server.create_room({"seats": ["human"] * 3, "claim_window": 0.05})
        runtime = server.runtimes[table.code]
        async with runtime.lock:
            seat_people(runtime, players)
            runtime.commit({"k": "start", "seed": 3, "salt": "x"})  # hand 1, in progress
            logged = len(server.storage.load_log(table.code))
            changed = await protocol._leave(runtime, SimpleNamespace(seat=1), Leave(5, 0))
        assert changed is False and len(server.storage.load_log(table.code)) == logged
        assert 1 in runtime.leaves_waiting and not table.hand.ended
        async with runtime.lock:  # the same without "after": an escape
            await protocol._leave(runtime, SimpleNamespace(seat=2), Leave(6))
        assert server.storage.load_log(table.code)[logged]["k"] == "escape"
        runtime.stop()
        server.pool.close()
    asyncio.run(go())


def test_a_room_ended_with_its_hand_in_progress_settles_it_as_an_escape(tmp_path):
    """A red team dropped its bad hands for free: it looked at a deal in a standard quick
    room, walked away, and opened rooms until its open-room cap ended that one. The hand
    was never settled (no points, beans or game), where a leave cost the escape penalty.
    A room ended with a hand in progress settles it as its creator's escape (§7.4)."""
    from paohuzi.server.economy import STARTING_BEANS

    with live_server(str(tmp_path / "game.db"), Limits(max_open_rooms_per_player=1)) as srv:
        _, token = srv.player("abandoner")
        code = srv.quick(token, level="normal", timer=60, claim_window=1.0)

        async def look_and_walk_away() -> None:
            conn = await connect(srv, code, token)
            await conn.until(lambda m: m.get("type") == "state" and m.get("view")
                             and m["view"].get("hand"), timeout=30)
            await conn.ws.close()

        asyncio.run(look_and_walk_away())
        deadline = time.monotonic() + 10
        while srv.server.runtimes[code].clients and time.monotonic() < deadline:
            time.sleep(0.05)
        srv.quick(token, level="normal", timer=60, claim_window=1.0)  # the cap ends the first room
        assert code not in srv.server.runtimes
        games = srv.games(token)
        assert [g["reason"] for g in games] == ["escape"]
        me = httpx.get(f"{srv.base}/api/me", headers=auth(token)).json()["player"]
        assert me["points"] < 0 and me["beans"] < STARTING_BEANS and me["hands"] == 1
