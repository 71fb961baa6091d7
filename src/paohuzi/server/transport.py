"""The HTTP transport under the app: uvicorn with header and keep-alive timeouts, and
WebSocket compression for large messages only.

uvicorn closes idle keep-alive connections but waits forever for a request's
headers, so a client sending them a byte at a time (slowloris) holds a socket as
long as it likes. :class:`GuardedH11Protocol` closes a connection whose request
headers are not complete ``header_timeout`` seconds after the connection opened
(or after the previous response).

WebSocket messages are compressed (permessage-deflate, RFC 7692, when the client offers
it) only from :data:`COMPRESS_MIN_BYTES` up: most messages (acks, a claim window's
state change, deltas) are a few hundred bytes, which compression barely shrinks and
which cost the server a compressor pass each; RFC 7692 lets a sender leave any message
uncompressed (its RSV1 bit clear), and every client reads both. Such a message, when the
socket can take it at once, is framed here (:func:`text_frame`: two to four bytes of
header) and written, without the ``websockets`` per-frame objects; anything else goes
the library's way. The app may skip the ASGI layers too (starlette's and uvicorn's
``send`` coroutines, several per message): :data:`SEND_TEXT_NOW` in the connection's
scope ``extensions`` is that short way as a plain call, which writes the message and
answers True, or writes nothing and answers False (the app then sends it the ASGI way).
"""

from __future__ import annotations

import asyncio
import struct
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.extensions.permessage_deflate import (
    PerMessageDeflate,
    ServerPerMessageDeflateFactory,
)
from websockets.frames import Frame, Opcode
from websockets.protocol import State

from paohuzi.server.limits import Limits

__all__ = ["COMPRESS_MIN_BYTES", "SEND_TEXT_NOW", "GuardedH11Protocol", "LargeOnlyDeflate",
           "SmallPlainWebSocketProtocol", "text_frame", "uvicorn_config"]

COMPRESS_MIN_BYTES = 1024
"""WebSocket messages shorter than this (bytes of UTF-8) are sent uncompressed."""

SEND_TEXT_NOW = "paohuzi.send_text_now"
"""The ASGI scope extension (``scope["extensions"][SEND_TEXT_NOW]["send"]``) a
:class:`SmallPlainWebSocketProtocol` connection offers its app: ``send(text) -> bool``,
:meth:`SmallPlainWebSocketProtocol.send_text_now`. Absent under another server (or a
test client): the app sends the ASGI way."""


class GuardedH11Protocol(H11Protocol):
    """h11 with a deadline on each request's headers."""

    header_timeout: float = 5.0
    _header_task: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm_header_timer()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state is not h11.IDLE:  # the headers are in
            self._disarm_header_timer()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm_header_timer()
        super().handle_websocket_upgrade(event)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self._arm_header_timer()

    def _arm_header_timer(self) -> None:
        self._disarm_header_timer()
        self._header_task = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _disarm_header_timer(self) -> None:
        if self._header_task is not None:
            self._header_task.cancel()
            self._header_task = None

    def _headers_too_slow(self) -> None:
        self._header_task = None
        if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
            self.transport.close()


class LargeOnlyDeflate(PerMessageDeflate):
    """permessage-deflate that leaves a one-frame message shorter than
    :data:`COMPRESS_MIN_BYTES` uncompressed (the compressor never sees it, so the
    messages it does compress keep their shared context).

    >>> ext = LargeOnlyDeflate(False, False, 12, 12)
    >>> ext.encode(Frame(Opcode.TEXT, b'{"type":"ack","seq":1}')).rsv1
    False
    >>> big = ext.encode(Frame(Opcode.TEXT, b"x" * COMPRESS_MIN_BYTES))
    >>> big.rsv1, len(big.data) < COMPRESS_MIN_BYTES
    (True, True)
    """

    def encode(self, frame: Frame) -> Frame:
        if frame.fin and frame.opcode in (Opcode.TEXT, Opcode.BINARY) \
                and len(frame.data) < COMPRESS_MIN_BYTES:
            return frame
        return super().encode(frame)


class _LargeOnlyDeflateFactory(ServerPerMessageDeflateFactory):
    def process_request_params(self, params: Any, accepted_extensions: Any
                               ) -> tuple[list[tuple[str, str | None]], PerMessageDeflate]:
        response, ext = super().process_request_params(params, accepted_extensions)
        return response, LargeOnlyDeflate(
            ext.remote_no_context_takeover, ext.local_no_context_takeover,
            ext.remote_max_window_bits, ext.local_max_window_bits, ext.compress_settings)


def text_frame(data: bytes) -> bytes:
    """A server's (unmasked) one-frame, uncompressed text message of ``data`` (RFC 6455
    §5.2), as ``websockets`` frames it.

    >>> text_frame(b"hi")
    b'\\x81\\x02hi'
    >>> text_frame(b"x" * 300)[:4]
    b'\\x81~\\x01,'
    """
    n = len(data)
    if n < 126:
        return bytes((0x81, n)) + data
    if n < 65536:
        return struct.pack("!BBH", 0x81, 126, n) + data
    return struct.pack("!BBQ", 0x81, 127, n) + data


class SmallPlainWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (the ``websockets`` sans-I/O one, its default) with
    :class:`LargeOnlyDeflate` in place of plain permessage-deflate, same settings, and a
    short way for the messages it leaves uncompressed (:meth:`send`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        offered = self.conn.available_extensions or []
        self.conn.available_extensions = [
            _LargeOnlyDeflateFactory(
                server_max_window_bits=f.server_max_window_bits,
                client_max_window_bits=f.client_max_window_bits,
                compress_settings=f.compress_settings)
            if isinstance(f, ServerPerMessageDeflateFactory) else f for f in offered]

    def handle_connect(self, event: Any) -> None:
        """uvicorn's; the scope it builds for an upgrade offers :data:`SEND_TEXT_NOW`."""
        super().handle_connect(event)
        scope: Any = getattr(self, "scope", None)  # none when the handshake is refused
        if scope is not None:
            extensions = scope.get("extensions")
            if extensions is None:
                extensions = scope["extensions"] = {}
            extensions[SEND_TEXT_NOW] = {"send": self.send_text_now,
                                         "abort": self.abort_connection}

    async def send(self, message: Any) -> None:
        """uvicorn's ``send``; a text message :meth:`send_text_now` takes goes its way."""
        if message["type"] == "websocket.send" and message.get("bytes") is None:
            text = message.get("text")
            if text is not None and self.send_text_now(text):
                return
        await super().send(message)

    def send_text_now(self, text: str) -> bool:
        """Write ``text`` as a text message now, if it would go uncompressed on an open
        connection whose socket takes it at once, framed as uvicorn would (same bytes,
        same order: nothing of the library's waits to be written): True. Else nothing
        is written (False): uvicorn's ``send`` is for that message — which waits until
        the socket takes it, compresses it, or fails as uvicorn does."""
        if not self._plain_now():
            return False
        data = text.encode()
        if len(data) >= COMPRESS_MIN_BYTES and self.conn.extensions:
            return False
        self.transport.write(text_frame(data))
        return True

    def abort_connection(self) -> None:
        """Drop the connection now, whatever waits to be written: for a peer that takes
        nothing, not even a close frame (uvicorn's ``send`` would wait for it forever;
        the loss unblocks it)."""
        transport = getattr(self, "transport", None)
        if transport is not None:
            transport.abort()

    def _plain_now(self) -> bool:
        """uvicorn would write a data frame now, without waiting, and the library would
        frame it as :func:`text_frame` does (no extension but :class:`LargeOnlyDeflate`)."""
        try:
            conn = self.conn
            return bool(self.writable.is_set() and not self.disconnected
                        and self.handshake_complete and self.initial_response is None
                        and not self.close_sent and conn.state is State.OPEN
                        and not conn.expect_continuation_frame and not conn.writes
                        and all(type(e) is LargeOnlyDeflate for e in conn.extensions))
        except AttributeError:  # a uvicorn or websockets release that names these otherwise
            return False


def uvicorn_config(app: Any, host: str, port: int, limits: Limits | None = None,
                   **options: Any) -> uvicorn.Config:
    """The uvicorn configuration the server runs with (``paohuzi serve`` and the tests)."""
    limits = limits or Limits()
    protocol = type("Guarded", (GuardedH11Protocol,), {"header_timeout": limits.header_timeout})
    return uvicorn.Config(app, host=host, port=port, http=protocol,
                          ws=SmallPlainWebSocketProtocol,
                          timeout_keep_alive=limits.keep_alive,
                          h11_max_incomplete_event_size=8192,
                          ws_max_size=limits.max_body * 4, **options)
