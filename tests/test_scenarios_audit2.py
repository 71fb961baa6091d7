"""Second audit of docs/rules.md: statements of §2, §4, §6 and §7 that no scenario played through.

Each test is an explicit deal played by the engine (``scenario.play``: also a replayable
record) and checks what the line of docs/rules.md it names says; the numbers expected are
worked out by hand in the comments, never read back from the code. Seat 0 deals; seat 1
is his 下家, seat 2 his 上家.
"""

from __future__ import annotations

from typing import Any

import pytest
from notation import C
from scenario import kinds, pass_until, play

from paohuzi.core.chi import chi_options
from paohuzi.core.kinds import Source
from paohuzi.core.rules import Ruleset
from paohuzi.core.solver import can_hu
from paohuzi.game.actions import Action, Chi, Hu, Pass, Peng
from paohuzi.game.engine import Hand
from paohuzi.game.view import seat_view


def lines(hand: Hand) -> list[str]:
    return [str(e) for e in hand.events]


def others_pass(hand: Hand) -> None:
    """Every seat still asked about the shown card passes."""
    for seat in hand.pending_seats():
        hand.act(seat, Pass())


def last_card_shown(hand: Hand) -> bool:
    return hand.claim is not None and hand.claim.last


# ---- §6.3 海底, §4.6 荒庄: the last card of the wall ---------------------------------------

# Seat 2 waits on 九 / 玖 with exactly 15 胡息 (一二三 3 + 壹贰叁 6 + 贰柒拾 6; 5 red: 平胡)
# and holds no pair of a wall card, so nothing is forced on him. Every 九 and 玖 is in a
# hand but the wall's last card, a 九; the wall is named in full (19 cards).
_H2 = "一二三 三四五 四五六 壹贰叁 贰柒拾 叁肆伍 九玖"
_WALL = "一二六七七八八十十壹肆伍陆陆柒捌捌拾 九"
LAST_DEAL: dict[str, Any] = {
    "hands": ["三四五贰叁九玖玖 一二六七八十壹肆伍陆柒捌",
              "三四五贰叁九玖 一二六七八十壹肆伍陆柒捌拾", _H2],
    "liangzhang": "拾",
    "wall": _WALL,
}


def test_s6_3_haidi_the_last_wall_card_won_by_the_drawers_xiajia() -> None:
    """§6.3 "海底胡: the winning card was the last card of the wall". Nobody takes
    anything: 19 draws from seat 1 on, the 19th (seat 1) is the last 九, shown; seat 2
    wins it — another's card: no 自摸. §7: x = (15 − 12) // 3 = 1; 海底 adds 1 番 to a
    平胡 (f = 2); each loser 1 · 2 · 3 = 6, the winner 12."""
    hand = play(LAST_DEAL, [])
    pass_until(hand, last_card_shown)
    assert lines(hand)[-2:] == ["seat 1 draw 九", "seat 1 show 九"]
    assert hand.wall == [] and 2 in hand.pending_seats()
    hand.act(2, Hu())
    others_pass(hand)  # the drawer may 吃 it (九九玖): he passes
    r = hand.result
    assert r is not None and r.reason == "hu" and r.winner == 2 and r.source == "other"
    s = r.settlement
    assert s is not None and (s.huxi, s.di, s.fan, s.zimo, s.haidi) == (15, 1, 2, False, True)
    assert s.mingtang == ()
    assert r.points == (-6, -6, 12)


def test_s4_6_huangzhuang_when_nobody_takes_the_last_card() -> None:
    """§4.6 "荒庄: the wall is empty when a draw is due and nobody has won": seat 2 passes
    the last 九; it goes to seat 1's pile, no draw follows; §7.3 "A drawn hand pays
    nothing"."""
    hand = play(LAST_DEAL, [])
    pass_until(hand, last_card_shown)
    assert Hu() in hand.legal_actions(2)
    hand.act(2, Pass())
    others_pass(hand)
    assert lines(hand)[-2:] == ["seat 1 to_pile 九", "huangzhuang"]
    r = hand.result
    assert r is not None and r.reason == "huangzhuang" and r.winner is None
    assert r.points == (0, 0, 0)


def test_s4_5_a_chou_card_may_still_be_won_and_s4_1_never_on_a_discard() -> None:
    """§4.5 "From then on he may not 吃 or 碰 X ... and he may still win on it"; §4.1.1
    "Nobody may win (胡) on a discarded card".

    Seat 1 eats the dealer's 一 (一一壹) and discards 九: seat 2's hand is complete with it
    (九九玖), yet only 吃 is offered; he passes, so 九 is 臭 for him. Seat 2 now draws
    first, so the 19th draw — the last 九 — is his: he wins it, 自摸 and 海底:
    x = 1 + 1 (自摸) = 2, f = 2; each loser 2 · 2 · 3 = 12."""
    hand = play(LAST_DEAL, [(0, "discard 一"), (1, "chi 一一壹"), (1, "discard 九")])
    st = hand.seats[2]
    assert can_hu(st.hand_cards, st.melds, C("九"), Source.OTHER, Ruleset())
    legal = hand.legal_actions(2)
    assert Hu() not in legal
    assert [a.text for a in legal] == ["chi 九九玖", "pass"]
    hand.act(2, Pass())
    assert C("九") in hand.seats[2].chou
    pass_until(hand, last_card_shown)
    assert lines(hand)[-2:] == ["seat 2 draw 九", "seat 2 show 九"]
    assert Hu() in hand.legal_actions(2)
    assert not any(isinstance(a, Chi) for a in hand.legal_actions(2))  # 臭: no 吃 九九玖
    hand.act(2, Hu())
    others_pass(hand)
    r = hand.result
    assert r is not None and r.winner == 2 and r.source == "self"
    s = r.settlement
    assert s is not None and (s.huxi, s.di, s.fan, s.zimo, s.haidi) == (15, 2, 2, True, True)
    assert r.points == (-12, -12, 24)


# The same deal, the pair 九九 with the dealer (seat 1 holds 玖玖 instead).
PENG_OR_HU_DEAL: dict[str, Any] = {
    **LAST_DEAL,
    "hands": ["三四五贰叁九九玖 一二六七八十壹肆伍陆柒捌",
              "三四五贰叁玖玖 一二六七八十壹肆伍陆柒捌拾", _H2],
}


def test_s4_2_a_win_outranks_a_peng_and_a_chi_of_the_same_card() -> None:
    """§4.2.2: on a shown draw 胡 comes first, then 跑, 碰, 吃. Seat 1 draws the last 九:
    he may 吃 it, the dealer (pair 九九) may 碰 it, seat 2 may win. The 碰 and the 吃 are
    answered first; seat 2's 胡 still takes the card."""
    hand = play(PENG_OR_HU_DEAL, [])
    pass_until(hand, last_card_shown)
    assert lines(hand)[-1] == "seat 1 show 九"
    assert Peng() in hand.legal_actions(0)
    assert any(isinstance(a, Chi) for a in hand.legal_actions(1))
    assert Hu() in hand.legal_actions(2)
    hand.act(0, Peng())
    hand.act(1, next(a for a in hand.legal_actions(1) if isinstance(a, Chi)))
    hand.act(2, Hu())
    r = hand.result
    assert r is not None and r.winner == 2 and r.card == C("九")
    assert kinds(hand, 0) == [] and kinds(hand, 1) == []


# ---- §4.2.1 a card the drawer 偎s is nobody else's --------------------------------------

# Seat 2 (the hand of LAST_DEAL) also wins on 玖; the dealer holds 玖玖 and draws the
# third card of the wall, a 玖.
WEI_OTHERS_DEAL: dict[str, Any] = {
    "hands": ["三四五贰叁九玖玖 一二六七八十壹肆伍陆柒捌",
              "三四五贰叁九拾 一二六七八十壹肆伍陆柒捌拾", _H2],
    "liangzhang": "拾",
    "wall": "六 二 玖",
}


def test_s4_2_1_nobody_else_may_win_a_card_the_drawer_must_wei() -> None:
    """§4.2.1: "If he holds a pair of it, he must 偎 ... Nobody else may act on or win
    this card." Seat 2's hand would win on the dealer's 玖 were it shown; it is not: the
    dealer lays 偎 玖玖玖 at once and discards (§4.4), seat 2 is never asked."""
    hand = play(WEI_OTHERS_DEAL, [(0, "discard 柒")])
    pass_until(hand, lambda h: "seat 0 draw 玖" in lines(h))
    assert lines(hand)[-2:] == ["seat 0 draw 玖", "seat 0 wei 玖玖玖"]
    st = hand.seats[2]
    assert can_hu(st.hand_cards, st.melds, C("玖"), Source.OTHER, Ruleset())
    assert hand.pending_seats() == [0] and hand.phase.value == "discard"
    assert kinds(hand, 0) == [("wei", "玖玖玖")]


# ---- §2 跑 (c) and 提 (c): a table 偎 and the fourth card; §4.4 八块 -----------------------

# Seat 1 is dealt the 提 四四四四 (laid at the deal, §3.5) and holds the pair 捌捌; his first
# draw is 捌: a 偎. Seat 2 draws 七 next: he may eat it (五六七), and so may the dealer, his
# 下家 (五六, 八 in hand); seat 1, his 上家, holds 六八 but may not.
_WEI_H0 = "一二三五六七八九十 壹贰叁肆伍陆柒玖拾 五一"
_WEI_H1 = "四四四四 捌捌 一二三六八九十 壹贰叁伍柒玖拾"
WEI_PAO_DEAL: dict[str, Any] = {  # the fourth 捌 in seat 2's hand
    "hands": [_WEI_H0, _WEI_H1, "五六捌 一二三九十 壹贰叁肆伍陆玖拾 八柒 肆陆"],
    "liangzhang": "二",
    "wall": "捌 七",
}
WEI_TI_DEAL: dict[str, Any] = {  # the fourth 捌 the fourth card of the wall
    "hands": [_WEI_H0, _WEI_H1, "五六七 一二三九十 壹贰叁肆伍陆玖拾 八柒 肆陆"],
    "liangzhang": "二",
    "wall": "捌 七 十 捌",
}
_WEI_START = [(0, "discard 伍"), (1, "discard 三"), (2, "pass")]


def test_s4_2_the_drawers_chi_comes_before_his_xiajias() -> None:
    """§4.2.2.4 "吃 (optional): the drawer himself, then the drawer's 下家": both answer
    吃 (the 下家 first) and the drawer's happens. The drawer's 上家 is never offered 吃
    (§4.2.2.4 names two seats). The 下家 chose to eat: 七 is not 臭 for him (§4.5 (b)
    "could 吃 ... and chose not to")."""
    hand = play(WEI_PAO_DEAL, _WEI_START)
    assert lines(hand)[-2:] == ["seat 2 draw 七", "seat 2 show 七"]
    assert hand.pending_seats() == [2, 0]
    assert chi_options(hand.seats[1].hand_cards, C("七"))  # 六七八 would fit seat 1
    assert hand.legal_actions(1) == []
    dealer_chi = next(a for a in hand.legal_actions(0) if isinstance(a, Chi))
    hand.act(0, dealer_chi)
    hand.act(2, Action.from_text("chi 五六七"))
    assert kinds(hand, 2) == [("sentence", "五六七")]
    assert kinds(hand, 0) == []
    assert C("七") not in hand.seats[0].chou
    assert hand.pending_seats() == [2] and hand.phase.value == "discard"


def test_s2_pao_c_a_table_wei_paos_on_another_players_discard_and_bakuai() -> None:
    """§2 跑 (c) "your table 偎 and another player discards ... the 4th": seat 2 eats 七
    and discards the fourth 捌: seat 1's 偎 捌捌捌 must become 跑 (no one is asked, §4.1.2).
    §4.4: seat 1 now owns 21 cards with k = 2 (the dealt 提 and the 跑): 21 > 20 + 1 is
    false, he does not discard (八块) and his 下家, seat 2, draws."""
    hand = play(WEI_PAO_DEAL, [*_WEI_START, (2, "chi 五六七"), (0, "pass"),
                               (2, "discard 捌")])
    assert lines(hand)[-5:-2] == ["seat 2 discard 捌", "seat 1 pao 捌捌捌捌",
                                  "seat 1 no_discard"]
    assert lines(hand)[-2] == "seat 2 draw 三"
    assert kinds(hand, 1) == [("ti", "四四四四"), ("pao", "捌捌捌捌")]
    st = hand.seats[1]
    assert (st.owned, st.pao_ti, st.table_huxi) == (21, 2, 9 + 9)  # 提四 9, 跑捌 9


def test_s2_ti_c_a_table_wei_and_ones_own_draw_is_a_ti_and_bakuai() -> None:
    """§2 提 (c) "your table 偎 and you draw the 4th": seat 1 draws the fourth 捌 onto his
    偎: a 提 (one card shown to the others, §4.2.1), 胡息 12. §4.4: k = 2, 21 cards: no
    discard, seat 2 draws."""
    hand = play(WEI_TI_DEAL, [*_WEI_START, (2, "pass"), (0, "pass"), (0, "pass"), (1, "pass")])
    assert lines(hand)[-5:-2] == ["seat 1 draw 捌", "seat 1 ti 捌", "seat 1 no_discard"]
    assert lines(hand)[-2] == "seat 2 draw 三"
    assert kinds(hand, 1) == [("ti", "四四四四"), ("ti", "捌捌捌捌")]
    st = hand.seats[1]
    assert (st.owned, st.pao_ti, st.table_huxi) == (21, 2, 9 + 12)
    seen = seat_view(hand, 0)["events"]
    assert {"kind": "ti", "seat": 1, "cards": "捌"} in seen
    assert seat_view(hand, 0)["seats"][1]["melds"][1] == {
        "kind": "ti", "cards": "捌捌捌捌", "huxi": 12}


# ---- N61: 臭胡 after a passed 亮张胡, with a dealt 提 -----------------------------------------

# Seat 1 holds 一×4 (a dealt 提), 二三四 五六七 八九十 贰柒拾 壹贰叁 and a lone 伍: with the
# 亮张 伍 his 20 cards win (提 9 + 贰柒拾 6 + 壹贰叁 6 = 21 胡息, the pair 伍伍). He passes;
# his 提 is laid (§3.5); the dealer discards 肆; seat 1 draws the wall's first card, 伍.
N61_DEAL: dict[str, Any] = {
    "hands": ["二二三三四四五五六六七七八八九九十十肆肆",
              "一一一一 二三四 五六七 八九十 贰柒拾 壹贰叁 伍",
              "壹壹壹 叁叁叁 陆陆 捌捌 玖玖 柒 拾 二 三 四 六 七 八"],
    "liangzhang": "伍",
    "wall": "伍",
}


def test_n61_a_dealt_ti_laid_after_a_passed_liangzhang_win_lifts_the_chouhu_bar() -> None:
    """§4.5 臭胡: a passed win bars the same card "while his current 胡息 (the 胡息 of his
    table groups) is unchanged". Passed at table 胡息 0; the dealt 提 laid after the
    亮张 decision (§3.5) makes it 9 (a small 提, §5): changed, so the next 伍 may be won
    (docs/rules-notes.md N61)."""
    hand = play(N61_DEAL, [])
    assert hand.pending_seats() == [1] and Hu() in hand.legal_actions(1)  # 亮张胡 offered
    hand.act(1, Pass())
    assert kinds(hand, 1) == [("ti", "一一一一")]
    assert sum(m.huxi for m in hand.seats[1].melds) == 9
    hand.act(0, next(a for a in hand.legal_actions(0) if a.text == "discard 肆"))
    pass_until(hand, lambda h: h.claim is not None and h.claim.card == C("伍"))  # the 肆
    assert lines(hand)[-2:] == ["seat 1 draw 伍", "seat 1 show 伍"]
    assert Hu() in hand.legal_actions(1)
    hand.act(1, Hu())
    for seat in hand.pending_seats():
        hand.act(seat, Pass())
    r = hand.result
    assert r is not None and r.winner == 1 and r.source == "self"


def test_n62_a_win_below_15_huxi_is_paid_as_one_at_15() -> None:
    """A room may let 10 胡息 win; the 底数/等/囤 formulas (§7.1, §9) assume 15 and gave
    0 or −1 below it (the winner won nothing, or paid). Now such a win is paid as one at
    15 胡息."""
    from paohuzi.apps.evaluate import evaluate

    # 一二三 3 + 二七十 3 + 坎 五五五 3 + 碰 九 (another's card onto 九九) 1 = 10 胡息
    low = {"hand": "一二三 二七十 五五五 六七八 伍陆柒 叁肆伍 九九", "card": "九"}
    # the same with 壹贰叁 (6) for 叁肆伍 (0): 16 胡息, paid as every win at 15–17
    at_15 = {"hand": "一二三 二七十 五五五 六七八 伍陆柒 壹贰叁 九九", "card": "九"}
    for preset in ("qq", "changde", "hunan"):
        rules = {"preset": preset, "min_huxi": 10}
        won = evaluate({**low, "rules": rules})
        assert won["hu"] is True and won["huxi"] == 10, won
        usual = evaluate({**at_15, "rules": rules})
        assert usual["hu"] is True and 15 <= usual["huxi"] <= 17, usual
        assert won["di"] == usual["di"] == 1, (preset, won, usual)
        assert won["points"]["winner"] > 0 > won["points"]["loser"], (preset, won)


N63_DEALER = "二七十 二七十 四五六 四五六 伍陆柒 叁肆 九九九"  # + the unshown 21st card 伍
N63_OTHERS = ["一一三三 四五六七八九 壹贰叁肆 陆柒 玖拾 十二",
              "一一三三 四五六七八 壹贰叁肆 陆柒 玖拾 捌 十二"]
N63_REST = "壹壹 贰贰 叁 肆 陆 柒 玖玖 拾拾 八八"


@pytest.mark.parametrize("drawn", ["伍", "捌"])
def test_n63_a_passed_luzhou_dealer_tianhu_bars_no_card(drawn: str) -> None:
    """§9.1: the dealer's 21st card is not shown; his 21 cards forming a winning hand is
    a 天胡. He passes it and discards 伍: his 20 cards wait on 伍 (叁肆伍, 伍陆柒) and 捌
    (陆柒捌). No card was offered, so §4.5's 臭胡 bars neither — not the kind that happened
    to be dealt 21st, which he cannot tell from his other cards (rules-notes N63)."""
    from paohuzi.game.deal import Deal

    rules = Ruleset.preset("luzhou", players=3)
    wall = ("伍伍 捌捌捌 " if drawn == "伍" else "捌 伍伍 捌捌 ") + N63_REST
    deal = Deal.from_json({"dealer": 0, "hands": [N63_DEALER, *N63_OTHERS],
                           "liangzhang": "伍", "wall": wall}, rules)
    hand = Hand(rules, deal)
    assert hand.pending_seats() == [0] and Hu() in hand.legal_actions(0)  # the 天胡
    hand.act(0, Pass())
    assert hand.seats[0].chouhu == {}
    hand.act(0, Action.from_text("discard 伍"))
    pass_until(hand, lambda h: h.claim is not None and h.claim.context.value != "discard")
    assert hand.claim is not None and hand.claim.card == C(drawn)  # seat 1 drew it
    assert Hu() in hand.legal_actions(0), lines(hand)[-4:]
    hand.act(0, Hu())
    for seat in hand.pending_seats():
        hand.act(seat, Pass())
    r = hand.result
    assert r is not None and (r.winner, r.source) == (0, "other")  # seat 1's draw
