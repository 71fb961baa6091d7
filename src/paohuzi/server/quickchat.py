"""Quick chat (issue 16): a fixed list of table phrases and emotes, sent by id only —
never free text — and rate-limited per player.

>>> phrase("hurry")["zh"]
'快点吧，等得花儿都谢了'
>>> phrase("shout")
Traceback (most recent call last):
...
paohuzi.server.quickchat.ChatRefused: unknown quick phrase id 'shout'; see GET /api/hall
>>> limiter = ChatLimiter(rate=0.0, burst=1)
>>> limiter.check(7, now=0.0)
>>> limiter.check(7, now=0.1)
Traceback (most recent call last):
...
paohuzi.server.quickchat.ChatRefused: too many quick phrases: wait a few seconds
"""

from __future__ import annotations

from typing import Any, Protocol

from paohuzi.server.limits import RateLimiter
from paohuzi.server.refusals import refusal
from paohuzi.server.table import TableError

__all__ = ["CHAT_RATE", "EMOTES", "PHRASES", "ChatLimiter", "ChatRefused", "catalog",
           "phrase"]

PHRASES: tuple[tuple[str, str, str], ...] = (
    ("hello", "大家好，很高兴见到各位", "Hello everyone, glad to meet you"),
    ("hurry", "快点吧，等得花儿都谢了", "Hurry up, the flowers are wilting"),
    ("nice", "打得好！", "Nice play!"),
    ("lucky", "运气真好", "What luck"),
    ("again", "再来一局", "One more hand"),
    ("sorry", "不好意思，刚才走开了", "Sorry, I was away"),
    ("thanks", "谢谢，承让了", "Thanks, you let me win"),
    ("bye", "我要走了，下次再玩", "I have to go, see you next time"),
)
"""The quick phrases: (id, Chinese, English)."""

EMOTES: tuple[tuple[str, str], ...] = (
    ("smile", "😊"), ("laugh", "😂"), ("cry", "😢"), ("angry", "😠"), ("thumbs", "👍"),
    ("flower", "🌹"),
)
"""The emotes: (id, symbol)."""

CHAT_RATE: tuple[float, int] = (0.25, 3)
"""Quick chat per player: 3 at once, then one every 4 seconds."""

_BY_ID: dict[str, dict[str, str]] = {
    **{pid: {"id": pid, "kind": "phrase", "zh": zh, "en": en} for pid, zh, en in PHRASES},
    **{eid: {"id": eid, "kind": "emote", "zh": sym, "en": sym} for eid, sym in EMOTES},
}


class ChatRefused(TableError):
    """A quick-chat message refused: an unknown id, or too many in a short time."""


def phrase(chat_id: object) -> dict[str, str]:
    """The phrase or emote ``chat_id`` names; :class:`ChatRefused` otherwise."""
    found = _BY_ID.get(chat_id) if isinstance(chat_id, str) else None
    if found is None:
        shown = chat_id[:24] if isinstance(chat_id, str) else chat_id
        raise ChatRefused(f"unknown quick phrase id {shown!r}; see GET /api/hall")
    return found


def catalog() -> dict[str, Any]:
    """What a table's quick-chat bar is drawn from (``GET /api/hall``)."""
    return {"phrases": [{"id": p, "zh": zh, "en": en} for p, zh, en in PHRASES],
            "emotes": [{"id": e, "symbol": sym} for e, sym in EMOTES],
            "rate": {"per_second": CHAT_RATE[0], "burst": CHAT_RATE[1]}}


class SharedLimit(Protocol):
    """A limit counted outside this process (cluster.RedisRateLimiter)."""

    def allow(self, key: str) -> bool: ...


class ChatLimiter:
    """Quick chat per player (all his rooms and connections together; with ``shared``,
    on every process of a cluster together)."""

    def __init__(self, rate: float = CHAT_RATE[0], burst: int = CHAT_RATE[1],
                 shared: SharedLimit | None = None) -> None:
        self._limiter = RateLimiter(rate, burst)
        self._shared = shared

    def check(self, player: int, now: float | None = None) -> None:
        """Count one message of ``player``; :class:`ChatRefused` beyond the rate."""
        key = str(player)
        allowed = self._shared.allow(key) if self._shared is not None \
            else self._limiter.allow(key, now)
        if not allowed:
            raise refusal(ChatRefused, "too_many_phrases")
