"""The hand solver (docs/rules.md §2, §5, §6): can this hand win, its best arrangement, its waits.

A position is the cards in hand, the groups on the table (melds) and, for a
win, the winning card with where it came from (a :class:`~paohuzi.core.kinds.Source`;
its plain string works too):

* ``Source.SELF`` (``"self"``) — drawn from the wall by the player himself;
* ``Source.OTHER`` (``"other"``) — drawn from the wall by another player and shown;
* ``Source.DISCARD`` (``"discard"``) — discarded by another player, where the rules
  let it be won (泸州, §9.1): as ``OTHER``, but it never turns a table 碰 into a 跑;
* ``Source.LIANGZHANG`` (``"liangzhang"``) — the dealer's shown 21st card (亮张).
  For the dealer it is a card of his own deal (a pair with it is a 坎, a 坎 with
  it a 提); for anyone else it is another player's card.

The winning card is grouped as docs/rules.md §4.2 and §5 say: onto one's own hand
坎 or table 偎 a self-drawn card must make a 提 (破跑不破提) and onto a hand pair
a 偎; another player's card may make a 跑 of a hand 坎 or table 偎 and a 碰 of a
hand pair, or be used in another group instead (破跑胡); any drawn card may turn a
table 碰 into a 跑 or be used elsewhere (a discard only the latter, §2). Every choice
is tried and the arrangement with the most 胡息 is returned.

>>> from paohuzi.core.cards import parse_cards, Card
>>> hand = parse_cards("一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖")
>>> best = solve(hand, [], Card.parse("拾"), "other")
>>> best.huxi, len(best.groups)
(18, 7)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

from paohuzi.core.cardcount import MENZI_TO_WIN, may_form_menzi
from paohuzi.core.cards import (
    ALL_CARDS,
    COPIES,
    KINDS,
    Card,
    counts_of,
    format_cards,
    validate_counts,
)
from paohuzi.core.decompose import (
    best_packed_groups,
    best_packed_huxi,
    pack_free,
    packed,
    partial_scoring_sentences,
    partial_scoring_split,
    scoring_gain,
)
from paohuzi.core.errors import CardCountError, PaohuziError
from paohuzi.core.groups import (
    GROWABLE,
    HUXI_TABLES,
    QQ_HUXI,
    SCORING_VALUES,
    Group,
    GroupKind,
    HuxiTable,
    partners,
)
from paohuzi.core.kinds import Source, TianhuKind
from paohuzi.core.native import mypyc_attr
from paohuzi.core.rules import Ruleset

__all__ = [
    "SOURCES",
    "TIANHU_KAN",
    "TIANHU_TI",
    "Arrangement",
    "Source",
    "Wait",
    "WinFacts",
    "best_huxi",
    "best_partial_huxi",
    "can_hu",
    "clear_prefilter_cache",
    "hand_facts",
    "isolated_allow",
    "isolated_cards",
    "isolated_mask",
    "may_win",
    "may_win_cards",
    "may_win_in_mask",
    "may_win_mask",
    "may_win_on",
    "partial_huxi_counts",
    "solve",
    "solve_counts",
    "solve_tianhu",
    "tianhu_kind",
    "tianhu_kind_counts",
    "waits",
    "win_barred",
    "win_facts",
]

SOURCES: tuple[Source, ...] = (Source.SELF, Source.OTHER, Source.DISCARD, Source.LIANGZHANG)
"""The sources of a winning card (a mandatory 天胡, ``Source.TIANHU``, has none)."""
_SELF: Final = Source.SELF  # for the hot path: a member lookup on the class is slow on 3.11
_LIANGZHANG: Final = Source.LIANGZHANG
_DISCARD: Final = Source.DISCARD


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Arrangement:
    """A split of a player's cards into groups, with its 胡息.

    Attributes:
        groups: every group, table groups first, then hand groups.
        on_table: for each group, whether it lies on the table (melds, and a
            table 碰/偎 grown by the winning card).
        leftover: cards in no group (only for a mandatory 天胡, §6.4).
        winning_group: index in ``groups`` of the group holding the winning
            card, or ``None`` (天胡 without a card).
    """

    groups: tuple[Group, ...]
    on_table: tuple[bool, ...]
    leftover: tuple[Card, ...] = ()
    winning_group: int | None = None

    @property
    def huxi(self) -> int:
        """胡息: the sum over the groups (§5)."""
        return sum(g.huxi for g in self.groups)

    @property
    def cards(self) -> list[Card]:
        """Every card the player owns in this arrangement."""
        out = [c for g in self.groups for c in g.cards]
        out.extend(self.leftover)
        return out

    @property
    def all_identical(self) -> bool:
        """Every 门子 made of identical cards (对对胡's condition), nothing left over."""
        return not self.leftover and all(g.kind.identical for g in self.groups)

    def __str__(self) -> str:
        parts = [f"{g}({g.huxi})" for g in self.groups]
        if self.leftover:
            parts.append(f"leftover:{format_cards(self.leftover)}")
        return f"{self.huxi} 胡息: " + " ".join(parts)


# How the winning card may be placed (a "scenario"):
_FREE = 0  # the card joins the free hand cards
_GROW_KAN = 1  # a hand 坎 becomes 跑 (another's card) or 提 (own draw)
_GROW_MELD = 2  # a table 偎/臭偎 becomes 跑/提, or a table 碰 becomes 跑
_WITH_PAIR = 3  # a hand pair becomes 碰 (another's card), 偎 (own draw) or 坎 (own 亮张)


def _placements(hand: Sequence[int], melds: Sequence[Group], card: int, source: Source,
                dealer: bool, table: HuxiTable) -> list[tuple[int, Group | None, int]]:
    """Every allowed placement: ``(how, the group the card forms, meld index)`` (§4.2, §5)."""
    if source not in SOURCES:
        raise PaohuziError(f"source must be one of {', '.join(SOURCES)}, got {source!r}")
    own = source == _SELF or (source == _LIANGZHANG and dealer)
    held = hand[card]
    if held == 3:
        grown = Group.identical(GroupKind.TI if own else GroupKind.PAO, card, table)
        # 破跑胡: another's card may be used elsewhere; a 提 is never broken.
        return [(_GROW_KAN, grown, -1)] if own else [(_GROW_KAN, grown, -1), (_FREE, None, -1)]
    for i, meld in enumerate(melds):
        if meld.cards[0] == card and meld.kind in GROWABLE:
            if meld.kind is GroupKind.PENG:  # any drawn card may make it a 跑, or be used
                if source == _DISCARD:  # a discard never does (§2): it is used elsewhere
                    return [(_FREE, None, -1)]
                return [(_GROW_MELD, Group.identical(GroupKind.PAO, card, table), i),
                        (_FREE, None, -1)]
            if own:
                return [(_GROW_MELD, Group.identical(GroupKind.TI, card, table), i)]
            return [(_GROW_MELD, Group.identical(GroupKind.PAO, card, table), i),
                    (_FREE, None, -1)]
    if held == 2:
        if own:
            kind = GroupKind.KAN if source == _LIANGZHANG else GroupKind.WEI
            return [(_WITH_PAIR, Group.identical(kind, card, table), -1)]
        return [(_WITH_PAIR, Group.identical(GroupKind.PENG, card, table), -1), (_FREE, None, -1)]
    return [(_FREE, None, -1)]


_Best = tuple[int, tuple[int, Group | None, int] | None, int, bool]
"""What :func:`_best` finds: ``(huxi, placement, free cards packed, whether they hold the
pair)``."""


def _best(hand: list[int], melds: Sequence[Group], card: int, source: Source, dealer: bool,
          trusted: bool = False, table: HuxiTable = QQ_HUXI, code: int = -1, top: int = -1
          ) -> _Best:
    """Most 胡息 of a winning arrangement: ``(huxi, placement, free cards packed
    (:func:`~paohuzi.core.decompose.pack_free`), whether the free cards hold the pair)``;
    huxi -1 if none. Groups score by ``table`` (the table groups already do: they were
    built with it).

    ``trusted`` skips the card-count validation (for the engine, whose state is valid);
    ``code`` and ``top``, when not -1, are every card of ``hand`` packed and the most
    copies of one card, as :func:`solve` counts them (20 counts of 0 or more).
    """
    if not 0 <= card < KINDS:
        raise PaohuziError(f"card index must be 0..19, got {card}")
    table_huxi = 0
    table_pao_ti = 0
    for meld in melds:
        table_huxi += meld.huxi
        table_pao_ti += meld.kind is _PAO or meld.kind is _TI
    if top < 0:
        if not trusted:
            _check_shape(hand)
        top = max(hand)
    if not trusted:
        _check_copies(hand, melds, card, top)
    locked_huxi = 0
    locked_n = 0
    locked_ti = 0
    in_free = sum(hand)
    if code < 0:
        code = pack_free(hand)
    if top >= 3:  # the 坎 and 提 are locked whole: out of the free cards
        kan_huxi, ti_huxi = _locked_huxi(table)
        for i, n in enumerate(hand):
            if n >= 3:
                locked_huxi += kan_huxi[i] if n == 3 else ti_huxi[i]
                locked_n += 1
                locked_ti += n == 4
                in_free -= n
                code -= packed(i, n)
    # code: the free cards packed, for the search
    best_huxi = -1
    best_placement = None
    best_code = code
    best_need_pair = False
    for placement in _placements(hand, melds, card, source, dealer, table):
        how, group, index = placement
        fixed_n = len(melds) + locked_n
        fixed_huxi = table_huxi + locked_huxi
        pao_ti = table_pao_ti + locked_ti
        delta = 0  # what the placement adds to the free cards of the card
        if how == _FREE:
            delta = 1
        else:
            assert group is not None
            fixed_huxi += group.huxi
            if how == _GROW_KAN:
                fixed_huxi -= _locked_huxi(table)[0][card]
                pao_ti += 1
            elif how == _GROW_MELD:
                fixed_huxi -= melds[index].huxi
                pao_ti += 1
            else:  # the hand pair (both free) joins the card in a group
                delta = -2
                fixed_n += 1
        need_pair = pao_ti > 0
        n_free = in_free + delta - (2 if need_pair else 0)
        if n_free < 0 or n_free % 3 or fixed_n + n_free // 3 + need_pair != MENZI_TO_WIN:
            continue
        with_card = code + packed(card, delta) if delta else code
        free_huxi = best_packed_huxi(with_card, need_pair, table)
        if free_huxi >= 0 and free_huxi + fixed_huxi > best_huxi:
            best_huxi, best_placement, best_code = free_huxi + fixed_huxi, placement, with_card
            best_need_pair = need_pair
    return best_huxi, best_placement, best_code, best_need_pair


def _check_shape(hand: Sequence[int]) -> None:
    """Raise :class:`CardCountError` unless ``hand`` is 20 counts of 0 or more."""
    if len(hand) != KINDS or min(hand) < 0:
        raise CardCountError(f"a hand is {KINDS} counts of 0 to {COPIES}, got {list(hand)}")


def _check_copies(hand: Sequence[int], melds: Sequence[Group], card: int, top: int) -> None:
    """Raise :class:`CardCountError` unless ``hand`` (holding at most ``top`` of a card),
    the table groups and ``card`` hold at most 4 of each card together."""
    if not melds and top <= COPIES and hand[card] < COPIES:
        return
    total = list(hand)
    for meld in melds:
        for c in meld.cards:
            total[c] += 1
    total[card] += 1
    if max(total) > COPIES:
        validate_counts(total, "hand, table and winning card together")


_KAN: Final = GroupKind.KAN
_TI: Final = GroupKind.TI
_PAO: Final = GroupKind.PAO
_QQ_LOCKED: Final = (QQ_HUXI.identical[_KAN], QQ_HUXI.identical[_TI])


def _locked_huxi(table: HuxiTable) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The 胡息 of a hand 坎 and of a hand 提, per card, by ``table``."""
    if table is QQ_HUXI:
        return _QQ_LOCKED
    return table.identical[_KAN], table.identical[_TI]


def best_huxi(hand: Iterable[int], melds: Sequence[Group], card: int,
              source: Source = Source.OTHER, *, dealer: bool = False,
              table: HuxiTable = QQ_HUXI) -> int:
    """The 胡息 of :func:`solve`'s arrangement without building it; -1 when none (fast path)."""
    return _best(counts_of(hand), melds, card, source, dealer, table=table)[0]


def solve(hand: Iterable[int], melds: Sequence[Group], card: int,
          source: Source = Source.OTHER, *, dealer: bool = False,
          table: HuxiTable = QQ_HUXI) -> Arrangement | None:
    """The arrangement with the most 胡息 of hand + melds + the winning card, or ``None``.

    The 7-门子 condition and the pair rule (§6.1) are checked; the 胡息
    threshold is not (see :func:`can_hu`). Groups score by ``table`` (§5; ``luzhou``
    §9.1), which the table groups ``melds`` must already score by.
    """
    counts = [0] * KINDS
    code = top = 0  # the hand packed for the search, and the most copies of a card
    for c in hand:
        n = counts[c] + 1
        counts[c] = n
        code += _PACKED_ONE[c]
        if n > top:
            top = n
    return _arrangement(counts, melds, card, table,
                        _best(counts, melds, card, source, dealer, False, table, code, top),
                        0, top)


def solve_counts(counts: list[int], melds: Sequence[Group], card: int,
                 source: Source = Source.OTHER, *, dealer: bool = False, min_huxi: int = 0,
                 trusted: bool = False, table: HuxiTable = QQ_HUXI) -> Arrangement | None:
    """:func:`solve` for a hand given as a count vector; ``None`` also below ``min_huxi``.

    ``trusted`` skips validating the card counts (the engine's state is valid).
    """
    return _arrangement(counts, melds, card, table,
                        _best(counts, melds, card, source, dealer, trusted, table), min_huxi,
                        -1)


def _arrangement(counts: list[int], melds: Sequence[Group], card: int, table: HuxiTable,
                 best: _Best, min_huxi: int, top: int) -> Arrangement | None:
    """The arrangement :func:`_best` found (``None`` when none, or below ``min_huxi``);
    ``top``: the most copies of a card in ``counts``, or -1 when not counted."""
    huxi, placement, free, need_pair = best
    if placement is None or huxi < min_huxi:
        return None
    how, grown, index = placement
    on_table = list(melds)
    if top < 0:
        top = max(counts)
    locked = _locked_groups(counts, table) if top >= 3 else []
    extra: list[Group] = []
    winning = -1
    if how == _GROW_MELD:
        assert grown is not None
        on_table[index] = grown
        winning = index
    elif how == _GROW_KAN:
        assert grown is not None
        locked = [g for g in locked if g.cards[0] != card]
        extra.append(grown)
    elif how == _WITH_PAIR:
        assert grown is not None
        extra.append(grown)
    groups = on_table + locked + extra
    if extra:
        winning = len(groups) - 1
    found = best_packed_groups(free, need_pair, table)  # read back from _best's search
    assert found is not None
    if winning < 0:  # the card went to the free cards: the first free group holding it
        winning = len(groups)
        for group in found[1]:
            if card in group.cards:
                break
            winning += 1
    groups += found[1]
    laid = (True,) * len(on_table) + (False,) * (len(groups) - len(on_table))
    return Arrangement(tuple(groups), laid, (), winning)


def _locked_groups(hand: Sequence[int], table: HuxiTable = QQ_HUXI) -> list[Group]:
    """Hand 坎 (3 identical) and 提 (4 identical): always whole (§2)."""
    return [Group.identical(GroupKind.KAN if n == 3 else GroupKind.TI, i, table)
            for i, n in enumerate(hand) if n >= 3]


def can_hu(hand: Iterable[int], melds: Sequence[Group], card: int, source: Source,
           rules: Ruleset, *, dealer: bool = False) -> bool:
    """Whether the hand wins on ``card``: 7 门子 and at least ``rules.min_huxi`` 胡息."""
    return best_huxi(hand, melds, card, source, dealer=dealer,
                     table=rules.huxi) >= rules.min_huxi


def _ti_or_wei(hand: Sequence[int], melds: Sequence[Group], card: int, source: Source,
               dealer: bool) -> bool:
    """Whether the winner would have to 提 or 偎 ``card`` (§4.2.1, §3.5): his own draw
    onto a hand pair (偎), a hand 坎 or a table 偎/臭偎 (提); the dealer's own 亮张 onto
    a hand 坎 (提)."""
    if source == _SELF:
        return hand[card] >= 2 or any(
            m.cards[0] == card and m.kind in (GroupKind.WEI, GroupKind.CHOUWEI) for m in melds)
    return source == _LIANGZHANG and dealer and hand[card] == 3


def win_barred(rules: Ruleset, hand: Sequence[int], melds: Sequence[Group], card: int,
               source: Source, *, dealer: bool = False) -> bool:
    """Whether ``rules`` forbid winning on ``card`` whatever the hand makes (§9 changde
    option ``win_on_ti_wei`` off: no win on a card the winner would 提 or 偎).
    ``hand`` is a count vector.

    >>> from paohuzi.core.cards import Card, counts_of, parse_cards
    >>> hand = counts_of(parse_cards("五五"))
    >>> win_barred(Ruleset(win_on_ti_wei=False), hand, [], Card.parse("五"), Source.SELF)
    True
    >>> win_barred(Ruleset(win_on_ti_wei=False), hand, [], Card.parse("五"), Source.OTHER)
    False
    >>> win_barred(Ruleset(), hand, [], Card.parse("五"), Source.SELF)
    False
    """
    return not rules.win_on_ti_wei and _ti_or_wei(hand, melds, card, source, dealer)


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class Wait:
    """A card the hand waits on (听牌) and the 胡息 it would give.

    ``huxi_self`` if the player draws it himself, ``huxi_other`` if another
    player draws it, ``huxi_discard`` if another player discards it (only where the
    rules win on a discard, 泸州 §9.1: a discard never turns a table 碰 into a 跑);
    ``None`` where that way does not win.
    """

    card: Card
    huxi_self: int | None
    huxi_other: int | None
    huxi_discard: int | None = None


def waits(hand: Iterable[int], melds: Sequence[Group], rules: Ruleset) -> list[Wait]:
    """Every card that would complete this hand, with its 胡息 (threshold applied).

    The solver is asked only about the cards :func:`may_win` lets through.

    >>> from paohuzi.core.cards import parse_cards
    >>> from paohuzi.core.rules import Ruleset
    >>> hand = parse_cards("一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖")
    >>> [(w.card.text, w.huxi_self, w.huxi_other) for w in waits(hand, [], Ruleset())]
    [('柒', 18, 18), ('拾', 18, 18)]

    Where the rules win on a discard (泸州), a wait that needs a table 碰 to become a
    跑 wins on a drawn card only:

    >>> from paohuzi.core.groups import Group, GroupKind
    >>> luzhou = Ruleset.preset("luzhou")
    >>> peng = Group.identical(GroupKind.PENG, parse_cards("五")[0], luzhou.huxi)
    >>> hand = parse_cards("一二三 二七十 壹贰叁 贰柒拾 八九十 四四")
    >>> [(w.card.text, w.huxi_other, w.huxi_discard) for w in waits(hand, [peng], luzhou)]
    [('四', 26, 26), ('五', 33, None), ('肆', 25, 25)]
    """
    hand_counts = counts_of(hand)
    counts = list(hand_counts)
    for meld in melds:
        for c in meld.cards:
            counts[c] += 1
    validate_counts(counts, "hand and table")
    sources = (Source.SELF, Source.OTHER) + ((Source.DISCARD,) if rules.win_on_discard else ())
    out = []
    allowed = may_win_cards(hand_counts, melds, rules.min_huxi, rules.huxi)
    for x in range(KINDS):
        if counts[x] >= 4 or not allowed >> x & 1:
            continue  # the engine's cheap checks: no arrangement can win on x
        results: list[int | None] = []
        for source in sources:
            if win_barred(rules, hand_counts, melds, x, source):
                results.append(None)
                continue
            huxi = _best(hand_counts, melds, x, source, False, table=rules.huxi)[0]
            results.append(huxi if huxi >= rules.min_huxi else None)
        if any(huxi is not None for huxi in results):
            out.append(Wait(ALL_CARDS[x], *results))
    return out


def best_partial_huxi(hand: Iterable[int], melds: Sequence[Group] = (),
                      table: HuxiTable = QQ_HUXI) -> int:
    """The most 胡息 these cards can make with leftovers allowed (§6.4, §7.4).

    Table groups and hand 坎/提 count whole; the other hand cards add the best
    choice of 一二三 / 二七十 / 壹贰叁 / 贰柒拾 among them.

    >>> from paohuzi.core.cards import parse_cards
    >>> best_partial_huxi(parse_cards("一二三 壹壹壹 五六"))
    9
    """
    counts = counts_of(hand)
    validate_counts(counts, "hand")
    return partial_huxi_counts(counts, melds, table)


def partial_huxi_counts(counts: Sequence[int], melds: Sequence[Group] = (),
                        table: HuxiTable = QQ_HUXI) -> int:
    """:func:`best_partial_huxi` of a hand given as a (valid) count vector."""
    total = 0
    free = list(counts)
    for i, n in enumerate(counts):
        if n == 3:
            total += table.identical[_KAN][i]
            free[i] = 0
        elif n == 4:
            total += table.identical[_TI][i]
            free[i] = 0
    for meld in melds:
        total += meld.huxi
    return total + partial_scoring_sentences(free, table)


TIANHU_TI = 3
"""提 in a dealt hand that win at once (三提, mandatory 天胡, §6.4)."""
TIANHU_KAN = 5
"""提 and 坎 together in a dealt hand that win at once (五坎, mandatory 天胡, §6.4)."""


def tianhu_kind(hand: Iterable[int], melds: Sequence[Group] = ()) -> TianhuKind | None:
    """The mandatory 天胡 a dealt hand has (§6.4): a :class:`~paohuzi.core.kinds.TianhuKind`
    (``"3ti"`` or ``"5kan"``), or ``None``.

    3 or more 提, or 5 or more 提 and 坎 together (a 提 counts as a 坎).
    ``melds`` may hold 提 already laid down.
    """
    return tianhu_kind_counts(counts_of(hand), melds)


def tianhu_kind_counts(counts: Sequence[int], melds: Sequence[Group] = ()) -> TianhuKind | None:
    """:func:`tianhu_kind` of a hand given as a count vector."""
    ti = counts.count(4) + sum(1 for m in melds if m.kind is GroupKind.TI)
    kan = counts.count(3)
    if ti >= TIANHU_TI:
        return TianhuKind.SAN_TI
    if ti + kan >= TIANHU_KAN:
        return TianhuKind.WU_KAN
    return None


def solve_tianhu(hand: Iterable[int], melds: Sequence[Group] = (),
                 table: HuxiTable = QQ_HUXI) -> Arrangement | None:
    """The 天胡 arrangement of a dealt hand (§6.4), or ``None`` if it has no mandatory 天胡.

    Its 胡息 is the 提/坎 胡息 plus the best the other cards make, leftovers allowed.
    When the only other cards are one pair, the pair is a group (the 将), so a hand
    of 提, 坎 and that pair is all-identical (对对胡, §7.2 [decision]).

    >>> from paohuzi.core.cards import parse_cards
    >>> a = solve_tianhu(parse_cards("一一一一 二二二二 叁叁叁叁 三 壹贰 七八九 十"))
    >>> a.huxi, a.leftover
    (30, (Card('三'), Card('七'), Card('八'), Card('九'), Card('十'), Card('壹'), Card('贰')))
    """
    hand = list(hand)
    counts = counts_of(hand)
    if any(m.kind is not GroupKind.TI for m in melds):
        raise PaohuziError("at the deal only 提 can lie on the table")
    validate_counts([counts[i] + sum(m.cards.count(ALL_CARDS[i]) for m in melds)
                     for i in range(KINDS)], "hand and table")
    if tianhu_kind(hand, melds) is None:
        return None
    locked = _locked_groups(counts, table)
    free = [n if n <= 2 else 0 for n in counts]
    groups: list[Group] = list(melds) + locked
    for shape in partial_scoring_split(free, table):
        groups.append(Group(GroupKind.SENTENCE, tuple(ALL_CARDS[c] for c in shape), table))
        for c in shape:
            free[c] -= 1
    left = [i for i in range(KINDS) for _ in range(free[i])]
    if len(left) == 2 and left[0] == left[1]:
        # §7.2 [decision]: one pair beside the 提 and 坎 is the 将, a 门子 (对对胡 may hold)
        groups.append(Group.identical(GroupKind.PAIR, left[0], table))
        left = []
    leftover = tuple(ALL_CARDS[i] for i in left)
    on_table = tuple([True] * len(melds) + [False] * (len(groups) - len(melds)))
    return Arrangement(tuple(groups), on_table, leftover, None)


# ---- the win prefilter: cheap necessary conditions, cached on the hand's counts ------

class WinFacts(NamedTuple):
    """What the prefilter needs of a hand (a count vector), worked out once."""

    cards: int
    """Cards in the hand."""
    ti: int
    """Hand 提 (four of a kind)."""
    huxi: int
    """胡息 of the hand 坎/提 and of the best scoring sentences of the free cards."""
    free: tuple[int, ...]
    """The free cards (outside 坎 and 提)."""
    isolated: tuple[int, ...]
    """Free cards held once that no other free card could share a group with."""
    pairs: int = 0
    """The cards held twice or more, as bits (bit ``c``: card ``c``): one more grows them."""
    free_cards: int = 0
    """How many free cards there are."""
    code: int = 0
    """The free cards packed for the search (:func:`~paohuzi.core.decompose.pack_free`)."""


def isolated_cards(hand: Sequence[int]) -> tuple[int, ...]:
    """Free hand cards held once that no other free hand card could group with.

    >>> from paohuzi.core.cards import counts_of, parse_cards, format_cards
    >>> format_cards(isolated_cards(counts_of(parse_cards("一二 五 九 玖 拾拾拾"))))
    '五'
    """
    isolated = []
    for c in range(KINDS):
        if hand[c] == 1:
            for d in _PARTNERS[c]:
                if 0 < hand[d] <= 2:
                    break
            else:
                isolated.append(c)
    return tuple(isolated)


def win_facts(hand: Sequence[int], table: HuxiTable = QQ_HUXI) -> WinFacts:
    """What :func:`may_win` needs of a hand (a count vector), worked out (see
    :func:`hand_facts` for the memoised form)."""
    free = list(hand)
    kan_huxi, ti_huxi = _locked_huxi(table)
    locked = ti = pairs = free_mask = free_cards = code = 0
    singles = []
    i = -1
    for n in hand:  # one pass, the free cards' code summed as it goes (a hot path)
        i += 1
        if not n:
            continue
        if n == 1:
            singles.append(i)
            free_mask |= _CARD_BITS[i]
            free_cards += 1
            code += _PACKED_ONE[i]
        elif n == 2:
            pairs |= _CARD_BITS[i]
            free_mask |= _CARD_BITS[i]
            free_cards += 2
            code += _PACKED_TWO[i]
        else:  # a 坎 or 提: locked whole
            pairs |= _CARD_BITS[i]
            free[i] = 0
            if n == 3:
                locked += kan_huxi[i]
            else:
                locked += ti_huxi[i]
                ti += 1
    isolated = tuple([c for c in singles if not free_mask & _PARTNER_MASKS[c]])
    return WinFacts(sum(hand), ti, locked + partial_scoring_sentences(free, table),
                    tuple(free), isolated, pairs,  # isolated: as isolated_cards(hand)
                    free_cards, code)


_facts_memos: dict[str, dict[tuple[int, ...], WinFacts]] = {
    name: {} for name in HUXI_TABLES}
"""Per 胡息 table, the prefilter's facts of each hand seen."""
_facts_memo = _facts_memos[QQ_HUXI.name]
_FACTS_LIMIT: Final = 1 << 16
"""The memo is emptied when it reaches this many hands (a bound on its memory)."""


def clear_prefilter_cache() -> None:
    """Forget the hands :func:`may_win` has analysed (for cold benchmarks)."""
    for memo in _facts_memos.values():
        memo.clear()


_GROWS_INTO: Final = ((GroupKind.KAN, GroupKind.TI), (GroupKind.KAN, GroupKind.PAO),
                      (GroupKind.WEI, GroupKind.TI), (GroupKind.WEI, GroupKind.PAO),
                      (GroupKind.CHOUWEI, GroupKind.TI), (GroupKind.CHOUWEI, GroupKind.PAO),
                      (GroupKind.PENG, GroupKind.PAO), (GroupKind.PAIR, GroupKind.PENG),
                      (GroupKind.PAIR, GroupKind.WEI), (GroupKind.PAIR, GroupKind.KAN))


def _growth(table: HuxiTable) -> int:
    """The most 胡息 one card adds by growing a hand 坎 or pair or a table 偎/碰
    (``qq``: 6; ``luzhou``: 12, a red pair becoming a big red 坎)."""
    return max(table.identical[new][c] - table.identical[old][c]
               for old, new in _GROWS_INTO for c in range(KINDS))


def _most_gain(table: HuxiTable) -> tuple[int, ...]:
    """Per card, the most 胡息 it can add to the scoring sentences: one sentence, the best
    scoring one it is in."""
    return tuple(max([table.sentence_huxi(v, c >= 10) for v in SCORING_VALUES if c % 10 in v],
                     default=0) for c in range(KINDS))


_BOUNDS: Final = {name: (_growth(t), _most_gain(t)) for name, t in HUXI_TABLES.items()}
_GROWTH, _MOST_GAIN = _BOUNDS[QQ_HUXI.name]


def may_win(hand: Sequence[int], melds: Sequence[Group], card: int, min_huxi: int,
            table: HuxiTable = QQ_HUXI) -> bool:
    """A cheap necessary condition for a win on ``card`` with at least ``min_huxi`` 胡息.

    ``False`` means no arrangement wins (so :func:`solve_counts` need not be asked);
    ``True`` means it may. Four checks, the hand's part cached on its counts:

    * the card count of 7 门子 (§6.1, :func:`~paohuzi.core.cardcount.may_form_menzi`);
    * every *isolated* card (a free card held once that no other free card could
      share a sentence or 绞 with) must end in a group with the new card or be
      paired by it: so at most two, and the card a partner of each (or the same card);
    * a bound on the 胡息: table, 坎 and 提 胡息, the best scoring sentences with the
      card free, and what the card adds by growing a 坎, pair or table 偎/碰;
    * the free cards must split into sentences and 绞 (and the pair, when a 跑/提 is
      owned) as one of the card's placements leaves them: with the card when it joins
      them; without the card's hand pair when it makes a 3-card group with it; as they
      are when it grows a hand 坎 or table 偎/碰 to four (which owes the pair). The
      search's memo (:mod:`~paohuzi.core.decompose`) answers it.

    >>> from paohuzi.core.cards import counts_of, parse_cards, format_cards, Card
    >>> hand = counts_of(parse_cards("一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖"))
    >>> may_win(hand, [], Card.parse("拾"), 15), may_win(hand, [], Card.parse("拾"), 19)
    (True, False)
    >>> hand = counts_of(parse_cards("壹贰叁 壹贰叁 壹贰叁 肆伍陆 肆伍陆 拾拾拾 三 十"))
    >>> format_cards(isolated_cards(hand))  # 壹贰叁 and 拾 are 坎: 三 and 十 group with nothing
    '三十'
    >>> format_cards(c for c in range(20) if isolated_allow(isolated_cards(hand), c))
    '二'
    >>> format_cards([c for c in range(20) if may_win(hand, [], c, 15)])  # 二三十: no group
    ''
    """
    return bool(may_win_cards(hand, melds, min_huxi, table, 1 << card))


def may_win_cards(hand: Sequence[int], melds: Sequence[Group], min_huxi: int,
                  table: HuxiTable = QQ_HUXI, among: int = (1 << KINDS) - 1) -> int:
    """The cards of ``among`` (bits: bit ``c`` is card ``c``; all by default) that
    :func:`may_win` lets through, as bits: its checks for many cards at once (the
    table groups' totals and the hand's facts worked out once, :func:`may_win_mask`
    first).

    >>> from paohuzi.core.cards import counts_of, parse_cards, format_cards
    >>> hand = counts_of(parse_cards("一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖"))
    >>> cards = may_win_cards(hand, [], 15)
    >>> format_cards(c for c in range(20) if cards >> c & 1)  # the solver keeps 柒拾 (waits)
    '二贰柒拾'
    """
    table_cards = table_pao_ti = table_huxi = grows = 0
    for meld in melds:
        table_cards += len(meld.cards)
        table_huxi += meld.huxi
        kind = meld.kind
        if kind is GroupKind.PAO or kind is GroupKind.TI:
            table_pao_ti += 1
        elif kind in GROWABLE:
            grows |= 1 << meld.cards[0]
    facts = hand_facts(hand, table)
    mask = among & may_win_mask(facts, hand, table_cards, table_pao_ti, table_huxi, grows,
                                min_huxi, table)
    cards = 0
    while mask:
        low = mask & -mask
        mask ^= low
        if may_win_in_mask(facts, hand, low.bit_length() - 1, table_pao_ti, table_huxi,
                           bool(grows & low), min_huxi, table):
            cards |= low
    return cards


def isolated_allow(isolated: tuple[int, ...], card: int) -> bool:
    """Whether every isolated card (:func:`isolated_cards`) can end in a group with ``card``
    or be paired by it: at most two of them, and ``card`` a partner of each (or the card
    itself, when there is one). The second check of :func:`may_win`.

    >>> isolated_allow((), 3), isolated_allow((4,), 4), isolated_allow((4,), 9)
    (True, True, False)
    """
    return bool(isolated_mask(isolated) >> card & 1)


def isolated_mask(isolated: tuple[int, ...]) -> int:
    """The cards :func:`isolated_allow` lets through, as bits (bit ``c``: card ``c``).

    >>> from paohuzi.core.cards import format_cards
    >>> format_cards(c for c in range(20) if isolated_mask((4,)) >> c & 1)  # 五: 三四五六七, 伍
    '三四五六七伍'
    """
    if not isolated:
        return _ALL_CARDS_MASK
    if len(isolated) == 1:
        return _PARTNER_MASKS[isolated[0]] | 1 << isolated[0]
    if len(isolated) == 2:
        return _PARTNER_MASKS[isolated[0]] & _PARTNER_MASKS[isolated[1]]
    return 0


def hand_facts(hand: Sequence[int], table: HuxiTable = QQ_HUXI) -> WinFacts:
    """What :func:`may_win` needs of a hand (a count vector), memoised on its counts
    (a caller that knows when the hand changes may keep it and use :func:`may_win_on`)."""
    key = tuple(hand)
    memo = _facts_memo if table is QQ_HUXI else _facts_memos[table.name]
    facts = memo.get(key)
    if facts is None:
        if len(memo) >= _FACTS_LIMIT:
            memo.clear()
        facts = memo[key] = win_facts(key, table)
    return facts


def may_win_on(facts: WinFacts, hand: Sequence[int], card: int, table_cards: int,
               table_pao_ti: int, table_huxi: int, table_grows: bool, min_huxi: int,
               table: HuxiTable = QQ_HUXI) -> bool:
    """:func:`may_win` from the hand's :func:`hand_facts` and the table groups' totals:
    their cards, their 跑/提, their 胡息, and whether one of them grows with ``card``
    (a table 偎/臭偎/碰 of it), as a caller that keeps running totals knows them."""
    if facts.isolated and not isolated_allow(facts.isolated, card):
        return False
    if not may_form_menzi(facts.cards + 1 + table_cards, facts.ti + table_pao_ti):
        return False
    return may_win_in_mask(facts, hand, card, table_pao_ti, table_huxi, table_grows, min_huxi,
                           table)


def may_win_in_mask(facts: WinFacts, hand: Sequence[int], card: int, table_pao_ti: int,
                    table_huxi: int, table_grows: bool, min_huxi: int,
                    table: HuxiTable = QQ_HUXI) -> bool:
    """:func:`may_win_on` of a card in :func:`may_win_mask`'s mask of this hand and table
    (so its isolated-card and card-count checks hold): the 胡息 bound and whether the free
    cards group as one of the card's placements needs, for a caller that keeps the mask."""
    qq = table is QQ_HUXI
    bound = facts.huxi + table_huxi
    held = hand[card]
    grows = table_grows or held >= 2
    if grows:
        bound += _GROWTH if qq else _BOUNDS[table.name][0]
    if bound < min_huxi:
        most_gain = _MOST_GAIN if qq else _BOUNDS[table.name][1]
        if bound + most_gain[card] < min_huxi or \
                bound + scoring_gain(facts.free, card, table) < min_huxi:
            return False
    pao_ti = facts.ti + table_pao_ti
    if held == 3 or table_grows:  # a hand 坎 or table 偎/碰 grows to 4: the free cards stay
        if _free_cards_split(facts.code, facts.free_cards, True, table):
            return True
    elif held == 2 and _free_cards_split(  # the hand pair and the card: a 3-card group
            facts.code - _PACKED_TWO[card], facts.free_cards - 2, pao_ti > 0, table):
        return True
    # the card joins the free cards (the one placement of a card held at most once)
    return _free_cards_split(facts.code + _PACKED_ONE[card], facts.free_cards + 1, pao_ti > 0,
                             table)


def _free_cards_split(code: int, cards: int, need_pair: bool, table: HuxiTable) -> bool:
    """Whether the free cards (``code`` packed, ``cards`` of them) split into sentences and
    绞, with the pair when a 跑/提 is owned: each placement of a winning card needs its free
    cards to (§6.1, the placements of :func:`_placements`). The search's memo answers most
    hands at once."""
    n = cards - (2 if need_pair else 0)
    return n >= 0 and n % 3 == 0 and best_packed_huxi(code, need_pair, table) >= 0


def may_win_mask(facts: WinFacts, hand: Sequence[int], table_cards: int, table_pao_ti: int,
                 table_huxi: int, table_grows: int, min_huxi: int,
                 table: HuxiTable = QQ_HUXI) -> int:
    """The cards :func:`may_win_on` may let through, as bits (bit ``c``: card ``c``), for
    a caller that asks about many cards while the hand and table stay the same: its
    checks that need no search, for every card at once. Every card :func:`may_win_on`
    lets through is in the mask (it may let fewer through). ``table_grows`` has the bit
    of every card with a table 偎/臭偎/碰.

    >>> from paohuzi.core.cards import counts_of, parse_cards, format_cards
    >>> hand = counts_of(parse_cards("壹贰叁 壹贰叁 壹贰叁 肆伍陆 肆伍陆 拾拾拾 三 十"))
    >>> mask = may_win_mask(hand_facts(hand), hand, 0, 0, 0, 0, 15)
    >>> format_cards(c for c in range(20) if mask >> c & 1)
    '二'
    """
    if not may_form_menzi(facts.cards + 1 + table_cards, facts.ti + table_pao_ti):
        return 0
    mask = isolated_mask(facts.isolated)
    need = min_huxi - facts.huxi - table_huxi  # what the card must add
    if need <= 0 or not mask:
        return mask
    growth, gains = _GAIN_MASKS[table.name]
    return mask & (gains(need) | (facts.pairs | table_grows) & gains(need - growth))


def _gain_masks(table: HuxiTable) -> Callable[[int], int]:
    """For a 胡息 ``need``, the cards whose most gain (:func:`_most_gain`) reaches it, as bits."""
    gains = _most_gain(table)
    masks = tuple(sum(1 << c for c in range(KINDS) if gains[c] >= need)
                  for need in range(max(gains) + 1))

    def reaching(need: int) -> int:
        return masks[0] if need <= 0 else masks[need] if need < len(masks) else 0

    return reaching


_GAIN_MASKS: Final = {name: (_growth(t), _gain_masks(t)) for name, t in HUXI_TABLES.items()}


_PARTNERS: Final = tuple(partners(c) for c in range(KINDS))
_PARTNER_MASKS: Final = tuple(sum(1 << d for d in set(p)) for p in _PARTNERS)
_ALL_CARDS_MASK: Final = (1 << KINDS) - 1
_CARD_BITS: Final = tuple(1 << c for c in range(KINDS))
_PACKED_ONE: Final = tuple(packed(c) for c in range(KINDS))
_PACKED_TWO: Final = tuple(packed(c, 2) for c in range(KINDS))
