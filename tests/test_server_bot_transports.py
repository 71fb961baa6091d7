"""BotClient over both WebSocket libraries (``websockets``, ``picows``): the same sans-I/O
bot plays whole hands, is told apart from a refused connection, and acts only on what
it was shown (the load benchmark runs on ``picows``)."""

from __future__ import annotations

import asyncio

import pytest
from server_util import live_server

from paohuzi.server.client import TRANSPORTS, BotClient

pytest.importorskip("starlette")
pytest.importorskip("picows")


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    with live_server(str(tmp_path_factory.mktemp("bots") / "t.sqlite3")) as server:
        yield server


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_three_bots_play_two_hands(srv, transport):
    tokens = [srv.player(f"b{i}")[1] for i in range(3)]
    code = srv.room(tokens[0], seats=["human"] * 3, timer=30, next_delay=0, bot_delay=0)
    bots = [BotClient(srv.ws_url(code), tokens[s], seat=s, seed=7 + s, think=0.01,
                      jitter=0.5, transport=transport, keep_messages=False)
            for s in range(3)]

    async def play() -> None:
        await asyncio.gather(*(b.play(2, timeout=90) for b in bots))

    asyncio.run(play())
    assert [b.hands_seen for b in bots] == [2, 2, 2]
    assert [b.errors for b in bots] == [[], [], []]
    assert all(b.deltas > 0 for b in bots)  # the delta path, applied on the last state
    records = srv.server.storage.games_in_room(code)
    assert len(records) == 2
    for s, bot in enumerate(bots):
        # every action the bot timed was acknowledged, and the server logged it as this
        # seat's, in the same order
        assert bot.latencies and len(bot.latencies) == len(bot.acked)
        logged = [a for r in records for seat, a in _seat_actions(r) if seat == s]
        assert [text for _, text in bot.acked] == logged


def _seat_actions(record: dict) -> list[tuple[int, str]]:
    """(match seat, action text) of the decisions in a stored hand."""
    seats = record["match_seats"]
    return [(seats[a["seat"]], a["action"]) for a in record["actions"]]


@pytest.mark.parametrize("transport", TRANSPORTS)
def test_an_unknown_token_ends_the_bot_for_good(srv, transport):
    _, token = srv.player("host")
    code = srv.room(token, seats=["human", "heuristic", "heuristic"])
    bot = BotClient(srv.ws_url(code), "not-a-token", seat=0, transport=transport)
    asyncio.run(bot.play(1, timeout=20))
    assert bot.errors[-1] == "connection closed for good: unknown token"
    assert len(bot.errors) <= 2  # at most the error message before the close
    assert bot.hands_seen == 0


def test_an_unknown_transport_is_named():
    with pytest.raises(ValueError, match="unknown transport 'aiohttp'"):
        BotClient("ws://x", "t", transport="aiohttp")
