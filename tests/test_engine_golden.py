"""Golden seeded playthroughs: 200 random hands per rule form, reduced to one digest each
(see tests/golden.py), must match the digests of the engine at commit 290b797, before
its speed-up (issue 14). Any change of a legal action list or its order, of an event,
of the record or of a settlement changes a digest. A deliberate change of behaviour
updates these digests in the same commit, saying why."""

from __future__ import annotations

import pytest
from golden import FORMS, form_digest, hand_digest, rules_of

GAMES = 200

EXPECTED = {
    'qq': 'b17da4cd2ccb7febc913cd80b5fb068b633f2dbdb3137a86231a6a77cfb08be2',
    'changde': 'd7d4926df1c4a6b0faaf1b846a89cda0f84dce8130b6fd9c91a963c9bebd5e47',
    'hunan': '8a32d64be554a7d33d874a00a375f9c3e614f10cfa540701fcf882aad52d6960',
    'two-player': '5a5d8892558eebf9e96a12cc1cc07c8fa21296dece9f7d486e5336adadc07042',
    'luzhou': 'd18423a63acfbb2f75224a9d77695ed6a515138c72b8f6418d088aec453544c1',
    'luzhou/3': 'a320ca4d6da705f422adde5b0adb76636d6c5da1d58ab4fac603e21cb4db0356',
    'luzhou/2': 'da43393587abebe05a541428e17862cc51dd6ab93e10c1e0b1d00b68db5f308e',
    'hunan/xingjia': 'bee34a1626c654b38005c2c10c090a3e6047e4db7db42a66712e9fa237366911',
    'qq/no-ti-wei-win': '4e178d565a7b633c97cdd5174694610c408feb7ee56ad822c2be46e0801dabed',
}


def test_every_form_has_a_digest():
    assert set(EXPECTED) == set(FORMS)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_seeded_hands_play_as_before(form):
    assert form_digest(form, GAMES) == EXPECTED[form]


def test_the_digest_sees_the_game():
    """Different hands, or the same hand under other rules, give other digests."""
    qq = rules_of("qq")
    assert hand_digest(1, qq) == hand_digest(1, qq)
    assert len({hand_digest(seed, qq) for seed in range(5)}) == 5
    assert hand_digest(1, qq) != hand_digest(1, rules_of("hunan"))
