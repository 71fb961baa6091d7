"""Maximality proof: the solver agrees with the independent brute-force oracle.

``tests/oracle.py`` restates docs/rules.md §2/§5/§6 plainly and searches every
partition; it shares no code with ``paohuzi``. The two must agree on the best
胡息 (or on "no arrangement") for every one of ≥ 10,000 seeded random
positions, winning and not, and on the partial best 胡息 (§6.4, §7.4); and on
≥ 3,000 concealed hands with few identical cards (many 绞 choices each).
"""

from __future__ import annotations

import dataclasses

import oracle

from paohuzi.core.groups import GroupKind
from paohuzi.core.kinds import Source
from paohuzi.core.solver import best_huxi, best_partial_huxi
from paohuzi.players.sampling import Position, concealed_positions, random_positions

N_POSITIONS = 10_000
N_CONCEALED = 3_000


def _jiao_choices(cards: list[int]) -> int:
    """How many ways to pick the 绞 of these cards: the product over values of the
    (two small + one big, one small + two big) counts that fit."""
    total = 1
    for v in range(10):
        a, b = cards.count(v), cards.count(v + 10)
        total *= sum(1 for k1 in range(3) for k2 in range(3)
                     if 2 * k1 + k2 <= a and k1 + 2 * k2 <= b)
    return total


def _oracle_args(p: Position) -> tuple[list[int], list[tuple[str, list[int]]]]:
    melds = [("chi" if m.kind.value in ("sentence", "jiao") else m.kind.value,
              [int(c) for c in m.cards]) for m in p.melds]
    return [int(c) for c in p.hand], melds


def test_solver_matches_oracle_on_random_positions():
    positions = random_positions(20261129, N_POSITIONS)
    assert len(positions) >= 10_000
    agreed = winning = 0
    mismatches = []
    for p in positions:
        hand, melds = _oracle_args(p)
        expected = oracle.oracle_best_huxi(hand, melds, int(p.card), p.source)
        got = best_huxi(p.hand, p.melds, p.card, p.source)
        if got != (-1 if expected is None else expected):
            mismatches.append((str(p), got, expected))
        else:
            agreed += 1
        winning += expected is not None and expected >= 15
        assert best_partial_huxi(p.hand, p.melds) == oracle.oracle_partial_best_huxi(hand, melds)
    assert not mismatches, mismatches[:5]
    assert agreed == N_POSITIONS
    # The set mixes winning and non-winning questions.
    assert 1_000 < winning < N_POSITIONS - 1_000


def test_solver_matches_oracle_on_concealed_hands():
    positions = concealed_positions(20261130, N_CONCEALED)
    mismatches = []
    for p in positions:
        hand, melds = _oracle_args(p)
        assert not melds
        expected = oracle.oracle_best_huxi(hand, melds, int(p.card), p.source)
        assert expected is not None, str(p)
        got = best_huxi(p.hand, p.melds, p.card, p.source)
        if got != expected:
            mismatches.append((str(p), got, expected))
    assert not mismatches, mismatches[:5]
    # The set is what it claims: every hand wins, and most offer several 绞 choices.
    choices = sorted(_jiao_choices([int(c) for c in (*p.hand, p.card)]) for p in positions)
    assert choices[len(choices) // 2] >= 12 and choices[-1] >= 100


def test_solver_matches_oracle_on_discards():
    """A discard (won only in 泸州, §9.1) never turns a table 碰 into a 跑 (§2), where a
    drawn card may: the random positions whose table holds a 碰, asked about its 4th
    card as a discard (the engine once let it make the 跑 to win)."""
    asked = differ = 0
    for p in random_positions(20261204, 10_000):
        owned = [*p.hand, *(c for m in p.melds for c in m.cards)]
        for m in p.melds:
            card = m.cards[0]
            if m.kind is not GroupKind.PENG or owned.count(card) != 3:
                continue
            q = dataclasses.replace(p, card=card, source=Source.DISCARD)
            hand, melds = _oracle_args(q)
            expected = oracle.oracle_best_huxi(hand, melds, int(card), "discard")
            got = best_huxi(q.hand, q.melds, card, Source.DISCARD)
            assert got == (-1 if expected is None else expected), str(q)
            asked += 1
            differ += expected != oracle.oracle_best_huxi(hand, melds, int(card), "other")
    assert asked > 1_000 and differ > 20, (asked, differ)  # it matters, often enough


def test_oracle_can_disagree():
    """The comparison is not vacuous: a wrong answer would be caught."""
    p = random_positions(1, 50)
    values = [oracle.oracle_best_huxi(*_oracle_args(q), int(q.card), q.source) for q in p]
    assert len({v for v in values if v is not None}) > 3
