"""Rooms for friends and what the browser's pages ask of the server (issue 12): 6-digit
codes typed any way, the creator seated, "room not found", the settlement's countdown and
revealed hands, distinct computer names, the rules pages, the favicon."""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import Any

import httpx
import pytest
import websockets
from server_util import auth, live_server
from test_server_protocol import connect, play_until_result

from paohuzi.core.cards import ALL_CARDS
from paohuzi.core.mingtang import HandFacts, table_of
from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.core.settlement import di_of
from paohuzi.server.server import normal_room_code


@pytest.fixture
def srv(tmp_path):
    with live_server(str(tmp_path / "rooms.db")) as server:
        yield server


def test_codes_are_six_digits_typed_any_way_and_the_creator_may_sit(srv):
    _pid, token = srv.player("房主")
    codes = {srv.room(token) for _ in range(5)}
    assert len(codes) == 5 and all(len(c) == 6 and c.isdigit() for c in codes)
    reply = httpx.post(f"{srv.base}/api/rooms", headers=auth(token),
                       json={"sit": True, "seats": ["easy", "human", "human"]})
    assert reply.status_code == 200 and reply.json()["seat"] == 1  # the first human seat
    code = reply.json()["code"]
    typed = f" {code[:3]} {code[3:]} ".replace("1", "１")  # spaces, full-width digits
    info = httpx.get(f"{srv.base}/api/rooms/{typed}").json()
    assert info["code"] == code
    assert [s["taken"] for s in info["seats"]] == [False, True, False]
    assert info["seats"][1]["nickname"] == "房主"
    # without "sit" the creator is not seated (the API as before)
    other = httpx.get(f"{srv.base}/api/rooms/{srv.room(token)}").json()
    assert not any(s["taken"] for s in other["seats"])
    bad = httpx.post(f"{srv.base}/api/rooms", headers=auth(token), json={"sit": "yes"})
    assert bad.status_code == 400 and "sit" in bad.json()["error"]


def test_a_wrong_code_is_not_found_over_http_and_websocket(srv):
    _pid, token = srv.player()
    reply = httpx.get(f"{srv.base}/api/rooms/000000")
    assert reply.status_code == 404 and "not found" in reply.json()["error"]

    async def go() -> tuple[dict[str, Any], int | None]:
        ws = await websockets.connect(f"{srv.ws_url('000000')}?token={token}")
        msg = json.loads(await ws.recv())
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await ws.recv()
        return msg, closed.value.rcvd.code if closed.value.rcvd else None

    msg, close_code = asyncio.run(go())
    assert msg == {"type": "error", "message": "unknown room"} and close_code == 4004


def test_room_codes_as_typed_are_normalised():
    assert normal_room_code("１２３ ４５６") == "123456"
    assert normal_room_code("Xy3-kP9a") == "Xy3kP9a"


def test_the_hand_end_shows_every_hand_the_countdown_and_distinct_computers(srv):
    _pid, token = srv.player()
    code = srv.quick(token, level="heuristic", bot_delay=0, timer=60, next_delay=300)

    async def go() -> dict[str, Any]:
        conn = await connect(srv, code, token)
        await play_until_result(conn)
        state = await conn.until(lambda m: m.get("type") == "state"
                                 and m.get("next_deadline") is not None, timeout=10)
        await conn.ws.close()
        return state

    state = asyncio.run(go())
    view = state["view"]
    assert 250 < state["next_deadline"] <= 300
    # every playing seat's hand, and no 偎 face down any more
    assert all(h is not None for h in view["revealed_hands"])
    assert all("hidden" not in m for seat in view["seats"] for m in seat["melds"])
    names = [s["nickname"] for s in state["table"]["seats"]]
    computers = [n for n, s in zip(names, state["table"]["seats"], strict=True)
                 if s["kind"] != "human"]
    assert len(set(computers)) == len(computers) == 2
    assert all(n.startswith("电脑") for n in computers)


def holds(when: dict[str, Any], facts: HandFacts) -> bool:
    """A rules page condition (rulesdoc.condition_json), read as its words say."""
    if "all" in when:
        return all(holds(part, facts) for part in when["all"])
    if when.get("all_identical"):
        return facts.all_identical
    count = {"red": facts.red, "big": facts.big, "small": facts.small}[when["count"]]
    return count >= when["at_least"] if "at_least" in when else count in when["is"]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_the_rules_page_data_comes_from_the_rules_core(srv, name):
    doc = httpx.get(f"{srv.base}/api/rules/{name}").json()
    rules = Ruleset.preset(name)
    assert doc["options"] == rules.to_dict()
    assert [m["name"] for m in doc["mingtang"]] == [r.name for r in table_of(rules).rows]
    from paohuzi.core.cards import parse_cards
    from paohuzi.core.groups import GroupKind

    for row in doc["huxi"]:
        kind = GroupKind(row["kind"])
        assert row["label"] == rules.huxi.labels[kind]
        for size in ("small", "big"):
            cards = tuple(sorted(parse_cards(row[size])))
            assert row[f"{size}_huxi"] == rules.huxi.huxi(kind, cards)
            if "colour" in row:
                assert all(ALL_CARDS[c].is_red == (row["colour"] == "red") for c in cards)
    # every kind of group the table scores is shown, and both colours where they differ
    assert {GroupKind(r["kind"]) for r in doc["huxi"]} >= {
        GroupKind.SENTENCE, GroupKind.PENG, GroupKind.KAN, GroupKind.WEI, GroupKind.PAO,
        GroupKind.TI}
    for kind in (GroupKind.PENG, GroupKind.TI):
        black, red = (rules.huxi.huxi(kind, (2,) * kind.size),
                      rules.huxi.huxi(kind, (6,) * kind.size))
        colours = {r.get("colour") for r in doc["huxi"] if r["kind"] == kind.value}
        assert colours == ({"black", "red"} if black != red else {None})
    # the scoring ranges: consecutive from the least 胡息 that wins, each the settlement's own
    scoring = doc["scoring"]
    assert scoring["di"][0]["from"] == rules.min_huxi
    assert scoring["base"] == rules.base and scoring["losers"] == rules.players - 1
    for before, after in itertools.pairwise(scoring["di"]):
        assert after["from"] == before["to"] + 1
    for r in scoring["di"]:
        for h in range(r["from"], r["to"] + 1):
            assert (di_of(h, rules), di_of(h, rules, zimo=True)) == (r["di"], r["di_zimo"])
    # each 名堂's condition, read back from its words' data, holds exactly when the row does
    facts = [HandFacts(red, big, 26 - big, same) for red in range(0, 16) for big in (3, 12, 20)
             for same in (False, True)]
    for shown, row in zip(doc["mingtang"], table_of(rules).rows, strict=True):
        assert [holds(shown["when"], f) for f in facts] == [row.holds(f) for f in facts]
    missing = httpx.get(f"{srv.base}/api/rules/mahjong")
    assert missing.status_code == 404 and "qq" in missing.json()["error"]


def test_a_rooms_rules_and_the_favicon(srv):
    _pid, token = srv.player()
    code = srv.room(token, rules="hunan", base=5)
    doc = httpx.get(f"{srv.base}/api/rooms/{code}/rules").json()
    assert doc["options"]["base"] == 5 and doc["name"] == "hunan"
    assert httpx.get(f"{srv.base}/api/rooms/000000/rules").status_code == 404
    icon = httpx.get(f"{srv.base}/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg")


def test_presence_tells_who_is_connected(srv):
    tokens = [srv.player(f"友{i}")[1] for i in range(2)]
    code = srv.room(tokens[0], seats=["human", "human", "easy"], timer=60)

    async def go() -> tuple[list[int], list[int]]:
        first = await connect(srv, code, tokens[0])
        await first.send({"type": "sit", "seat": 0})
        second = await connect(srv, code, tokens[1])
        await second.send({"type": "sit", "seat": 1})
        both = await first.until(lambda m: m.get("type") == "presence"
                                 and m["connected"] == [0, 1])
        await second.ws.close()
        alone = await first.until(lambda m: m.get("type") == "presence")
        await first.ws.close()
        return both["connected"], alone["connected"]

    assert asyncio.run(go()) == ([0, 1], [0])
