"""The HTTP transport under the app: uvicorn with header and keep-alive timeouts.

uvicorn closes idle keep-alive connections but waits forever for a request's
headers, so a client sending them a byte at a time (slowloris) holds a socket as
long as it likes. :class:`GuardedH11Protocol` closes a connection whose request
headers are not complete ``header_timeout`` seconds after the connection opened
(or after the previous response).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from paohuzi.server.limits import Limits

__all__ = ["GuardedH11Protocol", "uvicorn_config"]


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


def uvicorn_config(app: Any, host: str, port: int, limits: Limits | None = None,
                   **options: Any) -> uvicorn.Config:
    """The uvicorn configuration the server runs with (``paohuzi serve`` and the tests)."""
    limits = limits or Limits()
    protocol = type("Guarded", (GuardedH11Protocol,), {"header_timeout": limits.header_timeout})
    return uvicorn.Config(app, host=host, port=port, http=protocol,
                          timeout_keep_alive=limits.keep_alive,
                          h11_max_incomplete_event_size=8192,
                          ws_max_size=limits.max_body * 4, **options)
