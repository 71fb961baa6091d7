"""The engine's win prefilter per seat (facts and mask kept per hand version, issue 14)
answers as the solver's ``may_win`` from the seat's hand and table, at every step of
random hands of every preset: a stale cache (a hand change that did not bump the
version) would show here."""

from __future__ import annotations

import random

import pytest

from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.core.solver import may_win
from paohuzi.game.engine import Hand


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_seat_prefilter_agrees_with_may_win(preset):
    rules = Ruleset.preset(preset)
    rng = random.Random(len(preset))
    checked = ruled_out = 0
    for i in range(40):
        hand = Hand.from_seed(7_000 + i, rules, dealer=i % rules.players)
        while not hand.ended:
            for st in hand.seats:
                for card in rng.sample(range(20), 4):
                    expected = may_win(st.hand, st.melds, card, rules.min_huxi, rules.huxi)
                    out = st.ruled_out(card, rules.min_huxi, rules.huxi)
                    assert not (out and expected)
                    assert st.may_win(card, rules.min_huxi, rules.huxi) == expected
                    checked += 1
                    ruled_out += out
            seat = hand.pending_seats()[0]
            legal = hand.legal_actions(seat)
            hand.act(seat, legal[rng.randrange(len(legal))])
    assert checked > 5_000 and ruled_out > 1_000  # ruled out at once, without a search
