"""The game hall's HTTP side (issue 11): what the lobby is built from (presets, options,
room options, 场次, levels, computer players — ``GET /api/presets``), the hall's figures
(``GET /api/hall``: people online and tables playing per 场次, from every process of a
cluster), the leaderboard and the daily relief. Rules and option metadata come from the
core (:mod:`paohuzi.core.options`); the economy's numbers from
:mod:`paohuzi.server.economy`.

>>> data = lobby_catalog()
>>> [c["key"] for c in data["changci"]]
['xinshou', 'chuji', 'zhongji', 'gaoji']
>>> base = next(o for o in data["options"] if o["key"] == "base")
>>> base["low"], base["high"]
(1, 100)
>>> leaderboard_query({"by": "beans", "limit": "5"})
('beans', 5)
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from paohuzi.core.options import catalog
from paohuzi.players import PLAYER_NAMES
from paohuzi.server.economy import (
    CHANGCI,
    DEFAULT_CHANGCI,
    RELIEF,
    RELIEF_BELOW,
    STARTING_BEANS,
    ReliefRefused,
    practice,
    utc_day,
)
from paohuzi.server.inputs import BadInput
from paohuzi.server.levels import level_of, levels
from paohuzi.server.refusals import refusal
from paohuzi.server.rulesdoc import DI_NAMES
from paohuzi.server.storage import PlayerRecord, Storage
from paohuzi.server.table import HANDS, STAKES, TIMINGS

if TYPE_CHECKING:
    from paohuzi.server.matchmaking import Ticket
    from paohuzi.server.runtime import Runtime

__all__ = ["HALL_PREFIX", "MAX_LEADERBOARD", "Census", "SharedHall", "claim_relief",
           "hall_counts", "leaderboard_json", "leaderboard_query", "lobby_catalog"]

MAX_LEADERBOARD = 100
"""Most rows one leaderboard request returns."""

COMPUTER_LABELS: dict[str, dict[str, str]] = {
    "easy": {"zh": "简单", "en": "Easy"}, "normal": {"zh": "普通", "en": "Normal"},
    "hard": {"zh": "困难", "en": "Hard"}, "random": {"zh": "随机", "en": "Random"},
    "heuristic": {"zh": "启发式", "en": "Heuristic"}, "search": {"zh": "搜索", "en": "Search"},
}

ROOM_LABELS: dict[str, dict[str, str]] = {
    "hands": {"zh": "局数", "en": "Hands per match"},
    "changci": {"zh": "场次", "en": "Stake room"},
    "timer": {"zh": "出牌时间 (秒)", "en": "Seconds per decision"},
    "grace": {"zh": "断线宽限 (秒)", "en": "Grace when disconnected (s)"},
    "bot_delay": {"zh": "电脑出牌间隔 (秒)", "en": "Computer delay (s)"},
    "next_delay": {"zh": "下一局等待 (秒)", "en": "Wait before the next hand (s)"},
    "claim_window": {"zh": "吃碰窗口 (秒)", "en": "Claim window (s)"},
}


def lobby_catalog(hall_computer: str = "normal") -> dict[str, Any]:
    """Everything a lobby's forms are built from: the core's presets and rule options
    (their bounds narrowed to a room's stakes, docs/protocol.md), the room options, the
    场次, the levels (§8), the computer players (``practice``: weaker than the hall's
    ``hall_computer``, so a hand against one counts toward no lifetime total) and the
    starting balance."""
    data = catalog()
    for spec in data["options"]:
        if spec["key"] in STAKES:
            spec["low"], spec["high"] = STAKES[spec["key"]]
        if spec["key"] == "multiplier":
            spec["set_by"] = "changci"  # the 场次 sets it unless a room says otherwise
    room = [{"key": "hands", "kind": "choice", "label": ROOM_LABELS["hands"],
             "default": 0, "choices": [{"value": n, "label": _hands_label(n)} for n in HANDS]},
            {"key": "changci", "kind": "choice", "label": ROOM_LABELS["changci"],
             "default": DEFAULT_CHANGCI,
             "choices": [{"value": c.key, "label": {"zh": c.title, "en": c.english}}
                         for c in CHANGCI]}]
    room += [{"key": key, "kind": "number", "label": ROOM_LABELS[key], "default": default,
              "low": low, "high": high} for key, (default, low, high) in TIMINGS.items()]
    return {
        **data,
        "room_options": room,
        "changci": [c.to_json() for c in CHANGCI],
        "levels": [{"number": i + 1, **lv} for i, lv in enumerate(levels())],
        "computers": [{"value": name, "label": COMPUTER_LABELS.get(name, {"zh": name,
                                                                          "en": name}),
                       "practice": practice(name, hall_computer)}
                      for name in PLAYER_NAMES],
        "economy": {"starting_beans": STARTING_BEANS, "relief": RELIEF,
                    "relief_below": RELIEF_BELOW},
        "di_words": dict(DI_NAMES),  # each scheme's word for 底 (the settlement says it)
    }


def _hands_label(n: int) -> dict[str, str]:
    return {"zh": f"{n} 局", "en": f"{n} hands"} if n else {"zh": "不限", "en": "Play on"}


def leaderboard_query(query: dict[str, str]) -> tuple[str, int]:
    """``by`` (``points``, the default, or ``beans``) and ``limit`` (1..100, default 20)
    of a leaderboard request; :class:`BadInput` naming what was wrong."""
    unknown = sorted(set(query) - {"by", "limit"})
    if unknown:
        raise BadInput(f"unknown leaderboard parameter(s): {', '.join(unknown)}; "
                       "known: by, limit")
    by = query.get("by", "points")
    if by not in ("points", "beans"):
        raise BadInput(f"by must be 'points' or 'beans', got {by[:20]!r}")
    text = query.get("limit", "20")
    # ASCII digits only: str.isdigit() also holds for "²" or "①", which int() cannot read
    # and short: int() refuses (ValueError) texts of more than 4300 digits, zeros included
    if not (text.isascii() and text.isdigit() and len(text) <= 6) \
            or not 1 <= int(text) <= MAX_LEADERBOARD:
        raise BadInput(f"limit must be a whole number 1..{MAX_LEADERBOARD}")
    return by, int(text)


def leaderboard_json(players: list[PlayerRecord], by: str) -> dict[str, Any]:
    """The leaderboard rows: rank, nickname, level, points, beans, hands, wins (no ids)."""
    return {"by": by, "players": [
        {"rank": i + 1, "nickname": p.nickname, "level": level_of(p.points),
         "points": p.points, "beans": p.beans, "hands": p.hands, "wins": p.wins}
        for i, p in enumerate(players)]}


def claim_relief(storage: Storage, player: PlayerRecord, now: float | None = None) -> int:
    """Give ``player`` the daily relief; his new balance. :class:`ReliefRefused` when he
    holds :data:`RELIEF_BELOW` beans or more, or had it this UTC day."""
    if player.beans >= RELIEF_BELOW:
        raise refusal(ReliefRefused, "relief_not_due", below=RELIEF_BELOW, beans=player.beans)
    day = utc_day(now)
    beans = storage.claim_relief(player.id, day, RELIEF_BELOW, RELIEF)
    if beans is None:
        raise refusal(ReliefRefused, "relief_taken", day=day)
    return beans


# ---- the hall's figures, from one process or several ---------------------------------

@dataclass(frozen=True)
class Census:
    """What one process holds of the hall's figures: per 场次 key, the codes of its rooms
    with a person connected at a seat (``rooms``), and those people's ids (``people``).
    Several processes' censuses are merged by set union (:func:`hall_counts`), so a room
    or a person reported by two processes at once (a room being taken over, a person at
    two tables) counts once. Nothing in it is hidden from anyone: no cards, no seats'
    private data; and the hall shows only its counts.

    >>> c = Census({"xinshou": frozenset({"123456"})}, {"xinshou": frozenset({7, 9})})
    >>> Census.from_json(c.to_json()) == c
    True
    >>> Census.from_json('{"rooms": {"xinshou": 5}}')
    Traceback (most recent call last):
    ...
    ValueError: not a hall census: 'int' object is not iterable
    """

    rooms: Mapping[str, frozenset[str]]
    people: Mapping[str, frozenset[int]]

    @classmethod
    def of(cls, runtimes: Iterable[Runtime]) -> Census:
        """The census of a process's live rooms: those with a person connected at a
        seat (a spectator alone does not make a table playing)."""
        rooms: dict[str, set[str]] = {}
        people: dict[str, set[int]] = {}
        for runtime in runtimes:
            seated = {c.player.id for c in runtime.clients if c.seat is not None}
            if seated:
                key = runtime.table.config.changci
                rooms.setdefault(key, set()).add(runtime.table.code)
                people.setdefault(key, set()).update(seated)
        return cls({k: frozenset(v) for k, v in rooms.items()},
                   {k: frozenset(v) for k, v in people.items()})

    def to_json(self) -> str:
        return json.dumps({"rooms": {k: sorted(v) for k, v in self.rooms.items()},
                           "people": {k: sorted(v) for k, v in self.people.items()}},
                          separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str | bytes) -> Census:
        """A census as :meth:`to_json` wrote it; :class:`ValueError` if it is not one."""
        try:
            data = json.loads(text)
            return cls({str(k): frozenset(str(c) for c in v)
                        for k, v in data.get("rooms", {}).items()},
                       {str(k): frozenset(int(p) for p in v)
                        for k, v in data.get("people", {}).items()})
        except (TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"not a hall census: {exc}") from None


def hall_counts(censuses: Iterable[Census], waiting: Iterable[Ticket]) -> list[dict[str, Any]]:
    """Each 场次 with its stake, entry minimum, ``online`` (people connected at a seat of
    one of its tables, or waiting in one of its queues: each person once), ``tables``
    (rooms with a person connected) and ``waiting`` (people in its queues).

    >>> from paohuzi.server.matchmaking import Ticket
    >>> a = Census({"xinshou": frozenset({"1"})}, {"xinshou": frozenset({1, 2})})
    >>> b = Census({"xinshou": frozenset({"1", "2"})}, {"xinshou": frozenset({2, 3})})
    >>> t = Ticket(4, "p", "addr", 0.0, "xinshou", "qq", since=0.0)
    >>> row = hall_counts([a, b], [t])[0]
    >>> row["key"], row["online"], row["tables"], row["waiting"]
    ('xinshou', 4, 2, 1)
    """
    online: dict[str, set[int]] = {c.key: set() for c in CHANGCI}
    rooms: dict[str, set[str]] = {c.key: set() for c in CHANGCI}
    for census in censuses:
        for key, codes in census.rooms.items():
            if key in rooms:
                rooms[key] |= codes
        for key, people in census.people.items():
            if key in online:
                online[key] |= people
    queued = dict.fromkeys(online, 0)
    for ticket in waiting:
        if ticket.changci in online:
            online[ticket.changci].add(ticket.player)
            queued[ticket.changci] += 1
    return [{**c.to_json(), "online": len(online[c.key]), "tables": len(rooms[c.key]),
             "waiting": queued[c.key]} for c in CHANGCI]


HALL_PREFIX = "paohuzi:hall:"
"""Redis keys of the shared hall: ``node:{process}`` (a process's :class:`Census`,
expiring), ``nodes`` (the processes that published one)."""


class SharedHall:
    """The hall's figures of several processes, through Redis (docs/scaling.md).

    Each process publishes its own :class:`Census` under ``paohuzi:hall:node:{process}``
    (:meth:`publish`, at each lease upkeep round), expiring ``ttl`` seconds later unless
    published again: a process that dies (``kill -9``) leaves the hall's figures within
    ``ttl``. A hall request merges this process's live census with the others'
    (:meth:`others`, read at most every ``cache`` seconds: one round trip)."""

    def __init__(self, client: Any, node: str, ttl: float, cache: float = 0.5) -> None:
        self.redis = client
        self.node, self.ttl, self.cache = node, ttl, cache
        self._key = f"{HALL_PREFIX}node:{node}"
        self._read_at = -float("inf")
        self._others: list[Census] = []

    def publish(self, census: Census, pipe: Any | None = None) -> None:
        """Publish this process's census (into ``pipe``, a pipeline the caller executes,
        or in a round trip of its own)."""
        target = self.redis.pipeline(transaction=False) if pipe is None else pipe
        target.set(self._key, census.to_json(), px=max(1, int(self.ttl * 1000)))
        target.sadd(f"{HALL_PREFIX}nodes", self.node)
        if pipe is None:
            target.execute()

    def withdraw(self) -> None:
        """Take this process's census out now (a clean shutdown)."""
        pipe = self.redis.pipeline(transaction=False)
        pipe.delete(self._key)
        pipe.srem(f"{HALL_PREFIX}nodes", self.node)
        pipe.execute()

    def others(self, now: float | None = None) -> list[Census]:
        """The censuses the other live processes published (cached ``cache`` seconds);
        processes whose census expired are forgotten."""
        now = time.monotonic() if now is None else now
        if now - self._read_at < self.cache:
            return self._others
        nodes = sorted(_text(n) for n in self.redis.smembers(f"{HALL_PREFIX}nodes"))
        nodes = [n for n in nodes if n != self.node]
        texts = self.redis.mget([f"{HALL_PREFIX}node:{n}" for n in nodes]) if nodes else []
        found, gone = [], []
        for node, text in zip(nodes, texts, strict=True):
            if text is None:
                gone.append(node)
                continue
            try:
                found.append(Census.from_json(text))
            except ValueError:
                gone.append(node)
        if gone:
            self.redis.srem(f"{HALL_PREFIX}nodes", *gone)
        self._others, self._read_at = found, now
        return found


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
