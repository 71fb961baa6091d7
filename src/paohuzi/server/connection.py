"""One WebSocket connection to a room: who it is, where it sits, what it has been sent."""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket

from paohuzi.server.storage import PlayerRecord
from paohuzi.server.views import Body

__all__ = ["SEND_TIMEOUT", "Client"]

SEND_TIMEOUT = 2.0
"""Seconds a connection may take to accept a message before it is cut off: a client that
stops reading holds a table up once, for this long at most."""


@dataclass(eq=False)
class Client:
    """One WebSocket connection."""

    ws: WebSocket
    player: PlayerRecord
    seat: int | None  # match seat, None for a spectator
    events_hand: int = 0
    events_sent: int = 0
    window_start: float = 0.0
    window_count: int = 0
    sent: int = 0  # state messages numbered per connection
    last_hash: str = ""
    delta: bool = False  # the client asked for delta messages (docs/protocol.md)
    base: Body | None = None  # what its last state (or delta) message showed
    dropped: bool = False
    presence: bool = False  # asked for the table's presence messages (issue 16)
    resync: bool | None = None  # a state to send after the lock: True a full snapshot
    sending: asyncio.Lock = field(default_factory=asyncio.Lock)  # messages leave in order

    async def send_now(self, message: dict[str, Any]) -> None:
        """Send at once; a client that does not take it within SEND_TIMEOUT is cut off."""
        await self.send_text(json.dumps(message, ensure_ascii=False))

    async def send_text(self, text: str) -> None:
        """:meth:`send_now` of a message already encoded as JSON text."""
        if self.dropped:
            return
        async with self.sending:
            try:
                async with asyncio.timeout(SEND_TIMEOUT):
                    await self.ws.send_text(text)
            except Exception:
                self.dropped = True
                with contextlib.suppress(Exception):
                    await self.ws.close(code=1013)

    def count_frame(self, now: float) -> int:
        """Count one incoming frame in this second's window; returns the window's count."""
        if now - self.window_start >= 1.0:
            self.window_start, self.window_count = now, 0
        self.window_count += 1
        return self.window_count
