"""Scenario tests of the preset rules of RULES.md §3.1, §7.2 and §9 (issue 11).

Each hand is an explicit deal (so also a replayable game record, docs/records.md,
through ``scenario.play``); the expected values are worked out by hand from
RULES.md in the comments.
"""

from __future__ import annotations

from test_scenarios_deal import DEAL_LZ_DEALER, _drawn_hand, _inject

from paohuzi.core.rules import Ruleset
from paohuzi.game.actions import Hu, Pass
from paohuzi.game.match import Match

# ---- §9 hunan: the dealer after a drawn hand (seed 000 §4.1) -------------------------


def test_s9_hunan_three_seats_drawn_hand_passes_the_deal_at_once() -> None:
    rules = Ruleset.preset("hunan")
    assert rules.huangzhuang_passes_deal
    m = Match(rules, seed=3, first_dealer=0)
    _drawn_hand(m)
    assert m.dealer == 1  # 荒牌荒庄: the 下家 deals at once
    assert m.playing_seats() == (1, 2, 0)
    _drawn_hand(m)
    assert m.dealer == 2
    _drawn_hand(m)
    assert m.dealer == 0


def test_s9_hunan_with_xingjia_dealer_keeps_the_deal_after_draws() -> None:
    m = Match(Ruleset.preset("hunan", xingjia=True), seed=3, first_dealer=1)
    for n in range(1, 5):  # more than the 3 of §3.1: he keeps it every time
        _drawn_hand(m)
        assert m.dealer == 1 and m.xingjia == 3
        # the 醒家 keeps counting: the dealer pays him a base (3) per drawn hand
        assert m.points == [0, -3 * n, 0, 3 * n]


def test_s3_1_qq_and_changde_keep_three_draws_in_a_row() -> None:
    for name in ("qq", "changde"):
        rules = Ruleset.preset(name)
        assert not rules.huangzhuang_passes_deal
        m = Match(rules, seed=3, first_dealer=0)
        _drawn_hand(m)
        _drawn_hand(m)
        assert m.dealer == 0, name
        _drawn_hand(m)
        assert m.dealer == 1, name


def test_s9_hunan_winner_still_deals() -> None:
    m = Match(Ruleset.preset("hunan"), seed=3, first_dealer=0)
    _drawn_hand(m)
    assert m.dealer == 1
    hand = _inject(m, DEAL_LZ_DEALER)  # hand seat 0 is the dealer, match seat 1
    hand.act(0, Pass())  # the dealer declines his 亮张胡; hand seat 2 takes it
    hand.act(2, Hu())
    assert hand.result is not None and hand.result.winner == 2
    m.finish_hand()
    assert m.dealer == 0  # hand seat 2 is match seat 0
