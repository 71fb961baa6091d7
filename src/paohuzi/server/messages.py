"""What a client may send on a room's WebSocket, parsed once into frozen values.

:func:`parse_message` turns a text frame into one message value. A frame that is not a
JSON object with a valid ``seq`` raises :class:`MessageError` (nothing can be recorded
for it); a frame with a valid ``seq`` but a bad type or bad fields becomes
:class:`Invalid`, which the protocol refuses *after* its duplicate check, so a resent
message is still acknowledged as a duplicate and a refusal still counts its ``seq``.

>>> parse_message('{"type": "act", "seq": 3, "action": "discard x3"}')
Act(seq=3, action=Discard(card=Card('三')))
>>> parse_message('{"type": "sit", "seq": 1, "seat": "two"}')
Invalid(seq=1, kind='sit', reason="'seat' must be a seat number")
>>> parse_message('{"type": "ping", "seq": 0}')
Traceback (most recent call last):
...
paohuzi.server.messages.MessageError: 'seq' must be an integer 1..9007199254740991
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

from paohuzi.game.actions import Action, ActionTextError
from paohuzi.server.fairness import EntropyError, parse_value
from paohuzi.server.table import TableError

__all__ = ["MAX_SEQ", "Act", "Chat", "Entropy", "Invalid", "Leave", "Message", "MessageError",
           "Next", "Ping", "Resync", "Sit", "Takeover", "parse_message", "seq_of"]

MAX_SEQ = 2**53 - 1
"""Largest sequence number (what a JavaScript client can count to)."""


class MessageError(TableError):
    """A frame that is not a message at all (not JSON, not an object, no valid ``seq``)."""


@dataclass(frozen=True, slots=True)
class Act:
    """A decision (``{"type": "act", "action": "discard 三"}``)."""

    seq: int
    action: Action


@dataclass(frozen=True, slots=True)
class Sit:
    """Take a free human seat (a match seat number)."""

    seq: int
    seat: int


@dataclass(frozen=True, slots=True)
class Takeover:
    """End 托管."""

    seq: int


@dataclass(frozen=True, slots=True)
class Next:
    """Ready for the next hand."""

    seq: int


@dataclass(frozen=True, slots=True)
class Leave:
    """Leave the table: mid-hand, the escape penalty; between hands, the match ends.
    ``after``: the hand whose end the seat was shown when it chose to leave (between
    hands): if another hand has been dealt meanwhile, the seat leaves when that one ends
    (its computer plays it out), never with the escape penalty it did not choose."""

    seq: int
    after: int | None = None


@dataclass(frozen=True, slots=True)
class Entropy:
    """The seat's random value for hand ``hand``'s shuffle."""

    seq: int
    hand: int
    value: str


@dataclass(frozen=True, slots=True)
class Resync:
    """Send the state again: the events of hand ``hand`` (None: the one shown) from index
    ``events``; ``events`` None asks for a fresh snapshot."""

    seq: int
    hand: int | None
    events: int | None


@dataclass(frozen=True, slots=True)
class Chat:
    """A quick phrase or emote, by its id (quickchat.py; never free text)."""

    seq: int
    chat_id: str


@dataclass(frozen=True, slots=True)
class Ping:
    """Acknowledged, nothing else."""

    seq: int


@dataclass(frozen=True, slots=True)
class Invalid:
    """A message with a valid ``seq`` that is refused for ``reason`` (type ``kind``)."""

    seq: int
    kind: object
    reason: str


Message = Act | Sit | Takeover | Next | Leave | Entropy | Resync | Chat | Ping | Invalid


def _int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _act(seq: int, msg: dict[str, Any]) -> Message:
    text = msg.get("action")
    if not isinstance(text, str):
        return Invalid(seq, "act", "'action' must be text, e.g. 'discard 三'")
    try:
        return Act(seq, Action.from_text(text))
    except ActionTextError as exc:
        return Invalid(seq, "act", str(exc))


def _sit(seq: int, msg: dict[str, Any]) -> Message:
    seat = msg.get("seat")
    if not _int(seat):
        return Invalid(seq, "sit", "'seat' must be a seat number")
    return Sit(seq, seat)


def _entropy(seq: int, msg: dict[str, Any]) -> Message:
    hand = msg.get("hand")
    if not _int(hand):
        return Invalid(seq, "entropy", "'hand' must be a hand number")
    try:
        return Entropy(seq, hand, parse_value(msg.get("value")))
    except EntropyError as exc:
        return Invalid(seq, "entropy", str(exc))


def _chat(seq: int, msg: dict[str, Any]) -> Message:
    chat_id = msg.get("id")
    if not isinstance(chat_id, str):
        return Invalid(seq, "chat", "'id' must be a quick phrase or emote id, e.g. 'hello'")
    return Chat(seq, chat_id)


def _resync(seq: int, msg: dict[str, Any]) -> Message:
    hand = msg.get("hand")
    events = msg.get("events", 0)
    if "hand" in msg and not _int(hand):
        return Resync(seq, None, None)  # no such hand: a snapshot
    ok = _int(events) and events >= 0
    return Resync(seq, hand if _int(hand) else None, events if ok else None)


def _leave(seq: int, msg: dict[str, Any]) -> Message:
    after = msg.get("after")
    if after is None:
        return Leave(seq)
    if not (_int(after) and 0 <= after <= MAX_SEQ):
        return Invalid(seq, "leave", "'after' must be the number of the hand whose end you saw")
    return Leave(seq, after)


_PARSERS: dict[str, Callable[[int, dict[str, Any]], Message]] = {
    "act": _act,
    "sit": _sit,
    "takeover": lambda seq, _: Takeover(seq),
    "next": lambda seq, _: Next(seq),
    "leave": _leave,
    "entropy": _entropy,
    "resync": _resync,
    "chat": _chat,
    "ping": lambda seq, _: Ping(seq),
}


def parse_message(raw: str) -> Message:
    """The message a text frame holds; raises :class:`MessageError` if it has none."""
    try:
        msg = json.loads(raw)
    except (ValueError, RecursionError):
        raise MessageError("malformed JSON") from None
    if not isinstance(msg, dict):
        raise MessageError("expected a JSON object")
    seq = msg.get("seq")
    if not _int(seq) or not 1 <= seq <= MAX_SEQ:
        raise MessageError(f"'seq' must be an integer 1..{MAX_SEQ}")
    kind = msg.get("type")
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        return Invalid(seq, kind, f"unknown message type {kind!r}; expected act, sit, "
                                  "takeover, next, leave, entropy, resync, chat or ping")
    return parser(seq, msg)


def seq_of(raw: str) -> int | None:
    """The ``seq`` of a frame, if it has a readable one (for refusing it by number): an
    integer, never ``true`` (a bool is an int in Python).

    >>> seq_of('{"seq": 7}'), seq_of('{"seq": true}'), seq_of('[1]'), seq_of('{')
    (7, None, None, None)
    """
    try:
        seq = json.loads(raw).get("seq")
    except (ValueError, AttributeError, RecursionError):
        return None
    return seq if _int(seq) else None
