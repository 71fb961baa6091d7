"""The free-card search (paohuzi.core.decompose) against an exhaustive partition search,
under every 胡息 table, and its cost: one pass, no product over 绞 choices."""

from __future__ import annotations

import random
from functools import cache

import pytest

from paohuzi.core import decompose
from paohuzi.core.cards import KINDS, counts_of, parse_cards
from paohuzi.core.decompose import best_free_groups, best_free_huxi, best_free_split, clear_caches
from paohuzi.core.errors import CardCountError
from paohuzi.core.groups import (
    HUXI_TABLES,
    LUZHOU_HUXI,
    QQ_HUXI,
    SHAPES,
    Group,
    GroupKind,
    HuxiTable,
    is_jiao,
)
from paohuzi.players.sampling import concealed_positions

TABLES = list(HUXI_TABLES.values())


def _exhaustive(table: HuxiTable) -> object:
    """The best 胡息 of every partition into sentences, 绞 and at most one pair: a plain
    search over every shape holding the lowest card left (no value-by-value steps)."""

    @cache
    def best(counts: tuple[int, ...], pair_owed: bool) -> int:
        if not any(counts):
            return -1 if pair_owed else 0
        low = next(c for c in range(KINDS) if counts[c])
        found = -1
        shapes = [s for s in SHAPES if low in s]
        if pair_owed:
            shapes.append((low, low))
        for shape in shapes:
            rest = list(counts)
            for c in shape:
                rest[c] -= 1
            if min(rest) < 0:
                continue
            is_pair = len(shape) == 2
            r = best(tuple(rest), pair_owed and not is_pair)
            if r < 0:
                continue
            kind = (GroupKind.PAIR if is_pair else
                    GroupKind.JIAO if is_jiao(shape) else GroupKind.SENTENCE)
            found = max(found, r + table.huxi(kind, shape))
        return found

    return best


def _free_hands(seed: int, n: int) -> list[list[int]]:
    """Free-card count vectors: random sentences, 绞 and a pair (≤ 4 copies each, most
    splittable), a card moved now and then (most of those are not)."""
    rng = random.Random(seed)
    out: list[list[int]] = []
    while len(out) < n:
        counts = [0] * KINDS
        for _ in range(rng.randrange(1, 8)):
            for c in rng.choice(SHAPES):
                counts[c] += 1
        if rng.random() < 0.5:
            counts[rng.randrange(KINDS)] += 2
        if rng.random() < 0.2:
            counts[rng.choice([c for c in range(KINDS) if counts[c]])] -= 1
            counts[rng.randrange(KINDS)] += 1
        if max(counts) <= 4:
            out.append(counts)
    return out


def _hands() -> list[list[int]]:
    concealed = [counts_of([*p.hand, p.card]) for p in concealed_positions(11, 300)]
    return _free_hands(5, 1_500) + concealed


@pytest.mark.parametrize("table", TABLES, ids=[t.name for t in TABLES])
def test_best_free_huxi_matches_the_exhaustive_search(table: HuxiTable) -> None:
    exhaustive = _exhaustive(table)
    feasible = 0
    for counts in _hands():
        for need_pair in (False, True):
            expected = exhaustive(tuple(counts), need_pair)  # type: ignore[operator]
            assert best_free_huxi(counts, need_pair, table) == expected, (counts, need_pair)
            found = best_free_groups(counts, need_pair, table)
            if expected < 0:
                assert found is None
                continue
            feasible += 1
            assert found is not None
            huxi, groups = found
            # The groups are a valid split of exactly these cards, scoring the 胡息.
            assert huxi == expected == sum(g.huxi for g in groups)
            assert sorted(c for g in groups for c in g.cards) == \
                sorted(c for c in range(KINDS) for _ in range(counts[c]))
            assert sum(g.kind is GroupKind.PAIR for g in groups) == need_pair
            for g in groups:
                assert g.table is table
                assert Group.make(g.kind, g.cards, table) == g
    assert feasible > 1_000


def test_each_table_scores_its_own_sentences() -> None:
    counts = counts_of(parse_cards("一二三 二七十 二三四 七八九"))
    shapes = [("sentence", (0, 1, 2)), ("sentence", (1, 2, 3)), ("sentence", (1, 6, 9)),
              ("sentence", (6, 7, 8))]
    # qq: 一二三 3 + 二七十 3; luzhou: 一二三 3 + 二七十 6
    assert best_free_split(counts, False, QQ_HUXI) == (6, shapes)
    assert best_free_split(counts, False, LUZHOU_HUXI) == (9, shapes)


def _states() -> int:
    return sum(len(memo) for s in decompose._searches.values()
               for memo in (s.memo_plain, s.memo_owing))


def test_cost_does_not_multiply_over_jiao_choices() -> None:
    # Six values held 2 + 2: 3 ways each to take 绞, 729 combinations.
    counts = counts_of(parse_cards("一一壹壹 二二贰贰 三三叁叁 七七柒柒 八八捌捌 九九玖玖"))
    clear_caches()
    before = _states()
    assert best_free_huxi(counts, need_pair=False) == 18  # 一二三 ×2, 壹贰叁 ×2
    assert _states() - before < 60


def test_the_arrangement_is_read_back_without_searching_again() -> None:
    counts = counts_of(parse_cards("一二三 二七十 壹贰叁 九九玖 五五 贰柒拾 六七八"))
    clear_caches()
    huxi = best_free_huxi(counts, need_pair=True)
    states = _states()
    found = best_free_groups(counts, need_pair=True)
    assert found is not None and found[0] == huxi == 18
    assert _states() == states


@pytest.mark.parametrize(("counts", "message"), [
    ([5] + [0] * 19, "got 5 of 一"),
    ([0] * 19 + [-1], "got -1 of 拾"),
    ([1] * 19, "20 counts, got 19"),
])
def test_bad_counts_are_refused_by_name(counts: list[int], message: str) -> None:
    with pytest.raises(CardCountError, match=message):
        best_free_huxi(counts, need_pair=False)
    with pytest.raises(CardCountError, match=message):
        best_free_groups(counts, need_pair=True)


def test_packed_codes_fit_a_machine_word_and_pack_like_the_checked_pack() -> None:
    rng = random.Random(14)
    for _ in range(300):
        counts = [rng.randint(0, 4) for _ in range(KINDS)]
        code = decompose.pack_free(counts)
        assert code == decompose._pack(counts) == sum(
            decompose.packed(c, n) for c, n in enumerate(counts))
        assert code < 1 << 60  # the compiled build's C integers hold it
        # each card's field reads back its count
        assert [code >> decompose._BIT[c] & 7 for c in range(KINDS)] == counts


def test_a_step_that_takes_a_missing_card_does_not_fit() -> None:
    # 一二 and 四: the run 一二三 needs a 三; the borrow test refuses it (not reading
    # other fields as 三s); 捌玖 九: the run 捌玖拾 borrows past the last field.
    for text in ("一二四", "一二 四四四四", "捌玖 九"):
        assert best_free_huxi(counts_of(parse_cards(text)), need_pair=False) == -1
    # Found by breaking the borrow test (a field at 0 less 4 reads 4, its neighbour
    # pays one): the groups would hold 三s the hand does not have.
    cards = parse_cards("一一三三三三七七八八壹叁叁叁叁伍陆柒柒捌")
    found = best_free_groups(counts_of(cards), need_pair=True)
    assert found is not None
    assert sorted(c for g in found[1] for c in g.cards) == sorted(cards)


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.name)
def test_packed_groups_agree_with_the_counted_groups(table: HuxiTable) -> None:
    for p in concealed_positions(5, 200):
        counts = counts_of([*p.hand, p.card])
        for need_pair in (False, True):
            if (sum(counts) - 2 * need_pair) % 3:
                assert best_free_groups(counts, need_pair, table) is None
                continue
            packed = decompose.best_packed_groups(decompose.pack_free(counts), need_pair, table)
            assert packed == best_free_groups(counts, need_pair, table)
