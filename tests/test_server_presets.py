"""Every preset and its seat forms through the lobby's own API: a quick room against the
computers plays a hand to its settlement (issue 11: `two-player` quick rooms answered 400)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from server_util import live_server

from paohuzi.core.options import catalog
from paohuzi.game.record import replay
from paohuzi.server.client import BotClient
from paohuzi.server.economy import STARTING_BEANS
from paohuzi.server.matchmaking import MatchSettings

pytest.importorskip("starlette")

_XINGJIA = next(o for o in catalog()["options"] if o["key"] == "xingjia")["applies_to"]
ROOMS: list[dict[str, Any]] = [
    *({"rules": p["name"]} for p in catalog()["presets"]),  # every preset the core has
    {"rules": {"preset": "changde", "huayang": "full", "win_on_ti_wei": False}},
    *({"rules": name, "xingjia": True} for name in _XINGJIA),  # the 醒家, from the lobby
    {"rules": "qq", "changci": "chuji", "hands": 4},
    {"rules": {"preset": "luzhou", "players": 3}},
    {"rules": {"preset": "luzhou", "players": 2, "luzhou_mode": "deng"}},
]


@pytest.fixture(scope="module")
def srv(module_database):
    """A live server on each backend (SQLite, PostgreSQL: conftest.module_database)."""
    # its hall seats the quick computers the tests play against: their hands count
    # lifetime, as hands against the hall's computer do (Server.rate)
    with live_server(module_database, match=MatchSettings(computer="random")) as server:
        yield server


@pytest.mark.parametrize("options", ROOMS, ids=lambda o: str(o["rules"]) + (
    "+xingjia" if o.get("xingjia") else ""))
def test_a_quick_room_of_every_preset_plays_a_hand_to_settlement(srv, options):
    _, token = srv.player()
    code = srv.quick(token, level="heuristic", bot_delay=0, timer=30, next_delay=600,
                     **options)
    config = srv.server.runtimes[code].table.config
    rules = config.ruleset
    assert len(config.seats) == rules.seats  # one person, computers in every other seat
    bot = BotClient(srv.ws_url(code), token, seat=0, seed=1)
    asyncio.run(bot.play(1, timeout=120))
    games = srv.games(token)
    assert len(games) == 1
    record = srv.server.storage.games_in_room(code)[0]
    assert record["rules"] == rules.to_dict()  # the preset and options travel with it
    result = record["result"]
    assert len(result["points"]) == rules.players
    assert sum(result["points"]) + result.get("xingjia_points", 0) == 0  # nothing made
    assert replay(record).result is not None  # the engine re-plays it to the same result
    # lifetime totals: the seat's points (the 醒家's share when it sat the hand out), in a
    # room that plays its preset exactly; nothing otherwise
    seats = record["match_seats"]
    mine = result["points"][seats.index(0)] if 0 in seats else result.get("xingjia_points", 0)
    me = httpx.get(f"{srv.base}/api/me", headers={"authorization": f"Bearer {token}"}).json()
    assert me["player"]["points"] == (mine if config.standard_stakes else 0)
    # the settlement window's data: every seat (the 醒家's row too), beans actually moved
    shown = srv.server.runtimes[code].table.view_for(0)["table"]
    settlement = shown["settlement"]
    assert settlement["settled"] and settlement["points"] == [
        p if p is not None else result.get("xingjia_points", 0) for p in
        [result["points"][seats.index(s)] if s in seats else None
         for s in range(len(config.seats))]]
    assert settlement["xingjia"] == (None if not rules.xingjia else
                                     next(s for s in range(4) if s not in seats))
    moved = settlement["moved"][0] if config.standard_stakes else 0
    assert me["player"]["beans"] == STARTING_BEANS + (moved or 0)
    assert shown["levels"][0]["title"] == me["player"]["level"]["title"]
