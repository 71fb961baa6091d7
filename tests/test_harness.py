"""Random-game harness over every preset (≥ 1,000 games each), see tests/harness.py."""

from __future__ import annotations

import pytest
from harness import HarnessStats, play_checked, run

from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.game.engine import Hand

GAMES_PER_PRESET = 1_000


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_games_keep_every_invariant(preset):
    rules = Ruleset.preset(preset)
    stats = run(GAMES_PER_PRESET, rules, seed=len(preset))
    assert stats.games == GAMES_PER_PRESET
    assert stats.illegal_refused > GAMES_PER_PRESET  # the refusal check really ran
    assert stats.leak_checks > GAMES_PER_PRESET
    assert stats.reasons.get("huangzhuang", 0) > 0


def test_hunan_with_xingjia_keeps_every_invariant():
    """The harness invariants (cards conserved, illegal actions refused, no leaks, replay)
    hold with a 醒家, and every hand pays him by the rule (§9 hunan, rules-notes N12):
    on a win each of the 2 losers pays him one unit d on top of the settlement, on a
    drawn hand the dealer pays him d, and nobody else pays anything."""
    rules = Ruleset.preset("hunan", xingjia=True, base=5, multiplier=3)
    d = rules.base
    stats = HarnessStats()
    for i in range(200):
        hand = play_checked(9 * 100_003 + i, rules, stats, dealer=i)
        result = hand.result
        assert result is not None
        if result.reason in ("hu", "tianhu"):
            s, winner = result.settlement, result.winner
            assert s is not None and winner is not None
            assert result.xingjia_points == 2 * d
            expected = [s.loser_points - d] * 3
            expected[winner] = s.winner_points
            assert s.winner_points == -2 * s.loser_points
        else:
            assert result.reason == "huangzhuang"
            assert result.xingjia_points == d
            expected = [0, 0, 0]
            expected[hand.dealer] = -d
        assert list(result.points) == expected
        assert list(result.beans) == [3 * p for p in expected]
        assert hand.card_total() == 80
    assert stats.games == 200
    assert stats.reasons.get("hu", 0) > 0 and stats.reasons.get("huangzhuang", 0) > 0
    assert stats.illegal_refused > 200 and stats.leak_checks > 0


def test_same_seed_same_game():
    a = play_checked(424242, Ruleset(), HarnessStats())
    b = play_checked(424242, Ruleset(), HarnessStats())
    assert a.state_key() == b.state_key()
    assert [str(e) for e in a.events] == [str(e) for e in b.events]
    c = play_checked(424243, Ruleset(), HarnessStats())
    assert c.state_key() != a.state_key()


def test_bounds_never_hide_a_win():
    """The engine's cheap 胡息 bounds skip hopeless checks only: with them disabled the
    same random games give the same decisions and results."""
    import random

    def play(seed: int) -> tuple:
        hand = Hand.from_seed(seed, Ruleset())
        rng = random.Random(seed)
        while not hand.ended:
            seat = hand.pending_seats()[0]
            legal = hand.legal_actions(seat)
            hand.act(seat, legal[rng.randrange(len(legal))])
        return hand.state_key()

    seeds = range(300)
    with_bounds = [play(s) for s in seeds]
    Hand.use_filters = False
    try:
        without = [play(s) for s in seeds]
    finally:
        Hand.use_filters = True
    assert with_bounds == without
    assert sum(1 for key in with_bounds if '"reason": "hu"' in str(key) or "'hu'" in str(key)) > 5
