"""The rules of a preset as the browser's rules page shows them, built from the rules
core (no rule is written twice): its options, its 胡息 table and its 名堂 list."""

from __future__ import annotations

from typing import Any

from paohuzi.core.cards import format_cards, parse_cards
from paohuzi.core.groups import Group, GroupKind
from paohuzi.core.mingtang import Grows, MingtangRow, table_of
from paohuzi.core.rules import PRESETS, Ruleset

__all__ = ["HUXI_EXAMPLES", "mingtang_json", "rules_doc"]

HUXI_EXAMPLES: tuple[tuple[GroupKind, str, str], ...] = (
    (GroupKind.SENTENCE, "一二三", "壹贰叁"),
    (GroupKind.SENTENCE, "二七十", "贰柒拾"),
    (GroupKind.SENTENCE, "四五六", "肆伍陆"),
    (GroupKind.JIAO, "九九玖", "玖玖九"),
    (GroupKind.PENG, "七七七", "柒柒柒"),
    (GroupKind.WEI, "七七七", "柒柒柒"),
    (GroupKind.KAN, "七七七", "柒柒柒"),
    (GroupKind.PAO, "七七七七", "柒柒柒柒"),
    (GroupKind.TI, "七七七七", "柒柒柒柒"),
)
"""The groups of the 胡息 table: one small and one big example of each kind."""


def _huxi_rows() -> list[dict[str, Any]]:
    rows = []
    for kind, small, big in HUXI_EXAMPLES:
        groups = [Group.make(kind, parse_cards(text)) for text in (small, big)]
        rows.append({"kind": kind.value, "small": format_cards(groups[0].cards),
                     "small_huxi": groups[0].huxi, "big": format_cards(groups[1].cards),
                     "big_huxi": groups[1].huxi})
    return rows


def mingtang_json(row: MingtangRow) -> dict[str, Any]:
    """One 名堂 row: its name, its 番 (``fan``; ``grows``: 1 more per card of ``count``
    above ``above``) and the rows it stands in for."""
    data: dict[str, Any] = {"name": row.name, "id": row.pinyin}
    if isinstance(row.fan, Grows):
        data.update(fan=row.fan.base, grows={"count": row.fan.count, "above": row.fan.threshold})
    else:
        data["fan"] = row.fan
    if row.replaces:
        data["replaces"] = list(row.replaces)
    return data


def rules_doc(rules: Ruleset) -> dict[str, Any]:
    """Everything the rules page shows for ``rules``.

    >>> doc = rules_doc(Ruleset.preset("qq"))
    >>> [r["big_huxi"] for r in doc["huxi"] if r["kind"] == "ti"]
    [12]
    >>> [m["name"] for m in doc["mingtang"]][:2]
    ['红胡', '真点胡']
    """
    table = table_of(rules)
    return {"name": rules.name, "options": rules.to_dict(), "huxi": _huxi_rows(),
            "mingtang": [mingtang_json(row) for row in table.rows],
            "combine": table.combine.value, "haidi": table.haidi,
            "presets": sorted(PRESETS)}
