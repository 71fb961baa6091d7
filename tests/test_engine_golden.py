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
    'qq': 'e26e06afbcd15095d79c92d68a87af30c18846afbbeda18e61b79f1390bcf885',
    'changde': '5b76382519bb1ae05475abed71884c6ef8496a4f14c53036804b2b7e43514f08',
    'hunan': '3ff69d2168395023db6218c573592a2e303256398a8120c959e1dad11c9d2f16',
    'two-player': 'd3a037cd4e5e73a86444cabf58f8c50993c4151648fb8fc2ffebdf0e9f60ae08',
    'luzhou': '71cd9abe51f864ac567b2a1eeb3d797207bb824543b62d53e5c622abee224877',
    'luzhou/3': '3403a122ae83511804bad040674963d6275f86add1970ba01ec82bbbbcca3cca',
    'luzhou/2': '2391630afdbe67939a9ad90f948f32ee3b49f976eba8314104173c1bcb9ce619',
    'hunan/xingjia': '2e856e7e76923acea8d2500d53ec42b9c073602ee3a3ce6453fff657211324d1',
    'qq/no-ti-wei-win': '71de7cce7c5fe33643e6bd390b48b9ffa5c3e92f40da2bfcf718af131e9bb0d0',
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
