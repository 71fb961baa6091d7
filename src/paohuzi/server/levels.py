"""Levels (等级, docs/rules.md §8): a threshold table shipped as data (levels.json).

>>> level_of(0)["title"], level_of(1500)["title"], level_of(-50)["number"]
('新手', '熟手', 1)
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

__all__ = ["level_of", "levels"]


@cache
def levels() -> tuple[dict[str, Any], ...]:
    """The level table, lowest first."""
    text = resources.files("paohuzi.server").joinpath("levels.json").read_text("utf-8")
    table = json.loads(text)["levels"]
    return tuple(sorted(table, key=lambda lv: lv["min_points"]))


def level_of(points: int) -> dict[str, Any]:
    """The level of a player with these lifetime points (number 1 is the first)."""
    found = levels()[0]
    number = 1
    for i, lv in enumerate(levels()):
        if points >= lv["min_points"]:
            found, number = lv, i + 1
    return {"number": number, "title": found["title"], "english": found["english"]}
