"""What every rule option is, for people: labels, kinds, bounds or choices, and which
presets it applies to — the one home of the option metadata a lobby shows (the server
serves :func:`catalog` as ``GET /api/presets``; no client hard-codes an option).

Presets and options are read from :class:`~paohuzi.core.rules.Ruleset`, its
:data:`~paohuzi.core.rules.PRESETS` and :data:`~paohuzi.core.rules.BOUNDS`: a preset or
an option added there appears here with no change (labelled by its name until a label
is written in :data:`LABELS`).

>>> spec = option("min_huxi")
>>> spec.kind, spec.low, spec.high, spec.label["zh"]
('int', 10, 30, '胡息起胡')
>>> [p["name"] for p in catalog()["presets"]][:4]
['qq', 'changde', 'hunan', 'two-player']
>>> option("huayang").choices, option("huayang").applies_to
(('basic', 'half', 'full'), ('changde',))
>>> option("xingjia").applies_to
('hunan', 'luzhou')
>>> option("mahjong")
Traceback (most recent call last):
...
paohuzi.core.errors.RulesetError: unknown rule option 'mahjong'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paohuzi.core.errors import RulesetError
from paohuzi.core.rules import BOUNDS, CHOICES, NEEDS, PRESETS, Ruleset

__all__ = ["LABELS", "OptionSpec", "applying", "catalog", "option", "options"]

Label = dict[str, str]
"""A text in Chinese (``zh``) and English (``en``)."""


def _l(zh: str, en: str) -> Label:
    return {"zh": zh, "en": en}


LABELS: dict[str, Label] = {
    # presets (docs/rules.md §9)
    "qq": _l("QQ 跑胡子", "QQ rules"),
    "changde": _l("常德 (花样)", "Changde"),
    "hunan": _l("湖南 (传统)", "Hunan (traditional)"),
    "two-player": _l("二人", "Two players"),
    "luzhou": _l("泸州大贰", "Luzhou (Da'er)"),
    # options (Ruleset fields)
    "players": _l("人数", "Players"),
    "xingjia": _l("第四座 (醒家/坐底)", "4th seat sitting out (醒家/坐底)"),
    "min_huxi": _l("胡息起胡", "胡息 to win"),
    "set_aside": _l("扣牌 (不看)", "Cards set aside unseen"),
    "settlement": _l("计分方式", "Scoring scheme"),
    "chou_blocks_peng": _l("臭牌不能碰", "A 臭 card bars 碰 too"),
    "zimo_huxi": _l("自摸加胡息", "胡息 added for 自摸"),
    "zimo_di": _l("自摸加底", "底/等 added for 自摸"),
    "base": _l("底分", "Base score"),
    "multiplier": _l("欢乐豆倍数", "Bean multiplier"),
    "escape_bonus": _l("逃跑罚分", "Escape penalty"),
    "huangzhuang_passes_deal": _l("荒庄下家坐庄", "A drawn hand passes the deal"),
    "huayang": _l("花样", "花样 level"),
    "win_on_ti_wei": _l("可胡提/偎的牌", "A 提/偎 card may be won"),
    "xingjia_paid": _l("第四座收筹 (醒家)", "The seat sitting out is paid (醒家)"),
    "huxi_table": _l("胡息表", "胡息 table"),
    "liangzhang_shown": _l("亮张 (庄家第21张亮出)", "亮张: the dealer's 21st card shown"),
    "dipai_shown": _l("亮底牌 (不能胡)", "底牌 shown (never won)"),
    "win_on_discard": _l("可胡别人打出的牌", "A discard may be won"),
    "luzhou_mode": _l("泸州计分", "Luzhou scoring"),
    # choices
    "settlement.qq": _l("底 × 番", "底 × 番 (qq)"),
    "settlement.changde": _l("等 × 番", "等 × 番 (changde)"),
    "settlement.hunan": _l("囤 × 名堂", "囤 × one 名堂 (hunan)"),
    "settlement.luzhou": _l("等 × 番 (泸州)", "等 × 番 (luzhou)"),
    "huxi_table.qq": _l("标准", "Standard (§5)"),
    "huxi_table.luzhou": _l("泸州", "Luzhou (§9.1)"),
    "luzhou_mode.hongwu": _l("红乌 (红胡×2, 乌胡×4)", "红胡 ×2, 乌胡 ×4"),
    "luzhou_mode.deng": _l("只算等", "等 only"),
    "huayang.basic": _l("基本花样", "Basic"),
    "huayang.half": _l("半花样", "Half"),
    "huayang.full": _l("全花样", "Full"),
}
"""Chinese and English labels of the presets, options (``field``) and choices
(``field.choice``); anything missing is labelled by its own name."""



def _choices() -> dict[str, tuple[str, ...]]:
    """The options that take one of a few words (:data:`~paohuzi.core.rules.CHOICES`)."""
    return dict(CHOICES)

def _needs_met(key: str, rules: Ruleset) -> bool:
    return all(getattr(rules, name) == value for name, value in NEEDS.get(key, {}).items())


_APPLIES: dict[str, Callable[[Ruleset], bool]] = {
    "xingjia": lambda r: r.settlement in ("hunan", "luzhou") and _needs_met("xingjia", r),
    "xingjia_paid": lambda r: r.settlement in ("hunan", "luzhou")
    and _needs_met("xingjia_paid", r),
    "luzhou_mode": lambda r: r.settlement == "luzhou",
    "set_aside": lambda r: _needs_met("set_aside", r),
    "zimo_huxi": lambda r: r.settlement == "hunan",
    "huayang": lambda r: r.settlement == "changde",
}
"""Which presets an option applies to, asked of the preset's rules (every preset when
absent): the 醒家 is ``hunan``'s 4th seat (§9), the set-aside cards a two-seat option,
自摸's 胡息 counts toward ``hunan``'s 囤, the 花样 levels are ``changde``'s."""



def _always(rules: Ruleset) -> bool:
    return True


SEAT_OPTIONS: dict[str, str] = {"players": "count", "xingjia": "adds"}
"""How options make the table's seats: ``count`` (the value is a number of seats),
``adds`` (true adds one seat): a room has one ``seats`` entry per seat."""

HIDDEN = frozenset({"name"})
"""Fields that are not options a player chooses (``name``: the preset's own)."""


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One rule option as a lobby shows it."""

    key: str
    kind: str
    """``int``, ``bool``, ``choice`` or ``text``."""
    label: Label
    doc: str
    low: int | None = None
    high: int | None = None
    choices: tuple[str, ...] = ()
    applies_to: tuple[str, ...] = ()
    seats: str | None = None
    needs: dict[str, Any] | None = None
    """Other options' values this one applies with (:data:`NEEDS`)."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"key": self.key, "kind": self.kind, "label": self.label,
                                "doc": self.doc, "applies_to": list(self.applies_to),
                                "default": {p: getattr(Ruleset.preset(p), self.key)
                                            for p in self.applies_to}}
        if self.low is not None:
            data["low"], data["high"] = self.low, self.high
        if self.choices:
            data["choices"] = [{"value": c, "label": label_of(f"{self.key}.{c}")}
                               for c in self.choices]
        if self.seats is not None:
            data["seats"] = self.seats
        if self.needs:
            data["needs"] = dict(self.needs)
        return data


def label_of(name: str) -> Label:
    """The labels of a preset, option or choice (its own name when none is written)."""
    return LABELS.get(name, _l(name.split(".")[-1], name.split(".")[-1]))


def _docs() -> dict[str, str]:
    """Each option's line from the ``Attributes:`` section of :class:`Ruleset`."""
    docs: dict[str, str] = {}
    current = None
    for line in (Ruleset.__doc__ or "").splitlines():
        text = line.strip()
        head, sep, rest = text.partition(":")
        if sep and line.startswith(" " * 8) and not line.startswith(" " * 12) \
                and head.isidentifier():
            current = head
            docs[current] = rest.strip()
        elif current is not None and text and line.startswith(" " * 12):
            docs[current] += " " + text
        elif not text:
            current = None
    return docs


def _kind(field: dataclasses.Field[Any], choices: dict[str, tuple[str, ...]]) -> str:
    default = field.default
    if field.name in choices:
        return "choice"
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    return "text"


def options() -> tuple[OptionSpec, ...]:
    """Every option of :class:`Ruleset`, in its field order."""
    docs = _docs()
    choices = _choices()
    presets = {name: Ruleset.preset(name) for name in PRESETS}
    specs = []
    for field in dataclasses.fields(Ruleset):
        if field.name in HIDDEN:
            continue
        applies = _APPLIES.get(field.name, _always)
        low, high = BOUNDS.get(field.name, (None, None))
        specs.append(OptionSpec(
            key=field.name, kind=_kind(field, choices), label=label_of(field.name),
            doc=docs.get(field.name, ""), low=low, high=high,
            choices=choices.get(field.name, ()),
            applies_to=tuple(n for n, rules in presets.items() if applies(rules)),
            seats=SEAT_OPTIONS.get(field.name), needs=_FORM_NEEDS.get(field.name)))
    return tuple(specs)


_FORM_NEEDS: dict[str, dict[str, Any]] = {
    **NEEDS, "xingjia_paid": {**NEEDS["xingjia_paid"], "xingjia": True}}
"""What a form waits for before it offers an option: :data:`NEEDS`, and whether the 4th
seat is paid only once there is a 4th seat (湖南 offers 第四座收筹 once 醒家 is ticked;
its own rules have no 醒家, so this is no need of its rules: ``applies_to`` keeps it)."""


def applying(rules: Ruleset) -> list[str]:
    """The options that do something in ``rules`` (what a rules page lists): the lobby's
    test (:data:`_APPLIES`) asked of these rules themselves, so a room's page leaves out
    the 花样 of a non-``changde`` room or a 醒家 of a two-seat one.

    >>> "huayang" in applying(Ruleset()), "huayang" in applying(Ruleset.preset("changde"))
    (False, True)
    >>> "xingjia" in applying(Ruleset.preset("luzhou", players=2))
    False
    >>> "xingjia_paid" in applying(Ruleset.preset("hunan")), "xingjia_paid" in applying(
    ...     Ruleset.preset("hunan", xingjia=True))
    (False, True)
    """
    return [field.name for field in dataclasses.fields(Ruleset)
            if field.name not in HIDDEN and _APPLIES.get(field.name, _always)(rules)
            and (field.name != "xingjia_paid" or rules.xingjia)]  # paid: a seat out


def option(key: str) -> OptionSpec:
    """One option's spec; :class:`RulesetError` for a name that is no option."""
    for spec in options():
        if spec.key == key:
            return spec
    raise RulesetError(f"unknown rule option {key!r}")


def catalog() -> dict[str, Any]:
    """Every preset (its name, labels and every option's value in it) and every option,
    as JSON-ready data."""
    return {
        "presets": [{"name": name, "label": label_of(name),
                     "rules": Ruleset.preset(name).to_dict()} for name in PRESETS],
        "options": [spec.to_json() for spec in options()],
    }
