"""Scenario tests of the preset rules of docs/rules.md §3.1, §7.2 and §9 (issue 11).

Each hand is an explicit deal (so also a replayable game record, docs/records.md,
through ``scenario.play``); the expected values are worked out by hand from
docs/rules.md in the comments.
"""

from __future__ import annotations

import pytest
from scenario import play
from test_scenarios_deal import DEAL_LZ_DEALER, _drawn_hand, _inject
from test_scenarios_play import _WIN_H1, _WIN_H2, after, kan_win_deal

from paohuzi.apps.evaluate import evaluate
from paohuzi.core.cards import Card, counts_of, parse_cards
from paohuzi.core.errors import PaohuziError, RulesetError
from paohuzi.core.kinds import Source
from paohuzi.core.rules import Ruleset
from paohuzi.core.solver import solve_tianhu, waits, win_barred
from paohuzi.game.actions import Hu, Pass
from paohuzi.game.match import Match

C = Card.parse

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


# ---- §7.2 [decision] a mandatory 天胡 and 对对胡 ------------------------------------------

DEAL_TIANHU_PAIR = {
    "hands": ["二二三五五六六七七八九十壹贰贰叁叁肆捌捌",
              "一一一一四四四四伍伍伍伍三三三陆陆陆八八",  # 3 提 + 2 坎 + the pair 八八
              "二二五五六六七七八九九十十壹壹贰贰叁叁肆"],
    "liangzhang": "拾",
}
DEAL_TIANHU_DEALER = {
    "hands": ["一一一一四四四四伍伍伍伍二二二七七七十十",  # + the 亮张 十: 3 提 + 3 坎
              "三三五五六六八八九九壹壹贰贰叁叁肆肆陆陆",
              "二三三五五六六七八八九九十壹壹贰贰叁叁肆"],
    "liangzhang": "十",
}


# The non-dealer: 提 一 9 + 提 四 9 + 提 伍 12 + 坎 三 3 + 坎 陆 6 = 39 胡息, no red card.
#   qq: x = (2·39 − 12) // 3 + 1 (自摸) = 23; 乌胡 5 + 对对胡 5 = 10 番; 23·10·3 = 690.
#   changde: 等 = 1 + (39 − 15) // 3 + 1 = 10; 乌对 10; 10·10·3 = 300.
#   hunan: 囤 = 1 + (39 + 3 − 15) // 3 = 10; 乌对 ×10; 10·10·3 = 300.
# The dealer: the same 提 30 + 坎 二, 七, 十 9 = 39 胡息, 9 red (no 红胡 anywhere).
#   qq: 17 small cards: 小字胡 8 + 1; 23 · (对对胡 5 + 9) · 3 = 966;
#   changde: 10 · 对对胡 4 · 3 = 120; hunan: 10 · 4 · 3 = 120.
@pytest.mark.parametrize(
    ("preset", "deal", "winner", "names", "each"),
    [
        ("qq", DEAL_TIANHU_PAIR, 1, ["乌胡", "对对胡"], 690),
        ("changde", DEAL_TIANHU_PAIR, 1, ["乌对"], 300),
        ("hunan", DEAL_TIANHU_PAIR, 1, ["乌对"], 300),
        ("qq", DEAL_TIANHU_DEALER, 0, ["对对胡", "小字胡"], 966),
        ("changde", DEAL_TIANHU_DEALER, 0, ["对对胡"], 120),
        ("hunan", DEAL_TIANHU_DEALER, 0, ["对对胡"], 120),
    ],
)
def test_s7_2_tianhu_of_ti_kan_and_one_pair_is_duiduihu(preset, deal, winner, names,
                                                        each) -> None:
    hand = play(deal, [], rules=preset)
    result = hand.result
    assert result is not None and result.reason == "tianhu" and result.winner == winner
    s = result.settlement
    assert s is not None and s.huxi == 39
    assert [m.name for m in s.mingtang] == names
    assert result.points == tuple(2 * each if seat == winner else -each for seat in range(3))


def test_s7_2_tianhu_with_any_other_leftover_is_not_duiduihu() -> None:
    # the pair 八八 makes the hand all-identical; 八九 in its place rules 对对胡 out
    with_pair = solve_tianhu(parse_cards("一一一一四四四四伍伍伍伍三三三陆陆陆八八"))
    assert with_pair is not None and with_pair.all_identical and not with_pair.leftover
    without = solve_tianhu(parse_cards("一一一一四四四四伍伍伍伍三三三陆陆陆八九"))
    assert without is not None and not without.all_identical
    assert [c.text for c in without.leftover] == ["八", "九"]
    # two pairs are more than the one 将: leftovers, not 对对胡
    two_pairs = solve_tianhu(parse_cards("一一一一四四四四伍伍伍伍三三三八八九九"))
    assert two_pairs is not None and not two_pairs.all_identical


# ---- §9 changde 花样 levels -----------------------------------------------------------

# Six hand 坎 一 三 四 五 六 八 and 九九; the shown 九 (another's draw) is a 碰:
# 6 · 3 + 1 = 19 胡息, 等 = 1 + (19 − 15) // 3 = 2; 21 cards, all small, none red.
#   基本: 乌胡 5 (no 对对胡, no 海底)                   -> 2 · 5 · 3 = 30
#   半:   乌对 10 (乌胡 + 对对胡, N11); 海底 +2           -> 2 · 10 · 3 = 60, 72
#   全:   乌对 10 + 小字胡 8 + (21 − 16) = 23; 海底 +2    -> 2 · 23 · 3 = 138, 150
ALL_SMALL_DUIDUI = {"hand": "一一一三三三四四四五五五六六六八八八九九", "card": "九",
                    "source": "other"}


@pytest.mark.parametrize(
    ("huayang", "names", "each", "each_haidi"),
    [
        ("basic", ["乌胡"], 30, 30),
        ("half", ["乌对"], 60, 72),
        ("full", ["乌对", "小字胡"], 138, 150),
    ],
)
def test_s9_changde_huayang_levels(huayang, names, each, each_haidi) -> None:
    rules = {"preset": "changde", "huayang": huayang}
    answer = evaluate({**ALL_SMALL_DUIDUI, "rules": rules})
    assert answer["hu"] and answer["huxi"] == 19 and answer["di"] == 2
    assert [m["name"] for m in answer["mingtang"]] == names
    assert answer["points"] == {"winner": 2 * each, "loser": -each}
    haidi = evaluate({**ALL_SMALL_DUIDUI, "rules": rules, "last": True})
    assert haidi["points"]["loser"] == -each_haidi


def test_s9_changde_default_level_is_half() -> None:
    assert Ruleset.preset("changde").huayang == "half"
    assert evaluate({**ALL_SMALL_DUIDUI, "rules": "changde"})["points"]["loser"] == -60


def test_s9_changde_full_dazihu_with_qq_threshold() -> None:
    # 坎 壹 叁 肆 伍 陆 捌 + 玖玖, the shown 玖 a 碰: 6 · 6 + 3 = 39 胡息, 等 = 9;
    # 21 big: 大字胡 6 + (21 − 18) = 9, with 乌对 10 -> 19 番; 9 · 19 · 3 = 513.
    question = {"hand": "壹壹壹叁叁叁肆肆肆伍伍伍陆陆陆捌捌捌玖玖", "card": "玖",
                "source": "other"}
    full = evaluate({**question, "rules": {"preset": "changde", "huayang": "full"}})
    assert [(m["name"], m["fan"]) for m in full["mingtang"]] == [("乌对", 10), ("大字胡", 9)]
    assert full["points"]["loser"] == -513
    half = evaluate({**question, "rules": "changde"})
    assert [m["name"] for m in half["mingtang"]] == ["乌对"]


@pytest.mark.parametrize("huayang", ["none", "", 1, None])
def test_s9_huayang_must_be_a_level(huayang) -> None:
    with pytest.raises(RulesetError, match="huayang must be one of basic, half, full"):
        Ruleset.preset("changde", huayang=huayang)


@pytest.mark.parametrize("preset", ["qq", "hunan", "two-player"])
def test_s9_huayang_only_for_changde(preset) -> None:
    with pytest.raises(RulesetError, match="changde settlement only"):
        Ruleset.preset(preset, huayang="full")


# ---- §9 changde option: no win on a 提/偎 card (seed 003 D) -----------------------------

NO_TI_WEI = {"preset": "changde", "win_on_ti_wei": False}
# The 提胡 of tests/test_scenarios_play.py: seat 2 (坎 伍伍伍, 肆肆) draws the 4th 伍 and
# wins with the 提 (24 胡息).
TIHU_DEAL = kan_win_deal("拾 伍", _WIN_H1.replace("肆", "陆"), _WIN_H2.replace("肆 陆", "肆 肆"))
TIHU_ACTIONS = [(0, "discard 七"), (1, "pass"), (1, "pass"), (2, "pass")]
# A 偎胡: seat 2 holds 伍伍 and draws the 3rd: 偎 伍 6 + 壹贰叁 6 + 贰柒拾 6 + 四五六 九玖玖
# 八八捌 陆柒捌 = 18 胡息.
WEIHU_DEAL = kan_win_deal("拾 伍", h2="伍伍 陆柒捌 壹贰叁 贰柒拾 四五六 九玖玖 八八捌")


@pytest.mark.parametrize(("deal", "kind"), [(TIHU_DEAL, "ti"), (WEIHU_DEAL, "wei")])
def test_s9_changde_option_no_win_on_a_ti_or_wei_card(deal, kind) -> None:
    allowed = play(deal, TIHU_ACTIONS, rules="changde")
    assert after(allowed, "seat 2 draw 伍")[0].startswith(f"seat 2 {kind} 伍")
    assert set(allowed.legal_actions(2)) == {Hu(), Pass()}
    hand = play(deal, TIHU_ACTIONS, rules=NO_TI_WEI)
    # the same draw and the same forced 提/偎, but no 胡: he goes on and discards
    assert after(hand, "seat 2 draw 伍")[0].startswith(f"seat 2 {kind} 伍")
    assert hand.result is None and hand.phase.value == "discard"
    assert hand.pending_seats() == [2] and Hu() not in hand.legal_actions(2)
    # the hand as dealt still wins on another's shown 伍 (not a card he 提s or 偎s)
    counts = counts_of(parse_cards(deal["hands"][2]))
    rules = Ruleset.from_json(NO_TI_WEI)
    assert not win_barred(rules, counts, [], C("伍"), Source.OTHER)
    assert win_barred(rules, counts, [], C("伍"), Source.SELF)


def test_s9_no_ti_wei_option_in_evaluate_and_waits() -> None:
    question = {"hand": "伍伍 陆柒捌 壹贰叁 贰柒拾 四五六 九玖玖 八八捌", "card": "伍"}
    own = evaluate({**question, "source": "self", "rules": "changde"})
    assert own["hu"] and own["huxi"] == 18
    barred = evaluate({**question, "source": "self", "rules": NO_TI_WEI})
    assert not barred["hu"] and "提 or 偎" in barred["reason"]
    assert evaluate({**question, "source": "other", "rules": NO_TI_WEI})["hu"]
    hand = parse_cards(question["hand"])
    on = {w.card.text: (w.huxi_self, w.huxi_other)
          for w in waits(hand, [], Ruleset.preset("changde"))}
    off = {w.card.text: (w.huxi_self, w.huxi_other)
           for w in waits(hand, [], Ruleset.from_json(NO_TI_WEI))}
    assert on["伍"][0] == 18 and off["伍"][0] is None and off["伍"][1] == on["伍"][1]


def test_s9_no_ti_wei_dealer_liangzhang_onto_his_kan() -> None:
    # the dealer's own 亮张 onto his hand 坎 is a 提 (§3.5): barred; a pair makes a 坎: not
    rules = Ruleset.from_json(NO_TI_WEI)
    kan = counts_of(parse_cards("伍伍伍"))
    pair = counts_of(parse_cards("伍伍"))
    assert win_barred(rules, kan, [], C("伍"), Source.LIANGZHANG, dealer=True)
    assert not win_barred(rules, pair, [], C("伍"), Source.LIANGZHANG, dealer=True)
    assert not win_barred(rules, kan, [], C("伍"), Source.LIANGZHANG, dealer=False)
    assert not win_barred(Ruleset.preset("changde"), kan, [], C("伍"), Source.LIANGZHANG,
                          dealer=True)


# ---- §3.1 [decision] a leaver ends the match -----------------------------------------


def test_s3_1_escape_ends_the_match_and_a_new_one_starts_afresh() -> None:
    m = Match(Ruleset(), seed=3, first_dealer=0)
    _drawn_hand(m)  # one drawn hand counted
    assert m.drawn_in_a_row == 1
    m.start_hand(seed=5)
    m.escape(1)
    assert m.over and m.points[1] < 0 and sum(m.points) == 0
    with pytest.raises(PaohuziError, match="the match is over"):
        m.start_hand()
    new = m.next_match()
    assert (new.points, new.drawn_in_a_row, new.history, new.over) == ([0] * 3, 0, [], False)
    assert 0 <= new.dealer < 3
    new.start_hand()  # the new match deals


def test_s3_1_leaving_between_hands_ends_the_match() -> None:
    m = Match(Ruleset(), seed=3, first_dealer=0)
    _drawn_hand(m)
    m.leave(2)
    assert m.over
    with pytest.raises(PaohuziError, match="the match is over"):
        m.start_hand()
    m = Match(Ruleset(), seed=3, first_dealer=0)
    m.start_hand(seed=1)
    with pytest.raises(PaohuziError, match="escape"):
        m.leave(2)  # mid-hand, leaving is an escape
    assert not m.over
