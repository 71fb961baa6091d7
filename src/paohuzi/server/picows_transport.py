"""A lean WebSocket transport for :class:`~paohuzi.server.client.BotClient`, on ``picows``.

The load benchmark runs hundreds of bots in one process; over ``websockets`` each
message costs a task wake-up, futures and a frame parse in Python, so the load
clients took a third of the CPU the server did and shared the cores with it. ``picows``
parses frames in C and calls :meth:`_Listener.on_ws_frame` for each one, where the bot's
sans-I/O :meth:`~paohuzi.server.client.BotClient.receive` runs at once; what it decides
is sent in order, each after its thinking time (a timer, not a task). It does not ask
for ``permessage-deflate`` (the server sends small messages uncompressed anyway).

``picows`` is an optional dependency (the ``bench`` and ``dev`` extras).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

from picows import WSCloseCode, WSFrame, WSListener, WSMsgType, WSTransport, ws_connect

if TYPE_CHECKING:
    from paohuzi.server.client import BotClient

__all__ = ["ConnectionEnded", "connect"]


class ConnectionEnded(ConnectionError):
    """The server ended the connection (``close_code``: its close code, None without
    one)."""

    def __init__(self, close_code: int | None) -> None:
        super().__init__(f"connection ended (close code {close_code})")
        self.close_code = close_code


class _Listener(WSListener):
    """One connection of one bot: frames in, the bot's replies out in order."""

    def __init__(self, bot: BotClient, hands: int, illegal_rate: float,
                 done: asyncio.Future[None]) -> None:
        super().__init__()
        self.bot, self.hands, self.illegal_rate, self.done = bot, hands, illegal_rate, done
        self.transport: WSTransport | None = None
        self.parts: list[bytes] = []  # a fragmented message's frames so far
        self.close_code: int | None = None
        self.ready_at = 0.0  # when the last reply queued is sent (monotonic)
        self.timers: list[asyncio.TimerHandle] = []

    def on_ws_connected(self, transport: WSTransport) -> None:
        self.transport = transport
        self.bot._start_connection()

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        kind = frame.msg_type
        if kind is WSMsgType.TEXT or kind is WSMsgType.CONTINUATION:
            if not frame.fin or self.parts:
                self.parts.append(frame.get_payload_as_bytes())
                if not frame.fin:
                    return
                raw: str | bytes = b"".join(self.parts)
                self.parts = []
            else:
                raw = frame.get_payload_as_utf8_text()
            self._received(raw)
        elif kind is WSMsgType.CLOSE:
            self.close_code = frame.get_close_code().value
            transport.send_close(WSCloseCode.OK)
            transport.disconnect()

    def _received(self, raw: str | bytes) -> None:
        if self.done.done():
            return
        bot = self.bot
        now = time.monotonic()
        for delay, body, record in bot.receive(raw, self.hands, self.illegal_rate):
            self.ready_at = max(now, self.ready_at) + delay
            if self.ready_at <= now and not self.timers:
                self._send(body, record)
            else:
                loop = asyncio.get_running_loop()
                self.timers.append(loop.call_at(loop.time() + self.ready_at - now,
                                                self._send_queued, body, record))
        if bot.hands_seen >= self.hands:
            self.done.set_result(None)

    def _send_queued(self, body: dict[str, Any], record: bool) -> None:
        self.timers.pop(0)
        self._send(body, record)

    def _send(self, body: dict[str, Any], record: bool) -> None:
        if self.transport is not None and not self.done.done():
            self.transport.send(WSMsgType.TEXT, self.bot.encode(body, record).encode())

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        for timer in self.timers:
            timer.cancel()
        self.timers.clear()
        if not self.done.done():
            self.done.set_exception(ConnectionEnded(self.close_code))


async def connect(bot: BotClient, url: str, hands: int, deadline: float,
                  illegal_rate: float) -> None:
    """Play one connection of ``bot`` at ``url`` until it has seen ``hands`` hands end or
    ``deadline`` (monotonic) passes; raises :class:`ConnectionEnded` (or ``OSError``,
    ``TimeoutError``, ``picows.WSError``) when the connection ends first."""
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    timeout = max(0.1, min(10.0, deadline - time.monotonic()))
    transport, _ = await ws_connect(
        lambda: _Listener(bot, hands, illegal_rate, done), url,
        websocket_handshake_timeout=timeout, max_frame_size=2**22)
    try:
        async with asyncio.timeout(max(0.1, deadline - time.monotonic())):
            await done
    except TimeoutError:
        pass
    finally:
        if not done.done():
            done.cancel()  # out of time or cancelled: the listener stops here
        if not transport.is_disconnected:
            transport.send_close(WSCloseCode.OK)
            transport.disconnect()
        await transport.wait_disconnected()
