"""Groups (牌型, 门子) and their 胡息 (docs/rules.md §2 and §5).

This module is the one place that knows which three or four cards form which
group and what each group scores.

>>> Group.parse("sentence", "壹贰叁").huxi
6
>>> Group.parse("peng", "七七七").huxi
1
>>> Group.parse("jiao", "九九玖").huxi
0
>>> Group.parse("sentence", "壹二三")
Traceback (most recent call last):
...
paohuzi.core.errors.MeldError: 壹二三 is not a sentence (一句话)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from paohuzi.core.cards import ALL_CARDS, Card, format_cards, parse_cards
from paohuzi.core.errors import MeldError
from paohuzi.core.native import mypyc_attr

__all__ = [
    "GROWABLE",
    "HUXI_TABLE",
    "HUXI_TABLES",
    "JIAOS",
    "LABELS",
    "LUZHOU_HUXI",
    "QQ_HUXI",
    "SCORING_SENTENCE_HUXI",
    "SCORING_VALUES",
    "SENTENCES",
    "SENTENCE_VALUES",
    "SHAPES",
    "Group",
    "GroupKind",
    "HuxiTable",
    "group_huxi",
    "is_jiao",
    "is_sentence",
    "partners",
    "scoring_sentence_huxi",
    "shapes_with",
]


class GroupKind(Enum):
    """The kinds of group (牌型). Each one is one 门子 (meld) of a hand."""

    SENTENCE = "sentence"
    """一句话: three consecutive values of one size, or 二七十 / 贰柒拾."""
    JIAO = "jiao"
    """绞: one value in both sizes, 2+1 (九九玖, 九玖玖)."""
    PAIR = "pair"
    """对 / 将 (jiang): the pair required when a 跑/提 is owned."""
    KAN = "kan"
    """坎: three identical cards dealt into the hand; never split."""
    PENG = "peng"
    """碰: a hand pair plus another player's card, face up."""
    WEI = "wei"
    """偎: a hand pair plus one's own drawn card, face down."""
    CHOUWEI = "chouwei"
    """臭偎: a 偎 of a card whose 碰 was declined; one card face up."""
    PAO = "pao"
    """跑: four identical, completed by another's card (or a draw onto a 碰)."""
    TI = "ti"
    """提: four identical, dealt or completed by one's own draw; one card up."""

    @property
    def size(self) -> int:
        """How many cards a group of this kind holds."""
        if self is GroupKind.PAIR:
            return 2
        if self in _FOURS:
            return 4
        return 3

    @property
    def identical(self) -> bool:
        """Whether the group is made of identical cards (pair, 坎, 碰, 偎, 跑, 提)."""
        return self not in _MIXED


_FOURS: Final = (GroupKind.PAO, GroupKind.TI)
"""The kinds of four cards (a member looked up on its class is slow: hot paths use these)."""
_MIXED: Final = (GroupKind.SENTENCE, GroupKind.JIAO)


#: 胡息 of the groups of identical cards, as (small, big) — docs/rules.md §5.
HUXI_TABLE: Final[dict[GroupKind, tuple[int, int]]] = {
    GroupKind.PAIR: (0, 0),
    GroupKind.PENG: (1, 3),
    GroupKind.KAN: (3, 6),
    GroupKind.WEI: (3, 6),
    GroupKind.CHOUWEI: (3, 6),
    GroupKind.PAO: (6, 9),
    GroupKind.TI: (9, 12),
}
GROWABLE: Final = (GroupKind.WEI, GroupKind.CHOUWEI, GroupKind.PENG)
"""Table groups one more card turns into a 跑 or 提 (§2, §5)."""

#: 胡息 of 一二三 and 二七十 (small) / 壹贰叁 and 贰柒拾 (big) — docs/rules.md §5.
SCORING_SENTENCE_HUXI: Final = (3, 6)

# ---- the one table of shapes (docs/rules.md §2) ------------------------------------------
# A shape is a sorted triple of card indices; a value triple names one size's cards by
# value index (0 = 一/壹 … 9 = 十/拾).

_RUNS: Final = tuple((v, v + 1, v + 2) for v in range(8))
_ERQISHI: Final = (1, 6, 9)

#: One size's sentences (一句话) as value triples: the runs, then 二七十.
SENTENCE_VALUES: Final[tuple[tuple[int, int, int], ...]] = (*_RUNS, _ERQISHI)
#: The sentences that score (§5), as value triples: 一二三 and 二七十.
SCORING_VALUES: Final[tuple[tuple[int, int, int], ...]] = (_RUNS[0], _ERQISHI)
#: Every sentence as a card triple: the runs (small, then big), then 二七十 and 贰柒拾.
SENTENCES: Final[tuple[tuple[int, int, int], ...]] = tuple(
    (size + a, size + b, size + c)
    for values in (_RUNS, (_ERQISHI,)) for size in (0, 10) for a, b, c in values)
#: Every 绞 as a card triple: two small and one big (九九玖), then one small and two big.
JIAOS: Final[tuple[tuple[int, int, int], ...]] = (
    *((v, v, v + 10) for v in range(10)), *((v, v + 10, v + 10) for v in range(10)))
#: Every sentence and 绞: the shapes 吃, 比 and free hand cards are grouped in.
SHAPES: Final[tuple[tuple[int, int, int], ...]] = SENTENCES + JIAOS

_SENTENCE_SET: Final = frozenset(SENTENCES)
_JIAO_SET: Final = frozenset(JIAOS)
_SCORING_SENTENCES: Final = frozenset(
    (size + a, size + b, size + c) for a, b, c in SCORING_VALUES for size in (0, 10))
_SHAPES_WITH: Final = tuple(tuple(s for s in SHAPES if card in s) for card in range(20))
_PARTNERS: Final = tuple(
    tuple(sorted({c for s in shapes for c in s} - {card}))
    for card, shapes in enumerate(_SHAPES_WITH))


def shapes_with(card: int) -> tuple[tuple[int, int, int], ...]:
    """Every sentence and 绞 (card triples, table order) that holds ``card``.

    >>> from paohuzi.core.cards import format_cards
    >>> [format_cards(s) for s in shapes_with(1)]
    ['一二三', '二三四', '二七十', '二二贰', '二贰贰']
    """
    return _SHAPES_WITH[card]


def partners(card: int) -> tuple[int, ...]:
    """The other cards that share a sentence or 绞 with ``card``, sorted.

    >>> from paohuzi.core.cards import format_cards
    >>> format_cards(partners(6))
    '二五六八九十柒'
    """
    return _PARTNERS[card]


def is_sentence(cards: tuple[int, ...]) -> bool:
    """Three cards of one size with consecutive values, or 二七十 / 贰柒拾 (sorted input)."""
    return cards in _SENTENCE_SET


def is_jiao(cards: tuple[int, ...]) -> bool:
    """Three cards of one value, both sizes present (sorted input)."""
    return cards in _JIAO_SET


def scoring_sentence_huxi(cards: tuple[int, ...]) -> int:
    """胡息 of a sentence: 3 for 一二三/二七十, 6 for 壹贰叁/贰柒拾, else 0 (sorted input)."""
    if cards in _SCORING_SENTENCES:
        return SCORING_SENTENCE_HUXI[cards[0] >= 10]
    return 0


def group_huxi(kind: GroupKind, cards: tuple[int, ...]) -> int:
    """胡息 of a group under the ``qq`` table (docs/rules.md §5). ``cards`` sorted."""
    return QQ_HUXI.huxi(kind, cards)


_RED_VALUES: Final = frozenset(_ERQISHI)

LABELS: Final[dict[GroupKind, str]] = {
    GroupKind.SENTENCE: "一句话", GroupKind.JIAO: "绞", GroupKind.PAIR: "将",
    GroupKind.KAN: "坎", GroupKind.PENG: "碰", GroupKind.WEI: "偎", GroupKind.CHOUWEI: "臭偎",
    GroupKind.PAO: "跑", GroupKind.TI: "提"}
"""The standard Chinese name of each group kind (docs/rules.md §2), for display."""


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True, eq=False)
class HuxiTable:
    """A 胡息 table (docs/rules.md §5, §9.1): what each group scores, named by a ruleset
    (``Ruleset.huxi_table``). The one place the solver, the engine, views, settlement
    and players learn a group's 胡息 (:attr:`Group.huxi` is computed from it).

    Attributes:
        name: the table's name (``qq``, ``luzhou``).
        identical: per identical kind, the 胡息 of each of the 20 cards.
        yi_er_san: 胡息 of 一二三 (small) and 壹贰叁 (big).
        er_qi_shi: 胡息 of 二七十 (small) and 贰柒拾 (big).
        labels: the region's names of the groups, for display only (``luzhou``: 提 is
            垅, 跑 is 招, a sentence is 列; the code keeps ti, pao, sentence).

    >>> QQ_HUXI.huxi(GroupKind.TI, (19,) * 4), LUZHOU_HUXI.huxi(GroupKind.TI, (19,) * 4)
    (12, 18)
    >>> LUZHOU_HUXI.huxi(GroupKind.SENTENCE, (1, 6, 9)), LUZHOU_HUXI.huxi(GroupKind.PENG, (3,) * 3)
    (6, 1)
    """

    name: str
    identical: dict[GroupKind, tuple[int, ...]]
    yi_er_san: tuple[int, int]
    er_qi_shi: tuple[int, int]
    labels: dict[GroupKind, str]

    @classmethod
    def build(cls, name: str, identical: dict[GroupKind, tuple[tuple[int, int], tuple[int, int]]],
              yi_er_san: tuple[int, int], er_qi_shi: tuple[int, int],
              labels: dict[GroupKind, str] | None = None) -> HuxiTable:
        """A table from ``kind -> ((black small, black big), (red small, red big))``;
        ``labels`` override the standard group names (:data:`LABELS`)."""
        per_card = {kind: tuple(values[c % 10 in _RED_VALUES][c >= 10] for c in range(20))
                    for kind, values in identical.items()}
        return cls(name, per_card, yi_er_san, er_qi_shi, {**LABELS, **(labels or {})})

    def huxi(self, kind: GroupKind, cards: tuple[int, ...]) -> int:
        """胡息 of a group of ``kind`` (``cards`` sorted)."""
        if kind is GroupKind.SENTENCE:
            if cards in _SCORING_SENTENCES:
                scores = self.yi_er_san if cards[0] % 10 == 0 else self.er_qi_shi
                return scores[cards[0] >= 10]
            return 0
        if kind is GroupKind.JIAO:
            return 0
        return self.identical[kind][cards[0]]

    def sentence_huxi(self, values: tuple[int, int, int], big: bool) -> int:
        """胡息 of the sentence of one size given by its value triple (0 = 一 … 9 = 十)."""
        if values == _RUNS[0]:
            return self.yi_er_san[big]
        if values == _ERQISHI:
            return self.er_qi_shi[big]
        return 0

    def __repr__(self) -> str:
        return f"HuxiTable({self.name!r})"

    # A table is a named singleton: copies and pickles are the table itself (groups
    # compare their table by identity).
    def __copy__(self) -> HuxiTable:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> HuxiTable:
        return self

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return _table_named, (self.name,)


def _table_named(name: str) -> HuxiTable:
    """The registered table of this name (unpickling)."""
    return HUXI_TABLES[name]


def _same_colour(small_big: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    return small_big, small_big


QQ_HUXI: Final = HuxiTable.build(
    "qq", {kind: _same_colour(values) for kind, values in HUXI_TABLE.items()},
    SCORING_SENTENCE_HUXI, SCORING_SENTENCE_HUXI)
"""§5: the default table (碰 1/3, 坎/偎 3/6, 跑 6/9, 提 9/12, 一二三 and 二七十 3/6)."""

_LZ_KAN: Final = ((6, 9), (9, 12))
_LZ_ZHAO: Final = tuple((s + 3, b + 3) for s, b in _LZ_KAN)
_LZ_LONG: Final = tuple((s + 3, b + 3) for s, b in _LZ_ZHAO)
LUZHOU_HUXI: Final = HuxiTable.build(
    "luzhou",
    {GroupKind.PAIR: ((0, 0), (0, 0)),
     GroupKind.PENG: ((1, 3), (6, 9)),
     GroupKind.KAN: _LZ_KAN, GroupKind.WEI: _LZ_KAN, GroupKind.CHOUWEI: _LZ_KAN,
     GroupKind.PAO: (_LZ_ZHAO[0], _LZ_ZHAO[1]),
     GroupKind.TI: (_LZ_LONG[0], _LZ_LONG[1])},
    (3, 6), (6, 9),
    {GroupKind.TI: "垅", GroupKind.PAO: "招", GroupKind.SENTENCE: "列"})
"""§9.1 泸州: 碰 1/3 (red 6/9), 坎/偎 6/9 (red 9/12), 招 (跑) = 坎 + 3, 垅 (提) = 招 + 3
(at most 18); 一二三 3/6, 二七十 6/9; other sentences and 绞 0."""

HUXI_TABLES: Final[dict[str, HuxiTable]] = {t.name: t for t in (QQ_HUXI, LUZHOU_HUXI)}
"""Every 胡息 table by name (``Ruleset.huxi_table`` names one)."""


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Group:
    """A group of cards of one kind. ``cards`` are sorted card indices.

    Build it with :meth:`make` (validates) or :meth:`parse` (from text).
    """

    kind: GroupKind
    cards: tuple[Card, ...]
    huxi: int = field(init=False, compare=False)
    """胡息 of this group under its table (docs/rules.md §5, §9.1), computed once."""
    table: HuxiTable = field(default=QQ_HUXI, repr=False)
    """The 胡息 table it scores by (the ruleset's: ``Ruleset.huxi``)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "huxi", self.table.huxi(self.kind, self.cards))

    @classmethod
    def identical(cls, kind: GroupKind, card: int, table: HuxiTable = QQ_HUXI) -> Group:
        """The shared instance of a group of identical cards (pair, 坎, 碰, 偎, 臭偎, 跑, 提).

        >>> Group.identical(GroupKind.TI, 19).huxi
        12
        >>> Group.identical(GroupKind.TI, 19, LUZHOU_HUXI).huxi
        18
        """
        return _IDENTICAL[table][kind][card]

    def scored_by(self, table: HuxiTable) -> Group:
        """This group scored by ``table`` (itself when it already is).

        >>> Group.parse("sentence", "二七十").scored_by(LUZHOU_HUXI).huxi
        6
        """
        if self.table is table:
            return self
        if self.kind.identical:
            return _IDENTICAL[table][self.kind][self.cards[0]]
        return Group(self.kind, self.cards, table)

    @classmethod
    def make(cls, kind: GroupKind | str, cards: Sequence[int],
             table: HuxiTable = QQ_HUXI) -> Group:
        """Validate and build a group; raises :class:`MeldError` when the cards don't fit."""
        try:
            kind = GroupKind(kind) if isinstance(kind, str) else kind
        except ValueError:
            names = ", ".join(k.value for k in GroupKind)
            raise MeldError(f"unknown group kind {kind!r}; expected one of {names}") from None
        given = format_cards(cards)
        ordered = tuple(sorted(ALL_CARDS[c] for c in cards))
        if len(ordered) != kind.size:
            raise MeldError(
                f"a {kind.value} holds {kind.size} cards, got {len(ordered)}: "
                f"{given}"
            )
        if kind is GroupKind.SENTENCE:
            if not is_sentence(ordered):
                raise MeldError(f"{given} is not a sentence (一句话)")
        elif kind is GroupKind.JIAO:
            if not is_jiao(ordered):
                raise MeldError(f"{given} is not a 绞 (jiao)")
        elif len(set(ordered)) != 1:
            raise MeldError(f"a {kind.value} needs identical cards, got {given}")
        return cls(kind, ordered, table)

    @classmethod
    def parse(cls, kind: GroupKind | str, text: str, table: HuxiTable = QQ_HUXI) -> Group:
        """Build a group from card text."""
        return cls.make(kind, parse_cards(text), table)

    @property
    def is_pao_or_ti(self) -> bool:
        """Whether this group is a 跑 or 提 (which obliges a pair)."""
        return self.kind in _FOURS

    @property
    def text(self) -> str:
        return format_cards(self.cards)

    def __str__(self) -> str:
        return f"{self.kind.value}:{self.text}"


_IDENTICAL: Final[dict[HuxiTable, dict[GroupKind, tuple[Group, ...]]]] = {
    table: {kind: tuple(Group(kind, (card,) * kind.size, table) for card in ALL_CARDS)
            for kind in GroupKind if kind.identical}
    for table in HUXI_TABLES.values()
}
