"""名堂 (mingtang, scoring patterns) as data: one table of rows per scheme (docs/rules.md §7.2, §9).

A row is one 名堂: its Chinese name, a pinyin id, a condition over the
:class:`HandFacts` of a won hand (how many red, big and small cards the winner
owns, whether every 门子 is of identical cards) and its 番. A combination
(常德 乌对, 湖南 红对 …) is a row too: it holds when all its parts hold, and
stands in for them. A scheme's :class:`MingtangTable` is its rows plus how the
番 of the rows that hold combine, and whether 海底 adds 番:

* ``qq`` (§7.2): every row that holds counts, the 番 add up; 海底 +1/+2;
* ``changde`` (§9): the same, with 乌胡 + 对对胡 shown as one 乌对 of 10 (N11);
  one table per 花样 level (``Ruleset.huayang``: 基本, 半 = the preset, 全);
* ``hunan`` (§9): exactly one 名堂 — the largest multiplier (N10); no 海底 (N14).

>>> facts = HandFacts(red=10, big=7, small=14, all_identical=False)
>>> [(m.name, m.fan) for m in find_mingtang("qq", facts)]
[('假点胡', 3)]
>>> [(m.name, m.fan) for m in find_mingtang("hunan", HandFacts(0, 9, 12, True))]
[('乌对', 10)]
>>> [(m.name, m.fan) for m in find_mingtang("changde", HandFacts(0, 9, 12, True))]
[('乌对', 10)]
>>> TABLES["qq"].fan(find_mingtang("qq", facts), haidi=True)
5
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal, Protocol

from paohuzi.core.cards import ALL_CARDS
from paohuzi.core.errors import RulesetError
from paohuzi.core.rules import Huayang, Ruleset, SettlementScheme

__all__ = [
    "CHANGDE",
    "CHANGDE_BASIC",
    "CHANGDE_FULL",
    "CHANGDE_LEVELS",
    "HUNAN",
    "LUZHOU_DENG",
    "LUZHOU_HONGWU",
    "QQ",
    "TABLES",
    "AllIdentical",
    "AllOf",
    "Combine",
    "CountAtLeast",
    "CountIs",
    "Grows",
    "HandFacts",
    "Mingtang",
    "MingtangRow",
    "MingtangTable",
    "combination",
    "facts_of",
    "find_mingtang",
    "table_of",
]

CountName = Literal["red", "big", "small"]
"""A card count of :class:`HandFacts`."""


@dataclass(frozen=True, slots=True)
class HandFacts:
    """What the 名堂 look at: counts over every card the winner owns, winning card included."""

    red: int
    big: int
    small: int
    all_identical: bool
    """对对胡's condition: every 门子 of identical cards (坎/碰/偎/臭偎/跑/提/the pair)."""

    def count(self, name: CountName) -> int:
        """One of the card counts by name.

        >>> HandFacts(red=3, big=8, small=13, all_identical=False).count("big")
        8
        """
        return {"red": self.red, "big": self.big, "small": self.small}[name]


def facts_of(cards: Iterable[int], all_identical: bool) -> HandFacts:
    """The facts of cards (ints 0..19); red and big as :class:`~paohuzi.core.cards.Card` says.

    >>> from paohuzi.core.cards import parse_cards
    >>> facts_of(parse_cards("二七十 贰柒拾 一"), all_identical=False)
    HandFacts(red=6, big=3, small=4, all_identical=False)
    """
    owned = [ALL_CARDS[c] for c in cards]
    red = sum(1 for c in owned if c.is_red)
    big = sum(1 for c in owned if c.is_big)
    return HandFacts(red, big, len(owned) - big, all_identical)


# ---- conditions ------------------------------------------------------------------------

class Condition(Protocol):
    """Whether a 名堂 holds for some hand facts."""

    def __call__(self, facts: HandFacts) -> bool: ...


@dataclass(frozen=True, slots=True)
class CountIs:
    """A card count is one of ``values``.

    >>> CountIs("red", (4, 7))(HandFacts(7, 9, 12, False))
    True
    """

    count: CountName
    values: tuple[int, ...]

    def __call__(self, facts: HandFacts) -> bool:
        return facts.count(self.count) in self.values


@dataclass(frozen=True, slots=True)
class CountAtLeast:
    """A card count is ``least`` or more.

    >>> CountAtLeast("big", 18)(HandFacts(5, 17, 4, False))
    False
    """

    count: CountName
    least: int

    def __call__(self, facts: HandFacts) -> bool:
        return facts.count(self.count) >= self.least


@dataclass(frozen=True, slots=True)
class AllIdentical:
    """Every 门子 of identical cards (对对胡)."""

    def __call__(self, facts: HandFacts) -> bool:
        return facts.all_identical


@dataclass(frozen=True, slots=True)
class AllOf:
    """Every one of some conditions holds (a combination's condition)."""

    parts: tuple[Condition, ...]

    def __call__(self, facts: HandFacts) -> bool:
        return all(part(facts) for part in self.parts)


# ---- rows and tables -------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Grows:
    """番 ``base``, plus 1 per card of ``count`` above ``threshold`` (qq 红乌, 大字胡, 小字胡).

    >>> Grows(4, "red", 13)(HandFacts(15, 9, 12, False))
    6
    """

    base: int
    count: CountName
    threshold: int

    def __call__(self, facts: HandFacts) -> int:
        return self.base + facts.count(self.count) - self.threshold


@dataclass(frozen=True, slots=True)
class Mingtang:
    """A 名堂 found in a hand: its Chinese name and its 番."""

    name: str
    fan: int


@dataclass(frozen=True, slots=True)
class MingtangRow:
    """One 名堂 of a table.

    Attributes:
        name: the Chinese name shown in the settlement.
        pinyin: its id in the table (unique there).
        holds: the condition over the hand facts.
        fan: its 番 (a multiplier in changde and hunan), fixed or :class:`Grows`.
        replaces: pinyin ids of the rows this combination stands in for.
    """

    name: str
    pinyin: str
    holds: Condition
    fan: int | Grows
    replaces: tuple[str, ...] = ()

    def fan_for(self, facts: HandFacts) -> int:
        """Its 番 for these facts (meaningful when it holds)."""
        return self.fan if isinstance(self.fan, int) else self.fan(facts)


def combination(name: str, pinyin: str, fan: int, *parts: MingtangRow) -> MingtangRow:
    """A row that holds when all ``parts`` hold, and is shown in their place.

    >>> wu = MingtangRow("乌胡", "wuhu", CountIs("red", (0,)), 5)
    >>> dui = MingtangRow("对对胡", "duiduihu", AllIdentical(), 4)
    >>> combination("乌对", "wudui", 10, wu, dui).replaces
    ('wuhu', 'duiduihu')
    """
    return MingtangRow(name, pinyin, AllOf(tuple(p.holds for p in parts)), fan,
                       tuple(p.pinyin for p in parts))


class Combine(StrEnum):
    """How the 番 of the rows that hold make the hand's 番."""

    SUM = "sum"
    """Every row that holds is listed and their 番 add up (qq, changde)."""
    BEST = "best"
    """Exactly one 名堂 applies: the largest 番 (the first row on a tie; hunan)."""


@dataclass(frozen=True, slots=True)
class MingtangTable:
    """A scheme's 名堂: its rows in display order, how they combine, and 海底.

    With ``haidi``, a 海底 win adds 1 番 to a 平胡 (making 2) and 2 番 to a
    名堂胡 (§7.2; changde alike, rules-notes N7). Row ids must be unique and a
    combination's parts rows of the table.

    >>> wu = MingtangRow("乌胡", "wuhu", CountIs("red", (0,)), 5)
    >>> MingtangTable((wu, wu), Combine.SUM, haidi=False)
    Traceback (most recent call last):
    ...
    paohuzi.core.errors.RulesetError: 名堂 ids must be unique in a table, got ['wuhu', 'wuhu']
    """

    rows: tuple[MingtangRow, ...]
    combine: Combine
    haidi: bool

    def __post_init__(self) -> None:
        ids = [row.pinyin for row in self.rows]
        if len(set(ids)) != len(ids):
            raise RulesetError(f"名堂 ids must be unique in a table, got {ids}")
        unknown = {r for row in self.rows for r in row.replaces} - set(ids)
        if unknown:
            raise RulesetError(f"combination parts not in the table: {sorted(unknown)}")

    def find(self, facts: HandFacts) -> list[Mingtang]:
        """The 名堂 that apply to a won hand, in row order (empty for 平胡)."""
        holding = [row for row in self.rows if row.holds(facts)]
        replaced = {r for row in holding for r in row.replaces}
        found = [Mingtang(row.name, row.fan_for(facts))
                 for row in holding if row.pinyin not in replaced]
        if self.combine is Combine.BEST and found:
            return [max(found, key=lambda m: m.fan)]
        return found

    def fan(self, found: Sequence[Mingtang], *, haidi: bool) -> int:
        """The hand's 番 from the 名堂 found: their sum, 1 for 平胡, 海底 added."""
        total = sum(m.fan for m in found)
        if haidi and self.haidi:
            return (total or 1) + (2 if total else 1)
        return total or 1


# ---- the schemes' tables (docs/rules.md §7.2, §9) ------------------------------------------

def _red(*values: int) -> CountIs:
    return CountIs("red", values)


_HONGWU = MingtangRow("红乌", "hongwu", CountAtLeast("red", 13), 4)
_WUHU = MingtangRow("乌胡", "wuhu", _red(0), 5)
_DUIDUIHU = MingtangRow("对对胡", "duiduihu", AllIdentical(), 4)
_HONGHU_10_12 = MingtangRow("红胡", "honghu", _red(10, 11, 12), 2)

_DAZIHU = MingtangRow("大字胡", "dazihu", CountAtLeast("big", 18), Grows(6, "big", 18))
_XIAOZIHU = MingtangRow("小字胡", "xiaozihu", CountAtLeast("small", 16), Grows(8, "small", 16))

QQ = MingtangTable(
    rows=(
        MingtangRow("红胡", "honghu", _red(4, 7, 11, 12), 2),
        MingtangRow("真点胡", "zhendianhu", _red(1), 4),
        MingtangRow("假点胡", "jiadianhu", _red(10), 3),
        MingtangRow("红乌", "hongwu", CountAtLeast("red", 13), Grows(4, "red", 13)),
        _WUHU,
        MingtangRow("对对胡", "duiduihu", AllIdentical(), 5),
        _DAZIHU,
        _XIAOZIHU,
    ),
    combine=Combine.SUM,
    haidi=True,
)
"""§7.2: every 名堂 that applies adds its 番; the 红胡 counts taken literally."""

_DIANHU = MingtangRow("点胡", "dianhu", _red(1), 3)

_CHANGDE_BASIC_ROWS = (_HONGHU_10_12, _DIANHU, _HONGWU, _WUHU)
_CHANGDE_HALF_ROWS = (*_CHANGDE_BASIC_ROWS, _DUIDUIHU,
                      combination("乌对", "wudui", 10, _WUHU, _DUIDUIHU))

CHANGDE_BASIC = MingtangTable(rows=_CHANGDE_BASIC_ROWS, combine=Combine.SUM, haidi=False)
"""§9 常德 基本花样: 红胡, 点胡, 红乌, 乌胡 (自摸's +1 等 is the scheme's, not a 名堂); no 海底."""

CHANGDE = MingtangTable(rows=_CHANGDE_HALF_ROWS, combine=Combine.SUM, haidi=True)
"""§9 常德 半花样 (the preset): 基本 + 对对胡, 乌对 and 海底; they add up, except 乌胡
with 对对胡 is one 乌对 of 10 (N11)."""

CHANGDE_FULL = MingtangTable(rows=(*_CHANGDE_HALF_ROWS, _DAZIHU, _XIAOZIHU),
                             combine=Combine.SUM, haidi=True)
"""§9 常德 全花样 [decision]: 半 + 大字胡 and 小字胡 with the ``qq`` thresholds and 番."""

CHANGDE_LEVELS: Mapping[Huayang, MingtangTable] = {
    "basic": CHANGDE_BASIC, "half": CHANGDE, "full": CHANGDE_FULL}
"""The ``changde`` table of each 花样 level (``Ruleset.huayang``)."""

HUNAN = MingtangTable(
    rows=(_HONGHU_10_12, _DIANHU, _HONGWU, _DUIDUIHU, _WUHU,
          combination("红对", "hongdui", 6, _HONGHU_10_12, _DUIDUIHU),
          combination("红乌对", "hongwudui", 8, _HONGWU, _DUIDUIHU),
          combination("乌对", "wudui", 10, _WUHU, _DUIDUIHU)),
    combine=Combine.BEST,
    haidi=False,
)
"""§9 湖南: one 名堂 multiplies the 囤, the largest that applies (N10); no 海底 (N14)."""

LUZHOU_HONGWU = MingtangTable(
    rows=(MingtangRow("红胡", "honghu", CountAtLeast("red", 10), 2),
          MingtangRow("乌胡", "wuhu", _red(0), 4)),
    combine=Combine.SUM,
    haidi=False,
)
"""§9.1 泸州 ``hongwu`` mode (the preset): 红胡 (10+ red) ×2, 乌胡 (no red) ×4; no 海底."""

LUZHOU_DENG = MingtangTable(rows=(), combine=Combine.SUM, haidi=False)
"""§9.1 泸州 ``deng`` mode: 等 only, 番 1."""

TABLES: Mapping[SettlementScheme, MingtangTable] = {
    "qq": QQ, "changde": CHANGDE, "hunan": HUNAN, "luzhou": LUZHOU_HONGWU}
"""Each settlement scheme's 名堂 table."""


def table_of(rules: Ruleset) -> MingtangTable:
    """The 名堂 table a ruleset scores with: its scheme's, at its 花样 level for ``changde``.

    >>> table_of(Ruleset.preset("changde", huayang="basic")) is CHANGDE_BASIC
    True
    >>> table_of(Ruleset.preset("hunan")) is HUNAN
    True
    >>> table_of(Ruleset.preset("luzhou", luzhou_mode="deng")) is LUZHOU_DENG
    True
    """
    if rules.settlement == "changde":
        return CHANGDE_LEVELS[rules.huayang]
    if rules.settlement == "luzhou" and rules.luzhou_mode == "deng":
        return LUZHOU_DENG
    return TABLES[rules.settlement]


def find_mingtang(scheme: SettlementScheme, facts: HandFacts) -> list[Mingtang]:
    """The 名堂 that apply to a won hand under a settlement scheme (empty for 平胡)."""
    return TABLES[scheme].find(facts)
