"""吃 (chi, eating a card) and 比 (bi, the copies that must go down with it), docs/rules.md §4.3.

A *chi plan* is the eating group (the eaten card plus two hand cards forming
a sentence or a 绞) and every 比 group: while the hand still holds a copy of
the eaten card outside a 坎, each copy must be laid down in a further
sentence or 绞 of hand cards (one 绞 may carry two copies). A 吃 whose copies
cannot all be laid down is not allowed. Plans are found recursively, to any
depth, and listed without duplicates.

The first worked example of §4.3: with 二 三 一 in hand, eating 一 with 二三
needs the other 一 laid down too — impossible here, so that 吃 is refused:

>>> from paohuzi.core.cards import parse_cards, Card
>>> chi_options(parse_cards("一二三"), Card.parse("一"))
[]
>>> [str(p) for p in chi_options(parse_cards("一二三 壹壹"), Card.parse("一"))]
['吃一一壹', '吃一二三 比一壹壹', '吃一壹壹 比一二三']
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Final

from paohuzi.core.cards import ALL_CARDS, Card, counts_of, format_cards, parse_cards  # noqa: F401
from paohuzi.core.errors import PaohuziError
from paohuzi.core.groups import SHAPES, Group, GroupKind, is_jiao, partners, shapes_with
from paohuzi.core.native import mypyc_attr

__all__ = ["PLANS_COUNTS", "ChiOption", "chi_options", "chi_options_counts", "chi_plan_shapes",
           "chi_plans", "plans_key", "shape_group"]


@mypyc_attr(native_class=False)
@dataclass(frozen=True, slots=True)
class ChiOption:
    """One legal way to 吃 a card: the eaten card, the eating group and the 比 groups."""

    eaten: Card
    eat: Group
    bi: tuple[Group, ...]

    @property
    def groups(self) -> tuple[Group, ...]:
        """The eating group and every 比 group, as laid on the table."""
        return (self.eat, *self.bi)

    @property
    def hand_cards_used(self) -> list[Card]:
        """The hand cards this plan lays down (the eaten card excluded)."""
        used = list(self.eat.cards)
        used.remove(self.eaten)
        for g in self.bi:
            used.extend(g.cards)
        return used

    def __str__(self) -> str:
        """Text such as ``吃一二三 比一壹壹`` (eating group first)."""
        return " ".join(["吃" + self.eat.text] + ["比" + g.text for g in self.bi])


Shape = tuple[int, int, int]


def _bi_plans(free: list[int], card: int) -> list[tuple[Shape, ...]]:
    """Every multiset of 比 shapes (each sorted) laying down all the copies of ``card`` left
    in ``free`` — at most two, so at most two shapes: a shape holding the card twice lays
    both, and a second shape follows the first in :func:`shapes_with`'s order (no
    permutations)."""
    if not free[card]:
        return [()]
    plans: list[tuple[Shape, ...]] = []
    needs = _BI_NEEDS[card]
    for i, (shape, need) in enumerate(needs):
        for c, n in need:
            if free[c] < n:
                break
        else:  # the shape fits: lay it, then the copy it left, if any
            for c in shape:
                free[c] -= 1
            if not free[card]:
                plans.append((shape,))
            else:
                for other, other_need in needs[i:]:
                    for c, n in other_need:
                        if free[c] < n:
                            break
                    else:
                        plans.append((shape, other) if shape <= other else (other, shape))
            for c in shape:
                free[c] += 1
    return plans


def _group_of(shape: Shape) -> Group:
    kind = GroupKind.JIAO if is_jiao(shape) else GroupKind.SENTENCE
    return Group(kind, tuple(ALL_CARDS[c] for c in shape))


_NEED: dict[Shape, tuple[tuple[int, int], ...]] = {
    shape: tuple((c, shape.count(c)) for c in sorted(set(shape)))
    for shape in SHAPES}
_GROUPS: dict[Shape, Group] = {shape: _group_of(shape) for shape in SHAPES}
_BI_NEEDS: Final = tuple(tuple((shape, _NEED[shape]) for shape in shapes_with(card))
                         for card in range(20))
"""Per card, each shape holding it (:func:`shapes_with`'s order) with the counts it needs."""


def chi_options(hand: Iterable[int], card: int) -> list[ChiOption]:
    """Every legal 吃 of ``card`` with this hand, with all its 比 completions.

    Cards in a hand 坎 (three or four of a kind) take no part. Returns ``[]``
    when the card cannot be eaten (no eating group, or the 比 cannot be
    completed). The order is stable: by eating group, then by 比 groups.

    The second worked example of §4.3 (hand 小1, 小2×2, 小3×2, 小4, 大2×2,
    eating a 小2):

    >>> for p in chi_options(parse_cards("一二二三三四贰贰"), Card.parse("二")):
    ...     print(p)
    吃一二三 比二二贰
    吃一二三 比二三四 比二贰贰
    吃二二贰 比一二三
    吃二二贰 比二三四
    吃二三四 比一二三 比二贰贰
    吃二三四 比二二贰
    吃二贰贰 比一二三 比二三四
    """
    return chi_options_counts(counts_of(hand), card)


def chi_options_counts(counts: list[int], card: int) -> list[ChiOption]:
    """:func:`chi_options` for a hand given as a 20-entry count vector."""
    if not 0 <= card < 20:
        raise PaohuziError(f"card index must be 0..19, got {card}")
    memo = _plans_memo[card]
    key = plans_key(counts, card)
    found = memo.get(key)
    if found is None:
        eaten = ALL_CARDS[card]
        found = memo[key] = [ChiOption(eaten, eat, bi) for eat, bi in chi_plans(counts, card)]
    return list(found)


_plans_memo: list[dict[tuple[int, ...], list[ChiOption]]] = [{} for _ in range(20)]
"""Per eaten card, its plans by :func:`plans_key`."""


def plans_key(hand: Sequence[int], card: int) -> tuple[int, ...]:
    """A key the plans of eating ``card`` depend on (with the card itself): the free counts
    (a 坎's cards take no part) of every card sharing a shape with it, in card order.

    >>> hand = counts_of(parse_cards("一二二三三四贰贰 七七七"))
    >>> plans_key(hand, Card.parse("二"))  # 一二三四 七 十 贰 (二三四, 二七十, 二二贰...)
    (1, 2, 2, 1, 0, 0, 2)
    """
    key: tuple[int, ...] = _KEYS[card](hand)
    if 3 in key or 4 in key:
        return tuple([n if n <= 2 else 0 for n in key])
    return key


def chi_plans(counts: list[int], card: int) -> list[tuple[Group, tuple[Group, ...]]]:
    """The plans of :func:`chi_options_counts` (same order), as ``(eating group, 比
    groups)``, worked out each time (for a caller that memoises its own values of them,
    on :func:`plans_key`). ``card`` must be a card index (unchecked).

    >>> [(eat.text, [g.text for g in bi]) for eat, bi in chi_plans(
    ...     counts_of(parse_cards("一二三 壹壹")), 0)]
    [('一一壹', []), ('一二三', ['一壹壹']), ('一壹壹', ['一二三'])]
    """
    return [(_GROUPS[eat], tuple([_GROUPS[shape] for shape in bi]))
            for eat, bi in chi_plan_shapes(counts, card)]


def shape_group(shape: Shape) -> Group:
    """The group of a sentence or 绞 shape (sorted card indices), shared.

    >>> shape_group((1, 11, 11)).text, shape_group((1, 11, 11)).kind.value
    ('二贰贰', 'jiao')
    """
    return _GROUPS[shape]


def chi_plan_shapes(counts: list[int], card: int) -> list[tuple[Shape, tuple[Shape, ...]]]:
    """:func:`chi_plans` as shapes (sorted card indices; :func:`shape_group` gives each
    group), for a caller that keeps its own values of the plans by shape.

    >>> chi_plan_shapes(counts_of(parse_cards("一二三 壹壹")), 0)
    [((0, 0, 10), ()), ((0, 1, 2), ((0, 10, 10),)), ((0, 10, 10), ((0, 1, 2),))]
    """
    free = [n if n <= 2 else 0 for n in counts]  # a 坎's cards take no part
    if not free[card]:  # no copy to lay down: each eating group that fits, no 比
        return [(eat, ()) for eat, a, b in _EATS[card]
                if free[a] >= 1 + (a == b) and free[b] >= 1]
    plans: list[tuple[Shape, tuple[Shape, ...]]] = []  # (eating shape, sorted 比 shapes)
    for eat, a, b in _EATS[card]:  # the eating group and the two hand cards it needs
        if free[a] < 1 + (a == b) or free[b] < 1:
            continue
        free[a] -= 1
        free[b] -= 1
        for bi in _bi_plans(free, card):  # 比 groups contain the card too
            plans.append((eat, bi))
        free[a] += 1
        free[b] += 1
    # a shape's cards are its group's, in order: sorting the shapes sorts the groups' cards
    plans.sort()
    return plans


def _eats(card: int) -> tuple[tuple[Shape, int, int], ...]:
    """Each shape holding ``card``, with the two other cards it needs (sorted)."""
    out = []
    for shape in shapes_with(card):
        need = list(shape)
        need.remove(card)
        out.append((shape, need[0], need[1]))
    return tuple(out)


_EATS: list[tuple[tuple[Shape, int, int], ...]] = [tuple(sorted(_eats(card)))
                                                   for card in range(20)]
"""Per card, its eating shapes (in shape order) with the two hand cards each needs."""


_RELEVANT: list[tuple[int, ...]] = [tuple(sorted({card, *partners(card)})) for card in range(20)]
"""For each card, every card of a sentence or 绞 holding it."""
_KEYS: Final = tuple(itemgetter(*cards) for cards in _RELEVANT)
"""For each card, what reads the counts of :data:`_RELEVANT` off a hand, as a tuple (a 坎's
3 or 4 counts as it is: its cards take no part in the plans, so the key is only finer)."""
PLANS_COUNTS: Final[tuple[Callable[[Sequence[int]], tuple[int, ...]], ...]] = _KEYS
"""Per card, what reads off a hand the counts of every card sharing a shape with it, as a
tuple: the plans of eating the card depend on nothing else (a key finer than
:func:`plans_key`, for a caller that memoises plans without a call per question)."""
