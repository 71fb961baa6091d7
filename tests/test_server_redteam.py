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

async def _connect_once_freed(srv: LiveServer, code: str, token: str,
                              timeout: float = 10.0) -> Any:
    """A connection once the server has seen a closed one go and given its slot back
    (it frees the slot when its side of the socket ends, which may come after the
    client's close returned): refused until then."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return await connect(srv, code, token)
        except (AssertionError, websockets.ConnectionClosed):
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def _refused(srv: LiveServer, code: str, token: str) -> str:
    """The error a new connection gets before it is closed (1008)."""
    async with websockets.connect(f"{srv.ws_url(code)}?token={token}") as ws:
        msg = json.loads(await asyncio.wait_for(ws.recv(), 5))
        assert msg["type"] == "error", msg
        # said in the player's language too (refusals.py): the browser shows it
        assert msg["words"]["en"] == msg["message"] and msg["words"]["zh"] != msg["message"]
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(ws.recv(), 5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        return str(msg["message"])


async def _two_players_three_connections(srv: Any) -> tuple[str, str, list[Any]]:
    """A quick room of 甲 (two connections) and 乙 (one), all from 127.0.0.1: the room's
    code, 乙's token and the connections."""
    _, a = srv.player("甲")
    _, b = srv.player("乙")
    code = srv.quick(a, level="heuristic", bot_delay=0.5, timer=60)
    return code, b, [await connect(srv, code, a), await connect(srv, code, a),
                     await connect(srv, code, b)]


def test_an_address_cannot_hold_more_sockets_open_than_its_burst(tmp_path):
    """The connection rates bounded how fast sockets come, not how many stay open: one
    address reached any number of open sockets (10 more a second, with rooms and
    accounts of its own), enough to use up the server's file descriptors."""
    bounds = Limits(connections_per_address=(1000.0, 3))  # refills at once: only the cap
    with live_server(str(tmp_path / "game.db"), limits=bounds) as srv:
        async def go() -> None:
            code, b, conns = await _two_players_three_connections(srv)
            await asyncio.sleep(0.05)
            assert "open connections from your address" in await _refused(srv, code, b)
            await conns.pop().ws.close()
            conns.append(await _connect_once_freed(srv, code, b))  # a slot was given back
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
            conns.append(await _connect_once_freed(srv, first, a))
            for c in conns:
                await c.ws.close()
        asyncio.run(go())


async def _answers(conns: list[Any], count: int) -> list[dict[str, Any]]:
    """The next ``count`` answers (acks and errors to a ``seq``) the connections get."""
    got: list[dict[str, Any]] = []

    async def read(conn: Any) -> None:
        while len(got) < count:
            msg = await conn.recv()
            if msg.get("type") in ("ack", "error") and "seq" in msg:
                got.append(msg)

    tasks = [asyncio.create_task(read(c)) for c in conns]
    try:
        deadline = time.monotonic() + 10
        while len(got) < count and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return got


def test_the_frames_of_all_connections_of_an_address_share_one_budget(tmp_path):
    """Each connection may send 30 frames a second, and an address may hold 200
    connections: one address made the server answer ~6,000 frames a second (a full state
    for each ``resync``: a third of a core, ``benchmarks/flood.py``). The frames of all
    its connections now share a budget: beyond it they are refused, and beyond twice as
    much again the connection that sent one is closed; another address is not held up."""
    bounds = Limits(frames_per_address=(0.0, 6))  # never refills: counts, not timing
    with live_server(str(tmp_path / "game.db"), limits=bounds) as srv:
        async def go() -> None:
            code, b, conns = await _two_players_three_connections(srv)
            for conn in conns:  # 4 each: far below a connection's own 30 a second
                for _ in range(4):
                    await conn.send({"type": "ping"})
            got = await _answers(conns, 12)
            assert len(got) == 12, got
            refused = [m for m in got if m["type"] == "error"]
            assert len(refused) == 6, got  # the budget's 6 answered, the 6 beyond refused
            assert all(m["message"] == "too many messages: slow down" for m in refused)
            # another address's connection to the same room is answered as usual
            other = await websockets.connect(f"{srv.ws_url(code)}?token={b}",
                                             local_addr=("127.0.0.2", 0))
            seen = [json.loads(await asyncio.wait_for(other.recv(), 5))]
            await other.send(json.dumps({"type": "ping", "seq": 1}))
            while not (seen[-1].get("type") == "ack" and seen[-1].get("seq") == 1):
                seen.append(json.loads(await asyncio.wait_for(other.recv(), 5)))
                assert seen[-1].get("type") != "error", seen
            await other.close()
            # the refused frames' own budget is twice the budget: 6 more are refused, and
            # the next frame closes the connection it came on
            for _ in range(6):
                await conns[2].send({"type": "ping"})
            more = await _answers(conns[2:], 6)
            assert [m["type"] for m in more] == ["error"] * 6, more
            await conns[2].send({"type": "ping"})
            with pytest.raises(websockets.ConnectionClosed) as closed:
                while True:
                    await conns[2].recv(5)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
            for conn in conns[:2]:
                await conn.ws.close()
        asyncio.run(go())


def test_the_default_frame_budget_leaves_a_household_room_to_play():
    """A household behind one address — ten people, a few frames a second each, a
    reconnection of all their connections at once — never reaches the budget; one
    address's 200 connections at 30 frames a second each are held far below."""
    rate, burst = Limits().frames_per_address or (0.0, 0)
    assert rate >= 10 * 3 and burst >= 10 * 3 * 5  # 3 connections each, 5 frames each
    assert rate <= 200 * 30 / 20


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
        # only the server's own log keeps it (a restart keeps it too): nothing public
        assert changed is False
        assert [e["k"] for e in server.storage.load_log(t.code)[logged:]] == ["leaving"]
        assert runtime.presence() == in_play and not t.match.over
        await asyncio.wait_for(runtime.caught_up.wait(), 10)  # the end is shown now
        left = [e for e in server.storage.load_log(t.code)[logged:] if e["k"] == "leave"]
        assert [(e["seat"], e["seq"]) for e in left] == [(seat, 7)]
        assert t.match.over and not any(
            e["k"] == "escape" for e in server.storage.load_log(t.code))
        runtime.stop()
        server.pool.close()
    asyncio.run(go())


def test_a_leave_after_a_hand_answers_alike_when_the_hand_was_secretly_won(tmp_path):
    """A leave ``after`` an earlier hand, sent while a hand is shown in play: its computer
    plays the seat out (托管, public). On a hand the engine had already ended on the card
    in play it was only noted, so a crafted client learned a claim window early that
    someone had won (a review). Both answer alike now: as a leave from the hand (no
    托管) where it cannot have crossed the deal (the seat decided in this hand), with
    托管 where it can."""
    from types import SimpleNamespace

    from paohuzi.server import protocol
    from paohuzi.server.backends import open_storage
    from paohuzi.server.messages import Leave
    from paohuzi.server.server import Server

    async def go() -> None:
        server = Server(open_storage(str(tmp_path / "game.db")))
        runtime = await _hand_won_on_a_shown_card(server)
        t = runtime.table
        assert t.hand.ended and not runtime.end_shown()
        seat = next(s for s in range(3) if t.hand_seat(s) != t.hand.result.winner)
        logged = len(server.storage.load_log(t.code))
        runtime.dealt_at = time.monotonic()
        assert True in runtime.moves[t.hand_no][seat]  # it decided in this hand
        async with runtime.lock:  # a leave from the hand: waits for its end, no 托管
            changed = await protocol._leave(runtime, SimpleNamespace(seat=seat),
                                            Leave(7, t.hand_no - 1))
        kinds = [e["k"] for e in server.storage.load_log(t.code)[logged:]]
        assert changed is False and kinds == ["leaving"]
        runtime.moves[t.hand_no][seat] = {False}  # as if its computer had made them all
        async with runtime.lock:
            changed = await protocol._leave(runtime, SimpleNamespace(seat=seat),
                                            Leave(8, t.hand_no - 1))
        kinds = [e["k"] for e in server.storage.load_log(t.code)[logged:]]
        assert changed is True and kinds == ["leaving", "leaving", "tuoguan"]  # as in play
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


def _people_dealt(database: str) -> tuple[Any, list[int], Any, Any]:
    """A room of three new accounts whose first hand this process has just dealt (seed 3):
    the server, the players' ids, the table and its runtime."""
    from paohuzi.server.backends import open_storage
    from paohuzi.server.server import Server

    server = Server(open_storage(database))
    players = [server.storage.create_player(f"q{s}", beans=2000)[0].id for s in range(3)]
    table = server.create_room({"seats": ["human"] * 3, "claim_window": 0.05})
    runtime = server.runtimes[table.code]
    seat_people(runtime, players)
    runtime.commit({"k": "start", "seed": 3, "salt": "x"})  # hand 1, in progress
    return server, players, table, runtime


def test_a_leave_chosen_between_hands_never_becomes_an_escape(tmp_path):
    """The settlement window's 返回大厅 sends ``leave`` between hands; if the next hand was
    dealt just before it arrived (the countdown ran out), it was an escape with its
    penalty. Sent ``after`` the hand whose end the seat saw, it leaves when the hand now
    dealt ends (played out by its computer, in 托管 at once rather than after its
    timeouts). Without ``after`` it is still an escape."""
    from types import SimpleNamespace

    from paohuzi.server import protocol
    from paohuzi.server.messages import Leave, parse_message

    assert parse_message('{"type": "leave", "seq": 3, "after": 1}') == Leave(3, 1)
    assert parse_message('{"type": "leave", "seq": 3, "after": -1}').kind == "leave"

    async def go() -> None:
        server, _, table, runtime = _people_dealt(str(tmp_path / "game.db"))
        async with runtime.lock:
            logged = len(server.storage.load_log(table.code))
            changed = await protocol._leave(runtime, SimpleNamespace(seat=1), Leave(5, 0))
        entries = server.storage.load_log(table.code)[logged:]
        assert changed is True and [e["k"] for e in entries] == ["leaving", "tuoguan"]
        assert 1 in runtime.table.leaving and not table.hand.ended
        assert table.seats[1].tuoguan and not runtime.paused()
        async with runtime.lock:  # the same without "after": an escape
            await protocol._leave(runtime, SimpleNamespace(seat=2), Leave(6))
        assert server.storage.load_log(table.code)[logged + 2]["k"] == "escape"
        runtime.stop()
        server.pool.close()
    asyncio.run(go())


def test_a_forged_after_does_not_walk_away_from_a_hand_in_play(tmp_path):
    """A red team sent ``leave`` with ``after`` in the middle of a hand it disliked: taken
    for a leave that crossed the deal, its computer played the hand out and the seat
    left with no escape penalty (−12 where the escape cost −30). ``after`` is believed
    only as a leave sent before the deal reached the seat can be: naming the hand just
    before, soon after the deal, before any decision of the seat's own in it. Any other
    is the escape, as a leave without it."""
    from types import SimpleNamespace

    from paohuzi.server import protocol
    from paohuzi.server.messages import Leave

    forged = ["after a decision of his own", "not the hand just before", "long after the deal"]

    async def go(case: str) -> list[dict[str, Any]]:
        server, players, table, runtime = _people_dealt(str(tmp_path / f"{forged.index(case)}.db"))
        async with runtime.lock:
            hand = table.hand
            assert hand is not None and runtime.dealt_at  # (dealt just now)
            dealer = table.match_seat(hand.pending_seats()[0])
            runtime.act(dealer, hand.legal_actions(hand.pending_seats()[0])[0],
                        player=players[dealer])  # the dealer's own first discard
            logged = len(server.storage.load_log(table.code))
            seat, after = (dealer, 0) if case == forged[0] else ((dealer + 1) % 3, 0)
            if case == forged[1]:
                after = -1
            if case == forged[2]:
                runtime.dealt_at -= protocol.LEAVE_CROSSING_SECONDS + 1
            await protocol._leave(runtime, SimpleNamespace(seat=seat), Leave(7, after))
        entries = server.storage.load_log(table.code)[logged:]
        runtime.stop()
        server.pool.close()
        server.storage.close()
        return entries

    for case in forged:
        entries = asyncio.run(go(case))
        assert [e["k"] for e in entries][:1] == ["escape"], (case, entries)
        assert not any(e["k"] in ("leaving", "tuoguan") for e in entries), case


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


# ---- rooms made and never joined: the server-wide cap (a red team) -----------------------
# ~157 IPv6 addresses (4 accounts x 8 empty rooms each) filled the 5,000 rooms of a process
# in ~70 s: rooms nobody ever connected to lived a day, and newcomers got 503 on
# /api/rooms/quick and /api/match. Now such a room ends after ``unjoined_room_minutes``,
# the cap per address counts an IPv6 /48, and a full process ends rooms nobody joined
# (never one with a connection or a hand in progress) to make space.

TWO_SEATS = {"seats": ["human", "human", "normal"], "timer": 60}


def age(runtime: Any, seconds: float) -> None:
    """Make a room ``seconds`` older: made, and last active, that much earlier."""
    runtime.last_active -= seconds
    runtime.made_at = getattr(runtime, "made_at", time.time()) - seconds


@pytest.mark.parametrize("minutes", [None, 1 / 60])
def test_a_room_nobody_ever_connects_to_ends_after_unjoined_room_minutes(tmp_path, minutes):
    """The browser's flow (create, then connect) keeps its room (the idle rule); a room
    made and never connected to ends after ``unjoined_room_minutes`` (5 by default: the
    rooms are made 10 minutes older), not after a day."""
    from server_util import until

    async def go(srv: LiveServer) -> None:
        _, token = srv.player("房主")
        empty = srv.room(token, **TWO_SEATS)
        used = srv.room(token, **TWO_SEATS)
        conn = await connect(srv, used, token)  # at once, as the browser does
        await conn.ws.close()
        await asyncio.sleep(0.2)  # its disconnection is seen
        if minutes is None:
            for code in (empty, used):
                age(srv.server.runtimes[code], 600.0)
        await asyncio.to_thread(until, lambda: empty not in srv.server.runtimes, 5.0)
        await asyncio.sleep(0.5)  # a few sweeps more
        assert empty not in srv.server.runtimes
        assert used in srv.server.runtimes
        assert empty not in {code for code, _ in srv.server.storage.rooms()}  # ended
    bounds = Limits(sweep_seconds=0.1) if minutes is None else \
        Limits(unjoined_room_minutes=minutes, sweep_seconds=0.1)
    with live_server(str(tmp_path / "g.db"), bounds) as srv:
        asyncio.run(go(srv))


def test_a_restored_room_nobody_came_to_gets_the_unjoined_minutes_again(tmp_path):
    """Who connected before a restart is not stored: a restored room with no hand dealt
    and no other person's seat is given ``unjoined_room_minutes`` from the restart (its
    people reconnect at once); one another person sits in keeps the idle rule."""
    from paohuzi.server.economy import STARTING_BEANS
    from paohuzi.server.roombounds import Creator
    from paohuzi.server.server import Server
    from paohuzi.server.storage import SQLiteStorage

    database = str(tmp_path / "g.db")

    async def make() -> tuple[str, str]:
        server = Server(SQLiteStorage(database), Limits(), computer_processes=False)
        owner, _ = server.storage.create_player("房主", beans=STARTING_BEANS)
        guest, _ = server.storage.create_player("来客", beans=STARTING_BEANS)
        creator = Creator(owner.id, "k")
        lonely = await server.open_room(TWO_SEATS, creator)
        visited = await server.open_room(TWO_SEATS, creator, [
            {"k": "sit", "seat": 1, "player": guest.id, "nickname": guest.nickname}])
        stop(server)
        return lonely.code, visited.code

    async def restart(lonely: str, visited: str) -> None:
        server = Server(SQLiteStorage(database), Limits(), computer_processes=False)
        assert server.restore() == 2
        for runtime in server.runtimes.values():
            age(runtime, 240.0)  # 4 minutes after the restart: within the 5
        assert await server.expire_idle_rooms() == []
        for runtime in server.runtimes.values():
            age(runtime, 120.0)  # 6 minutes: the room nobody came to ends
        assert await server.expire_idle_rooms() == [lonely]
        assert list(server.runtimes) == [visited]
        stop(server)

    asyncio.run(restart(*asyncio.run(make())))


def stop(server: Any) -> None:
    for runtime in server.runtimes.values():
        runtime.stop()
    server.pool.close()
    server.storage.close()


def test_rotating_ipv6_addresses_inside_a_48_keeps_one_cap_of_rooms(tmp_path):
    """Addresses were counted by /64: a /48 holds 65,536 of them, and one person rotating
    through it had a new cap of rooms per address each time. The cap on rooms per
    address now counts a /48 (other limits keep the /64)."""
    from paohuzi.server.app import create_app

    bounds = Limits(max_open_rooms_per_player=100, max_open_rooms_per_address=3)
    app = create_app(database=str(tmp_path / "g.db"), limits=bounds,
                     computer_processes=False)
    server = app.state.server

    async def post(host: str, path: str, body: dict[str, Any],
                   token: str | None = None) -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=(host, 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.post(path, json=body, headers=auth(token) if token else {})

    async def go() -> None:
        codes = []
        for i, name in enumerate("甲乙丙丁戊己庚辛"):  # eight /64s of 2001:db8:7::/48
            host = f"2001:db8:7:{i + 1:x}::{i + 1:x}"
            token = (await post(host, "/api/players", {"nickname": name})).json()["token"]
            reply = await post(host, "/api/rooms", TWO_SEATS, token)
            assert reply.status_code == 200, reply.text
            codes.append(reply.json()["code"])
        # the oldest ones, nobody connected to, were ended: three live, as for one address
        assert [code in server.runtimes for code in codes] == [False] * 5 + [True] * 3
        token = (await post("2001:db8:8::1", "/api/players", {"nickname": "壬"})).json()["token"]
        reply = await post("2001:db8:8::1", "/api/rooms", TWO_SEATS, token)
        assert reply.status_code == 200, reply.text  # another /48: its own cap
        assert all(code in server.runtimes for code in codes[5:])
        stop(server)

    asyncio.run(go())


def test_a_full_server_ends_a_room_nobody_joined_to_seat_a_newcomer(tmp_path):
    """The quick game and the quick match of a newcomer still get a table in a process
    full of rooms nobody joined: the oldest of them end to make space."""
    from server_util import until

    from paohuzi.server.matchmaking import MatchSettings

    match = MatchSettings(wait=0.0, tick=0.1, computer="random")
    with live_server(str(tmp_path / "g.db"), Limits(max_rooms=3), match=match) as srv:
        _, squatter = srv.player("占座")
        squatted = [srv.room(squatter, **TWO_SEATS) for _ in range(3)]
        _, newcomer = srv.player("新人")
        reply = httpx.post(f"{srv.base}/api/rooms/quick", json={}, headers=auth(newcomer))
        assert reply.status_code == 200, reply.text
        assert reply.json()["code"] in srv.server.runtimes
        # the oldest never-joined room made the space
        assert [code in srv.server.runtimes for code in squatted] == [False, True, True]
        _, matcher = srv.player("配桌")
        reply = httpx.post(f"{srv.base}/api/match", json={"changci": "xinshou"},
                           headers=auth(matcher))
        assert reply.status_code == 200, reply.text
        seated = until(lambda: httpx.get(f"{srv.base}/api/match", headers=auth(matcher))
                       .json().get("code"), 10.0)
        assert seated in srv.server.runtimes
        assert [code in srv.server.runtimes for code in squatted] == [False, False, True]
        assert len(srv.server.runtimes) == 3


def test_a_full_server_of_live_rooms_still_answers_503(tmp_path):
    """A room with someone connected, or another person's seat in a match not over, is
    never ended to make space: the newcomer gets 503 as before."""
    async def go(srv: LiveServer) -> None:
        _, owner = srv.player("房主")
        _, guest = srv.player("来客")
        watched = srv.room(owner, **TWO_SEATS)
        conn = await connect(srv, watched, owner)  # connected, and stays so
        shared = srv.room(owner, **TWO_SEATS)
        other = await connect(srv, shared, guest)  # another person's seat, then gone
        await other.send({"type": "sit", "seat": 1})
        await other.until(lambda m: m.get("type") == "ack")
        await other.ws.close()
        await asyncio.sleep(0.2)  # the disconnection is seen
        _, newcomer = srv.player("新人")
        for path in ("/api/rooms/quick", "/api/match"):
            reply = httpx.post(f"{srv.base}{path}", json={"changci": "xinshou"},
                               headers=auth(newcomer))
            assert reply.status_code == 503, reply.text
            assert "the server is full (2 rooms open)" in reply.json()["error"]
        assert set(srv.server.runtimes) == {watched, shared}
        await conn.ws.close()
    with live_server(str(tmp_path / "g.db"), Limits(max_rooms=2)) as srv:
        asyncio.run(go(srv))


def test_a_hand_in_progress_is_never_ended_to_make_space(tmp_path):
    """A room whose hand is dealt and not over (nobody connected, never connected since a
    restart) neither expires as unjoined nor ends for a full process."""
    from paohuzi.server.economy import STARTING_BEANS
    from paohuzi.server.roombounds import Creator, ServerFull
    from paohuzi.server.server import Server
    from paohuzi.server.storage import SQLiteStorage

    async def go() -> None:
        server = Server(SQLiteStorage(":memory:"), Limits(max_rooms=1),
                        computer_processes=False)
        owner, _ = server.storage.create_player("房主", beans=STARTING_BEANS)
        table = await server.open_room({"seats": ["human", "normal", "normal"]},
                                       Creator(owner.id, "k"))
        runtime = server.runtimes[table.code]
        async with runtime.lock:
            seat_people(runtime, [owner.id])
            runtime.commit({"k": "start", "seed": 1, "salt": "x"})
        age(runtime, 3600.0)  # an hour, nobody ever connected
        assert await server.expire_idle_rooms() == []
        with pytest.raises(ServerFull):
            await server.open_room(TWO_SEATS, Creator(owner.id + 1, "other"))
        assert list(server.runtimes) == [table.code]
        stop(server)

    asyncio.run(go())


def test_a_room_its_player_just_left_is_not_ended_to_make_space(tmp_path):
    """A full process ends the rooms people came to only once idle for
    ``unjoined_room_minutes``: a phone that slept a minute between hands is reconnecting,
    and its room was the first to go once the never-joined ones were gone."""
    from paohuzi.server.economy import STARTING_BEANS
    from paohuzi.server.roombounds import Creator, ServerFull
    from paohuzi.server.server import Server
    from paohuzi.server.storage import SQLiteStorage

    async def go() -> None:
        server = Server(SQLiteStorage(":memory:"), Limits(max_rooms=1),
                        computer_processes=False)
        owner, _ = server.storage.create_player("房主", beans=STARTING_BEANS)
        table = await server.open_room(TWO_SEATS, Creator(owner.id, "k"))
        runtime = server.runtimes[table.code]
        runtime.connected_ever = True  # he came, and his phone slept a minute ago
        age(runtime, 60.0)
        with pytest.raises(ServerFull):
            await server.open_room(TWO_SEATS, Creator(owner.id + 1, "other"))
        age(runtime, 300.0)  # six minutes: he is not coming back soon
        made = await server.open_room(TWO_SEATS, Creator(owner.id + 1, "other"))
        assert list(server.runtimes) == [made.code]
        stop(server)

    asyncio.run(go())


def test_a_room_that_expires_with_its_hand_in_progress_settles_it_as_an_escape(tmp_path):
    """Idle expiry ends a room as a cap does (``Runtime.abandon``): a hand dealt and left
    for a day is settled as its player's escape, his penalty paid, one game recorded."""
    from paohuzi.server.economy import STARTING_BEANS
    from paohuzi.server.roombounds import Creator
    from paohuzi.server.server import Server
    from paohuzi.server.storage import SQLiteStorage

    async def go() -> None:
        server = Server(SQLiteStorage(":memory:"), Limits(), computer_processes=False)
        owner, _ = server.storage.create_player("房主", beans=STARTING_BEANS)
        table = await server.open_room({"seats": ["human", "normal", "normal"]},
                                       Creator(owner.id, "k"))
        runtime = server.runtimes[table.code]
        async with runtime.lock:
            seat_people(runtime, [owner.id])
            runtime.commit({"k": "start", "seed": 1, "salt": "x"})
        assert runtime.playing_hand()
        age(runtime, 25 * 3600.0)  # a day and an hour, nobody connected
        assert await server.expire_idle_rooms() == [table.code]
        games = server.storage.games_in_room(table.code)
        assert [g["result"]["reason"] for g in games] == ["escape"]
        leaver = games[0]["result"]["leaver"]
        assert games[0]["match_seats"][leaver] == 0 and games[0]["result"]["points"][leaver] < 0
        me = server.storage.player(owner.id)
        assert me is not None and me.points < 0 and me.hands == 1
        stop(server)

    asyncio.run(go())


def test_room_lookups_from_the_64s_of_one_48_share_one_rate(tmp_path):
    """A red team swept room codes over ``GET /api/rooms/{code}`` from the /64s of one
    /48, each /64 with a connection-rate bucket of its own (12,800 lookups, none refused,
    in 36 s). Lookups and new WebSocket connections now count an IPv6 address's /48, as
    the cap on rooms and the frame budget do; another /48 has its own bucket."""
    from paohuzi.server.app import create_app

    bounds = Limits(connections_per_address=(0.0, 4))
    app = create_app(database=str(tmp_path / "g.db"), limits=bounds,
                     computer_processes=False)
    server = app.state.server

    async def get(host: str, path: str) -> int:
        transport = httpx.ASGITransport(app=app, client=(host, 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return (await client.get(path)).status_code

    async def go() -> None:
        hosts = [f"2001:db8:9:{i + 1:x}::1" for i in range(8)]  # eight /64s of one /48
        codes = [await get(host, f"/api/rooms/{100000 + i}") for i, host in enumerate(hosts)]
        assert codes == [404] * 4 + [429] * 4
        assert await get("2001:db8:a:1::1", "/api/rooms/100000") == 404  # another /48
        assert await get("192.0.2.9", "/api/rooms/100000") == 404  # an IPv4 address
        stop(server)

    asyncio.run(go())
