"""docs/rules.md §4.3: 吃 and the mandatory 比, including both worked examples."""

from __future__ import annotations

from notation import C, H, random_counts

from paohuzi.core.chi import chi_options
from paohuzi.core.groups import shapes_with


def plans(hand: str, card: str) -> set[tuple[str, ...]]:
    return {(o.eat.text, *sorted(g.text for g in o.bi)) for o in chi_options(H(hand), C(card))}


def test_first_example_bi_required_and_refused():
    """Hand 二 三 一, eat 一 with 二三: the other 一 must be laid down; none possible → no 吃."""
    assert plans("二三一", "一") == set()
    # With 壹壹 the other 一 goes down as 一壹壹; with 一壹 as 一一壹.
    assert ("一二三", "一壹壹") in plans("二三一壹壹", "一")
    # With only 一壹 besides 二三, eating with 二三 leaves 一 壹: no 绞 possible, refused;
    # eating with 一壹 (一一壹) lays down every 一 at once.
    assert plans("二三一壹", "一") == {("一一壹",)}
    # With 二三 twice, the other 一 can go down as 一二三.
    assert ("一二三", "一二三") in plans("二三一二三", "一")


def test_second_example_all_completions():
    """Hand 小1, 小2×2, 小3×2, 小4, 大2×2; eat a 小2 (§4.3, second example)."""
    found = plans("一 二二 三三 四 贰贰", "二")
    # With 大2 大2: eat 小2 大2 大2, then 比 小1 小2 小3 and 小2 小3 小4.
    assert ("二贰贰", "一二三", "二三四") in found
    # With 小1 小3: eat 小1 小2 小3, then 比 小2 小2 大2 (done) ...
    assert ("一二三", "二二贰") in found
    # ... or 比 小2 大2 大2 and 小2 小3 小4.
    assert ("一二三", "二三四", "二贰贰") in found
    # Every plan lays down every 小2 of the hand.
    for option in chi_options(H("一 二二 三三 四 贰贰"), C("二")):
        laid = [c for g in option.groups for c in g.cards]
        assert laid.count(C("二")) == 3  # the eaten one and both hand copies


def test_no_copy_no_bi():
    assert plans("四五", "六") == {("四五六",)}
    assert plans("四五七八", "六") == {("四五六",), ("五六七",), ("六七八",)}


def test_kan_cards_take_no_part():
    """§4.3: the hand cards must not come from a 坎."""
    assert plans("四四四五", "六") == set()
    assert plans("五五五 七", "六") == set()


def test_jiao_and_erqishi_eating():
    assert plans("九玖", "九") == {("九九玖",)}
    assert plans("玖玖", "九") == {("九玖玖",)}
    assert ("二七十",) in plans("二七", "十")


def test_refused_when_a_copy_cannot_be_laid():
    """Eat 五 with 四六 while holding another 五 with nothing to go with it: refused."""
    assert plans("四六五", "五") == set()
    assert plans("四六五 三", "五") == set()  # 三五? no shape
    assert plans("四六五 三四", "五") == {("四五六", "三四五"), ("三四五", "四五六")}


def test_shapes_with_cover_every_group_holding_the_card():
    assert [s for s in shapes_with(C("一"))] == [(0, 1, 2), (0, 0, 10), (0, 10, 10)]
    assert len(shapes_with(C("柒"))) == 6  # 伍陆柒 陆柒捌 柒捌玖 贰柒拾 七柒柒 七七柒


def _plans_by_enumeration(counts: list[int], card: int) -> list[tuple]:
    """Every 吃 plan of ``card`` found the slow way: each eating shape whose two other
    cards are free in hand, with every multiset of up to two 比 shapes (each holding the
    card) that lays down exactly the copies of the card left, from the cards left."""
    from collections import Counter
    from itertools import combinations_with_replacement

    free = [n if n <= 2 else 0 for n in counts]
    shapes = shapes_with(card)
    found = set()
    for eat in shapes:
        hand_cards = list(eat)
        hand_cards.remove(card)
        left = Counter({c: n for c, n in enumerate(free) if n})
        left.subtract(hand_cards)
        if min(left.values(), default=0) < 0:
            continue
        for size in range(3):
            for bi in combinations_with_replacement(shapes, size):
                used = Counter(c for shape in bi for c in shape)
                if used[card] == left[card] and all(left[c] >= n for c, n in used.items()):
                    found.add((eat, tuple(sorted(bi))))
    return sorted(found)


def test_chi_plans_are_every_plan_in_order_on_random_hands():
    """chi_plan_shapes (the engine's 吃 options, memoised) lists exactly the plans a plain
    enumeration finds, sorted, on random hands with 坎 and pairs; chi_plans is the same
    plans as groups."""
    import random

    from paohuzi.core.chi import chi_plan_shapes, chi_plans

    rng = random.Random(11)
    with_bi = 0
    for _ in range(4000):
        counts = random_counts(rng, 4, 22)
        card = rng.randrange(20)
        shapes = chi_plan_shapes(counts, card)
        assert shapes == _plans_by_enumeration(counts, card), (counts, card)
        assert [(e.cards, tuple(g.cards for g in bi)) for e, bi in chi_plans(counts, card)] \
            == [(e, bi) for e, bi in shapes]
        with_bi += any(bi for _, bi in shapes)
    assert with_bi > 150


def test_plans_depend_only_on_the_counts_plans_counts_reads():
    """The engine keeps 吃 actions by PLANS_COUNTS' reading of a hand: two hands that read
    the same for a card have the same plans of eating it, whatever else they hold."""
    import random

    from paohuzi.core.chi import PLANS_COUNTS, chi_plan_shapes

    rng = random.Random(12)
    compared = 0
    for _ in range(3000):
        card = rng.randrange(20)
        hand = [rng.choice((0, 0, 1, 1, 2, 3, 4)) for _ in range(20)]
        other = [rng.randrange(5) for _ in range(20)]
        read = PLANS_COUNTS[card]
        for c in range(20):  # the other hand: the same where the reading looks
            probe = list(other)
            probe[c] += 7
            if read(probe) != read(other):
                other[c] = hand[c]
        assert read(other) == read(hand)
        assert chi_plan_shapes(other, card) == chi_plan_shapes(hand, card), (hand, other, card)
        compared += other != hand and bool(chi_plan_shapes(hand, card))
    assert compared > 500
