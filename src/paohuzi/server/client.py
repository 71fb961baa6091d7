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
        import websockets

        deadline = time.monotonic() + timeout
        failed = 0  # tries in a row that did not reach the room
        self._connections = 0  # reached the room in this call (reconnects: past the first)
        while self.hands_seen < hands and time.monotonic() < deadline and self._fatal is None:
            url = self.urls[self._url_index % len(self.urls)]
            welcomed = self._connections
            try:
                await self._connection(url, hands, deadline, illegal_rate)
                return  # done, or out of time
            except (OSError, TimeoutError, websockets.ConnectionClosed,
                    websockets.InvalidHandshake) as exc:
                if not self.reconnect:
                    raise
                code = exc.rcvd.code if isinstance(exc, websockets.ConnectionClosed) \
                    and exc.rcvd is not None else None
                if code in FATAL_CLOSE:
                    self._fatal = FATAL_CLOSE[code]
                    self.errors.append(f"connection closed for good: {self._fatal}")
                    return
            failed = 0 if self._connections > welcomed else failed + 1
            self._url_index += 1  # the next address (the same one when there is one)
            await asyncio.sleep(max(0.0, min(self.reconnect_delay(failed),
                                             deadline - time.monotonic())))

    async def _connection(self, url: str, hands: int, deadline: float,
                          illegal_rate: float) -> None:
        """One connection, played on until done or out of time; its end raises."""
        import websockets

        wants = "&delta=1" if self.delta else ""
        async with websockets.connect(f"{url}?token={self.token}{wants}", max_size=2**22,
                                      open_timeout=max(0.1, min(10.0, deadline
                                                                - time.monotonic()))) as ws:
            acted_on: tuple[int, int] | None = None  # a fresh state is acted on anew
            based = False  # no delta before this connection's first full state
            self._sent_at.clear()  # acks of the last connection's messages will not come
            self._entropy_sent.clear()  # the state says whether the server has ours
            while self.hands_seen < hands and time.monotonic() < deadline:
                try:  # (a timeout scope, not wait_for: no task per message)
                    async with asyncio.timeout(max(0.1, deadline - time.monotonic())):
                        raw = await ws.recv()
                except TimeoutError:
                    return
                msg = json.loads(raw)
                if msg.get("type") == "delta":
                    applied = self.apply_delta(msg) if based else None
                    if applied is None:  # not on the state we have: ask for a fresh one
                        await self._send(ws, {"type": "resync", "hand": -1}, record=False)
                        continue
                    msg = applied
                if self.keep_messages:
                    self.messages.append(msg)
                    self.received_at.append(time.monotonic())
                kind = msg.get("type")
                if kind == "welcome":
                    await self._welcome(ws, msg)
                    continue
                if kind == "ack":
                    sent = self._sent_at.pop(msg["seq"], None)
                    if sent is not None and sent[1]:  # an action: its latency and its ack
                        self.latencies.append(time.monotonic() - sent[0])
                        self.acked.append((msg["seq"], sent[1]))
                    continue
                if kind == "error":
                    self.errors.append(msg.get("message", ""))
                    sent = self._sent_at.pop(msg.get("seq", -1), None)
                    if sent is not None and sent[1] and "slow down" in msg.get("message", ""):
                        acted_on = None  # dropped unread: decide again on a fresh state
                        await asyncio.sleep(0.5)
                        await self._send(ws, {"type": "resync", "events": 0,
                                              "hand": -1})
                    continue
                if kind != "state":
                    continue
                based = True
                self.last_state = msg
                await self._send_entropy(ws, msg)
                view = msg.get("view") or {}
                if view.get("result") is not None and not view.get("to_act"):
                    hand_no = int(msg["table"]["hand_no"])
                    key = (hand_no, -1)
                    if acted_on != key:
                        acted_on = key
                        if hand_no not in self._ended:
                            self._ended.add(hand_no)
                            self.hands_seen += 1
                        if self.hands_seen < hands:
                            await self._send(ws, {"type": "next"})
                    continue
                legal = view.get("legal_actions") or []
                if not legal:
                    continue
                key = (msg["table"]["hand_no"], msg["events_from"] + len(msg["events"]))
                if key == acted_on:
                    continue
                acted_on = key
                if self.think:
                    await asyncio.sleep(self.think_time())
                if illegal_rate and self.rng.random() < illegal_rate:
                    await self._send(ws, {"type": "act", "action": self.rng.choice(
                        ["discard 龍", "peng", "hu", "chi 一二四", "discard 三", "pass"])},
                        record=False)
                text = self.choose(legal, msg) if self.choose else self.rng.choice(legal)
                await self._send(ws, {"type": "act", "action": text})

    async def _welcome(self, ws: Any, msg: dict[str, Any]) -> None:
        """A connection reached the room: number on from what the server applied, take
        our seat, and after a reconnection ask for the events missed since our last
        state (as the browser does)."""
        self._connections += 1
        if self._connections > 1:
            self.reconnects += 1
        self.seq = max(self.seq, int(msg.get("last_seq") or 0))
        if self.seat is not None and msg.get("seat") != self.seat:
            await self._send(ws, {"type": "sit", "seat": self.seat})
        last = self.last_state
        if self._connections > 1 and last is not None:
            await self._send(ws, {"type": "resync", "hand": last["table"]["hand_no"],
                                  "events": last["events_from"] + len(last["events"])},
                             record=False)

    def apply_delta(self, delta: dict[str, Any]) -> dict[str, Any] | None:
        """The state a ``delta`` message makes of the last state (docs/protocol.md), or
        ``None`` if it is not based on that state."""
        from paohuzi.server.views import apply_changes

        last = self.last_state
        if last is None or delta.get("base") != last.get("n"):
            return None
        self.deltas += 1
        state = apply_changes(last, delta["set"], delta["unset"])
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

    async def _send_entropy(self, ws: Any, state: dict[str, Any]) -> None:
        """Our random value for the next hand's shuffle, once it is committed."""
        pending = state.get("next_shuffle")
        if pending and not pending.get("sent") and state.get("you") is not None \
                and pending["hand"] not in self._entropy_sent:
            self._entropy_sent.add(pending["hand"])
            await self._send(ws, {"type": "entropy", "hand": pending["hand"],
                                  "value": secrets.token_hex(16)}, record=False)

    async def _send(self, ws: Any, body: dict[str, Any], record: bool = True) -> None:
        seq = self.next_seq()
        self._sent_at[seq] = (time.monotonic(), body.get("action", "") if record else "")
        await ws.send(json.dumps({"seq": seq, **body}, ensure_ascii=False))
