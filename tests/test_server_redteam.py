"""Red team of the online game (round 4, R1): each test replays an attack a hostile
player could make against a live server and fails on the hole it found (docs/protocol.md).

What existing tests already prove is not repeated here (test_server_limits.py: bodies,
nicknames, stakes, rates; test_server_fuzz.py: hidden cards in state messages;
test_server_timing.py: claim windows; test_server_protocol.py: seq, errors, spectators).
"""

from __future__ import annotations

import asyncio

import httpx
import pytest
from server_util import live_server
from test_server_protocol import connect

pytest.importorskip("starlette")

from paohuzi.server.messages import MAX_SEQ


@pytest.fixture
def srv(tmp_path):
    with live_server(str(tmp_path / "game.db")) as server:
        yield server


def auth(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


# ---- HTTP: every parameter a player chooses -----------------------------------------

@pytest.mark.parametrize("limit", ["²", "①", "𝟗", "٣"])
def test_a_leaderboard_limit_in_other_digits_is_a_clear_400(srv, limit):
    # str.isdigit() holds for superscripts and circled digits that int() cannot read
    # (it was a 500); digits of other scripts are refused too: the limit is ASCII
    reply = httpx.get(f"{srv.base}/api/leaderboard", params={"limit": limit})
    assert reply.status_code == 400, reply.text
    assert "limit must be a whole number" in reply.json()["error"]


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
