"""Leak fuzz: seeded games played over real WebSockets by bot clients sending random legal
and illegal messages, with a spectator. Every state message any seat (or the spectator)
received must be exactly the engine's seat view of that seat at some point of the replayed
game — so no card hidden from a seat ever reaches it (zero tolerance) — and every shown
card reaches a seat without an option the same way whether or not another seat had one
(one message ending with the card in play, then one with what became of it)."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
import websockets
from claim_points import UNIFORM, replayed, shown_card_signatures
from server_util import live_server

from paohuzi.server.client import BotClient

pytest.importorskip("starlette")

ROOMS = int(os.environ.get("PAOHUZI_FUZZ_ROOMS", "8"))
HANDS = int(os.environ.get("PAOHUZI_FUZZ_HANDS", "2"))


async def spectate(url: str, token: str, seconds: float) -> list[dict[str, Any]]:
    messages = []
    async with websockets.connect(f"{url}?token={token}", max_size=2**22) as ws:
        try:
            while True:
                messages.append(json.loads(await asyncio.wait_for(ws.recv(), seconds)))
        except (TimeoutError, websockets.ConnectionClosed):
            pass
    return messages


def expected_views(record: dict[str, Any], hand_seat: int | None) -> list[tuple[str, list[Any]]]:
    """(view JSON without events, events) at every claim point and after every decision."""
    return replayed(record, hand_seat)[0]


def check_messages(messages: list[dict[str, Any]], games: dict[int, dict[str, Any]],
                   match_seat: int | None) -> int:
    checked = 0
    cursor: dict[int, int] = {}
    for msg in messages:
        if msg.get("type") != "state" or msg.get("view") is None:
            continue
        hand_no = msg["table"]["hand_no"]
        record = games.get(hand_no)
        if record is None:
            continue  # a hand still in progress when the run stopped
        seats = record["match_seats"]
        hand_seat = seats.index(match_seat) if match_seat in seats else None
        key = (hand_no, hand_seat)
        if key not in _cache:
            _cache[key] = expected_views(record, hand_seat)
        expected = _cache[key]
        got = json.dumps(msg["view"], sort_keys=True, ensure_ascii=False)
        start = cursor.get(hand_no, 0)
        for k in range(start, len(expected)):
            if expected[k][0] == got:
                events = expected[k][1]
                frm = msg["events_from"]
                assert msg["events"] == events[frm: frm + len(msg["events"])], (hand_no, k)
                cursor[hand_no] = k
                break
        else:
            raise AssertionError(f"a message for seat {match_seat} in hand {hand_no} is not "
                                 f"that seat's view at any step: {got[:300]}")
        checked += 1
    return checked


_cache: dict[tuple[int, int | None], list[tuple[str, list[Any]]]] = {}


def check_shown_cards(results: list[Any], storage: Any) -> dict[bool, list[tuple[Any, ...]]]:
    """Every seat's (and the spectator's) signatures of the shown cards it had no option
    on, keyed by whether another seat had one."""
    out: dict[bool, list[tuple[Any, ...]]] = {True: [], False: []}
    for code, bots, spectator_messages in results:
        games = {i + 1: g for i, g in enumerate(storage.games_in_room(code))}
        viewers = [(seat, bot.messages) for seat, bot in enumerate(bots)]
        for hand_no, record in games.items():
            for match_seat, messages in [*viewers, (None, spectator_messages)]:
                seats = record["match_seats"]
                hand_seat = seats.index(match_seat) if match_seat in seats else None
                shown = replayed(record, hand_seat)[1]
                found = shown_card_signatures(messages, None, hand_no, shown, hand_seat)
                for key in out:
                    out[key].extend(found[key])
    return out


def test_no_message_leaks_a_hidden_card(database):
    with live_server(database) as srv:
        tokens = [srv.player(f"p{i}")[1] for i in range(3)]
        _, watcher = srv.player("watcher")

        async def one_room(r: int) -> tuple[str, list[BotClient], list[dict[str, Any]]]:
            code = srv.room(tokens[0], seats=["human", "human", "human"], timer=30,
                            next_delay=0.2, bot_delay=0)
            bots = [BotClient(srv.ws_url(code), tokens[s], seat=s, seed=r * 10 + s)
                    for s in range(3)]
            spectator = asyncio.create_task(spectate(srv.ws_url(code), watcher, 3.0))
            await asyncio.gather(*(b.play(HANDS, timeout=120, illegal_rate=0.15)
                                   for b in bots))
            return code, bots, await spectator

        async def all_rooms() -> list[Any]:
            return await asyncio.gather(*(one_room(r) for r in range(ROOMS)))

        results = asyncio.run(all_rooms())
        storage = srv.server.storage
        total_games = checked = refused = 0
        for code, bots, spectator_messages in results:
            games = {i + 1: g for i, g in enumerate(storage.games_in_room(code))}
            total_games += len(games)
            _cache.clear()
            for seat, bot in enumerate(bots):
                checked += check_messages(bot.messages, games, seat)
                refused += sum(1 for m in bot.messages if m.get("type") == "error")
            checked += check_messages(spectator_messages, games, None)
        assert total_games >= ROOMS * HANDS
        signatures = check_shown_cards(results, storage)
        # cards on which another seat had an option, and cards on which nobody had one,
        # both seen, and all delivered exactly the same way
        assert len(signatures[True]) > ROOMS and len(signatures[False]) > ROOMS * 10
        assert set(signatures[True]) == set(signatures[False]) == {UNIFORM}
        assert checked > ROOMS * HANDS * 20
        assert refused > 0  # illegal messages were really sent and refused
