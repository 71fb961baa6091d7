"""A connection's messages (server/connection.py, server/eager.py, issue 14): handed to
the socket in the poster's step when it takes them at once; when it does not, they wait
in order (none overtakes an earlier one), each within SEND_TIMEOUT, or the connection is
cut off. Under our uvicorn protocol (server/transport.py) a message handed over at once
is written through the connection's SEND_TEXT_NOW, with the bytes uvicorn would write."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from starlette.websockets import WebSocketState

from paohuzi.server import connection
from paohuzi.server.connection import Client
from paohuzi.server.eager import start
from paohuzi.server.storage import PlayerRecord
from paohuzi.server.transport import SEND_TEXT_NOW

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


class DirectSocket(Socket):
    """A :class:`Socket` whose connection offers SEND_TEXT_NOW, as our uvicorn protocol
    does: it takes a message at once while ``open`` is set (recorded in ``direct``, and
    in ``taken`` as the socket's order), else declines."""

    def __init__(self) -> None:
        super().__init__()
        self.direct: list[str] = []
        self.application_state = WebSocketState.CONNECTED
        self.scope = {"extensions": {SEND_TEXT_NOW: {"send": self.send_text_now}}}

    def send_text_now(self, text: str) -> bool:
        if not self.open.is_set():
            return False
        self.direct.append(text)
        self.taken.append(text)
        return True


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


class StuckSocket(DirectSocket):
    """A peer that reads nothing, as uvicorn's protocol meets it once the socket's
    buffers are full: every send waits, the close frame's too, until the connection is
    aborted (``abort``, offered with SEND_TEXT_NOW as our protocol does)."""

    def __init__(self) -> None:
        super().__init__()
        self.open.clear()
        self.aborted = 0
        self.scope["extensions"][SEND_TEXT_NOW]["abort"] = self.abort

    async def close(self, code: int = 1000) -> None:
        await self.open.wait()
        self.closed.append(code)

    def abort(self) -> None:
        self.aborted += 1
        self.application_state = WebSocketState.DISCONNECTED


def test_a_peer_that_takes_not_even_the_close_frame_holds_nobody_up(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A review: a spectator that stopped reading froze its room for as long as it kept
    its socket open — the writer cut it off after SEND_TIMEOUT, then waited for the close
    frame to be taken, forever, and the room's broadcast waited for the writer. The
    writer ends at SEND_TIMEOUT; the close goes apart and aborts the connection when its
    frame is not taken within SEND_TIMEOUT either."""
    monkeypatch.setattr(connection, "SEND_TIMEOUT", 0.05)

    async def go() -> tuple[StuckSocket, Client, float, float]:
        loop = asyncio.get_running_loop()
        ws = StuckSocket()
        c = client(ws)
        began = loop.time()
        writer = c.post("1")
        assert writer is not None
        await asyncio.wait_for(asyncio.wait([writer]), 1.0)  # what a broadcast awaits
        held = loop.time() - began
        assert c.closing is not None and not c.closing.done()
        await asyncio.wait_for(c.closing, 1.0)
        return ws, c, held, loop.time() - began

    ws, c, held, closed = asyncio.run(go())
    assert c.dropped and held < 0.5
    assert ws.aborted == 1 and ws.closed == [] and closed < 1.0


def test_a_socket_failing_at_once_cuts_the_connection_off() -> None:
    async def go() -> tuple[Socket, Client]:
        ws = Socket()
        ws.fail = True
        c = client(ws)
        await c.send_now({"type": "ack", "seq": 1})
        assert c.closing is not None
        await c.closing  # the close frame goes apart
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


def test_the_direct_way_is_taken_when_offered_and_nothing_waits() -> None:
    async def go() -> tuple[DirectSocket, Any]:
        ws = DirectSocket()
        return ws, client(ws).post("a")

    ws, writer = asyncio.run(go())
    assert writer is None and ws.direct == ["a"] == ws.taken
    assert Client(Socket(), PLAYER, 0).write_now is None  # type: ignore[arg-type]


def test_no_message_overtakes_one_waiting_by_the_direct_way() -> None:
    """Once a message waits (the direct way declined, the socket is slow), later ones
    queue behind it even when the socket would take them directly again."""
    async def go() -> tuple[DirectSocket, list[str], list[str]]:
        ws = DirectSocket()
        c = client(ws)
        ws.open.clear()
        first = c.post("1")  # declined, then waits the ASGI way
        assert first is not None
        ws.open.set()  # the socket would take a message at once now …
        assert c.post("2") is first  # … but "1" waits: "2" goes behind it
        assert ws.taken == [] and list(c.outbox) == ["2"]
        await asyncio.wait([first])
        queued = list(ws.taken)
        assert c.post("3") is None  # nothing waits: directly, in the poster's step
        return ws, queued, list(ws.taken)

    ws, queued, taken = asyncio.run(go())
    assert queued == ["1", "2"] and taken == ["1", "2", "3"]
    assert ws.direct == ["3"]


def test_a_closed_connection_is_not_written_to_directly() -> None:
    """After the app has closed the socket (starlette's state), a message goes the ASGI
    way, which refuses it as before: the connection is cut off."""
    async def go() -> tuple[DirectSocket, Client]:
        ws = DirectSocket()
        ws.application_state = WebSocketState.DISCONNECTED
        ws.fail = True  # starlette raises for a send after close
        c = client(ws)
        await c.send_text("x")
        return ws, c

    ws, c = asyncio.run(go())
    assert ws.direct == [] and c.dropped and ws.closed == [1013]


async def _serve_one(endpoint: Any, talk: Any) -> Any:
    """Run ``endpoint`` (a WebSocket route) under our uvicorn configuration on a free
    port in this loop, and ``talk(url)`` to it; ``talk``'s answer."""
    import uvicorn
    from server_util import free_port
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute

    from paohuzi.server.transport import uvicorn_config

    port = free_port()
    app = Starlette(routes=[WebSocketRoute("/ws", endpoint)])
    server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", port, log_level="warning"))
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        return await talk(f"ws://127.0.0.1:{port}/ws")
    finally:
        server.should_exit = True
        await task


SAMPLES = ["", "a", "x" * 125, "y" * 126, json.dumps({"type": "chat", "text": "大三"},
                                                     ensure_ascii=False),
           "大" * 341, "z" * 1023, "w" * 1024, "v" * 70000]


@pytest.mark.parametrize("compression", ["deflate", None])
def test_the_direct_way_writes_the_bytes_uvicorn_writes(compression: str | None) -> None:
    """Over a real socket: each sample written by SEND_TEXT_NOW, then by uvicorn's own
    ``send`` (the ``websockets`` library's framing); the bytes are the same wherever the
    direct way takes the message (always uncompressed, compressed only from 1024 bytes
    up), and the client reads every message, in order."""
    from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

    written: list[tuple[str, bool, bytes, bytes]] = []

    class Recorder:
        def __init__(self, transport: Any) -> None:
            self.transport, self.out = transport, bytearray()

        def write(self, data: bytes) -> None:
            self.out += data
            self.transport.write(data)

        def __getattr__(self, name: str) -> Any:
            return getattr(self.transport, name)

    async def endpoint(ws: Any) -> None:
        await ws.accept()
        direct = ws.scope["extensions"][SEND_TEXT_NOW]["send"]
        protocol = direct.__self__
        recorder = protocol.transport = Recorder(protocol.transport)
        for text in SAMPLES:
            recorder.out.clear()
            took = direct(text)
            fast = bytes(recorder.out)
            recorder.out.clear()
            await WebSocketsSansIOProtocol.send(protocol, {"type": "websocket.send",
                                                           "text": text})
            written.append((text, took, fast, bytes(recorder.out)))
        await ws.receive()  # until the client closes

    def plain(text: str) -> bool:
        return len(text.encode()) < 1024 or compression is None

    async def talk(url: str) -> list[str]:
        import websockets

        async with websockets.connect(url, compression=compression, max_size=None) as ws:
            return [str(await asyncio.wait_for(ws.recv(), 10))
                    for _ in range(len(SAMPLES) + sum(map(plain, SAMPLES)))]

    got = asyncio.run(_serve_one(endpoint, talk))
    expected = []
    for text, took, fast, library in written:
        assert took == plain(text), text[:10]
        if took:
            assert fast == library, text[:10]
            expected.append(text)
        else:
            assert fast == b""
        expected.append(text)
    assert got == expected


def test_the_server_sends_by_the_direct_way(tmp_path: Any,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The real server over a real socket: every message of a connection's start (the
    welcome, the state, presence) and an ack is written by SEND_TEXT_NOW, none through
    the ASGI ``send``."""
    import websockets
    from server_util import live_server

    from paohuzi.server.transport import SmallPlainWebSocketProtocol

    direct: list[str] = []
    asgi: list[str] = []
    send_text_now = SmallPlainWebSocketProtocol.send_text_now
    send = SmallPlainWebSocketProtocol.send

    def counting_now(self: Any, text: str) -> bool:
        took = send_text_now(self, text)
        if took:
            direct.append(json.loads(text)["type"])
        return took

    async def counting_send(self: Any, message: Any) -> None:
        asgi.append(message["type"])
        await send(self, message)

    monkeypatch.setattr(SmallPlainWebSocketProtocol, "send_text_now", counting_now)
    monkeypatch.setattr(SmallPlainWebSocketProtocol, "send", counting_send)

    async def go(url: str) -> None:
        async with websockets.connect(url, compression=None) as ws:
            await ws.send(json.dumps({"type": "ping", "seq": 1}))
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if msg["type"] == "ack":
                    return

    with live_server(str(tmp_path / "game.db")) as srv:
        _, token = srv.player()
        code = srv.room(token)
        asyncio.run(go(f"{srv.ws_url(code)}?token={token}"))
    assert {"welcome", "state", "presence", "ack"} <= set(direct), direct
    assert "websocket.send" not in asgi, asgi


def test_a_close_asked_is_sent_apart_and_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every close the server asks of a connection (a rate limit's 1008, a message too
    large's 1009, a lease lost's 1012) goes through Client.close_soon: the first close
    asked wins, and a peer that takes not even the close frame is aborted within
    SEND_TIMEOUT (a review: the cluster's lease keeper awaited such a close for ever,
    and every lease of its process lapsed)."""
    monkeypatch.setattr(connection, "SEND_TIMEOUT", 0.05)

    async def go() -> tuple[Socket, StuckSocket, Client]:
        ws, stuck = Socket(), StuckSocket()
        c, s = client(ws), client(stuck)
        first = c.close_soon(1012)
        assert c.close_soon(1008) is first and c.dropped
        await asyncio.wait_for(first, 1.0)
        await asyncio.wait_for(s.close_soon(1008), 1.0)
        return ws, stuck, c

    ws, stuck, c = asyncio.run(go())
    assert ws.closed == [1012] and c.post("late") is None and ws.taken == []
    assert stuck.aborted == 1 and stuck.closed == []
