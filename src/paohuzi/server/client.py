"""A WebSocket client of the game server: bots for tests, load runs and remote play.

It speaks docs/protocol.md: numbered messages (each applied at most once),
numbered state messages, and a resync after reconnecting.
"""

from __future__ import annotations

import asyncio
import json
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BotClient", "create_player"]


async def create_player(base_url: str, nickname: str) -> tuple[int, str]:
    """Register a player over HTTP; ``(id, token)``."""
    import httpx

    async with httpx.AsyncClient(base_url=base_url, timeout=10) as http:
        reply = await http.post("/api/players", json={"nickname": nickname})
        reply.raise_for_status()
        data = reply.json()
        return int(data["player"]["id"]), str(data["token"])


TRANSPORTS = ("websockets", "picows")
"""The WebSocket libraries a :class:`BotClient` can use: ``websockets`` (the default), or
``picows`` (the load benchmark's: frames handled in a callback, no task per message)."""


def _lost_connection_errors(transport: str) -> tuple[type[BaseException], ...]:
    """What ends one connection of ``transport`` (after which the bot reconnects)."""
    if transport == "picows":
        import picows

        from paohuzi.server.picows_transport import ConnectionEnded

        return (OSError, TimeoutError, ConnectionEnded, picows.WSError)
    import websockets

    return (OSError, TimeoutError, websockets.ConnectionClosed, websockets.InvalidHandshake)


def _close_code(exc: BaseException) -> int | None:
    """The close code the server ended a connection with, if it sent one."""
    code = getattr(exc, "close_code", None)  # picows_transport.ConnectionEnded
    if isinstance(code, int):
        return code
    received = getattr(exc, "rcvd", None)  # websockets.ConnectionClosed
    return received.code if received is not None else None


FATAL_CLOSE = {4001: "unknown token", 4004: "unknown room"}
"""Close codes after which reconnecting cannot help (the browser's TableSocket stops on
them too)."""


@dataclass
class BotClient:
    """Plays a seat by choosing among the legal actions its state messages list.

    ``choose(legal_texts, state) -> text`` decides (random by default);
    ``think`` seconds pass before each action (the load benchmark's pace), drawn
    uniformly within ``think * (1 ± jitter)``.
    ``latencies`` holds, for each action, the seconds from sending it to its ack.
    With ``delta`` (the default) it asks for ``delta`` messages and applies each to the
    state before it (``messages`` holds the state it makes, ``deltas`` counts them).

    It reconnects by itself, as the browser's ``TableSocket`` does: when its connection
    ends (the server restarted, its process was killed and another took the room
    over...) it waits (:meth:`reconnect_delay`, growing with each failed try) and
    connects again — to the next of ``ws_url`` and ``fallback_urls`` (other processes
    of a cluster; behind a load balancer one address is enough) — then asks for the
    events it missed since its last state (``resync``). ``reconnects`` counts the
    connections after the first; ``reconnect=False`` ends :meth:`play` with the
    connection's error instead. Close codes 4001 and 4004 (unknown token, unknown room)
    end it for good (the reason is added to ``errors``).
    """

    ws_url: str
    token: str
    seat: int | None = None
    seed: int = 0
    think: float = 0.0
    jitter: float = 0.0
    choose: Callable[[list[str], dict[str, Any]], str] | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)
    received_at: list[float] = field(default_factory=list)  # monotonic, per message kept
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    acked: list[tuple[int, str]] = field(default_factory=list)
    hands_seen: int = 0
    last_state: dict[str, Any] | None = None
    keep_messages: bool = True
    seq: int = 0
    delta: bool = True
    deltas: int = 0
    fallback_urls: tuple[str, ...] = ()
    reconnect: bool = True
    reconnects: int = 0
    transport: str = "websockets"

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self._pace = random.Random(self.seed ^ 0x5EED)  # think times: choices unchanged
        self._backoff = random.Random(self.seed ^ 0xBAC0)  # reconnect jitter: same
        self._sent_at: dict[int, tuple[float, str]] = {}
        self._entropy_sent: set[int] = set()
        self._ended: set[int] = set()  # the hands seen ended (each counted once)
        self._url_index = 0
        self._connections = 0
        self._fatal: str | None = None
        self._acted_on: tuple[int, int] | None = None  # a fresh state is acted on anew
        self._based = False  # no delta before this connection's first full state
        if self.transport not in TRANSPORTS:
            raise ValueError(f"unknown transport {self.transport!r}: "
                             f"one of {', '.join(TRANSPORTS)}")

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    @property
    def urls(self) -> tuple[str, ...]:
        """The addresses tried in turn: ``ws_url``, then ``fallback_urls``."""
        return (self.ws_url, *self.fallback_urls)

    def reconnect_delay(self, tries: int) -> float:
        """Seconds to wait before connecting again after ``tries`` failed tries in a row:
        0.2 s doubling up to 3.2 s, each jittered down by up to a quarter (clients cut
        off together do not come back together).

        >>> b = BotClient("ws://x", "t")
        >>> all(0.15 <= b.reconnect_delay(0) <= 0.2 for _ in range(100))
        True
        >>> all(2.4 <= b.reconnect_delay(n) <= 3.2 for n in (4, 5, 30) for _ in range(100))
        True
        """
        return min(3.2, 0.2 * 2.0 ** min(tries, 8)) * (1.0 - 0.25 * self._backoff.random())

    async def play(self, hands: int, timeout: float = 120.0, illegal_rate: float = 0.0) -> None:
        """Play until ``hands`` hands have ended (or ``timeout``), reconnecting whenever
        the connection ends (see the class)."""
        deadline = time.monotonic() + timeout
        failed = 0  # tries in a row that did not reach the room
        self._connections = 0  # reached the room in this call (reconnects: past the first)
        lost = _lost_connection_errors(self.transport)
        while self.hands_seen < hands and time.monotonic() < deadline and self._fatal is None:
            url = self.urls[self._url_index % len(self.urls)]
            welcomed = self._connections
            try:
                if self.transport == "picows":
                    await self._picows_connection(url, hands, deadline, illegal_rate)
                else:
                    await self._connection(url, hands, deadline, illegal_rate)
                return  # done, or out of time
            except lost as exc:
                if not self.reconnect:
                    raise
                code = _close_code(exc)
                if code in FATAL_CLOSE:
                    self._fatal = FATAL_CLOSE[code]
                    self.errors.append(f"connection closed for good: {self._fatal}")
                    return
            failed = 0 if self._connections > welcomed else failed + 1
            self._url_index += 1  # the next address (the same one when there is one)
            await asyncio.sleep(max(0.0, min(self.reconnect_delay(failed),
                                             deadline - time.monotonic())))

    def _url_with(self, url: str) -> str:
        wants = "&delta=1" if self.delta else ""
        return f"{url}?token={self.token}{wants}"

    def _start_connection(self) -> None:
        """A new connection: acted on anew, no delta before its first full state."""
        self._acted_on = None
        self._based = False
        self._sent_at.clear()  # acks of the last connection's messages will not come
        self._entropy_sent.clear()  # the state says whether the server has ours

    async def _connection(self, url: str, hands: int, deadline: float,
                          illegal_rate: float) -> None:
        """One connection over ``websockets``, played on until done or out of time; its
        end raises. Each message is handled in turn: while the bot thinks it reads
        nothing."""
        import websockets

        async with websockets.connect(self._url_with(url), max_size=2**22,
                                      open_timeout=max(0.1, min(10.0, deadline
                                                                - time.monotonic()))) as ws:
            self._start_connection()
            while self.hands_seen < hands and time.monotonic() < deadline:
                try:  # (a timeout scope, not wait_for: no task per message)
                    async with asyncio.timeout(max(0.1, deadline - time.monotonic())):
                        raw = await ws.recv()
                except TimeoutError:
                    return
                for delay, body, record in self.receive(raw, hands, illegal_rate):
                    if delay:
                        await asyncio.sleep(delay)
                    await ws.send(self.encode(body, record))

    async def _picows_connection(self, url: str, hands: int, deadline: float,
                                 illegal_rate: float) -> None:
        """One connection over ``picows`` (the load benchmark's lean transport: frames
        are handled in its callback, no task or future per message; it does not ask for
        compression). Thinking is a timer, so messages are read meanwhile; what the bot
        decides is sent in the same order as over ``websockets``."""
        from paohuzi.server.picows_transport import connect

        await connect(self, self._url_with(url), hands, deadline, illegal_rate)

    def receive(self, raw: str | bytes, hands: int, illegal_rate: float = 0.0
                ) -> list[tuple[float, dict[str, Any], bool]]:
        """Handle one message from the server (sans I/O): what to send in reply, in
        order, each as ``(seconds to wait first, body, record)`` (``record``: an action
        whose ack is timed); :meth:`encode` numbers a body when it is sent."""
        out: list[tuple[float, dict[str, Any], bool]] = []
        msg = json.loads(raw)
        if msg.get("type") == "delta":
            applied = self.apply_delta(msg) if self._based else None
            if applied is None:  # not on the state we have: ask for a fresh one
                out.append((0.0, {"type": "resync", "hand": -1}, False))
                return out
            msg = applied
        if self.keep_messages:
            self.messages.append(msg)
            self.received_at.append(time.monotonic())
        kind = msg.get("type")
        if kind == "welcome":
            self._welcome(out, msg)
        elif kind == "ack":
            sent = self._sent_at.pop(msg["seq"], None)
            if sent is not None and sent[1]:  # an action: its latency and its ack
                self.latencies.append(time.monotonic() - sent[0])
                self.acked.append((msg["seq"], sent[1]))
        elif kind == "error":
            self.errors.append(msg.get("message", ""))
            sent = self._sent_at.pop(msg.get("seq", -1), None)
            if sent is not None and sent[1] and "slow down" in msg.get("message", ""):
                self._acted_on = None  # dropped unread: decide again on a fresh state
                out.append((0.5, {"type": "resync", "events": 0, "hand": -1}, False))
        elif kind == "state":
            self._based = True
            self.last_state = msg
            self._state(out, msg, hands, illegal_rate)
        return out

    def _state(self, out: list[tuple[float, dict[str, Any], bool]], msg: dict[str, Any],
               hands: int, illegal_rate: float) -> None:
        """A state message: our shuffle value, the next hand, or a decision."""
        self._entropy(out, msg)
        view = msg.get("view") or {}
        if view.get("result") is not None and not view.get("to_act"):
            hand_no = int(msg["table"]["hand_no"])
            key = (hand_no, -1)
            if self._acted_on != key:
                self._acted_on = key
                if hand_no not in self._ended:
                    self._ended.add(hand_no)
                    self.hands_seen += 1
                if self.hands_seen < hands:
                    out.append((0.0, {"type": "next"}, True))
            return
        legal = view.get("legal_actions") or []
        if not legal:
            return
        key = (msg["table"]["hand_no"], msg["events_from"] + len(msg["events"]))
        if key == self._acted_on:
            return
        self._acted_on = key
        delay = self.think_time() if self.think else 0.0
        if illegal_rate and self.rng.random() < illegal_rate:
            out.append((delay, {"type": "act", "action": self.rng.choice(
                ["discard 龍", "peng", "hu", "chi 一二四", "discard 三", "pass"])}, False))
            delay = 0.0
        text = self.choose(legal, msg) if self.choose else self.rng.choice(legal)
        out.append((delay, {"type": "act", "action": text}, True))

    def _welcome(self, out: list[tuple[float, dict[str, Any], bool]],
                 msg: dict[str, Any]) -> None:
        """A connection reached the room: number on from what the server applied, take
        our seat, and after a reconnection ask for the events missed since our last
        state (as the browser does)."""
        self._connections += 1
        if self._connections > 1:
            self.reconnects += 1
        self.seq = max(self.seq, int(msg.get("last_seq") or 0))
        if self.seat is not None and msg.get("seat") != self.seat:
            out.append((0.0, {"type": "sit", "seat": self.seat}, True))
        last = self.last_state
        if self._connections > 1 and last is not None:
            out.append((0.0, {"type": "resync", "hand": last["table"]["hand_no"],
                              "events": last["events_from"] + len(last["events"])}, False))

    def apply_delta(self, delta: dict[str, Any]) -> dict[str, Any] | None:
        """The state a ``delta`` message makes of the last state (docs/protocol.md), or
        ``None`` if it is not based on that state."""
        from paohuzi.server.views import apply_changes

        last = self.last_state
        if last is None or delta.get("base") != last.get("n"):
            return None
        self.deltas += 1
        state = apply_changes(last, delta["set"], delta["unset"], copy=self.keep_messages)
        state.update(type="state", n=delta["n"], events_from=delta["events_from"],
                     events=delta["events"], hash=delta["hash"], deadline=delta["deadline"],
                     next_deadline=delta.get("next_deadline"),
                     turn_deadline=delta.get("turn_deadline"))
        return state

    def think_time(self) -> float:
        """Seconds to think before the next action.

        >>> b = BotClient("ws://x", "t", think=1.0, jitter=0.5)
        >>> all(0.5 <= b.think_time() <= 1.5 for _ in range(100))
        True
        """
        return self.think * (1.0 + self.jitter * (2.0 * self._pace.random() - 1.0))

    def _entropy(self, out: list[tuple[float, dict[str, Any], bool]],
                 state: dict[str, Any]) -> None:
        """Our random value for the next hand's shuffle, once it is committed."""
        pending = state.get("next_shuffle")
        if pending and not pending.get("sent") and state.get("you") is not None \
                and pending["hand"] not in self._entropy_sent:
            self._entropy_sent.add(pending["hand"])
            out.append((0.0, {"type": "entropy", "hand": pending["hand"],
                              "value": secrets.token_hex(16)}, False))

    def encode(self, body: dict[str, Any], record: bool = True) -> str:
        """``body`` numbered, as the text to send now (``record``: time its ack)."""
        seq = self.next_seq()
        self._sent_at[seq] = (time.monotonic(), body.get("action", "") if record else "")
        return json.dumps({"seq": seq, **body}, ensure_ascii=False)
