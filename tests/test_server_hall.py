"""The game hall (issue 11 items 2, 4, 5): presets and options served by the API, 局数
and 大结算, the bean economy (starting balance, 场次 with entry minimums, beans never
below zero, the daily relief, the leaderboard)."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time

import httpx
import pytest
from server_util import auth, live_server

pytest.importorskip("starlette")

from paohuzi.core import rules as rules_module
from paohuzi.core.errors import RulesetError
from paohuzi.core.options import catalog
from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.server.backends import open_storage
from paohuzi.server.economy import (
    CHANGCI,
    RELIEF,
    RELIEF_BELOW,
    STARTING_BEANS,
    EntryRefused,
    ReliefRefused,
    changci,
    pay,
)
from paohuzi.server.hall import claim_relief
from paohuzi.server.matchmaking import MatchSettings
from paohuzi.server.runtime import Runtime
from paohuzi.server.server import Server
from paohuzi.server.storage import PlayerUpdate
from paohuzi.server.table import RoomConfig, TableError


@pytest.fixture(scope="module")
def srv(module_database):
    """A live server on each backend (SQLite, PostgreSQL: conftest.module_database)."""
    with live_server(module_database) as server:
        yield server


# ---- presets and options from the API ------------------------------------------------

def test_the_presets_endpoint_lists_every_preset_and_option_with_its_defaults(srv):
    data = httpx.get(f"{srv.base}/api/presets").json()
    assert [p["name"] for p in data["presets"]] == list(PRESETS)
    fields = [f.name for f in dataclasses.fields(Ruleset) if f.name != "name"]
    assert [o["key"] for o in data["options"]] == fields
    for spec in data["options"]:
        assert spec["label"]["zh"] and spec["label"]["en"]
        for preset in spec["applies_to"]:
            assert spec["default"][preset] == getattr(Ruleset.preset(preset), spec["key"])
    by_key = {o["key"]: o for o in data["options"]}
    assert by_key["xingjia"]["applies_to"] == ["hunan", "luzhou"]  # hidden for the others
    # ... and while the players are not three (Ruleset refuses it: the form must hide it)
    assert by_key["xingjia"]["needs"] == {"players": 3}
    with pytest.raises(RulesetError):
        Ruleset.preset("hunan", xingjia=True, players=2)
    assert by_key["set_aside"]["needs"] == {"players": 2} and "needs" not in by_key["players"]
    # a review: 湖南's "第四座收筹" was offered with no 4th seat ticked; it is offered once
    # the 醒家 is (and still applies to hunan: its own rules have no 醒家)
    assert by_key["xingjia_paid"]["needs"] == {"players": 3, "xingjia": True}
    assert by_key["xingjia_paid"]["applies_to"] == ["hunan", "luzhou"]
    assert by_key["luzhou_mode"]["applies_to"] == ["luzhou"]
    assert [c["value"] for c in by_key["huxi_table"]["choices"]] == ["qq", "luzhou"]
    assert by_key["huayang"]["applies_to"] == ["changde"]
    assert [c["value"] for c in by_key["huayang"]["choices"]] == ["basic", "half", "full"]
    assert by_key["base"]["high"] == 100  # a room's stakes are narrower than the core's
    assert [c["key"] for c in data["changci"]] == [c.key for c in CHANGCI]
    assert data["levels"][0]["title"] == "新手"
    hands = next(o for o in data["room_options"] if o["key"] == "hands")
    assert [c["value"] for c in hands["choices"]] == [0, 4, 8, 16]


def test_a_preset_added_to_the_core_appears_with_no_change(monkeypatch):
    monkeypatch.setitem(rules_module.PRESETS, "test-hall", {"min_huxi": 18})
    data = catalog()
    added = next(p for p in data["presets"] if p["name"] == "test-hall")
    assert added["rules"]["min_huxi"] == 18 and added["label"]["en"] == "test-hall"
    min_huxi = next(o for o in data["options"] if o["key"] == "min_huxi")
    assert min_huxi["default"]["test-hall"] == 18


# ---- the bean transfer never takes a player below zero ------------------------------

def test_pay_caps_every_payer_at_what_he_holds_and_keeps_the_zero_sum():
    rng = random.Random(11)
    for _ in range(500):
        n = rng.randint(2, 4)
        owed = [rng.randint(-200, 0) for _ in range(n - 1)]
        owed.append(-sum(owed))
        rng.shuffle(owed)
        held = [None if rng.random() < 0.2 else rng.randint(0, 150) for _ in range(n)]
        moved = pay(owed, held)
        assert sum(moved) == 0
        for o, h, m in zip(owed, held, moved, strict=True):
            if o < 0:
                assert m == (o if h is None else -min(-o, h))  # pays all he can, no more
            else:
                assert 0 <= m <= o  # gets at most what he was owed


def test_a_broke_loser_pays_what_he_holds_and_the_winner_gets_what_was_paid(database):
    storage = open_storage(database)
    loser, _ = storage.create_player("broke", beans=30)
    winner, _ = storage.create_player("rich", beans=500)
    storage.create_room("r1", {})
    # the rules: loser -90, a computer -90, winner +180
    updates = [PlayerUpdate(loser.id, -90, -90, False, 25.0, 8.0),
               PlayerUpdate(winner.id, 180, 180, True, 25.0, 8.0)]
    entry = {"k": "settled", "hand": 1}
    storage.settle_hand("r1", 1, None, [], updates, entry)
    after_loser, after_winner = storage.player(loser.id), storage.player(winner.id)
    assert after_loser is not None and after_winner is not None
    assert (after_loser.beans, after_loser.points) == (0, -90)  # §7 points stay as computed
    assert after_winner.beans == 500 + 30 + 90
    assert entry["beans"] == {str(loser.id): -30, str(winner.id): 120}
    storage.close()


# ---- 场次: entry minimum, multiplier ------------------------------------------------

def test_a_new_player_starts_with_beans_and_a_stake_room_refuses_too_few(srv):
    _, token = srv.player("新人")
    me = httpx.get(f"{srv.base}/api/me", headers=auth(token)).json()
    assert me["player"]["beans"] == STARTING_BEANS
    reply = httpx.post(f"{srv.base}/api/rooms/quick", headers=auth(token),
                       json={"rules": "qq", "changci": "gaoji"})
    assert reply.status_code == 403
    assert "高级场" in reply.json()["error"] and str(changci("gaoji").entry) in \
        reply.json()["error"] and str(STARTING_BEANS) in reply.json()["error"]
    reply = httpx.post(f"{srv.base}/api/rooms", headers=auth(token),
                       json={"rules": "qq", "changci": "nope"})
    assert reply.status_code == 400 and "changci" in reply.json()["error"]
    reply = httpx.post(f"{srv.base}/api/rooms", headers=auth(token),
                       json={"rules": "qq", "changci": "chuji"})
    assert reply.status_code == 200
    config = reply.json()["config"]
    assert config["changci"] == "chuji" and config["rules"]["multiplier"] == 2


def test_the_changci_multiplier_is_standard_and_a_sit_below_the_minimum_is_refused(database):
    config = RoomConfig.from_json({"rules": "hunan", "changci": "zhongji"})
    assert config.ruleset.multiplier == 5 and config.standard_stakes
    assert not RoomConfig.from_json({"changci": "zhongji", "multiplier": 2}).standard_stakes
    server = Server(open_storage(database))
    table = server.create_room({"changci": "zhongji", "seats": ["human"] * 3})
    runtime = server.runtimes[table.code]
    poor, _ = server.storage.create_player("poor", beans=4999)
    rich, _ = server.storage.create_player("rich", beans=5000)
    try:
        with pytest.raises(EntryRefused, match=r"中级场.*5000 beans.*you hold 4999"):
            runtime.check_entry(poor.id)
        runtime.check_entry(rich.id)  # enough: no error
    finally:
        server.storage.close()


# ---- the daily relief -------------------------------------------------------------

def test_the_relief_is_for_the_broke_once_per_utc_day(database):
    storage = open_storage(database)
    rec, _ = storage.create_player("broke", beans=RELIEF_BELOW - 1)
    day = 1_700_000_000.0
    assert claim_relief(storage, rec, now=day) == RELIEF_BELOW - 1 + RELIEF
    storage.create_room("r", {})  # he loses it all (to the computers) the same day
    storage.settle_hand("r", 1, None, [], [PlayerUpdate(rec.id, -9000, -9000, False, 25.0,
                                                        8.0)], {"k": "settled", "hand": 1})
    broke_again = storage.player(rec.id)
    assert broke_again is not None and broke_again.beans == 0
    with pytest.raises(ReliefRefused, match="already"):
        claim_relief(storage, broke_again, now=day + 3600)  # the same UTC day
    assert claim_relief(storage, broke_again, now=day + 86400) == RELIEF  # the next day
    rich = storage.player(rec.id)
    assert rich is not None
    with pytest.raises(ReliefRefused, match=f"under {RELIEF_BELOW}"):
        claim_relief(storage, rich, now=day + 2 * 86400)
    storage.close()


def test_the_relief_endpoint_refuses_a_player_with_beans(srv):
    _, token = srv.player("有钱")
    reply = httpx.post(f"{srv.base}/api/relief", headers=auth(token))
    assert reply.status_code == 409 and str(STARTING_BEANS) in reply.json()["error"]
    assert httpx.post(f"{srv.base}/api/relief").status_code == 401


# ---- the leaderboard ----------------------------------------------------------------

def test_the_leaderboard_ranks_players_who_played_by_points_or_beans(database):
    storage = open_storage(database)
    ids = [storage.create_player(f"p{i}", beans=1000)[0].id for i in range(4)]
    storage.create_room("r", {})
    storage.settle_hand("r", 1, None, [], [
        PlayerUpdate(ids[0], -30, -30, False, 25.0, 8.0),
        PlayerUpdate(ids[1], 60, 60, True, 25.0, 8.0),
        PlayerUpdate(ids[2], -30, -30, False, 25.0, 8.0)], {"k": "settled", "hand": 1})
    board = storage.leaderboard("points", 10)
    assert [p.nickname for p in board] == ["p1", "p0", "p2"]  # p3 never played
    assert storage.leaderboard("beans", 1)[0].beans == 1060
    storage.close()


def test_the_leaderboard_endpoint_checks_its_parameters(srv):
    reply = httpx.get(f"{srv.base}/api/leaderboard", params={"by": "points", "limit": 5})
    assert reply.status_code == 200 and reply.json()["by"] == "points"
    for params in ({"by": "rating"}, {"limit": "0"}, {"limit": "101"}, {"top": "3"}):
        bad = httpx.get(f"{srv.base}/api/leaderboard", params=params)
        assert bad.status_code == 400 and bad.json()["error"], params


# ---- 局数 and 大结算 ----------------------------------------------------------------

def _deal(runtime: Runtime) -> None:
    t = runtime.table
    runtime.commit(t.new_commit_entry())
    runtime.commit(t.new_start_entry())


def _play_out(runtime: Runtime) -> None:
    t = runtime.table
    hand = t.hand
    assert hand is not None
    while not hand.ended:
        seat = hand.pending_seats()[0]
        action = hand.legal_actions(seat)[-1]
        runtime.commit({"k": "act", "seat": t.match_seat(seat), "action": action.text,
                        "player": None})
    runtime.settle_if_needed()


async def _settled(runtime: Runtime, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while runtime.table.needs_settlement():
        assert time.monotonic() < deadline, "the table stayed unsettled"
        await asyncio.sleep(0.01)


def test_hands_must_be_one_of_the_offered_counts():
    for bad in (3, -1, True, "8", 1000):
        with pytest.raises(TableError, match="hands"):
            RoomConfig.from_json({"hands": bad})


def test_a_room_of_four_hands_ends_its_match_with_a_summary_stored_and_shown(database):
    server = Server(open_storage(database))

    async def go() -> None:
        table = server.create_room({"hands": 4, "claim_window": 0.01,
                                    "seats": ["human"] * 3})
        runtime = server.runtimes[table.code]
        for seat in range(3):
            rec, _ = server.storage.create_player(f"p{seat}", beans=STARTING_BEANS)
            runtime.commit({"k": "sit", "seat": seat, "player": rec.id, "nickname": f"p{seat}"})
        for n in range(4):
            assert table.match is not None and not table.match.over, n
            _deal(runtime)
            _play_out(runtime)
            await _settled(runtime)
        assert table.match is not None and table.match.over and table.match_end == "hands"
        summary = table.match_summary()
        assert summary is not None and summary["hands"] == 4 and summary["reason"] == "hands"
        rows = summary["seats"]
        assert [r["points"] for r in rows] == table.match.points
        assert sum(r["points"] for r in rows) == 0
        assert sum(r["wins"] for r in rows) == sum(
            1 for h in table.match.history if h.result.winner is not None)
        for r in rows:
            assert r["beans"] is not None  # every seat a person: beans actually moved
            assert r["best"]["points"] == max(h.points[r["seat"]] for h in table.match.history)
        assert server.storage.matches_in_room(table.code) == [summary]  # stored once
        for seat in range(3):  # sent to every seat (and spectators)
            view = table.view_for(seat)["table"]
            assert view["summary"] == summary and view["match"]["played"] == 4
            assert view["levels"][seat]["title"] == "新手"
        assert table.view_for(None)["table"]["summary"] == summary
        # the next hand starts a new match
        _deal(runtime)
        assert table.match_no == 2 and table.view_for(0)["table"]["summary"] is None
        runtime.stop()

    try:
        asyncio.run(go())
    finally:
        server.storage.close()


# ---- the hall's figures on one process ----------------------------------------------------

def test_the_hall_counts_tables_with_a_person_connected_and_each_person_once(tmp_path):
    websockets = pytest.importorskip("websockets")

    def xinshou(base):
        row = next(c for c in httpx.get(f"{base}/api/hall").json()["changci"]
                   if c["key"] == "xinshou")
        return row["online"], row["tables"], row["waiting"]

    async def scenario(srv, room, me, other, queued):
        assert xinshou(srv.base) == (0, 0, 0)  # a room nobody is connected to
        seated = await websockets.connect(f"{srv.ws_url(room)}?token={me}")
        watching = await websockets.connect(f"{srv.ws_url(room)}?token={other}")
        again = await websockets.connect(f"{srv.ws_url(room)}?token={me}")  # a 2nd tab
        for ws in (seated, watching, again):
            assert '"welcome"' in await asyncio.wait_for(ws.recv(), 10)
        assert xinshou(srv.base) == (1, 1, 0)  # the spectator is not counted
        reply = httpx.post(f"{srv.base}/api/match", json={"changci": "xinshou"},
                           headers=auth(queued))
        assert reply.json()["status"] == "waiting"
        assert xinshou(srv.base) == (2, 1, 1)
        await seated.close()
        await again.close()
        deadline = time.monotonic() + 5
        while xinshou(srv.base) != (1, 0, 1):
            assert time.monotonic() < deadline, xinshou(srv.base)
            await asyncio.sleep(0.02)
        await watching.close()

    with live_server(str(tmp_path / "hall.db"),
                     match=MatchSettings(wait=600.0, tick=20.0)) as srv:
        me, other, queued = (srv.player(n)[1] for n in ("坐", "看", "等"))
        reply = httpx.post(f"{srv.base}/api/rooms", json={
            "seats": ["human"] * 3, "changci": "xinshou", "sit": True}, headers=auth(me))
        assert reply.status_code == 200, reply.text
        asyncio.run(scenario(srv, reply.json()["code"], me, other, queued))
