"""Issue 10 (B): bounds, limits, bad input, privacy of tables, replay steps off the loop.

Each test replays an attack of the issue against a live server (docs/protocol.md,
"Limits" and "Privacy").
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import random
import socket
import threading
import time
from typing import Any

import httpx
import pytest
import websockets
from server_util import LiveServer, auth, live_server, until
from test_server_protocol import Conn, connect

pytest.importorskip("starlette")

from paohuzi.server.economy import STARTING_BEANS
from paohuzi.server.matchmaking import MatchSettings


def limits(**changes: Any) -> Any:
    from paohuzi.server.limits import Limits

    return Limits(**changes)


@pytest.fixture
def srv(tmp_path):
    with live_server(str(tmp_path / "game.db")) as server:
        yield server


def post_raw(srv: LiveServer, path: str, body: bytes, token: str | None = None) -> httpx.Response:
    headers = {"content-type": "application/json", **(auth(token) if token else {})}
    return httpx.post(f"{srv.base}{path}", content=body, headers=headers)


def player_count(srv: LiveServer) -> int:
    db = srv.server.storage._db
    return int(db.execute("SELECT COUNT(*) FROM players").fetchone()[0])


# ---- finding 8: bad input gets a 4xx with a clear message, and nothing is stored ----

BAD_BODIES = [
    (b'{"nickname": "\\ud800"}', "surrogate"),
    (b'{"nickname": "\xff\xfe"}', "UTF-8"),
    (b"[" * 3000 + b"]" * 1000, "nested"),
    (b'{"nickname": "a\\u202eb"}', "invisible"),
    (b'{"nickname": "a\\u200bb"}', "invisible"),
    (b'{"nickname": "a\\u0000b"}', "control"),
    (b'{"nickname": "\\u7535\\u8111 (hard)"}', "computer"),
    (b'{"nickname": "COMPUTER 1"}', "computer"),
    (b'{"nickname": "\\u3164\\u7535\\u8111 (hard)"}', "blank"),  # a Hangul filler first
    (b'{"nickname": "\\u2800computer"}', "blank"),  # the braille blank
    (b'{"nickname": "\\u0301x"}', "combining"),
    (b'{"nickname": ["x"]}', "text"),
    ('{"nickname": "' + "长" * 25 + '"}', "too long"),
]


@pytest.mark.parametrize(("body", "said"), BAD_BODIES)
def test_bad_player_inputs_are_refused_and_store_nothing(srv, body, said):
    before = player_count(srv)
    raw = body.encode() if isinstance(body, str) else body
    reply = post_raw(srv, "/api/players", raw)
    assert reply.status_code == 400, reply.text
    assert said in reply.json()["error"]
    assert player_count(srv) == before


BAD_ROOMS = [
    (b'{"rules": {"name": "\\udc00x"}}', "surrogate"),
    (b'{"rules": {"name": ["qq"]}}', "name must be text"),
    (b'{"rules": {"name": {"a": 1}}}', "name must be text"),
    (b'{"rules": {"preset": ["qq"]}}', "unknown preset"),
    (b'{"rules": "qq", "base": 1000000000}', "base must be an integer 1.."),
    (b'{"multiplier": 4611686018427387904}', "multiplier must be an integer 1.."),
    (b'{"rules": {"escape_bonus": 100000}}', "escape_bonus must be an integer 0..100"),
    (b'{"rules": {"base": 101}}', "base must be an integer 1..100"),
    (b'{"multiplier": 1001}', "multiplier must be an integer 1..1000"),
    (b'{"rules": {"players": 2.0}}', "players must be an integer 2..3"),
    (b'{"rules": {"preset": "qq", "zimo_di": 1000000000000}}', "zimo_di must be an integer"),
    (b'{"rules": {"zimo_huxi": -1}}', "zimo_huxi must be an integer"),
    (b'{"xingjia": "yes"}', "xingjia must be true or false"),
    (b'{"escape_bonus": 101}', "escape_bonus must be an integer 0..100"),
    (b'{"dance": 1}', "unknown"),  # quick rooms once ignored what they did not know
]


@pytest.mark.parametrize(("body", "said"), BAD_ROOMS)
def test_bad_room_options_are_refused_and_store_no_room(srv, body, said):
    _, token = srv.player()
    for path in ("/api/rooms", "/api/rooms/quick"):
        reply = post_raw(srv, path, body, token)
        assert reply.status_code == 400, reply.text
        assert said in reply.json()["error"]
    assert srv.server.storage.rooms() == [] and srv.server.runtimes == {}


@pytest.mark.parametrize("nickname", [
    "电\u034f脑·阿福 (简单)",  # an invisible combining grapheme joiner inside 电脑
    "电\ufe00脑·阿福 (简单)",  # a variation selector
    "电\u180b脑·小翠 (普通)",  # a Mongolian free variation selector
    "電脑·阿福 (简单)", "电腦·阿福 (简单)", "電腦·阿福",  # traditional forms, mixed or not
    "cоmputer (hard)",  # a Cyrillic о
    "COMPUTER", "c0mputer", "cornputer", "Ｃｏｍｐｕｔｅｒ",
    # a red team's, accepted before: a Japanese 脳, small capitals, a Cherokee ꮯ, and a
    # Greek lunate ϲ (which NFKC turned into σ before the look-alike table was read)
    "电脳·阿福 (简单)", "ᴄᴏᴍᴘᴜᴛᴇʀ", "ꮯomputer", "ϲomputer", "ᶜᵒᵐᵖᵘᵗᵉʳ", "ℭ𝔬𝔪𝔭𝔲𝔱𝔢𝔯",
])
def test_nicknames_drawn_like_a_computer_seat_are_refused(srv, nickname):
    """They were accepted: each renders as (or nearly as) the name of a computer seat,
    which people may not take (docs/protocol.md)."""
    reply = post_raw(srv, "/api/players", json.dumps({"nickname": nickname}).encode())
    assert reply.status_code == 400, reply.text
    assert "kept for computer players" in reply.json()["error"]


def test_every_listed_look_alike_of_a_computer_letter_is_refused():
    """Each character Unicode's confusables list draws like a letter of "computer", put in
    its place, makes a nickname that is refused; names that only start alike are not."""
    from confusable_homoglyphs.confusables import confusables_data

    from paohuzi.server.inputs import BadInput, clean_nickname

    tried = 0
    for index, letter in enumerate("computer"):
        for homoglyph in confusables_data[letter]:
            if len(homoglyph["c"]) != 1:
                continue
            tried += 1
            name = "computer"[:index] + homoglyph["c"] + "computer"[index + 1:]
            with pytest.raises(BadInput, match="kept for computer players"):
                clean_nickname(name)
    assert tried > 100
    for name in ("Cora", "compute", "comrade", "阿福", "电视迷", "脑洞", "Computa"):
        assert clean_nickname(name) == name


def test_emoji_with_variation_selectors_stay_allowed_in_nicknames(srv):
    reply = post_raw(srv, "/api/players", json.dumps({"nickname": "阿福❤\ufe0f"}).encode())
    assert reply.status_code == 200, reply.text


def test_nicknames_are_normalised(srv):
    reply = post_raw(srv, "/api/players", '{"nickname": "  A\u0301   li "}'.encode())
    assert reply.status_code == 200
    assert reply.json()["player"]["nickname"] == "\u00c1 li"  # NFC, one space, trimmed
    reply = post_raw(srv, "/api/players", b"{}")
    assert reply.json()["player"]["nickname"] == "玩家"


# ---- finding 3: stakes bounded, raised stakes buy no level -------------------------

async def seated(srv: LiveServer, code: str, token: str, seat: int) -> Conn:
    conn = await connect(srv, code, token)
    seq = await conn.send({"type": "sit", "seat": seat})
    reply = await conn.until(lambda m: m.get("seq") == seq)
    assert reply["type"] == "ack", reply
    return conn


def farm_once(srv: LiveServer, **stakes: Any) -> tuple[dict[str, Any], int]:
    """An accomplice leaves mid-hand so the farmer wins the escape penalty; the farmer's
    /api/me afterwards and his points in the hand. The room's claim window is the
    standard one unless ``stakes`` says otherwise (a shorter one rushes the computer)."""
    stakes.setdefault("claim_window", 1.0)
    _, farmer = srv.player("farmer")
    _, accomplice = srv.player("accomplice")

    async def go() -> int:
        code = srv.room(farmer, seats=["human", "human", "normal"], timer=60,
                        bot_delay=0.2, next_delay=600, **stakes)
        a = await seated(srv, code, farmer, 0)
        b = await seated(srv, code, accomplice, 1)
        await b.until(lambda m: m.get("type") == "state" and m.get("view"))
        seq = await b.send({"type": "leave"})
        await b.until(lambda m: m.get("seq") == seq)
        state = await a.until(lambda m: m.get("type") == "state" and m["view"]
                              and m["view"].get("result"))
        for c in (a, b):
            await c.ws.close()
        return int(state["view"]["result"]["points"][0])  # match seat 0

    points = asyncio.run(go())
    return httpx.get(f"{srv.base}/api/me", headers=auth(farmer)).json(), points


def test_raised_stakes_count_toward_no_lifetime_points(srv):
    me, won = farm_once(srv, base=100, multiplier=1000)
    assert won >= 100  # the hand itself was played at the raised stakes
    assert me["games"], "the hand is recorded"
    assert me["player"]["points"] == 0 and me["player"]["beans"] == STARTING_BEANS
    assert me["player"]["level"]["number"] == 1 and me["player"]["hands"] == 0


def test_a_raised_scoring_option_counts_toward_no_lifetime_points(srv):
    """Stakes are not the only numbers that scale a win: 自摸 adds ``zimo_di`` to 底. A
    room at standard stakes but with any other option off its preset counts for nothing
    lifetime (the review's farming by ``zimo_di: 10**12``)."""
    me, won = farm_once(srv, rules={"preset": "qq", "zimo_di": 10})
    assert won > 0 and me["games"]
    assert me["player"]["points"] == 0 and me["player"]["hands"] == 0


def test_at_standard_stakes_an_escape_counts_only_against_the_leaver(tmp_path):
    """Standard stakes count toward lifetime totals (test_server_presets plays hands out),
    but an escape's penalty is the table's: the farmer's hand counts, its gain does not
    (docs/protocol.md, "Stakes"). (The two accounts connect from one address here, as
    every test does: the server is told to take them for two people.)"""
    with live_server(str(tmp_path / "esc.db"),
                     match=MatchSettings(distinct_addresses=False)) as srv:
        me, won = farm_once(srv)
    assert won > 0 and me["player"]["hands"] == 1
    assert me["player"]["points"] == 0 and me["player"]["beans"] == STARTING_BEANS


def test_a_claim_window_that_rushes_a_searching_computer_counts_for_nothing(tmp_path):
    """A room may shorten its claim window (0.01 s at least), and a searching computer
    answers a claim within the window: a red team's 0.01 s changed 2 of a normal
    computer's 40 claim answers. Hands where such a computer plays in a window shorter
    than the standard second are practice, as hands against a weaker computer are; the
    same hand in a standard window counts (test above)."""
    with live_server(str(tmp_path / "rush.db"),
                     match=MatchSettings(distinct_addresses=False)) as srv:
        me, won = farm_once(srv, claim_window=0.3)
        assert won > 0 and me["games"]
        assert me["player"]["points"] == 0 and me["player"]["hands"] == 0
        code = next(iter(srv.server.runtimes))
        table = srv.server.runtimes[code].table
        assert table.last_summary is not None and table.config.claim_window == 0.3
        table.config = dataclasses.replace(table.config, claim_window=1.0)
        assert srv.server.rate(table, table.last_summary), "the window is why it was void"


def test_seats_sharing_an_address_keep_their_losses_and_gain_nothing(srv):
    """A review farmed +48 points and the leaderboard's top in 6 hands: three accounts
    from one address in a private room at standard stakes, two of them passing every
    win. The quick match never seats two accounts of one address together; in a room,
    seats of a hand played from one address keep its losses and gain nothing lifetime
    (no points, beans, win or rating) — so feeders only lose, and a seat that shows up
    at a partner's address to void a losing hand keeps the loss (a second review: a
    rule voiding the whole hand let colluders erase an honest player's win)."""

    tokens = [srv.player(f"同址{i}")[1] for i in range(3)]
    code = srv.room(tokens[0], seats=["human", "human", "human"], timer=0.5, grace=0,
                    bot_delay=0, next_delay=600)

    async def sit_and_idle() -> list[dict[str, Any]]:
        """Three seats held from one address: seat 0 plays (a bot that wins when it
        can), the two others never answer and 托管 plays them (its wins are theirs; a
        table whose every person is in 托管 pauses, so one plays); the next hand is
        asked for until one is won, and then no more is dealt."""
        from paohuzi.server.client import BotClient

        conns = [await seated(srv, code, token, seat)
                 for seat, token in enumerate(tokens) if seat]

        async def drain(conn: Conn) -> None:  # read what comes (keep-alive pongs too)
            with contextlib.suppress(websockets.ConnectionClosed):
                async for _ in conn.ws:
                    pass

        readers = [asyncio.create_task(drain(conn)) for conn in conns]
        rng = random.Random(3)
        bot = BotClient(srv.ws_url(code), tokens[0], seat=0, keep_messages=False,
                        choose=lambda legal, _: "hu" if "hu" in legal else rng.choice(legal))
        playing = asyncio.create_task(bot.play(100, timeout=400))
        deadline = time.monotonic() + 400  # hands of 0.5 s timers: slow on a loaded machine
        records: list[dict[str, Any]] = []
        while time.monotonic() < deadline and not playing.done():
            await asyncio.sleep(0.2)
            found = srv.server.storage.games_in_room(code)
            if len(found) == len(records):
                continue
            records = found
            if records[-1]["result"].get("winner") is not None:
                break
            for conn in conns:  # a drawn hand: the next one (the bot asks by itself)
                await conn.send({"type": "next"})
        playing.cancel()
        for conn in conns:
            await conn.ws.close()
        await asyncio.gather(*readers)
        return records

    records = asyncio.run(sit_and_idle())
    assert all(r["totals"] is True for r in records)  # rate() was asked for each
    assert any(r["result"].get("winner") is not None for r in records), "no hand was won"
    lost: dict[int, int] = {}
    for r in records:
        for pid, pts in zip(r["players"], r["result"]["points"], strict=True):
            lost[pid] = lost.get(pid, 0) + min(0, pts)
    for token in tokens:
        me = httpx.get(f"{srv.base}/api/me", headers=auth(token)).json()
        player = me["player"]
        assert player["hands"] == len(records) and player["wins"] == 0
        assert player["points"] == lost[player["id"]], (player, lost)
        assert player["beans"] <= STARTING_BEANS
    board = httpx.get(f"{srv.base}/api/leaderboard").json()
    assert not [row for row in board["players"]
                if str(row["nickname"]).startswith("同址") and row["points"] > 0], board


def test_a_hand_against_a_computer_weaker_than_the_halls_is_practice(srv):
    """A review farmed +387 points and a level in 40 unattended hands of a quick room
    against ``random`` computers (the ladder: +11 points a hand). A hand against a
    computer weaker than the one the hall seats (``normal``) counts toward no lifetime
    total; it is played and recorded as usual."""
    from paohuzi.server.client import BotClient
    from paohuzi.server.economy import COMPUTER_RANK

    assert srv.server.matchmaker.settings.computer == "normal"
    assert COMPUTER_RANK["easy"] < COMPUTER_RANK["normal"] <= COMPUTER_RANK["hard"]
    _, token = srv.player("练习")
    code = srv.quick(token, level="easy", bot_delay=0, timer=60, next_delay=600)
    bot = BotClient(srv.ws_url(code), token, seat=0, seed=4)
    asyncio.run(bot.play(1, timeout=90))
    me = httpx.get(f"{srv.base}/api/me", headers=auth(token)).json()
    assert me["games"], "the hand is recorded"
    player = me["player"]
    assert (player["hands"], player["points"], player["beans"]) == (0, 0, STARTING_BEANS)


def test_a_seat_the_computer_played_all_hand_gains_nothing(tmp_path):
    """A red team farmed +195 points in 15 hands: account A created a room with
    ``"sit": true`` over HTTP and never connected; account B took the other human seat
    and fed A. 托管 played A's seat and won for it, and the same-address rule never
    saw A (no connection of his, no message). A person's seat whose every decision of a
    hand the computer made (托管, timeouts) keeps that hand's losses and gains nothing
    lifetime — whatever the addresses (this server takes one address for many people)."""
    from paohuzi.server.client import BotClient

    # (the hall's computer is the heuristic here, so that its hands count in this room's
    # short claim window: a searching computer rushed by it would make them practice)
    with live_server(str(tmp_path / "puppet.db"),
                     match=MatchSettings(distinct_addresses=False,
                                         computer="heuristic")) as srv:
        puppet_id, puppet = srv.player("傀儡")
        _, feeder = srv.player("喂牌")
        code = srv.room(puppet, seats=["human", "human", "heuristic"], sit=True, timer=0.5,
                        grace=0, bot_delay=0, next_delay=0)

        async def feed() -> list[dict[str, Any]]:
            """B plays at random (passing every win) until the puppet has won a hand."""
            conn = await seated(srv, code, feeder, 1)
            await conn.ws.close()
            rng = random.Random(5)
            bot = BotClient(srv.ws_url(code), feeder, seat=1, keep_messages=False, seq=1,
                            choose=lambda legal, _: rng.choice(
                                [a for a in legal if a != "hu"] or legal))
            playing = asyncio.create_task(bot.play(100, timeout=300))
            deadline = time.monotonic() + 300
            records: list[dict[str, Any]] = []
            while time.monotonic() < deadline and not playing.done():
                await asyncio.sleep(0.3)
                records = srv.server.storage.games_in_room(code)
                if any(r["result"].get("winner") is not None and r["players"][
                        r["result"]["winner"]] == puppet_id for r in records):
                    break
            playing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await playing
            await asyncio.sleep(1.0)  # the last hand's settlement
            return srv.server.storage.games_in_room(code)

        records = asyncio.run(feed())
        mine = [r for r in records if r.get("totals") is True]
        won = [r for r in mine if r["result"].get("winner") is not None
               and r["players"][r["result"]["winner"]] == puppet_id]
        assert won, "the computer won no hand for the puppet"
        lost = sum(min(0, pts) for r in mine
                   for pid, pts in zip(r["players"], r["result"]["points"], strict=True)
                   if pid == puppet_id)
        player = httpx.get(f"{srv.base}/api/me", headers=auth(puppet)).json()["player"]
        assert player["wins"] == 0 and player["points"] == lost, (player, lost)
        assert player["beans"] <= STARTING_BEANS


def test_a_xingjia_seat_taken_over_http_that_never_connected_gains_nothing(tmp_path):
    """The puppet above as the 醒家: in a hunan room with the 醒家, account A took seat 0
    over HTTP (``"sit": true``) and never connected. Sitting the hand out he decides
    nothing, so no decision of his was noted (``computer_played``) and no address
    (``sharing_seats``): each loser paid him his unit, and it reached his lifetime points
    and beans. A seat that sits the hand out and that no connection held while it was
    dealt gains nothing lifetime, as a seat the computer played all hand (its unit is
    still paid at the table). B's random value for the shuffle is chosen, from the
    server's secret, so that seat 2 deals first and A sits hand 1 out."""
    from paohuzi.server.client import BotClient
    from paohuzi.server.fairness import digest_of

    with live_server(str(tmp_path / "xingjia.db"),
                     match=MatchSettings(computer="random", distinct_addresses=False)) as srv:
        absent_id, absent = srv.player("不来")
        _, present = srv.player("在场")
        code = srv.room(absent, rules="hunan", xingjia=True,
                        seats=["human", "human", "random", "random"], sit=True, timer=60,
                        bot_delay=0, next_delay=600)
        table = srv.server.runtimes[code].table
        assert table.config.standard_stakes

        class Steering(BotClient):
            def _entropy(self, out: list[tuple[float, dict[str, Any], bool]],
                         state: dict[str, Any]) -> None:
                pending = state.get("next_shuffle")
                if not pending or pending.get("sent") or pending["hand"] != 1 \
                        or 1 in self._entropy_sent:
                    return
                self._entropy_sent.add(1)
                secret = table.next_secret[1]
                value = next(v for v in (f"{n:x}" for n in range(1, 1000))
                             if int(digest_of(secret, ("", v, "", ""))[-8:], 16) % 4 == 2)
                out.append((0.0, {"type": "entropy", "hand": 1, "value": value}, False))

        async def play() -> None:
            conn = await seated(srv, code, present, 1)
            await conn.ws.close()
            bot = Steering(srv.ws_url(code), present, seat=1, keep_messages=False, seq=1,
                           seed=3)
            await bot.play(1, timeout=120)

        asyncio.run(play())
        records = until(lambda: [r for r in srv.server.storage.games_in_room(code)
                                 if r.get("totals") is True])
        assert records, "hand 1 was not settled"
        first = records[0]
        assert first["shuffle"]["first_dealer"] == 2 and 0 not in first["match_seats"]
        assert first["result"]["xingjia_points"] > 0  # paid at the table
        player = httpx.get(f"{srv.base}/api/me", headers=auth(absent)).json()["player"]
        assert (player["points"], player["beans"], player["wins"]) == (0, STARTING_BEANS, 0)
        assert [g for g in srv.games(absent)], "the hand is in his history"
        assert absent_id not in first["players"]


def test_the_seats_the_computer_played_are_those_with_no_decision_of_their_own() -> None:
    from types import SimpleNamespace

    from paohuzi.server.runtime import Runtime

    runtime = SimpleNamespace(moves={3: {0: {False}, 1: {True, False}, 2: {True}}})
    assert Runtime.computer_played(runtime, 3) == {0}  # type: ignore[arg-type]
    assert Runtime.computer_played(runtime, 4) == set()  # type: ignore[arg-type]


def test_the_seats_sharing_an_address_are_those_two_were_played_from() -> None:
    from types import SimpleNamespace

    from paohuzi.server.runtime import Runtime
    from paohuzi.server.seen import Seen

    seen = Seen()
    seen.addresses = {7: {0: {"a"}, 1: {"b", "c"}, 2: {"c"}, 3: {"d"}}}
    runtime = SimpleNamespace(seen=seen)
    assert Runtime.sharing_seats(runtime, 7) == {1, 2}  # type: ignore[arg-type]
    assert Runtime.sharing_seats(runtime, 8) == set()  # type: ignore[arg-type]


# ---- finding 4: the body is capped before it is read ---------------------------------

def raw_request(srv: LiveServer, head: bytes, body_parts: list[bytes],
                wait: float = 5.0) -> bytes:
    """Send a request's head and some of its body; what the server answers within
    ``wait`` seconds without the rest of the body."""
    with socket.create_connection(("127.0.0.1", srv.port)) as sock:
        sock.sendall(head)
        for part in body_parts:
            with_timeout_send(sock, part)
        sock.settimeout(wait)
        try:
            return sock.recv(4096)
        except TimeoutError:
            return b""


def with_timeout_send(sock: socket.socket, data: bytes) -> None:
    sock.settimeout(2.0)
    with contextlib.suppress(OSError):  # the server closed early: what we want
        sock.sendall(data)


def test_a_huge_declared_body_is_refused_unread(srv):
    head = (b"POST /api/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 52428800\r\n\r\n")
    answer = raw_request(srv, head, [b"{" + b" " * 1023])
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"too large" in answer


def test_a_huge_chunked_body_is_refused_after_the_cap(srv):
    head = (b"POST /api/players HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    chunk = b"2000\r\n" + b" " * 0x2000 + b"\r\n"  # 8 KiB, never terminated
    answer = raw_request(srv, head, [chunk])
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert player_count(srv) == 0


# ---- finding 8: rate limits, slowloris, binary frames, seq ---------------------------

def test_rooms_and_players_are_rate_limited(srv):
    # a bucket of 20 rooms per account refilled at 0.5/s, 30 players per address at 0.5/s:
    # at most the bucket plus what refilled while the requests were made (a slow machine)
    _, token = srv.player()
    start = time.monotonic()
    replies = [httpx.post(f"{srv.base}/api/rooms", json={}, headers=auth(token))
               for _ in range(40)]
    refilled = 0.5 * (time.monotonic() - start)
    codes = [r.status_code for r in replies]
    assert 429 in codes and codes.count(200) <= 20 + refilled + 1
    refused = next(r for r in replies if r.status_code == 429)
    assert "too many rooms" in refused.json()["error"]
    _, other = srv.player()  # another account still may
    assert httpx.post(f"{srv.base}/api/rooms", json={}, headers=auth(other)).status_code == 200
    start = time.monotonic()
    made = [httpx.post(f"{srv.base}/api/players", json={}).status_code for _ in range(40)]
    refilled = 0.5 * (time.monotonic() - start)
    assert 429 in made and made.count(200) <= 30 + refilled + 1


def test_binary_frames_count_toward_the_message_rate(srv):
    async def go() -> None:
        _, token = srv.player()
        code = srv.quick(token, level="heuristic", bot_delay=0.5, timer=60)
        conn = await connect(srv, code, token)
        with pytest.raises(websockets.ConnectionClosed) as closed:
            for _ in range(200):
                await conn.ws.send(b"\x00")
            while True:
                await asyncio.wait_for(conn.ws.recv(), 5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    asyncio.run(go())


def test_a_huge_seq_does_not_block_the_seat(srv):
    async def go() -> None:
        _, token = srv.player()
        code = srv.quick(token, level="heuristic", bot_delay=0.2, timer=60)
        conn = await connect(srv, code, token)
        await conn.send({"type": "ping"}, seq=2**53 - 1)
        reply = await conn.until(lambda m: m.get("seq") == 2**53 - 1)
        assert reply["type"] == "error" and "at most" in reply["message"]
        seq = await conn.send({"type": "ping"})
        reply = await conn.until(lambda m: m.get("seq") == seq)
        assert reply == {"type": "ack", "seq": seq}
        await conn.ws.close()
    asyncio.run(go())


def test_slow_headers_do_not_hold_a_socket(srv):
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", srv.port)) as sock:
        sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
        sock.settimeout(0.5)
        closed_after = None
        while time.monotonic() - started < 12:
            try:
                sock.sendall(b"X")
                if sock.recv(1) == b"":
                    closed_after = time.monotonic() - started
                    break
            except TimeoutError:
                continue
            except OSError:
                closed_after = time.monotonic() - started
                break
    assert closed_after is not None and closed_after < 8.0


# ---- finding 6: privacy of tables, spectators ----------------------------------------

async def escape_a_hand(srv: LiveServer, token: str) -> str:
    """A quick room where the player leaves at his first decision: one recorded hand."""
    code = srv.quick(token, level="heuristic", bot_delay=0, timer=60, next_delay=600)
    conn = await connect(srv, code, token)
    await conn.to_act()
    seq = await conn.send({"type": "leave"})
    await conn.until(lambda m: m.get("seq") == seq)
    await conn.ws.close()
    return code


def test_game_ids_are_unguessable_and_games_private_until_the_room_ends(tmp_path):
    # the room ends 5 s after its last person left: long enough for the checks below to
    # run while it is open, even on a loaded machine
    bounds = limits(room_idle_hours=5 / 3600, sweep_seconds=0.1)
    with live_server(str(tmp_path / "g.db"), bounds) as srv:
        _, token = srv.player("明")
        _, stranger = srv.player()

        code = asyncio.run(escape_a_hand(srv, token))
        game_id = srv.games(token)[0]["id"]
        assert isinstance(game_id, str) and len(game_id) == 22
        assert httpx.get(f"{srv.base}/api/games/1").status_code == 404
        for path in (f"/api/games/{game_id}", f"/api/games/{game_id}/steps"):
            mine = httpx.get(f"{srv.base}{path}", headers=auth(token))
            assert mine.status_code == 200
            for headers in ({}, auth(stranger)):
                refused = httpx.get(f"{srv.base}{path}", headers=headers)
                assert refused.status_code == 403 and "players" in refused.json()["error"]
        mine = httpx.get(f"{srv.base}/api/games/{game_id}", headers=auth(token)).json()
        assert mine["room"] == code
        # seats by nickname, never by account id (they were served as "players": [ids])
        assert "players" not in mine and mine["names"][mine["you"]] == "明"
        steps = httpx.get(f"{srv.base}/api/games/{game_id}/steps", headers=auth(token)).json()
        assert "players" not in steps and steps["names"] == mine["names"]
        deadline = time.monotonic() + 30
        while code in srv.server.runtimes and time.monotonic() < deadline:
            time.sleep(0.1)
        assert httpx.get(f"{srv.base}/api/rooms/{code}").status_code == 404  # ended
        public = httpx.get(f"{srv.base}/api/games/{game_id}")
        assert public.status_code == 200 and "room" not in public.json()
        assert code not in public.text
        assert "players" not in public.json() and public.json()["you"] is None
        assert public.json()["names"] == mine["names"]


def test_spectators_cannot_lock_a_seated_player_out(srv):
    async def go() -> None:
        _, host = srv.player("host")
        code = srv.quick(host, level="heuristic", bot_delay=0.5, timer=60)
        watchers = [srv.player(f"w{i}")[1] for i in range(22)]
        opened: list[Any] = []
        refused = 0
        for token in watchers:
            for _ in range(3):
                ws = await websockets.connect(f"{srv.ws_url(code)}?token={token}")
                first = json.loads(await ws.recv())
                if first["type"] == "error":
                    refused += 1
                    assert "spectator" in first["message"]
                    await ws.close()
                else:
                    opened.append(ws)
        assert len(opened) == 16 and refused == 66 - len(opened)
        conn = await connect(srv, code, host)  # the seated player still gets in
        assert conn.states[-1]["you"] == 0
        await conn.ws.close()
        for ws in opened:
            await ws.close()
    asyncio.run(go())


def test_strangers_filling_the_spectator_places_cannot_lock_a_friend_out_of_a_free_seat(srv):
    """A red team held every spectator's place of a private room (16, and 3 for its free
    seat) from 7 accounts: the friend the room waited for was refused as one more
    spectator, unseen by the host (spectators are not in ``presence``). A connection
    that comes to sit (``sit=1``: the browser's retry after ``spectators_full``) takes
    the free seat as it comes, past the spectators' cap; with no seat free it is refused
    as before."""
    async def go() -> None:
        _, host = srv.player("host")
        code = srv.room(host, seats=["human", "human", "easy"], sit=True, timer=60)
        opened: list[Any] = []
        for i in range(7):
            token = srv.player(f"g{i}")[1]
            for _ in range(3):
                ws = await websockets.connect(f"{srv.ws_url(code)}?token={token}")
                if json.loads(await ws.recv())["type"] == "welcome":
                    opened.append(ws)
                else:
                    await ws.close()
        assert len(opened) == 16 + 3
        friend_id, friend = srv.player("friend")
        ws = await websockets.connect(f"{srv.ws_url(code)}?token={friend}")
        refused = json.loads(await ws.recv())
        assert refused["type"] == "error" and refused["code"] == "spectators_full"
        await ws.close()
        ws = await websockets.connect(f"{srv.ws_url(code)}?token={friend}&sit=1")
        welcome = json.loads(await ws.recv())
        assert welcome["type"] == "welcome" and welcome["seat"] == 1, welcome
        assert srv.server.runtimes[code].table.seats[1].player == friend_id
        stranger = srv.player("late")[1]  # no seat left: the cap holds
        late = await websockets.connect(f"{srv.ws_url(code)}?token={stranger}&sit=1")
        assert json.loads(await late.recv())["code"] == "spectators_full"
        await late.close()
        runtime = srv.server.runtimes[code]
        # the friend's two more connections are seated ones (never refused); leaving
        # before the first hand leaves all three without a seat, past the cap: closed,
        # so that sitting past the cap and leaving cannot grow the spectators
        more = [await websockets.connect(f"{srv.ws_url(code)}?token={friend}")
                for _ in range(2)]
        for conn in more:
            assert json.loads(await conn.recv())["seat"] == 1
        await ws.send(json.dumps({"type": "leave", "seq": 1}))
        deadline = time.monotonic() + 10
        while runtime.spectator_room() < 0 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert runtime.table.seats[1].player is None
        assert runtime.spectator_room() == 0  # at the cap (16 + 3 for the free seat)
        # with places free, sit=1 is an ordinary spectator's connection: not seated
        for other in opened[:3]:
            await other.close()
        while runtime.spectator_room() < 3 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        watcher = await websockets.connect(f"{srv.ws_url(code)}?token={stranger}&sit=1")
        welcome = json.loads(await watcher.recv())
        assert welcome["type"] == "welcome" and welcome["seat"] is None, welcome
        for conn in [watcher, ws, *more, *opened[3:]]:
            await conn.close()
    asyncio.run(go())


# ---- finding 7: replay steps cached, computed off the event loop --------------------

def test_replay_steps_are_computed_once_off_the_event_loop(srv, monkeypatch):
    from paohuzi.server import replays

    calls: list[threading.Thread] = []
    real = replays.replay_pages

    def counted(record: dict[str, Any]) -> dict[str, Any]:
        calls.append(threading.current_thread())
        time.sleep(0.2)  # slow: concurrent requests arrive while it runs
        return real(record)

    monkeypatch.setattr(replays, "replay_pages", counted)
    _, token = srv.player()

    async def go() -> str:
        await escape_a_hand(srv, token)
        game_id = srv.games(token)[0]["id"]
        async with httpx.AsyncClient(base_url=srv.base, headers=auth(token)) as client:
            replies = await asyncio.gather(*(client.get(f"/api/games/{game_id}/steps")
                                             for _ in range(8)))
            replies.append(await client.get(f"/api/games/{game_id}/steps"))
        assert all(r.status_code == 200 for r in replies)
        assert len({r.content for r in replies}) == 1
        assert replies[0].json()["steps"]
        return str(game_id)

    asyncio.run(go())
    assert len(calls) == 1
    assert calls[0] is not srv._thread  # not the thread running the event loop


def test_replays_made_are_rate_limited_per_address_and_kept_ones_are_free(srv):
    """A red team: an uncached replay costs about 12 ms of CPU against 1.5 ms cached,
    and nothing bounded how many a client had made (cycling through more games than the
    cache holds). Replays made count against the address's rate; kept ones do not."""
    from paohuzi.server.limits import RateLimiter

    _, token = srv.player()
    asyncio.run(escape_a_hand(srv, token))
    game_id = srv.games(token)[0]["id"]
    url = f"{srv.base}/api/games/{game_id}/steps"
    replays = srv.server.replays
    replays.size = 0  # nothing kept: every request makes its replay
    srv.server.limiters["replays_per_address"] = RateLimiter(0.001, 2)
    codes = [httpx.get(url, headers=auth(token)).status_code for _ in range(3)]
    assert codes == [200, 200, 429], codes
    assert "too many replays" in httpx.get(url, headers=auth(token)).json()["error"]
    replays.size = 64
    srv.server.limiters["replays_per_address"] = RateLimiter(0.001, 1)
    codes = [httpx.get(url, headers=auth(token)).status_code for _ in range(3)]
    assert codes == [200, 200, 200], codes  # made once, then kept


def test_a_record_that_no_longer_replays_is_a_clear_error_not_a_crash(srv, monkeypatch):
    """A game stored by an engine whose rules changed since (an old 泸州 record with a
    win the rules now forbid) failed its replay with a 500. It is a 422 naming the action
    that does not replay, the record itself stays readable, and the failed replay is
    kept: asking again does not replay it again."""
    from paohuzi.server import replays

    calls = []
    real = replays.replay_pages

    def counted(record: dict[str, Any]) -> dict[str, Any]:
        calls.append(record)
        return real(record)

    monkeypatch.setattr(replays, "replay_pages", counted)
    _, token = srv.player()
    asyncio.run(escape_a_hand(srv, token))
    game_id = srv.games(token)[0]["id"]
    storage = srv.server.storage
    with storage._lock:
        (stored,) = storage._db.execute("SELECT record FROM games WHERE public_id = ?",
                                        (game_id,)).fetchone()
        record = json.loads(stored)
        # no such seat: this step cannot replay (the hand may have ended with no action:
        # the player left at his first decision)
        record["actions"].append({"seat": 7, "action": "pass"})
        bad = len(record["actions"]) - 1
        storage._db.execute("UPDATE games SET record = ? WHERE public_id = ?",
                            (json.dumps(record), game_id))
    for _ in range(2):
        reply = httpx.get(f"{srv.base}/api/games/{game_id}/steps", headers=auth(token))
        assert reply.status_code == 422, reply.text
        message = reply.json()["error"]
        assert f"action {bad}" in message and f"/api/games/{game_id}" in message, message
    assert len(calls) == 1
    kept = httpx.get(f"{srv.base}/api/games/{game_id}", headers=auth(token))
    assert kept.status_code == 200 and kept.json()["actions"][bad]["seat"] == 7


def test_a_failed_replay_is_kept_as_its_reason_and_raised_anew(monkeypatch):
    """A review: the cache kept the RecordError itself and raised that object again on
    every request; Python grew its traceback by the request's frames each time (keeping
    each request alive): memory without bound, for anyone, on an ended room's game. And a
    record whose rules or deal no longer load was a 500. Each request now gets a fresh
    error of the same reason, and the record is replayed once."""
    import traceback

    from paohuzi.game.record import RecordError
    from paohuzi.server import replays

    calls = []
    real = replays._render

    def counted(record: dict[str, Any]) -> bytes:
        calls.append(record)
        return real(record)

    monkeypatch.setattr(replays, "_render", counted)
    cache = replays.ReplayCache()
    broken = {"format": "paohuzi-record/1", "rules": {"name": "qq", "min_huxi": 999},
              "deal": {"seed": "1", "dealer": "0"}, "actions": []}

    async def go() -> list[tuple[str, int]]:
        seen = []
        for _ in range(5):
            try:
                await cache.get("g", broken)
            except RecordError as exc:
                seen.append((str(exc), len(traceback.extract_tb(exc.__traceback__))))
        return seen

    seen = asyncio.run(go())
    assert len(seen) == 5 and len(calls) == 1
    assert len({text for text, _ in seen}) == 1 and "min_huxi" in seen[0][0]
    assert len({depth for _, depth in seen[1:]}) == 1  # no growth from request to request


# ---- idle rooms expire -----------------------------------------------------------------

def test_idle_rooms_expire_and_are_not_replayed(tmp_path):
    db = str(tmp_path / "idle.db")
    with live_server(db) as srv:
        _, token = srv.player()
        kept = srv.room(token)
        gone = srv.room(token)
    time.sleep(1.2)
    storage_rows = None
    bounds = limits(room_idle_hours=1.0 / 3600, sweep_seconds=0.1)
    with live_server(db, bounds) as srv:
        # both idle over a second: ended at start, never replayed
        assert srv.server.runtimes == {}
        assert httpx.get(f"{srv.base}/api/rooms/{kept}").status_code == 404
        assert httpx.get(f"{srv.base}/api/rooms/{gone}").status_code == 404
        fresh = srv.room(token)

        async def watch() -> None:
            conn = await connect(srv, fresh, token)
            await asyncio.sleep(1.5)  # someone connected: the room stays
            assert fresh in srv.server.runtimes
            await conn.ws.close()
        asyncio.run(watch())
        deadline = time.monotonic() + 5
        while fresh in srv.server.runtimes and time.monotonic() < deadline:
            time.sleep(0.1)
        assert fresh not in srv.server.runtimes
        storage_rows = srv.server.storage.rooms()
    assert storage_rows == []


def test_a_refused_body_closes_the_connection(srv):
    """After a 413 the server stops reading: the rest of a huge body is not taken in."""
    head = (b"POST /api/players HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"100000\r\n" + b" " * 0x100000 + b"\r\n"  # 1 MiB chunks
    sent = 0
    with socket.create_connection(("127.0.0.1", srv.port)) as sock:
        sock.sendall(head)
        sock.settimeout(5)
        with contextlib.suppress(OSError):
            while sent < 64 * 2**20:
                sock.sendall(chunk)
                sent += 2**20
    assert sent < 64 * 2**20  # cut off long before 64 MiB


def test_a_stored_room_with_stakes_now_refused_is_ended_at_start(tmp_path):
    """A room stored before stakes were bounded (base 10**9) does not come back."""
    from paohuzi.core.rules import Ruleset
    from paohuzi.server.storage import SQLiteStorage

    db = str(tmp_path / "old.db")
    storage = SQLiteStorage(db)
    rules = {**Ruleset().to_dict(), "base": 10**9}  # no longer a valid Ruleset
    storage.create_room("farm-room", {"rules": rules, "seats": ["human", "normal", "normal"]})
    storage.close()
    with live_server(db) as srv:
        assert "farm-room" not in srv.server.runtimes
        assert httpx.get(f"{srv.base}/api/rooms/farm-room").status_code == 404
        assert srv.server.storage.rooms() == []


# ---- a connection that stops reading ---------------------------------------------------

def _raw_spectator(srv: LiveServer, code: str, token: str) -> socket.socket:
    """A spectator's WebSocket on a plain socket with a tiny receive buffer (it will never
    read): the handshake, nothing more."""
    import base64
    import os

    port = int(srv.base.rsplit(":", 1)[1])
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1024)
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall((f"GET /ws/{code}?token={token} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                  "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert b" 101 " in head.split(b"\r\n")[0], head
    return sock


def _masked_text(data: bytes) -> bytes:
    import os

    mask = os.urandom(4)
    assert len(data) < 126
    return bytes((0x81, 0x80 | len(data))) + mask + bytes(
        b ^ mask[i % 4] for i, b in enumerate(data))


def test_a_spectator_that_stops_reading_does_not_freeze_the_room(srv):
    """A review: a spectator asking for full snapshots 25 times a second and reading
    nothing froze its room for as long as it kept its socket open (its close frame
    waited forever for the full socket, and the room's broadcast waited for that). Its
    buffers are made small here so they fill at once: the room plays on, and the
    spectator's connection is aborted."""
    from paohuzi.server.client import BotClient

    _, victim = srv.player("受害")
    _, watcher = srv.player("旁观")
    code = srv.quick(victim, level="easy", bot_delay=0.05, timer=60, next_delay=0)
    sock = _raw_spectator(srv, code, watcher)
    runtime = srv.server.runtimes[code]
    deadline = time.monotonic() + 10
    while not [c for c in list(runtime.clients) if c.seat is None]:
        assert time.monotonic() < deadline, "the spectator never joined"
        time.sleep(0.01)
    spectator = next(c for c in list(runtime.clients) if c.seat is None)
    protocol = spectator.write_now.__self__  # the server's side of that connection, shrunk
    protocol.transport.get_extra_info("socket").setsockopt(
        socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    protocol.loop.call_soon_threadsafe(protocol.transport.set_write_buffer_limits, 4096)
    stop = threading.Event()

    def ask() -> None:
        seq = 0
        while not stop.is_set():
            seq += 1
            with contextlib.suppress(OSError):
                sock.sendall(_masked_text(json.dumps(
                    {"type": "resync", "seq": seq, "hand": -1}).encode()))
            time.sleep(0.04)

    asker = threading.Thread(target=ask, daemon=True)
    asker.start()
    try:
        bot = BotClient(srv.ws_url(code), victim, seat=0, seed=5)
        asyncio.run(bot.play(2, timeout=60))  # froze before, once the buffers were full
        assert bot.hands_seen >= 2
        assert spectator.dropped
        sock.settimeout(10)  # aborted: the spectator's socket ends (reset or EOF)
        with contextlib.suppress(ConnectionResetError):
            while sock.recv(65536):
                pass
    finally:
        stop.set()
        asker.join()
        sock.close()
