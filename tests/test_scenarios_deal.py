"""Scenario tests of the deal and the whole-hand flow (docs/rules.md §3–§7, §9).

Each scenario is an explicit deal played through the engine with ``play`` (so
each is also a replayable game record, docs/records.md); the expected values
are worked out by hand from docs/rules.md in the comments. Card reminders: 一..十
small, 壹..拾 big; red cards are the 2s, 7s and 10s. Unnamed wall cards follow
the named ones in card order.
"""

from __future__ import annotations

from typing import Any

from scenario import event_kinds, kinds, pass_until, play

from paohuzi.core.cards import Card, format_cards
from paohuzi.core.rules import Ruleset
from paohuzi.game.actions import Hu, Pass
from paohuzi.game.deal import Deal
from paohuzi.game.engine import Event, Hand, Phase
from paohuzi.game.match import Match
from paohuzi.game.view import seat_view

# ---- helpers -------------------------------------------------------------------------


def _drive_passively(hand: Hand, limit: int = 500) -> list[tuple[int, str]]:
    """Play a hand where everybody declines everything (pass) and a seat that must
    discard throws its lowest card. Returns the decisions taken."""
    return pass_until(hand, lambda h: h.ended, limit)


def _hand_of(deal: dict[str, Any], rules: Ruleset) -> Hand:
    return Hand(rules, Deal.from_json({"dealer": 0, **deal}, rules))


def _deal_event_prefix(players: int = 3) -> list[str]:
    return ["deal"] * players + ["liangzhang"]


def _hand_text(hand: Hand, seat: int) -> str:
    return format_cards(hand.seats[seat].hand_cards)


# ---- §3.5 automatic 提 at the deal ---------------------------------------------------

DEAL_TI = {
    "hands": ["一一二二三三五五六六七七八八九九十十壹壹",
              "四四四四贰贰叁叁肆肆伍伍陆陆柒柒捌捌玖玖",
              "壹壹贰贰叁叁肆肆伍伍陆陆柒柒捌捌玖玖拾拾"],
    "liangzhang": "十",
}


def test_s3_5_ti_at_the_deal() -> None:
    hand = play(DEAL_TI, [])
    # seat 1 (not the dealer) was dealt 四四四四: it lies on his table as a 提.
    assert kinds(hand, 1) == [("ti", "四四四四")]
    assert sum(hand.seats[1].hand) == 16
    assert hand.seats[1].owned == 20
    assert hand.seats[1].table_huxi == 9  # a small 提 (§5)
    ti_events = [e for e in hand.events if e.kind == "ti"]
    assert ti_events == [Event("ti", 1, (Card.parse("四"),), detail="dealt")]
    assert event_kinds(hand) == [*_deal_event_prefix(), "ti"]
    # Nobody else has a 提; the dealer, holding 21 cards, discards (§3.6).
    assert kinds(hand, 0) == [] and kinds(hand, 2) == []
    assert hand.phase is Phase.DISCARD and hand.turn == 0
    assert hand.seats[0].owned == 21


def test_s3_5_dealer_liangzhang_completes_a_ti() -> None:
    deal = {
        "hands": ["一一二二三三五五六六七七八八九九十十十壹",
                  "四四贰贰叁叁肆肆伍伍陆陆柒柒捌捌玖玖壹壹",
                  "四四贰贰叁叁肆肆伍伍陆陆柒柒捌捌玖玖拾拾"],
        "liangzhang": "十",
    }
    hand = play(deal, [])
    # 十十十 + the 亮张 十 = 4 of a kind: laid as the dealer's 提 (§3.5, 亮张 included).
    assert kinds(hand, 0) == [("ti", "十十十十")]
    assert [str(e) for e in hand.events if e.kind == "ti"] == ["seat 0 ti 十 (dealt)"]
    # One 提 only: n = 21 > 20 + max(0, 1 - 1) = 20, so he discards (§4.4).
    assert hand.phase is Phase.DISCARD and hand.turn == 0
    assert "no_discard" not in event_kinds(hand)


# ---- §3.6 / §4.4 the dealer's second 提 from the 亮张 ---------------------------------


def test_s3_6_dealer_second_ti_from_liangzhang_does_not_discard() -> None:
    deal = {
        "hands": ["一一一一二二二三三五五六六七七八八九九十",
                  "四四贰贰叁叁肆肆伍伍陆陆柒柒捌捌玖玖拾拾",
                  "壹壹贰贰叁叁肆肆伍伍陆陆柒柒捌捌玖玖拾拾"],
        "liangzhang": "二",
        "wall": "壹",
    }
    hand = play(deal, [])
    # 一一一一 is a 提; 二二二 + 亮张 二 a second one. k = 2, n = 21 = 20 + (2 - 1):
    # no extra card, so no discard; his 下家 (seat 1) draws the top card 壹.
    assert kinds(hand, 0) == [("ti", "一一一一"), ("ti", "二二二二")]
    assert [str(e) for e in hand.events[4:]] == [
        "seat 0 ti 一 (dealt)",
        "seat 0 ti 二 (dealt)",
        "seat 0 no_discard",
        "seat 1 draw 壹",
        "seat 1 show 壹",
    ]
    assert "discard" not in event_kinds(hand)
    assert hand.turn == 1
    assert hand.phase is Phase.CLAIM
    assert hand.seats[0].owned == 21 and sum(hand.seats[0].hand) == 13
    assert len(hand.wall) == 18


# ---- §4.4 八块 ----------------------------------------------------------------------

DEAL_BAKUAI = {
    "hands": ["一一二二三三五六六七七八八九九十十壹壹拾",
              "四四四四五五五贰贰叁叁肆肆伍伍陆陆柒捌玖",
              "壹壹贰贰叁叁肆肆伍伍陆陆柒柒捌捌玖玖拾拾"],
    "liangzhang": "十",
    "wall": "捌",
}


def test_s4_4_bakuai_second_pao_does_not_discard() -> None:
    hand = play(DEAL_BAKUAI, [(0, "discard 五")])
    # Seat 1 owns the dealt 提 四; the dealer's 五 onto his 坎 五五五 is a forced 跑,
    # his second 跑/提: n = 21 = 20 + (2 - 1), no discard. Seat 2 draws 捌 (偎 on 捌捌).
    assert kinds(hand, 1) == [("ti", "四四四四"), ("pao", "五五五五")]
    assert [str(e) for e in hand.events[5:9]] == [
        "seat 0 discard 五",
        "seat 1 pao 五五五五",
        "seat 1 no_discard",
        "seat 2 draw 捌",
    ]
    assert [e.seat for e in hand.events if e.kind == "discard"] == [0]
    assert hand.seats[1].owned == 21
    # Seat 2's 偎 is an intake after which he discards (n = 21 > 20).
    assert hand.phase is Phase.DISCARD and hand.turn == 2


def test_s4_4_first_pao_discards() -> None:
    # The control: the same 跑 without a dealt 提 is a first 跑: n = 21 > 20, discard.
    deal = dict(DEAL_BAKUAI, hands=[DEAL_BAKUAI["hands"][0],
                                    "四四四十五五五贰贰叁叁肆肆伍伍陆陆柒捌玖",
                                    DEAL_BAKUAI["hands"][2]])
    hand = play(deal, [(0, "discard 五")])
    assert kinds(hand, 1) == [("pao", "五五五五")]
    assert "no_discard" not in event_kinds(hand)
    assert hand.phase is Phase.DISCARD and hand.turn == 1


DEAL_TWO_TI = {
    "hands": ["一一二二三三六七七八八九九十十壹壹拾拾贰",
              "四四四四五五五五六六叁叁肆肆伍伍陆陆柒捌",
              "壹壹贰贰叁叁肆肆伍伍陆陆柒柒捌捌玖玖拾拾"],
    "liangzhang": "十",
    "wall": "玖",
}


def test_s4_4_dealt_two_ti_no_discard_after_first_peng() -> None:
    hand = play(DEAL_TWO_TI, [(0, "discard 六"), (1, "peng")])
    # Seat 1 was dealt two 提 (k = 2). His 碰 of 六: n = 21 = 20 + (2 - 1): no discard,
    # his 下家 (seat 2) draws.
    assert kinds(hand, 1) == [("ti", "四四四四"), ("ti", "五五五五"), ("peng", "六六六")]
    assert [str(e) for e in hand.events[6:10]] == [
        "seat 0 discard 六",
        "seat 1 peng 六六六",
        "seat 1 no_discard",
        "seat 2 draw 玖",
    ]
    assert hand.turn == 2
    assert hand.seats[1].owned == 21


def test_s4_4_dealt_two_ti_second_peng_discards() -> None:
    hand = play(DEAL_TWO_TI, [(0, "discard 六"), (1, "peng"), (2, "discard 叁"),
                              (0, "pass"), (1, "peng")])
    # A second 碰: n = 22 > 21, so now he discards.
    assert kinds(hand, 1)[-1] == ("peng", "叁叁叁")
    assert hand.seats[1].owned == 22
    assert hand.phase is Phase.DISCARD and hand.turn == 1
    assert event_kinds(hand).count("no_discard") == 1


def test_s4_4_dealt_two_ti_first_intake_pao_then_peng_no_discard() -> None:
    # Seat 1 was dealt two 提 and a 坎 六六六. The dealer's 六 is a forced 跑 (k = 3,
    # n = 21 <= 22): no discard; his next intake, a 碰 of 叁 (n = 22 <= 22): none either.
    deal = dict(DEAL_TWO_TI, hands=[DEAL_TWO_TI["hands"][0],
                                    "四四四四五五五五六六六叁叁肆肆伍伍陆柒捌",
                                    DEAL_TWO_TI["hands"][2]])
    hand = play(deal, [(0, "discard 六"), (2, "discard 叁"), (0, "pass"), (1, "peng")])
    assert kinds(hand, 1) == [("ti", "四四四四"), ("ti", "五五五五"), ("pao", "六六六六"),
                              ("peng", "叁叁叁")]
    assert [str(e) for e in hand.events if e.seat == 1 and e.kind != "deal"] == [
        "seat 1 ti 四 (dealt)",
        "seat 1 ti 五 (dealt)",
        "seat 1 pao 六六六六",
        "seat 1 no_discard",
        "seat 1 peng 叁叁叁",
        "seat 1 no_discard",
    ]
    assert hand.seats[1].owned == 22
    assert hand.turn == 2  # seat 2 drew next


# ---- §4.4 相公 ----------------------------------------------------------------------

DEAL_XIANGGONG = {
    "hands": ["二八八九九十十一一壹壹贰贰叁叁肆肆伍伍拾",
              "五五五六六六捌捌捌玖玖玖一二二三三四七十",
              "陆陆柒柒拾拾四四七七八八九九壹壹贰叁肆伍"],
    "liangzhang": "陆",
}


def test_s4_4_xianggong_cannot_discard() -> None:
    # Seat 1 holds four 坎 and 一二二三三四七十. Eating the dealer's 二 with 一三 forces
    # 比 of both his 二 (二三四, 二七十): every non-坎 card goes to the table, he owns
    # 21 > 20 cards and must discard, but holds only 坎 cards: 相公. He skips the
    # discard and his 下家 (seat 2) draws the top card (一, the first unnamed card).
    hand = play(DEAL_XIANGGONG, [(0, "discard 二"), (1, "chi 一二三 比二三四 比二七十")])
    assert _hand_text(hand, 1) == "五五五六六六捌捌捌玖玖玖"
    assert kinds(hand, 1) == [("sentence", "一二三"), ("sentence", "二三四"),
                              ("sentence", "二七十")]
    assert hand.seats[1].xianggong
    assert [str(e) for e in hand.events[4:8]] == [
        "seat 0 discard 二",
        "seat 1 chi 一二三二三四二七十 (chi 一二三 比二三四 比二七十)",
        "seat 1 xianggong",
        "seat 2 draw 一",
    ]
    assert [e.seat for e in hand.events if e.kind == "discard"] == [0]
    assert hand.turn == 2
    assert seat_view(hand, 0)["seats"][1]["xianggong"] is True


H15 = "壹贰叁贰柒拾一二三四五六七八九伍陆柒捌玖"
"""壹贰叁 贰柒拾 一二三 四五六 七八九 伍陆柒 + 捌玖: with a 拾, 6 + 6 + 3 = 15 胡息."""

DEAL_WAIT_DRAW = {
    "hands": ["一一二二三三四四五五六六七七八八九九十十",
              H15,
              "一二三四五六七八九壹壹叁叁肆肆伍伍陆陆捌"],
    "liangzhang": "十",
    "wall": "拾",
}


def test_s4_4_xianggong_can_no_longer_win() -> None:
    # A 相公 holds only 坎 cards and can never get another card into his hand (no pair
    # to 碰 or 偎 with, no free card to 吃 with), so a later win is impossible anyway;
    # to check the rule itself the flag is set directly on a seat about to be offered
    # a win. Control: the dealer discards 一, seat 1 declines his 吃 (一一壹), draws the
    # top card 拾 and may win with 捌玖拾.
    control = play(DEAL_WAIT_DRAW, [(0, "discard 一"), (1, "pass")])
    assert [str(e) for e in control.events if e.kind == "draw"] == ["seat 1 draw 拾"]
    assert Hu() in control.legal_actions(1)

    hand = play(DEAL_WAIT_DRAW, [(0, "discard 一")])
    assert hand.pending_seats() == [1]
    hand.seats[1].xianggong = True  # as if he had been unable to discard earlier
    hand.act(1, Pass())
    assert [str(e) for e in hand.events if e.kind == "draw"] == ["seat 1 draw 拾"]
    assert Hu() not in hand.legal_actions(1)
    assert hand.claim is None or 1 not in hand.claim.wins


# ---- §3.3 / §6.4 mandatory 天胡 -----------------------------------------------------

THREE_TI = "一一一一四四四四伍伍伍伍五六八九陆捌二七"
"""3 提: 一 9 + 四 9 + 伍 12 = 30 胡息; 五六八九陆捌二七 make no scoring sentence."""


def _assert_tianhu_at_once(hand: Hand, winner: int) -> None:
    assert hand.ended
    assert hand.actions == []  # nobody was asked anything
    assert event_kinds(hand) == [*_deal_event_prefix(), "hu"]
    result = hand.result
    assert result is not None
    assert result.reason == "tianhu" and result.source == "tianhu"
    assert result.winner == winner and result.card is None
    assert result.settlement is not None
    assert result.settlement.tianhu and result.settlement.zimo
    assert sum(result.points) == 0


def test_s3_3_three_ti_tianhu_wins_at_once() -> None:
    deal = {
        "hands": ["二二三三六六八八九九壹壹贰贰叁叁肆肆陆陆",
                  THREE_TI,
                  "三三叁叁肆肆柒柒捌捌玖玖拾拾壹壹贰贰七七"],
        "liangzhang": "十",
    }
    hand = play(deal, [])
    _assert_tianhu_at_once(hand, 1)
    result = hand.result
    assert result is not None and result.settlement is not None
    # h = 30; red: 二 七 = 2 (no 名堂), big 6, small 14: 平胡, f = 1.
    # x = floor((2·30 − 12) / 3) + 1 (自摸) = 16 + 1 = 17; each loser pays 17·1·3 = 51.
    assert result.settlement.huxi == 30
    assert result.settlement.di == 17 and result.settlement.fan == 1
    assert result.points == (-51, 102, -51)


def test_s3_3_five_kan_with_a_ti_is_tianhu() -> None:
    deal = {
        "hands": ["一一二二四四五五七七九九十十壹壹贰贰叁叁",
                  "一一二二四四五五七七肆肆伍伍柒柒叁叁壹壹",
                  "三三三三六六六八八八陆陆陆捌捌捌九十玖拾"],
        "liangzhang": "贰",
    }
    hand = play(deal, [])
    # Seat 2: 提 三 and the 坎 六 八 陆 捌: 1 + 4 = 5 (a 提 counts as a 坎).
    _assert_tianhu_at_once(hand, 2)
    result = hand.result
    assert result is not None and result.settlement is not None
    # h = 9 + 3 + 3 + 6 + 6 = 27 (九十玖拾 score nothing); red 十 拾 = 2: 平胡.
    # x = floor((54 − 12) / 3) + 1 = 15; each loser pays 15·1·3 = 45.
    assert result.settlement.huxi == 27
    assert result.settlement.di == 15 and result.settlement.fan == 1
    assert result.points == (-45, -45, 90)


def test_s3_3_five_kan_tianhu() -> None:
    deal = {
        "hands": ["二二七七壹壹贰贰肆肆陆陆柒柒捌捌玖玖拾拾",
                  "一一一三三三五五五八八八叁叁叁四六九十伍",
                  "二二七七壹壹贰贰肆肆陆陆柒柒捌捌玖玖拾拾"],
        "liangzhang": "四",
    }
    hand = play(deal, [])
    _assert_tianhu_at_once(hand, 1)
    result = hand.result
    assert result is not None and result.settlement is not None
    # h = 3 + 3 + 3 + 3 + 6 = 18 (四六九十伍 score nothing). One red card (十):
    # 真点胡 4 番; 16 small cards (一三五八 ×3, 四六九十): 小字胡 8 番; f = 12.
    # x = floor((36 − 12) / 3) + 1 = 9; each loser pays 9·12·3 = 324.
    assert result.settlement.huxi == 18
    assert sorted(m.name for m in result.settlement.mingtang) == ["小字胡", "真点胡"]
    assert result.settlement.di == 9 and result.settlement.fan == 12
    assert result.points == (-324, 648, -324)


def test_s3_3_two_ti_two_kan_is_no_tianhu() -> None:
    # 2 提 + 2 坎 = 4 < 5, and a 坎 never counts as a 提: the game goes on.
    deal = {
        "hands": ["二二四四六六七七九九壹壹贰贰叁叁肆肆伍伍",
                  "一一一一三三三三五五五八八八四六九十伍陆",
                  "二二七七十十壹壹贰贰叁叁肆肆陆陆柒柒捌捌"],
        "liangzhang": "玖",
    }
    hand = play(deal, [])
    assert not hand.ended
    assert kinds(hand, 1) == [("ti", "一一一一"), ("ti", "三三三三")]
    assert hand.phase is Phase.DISCARD and hand.turn == 0


def test_s3_3_tianhu_priority_xiajia_before_shangjia() -> None:
    deal = {
        "hands": ["二二三三六六八八九九壹壹贰贰叁叁肆肆陆陆",
                  THREE_TI,
                  "十十十十拾拾拾拾柒柒柒柒三三五五七七叁叁"],
        "liangzhang": "玖",
    }
    hand = play(deal, [])
    # Seats 1 and 2 both have 3 提: the dealer's 下家 (seat 1) wins.
    _assert_tianhu_at_once(hand, 1)
    result = hand.result
    assert result is not None and result.settlement is not None
    assert result.settlement.huxi == 30
    assert result.points == (-51, 102, -51)


def test_s3_3_tianhu_dealer_first_with_his_liangzhang() -> None:
    deal = {
        "hands": ["一一一一四四四四五五五六七八九陆柒捌玖叁",
                  "七七八八九九叁叁肆肆伍伍陆陆柒柒捌捌玖玖",
                  "二二二二十十十十拾拾拾拾三三六六壹壹贰贰"],
        "liangzhang": "五",
    }
    hand = play(deal, [])
    # The dealer's 五五五 + 亮张 五 is his third 提; seat 2 has 3 提 too: the dealer wins.
    _assert_tianhu_at_once(hand, 0)
    result = hand.result
    assert result is not None and result.settlement is not None
    # h = 9 + 9 + 9 = 27 (六七八九陆柒捌玖叁 score nothing). Red: 七 柒 = 2.
    # Small: 一×4 四×4 五×4 六七八九 = 16: 小字胡, 8 番. x = (54 − 12) // 3 + 1 = 15;
    # each loser pays 15·8·3 = 360.
    assert result.settlement.huxi == 27
    assert [m.name for m in result.settlement.mingtang] == ["小字胡"]
    assert result.settlement.di == 15 and result.settlement.fan == 8
    assert result.points == (720, -360, -360)


def test_s3_3_liangzhang_does_not_count_for_a_non_dealer() -> None:
    # Seat 1 holds 2 提 and 五五五; the 亮张 五 is the dealer's card, not his: no 天胡.
    deal = {
        "hands": ["二二三三六六七七九九壹壹贰贰叁叁肆肆陆陆",
                  "一一一一四四四四五五五六八九陆捌二七十拾",
                  "三三叁叁肆肆柒柒捌捌玖玖拾拾壹壹贰贰八八"],
        "liangzhang": "五",
    }
    hand = play(deal, [])
    assert hand.result is None or hand.result.reason != "tianhu"
    assert kinds(hand, 1) == [("ti", "一一一一"), ("ti", "四四四四")]


# ---- §3.4 optional 亮张胡 ------------------------------------------------------------

JUNK = "一一二二三三四四五五六六七七八八九九十十"
"""Pairs of every small card: with the 亮张 拾 no win, no 天胡."""
S2_15 = "壹壹贰贰叁叁肆肆伍伍陆陆柒柒捌捌玖玖拾拾"
"""With another's 拾: 壹贰叁 ×2 (12) 肆伍陆 ×2 柒捌玖 ×2 碰拾 (3) = 15 胡息."""

DEAL_LZ_SEAT1 = {
    "hands": [JUNK, H15, "一二三四五六七八九十壹壹叁叁肆肆伍伍陆陆"],
    "liangzhang": "拾",
}


def test_s3_4_liangzhang_hu_is_a_choice_pass_goes_on() -> None:
    hand = play(DEAL_LZ_SEAT1, [])
    # H15 + the 亮张 拾 (捌玖拾) is a complete hand of 15 胡息: seat 1 may win or not.
    assert hand.phase is Phase.CLAIM
    assert hand.pending_seats() == [1]
    assert hand.legal_actions(1) == [Hu(), Pass()]
    assert hand.legal_actions(0) == [] and hand.legal_actions(2) == []
    assert hand.seats[0].owned == 20  # the 亮张 is not yet in the dealer's hand

    hand = play(DEAL_LZ_SEAT1, [(1, "pass")])
    # He passed: the game goes on, the dealer takes the 亮张 and discards.
    assert not hand.ended
    assert hand.phase is Phase.DISCARD and hand.turn == 0
    assert hand.seats[0].owned == 21 and hand.seats[0].hand[19] == 1  # 拾 is card 19


def test_s3_4_liangzhang_hu_non_dealer_is_not_zimo() -> None:
    hand = play(DEAL_LZ_SEAT1, [(1, "hu")])
    result = hand.result
    assert result is not None and result.settlement is not None
    assert result.reason == "hu" and result.source == "liangzhang"
    assert result.winner == 1 and result.card is not None and result.card.text == "拾"
    s = result.settlement
    assert s.tianhu and not s.zimo
    # h = 壹贰叁 6 + 贰柒拾 6 + 一二三 3 = 15; red 贰贰柒柒拾二七 + 拾 = 8: 平胡.
    # 天胡 without 自摸: x = floor((2·15 − 12) / 3) = 6; each loser pays 6·1·3 = 18.
    assert s.huxi == 15 and s.di == 6 and s.fan == 1
    assert result.points == (-18, 36, -18)


def test_s3_4_mandatory_tianhu_outranks_liangzhang_hu() -> None:
    deal = {
        "hands": ["二二四四六六七七九九十十壹壹贰贰伍伍陆陆",
                  H15,
                  "一一一三三三五五五八八八叁叁叁四六九十伍"],
        "liangzhang": "拾",
    }
    hand = play(deal, [])
    # Seat 1 could win on the 亮张, but seat 2's 5 坎 win at once, with no decision.
    assert hand.ended and hand.actions == []
    result = hand.result
    assert result is not None
    assert result.reason == "tianhu" and result.winner == 2


def test_s3_4_liangzhang_completing_the_dealers_ti_can_be_won_by_others() -> None:
    # The dealer holds 拾拾拾: the 亮张 拾 would be his 提, yet seat 1 (壹贰叁 肆肆肆 一二三
    # 四五六 七八九 伍陆柒 捌玖) may win on it: 6 + 6 + 3 = 15 胡息.
    deal = {"hands": ["拾拾拾一一二二三三五五六六七七八八九九十",
                      "壹贰叁肆肆肆一二三四五六七八九伍陆柒捌玖",
                      "一二三四五六七八九十壹壹贰贰叁叁伍伍陆陆"],
            "liangzhang": "拾"}
    assert play(deal, []).legal_actions(1) == [Hu(), Pass()]
    hand = play(deal, [(1, "hu")])
    assert hand.result is not None and hand.result.winner == 1
    # 5 red (二七贰柒拾): 平胡; x = floor((30 − 12) / 3) = 6; each loser pays 18.
    assert hand.result.points == (-18, 36, -18)
    # If he passes, the dealer lays the 提 and (one 提) discards.
    hand = play(deal, [(1, "pass")])
    assert kinds(hand, 0) == [("ti", "拾拾拾拾")]
    assert hand.phase is Phase.DISCARD and hand.turn == 0


DEAL_LZ_TWO_SEATS = {"hands": [JUNK, H15, S2_15], "liangzhang": "拾"}


def test_s3_4_liangzhang_priority_xiajia_before_shangjia() -> None:
    hand = play(DEAL_LZ_TWO_SEATS, [])
    assert hand.pending_seats() == [1, 2]
    # Both choose hu (in either answer order): the dealer's 下家, seat 1, wins.
    for answers in ([(1, "hu"), (2, "hu")], [(2, "hu"), (1, "hu")]):
        hand = play(DEAL_LZ_TWO_SEATS, answers)
        assert hand.result is not None and hand.result.winner == 1
        assert hand.result.points == (-18, 36, -18)
    # Seat 1 passes: seat 2 wins. S2_15 + 拾 holds 7 red cards (贰贰柒柒拾拾拾): 红胡
    # 2 番, and 21 big cards: 大字胡 6 + 3 = 9 番; f = 11. x = floor((30 − 12) / 3) = 6;
    # each loser pays 6·11·3 = 198.
    hand = play(DEAL_LZ_TWO_SEATS, [(1, "pass"), (2, "hu")])
    result = hand.result
    assert result is not None and result.settlement is not None
    assert result.winner == 2 and not result.settlement.zimo
    assert {(m.name, m.fan) for m in result.settlement.mingtang} == {("红胡", 2), ("大字胡", 9)}
    assert result.settlement.di == 6 and result.settlement.fan == 11
    assert result.points == (-198, -198, 396)


DEAL_LZ_DEALER = {"hands": [H15, JUNK, S2_15], "liangzhang": "拾"}


def test_s3_4_liangzhang_priority_dealer_first_and_zimo() -> None:
    hand = play(DEAL_LZ_DEALER, [])
    assert hand.pending_seats() == [0, 2]
    hand = play(DEAL_LZ_DEALER, [(2, "hu"), (0, "hu")])
    result = hand.result
    assert result is not None and result.settlement is not None
    assert result.winner == 0 and result.source == "liangzhang"
    s = result.settlement
    # The dealer's 亮张胡 is 自摸: x = floor((30 − 12) / 3) + 1 = 7; 8 red: 平胡;
    # each loser pays 7·1·3 = 21.
    assert s.tianhu and s.zimo
    assert s.huxi == 15 and s.di == 7 and s.fan == 1
    assert result.points == (42, -21, -21)
    # The dealer passes, seat 2 wins.
    hand = play(DEAL_LZ_DEALER, [(0, "pass"), (2, "hu")])
    assert hand.result is not None and hand.result.winner == 2


# ---- §4.6 荒庄 and §3.1 dealer rotation ----------------------------------------------


def test_s4_6_huangzhuang_when_the_wall_runs_out() -> None:
    # Everybody declines everything; whoever must discard throws his lowest card.
    actions = _drive_passively(_hand_of(DEAL_TI, Ruleset()))
    hand = play(DEAL_TI, actions)
    assert hand.ended and hand.phase is Phase.ENDED
    result = hand.result
    assert result is not None
    assert result.reason == "huangzhuang"
    assert result.winner is None and result.settlement is None
    assert result.points == (0, 0, 0) and result.beans == (0, 0, 0)
    assert hand.wall == []
    # Every one of the 19 wall cards was drawn, then a draw was due: 荒庄.
    assert event_kinds(hand).count("draw") == 19
    assert hand.events[-1].kind == "huangzhuang"
    assert "hu" not in event_kinds(hand)
    assert hand.card_total() == 80
    # The hand ends revealed: everybody's hand is shown.
    view = seat_view(hand, None)
    assert view["phase"] == "ended"
    assert view["revealed_hands"] == [_hand_text(hand, s) for s in range(3)]
    assert view["result"]["reason"] == "huangzhuang"


def _inject(match: Match, deal: dict[str, Any]) -> Hand:
    """Start the match's next hand, but with an explicit deal for the same seats (hand
    seat 0 is the dealer; Match itself only deals from seeds)."""
    match.start_hand(seed=0)
    match.hand = _hand_of(deal, match.rules)
    return match.hand


def _drawn_hand(match: Match) -> None:
    hand = _inject(match, DEAL_TI)
    _drive_passively(hand)
    assert hand.result is not None and hand.result.reason == "huangzhuang"
    match.finish_hand()


def test_s3_1_dealer_keeps_deal_after_draws_and_winner_deals() -> None:
    m = Match(Ruleset(), seed=3, first_dealer=0)
    _drawn_hand(m)
    assert m.dealer == 0  # a drawn hand: the dealer keeps the deal
    _drawn_hand(m)
    assert m.dealer == 0
    _drawn_hand(m)
    assert m.dealer == 1  # 3 drawn hands in a row: to the dealer's 下家
    assert m.playing_seats() == (1, 2, 0)

    # Match seat 2 (hand seat 1) wins a 天胡: he deals next.
    hand = _inject(m, {"hands": ["二二三三六六八八九九壹壹贰贰叁叁肆肆陆陆", THREE_TI,
                                 "三三叁叁肆肆柒柒捌捌玖玖拾拾壹壹贰贰七七"],
                       "liangzhang": "十"})
    assert hand.result is not None and hand.result.winner == 1
    summary = m.finish_hand()
    assert summary.points == (-51, -51, 102)  # in match seats
    assert m.dealer == 2

    # A win resets the count of drawn hands: draw, the dealer wins, draw, draw: he keeps it.
    _drawn_hand(m)
    assert m.dealer == 2
    hand = _inject(m, DEAL_LZ_DEALER)
    hand.act(2, Pass())
    hand.act(0, Hu())
    assert hand.result is not None and hand.result.winner == 0
    m.finish_hand()
    assert m.dealer == 2
    _drawn_hand(m)
    _drawn_hand(m)
    assert m.dealer == 2
    _drawn_hand(m)
    assert m.dealer == 0  # the third drawn hand in a row since the win
    assert sum(m.points) == 0
    assert len(m.history) == 9


# ---- §7.4 逃跑 ----------------------------------------------------------------------


def test_s7_4_escape_mid_hand() -> None:
    hand = play(DEAL_BAKUAI, [(0, "discard 五")])
    assert hand.phase is Phase.DISCARD and hand.turn == 2
    events = hand.escape(1)
    # H over the two others (the leaver's own 提 and 跑 do not count):
    #  seat 2: table 偎 捌 6 + hand 壹壹贰贰叁叁… best 壹贰叁 ×2 = 12  -> 18;
    #  seat 0: hand 坎 十十十 3 + 一二三 ×2 = 6 (二七十 would need a 十 of the 坎) -> 9.
    # H = 27; penalty = (max(0, (27 − 12) // 3) + 8) · 3 = 13 · 3 = 39.
    # Turn order after the leaver: seat 2 takes the odd point (20), seat 0 gets 19.
    assert [str(e) for e in events] == ["seat 1 escape (H=27)"]
    result = hand.result
    assert result is not None
    assert result.reason == "escape" and result.leaver == 1
    assert result.points == (19, -39, 20)
    assert sum(result.points) == 0
    assert hand.ended


def test_s7_4_escape_of_the_dealer_at_the_start() -> None:
    hand = play(DEAL_TI, [])
    hand.escape(0)
    # seat 1: 提 四 9 + nothing from 贰贰叁叁…玖玖 (no 壹, no 拾) = 9;
    # seat 2: 壹壹贰贰叁叁…拾拾: 壹贰叁 ×2 = 12. H = 21: (3 + 8) · 3 = 33;
    # seat 1 (first after the dealer) gets 17, seat 2 16.
    result = hand.result
    assert result is not None
    assert result.points == (-33, 17, 16)


# ---- §9 hunan with the 醒家 ---------------------------------------------------------


def test_s9_hunan_xingjia_is_paid_by_each_loser() -> None:
    m = Match(Ruleset.preset("hunan", xingjia=True), seed=5, first_dealer=1)
    assert m.n_seats == 4
    assert m.xingjia == 3  # opposite the dealer (1 + 2)
    assert m.playing_seats() == (1, 2, 0)
    assert 3 not in m.playing_seats()

    hand = _inject(m, DEAL_LZ_SEAT1)
    hand.act(1, Hu())  # hand seat 1 = match seat 2 wins on the 亮张
    result = hand.result
    assert result is not None and result.settlement is not None
    # hunan: 囤 = 1 + (15 − 15) // 3 = 1 (not 自摸); 8 red: no 名堂, ×1; unit 1·1·3 = 3.
    # Each loser pays the winner 3 and the 醒家 one base (3).
    assert result.settlement.di == 1 and result.settlement.fan == 1
    assert result.points == (-6, 6, -6)  # hand seats, the 醒家's unit included
    assert result.xingjia_points == 6
    summary = m.finish_hand()
    assert summary.xingjia == 3 and summary.players == (1, 2, 0)
    assert summary.points == (-6, -6, 6, 6)
    assert m.points == [-6, -6, 6, 6]

    # The winner (match seat 2) deals; the seat opposite him (0) sits out.
    assert m.dealer == 2 and m.xingjia == 0
    assert m.playing_seats() == (2, 3, 1)
    # A drawn hand: the dealer pays the 醒家 one base.
    hand = _inject(m, DEAL_TI)
    _drive_passively(hand)
    assert hand.result is not None and hand.result.reason == "huangzhuang"
    summary = m.finish_hand()
    assert summary.points == (3, 0, -3, 0)
    assert m.points == [-3, -6, 3, 6]
    assert m.dealer == 2


# ---- §9 two players -------------------------------------------------------------------

H18 = "壹贰叁贰柒拾一二三四四四七八九伍陆柒捌玖"
"""With 拾: 壹贰叁 6 + 贰柒拾 6 + 一二三 3 + 坎 四 3 + 七八九 伍陆柒 捌玖拾 = 18 胡息."""
H21 = "壹贰叁贰柒拾一二三四四四七七七伍陆柒捌玖"
"""With 拾: 壹贰叁 6 + 贰柒拾 6 + 一二三 3 + 坎 四 3 + 坎 七 3 + 伍陆柒 捌玖拾 = 21 胡息."""


def test_s9_two_player_deal() -> None:
    rules = Ruleset.preset("two-player")
    assert rules.players == 2 and rules.min_huxi == 21
    hand = Hand.from_seed(12, rules)
    assert [len(h) for h in hand.deal.hands] == [20, 20]
    assert len(hand.deal.set_aside) == 20
    assert len(hand.wall) == 19
    assert len(hand.seats) == 2
    assert hand.card_total() == 80
    assert hand.next_seat(1) == 0


def test_s3_2_seeded_deal_is_python_random_shuffle_and_valid() -> None:
    """Deal.from_seed shuffles as random.Random(seed).shuffle (its own copy of the
    algorithm) and deals every preset a valid deal of the 80 cards."""
    import random

    from paohuzi.core.cards import full_deck
    from paohuzi.core.rules import PRESETS
    from paohuzi.game.deal import DealError, shuffled

    deck = full_deck()
    for seed in [*range(300), 2**62 + 7, 1_000_003 * 99]:
        expected = list(deck)
        random.Random(seed).shuffle(expected)
        assert shuffled(deck, seed) == expected
    for name in PRESETS:
        rules = Ruleset.preset(name)
        for seed in range(50):
            deal = Deal.from_seed(seed, rules, dealer=seed % rules.players)
            deal.validate(rules)
            assert deal.seed == seed and deal.dealer == seed % rules.players
    try:
        Deal.from_seed(1, Ruleset(), dealer=3)
    except DealError as error:
        assert "dealer seat 3" in str(error)
    else:
        raise AssertionError("a dealer outside the seats is refused")


def test_s9_two_player_needs_21_huxi() -> None:
    # Under qq, H18 wins on the 亮张 拾 with 18 胡息 ...
    qq = play({"hands": ["一一二二三三五五六六七七八八九九十十壹叁", H18,
                         "肆肆伍伍陆陆捌捌玖玖壹壹贰贰叁叁柒拾五六"],
               "liangzhang": "拾"}, [])
    assert qq.legal_actions(1) == [Hu(), Pass()]
    # ... with two players 21 are needed: no choice is offered, the dealer discards.
    two = play({"hands": ["一一二二三三五五六六七七八八九九十十壹叁", H18], "liangzhang": "拾"},
               [], "two-player")
    assert two.legal_actions(1) == []
    assert two.phase is Phase.DISCARD and two.turn == 0
    assert len(two.wall) == 19 and len(two.deal.set_aside) == 20
    # 21 胡息 are enough.
    two = play({"hands": ["一一二二三三五五六六八八九九十十壹叁肆肆", H21], "liangzhang": "拾"},
               [(1, "hu")], "two-player")
    result = two.result
    assert result is not None and result.settlement is not None
    assert result.winner == 1 and result.settlement.huxi == 21
    # 10 red cards (贰 贰柒拾 二 七七七 柒 + 拾): 假点胡 3 番; x = floor((42 − 12) / 3) = 10;
    # the one loser pays 10·3·3 = 90 and the winner gets exactly that.
    assert [m.name for m in result.settlement.mingtang] == ["假点胡"]
    assert result.points == (-90, 90)
