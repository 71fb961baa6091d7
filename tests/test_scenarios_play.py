"""Scenario tests of the hand engine (docs/rules.md §2, §4, §5, §6), played from explicit deals.

Each scenario is a deal (three hands of 20 cards, the 亮张 and the top of the wall;
the cards not named follow in card order) and a list of decisions, replayed by
``scenario.play``; the expected outcomes are worked out by hand from docs/rules.md.
Seat 0 deals (21 cards with the 亮张) and discards first; seat 1 is his 下家,
seat 2 his 上家.
"""

from __future__ import annotations

from typing import Any

import pytest
from notation import C, H
from scenario import kinds, play

from paohuzi.core.chi import chi_options
from paohuzi.core.solver import solve
from paohuzi.game.actions import Action, Chi, Discard, Hu, Pass, Peng
from paohuzi.game.engine import Hand, IllegalActionError
from paohuzi.game.view import seat_view


def lines(hand: Hand) -> list[str]:
    """The events as text (``seat 1 pao 五五五五``)."""
    return [str(e) for e in hand.events]


def after(hand: Hand, line: str) -> list[str]:
    """The event lines that follow the last occurrence of ``line``."""
    all_lines = lines(hand)
    assert line in all_lines, all_lines
    index = len(all_lines) - 1 - all_lines[::-1].index(line)
    return all_lines[index + 1:]


def texts(actions: list[Action]) -> list[str]:
    return [a.text for a in actions]


def chis(actions: list[Action]) -> set[Action]:
    return {a for a in actions if isinstance(a, Chi)}


# ---------------------------------------------------------------------------------------
# §2 / §4.1 / §4.2: 跑 (pao) from a hand 坎, and from a table 碰


# Seat 2 holds 坎 五五五 and 坎 六六六; seat 0 holds the fourth 五, the wall the fourth 六.
# Seat 1 (the dealer's 下家) holds 三四 and 七八: he could eat 五 or 六 if no 跑 took it.
KAN_DEAL: dict[str, Any] = {
    "hands": ["五 二 三 九 九 壹 壹 叁 叁 伍 伍 柒 柒 玖 玖 十 拾 捌 四 七",
              "一 一 二 三 四 七 八 九 十 壹 贰 叁 肆 伍 陆 柒 捌 玖 拾 八",
              "五五五 六六六 一 四 八 十 贰 贰 肆 陆 捌 拾 拾 贰 七 壹"],
    "liangzhang": "一",
    "wall": "六",
}


def test_s4_1_pao_from_a_hand_kan_on_a_discard():
    """§4.1.2: the dealer discards 五; seat 2's hand 坎 五五五 must 跑 — no decision asked.

    The 跑 comes before the 下家's 吃 (seat 1 holds 三四), and after a first 跑 the
    owner discards (§4.4: 21 cards > 20)."""
    hand = play(KAN_DEAL, [(0, "discard 五")])
    assert after(hand, "seat 0 discard 五") == ["seat 2 pao 五五五五"]
    assert kinds(hand, 2) == [("pao", "五五五五")]
    assert hand.seats[2].hand[C("五")] == 0
    assert hand.seats[2].owned == 21
    assert hand.pending_seats() == [2]
    assert all(isinstance(a, Discard) for a in hand.legal_actions(2))
    assert hand.legal_actions(1) == []
    # Everyone sees the 跑 face up on seat 2's table (胡息 6, small 跑).
    for viewer in (0, 1, 2, None):
        assert seat_view(hand, viewer)["seats"][2]["melds"] == [
            {"kind": "pao", "cards": "五五五五", "huxi": 6}]


def test_s4_2_pao_from_a_hand_kan_on_another_players_draw():
    """§4.2.2.2: seat 1 draws 六 (shown); seat 2's hand 坎 六六六 must 跑, before the
    drawer's own 吃 (seat 1 holds 七八)."""
    hand = play(KAN_DEAL, [(0, "discard 叁"), (1, "pass")])
    assert after(hand, "seat 1 draw 六") == ["seat 1 show 六", "seat 2 pao 六六六六"]
    assert kinds(hand, 2) == [("pao", "六六六六")]
    assert hand.pending_seats() == [2]
    assert hand.phase.value == "discard"
    assert seat_view(hand, 0)["seats"][2]["melds"] == [
        {"kind": "pao", "cards": "六六六六", "huxi": 6}]


# Seat 1 holds the pair 捌捌 and 碰s the dealer's 捌. The fourth 捌 is either in seat 2's
# hand (he takes seat 1's discard 拾 by 吃 十拾拾 and then discards 捌) or in the wall.
_PENG_H0 = "捌 二 三 九 九 壹 壹 叁 叁 伍 伍 柒 柒 玖 五 十 拾 六 四 七"
_PENG_H1 = "捌 捌 一 一 二 三 四 七 八 九 十 壹 贰 叁 肆 伍 陆 柒 玖 拾"
_PENG_H2 = "五五 六六 一 四 八 十 贰 拾 七 壹 八 九 三 二 陆 肆"
_PENG_START = [(0, "discard 捌"), (1, "peng"), (1, "discard 拾")]


def peng_deal(last_of_seat_2: str, wall: str = "") -> dict[str, Any]:
    return {"hands": [_PENG_H0, _PENG_H1, f"{_PENG_H2} 陆 {last_of_seat_2}"],
            "liangzhang": "一", "wall": wall}


def test_s4_1_table_peng_does_not_pao_on_a_discard():
    """§2 跑 (b): a discard never turns a 碰 into a 跑 — the fourth 捌, discarded by
    seat 2, goes on normally (to seat 2's pile; seat 0 may not eat his own discard 捌)."""
    hand = play(peng_deal("捌"), [*_PENG_START, (2, "chi 十拾拾"), (2, "discard 捌")])
    assert kinds(hand, 1) == [("peng", "捌捌捌")]
    assert after(hand, "seat 2 discard 捌")[0] == "seat 2 to_pile 捌"
    assert not any(e.kind == "pao" for e in hand.events)
    assert hand.seats[2].pile == [C("捌")]
    assert hand.seats[1].owned == 20


def test_s4_2_table_peng_paos_on_another_players_draw():
    """§4.2.2.2: seat 2 draws the fourth 捌 (shown): seat 1's table 碰 must become a 跑;
    a first 跑 makes its owner discard (§4.4)."""
    hand = play(peng_deal("柒", wall="捌"), [*_PENG_START, (2, "pass")])
    assert after(hand, "seat 2 draw 捌") == ["seat 2 show 捌", "seat 1 pao 捌捌捌捌"]
    assert kinds(hand, 1) == [("pao", "捌捌捌捌")]
    assert hand.seats[1].table_huxi == 9
    assert hand.pending_seats() == [1]
    assert hand.phase.value == "discard"


def test_s4_2_table_peng_paos_on_its_owners_own_draw():
    """§2 跑 (b) "anyone (you included) draws the 4th": seat 1 draws the fourth 捌 onto his
    own table 碰 — a 跑 (shown, all four up), not a 提."""
    hand = play(peng_deal("柒", wall="肆 八 捌"),
                [*_PENG_START, (2, "pass"), (2, "pass"), (0, "pass"), (0, "pass"),
                 (2, "pass")])
    assert after(hand, "seat 1 draw 捌") == ["seat 1 show 捌", "seat 1 pao 捌捌捌捌"]
    assert kinds(hand, 1) == [("pao", "捌捌捌捌")]
    assert seat_view(hand, 0)["seats"][1]["melds"] == [
        {"kind": "pao", "cards": "捌捌捌捌", "huxi": 9}]
    assert hand.pending_seats() == [1]


# ---------------------------------------------------------------------------------------
# §4.2.1 偎 (hidden) and 臭偎; §4.5 臭 (the RULES example 一 二 二 三 贰)


# Seat 1 holds 一 二 二 三 贰 (the §4.5 example) and the pairs 柒柒, 七八 (for 七八九);
# seat 2 holds the pair 九九; the dealer holds 二 三 四 and 九.
_CHOU_HANDS = ["二 三 四 九 五 六 十 壹 壹 叁 伍 伍 陆 捌 捌 玖 拾 拾 六 五",
               "一 二 二 三 贰 七 八 柒 柒 肆 肆 伍 陆 玖 拾 六 伍 陆 捌 壹",
               "九 九 一 一 三 四 五 七 八 十 贰 贰 叁 叁 肆 陆 柒 捌 玖 玖"]


def chou_deal(wall: str) -> dict[str, Any]:
    return {"hands": _CHOU_HANDS, "liangzhang": "八", "wall": wall}


def test_s4_2_1_wei_is_forced_and_hidden_from_the_others():
    """Seat 1 draws 柒 onto his hand pair 柒柒: a forced 偎, face down for the others,
    shown to its owner; the draw itself is private."""
    hand = play(chou_deal("柒"), [(0, "discard 九"), (1, "pass"), (2, "pass")])
    assert after(hand, "seat 1 draw 柒") == ["seat 1 wei 柒柒柒"]
    assert kinds(hand, 1) == [("wei", "柒柒柒")]
    assert hand.pending_seats() == [1]  # he discards after the 偎 (§4.4)
    assert hand.seats[1].table_huxi == 6
    own = seat_view(hand, 1)
    assert own["seats"][1]["melds"] == [{"kind": "wei", "cards": "柒柒柒", "huxi": 6}]
    assert own["seats"][1]["table_huxi"] == 6
    for viewer in (0, 2, None):
        view = seat_view(hand, viewer)
        assert view["seats"][1]["melds"] == [{"kind": "wei", "hidden": 3}]
        assert "柒" not in str(view["seats"][1])
        assert view["seats"][1]["table_huxi"] == 0
        draw = [e for e in view["events"] if e["kind"] == "draw"]
        assert draw == [{"kind": "draw", "seat": 1, "hidden": 1}]
        wei = [e for e in view["events"] if e["kind"] == "wei"]
        assert wei == [{"kind": "wei", "seat": 1, "hidden": 3}]
    draw = [e for e in own["events"] if e["kind"] == "draw"]
    assert draw == [{"kind": "draw", "seat": 1, "cards": "柒"}]


def test_s4_2_1_chouwei_after_a_declined_peng_is_visible():
    """Seat 2 declines the 碰 of the dealer's 九, then draws the last 九: a 臭偎, shown to
    the others with its card."""
    hand = play(chou_deal("十 九"), [(0, "discard 九"), (1, "pass"), (2, "pass"), (1, "pass")])
    assert C("九") in hand.seats[2].declined_peng
    assert after(hand, "seat 2 draw 九") == ["seat 2 chouwei 九九九"]
    assert kinds(hand, 2) == [("chouwei", "九九九")]
    assert hand.pending_seats() == [2]
    for viewer in (0, 1, 2, None):
        view = seat_view(hand, viewer)
        assert view["seats"][2]["melds"] == [{"kind": "chouwei", "cards": "九九九", "huxi": 3}]
        chouwei = [e for e in view["events"] if e["kind"] == "chouwei"]
        assert chouwei == [{"kind": "chouwei", "seat": 2, "cards": "九九九"}]


def test_s4_5_rules_example_passed_card_cannot_be_eaten_or_penged_later():
    """§4.5 example: seat 1 holds 一 二 二 三 贰, the 上家 discards 二 and he passes; when
    the dealer later draws the last 二, neither seat 1 (passed: 碰 and 吃 possible
    otherwise) nor the dealer (his own discard; he holds 三四) may take it."""
    hand = play(chou_deal("十 拾 二"), [(0, "discard 二")])
    assert Peng() in hand.legal_actions(1)
    assert chis(hand.legal_actions(1))
    hand = play(chou_deal("十 拾 二"), [(0, "discard 二"), (1, "pass"), (1, "pass"),
                                       (2, "pass"), (0, "pass")])
    assert C("二") in hand.seats[1].chou
    assert C("二") in hand.seats[0].chou
    assert "二" in seat_view(hand, 1)["chou"]
    # Without 臭 both could act on this 二: seat 1 holds the pair and 一三, seat 0 三四.
    assert hand.seats[1].hand[C("二")] == 2
    assert chi_options(hand.seats[1].hand_cards, C("二"))
    assert chi_options(hand.seats[0].hand_cards, C("二"))
    assert after(hand, "seat 0 draw 二")[:2] == ["seat 0 show 二", "seat 0 to_pile 二"]
    assert hand.seats[0].pile[-1] == C("二")


def test_s4_5_rules_example_passed_card_drawn_is_chouwei():
    """§4.5 example, second half: having passed on the 二, seat 1 draws 二: he must 臭偎."""
    hand = play(chou_deal("二"), [(0, "discard 二"), (1, "pass")])
    assert after(hand, "seat 1 draw 二") == ["seat 1 chouwei 二二二"]
    assert kinds(hand, 1) == [("chouwei", "二二二")]
    assert hand.pending_seats() == [1]


def test_s4_5_passing_on_chi_or_peng_makes_the_card_chou():
    """§4.5 (b): passing with a 吃 option (seat 1) or a 碰 option (seat 2) makes 九 臭."""
    hand = play(chou_deal(""), [(0, "discard 九")])
    assert chis(hand.legal_actions(1)) and Peng() in hand.legal_actions(2)
    hand = play(chou_deal(""), [(0, "discard 九"), (1, "pass"), (2, "pass")])
    assert C("九") in hand.seats[1].chou
    assert C("九") in hand.seats[2].chou
    assert C("九") in hand.seats[0].chou  # (a): his own discard


def test_s4_5_chi_pre_empted_by_peng_is_not_chou():
    """§4.5: seat 1 chose 吃 七八九 but seat 2's 碰 took the 九 first: 九 is not 臭 for
    seat 1 (and seat 2, who took it, is not marked either)."""
    hand = play(chou_deal(""), [(0, "discard 九"), (1, "chi 七八九"), (2, "peng")])
    assert kinds(hand, 2) == [("peng", "九九九")]
    assert kinds(hand, 1) == []
    assert C("九") not in hand.seats[1].chou
    assert "九" not in seat_view(hand, 1)["chou"]
    assert C("九") not in hand.seats[2].chou


# ---------------------------------------------------------------------------------------
# §4.3 吃 and 比


# Seat 1 holds 一 二 二 三 三 四 贰 贰 (the second worked example) and nothing else that
# makes a group with 二 or 四; the dealer holds 二 and 四 to discard.
BI_DEAL: dict[str, Any] = {
    "hands": ["二 四 五 五 六 六 七 七 十 十 壹 壹 叁 叁 伍 伍 肆 肆 一 九",
              "一 二 二 三 三 四 贰 贰 八 八 九 捌 捌 玖 玖 拾 拾 柒 陆 陆",
              "一 一 三 四 五 六 七 八 九 十 壹 贰 叁 肆 伍 陆 柒 柒 捌 拾"],
    "liangzhang": "玖",
}


def test_s4_3_forced_bi():
    """Eating 四 (only 二三四 is possible) leaves the hand's own 四: it must go down too,
    and 二三四 is the only way — the one 吃 offered carries that 比."""
    hand = play(BI_DEAL, [(0, "discard 四")])
    options = chis(hand.legal_actions(1))
    assert options == {Action.from_text("chi 二三四 比二三四")}
    for chi in options:
        assert [g.text for g in chi.bi] == ["二三四"]


def test_s4_3_second_worked_example_every_bi_combination_is_an_action():
    """§4.3 second example: eat 小2 with 一 二二 三三 四 贰贰 in hand; both hand 二 must be
    laid; each completion is its own action (worked out by hand: 7)."""
    hand = play(BI_DEAL, [(0, "discard 二")])
    expected = {Action.from_text(t) for t in (
        "chi 二贰贰 比一二三 比二三四",   # the RULES example with 大2 大2
        "chi 一二三 比二二贰",            # with 小1 小3, then 二二贰 (done)
        "chi 一二三 比二贰贰 比二三四",   # ... or 二贰贰 and 二三四
        "chi 二三四 比二二贰",
        "chi 二三四 比一二三 比二贰贰",
        "chi 二二贰 比一二三",
        "chi 二二贰 比二三四",
    )}
    assert chis(hand.legal_actions(1)) == expected
    assert Peng() in hand.legal_actions(1) and Pass() in hand.legal_actions(1)
    # Something that leaves a 二 in hand is refused.
    with pytest.raises(IllegalActionError):
        hand.verify(1, Action.from_text("chi 一二三"))


def test_s4_3_applying_a_chi_lays_every_bi_group():
    hand = play(BI_DEAL, [(0, "discard 四"), (1, "chi 二三四 比二三四")])
    assert kinds(hand, 1) == [("sentence", "二三四"), ("sentence", "二三四")]
    st = hand.seats[1]
    assert [st.hand[C(c)] for c in "二三四"] == [0, 0, 0]
    assert st.owned == 21 and hand.pending_seats() == [1]
    assert after(hand, "seat 0 discard 四") == ["seat 1 chi 二三四二三四 (chi 二三四 比二三四)"]

    hand = play(BI_DEAL, [(0, "discard 二"), (1, "chi 一二三 比二贰贰 比二三四")])
    assert kinds(hand, 1) == [("sentence", "一二三"), ("sentence", "二三四"),
                              ("jiao", "二贰贰")]
    st = hand.seats[1]
    assert [st.hand[C(c)] for c in ("一", "二", "三", "四", "贰")] == [0, 0, 0, 0, 0]
    assert st.owned == 21 and hand.pending_seats() == [1]


# The first worked example: seat 1 holds 一 二 三 and no 壹, no other 一/二/三.
REFUSED_DEAL: dict[str, Any] = {
    "hands": ["一 二 二 三 四 四 六 七 八 九 十 壹 壹 贰 贰 叁 叁 伍 陆 柒",
              "一 二 三 五 五 六 七 八 九 十 肆 肆 伍 陆 柒 捌 捌 玖 拾 拾",
              "一 二 三 四 五 六 七 八 九 十 壹 壹 贰 贰 叁 叁 伍 陆 柒 捌"],
    "liangzhang": "玖",
}


def test_s4_3_first_worked_example_chi_refused_when_bi_impossible():
    """§4.3 first example: hand 二 三 一, the 上家 discards 一; eating with 二三 would leave
    the hand's 一, which no 一一壹 / 一壹壹 / 一二三 can carry: no 吃 is offered (nobody
    else has an option, so the 一 goes straight to the pile). The same holds for the 一
    seat 1 then draws himself."""
    hand = play(REFUSED_DEAL, [])
    assert texts(hand.legal_actions(0))  # the dealer discards
    hand = play(REFUSED_DEAL, [(0, "discard 一")])
    assert after(hand, "seat 0 discard 一")[0] == "seat 0 to_pile 一"
    assert after(hand, "seat 1 draw 一")[0] == "seat 1 show 一"
    assert 1 not in hand.pending_seats()
    assert hand.legal_actions(1) == []
    with pytest.raises(IllegalActionError):
        hand.verify(1, Action.from_text("chi 一二三"))


# ---------------------------------------------------------------------------------------
# §4.2.2 破跑胡 and §4.2.1 破跑不破提


# Seat 2: 坎 伍伍伍, 肆 陆 waiting, 壹贰叁 贰柒拾 四五六 九玖玖 八八捌. On another's 伍
# it wins as 伍伍伍 + 肆伍陆 (18 胡息); as a 跑 (伍伍伍伍) it cannot (肆 陆 are no pair).
_WIN_H0 = "一 一 二 二 三 三 四 五 六 七 七 九 十 十 壹 叁 陆 柒 捌 拾"
_WIN_H1 = "一 二 三 四 六 七 八 九 十 壹 壹 贰 叁 叁 肆 陆 柒 捌 玖 拾"
_WIN_H2 = "伍伍伍 肆 陆 壹贰叁 贰柒拾 四五六 九玖玖 八八捌"


def kan_win_deal(wall: str, h1: str = _WIN_H1, h2: str = _WIN_H2) -> dict[str, Any]:
    return {"hands": [_WIN_H0, h1, h2], "liangzhang": "玖", "wall": wall}


def test_s4_2_2_po_pao_hu_win_offered_over_the_forced_pao():
    """Seat 1 draws the fourth 伍: seat 2 (hand 坎 伍伍伍) may win using it in 肆伍陆."""
    hand = play(kan_win_deal("伍"), [(0, "discard 七"), (1, "pass")])
    assert after(hand, "seat 1 draw 伍") == ["seat 1 show 伍"]
    assert hand.pending_seats() == [2]
    assert set(hand.legal_actions(2)) == {Hu(), Pass()}
    hand = play(kan_win_deal("伍"), [(0, "discard 七"), (1, "pass"), (2, "hu")])
    result = hand.result
    assert result is not None and result.reason == "hu"
    assert result.winner == 2 and result.source == "other"
    assert result.card == C("伍")
    arrangement = result.arrangement
    assert arrangement is not None
    groups = sorted((g.kind.value, g.text) for g in arrangement.groups)
    assert ("kan", "伍伍伍") in groups and ("sentence", "肆伍陆") in groups
    assert all(kind != "pao" for kind, _ in groups)
    assert arrangement.huxi == 18
    assert result.settlement is not None and not result.settlement.zimo
    assert not any(e.kind == "pao" for e in hand.events)


def test_s4_2_2_po_pao_hu_passed_then_the_pao_is_forced():
    hand = play(kan_win_deal("伍"), [(0, "discard 七"), (1, "pass"), (2, "pass")])
    assert hand.result is None
    assert after(hand, "seat 1 show 伍") == ["seat 2 pao 伍伍伍伍"]
    assert kinds(hand, 2) == [("pao", "伍伍伍伍")]
    assert hand.pending_seats() == [2]  # first 跑: he discards
    assert hand.seats[2].chouhu == {C("伍"): 0}  # §4.5 臭胡 recorded at 当前得息数 0


def test_s4_2_1_po_pao_bu_po_ti_no_win_by_breaking_the_ti():
    """Seat 2 draws the fourth 伍 himself: it is a 提. His hand would win with 伍 in
    肆伍陆 (see the test above), but not with the 提 (no pair for 肆 陆): no 胡 is
    offered, the 提 is laid and he discards."""
    hand = play(kan_win_deal("拾 伍"), [(0, "discard 七"), (1, "pass"), (1, "pass"),
                                       (2, "pass")])
    assert after(hand, "seat 2 draw 伍") == ["seat 2 ti 伍"]
    assert kinds(hand, 2) == [("ti", "伍伍伍伍")]
    assert hand.result is None
    assert hand.pending_seats() == [2]
    assert hand.phase.value == "discard"
    assert Hu() not in hand.legal_actions(2)
    assert hand.seats[2].chouhu == {}  # there was no win to pass
    # The hand as dealt wins on another's 伍 (in 肆伍陆), not on a 提 of it.
    with_x_elsewhere = solve(H(_WIN_H2), [], C("伍"), "other")
    assert with_x_elsewhere is not None and with_x_elsewhere.huxi == 18
    assert solve(H(_WIN_H2), [], C("伍"), "self") is None


def test_s4_2_1_ti_hu_when_the_ti_completes_the_hand():
    """The counterpart: with 肆肆 (a pair) instead of 肆 陆 the hand wins WITH the 提
    (提胡, 自摸): 提 伍 12 + 壹贰叁 6 + 贰柒拾 6 = 24 胡息."""
    h1 = _WIN_H1.replace("肆", "陆")
    h2 = _WIN_H2.replace("肆 陆", "肆 肆")
    hand = play(kan_win_deal("拾 伍", h1, h2), [(0, "discard 七"), (1, "pass"), (1, "pass"),
                                               (2, "pass")])
    assert after(hand, "seat 2 draw 伍") == ["seat 2 ti 伍"]
    assert hand.pending_seats() == [2]
    assert set(hand.legal_actions(2)) == {Hu(), Pass()}
    hand.act(2, Hu())
    result = hand.result
    assert result is not None and result.winner == 2 and result.source == "self"
    assert result.arrangement is not None and result.arrangement.huxi == 24
    assert ("ti", "伍伍伍伍") in [(g.kind.value, g.text) for g in result.arrangement.groups]
    assert result.settlement is not None and result.settlement.zimo


# ---------------------------------------------------------------------------------------
# §4.5 臭胡


# Seat 2: 壹贰叁 贰柒拾 坎玖玖玖 三四五 六六陆 八捌捌 一二 — wins on 三 (一二三), 21 胡息.
# The wall: 三 (seat 1), 十 (seat 2), 三 (seat 0), 拾 (seat 1), 六 (seat 2: 偎 六六六,
# his table 胡息 goes 0 → 3; he discards 陆), 三 (seat 0).
CHOUHU_DEAL: dict[str, Any] = {
    "hands": ["一 一 二 四 五 七 七 八 九 九 十 壹 贰 叁 肆 肆 伍 伍 陆 柒",
              "一 二 二 四 四 五 七 八 八 九 九 十 壹 壹 叁 肆 伍 陆 柒 捌",
              "壹贰叁 贰柒拾 玖玖玖 三四五 六六陆 八捌捌 一二"],
    "liangzhang": "肆",
    "wall": "三 十 三 拾 六 三",
}
_CHOUHU_FIRST = [(0, "discard 十"), (1, "pass")]
_CHOUHU_PASS = [*_CHOUHU_FIRST, (2, "pass")]
_CHOUHU_WEI = [*_CHOUHU_PASS, (1, "pass"), (0, "pass")]


def test_s4_5_chouhu_no_second_win_on_the_same_card_while_huxi_unchanged():
    hand = play(CHOUHU_DEAL, _CHOUHU_FIRST)
    assert Hu() in hand.legal_actions(2)  # first 三, drawn by seat 1
    hand = play(CHOUHU_DEAL, [*_CHOUHU_PASS, (1, "pass")])
    assert hand.seats[2].chouhu == {C("三"): 0}
    assert hand.seats[2].table_huxi == 0
    # Second 三, drawn by the dealer: seat 2's hand still wins on it, but 臭胡 bars it.
    assert lines(hand)[-2:] == ["seat 0 draw 三", "seat 0 show 三"]
    assert 2 not in hand.pending_seats()
    assert hand.legal_actions(2) == []
    # ... though his hand would still win on this 三 (21 胡息).
    st = hand.seats[2]
    again = solve(st.hand_cards, st.melds, C("三"), "other")
    assert again is not None and again.huxi == 21


def test_s4_5_chouhu_lifted_after_the_table_huxi_changes():
    hand = play(CHOUHU_DEAL, _CHOUHU_WEI)
    assert after(hand, "seat 2 draw 六") == ["seat 2 wei 六六六"]
    assert hand.seats[2].table_huxi == 3
    hand = play(CHOUHU_DEAL, [*_CHOUHU_WEI, (2, "discard 陆")])
    assert lines(hand)[-2:] == ["seat 0 draw 三", "seat 0 show 三"]  # the third 三
    assert set(hand.legal_actions(2)) == {Hu(), Pass()}
    hand.act(2, Hu())
    result = hand.result
    assert result is not None and result.winner == 2 and result.card == C("三")
    assert result.arrangement is not None
    assert ("wei", "六六六") in [(g.kind.value, g.text) for g in result.arrangement.groups]
    assert result.arrangement.huxi == 24  # 21 in hand + the 偎's 3


# ---------------------------------------------------------------------------------------
# §6.2 several seats able to win the same drawn card


# Each seat wins on 五 with exactly 15 胡息: seat 1 (the drawer) with 四六, seat 2 (his
# 下家) with 三四, seat 0 (his 上家) with 六七. The dealer discards the 亮张 伍.
MULTI_WIN_DEAL: dict[str, Any] = {
    "hands": ["壹贰叁 陆陆陆 二七十 六七 九九玖 八八捌 拾拾十",
              "壹贰叁 玖玖玖 一二三 四六 七八九 肆肆四 拾拾十",
              "壹贰叁 捌捌捌 一二三 三四 八九十 柒柒七 肆伍陆"],
    "liangzhang": "伍",
    "wall": "五",
}
_MULTI_START = [(0, "discard 伍"), (1, "pass")]


def test_s6_2_all_three_may_win_the_drawn_card():
    hand = play(MULTI_WIN_DEAL, _MULTI_START)
    assert lines(hand)[-2:] == ["seat 1 draw 五", "seat 1 show 五"]
    assert hand.pending_seats() == [1, 2, 0]
    for seat in (0, 1, 2):
        assert Hu() in hand.legal_actions(seat)


@pytest.mark.parametrize(("answers", "winner"), [
    # every seat chooses hu, in any order: the drawer wins (自摸)
    ([(0, "hu"), (2, "hu"), (1, "hu")], 1),
    ([(1, "hu"), (2, "hu"), (0, "hu")], 1),
    ([(1, "hu"), (2, "pass"), (0, "pass")], 1),
    # the drawer passes: his 下家 (seat 2) before his 上家 (seat 0)
    ([(0, "hu"), (2, "hu"), (1, "pass")], 2),
    ([(1, "pass"), (2, "hu"), (0, "hu")], 2),
    ([(1, "pass"), (2, "hu"), (0, "pass")], 2),
    # only the 上家 chooses hu
    ([(0, "hu"), (1, "pass"), (2, "pass")], 0),
])
def test_s6_2_priority_drawer_then_xiajia_then_shangjia(answers, winner):
    hand = play(MULTI_WIN_DEAL, [*_MULTI_START, *answers])
    result = hand.result
    assert result is not None and result.reason == "hu"
    assert result.winner == winner
    assert result.card == C("五")
    assert result.source == ("self" if winner == 1 else "other")
    assert result.settlement is not None and result.settlement.zimo == (winner == 1)
    assert result.arrangement is not None and result.arrangement.huxi == 15
    assert [e.seat for e in hand.events if e.kind == "hu"] == [winner]


def test_s6_2_nobody_wins_when_all_pass():
    hand = play(MULTI_WIN_DEAL, [*_MULTI_START, (2, "pass"), (0, "pass"), (1, "pass")])
    assert hand.result is None
    assert {s: hand.seats[s].chouhu for s in range(3)} == {
        0: {C("五"): 0}, 1: {C("五"): 0}, 2: {C("五"): 0}}


# ---------------------------------------------------------------------------------------
# §4.5 [decision] simultaneous decisions


@pytest.mark.parametrize("answers", [
    [(1, "chi 七八九"), (2, "peng")],
    [(2, "peng"), (1, "chi 七八九")],
])
def test_s4_5_simultaneous_peng_beats_chi_in_either_answer_order(answers):
    """The dealer's 九: seat 1 (his 下家) may 吃, seat 2 may 碰. Whoever answers first,
    the 碰 happens, nothing is revealed before both answered, and seat 1 is not 臭."""
    hand = play(chou_deal(""), [(0, "discard 九")])
    assert hand.pending_seats() == [1, 2]
    first, second = answers
    assert hand.act(first[0], Action.from_text(first[1])) == []  # secret until all answered
    assert hand.pending_seats() == [second[0]]
    assert not any(e.kind in ("chi", "peng") for e in hand.events)
    hand.act(second[0], Action.from_text(second[1]))
    assert kinds(hand, 2) == [("peng", "九九九")]
    assert kinds(hand, 1) == []
    assert C("九") not in hand.seats[1].chou
    assert hand.pending_seats() == [2]

    reference = play(chou_deal(""), [(0, "discard 九"), (1, "chi 七八九"), (2, "peng")])
    other = play(chou_deal(""), [(0, "discard 九"), (2, "peng"), (1, "chi 七八九")])
    assert hand.state_key() == reference.state_key() == other.state_key()
    assert lines(hand) == lines(reference) == lines(other)


def test_s4_5_simultaneous_chi_happens_when_the_peng_is_passed():
    for answers in ([(1, "chi 七八九"), (2, "pass")], [(2, "pass"), (1, "chi 七八九")]):
        hand = play(chou_deal(""), [(0, "discard 九"), *answers])
        assert kinds(hand, 1) == [("sentence", "七八九")]
        assert C("九") in hand.seats[2].chou and C("九") in hand.seats[2].declined_peng


# ---------------------------------------------------------------------------------------
# Illegal actions are refused and change nothing


def refused(hand: Hand, seat: int, text: str, *words: str) -> None:
    before = hand.state_key()
    n_events, n_actions = len(hand.events), len(hand.actions)
    with pytest.raises(IllegalActionError) as info:
        hand.act(seat, Action.from_text(text))
    message = str(info.value)
    for word in words:
        assert word in message, message
    assert hand.state_key() == before
    assert len(hand.events) == n_events and len(hand.actions) == n_actions
    assert not hand.can(seat, Action.from_text(text))


def test_s4_illegal_out_of_turn_discard():
    hand = play(MULTI_WIN_DEAL, [])
    assert hand.pending_seats() == [0]
    refused(hand, 1, "discard 一", "seat 1", "seat 0 discards")
    refused(hand, 2, "peng", "seat 2")
    refused(hand, 0, "pass", "must discard")


def test_s4_1_illegal_discard_of_a_kan_card():
    hand = play(MULTI_WIN_DEAL, [])
    assert hand.seats[0].hand[C("陆")] == 3
    assert Discard(C("陆")) not in hand.legal_actions(0)
    refused(hand, 0, "discard 陆", "陆", "坎")
    refused(hand, 0, "discard 五", "五")  # a card he does not hold


def test_s4_3_illegal_chi_plan_not_offered():
    hand = play(MULTI_WIN_DEAL, _MULTI_START)
    assert chis(hand.legal_actions(2)) == {Action.from_text("chi 三四五")}
    refused(hand, 2, "chi 四五六", "seat 2", "chi 四五六", "allowed")
    refused(hand, 0, "chi 五六七", "seat 0", "allowed")  # the 上家 may not eat at all
    refused(hand, 0, "peng", "seat 0")
    hand = play(BI_DEAL, [(0, "discard 二")])
    refused(hand, 1, "chi 二三四 比二三四", "seat 1", "allowed")  # leaves a 二 behind
    refused(hand, 1, "chi 二三四", "seat 1", "allowed")


def test_s4_5_illegal_answering_twice():
    hand = play(MULTI_WIN_DEAL, [*_MULTI_START, (2, "hu")])
    assert hand.pending_seats() == [1, 0]
    refused(hand, 2, "pass", "seat 2", "already answered")
    refused(hand, 2, "hu", "seat 2", "already answered")
    hand = play(chou_deal(""), [(0, "discard 九"), (1, "pass")])
    refused(hand, 1, "chi 七八九", "seat 1", "already answered")
    refused(hand, 0, "pass", "seat 0")  # the discarder has no decision on his own card


def test_s4_6_illegal_action_after_the_end():
    hand = play(MULTI_WIN_DEAL, [*_MULTI_START, (1, "hu"), (2, "hu"), (0, "hu")])
    assert hand.ended
    refused(hand, 2, "pass", "ended")


def test_s3_2_scenario_deals_hold_20_cards_per_hand():
    """The deals above hold exactly 20 cards per hand (play validates the rest)."""
    for deal in (KAN_DEAL, BI_DEAL, REFUSED_DEAL, CHOUHU_DEAL, MULTI_WIN_DEAL,
                 peng_deal("捌"), chou_deal(""), kan_win_deal("伍")):
        assert [len(H(h)) for h in deal["hands"]] == [20, 20, 20]
