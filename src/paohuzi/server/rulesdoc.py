"""The rules of a preset as the browser's rules page shows them, built from the rules
core (no rule is written twice): its options, its 胡息 table and its 名堂 list."""

from __future__ import annotations

from typing import Any

from paohuzi.core.cards import format_cards, parse_cards
from paohuzi.core.groups import Group, GroupKind, HuxiTable
from paohuzi.core.mingtang import (
    AllIdentical,
    AllOf,
    Condition,
    CountAtLeast,
    CountIs,
    Grows,
    MingtangRow,
    table_of,
)
from paohuzi.core.options import applying
from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.core.settlement import di_of, fan_factor, xingjia_unit
from paohuzi.core.solver import TIANHU_KAN, TIANHU_TI
from paohuzi.game.match import draws_to_pass_deal

__all__ = ["BLACK_EXAMPLES", "DI_NAMES", "HUXI_EXAMPLES", "condition_json", "deal_json",
           "mingtang_json", "rules_doc", "scoring_json"]

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
"""The groups of the 胡息 table: one small and one big example of each kind (the groups
of identical cards with the red 七)."""

BLACK_EXAMPLES: dict[GroupKind, tuple[str, str]] = {
    GroupKind.PENG: ("三三三", "叁叁叁"),
    GroupKind.WEI: ("三三三", "叁叁叁"),
    GroupKind.KAN: ("三三三", "叁叁叁"),
    GroupKind.PAO: ("三三三三", "叁叁叁叁"),
    GroupKind.TI: ("三三三三", "叁叁叁叁"),
}
"""A black example of each kind of identical cards, shown before the red one where the
table scores the colours differently (泸州, §9.1)."""


def _huxi_row(table: HuxiTable, kind: GroupKind, small: str, big: str,
              colour: str | None) -> dict[str, Any]:
    groups = [Group.make(kind, parse_cards(text), table) for text in (small, big)]
    row = {"kind": kind.value, "label": table.labels[kind],
           "small": format_cards(groups[0].cards), "small_huxi": groups[0].huxi,
           "big": format_cards(groups[1].cards), "big_huxi": groups[1].huxi}
    if colour is not None:
        row["colour"] = colour
    return row


def _huxi_rows(table: HuxiTable) -> list[dict[str, Any]]:
    """The 胡息 table's rows as ``table`` scores them, each with the table's name of the
    kind (``label``: 泸州 says 垅, 招, 列); a kind whose black and red cards score
    differently gets a black row and a red row (``colour``).

    >>> from paohuzi.core.groups import LUZHOU_HUXI, QQ_HUXI
    >>> [(r["label"], r.get("colour"), r["small_huxi"], r["big_huxi"])
    ...  for r in _huxi_rows(LUZHOU_HUXI) if r["kind"] == "ti"]
    [('垅', 'black', 12, 15), ('垅', 'red', 15, 18)]
    >>> [(r["label"], r["big_huxi"]) for r in _huxi_rows(QQ_HUXI) if r["kind"] == "ti"]
    [('提', 12)]
    """
    rows = []
    for kind, small, big in HUXI_EXAMPLES:
        red = _huxi_row(table, kind, small, big, None)
        black = BLACK_EXAMPLES.get(kind)
        if black is not None:
            dark = _huxi_row(table, kind, *black, "black")
            if (dark["small_huxi"], dark["big_huxi"]) != (red["small_huxi"], red["big_huxi"]):
                rows += [dark, {**red, "colour": "red"}]
                continue
        rows.append(red)
    return rows


def condition_json(condition: Condition) -> dict[str, Any]:
    """A 名堂's condition as data, for the rules page to put in words (no rule is decided
    from it): ``{"count": "red", "is": [4, 7]}``, ``{"count": "big", "at_least": 18}``,
    ``{"all_identical": true}`` or ``{"all": [...]}``.

    >>> condition_json(AllOf((CountIs("red", (0,)), AllIdentical())))
    {'all': [{'count': 'red', 'is': [0]}, {'all_identical': True}]}
    """
    if isinstance(condition, CountIs):
        return {"count": condition.count, "is": list(condition.values)}
    if isinstance(condition, CountAtLeast):
        return {"count": condition.count, "at_least": condition.least}
    if isinstance(condition, AllIdentical):
        return {"all_identical": True}
    if isinstance(condition, AllOf):
        return {"all": [condition_json(part) for part in condition.parts]}
    raise TypeError(f"a 名堂 condition the rules page cannot describe: {condition!r}")


def mingtang_json(row: MingtangRow) -> dict[str, Any]:
    """One 名堂 row: its name, when it holds (``when``: :func:`condition_json`), its 番
    (``fan``; ``grows``: 1 more per card of ``count`` above ``above``) and the rows it
    stands in for."""
    data: dict[str, Any] = {"name": row.name, "id": row.pinyin,
                            "when": condition_json(row.holds)}
    if isinstance(row.fan, Grows):
        data.update(fan=row.fan.base, grows={"count": row.fan.count, "above": row.fan.threshold})
    else:
        data["fan"] = row.fan
    if row.replaces:
        data["replaces"] = list(row.replaces)
    return data


DI_NAMES: dict[str, str] = {"qq": "底", "changde": "等", "hunan": "囤", "luzhou": "等"}
"""What each settlement scheme calls its base count (docs/rules.md §7, §9, §9.1)."""


def _di_ranges(rules: Ruleset, count: int) -> list[dict[str, int]]:
    """The first ``count`` ranges of 胡息 from the least that wins, each with the scheme's
    base count without and with 自摸 (:func:`~paohuzi.core.settlement.di_of`)."""
    rows: list[dict[str, int]] = []
    for huxi in range(rules.min_huxi, rules.min_huxi + 40 * count):  # every scheme grows
        pair = di_of(huxi, rules), di_of(huxi, rules, zimo=True)
        if rows and (rows[-1]["di"], rows[-1]["di_zimo"]) == pair:
            rows[-1]["to"] = huxi
        elif len(rows) == count:
            break
        else:
            rows.append({"from": huxi, "to": huxi, "di": pair[0], "di_zimo": pair[1]})
    return rows


def scoring_json(rules: Ruleset) -> dict[str, Any]:
    """How a win is paid, for the rules page: the scheme's name of its base count, the
    base count over the first ranges of 胡息 (from the settlement code itself), the base
    score, how many losers pay and the bean multiplier.

    >>> doc = scoring_json(Ruleset.preset("luzhou"))
    >>> doc["di_name"], [(r["from"], r["to"], r["di"]) for r in doc["di"][:3]]
    ('等', [(10, 19, 1), (20, 29, 2), (30, 39, 3)])
    >>> [(r["from"], r["to"], r["di"], r["di_zimo"]) for r in scoring_json(Ruleset())["di"][:2]]
    [(15, 17, 1, 2), (18, 20, 2, 3)]
    """
    return {"di_name": DI_NAMES[rules.settlement], "di": _di_ranges(rules, 6),
            "base": rules.base, "losers": rules.players - 1, "multiplier": rules.multiplier}


def _huxi_doubled(rules: Ruleset) -> bool:
    """Whether a 天胡 counts its 胡息 twice in the base count (``qq``, :func:`di_of`)."""
    return all(di_of(h, rules, tianhu=True) == di_of(2 * h, rules) != di_of(h, rules)
               for h in range(rules.min_huxi, rules.min_huxi + 30))


def deal_json(rules: Ruleset) -> dict[str, Any]:
    """Who deals, the wins at the deal and the escape penalty, for the rules page: each
    figure from the code that plays it (the match's dealer rotation, the solver's 天胡
    counts, the settlement's factors).

    >>> doc = deal_json(Ruleset())
    >>> doc["draws_to_pass"], doc["tianhu"], doc["tianhu_huxi_doubled"], doc["dihu"]
    (3, {'ti': 3, 'kan': 5}, True, False)
    >>> lz = deal_json(Ruleset.preset("luzhou"))
    >>> lz["liangzhang_win"], lz["win_on_discard"], lz["tianhu_fan"], lz["dihu_fan"]
    (False, True, 2, 2)
    >>> lz["seat_out"], deal_json(Ruleset.preset("hunan", xingjia=True))["seat_out"]
    ({'name': '坐底', 'paid': 0}, {'name': '醒家', 'paid': 3})
    """
    dihu_fan = fan_factor(rules, dihu=True)
    dihu = rules.win_on_discard and dihu_fan > 1  # a 地胡 is won on a discard
    seat_out = None
    if rules.xingjia:  # the seat opposite the dealer sits the hand out (game.match)
        seat_out = {"name": "醒家" if rules.xingjia_paid else "坐底",
                    "paid": xingjia_unit(rules)}
    return {"draws_to_pass": draws_to_pass_deal(rules),
            "tianhu": {"ti": TIANHU_TI, "kan": TIANHU_KAN},
            "liangzhang_win": rules.liangzhang_shown,
            "win_on_discard": rules.win_on_discard,
            "dihu": dihu,
            "tianhu_huxi_doubled": _huxi_doubled(rules),
            "tianhu_fan": fan_factor(rules, tianhu=True),
            "dihu_fan": dihu_fan if dihu else 1,
            "win_on_ti_wei": rules.win_on_ti_wei,
            "dipai_shown": rules.dipai_shown,
            "chou_blocks_peng": rules.chou_blocks_peng,
            "players": rules.players,
            "seat_out": seat_out,
            "escape": {"bonus": rules.escape_bonus, "base": rules.base}}


def rules_doc(rules: Ruleset) -> dict[str, Any]:
    """Everything the rules page shows for ``rules``.

    >>> doc = rules_doc(Ruleset.preset("qq"))
    >>> [r["big_huxi"] for r in doc["huxi"] if r["kind"] == "ti"]
    [12]
    >>> [m["name"] for m in doc["mingtang"]][:2]
    ['红胡', '真点胡']
    """
    table = table_of(rules)
    return {"name": rules.name, "options": rules.to_dict(), "applying": applying(rules),
            "huxi": _huxi_rows(rules.huxi),
            "mingtang": [mingtang_json(row) for row in table.rows],
            "combine": table.combine.value, "haidi": table.haidi,
            "scoring": scoring_json(rules), "deal": deal_json(rules),
            "presets": sorted(PRESETS)}
