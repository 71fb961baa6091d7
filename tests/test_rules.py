"""docs/rules.md §9: rulesets and presets."""

from __future__ import annotations

import pytest

from paohuzi.core.errors import RulesetError
from paohuzi.core.rules import PRESETS, Ruleset


def test_presets_exist_and_differ_as_section_9_says():
    assert set(PRESETS) == {"qq", "changde", "hunan", "two-player", "luzhou"}
    qq = Ruleset.preset("qq")
    assert (qq.players, qq.min_huxi, qq.settlement, qq.base, qq.multiplier) == (3, 15, "qq", 3, 1)
    assert Ruleset() == qq
    assert Ruleset.preset("changde").settlement == "changde"
    hunan = Ruleset.preset("hunan")
    assert (hunan.settlement, hunan.chou_blocks_peng, hunan.zimo_huxi) == ("hunan", False, 3)
    assert hunan.huangzhuang_passes_deal and not qq.huangzhuang_passes_deal
    assert Ruleset.preset("hunan", xingjia=True).seats == 4
    two = Ruleset.preset("two-player")
    assert (two.players, two.set_aside, two.min_huxi) == (2, 20, 21)


def test_wall_sizes():
    # §3.2: 19 cards in the wall with three players; two players: 80 - 41 - 20 set aside.
    assert Ruleset().wall_size == 19
    assert Ruleset.preset("two-player").wall_size == 19
    assert Ruleset.preset("two-player", set_aside=0).wall_size == 39


def test_unknown_preset_names_the_presets():
    with pytest.raises(RulesetError, match=r"unknown preset 'shanghai'.*qq, changde"):
        Ruleset.preset("shanghai")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"players": 4}, "players must be an integer 2..3"),
        ({"players": 2, "xingjia": True}, "needs players=3"),
        ({"min_huxi": 9}, "min_huxi"),
        ({"huxi_table": "tokyo"}, "huxi_table must be one of qq, luzhou"),
        ({"luzhou_mode": "deng"}, "luzhou_mode applies to the luzhou settlement only"),
        ({"dipai_shown": "yes"}, "dipai_shown must be true or false"),
        ({"settlement": "tokyo"}, "settlement must be one of"),
        ({"base": 0}, "base must be an integer 1..10000"),
        ({"multiplier": -1}, "multiplier"),
        ({"set_aside": 30}, "set_aside"),
        ({"colour": "red"}, "unknown rule option"),
        ({"huangzhuang_passes_deal": 1}, "huangzhuang_passes_deal must be true or false"),
    ],
)
def test_inconsistent_options_rejected(overrides, message):
    with pytest.raises(RulesetError, match=message):
        Ruleset.preset("qq", **overrides)


def test_frozen_and_round_trip():
    rules = Ruleset.preset("hunan", base=5)
    with pytest.raises(AttributeError):
        rules.base = 7  # type: ignore[misc]
    assert Ruleset.from_dict(rules.to_dict()) == rules
    assert Ruleset.from_json({"preset": "hunan", "base": 5}) == rules
    assert Ruleset.from_json("two-player") == Ruleset.preset("two-player")


def test_a_bad_option_names_itself_and_what_it_may_be():
    """The errors a lobby translates: which option, its choices or what it needs."""
    from paohuzi.core.errors import NotAChoice, OptionConflict, OutOfBounds

    with pytest.raises(NotAChoice) as choice:
        Ruleset.preset("changde", huayang="most")
    assert (choice.value.field, choice.value.choices, choice.value.value) == (
        "huayang", ("basic", "half", "full"), "most")
    with pytest.raises(OptionConflict) as conflict:
        Ruleset.preset("qq", players=2, xingjia=True)
    assert (conflict.value.field, conflict.value.needs) == ("xingjia", {"players": 3})
    with pytest.raises(OutOfBounds) as bounds:
        Ruleset.preset("qq", set_aside=19)  # 19 cards after a 3-player deal: 1 must stay
    assert (bounds.value.field, bounds.value.low, bounds.value.high) == ("set_aside", 0, 18)
