"""A connection's messages (server/connection.py, server/eager.py, issue 14): handed to
the socket in the poster's step when it takes them at once; when it does not, they wait
in order (none overtakes an earlier one), each within SEND_TIMEOUT, or the connection is
cut off."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from paohuzi.server import connection
from paohuzi.server.connection import Client
from paohuzi.server.eager import start
from paohuzi.server.storage import PlayerRecord

PLAYER = PlayerRecord(1, "p", 0, 0, 0, 0, 25.0, 8.333)


class Socket:
    """A WebSocket stub: takes text at once while ``open`` is set, else waits for it;
    ``fail`` makes a send raise (a closed socket)."""

    def __init__(self) -> None:
        self.taken: list[str] = []
        self.closed: list[int] = []
        self.open = asyncio.Event()
        self.open.set()
        self.fail = False

    async def send_text(self, text: str) -> None:
        if self.fail:
            raise RuntimeError("socket closed")
        await self.open.wait()
        self.taken.append(text)

    async def close(self, code: int = 1000) -> None:
        self.closed.append(code)


def client(ws: Socket) -> Client:
    return Client(ws, PLAYER, 0)  # type: ignore[arg-type]


def test_a_socket_that_takes_the_message_gets_it_in_the_posters_step() -> None:
    async def go() -> tuple[list[str], Any]:
        ws = Socket()
        c = client(ws)
        writer = c.post("a")
        return list(ws.taken), writer  # nothing awaited between posting and looking

    taken, writer = asyncio.run(go())
    assert taken == ["a"]
    assert writer is None


def test_messages_to_a_slow_socket_wait_in_order_and_none_overtakes() -> None:
    async def go() -> tuple[list[str], list[str], bool]:
        ws = Socket()
        c = client(ws)
        ws.open.clear()  # the client stops reading for a moment
        first = c.post("1")
        assert first is not None
        assert c.post("2") is first and c.post("3") is first  # behind the first
        waiting = list(ws.taken)
        ws.open.set()
        await c.send_text("4")  # returns once "4" is taken, after 1, 2, 3
        after = list(ws.taken)
        assert c.writer is None
        c.post("5")  # nothing waits any more: at once again
        return waiting, after + ws.taken[len(after):], c.dropped

    waiting, taken, dropped = asyncio.run(go())
    assert waiting == []
    assert taken == ["1", "2", "3", "4", "5"]
    assert not dropped


def test_a_client_that_does_not_read_is_cut_off_after_send_timeout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection, "SEND_TIMEOUT", 0.05)

    async def go() -> tuple[Socket, Client]:
        ws = Socket()
        c = client(ws)
        ws.open.clear()
        c.post("1")
        c.post("2")
        await c.send_text("3")  # returns when the connection is cut off
        assert c.post("4") is None  # a dropped connection takes nothing more
        ws.open.set()
        await asyncio.sleep(0.01)
        return ws, c

    ws, c = asyncio.run(go())
    assert c.dropped and ws.closed == [1013]
    assert ws.taken == [] and not c.outbox and c.writer is None


def test_a_socket_failing_at_once_cuts_the_connection_off() -> None:
    async def go() -> tuple[Socket, Client]:
        ws = Socket()
        ws.fail = True
        c = client(ws)
        await c.send_now({"type": "ack", "seq": 1})
        return ws, c

    ws, c = asyncio.run(go())
    assert c.dropped and ws.closed == [1013] and ws.taken == []


def test_send_now_encodes_as_json_dumps_without_ascii_escapes() -> None:
    async def go() -> list[str]:
        ws = Socket()
        await client(ws).send_now({"type": "chat", "text": "大三", "n": [1, 2.5, None]})
        return ws.taken

    assert asyncio.run(go()) == ['{"type": "chat", "text": "大三", "n": [1, 2.5, null]}']


def test_start_raises_what_the_coroutine_raises_before_it_waits() -> None:
    async def boom() -> None:
        raise ValueError("bad")

    with pytest.raises(ValueError, match="bad"):
        start(boom())


def test_cancelling_the_rest_cancels_the_coroutine_where_it_waits() -> None:
    seen: list[str] = []

    async def slow() -> None:
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            seen.append("cancelled inside")
            raise

    async def go() -> None:
        rest = start(slow())
        assert rest is not None
        task = asyncio.create_task(rest)
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(go())
    assert seen == ["cancelled inside"]


def test_the_rest_passes_results_and_errors_of_what_it_waits_on() -> None:
    async def waits(fut: asyncio.Future[int], out: list[int]) -> None:
        out.append(await fut)
        try:
            await asyncio.sleep(0)
            raise KeyError("late")
        except KeyError:
            out.append(-1)

    async def go() -> list[int]:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[int] = loop.create_future()
        out: list[int] = []
        rest = start(waits(fut, out))
        assert rest is not None and out == []
        loop.call_soon(fut.set_result, 7)
        await asyncio.wait_for(rest, 1.0)
        return out

    assert asyncio.run(go()) == [7, -1]


@pytest.mark.parametrize("n", [0, 1, 125, 126, 1000, 1023, 65535, 65536])
def test_text_frame_is_the_frame_websockets_writes(n: int) -> None:
    from websockets.frames import Frame, Opcode

    from paohuzi.server.transport import COMPRESS_MIN_BYTES, LargeOnlyDeflate, text_frame

    data = ("大" * n).encode()[:n]
    assert text_frame(data) == Frame(Opcode.TEXT, data).serialize(mask=False)
    if n < COMPRESS_MIN_BYTES:  # what the server leaves uncompressed under deflate
        deflate = LargeOnlyDeflate(False, False, 15, 15)
        assert text_frame(data) == Frame(Opcode.TEXT, data).serialize(
            mask=False, extensions=[deflate])


def test_short_send_path_falls_back_when_the_library_names_differ() -> None:
    """The short path reads uvicorn's and websockets' attributes: where a release
    lacks one, it answers "not now" (uvicorn's own send is used), never AttributeError."""
    from paohuzi.server.transport import SmallPlainWebSocketProtocol

    bare = SmallPlainWebSocketProtocol.__new__(SmallPlainWebSocketProtocol)
    assert bare._plain_now() is False
