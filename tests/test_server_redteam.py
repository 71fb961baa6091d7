"""Red team of the online game (round 4, R1): each test replays an attack a hostile
player could make against a live server and fails on the hole it found (docs/protocol.md).

What existing tests already prove is not repeated here (test_server_limits.py: bodies,
nicknames, stakes, rates; test_server_fuzz.py: hidden cards in state messages;
test_server_timing.py: claim windows; test_server_protocol.py: seq, errors, spectators).
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
import websockets
from server_util import LiveServer, live_server
from test_server_protocol import connect

pytest.importorskip("starlette")

from paohuzi.server.limits import Limits
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
