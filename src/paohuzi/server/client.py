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


@dataclass
class BotClient:
    """Plays a seat by choosing among the legal actions its state messages list.

    ``choose(legal_texts, state) -> text`` decides (random by default);
    ``think`` seconds pass before each action (the load benchmark's pace), drawn
    uniformly within ``think * (1 ± jitter)``.
    ``latencies`` holds, for each action, the seconds from sending it to its ack.
    With ``delta`` (the default) it asks for ``delta`` messages and applies each to the
    state before it (``messages`` holds the state it makes, ``deltas`` counts them).
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

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self._pace = random.Random(self.seed ^ 0x5EED)  # think times: choices unchanged
        self._sent_at: dict[int, tuple[float, str]] = {}
        self._entropy_sent: set[int] = set()

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    async def play(self, hands: int, timeout: float = 120.0, illegal_rate: float = 0.0) -> None:
        """Play until ``hands`` hands have ended (or ``timeout``)."""
        import websockets

        deadline = time.monotonic() + timeout
        wants = "&delta=1" if self.delta else ""
        async with websockets.connect(f"{self.ws_url}?token={self.token}{wants}",
                                      max_size=2**22) as ws:
            acted_on: tuple[int, int] | None = None
            while self.hands_seen < hands and time.monotonic() < deadline:
                try:
                    raw = await asyncio.wait_for(ws.recv(), timeout=max(0.1, deadline
                                                                        - time.monotonic()))
                except TimeoutError:
                    break
                msg = json.loads(raw)
                if msg.get("type") == "delta":
                    applied = self.apply_delta(msg)
                    if applied is None:  # not on the state we have: ask for a fresh one
                        await self._send(ws, {"type": "resync", "hand": -1}, record=False)
                        continue
                    msg = applied
                if self.keep_messages:
                    self.messages.append(msg)
                    self.received_at.append(time.monotonic())
                kind = msg.get("type")
                if kind == "welcome":
                    self.seq = max(self.seq, int(msg.get("last_seq") or 0))
                    if self.seat is not None and msg.get("seat") != self.seat:
                        await self._send(ws, {"type": "sit", "seat": self.seat})
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
                self.last_state = msg
                await self._send_entropy(ws, msg)
                view = msg.get("view") or {}
                if view.get("result") is not None and not view.get("to_act"):
                    key = (msg["table"]["hand_no"], -1)
                    if acted_on != key:
                        acted_on = key
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
