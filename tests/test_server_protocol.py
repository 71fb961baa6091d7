"""The game server over real WebSockets (uvicorn on a loopback port): docs/protocol.md."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import Any

import httpx
import pytest
import websockets
from server_util import LiveServer, live_server

pytest.importorskip("starlette")

from paohuzi.server.economy import STARTING_BEANS


@pytest.fixture
def srv(database):
    """A live server on each backend (SQLite, PostgreSQL: conftest.database)."""
    with live_server(database) as server:
        yield server


class Conn:
    """A raw protocol connection with its own sequence numbers."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.seq = 0
        self.states: list[dict[str, Any]] = []

    async def send(self, body: dict[str, Any], seq: int | None = None) -> int:
        if seq is None:
            self.seq += 1
            seq = self.seq
        await self.ws.send(json.dumps({"seq": seq, **body}, ensure_ascii=False))
        return seq

    async def recv(self, timeout: float = 10.0) -> dict[str, Any]:
        msg = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        if msg.get("type") == "state":
            self.states.append(msg)
        return msg

    async def seen_or_until(self, pred: Any, timeout: float = 15.0) -> dict[str, Any]:
        """The last state already received if it matches, else the next matching message."""
        if self.states and pred(self.states[-1]):
            return self.states[-1]
        return await self.until(pred, timeout)

    async def until(self, pred: Any, timeout: float = 15.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            msg = await self.recv(max(0.05, deadline - time.monotonic()))
            if pred(msg):
                return msg

    async def to_act(self, timeout: float = 60.0) -> dict[str, Any]:
        """The first state asking this seat to decide (the last one received, if it
        does); a hand won before the seat had a decision (a seat with nothing to claim
        until someone's 胡: 0.1-0.3% of hands) is closed and the next one dealt."""
        deadline = time.monotonic() + timeout
        while True:
            state = await self.seen_or_until(
                lambda m: m.get("type") == "state" and m.get("view")
                and (m["view"].get("to_act") or m["view"].get("result")),
                max(0.05, deadline - time.monotonic()))
            if state["view"].get("to_act"):
                return state
            self.states.clear()  # (seen: the next hand's state comes)
            await self.send({"type": "next"})

    async def all_of(self, preds: dict[str, Any], timeout: float = 30.0) -> dict[str, Any]:
        """The first message matching each of ``preds``, whatever order they come in."""
        deadline = time.monotonic() + timeout
        found: dict[str, Any] = {}
        while len(found) < len(preds):
            msg = await self.recv(max(0.05, deadline - time.monotonic()))
            found.update((name, msg) for name, pred in preds.items()
                         if name not in found and pred(msg))
        return found

    async def snapshot(self) -> dict[str, Any]:
        await self.send({"type": "resync", "hand": -1})
        return await self.until(lambda m: m.get("type") == "state")


async def connect(srv: LiveServer, code: str, token: str) -> Conn:
    ws = await websockets.connect(f"{srv.ws_url(code)}?token={token}")
    conn = Conn(ws)
    welcome = await conn.recv()
    assert welcome["type"] == "welcome"
    conn.seq = welcome["last_seq"]
    await conn.until(lambda m: m.get("type") == "state")
    return conn


def test_http_players_rooms_and_errors(srv):
    _pid, token = srv.player("阿明")
    me = httpx.get(f"{srv.base}/api/me", headers={"authorization": f"Bearer {token}"}).json()
    assert me["player"]["nickname"] == "阿明" and me["player"]["level"]["title"] == "新手"
    assert me["player"]["rating"]["mu"] == pytest.approx(25.0)
    bad = httpx.get(f"{srv.base}/api/me", headers={"authorization": "Bearer nope"})
    assert bad.status_code == 401
    reply = httpx.post(f"{srv.base}/api/rooms", json={"rules": "mahjong"},
                       headers={"authorization": f"Bearer {token}"})
    assert reply.status_code == 400 and "unknown preset 'mahjong'" in reply.json()["error"]
    reply = httpx.post(f"{srv.base}/api/rooms", json={"seats": ["human", "robot", "human"]},
                       headers={"authorization": f"Bearer {token}"})
    assert reply.status_code == 400 and "'robot'" in reply.json()["error"]
    code = srv.room(token, rules="hunan", base=5, seats=["human", "easy", "hard"])
    info = httpx.get(f"{srv.base}/api/rooms/{code}").json()
    assert info["config"]["rules"]["name"] == "hunan" and info["config"]["rules"]["base"] == 5
    assert [s["kind"] for s in info["seats"]] == ["human", "easy", "hard"]
    assert httpx.get(f"{srv.base}/api/rooms/nosuchroom").status_code == 404
    assert len(code) == 6 and code.isdigit()  # read out and typed on a phone (issue 12)


def test_sequence_numbers_are_applied_at_most_once(srv):
    async def go() -> None:
        _, token = srv.player()
        code = srv.quick(token, level="heuristic", bot_delay=0, timer=30)
        conn = await connect(srv, code, token)
        state = await conn.to_act()
        action = state["view"]["legal_actions"][0]
        seq = await conn.send({"type": "act", "action": action})
        ack = await conn.until(lambda m: m.get("type") in ("ack", "error") and m.get("seq") == seq)
        assert ack["type"] == "ack" and not ack.get("duplicate")
        await conn.send({"type": "act", "action": action}, seq=seq)  # the same message again
        again = await conn.until(lambda m: m.get("type") == "ack" and m.get("seq") == seq)
        assert again["duplicate"] is True
        await conn.snapshot()
        # the repeated message was not applied: the table log holds the action once
        log = srv.server.storage.load_log(code)
        assert sum(1 for e in log if e["k"] == "act" and e.get("seq") == seq) == 1
        await conn.ws.close()
    asyncio.run(go())


def test_illegal_and_out_of_turn_actions_are_refused_unchanged(srv):
    async def go() -> None:
        pid, token = srv.player()
        code = srv.quick(token, level="heuristic", bot_delay=1.0, timer=30)
        conn = await connect(srv, code, token)
        state = await conn.to_act()

        def mine() -> list[dict[str, Any]]:
            return [e for e in srv.server.storage.load_log(code) if e.get("player") == pid]

        logged = mine()
        hand = state["view"]["hand"]
        legal = state["view"]["legal_actions"]
        missing = next(c for c in "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾" if c not in hand)
        for bad, words in ((f"discard {missing}", ("holds no", "may not")),
                           ("discard 龍", ("龍",)), ("chi 一二四", ("not a sentence",)),
                           ("gang", ("unknown action",))):
            seq = await conn.send({"type": "act", "action": bad})
            err = await conn.until(lambda m, s=seq: m.get("seq") == s)
            assert err["type"] == "error" and any(w in err["message"] for w in words), err
        snap = await conn.snapshot()
        assert mine() == logged  # nothing of ours was applied
        assert snap["view"]["hand"] == hand and snap["view"]["legal_actions"] == legal
        # out of turn: act while the hand waits for a bot (answering ours until it does)
        refused = None
        for _ in range(300):
            await asyncio.sleep(0.1)  # stay under the message rate limit
            snap = await conn.snapshot()
            view = snap["view"]
            if not view or view.get("result"):  # the hand ended first: look in the next one
                await conn.send({"type": "next"})
                continue
            if view.get("to_act"):
                seq = await conn.send({"type": "act", "action": view["legal_actions"][-1]})
                await conn.until(lambda m, s=seq: m.get("seq") == s)
                continue
            if view.get("phase") != "discard" or view.get("turn") == snap["you"]:
                continue  # a claim may be about to open for us: wait for a bot's discard
            logged = mine()
            seq = await conn.send({"type": "act", "action": "pass"})
            refused = await conn.until(lambda m, s=seq: m.get("seq") == s)
            assert mine() == logged  # nothing of ours was applied
            break
        assert refused is not None, "never found a moment when the bots were to act"
        assert refused["type"] == "error" and "not your decision" in refused["message"], refused
        # the words of the refusal in each language the browser speaks (refusals.py)
        assert refused["words"] == {"en": refused["message"], "zh": "现在不该你操作"}, refused
        await conn.ws.close()
    asyncio.run(go())


def test_reconnect_mid_decision_restores_the_exact_view(srv):
    async def go() -> None:
        _, token = srv.player()
        code = srv.quick(token, level="heuristic", bot_delay=0, timer=60)
        conn = await connect(srv, code, token)
        await conn.to_act()
        # let the computers finish answering: then nothing changes until we act
        with contextlib.suppress(TimeoutError):
            while True:
                await conn.recv(timeout=0.5)
        state = conn.states[-1]
        assert state["view"]["to_act"]
        events = [e for s in conn.states if s["table"]["hand_no"] == state["table"]["hand_no"]
                  for e in s["events"]]
        await conn.ws.close()
        again = await connect(srv, code, token)
        snap = again.states[-1]
        assert snap["view"] == state["view"]
        assert snap["events_from"] == 0 and snap["events"] == events
        assert snap["hash"] == state["hash"]
        # it can still act, with a sequence number above the last applied one
        seq = await again.send({"type": "act", "action": snap["view"]["legal_actions"][0]})
        ack = await again.until(lambda m: m.get("seq") == seq)
        assert ack["type"] == "ack"
        await again.ws.close()
    asyncio.run(go())


def test_tuoguan_after_two_timeouts_and_its_release(srv):
    async def go() -> None:
        _, token = srv.player()
        code = srv.quick(token, level="heuristic", bot_delay=0, timer=0.5, grace=0,
                         next_delay=0.5)
        conn = await connect(srv, code, token)
        seat = conn.states[-1]["you"]
        # never act: two timeouts put the seat in 托管
        # 托管 needs two missed discards in one hand, which can take several hands
        state = await conn.until(lambda m: m.get("type") == "state"
                                 and m["table"]["seats"][seat]["tuoguan"], timeout=150)
        log = srv.server.storage.load_log(code)
        assert sum(1 for e in log if e["k"] == "timeout" and e["seat"] == seat) >= 2
        assert any(e["k"] == "tuoguan" and e["on"] for e in log)
        assert state["table"]["seats"][seat]["tuoguan"]
        seq = await conn.send({"type": "takeover"})
        await conn.until(lambda m: m.get("seq") == seq)
        state = await conn.until(lambda m: m.get("type") == "state"
                                 and not m["table"]["seats"][seat]["tuoguan"], timeout=10)
        assert not state["table"]["seats"][seat]["tuoguan"]
        await conn.ws.close()
    asyncio.run(go())


def test_malformed_oversized_and_flooding_messages(srv):
    async def go() -> None:
        _, token = srv.player()
        code = srv.quick(token, level="heuristic", bot_delay=0, timer=60)
        conn = await connect(srv, code, token)
        await conn.ws.send("this is not json")
        assert "malformed JSON" in (await conn.until(lambda m: m["type"] == "error"))["message"]
        await conn.ws.send(json.dumps({"seq": "one", "type": "ping"}))
        assert "seq" in (await conn.until(lambda m: m["type"] == "error"))["message"]
        await conn.send({"type": "dance"})
        assert "unknown message type" in (await conn.until(lambda m: m["type"] == "error"))[
            "message"]
        for _ in range(40):
            await conn.send({"type": "ping"})
        assert "too many" in (await conn.until(
            lambda m: m["type"] == "error" and "too many" in m["message"]))["message"]
        await asyncio.sleep(1.1)
        big = await websockets.connect(f"{srv.ws_url(code)}?token={token}", max_size=2**22)
        await big.send(json.dumps({"seq": 10**6, "type": "ping", "pad": "x" * 5000}))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(big.recv(), 5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        # the table goes on: the first connection still works
        snap = await conn.snapshot()
        assert snap["type"] == "state"
        await conn.ws.close()
    asyncio.run(go())


def test_spectator_sees_no_hand_and_unknown_token_is_refused(srv):
    async def go() -> None:
        _, token = srv.player("主人")
        _, other = srv.player("观众")
        code = srv.quick(token, level="heuristic", bot_delay=0.2, timer=60)
        host = await connect(srv, code, token)  # a room deals while one of its people is here
        await host.seen_or_until(lambda m: m.get("type") == "state" and m.get("view"))
        watcher = await connect(srv, code, other)
        state = await watcher.seen_or_until(lambda m: m.get("type") == "state"
                                            and m.get("view"))
        assert state["you"] is None and "hand" not in state["view"]
        assert "legal_actions" not in state["view"]
        await watcher.ws.close()
        ws = await websockets.connect(f"{srv.ws_url(code)}?token=forged")
        msg = json.loads(await ws.recv())
        assert msg["type"] == "error" and "token" in msg["message"]
        await ws.close()
        await host.ws.close()
    asyncio.run(go())


def test_leaving_mid_hand_pays_the_escape_penalty(srv):
    async def go() -> None:
        _pid, token = srv.player()
        code = srv.quick(token, level="heuristic", bot_delay=0, timer=60, next_delay=600,
                         multiplier=5)
        conn = await connect(srv, code, token)
        await conn.to_act()
        seq = await conn.send({"type": "leave"})
        replies = await conn.all_of({
            "ack": lambda m: m.get("seq") == seq,
            "end": lambda m: m.get("type") == "state" and m["view"] and m["view"].get("result")})
        assert replies["ack"]["type"] == "ack", replies["ack"]
        state = replies["end"]
        result = state["view"]["result"]
        seat = state["you"]
        assert result["reason"] == "escape" and result["leaver"] == seat  # match seats
        assert result["points"][seat] <= -24  # at least (0 + 8) x 3
        assert sum(result["points"]) == 0
        me = httpx.get(f"{srv.base}/api/me", headers={"authorization": f"Bearer {token}"}).json()
        assert result["beans"][seat] == 5 * result["points"][seat]
        # A room at other than its preset's stakes never counts toward lifetime totals
        # (docs/protocol.md, "Stakes"): the game is recorded, the totals stay at zero.
        assert me["player"]["points"] == 0 and me["player"]["beans"] == STARTING_BEANS
        assert me["games"] and me["games"][0]["reason"] == "escape"
        await conn.ws.close()
    asyncio.run(go())


async def play_until_result(conn: Conn, timeout: float = 60.0) -> dict[str, Any]:
    """Answer every decision with its first legal action until the hand's result shows
    (a table whose only person is in 托管 pauses, so the person plays)."""
    deadline = time.monotonic() + timeout
    while True:
        msg = await conn.recv(max(0.05, deadline - time.monotonic()))
        if msg.get("type") != "state" or not msg.get("view"):
            continue
        if msg["view"].get("result"):
            return msg
        if msg["view"].get("to_act"):
            await conn.send({"type": "act", "action": msg["view"]["legal_actions"][0]})


def test_shuffle_commitment_is_opened_and_checks(srv):
    """Commit-reveal both ways: the commitment is published before the seat's value is
    taken, the revealed secret hashes to it, the seat's value is in the seed, and the
    seed re-deals the record's hand."""
    from paohuzi.core.rules import Ruleset
    from paohuzi.game.deal import Deal
    from paohuzi.server.fairness import Shuffle, commitment

    async def go() -> dict[str, Any]:
        _, token = srv.player()
        code = srv.quick(token, level="heuristic", bot_delay=0, timer=0.5, grace=0,
                         next_delay=600)
        conn = await connect(srv, code, token)
        pending = await conn.seen_or_until(lambda m: m.get("type") == "state"
                                           and m.get("next_shuffle"))
        published = pending["next_shuffle"]["commitment"]
        assert pending["next_shuffle"]["hand"] == 1 and pending["view"] is None
        seq = await conn.send({"type": "entropy", "hand": 1, "value": "c0ffee"})
        assert (await conn.until(lambda m: m.get("seq") == seq))["type"] == "ack"
        first = await conn.until(lambda m: m.get("type") == "state" and m.get("shuffle"))
        assert first["shuffle"] == {"commitment": published}
        done = await play_until_result(conn)
        await conn.ws.close()
        return {"published": published, "shuffle": done["shuffle"], "you": done["you"],
                "token": token}

    out = asyncio.run(go())
    shuffle = out["shuffle"]
    assert shuffle["commitment"] == out["published"]
    assert commitment(shuffle["secret"], shuffle["salt"]) == out["published"]
    assert shuffle["values"][out["you"]] == "c0ffee"
    assert shuffle["values"].count("") == 2  # the computers send nothing
    again = Shuffle(shuffle["secret"], shuffle["salt"], tuple(shuffle["values"]))
    assert again.seed == shuffle["seed"] and again.digest == shuffle["digest"]
    game = srv.server.storage.game(1)
    assert game is not None and game["shuffle"]["seed"] == shuffle["seed"]
    assert game["shuffle"]["first_dealer"] == again.dealer_of(3) == game["match_seats"][0]
    deal = Deal.from_seed(shuffle["seed"], Ruleset.from_dict(game["rules"]), dealer=0)
    from paohuzi.game.record import replay

    hand = replay(game)
    assert hand.deal.hands == deal.hands and hand.deal.wall == deal.wall
    auth = {"authorization": f"Bearer {out['token']}"}
    public_id = httpx.get(f"{srv.base}/api/me", headers=auth).json()["games"][0]["id"]
    steps = httpx.get(f"{srv.base}/api/games/{public_id}/steps", headers=auth).json()["shuffle"]
    assert steps["commitment_ok"] and steps["seed_ok"] and steps["deal_ok"] and steps["dealer_ok"]


def test_secret_answers_change_nothing_others_see():
    """While a claim is open, one seat's answer must not change (or even re-send) what a
    seat without an option sees: who may act on a card would tell what they hold."""
    import random as rnd

    from paohuzi.server.table import RoomConfig, Table

    checked = 0
    for seed in range(60):
        table = Table(f"t{seed}", RoomConfig.from_json({"seats": ["human"] * 3}))
        for s in range(3):
            table.apply({"k": "sit", "seat": s, "player": s + 1})
        table.apply({"k": "start", "seed": seed, "salt": "x"})
        rng = rnd.Random(seed)
        hand = table.hand
        assert hand is not None
        while not hand.ended:
            pending = hand.pending_seats()
            seat = pending[0]
            legal = hand.legal_actions(seat)
            action = legal[rng.randrange(len(legal))]
            idle = [s for s in range(3) if not hand.legal_actions(s)]
            if len(pending) > 1 and idle:
                before = {s: table.view_for(table.match_seat(s))["hash"] for s in idle}
            else:
                before = {}
            table.apply({"k": "act", "seat": table.match_seat(seat), "action": action.text,
                         "player": seat + 1, "seq": len(hand.actions) + 1})
            if before and not hand.ended and len(hand.pending_seats()) >= 1 \
                    and hand.claim is not None and hand.claim.answers:
                for s, h in before.items():
                    assert table.view_for(table.match_seat(s))["hash"] == h
                    checked += 1
    assert checked > 20


def test_an_abandoned_room_stops_dealing_and_bad_frames_are_answered(srv):
    async def go() -> None:
        _, token = srv.player()
        code = srv.quick(token, level="heuristic", bot_delay=0, timer=0.5, grace=0,
                         next_delay=0)
        time.sleep(1.0)
        assert srv.server.runtimes[code].table.hand_no == 0  # nobody came: no hand dealt
        conn = await connect(srv, code, token)
        await conn.seen_or_until(lambda m: m.get("type") == "state" and m.get("view"))
        await conn.ws.send(b"\x00\x01binary")
        err = await conn.until(lambda m: m.get("type") == "error")
        assert "binary" in err["message"]
        await conn.ws.send("[" * 1500)
        err = await conn.until(lambda m: m.get("type") == "error")
        assert "malformed JSON" in err["message"]
        await conn.send({"type": "ping"}, seq=2**60)
        err = await conn.until(lambda m: m.get("type") == "error")
        assert "'seq' must be an integer" in err["message"]
        await conn.ws.close()
        assert httpx.get(f"{srv.base}/api/games/{10**30}").status_code == 404
    asyncio.run(go())


def test_no_decision_error_names_nothing_hidden(srv):
    async def go() -> None:
        _, token = srv.player()
        code = srv.quick(token, level="heuristic", bot_delay=0.5, timer=60)
        conn = await connect(srv, code, token)
        state = await conn.to_act()
        legal = state["view"]["legal_actions"]
        # his own decision refused: the refusal lists exactly what he was shown
        wrong = next(a for a in ("pass", "peng", "hu") if a not in legal)
        seq = await conn.send({"type": "act", "action": wrong})
        reply = await conn.until(lambda m, s=seq: m.get("seq") == s)
        assert reply["type"] == "error", reply
        assert reply["message"].split("; allowed: ")[1].split(", ") == legal, reply
        assert reply["words"]["zh"] == "现在不能这样操作，请按提示重新选择", reply
        seq = await conn.send({"type": "act", "action": legal[0]})
        await conn.until(lambda m: m.get("seq") == seq)
        for _ in range(3):
            seq = await conn.send({"type": "act", "action": "pass"})
            reply = await conn.until(lambda m, s=seq: m.get("seq") == s)
            if reply["type"] != "error":
                continue
            message = reply["message"]
            if "; allowed: " in message:
                # his own decision came round meanwhile (a loaded machine: the computers
                # are quick): the refusal lists exactly what he was shown he may do
                shown = conn.states[-1]["view"]["legal_actions"]
                assert message.split("; allowed: ")[1].split(", ") == shown, reply
            else:
                assert not any(c in message for c in
                               "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"), reply
        await conn.ws.close()
    asyncio.run(go())


def test_connections_per_player_are_capped(srv):
    async def go() -> None:
        _, token = srv.player()
        code = srv.quick(token, level="heuristic", bot_delay=0.5, timer=60)
        conns = [await connect(srv, code, token) for _ in range(3)]
        ws = await websockets.connect(f"{srv.ws_url(code)}?token={token}")
        msg = json.loads(await ws.recv())
        assert msg["type"] == "error" and "too many connections" in msg["message"]
        await ws.close()
        for c in conns:
            await c.ws.close()
    asyncio.run(go())


def test_an_escape_feeds_nobodys_lifetime_totals_and_summaries_name_no_account(database):
    """A review farmed a main account's level in a standard room: two fresh accounts sat
    down and one left as soon as each hand was dealt, its escape penalty (§7.4) paid to
    the others' lifetime points and beans (+15 a hand). The penalty is still the table's
    (the room's scores) but a lifetime total counts it only against the leaver. The
    room's public 大结算 named the accounts' database ids: it no longer does. (Its
    accounts connect from one address, as in every test: the server is told to take them
    for three people, or the hand would count for nobody at all.)"""
    from paohuzi.server.matchmaking import MatchSettings

    with live_server(database, match=MatchSettings(distinct_addresses=False)) as srv:
        _escape_counts_only_against_the_leaver(srv)


def _escape_counts_only_against_the_leaver(srv: LiveServer) -> None:
    async def go() -> tuple[str, list[str], dict[str, Any]]:
        tokens = [srv.player(f"p{i}")[1] for i in range(3)]
        code = srv.room(tokens[0], seats=["human"] * 3, sit=True, timer=60,
                        next_delay=600)
        conns = [await connect(srv, code, token) for token in tokens]
        for seat in (1, 2):
            await conns[seat].send({"type": "sit", "seat": seat})
        dealt = await conns[1].until(lambda m: m.get("type") == "state" and m.get("view")
                                     and m["view"].get("hand"), timeout=30)
        leaver = dealt["you"]
        seq = await conns[1].send({"type": "leave"})
        await conns[1].until(lambda m: m.get("seq") == seq)
        state = await conns[0].until(lambda m: m.get("type") == "state" and m["view"]
                                     and m["view"].get("result"), timeout=30)
        for conn in conns:
            await conn.ws.close()
        return code, tokens, {"result": state["view"]["result"], "leaver": leaver}

    code, tokens, seen = asyncio.run(go())
    assert seen["result"]["reason"] == "escape"
    assert sum(seen["result"]["points"]) == 0 and min(seen["result"]["points"]) < 0
    totals = []
    for token in tokens:
        srv.games(token)  # recorded once its end is shown
        totals.append(httpx.get(f"{srv.base}/api/me",
                                headers={"authorization": f"Bearer {token}"}).json())
    assert totals[1]["player"]["points"] < 0
    assert totals[1]["player"]["beans"] < STARTING_BEANS
    # a red team saw the escape rated as a draw: the leaver's rating rose with the
    # others'. It is the leaver's loss, and the others' ratings stay as they were.
    fresh = 25.0, 25.0 / 3  # a new account's (OpenSkill's defaults)
    left = totals[1]["player"]["rating"]
    assert left["mu"] < fresh[0]
    for stayed in (0, 2):
        assert totals[stayed]["player"]["points"] == 0
        assert totals[stayed]["player"]["beans"] == STARTING_BEANS
        rating = totals[stayed]["player"]["rating"]
        assert (rating["mu"], rating["sigma"]) == pytest.approx(fresh, abs=1e-3)
        assert totals[stayed]["games"][0]["reason"] == "escape"
    info = httpx.get(f"{srv.base}/api/rooms/{code}").json()
    assert info["matches"] and all("player" not in row for m in info["matches"]
                                   for row in m["seats"])
    assert all(row["nickname"] for row in info["matches"][0]["seats"])
