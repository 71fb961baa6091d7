"""One WebSocket connection to a room: who it is, where it sits, what it has been sent."""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket, WebSocketState

from paohuzi.server.eager import start
from paohuzi.server.storage import PlayerRecord
from paohuzi.server.transport import SEND_TEXT_NOW
from paohuzi.server.views import Body

__all__ = ["MAX_CONNECTIONS_PER_PLAYER", "SEND_TIMEOUT", "Client", "to_json"]

MAX_CONNECTIONS_PER_PLAYER = 3
"""Connections one player may hold to one room (rate limits are per connection); also the
spectators' places a room keeps for each free person's seat."""

SEND_TIMEOUT = 2.0
"""Seconds a connection may take to accept a message before it is cut off: a client that
stops reading holds a table up once, for this long at most (its close frame is sent
apart from the table, and a peer that takes not even that within this time has its
connection aborted)."""

to_json = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(value, ensure_ascii=False)``, without building an encoder each call."""


@dataclass(eq=False)
class Client:
    """One WebSocket connection.

    Its messages leave in the order they are posted (:meth:`post`). A message the
    socket takes at once is handed over in the poster's step; one that has to wait
    (the client reads slowly), and every message posted after it, wait in
    :attr:`outbox` for a writer task that sends them in order, each within
    SEND_TIMEOUT, or cuts the connection off.

    Under our uvicorn protocol a message handed over at once skips the ASGI send
    layers: the connection's :data:`~paohuzi.server.transport.SEND_TEXT_NOW` writes it
    (same bytes) or declines, and only then is it sent through starlette.
    """

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
    taken_up: float | None = None  # when its last message began to be handled
    address: str = ""  # the peer address (never stored, never sent)
    outbox: deque[str] = field(default_factory=deque)  # messages waiting, in order
    writer: asyncio.Task[None] | None = None  # sends the outbox while messages wait
    closing: asyncio.Task[None] | None = None  # closes a connection cut off
    write_now: Callable[[str], bool] | None = field(init=False, repr=False)  # SEND_TEXT_NOW
    abort: Callable[[], None] | None = field(init=False, repr=False)  # SEND_TEXT_NOW's

    def __post_init__(self) -> None:
        offered = send_text_now_of(self.ws)
        self.write_now = offered.get("send")
        self.abort = offered.get("abort")

    async def send_now(self, message: dict[str, Any]) -> None:
        """Send at once; a client that does not take it within SEND_TIMEOUT is cut off."""
        await self.send_text(to_json(message))

    async def send_text(self, text: str) -> None:
        """:meth:`send_now` of a message already encoded as JSON text: returns once the
        socket has taken it (or the connection has been cut off)."""
        writer = self.post(text)
        if writer is not None:
            await asyncio.wait([writer])  # not cancelled with the caller: it sends on

    def post(self, text: str) -> asyncio.Task[None] | None:
        """Send ``text`` after every message posted before it: handed to the socket now
        if nothing waits and the socket takes it at once (``None``), else queued for the
        writer task, which is returned (awaiting it waits until the socket has taken
        ``text``, or the connection has been cut off)."""
        if self.dropped:
            return self.writer
        if self.writer is not None:
            self.outbox.append(text)
            return self.writer
        try:
            write_now = self.write_now
            if write_now is not None and \
                    self.ws.application_state is WebSocketState.CONNECTED and write_now(text):
                return None
            rest = start(self.ws.send_text(text))
        except Exception:
            self._cut_off()
            return None
        if rest is None:
            return None
        return self._spawn(self._drain(rest))

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        self.writer = asyncio.get_running_loop().create_task(coro)
        return self.writer

    async def _drain(self, rest: Coroutine[Any, Any, None]) -> None:
        """Finish the send that had to wait, then send the outbox, in order."""
        try:
            async with asyncio.timeout(SEND_TIMEOUT):
                await rest
            while self.outbox:
                text = self.outbox.popleft()
                async with asyncio.timeout(SEND_TIMEOUT):
                    await self.ws.send_text(text)
        except Exception:
            self._cut_off()
        except BaseException:  # cancelled (the server stops): what waits is not sent
            self.dropped = True
            self.outbox.clear()
            raise
        finally:
            self.writer = None

    def _cut_off(self) -> None:
        """The client did not take a message in time (or its socket failed): drop it
        now, and close its connection apart (whoever waits for this writer — a table's
        broadcast — does not wait for the close: a peer that reads nothing would never
        take the close frame either)."""
        self.writer = None
        self.close_soon(1013)  # "try again later"

    def close_soon(self, code: int) -> asyncio.Task[None]:
        """Drop this connection and close it with ``code`` in a task of its own (the
        one returned; the first close asked wins), which aborts the connection if even
        the close frame is not taken within SEND_TIMEOUT: nothing waits on a peer that
        reads nothing for longer than that."""
        self.dropped = True
        self.outbox.clear()
        if self.closing is None:
            self.closing = asyncio.get_running_loop().create_task(self._close(code))
        return self.closing

    async def _close(self, code: int) -> None:
        await close_or_abort(self.ws, code, self.abort)

    def count_frame(self, now: float) -> int:
        """Count one incoming frame in this second's window; returns the window's count."""
        if now - self.window_start >= 1.0:
            self.window_start, self.window_count = now, 0
        self.window_count += 1
        return self.window_count


def send_text_now_of(ws: Any) -> dict[str, Any]:
    """What the socket's server offers under :data:`~paohuzi.server.transport.SEND_TEXT_NOW`
    (``send``, ``abort``; empty under another server or a test client)."""
    scope = getattr(ws, "scope", None) or {}
    return dict((scope.get("extensions") or {}).get(SEND_TEXT_NOW) or {})


async def close_or_abort(ws: Any, code: int, abort: Callable[[], None] | None) -> None:
    """Close ``ws`` with ``code``; if its peer does not take the close frame within
    SEND_TIMEOUT, ``abort`` the connection (a peer that reads nothing would hold it)."""
    try:
        async with asyncio.timeout(SEND_TIMEOUT):
            await ws.close(code=code)
    except TimeoutError:
        if abort is not None:
            abort()
    except Exception:  # already closed, or it failed: nothing left to close
        pass
