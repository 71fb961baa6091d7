"""The game hall's HTTP side (issue 11): what the lobby is built from (presets, options,
room options, 场次, levels, computer players — ``GET /api/presets``), the leaderboard
and the daily relief. Rules and option metadata come from the core
(:mod:`paohuzi.core.options`); the economy's numbers from :mod:`paohuzi.server.economy`.

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

from typing import Any

from paohuzi.core.options import catalog
from paohuzi.players import PLAYER_NAMES
from paohuzi.server.economy import (
    CHANGCI,
    DEFAULT_CHANGCI,
    RELIEF,
    RELIEF_BELOW,
    STARTING_BEANS,
    ReliefRefused,
    utc_day,
)
from paohuzi.server.inputs import BadInput
from paohuzi.server.levels import level_of, levels
from paohuzi.server.storage import PlayerRecord, Storage
from paohuzi.server.table import HANDS, STAKES, TIMINGS

__all__ = ["MAX_LEADERBOARD", "claim_relief", "leaderboard_json", "leaderboard_query",
           "lobby_catalog"]

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


def lobby_catalog() -> dict[str, Any]:
    """Everything a lobby's forms are built from: the core's presets and rule options
    (their bounds narrowed to a room's stakes, docs/protocol.md), the room options, the
    场次, the levels (§8), the computer players and the starting balance."""
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
                                                                          "en": name})}
                      for name in PLAYER_NAMES],
        "economy": {"starting_beans": STARTING_BEANS, "relief": RELIEF,
                    "relief_below": RELIEF_BELOW},
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
    if not text.isdigit() or not 1 <= int(text) <= MAX_LEADERBOARD:
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
        raise ReliefRefused(f"the relief is for players holding under {RELIEF_BELOW} beans; "
                            f"you hold {player.beans}")
    day = utc_day(now)
    beans = storage.claim_relief(player.id, day, RELIEF_BELOW, RELIEF)
    if beans is None:
        raise ReliefRefused(f"you had today's relief already ({day}, UTC); the next one "
                            "from 00:00 UTC")
    return beans
