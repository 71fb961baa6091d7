"""Scenario tests of the ``luzhou`` preset (泸州 大贰, docs/rules.md §9.1; seeds 003 and 004).

Each hand is an explicit deal (so also a replayable game record, docs/records.md,
through ``scenario.play``); the expected values are worked out by hand from
§9.1 in the comments. One test (or a few) per rule of §9.1.
"""

from __future__ import annotations

import random

import pytest
from harness import HarnessStats, play_checked
from scenario import event_kinds, play, record
from test_scenarios_deal import _inject

from paohuzi.apps.evaluate import evaluate
from paohuzi.core.cards import COPIES, KINDS, Card, counts_of, parse_cards
from paohuzi.core.errors import RulesetError
from paohuzi.core.groups import LUZHOU_HUXI, QQ_HUXI, Group, GroupKind
from paohuzi.core.kinds import ClaimContext, EventKind, Source
from paohuzi.core.rules import Ruleset
from paohuzi.core.solver import best_partial_huxi, can_hu, solve, waits
from paohuzi.game.actions import Discard, Hu
from paohuzi.game.engine import Hand, PositionError, SeatState
from paohuzi.game.match import Match
from paohuzi.game.record import RecordError, record_of, replay
from paohuzi.game.view import observe, seat_view

C = Card.parse
LUZHOU = Ruleset.preset("luzhou")

# Seat hands used below. WIN: 二七十 ×2 (6 + 6 胡息 in luzhou), 四五六 ×2, 伍陆柒, 叁肆伍 and the
# pair 九九: another's 九 makes a 碰 (1): 13 胡息 — a win at luzhou's 10, not at qq's 15.
WIN = "二七十 二七十 四五六 四五六 伍陆柒 叁肆伍 九九"
DEALER = "一一三三八八九 壹壹贰贰叁肆伍陆 捌捌玖玖拾"
OTHER = "一一三三四五六七十二 壹壹贰贰叁肆陆柒柒拾"
# The cards no hand names follow in card order, so the wall ends 玖拾拾: two red 拾 at
# the bottom, then the black 玖.
DEAL_DIHU = {"hands": [DEALER, WIN, OTHER], "liangzhang": "二"}
DEAL_DISCARD_WIN = {"hands": [DEALER, OTHER, WIN], "liangzhang": "二"}
DEAL_TIANHU21 = {"hands": [WIN, DEALER, OTHER], "liangzhang": "九"}


# ---- presets and options ----------------------------------------------------------


def test_s9_1_preset_options_and_seat_forms() -> None:
    rules = Ruleset.preset("luzhou")
    assert (rules.seats, rules.players, rules.xingjia, rules.xingjia_paid) == (4, 3, True, False)
    assert (rules.min_huxi, rules.settlement, rules.huxi_table) == (10, "luzhou", "luzhou")
    assert not rules.liangzhang_shown and rules.dipai_shown and rules.win_on_discard
    assert rules.luzhou_mode == "hongwu"
    three = Ruleset.preset("luzhou", players=3)
    two = Ruleset.preset("luzhou", players=2)
    assert (three.seats, three.xingjia, three.wall_size) == (3, False, 19)
    assert (two.seats, two.xingjia, two.wall_size) == (2, False, 39)
    assert Ruleset.preset("luzhou", players=3, xingjia=True).seats == 4
    assert Ruleset.from_json({"preset": "luzhou", "players": 2}).seats == 2
    assert Ruleset.from_dict(rules.to_dict()) == rules
    with pytest.raises(RulesetError, match="luzhou_mode must be one of deng, hongwu"):
        Ruleset.preset("luzhou", luzhou_mode="kaikai")  # the third mode has no table
    with pytest.raises(RulesetError, match=r"min_huxi must be an integer 10\.\.30"):
        Ruleset.preset("luzhou", min_huxi=9)


# ---- 坐底: the seat opposite the dealer sits out, paid nothing ----------------------


def test_s9_1_zuodi_sits_out_is_paid_nothing_and_rotates_with_the_deal() -> None:
    m = Match(LUZHOU, seed=5, first_dealer=1)
    assert m.xingjia == 3 and m.playing_seats() == (1, 2, 0)  # opposite the dealer
    hand = _inject(m, DEAL_DIHU)
    hand.act(0, Discard(C("九")))
    hand.act(1, Hu())  # 地胡
    summary = m.finish_hand()
    # hand seat 1 is match seat 2: 等 1 × 番 (地胡 2) × base 3 = 6 from each loser; the
    # 坐底 (match seat 3) neither pays nor is paid.
    assert summary.points == (-6, -6, 12, 0)
    assert m.points == [-6, -6, 12, 0]
    assert m.dealer == 2 and m.xingjia == 0  # the winner deals; 坐底 moves with him
    assert m.playing_seats() == (2, 3, 1)


def test_s9_1_zuodi_pays_nothing_on_a_drawn_hand() -> None:
    m = Match(LUZHOU, seed=11, first_dealer=0)
    for _ in range(3):
        hand = m.start_hand()
        while not hand.ended:
            seat = hand.pending_seats()[0]
            hand.act(seat, hand.legal_actions(seat)[-1])  # pass / the last discard
        summary = m.finish_hand()
        assert summary.result.reason == "huangzhuang"
        assert summary.xingjia is not None and summary.points == (0, 0, 0, 0)
        assert sum(summary.points) == 0
    assert len(m.history) == 3


# ---- the dealer's 21st card is not shown ---------------------------------------------


def test_s9_1_dealers_21st_card_is_hidden_and_nobody_wins_it() -> None:
    hand = play(DEAL_DIHU, [], rules="luzhou")
    assert EventKind.LIANGZHANG not in event_kinds(hand)
    deal_events = [e for e in hand.events if e.kind is EventKind.DEAL]
    assert len(deal_events[0].cards) == 21 and C("二") in deal_events[0].cards
    assert all(len(e.cards) == 20 for e in deal_events[1:])
    for seat in (1, 2, None):
        view = seat_view(hand, seat)
        assert view["liangzhang"] is None and "in_play" not in view
        (dealt,) = [e for e in view["events"] if e["kind"] == "deal" and e["seat"] == 0]
        assert "cards" not in dealt and dealt["hidden"] == 21
    assert sum(hand.seats[0].hand) == 21  # his own card, in his hand
    # In qq the same 亮张 is shown (and could be won by anyone it completes).
    qq = play(DEAL_DIHU, [], rules="qq")
    assert EventKind.LIANGZHANG in event_kinds(qq) and seat_view(qq, 1)["liangzhang"] == "二"


def test_s9_1_tianhu_when_the_dealers_21_cards_win() -> None:
    hand = play(DEAL_TIANHU21, [], rules="luzhou")
    # Only the dealer decides; the others see no claim and no card.
    assert hand.pending_seats() == [0]
    assert hand.claim is not None and hand.claim.context is ClaimContext.LIANGZHANG
    assert seat_view(hand, 1)["phase"] == "play" and "in_play" not in seat_view(hand, 1)
    hand = play(DEAL_TIANHU21, [(0, "hu")], rules="luzhou")
    r = hand.result
    assert r is not None and r.settlement is not None and r.winner == 0
    s = r.settlement
    # 九九 + his own 九 is a 坎 (6): 6 + 6 + 6 = 18 胡息; 等 1, 自摸 +1 = 2; 7 red: no 红胡;
    # 天胡 doubles the 番: 2 × 2 × 3 = 12 from each loser.
    assert (s.huxi, s.di, s.fan, s.tianhu, s.zimo) == (18, 2, 2, True, True)
    assert r.points == (24, -12, -12)
    # He may pass and play on: then he discards.
    hand = play(DEAL_TIANHU21, [(0, "pass")], rules="luzhou")
    assert hand.turn == 0 and hand.legal_actions(0)[0].text.startswith("discard")


# ---- 底牌: the wall's last card shown, red ones to the top, never won ----------------


def test_s9_1_dipai_red_goes_to_the_top_until_a_black_card_is_shown() -> None:
    hand = play(DEAL_DIHU, [], rules="luzhou")
    shown = [(e.cards[0].text, e.detail) for e in hand.events if e.kind is EventKind.DIPAI]
    assert shown == [("拾", "red: to the top"), ("拾", "red: to the top"), ("玖", "")]
    assert hand.dipai == C("玖") and hand.wall[-1] == C("玖")
    assert [c.text for c in hand.wall[:2]] == ["拾", "拾"]  # drawn first
    for seat in (0, 1, 2, None):  # every seat (and a spectator) sees it
        assert seat_view(hand, seat)["dipai"] == "玖"
        assert observe(hand, seat).dipai == C("玖")
    rec = record_of(hand)
    assert rec["dipai"] == "玖"
    assert replay(rec).dipai == C("玖")
    rec["dipai"] = "拾"
    with pytest.raises(RecordError, match="底牌"):
        replay(rec)
    assert "dipai" not in seat_view(play(DEAL_DIHU, [], rules="qq"), 1)


def _last_card_position(rules: Ruleset) -> Hand:
    """Seat 0 has drawn and shown the wall's last card, 九, which completes seat 1's WIN."""
    hands = [parse_cards("一一三三八八 壹壹贰贰叁肆伍陆 捌捌玖玖拾 二"), parse_cards(WIN),
             parse_cards(OTHER)]
    used = counts_of([c for h in hands for c in h] + [C("九")])
    pile = [Card(c) for c in range(KINDS) for _ in range(COPIES - used[c])]
    seats = [SeatState.restore(counts_of(hands[0]), pile=pile),
             SeatState.restore(counts_of(hands[1])), SeatState.restore(counts_of(hands[2]))]
    return Hand.resume(rules, dealer=0, liangzhang=C("二"), seats=seats, wall=[], turn=0,
                       shown=(C("九"), 0, ClaimContext.DRAW), dealer_discards=12)


def test_s9_1_the_shown_last_card_can_never_be_won() -> None:
    hand = _last_card_position(LUZHOU)
    assert hand.claim is not None and hand.claim.last
    assert "hu" not in [a.text for a in hand.legal_actions(1)]  # 碰 or pass only
    # Without the 底牌 rule the same card wins (海底).
    open_dipai = _last_card_position(LUZHOU.replace(dipai_shown=False))
    assert "hu" in [a.text for a in open_dipai.legal_actions(1)]
    assert evaluate({"rules": "luzhou", "hand": WIN, "card": "九", "last": True})["hu"] is False


# ---- 胡息 table (§9.1) -----------------------------------------------------------------


@pytest.mark.parametrize(("kind", "card", "qq", "luzhou"), [
    ("peng", "三", 1, 1), ("peng", "叁", 3, 3), ("peng", "七", 1, 6), ("peng", "拾", 3, 9),
    ("kan", "三", 3, 6), ("kan", "叁", 6, 9), ("kan", "二", 3, 9), ("kan", "贰", 6, 12),
    ("wei", "五", 3, 6), ("chouwei", "柒", 6, 12),
    ("pao", "五", 6, 9), ("pao", "伍", 9, 12), ("pao", "十", 6, 12), ("pao", "拾", 9, 15),
    ("ti", "五", 9, 12), ("ti", "伍", 12, 15), ("ti", "七", 9, 15), ("ti", "贰", 12, 18),
    ("pair", "二", 0, 0),
])
def test_s9_1_huxi_of_identical_groups(kind: str, card: str, qq: int, luzhou: int) -> None:
    g = GroupKind(kind)
    assert Group.identical(g, C(card)).huxi == qq
    assert Group.identical(g, C(card), LUZHOU_HUXI).huxi == luzhou
    assert LUZHOU.huxi.huxi(g, (C(card),) * g.size) == luzhou


@pytest.mark.parametrize(("kind", "cards", "qq", "luzhou"), [
    ("sentence", "一二三", 3, 3), ("sentence", "壹贰叁", 6, 6),
    ("sentence", "二七十", 3, 6), ("sentence", "贰柒拾", 6, 9),
    ("sentence", "四五六", 0, 0), ("jiao", "二二贰", 0, 0), ("jiao", "七柒柒", 0, 0),
])
def test_s9_1_huxi_of_sentences_and_jiao(kind: str, cards: str, qq: int, luzhou: int) -> None:
    assert Group.parse(kind, cards).huxi == qq
    assert Group.parse(kind, cards, LUZHOU_HUXI).huxi == luzhou
    assert Group.parse(kind, cards).scored_by(LUZHOU_HUXI).huxi == luzhou


def test_s9_1_the_highest_group_is_18() -> None:
    most = max(Group.identical(k, c, LUZHOU_HUXI).huxi for k in GroupKind if k.identical
               for c in range(KINDS))
    assert most == 18 == Group.identical(GroupKind.TI, C("拾"), LUZHOU_HUXI).huxi


def test_s9_1_solver_and_waits_use_the_rulesets_table() -> None:
    hand = parse_cards(WIN)
    assert solve(hand, [], C("九"), Source.OTHER, table=LUZHOU_HUXI).huxi == 13
    assert solve(hand, [], C("九"), Source.OTHER).huxi == 7  # qq: 3 + 3 + 1
    assert can_hu(hand, [], C("九"), Source.OTHER, LUZHOU)
    assert not can_hu(hand, [], C("九"), Source.OTHER, Ruleset())
    # 九: drawn himself a 偎 (6), else a 碰 (1); 玖: the 绞 九九玖 (0)
    assert [(w.card.text, w.huxi_self, w.huxi_other) for w in waits(hand, [], LUZHOU)] == [
        ("九", 18, 13), ("玖", 12, 12)]
    assert waits(hand, [], Ruleset()) == []
    # 2 × 二七十 (12) + 坎 捌 (9): the partial 胡息 of the escape penalty (§7.4) too
    assert best_partial_huxi(parse_cards("二七十 二七十 捌捌捌"), [], LUZHOU_HUXI) == 21
    assert best_partial_huxi(parse_cards("二七十 二七十 捌捌捌")) == 12


def test_s9_1_table_groups_in_the_engine_score_by_luzhou() -> None:
    # The dealer discards 九; seat 1 (WIN) 碰s it instead of winning: a 碰 of black 九, 1.
    hand = play(DEAL_DIHU, [(0, "discard 九"), (1, "peng")], rules="luzhou")
    (meld,) = hand.seats[1].melds
    assert meld.kind is GroupKind.PENG and meld.table is LUZHOU_HUXI
    assert seat_view(hand, 2)["seats"][1]["melds"][0]["huxi"] == 1
    # Seat 1 then discards; a red 碰 would be 6: the engine's groups all carry the table.
    assert all(m.table is LUZHOU_HUXI for st in hand.seats for m in st.melds)
    assert QQ_HUXI is Ruleset().huxi


def test_s9_1_groups_keep_their_table_through_copies_and_pickles() -> None:
    import copy
    import pickle

    g = Group.identical(GroupKind.TI, C("拾"), LUZHOU_HUXI)
    for twin in (copy.deepcopy(g), pickle.loads(pickle.dumps(g))):
        assert twin == g and twin.table is LUZHOU_HUXI and twin.huxi == 18
    assert copy.deepcopy(g) != Group.identical(GroupKind.TI, C("拾"))  # qq: 12


def test_s9_1_names_are_labels_only() -> None:
    labels = seat_view(play(DEAL_DIHU, [], rules="luzhou"), 1)["labels"]
    assert (labels["ti"], labels["pao"], labels["sentence"], labels["peng"]) == (
        "垅", "招", "列", "碰")
    assert "labels" not in seat_view(play(DEAL_DIHU, [], rules="qq"), 1)  # the standard names


# ---- winning: 10 胡息, on a discard, 地胡 -------------------------------------------------


def test_s9_1_win_on_another_players_discard_is_dihu_for_the_dealers_xiajia() -> None:
    hand = play(DEAL_DIHU, [(0, "discard 九")], rules="luzhou")
    assert [a.text for a in hand.legal_actions(1)] == ["hu", "peng", "pass"]
    hand = play(DEAL_DIHU, [(0, "discard 九"), (1, "hu")], rules="luzhou")
    r = hand.result
    assert r is not None and r.settlement is not None
    assert (r.winner, r.source, r.card) == (1, Source.DISCARD, C("九"))
    s = r.settlement
    # 13 胡息: 等 1; 7 red: 平胡; 地胡 ×2: each loser pays 1 × 2 × 3 = 6.
    assert (s.huxi, s.di, s.fan, s.dihu, s.zimo, s.tianhu) == (13, 1, 2, True, False, False)
    assert r.points == (-6, 12, -6)
    assert r.to_json()["dihu"] is True
    # what the 地胡 multiplied the 番 by, for the settlement window (it read "平胡 1番"
    # beside a total of 番 2)
    assert s.fan_times == 2 and r.to_json()["fan_times"] == 2
    # In qq a discard is never won (§4.1): 碰 or pass only.
    qq = play(DEAL_DIHU, [(0, "discard 九")], rules="qq")
    assert [a.text for a in qq.legal_actions(1)] == ["peng", "pass"]


def _fourth_card_of_a_peng(context: ClaimContext) -> Hand:
    """Seat 0 has just discarded (or drawn and shown) the 4th 三; seat 1 holds a table 碰
    of 三 and a hand that wins only if that 三 makes the 碰 a 跑 (招: 9 胡息, and the
    pair 九九 it then allows)."""
    peng = Group.identical(GroupKind.PENG, C("三"), LUZHOU_HUXI)
    winner = parse_cards("九九 二七十 四五六 伍陆柒 叁肆伍 捌玖拾")
    first = parse_cards("一一 六六 八八 壹壹 肆肆 陆陆 柒柒 捌捌 玖玖 拾")
    third = parse_cards("一 六 七 八 十 壹 贰 贰 肆 陆 柒 捌 玖 拾 二 四 五 伍 叁 九")
    used = counts_of([*first, *winner, *third, *[C("三")] * 4])
    rest = [Card(c) for c in range(KINDS) for _ in range(COPIES - used[c])]
    seats = [SeatState.restore(counts_of(first), pile=rest[10:]),
             SeatState.restore(counts_of(winner), [peng]), SeatState.restore(counts_of(third))]
    return Hand.resume(LUZHOU, dealer=1, liangzhang=C("二"), seats=seats, wall=rest[:10],
                       turn=0, shown=(C("三"), 0, context), dealer_discards=8)


def test_s9_1_a_discard_never_makes_a_table_peng_a_pao_to_win() -> None:
    """§2: a discard never turns a 碰 into 跑 (only a drawn card does, §5). 泸州 lets a
    discard be won (§9.1), but not by making that 跑: the engine once offered 胡 here."""
    discarded = _fourth_card_of_a_peng(ClaimContext.DISCARD)
    assert "hu" not in [a.text for a in discarded.legal_actions(1)]
    drawn = _fourth_card_of_a_peng(ClaimContext.DRAW)
    assert "hu" in [a.text for a in drawn.legal_actions(1)]
    drawn.act(1, Hu())
    assert drawn.result is not None and drawn.result.arrangement is not None
    assert "pao:三三三三(9)" in str(drawn.result.arrangement)


def test_s9_1_the_waits_hint_says_which_cards_win_on_a_discard() -> None:
    """The 听 hint asks the same solver: a card that wins only by making a table 碰 a 跑
    wins on a drawn card (its own or another's), never on a discard (§2, §9.1)."""
    peng = Group.identical(GroupKind.PENG, C("五"), LUZHOU_HUXI)
    hand = parse_cards("一二三 二七十 壹贰叁 贰柒拾 八九十 四四")
    found = {w.card.text: w for w in waits(hand, [peng], LUZHOU)}
    assert (found["五"].huxi_other, found["五"].huxi_discard) == (33, None)
    assert found["五"].huxi_other == solve(hand, [peng], C("五"), Source.OTHER,
                                          table=LUZHOU_HUXI).huxi
    assert solve(hand, [peng], C("五"), Source.DISCARD, table=LUZHOU_HUXI) is None
    # 四 makes the pair a 碰 on a discard as on a draw
    assert found["四"].huxi_discard == found["四"].huxi_other == 26
    # rules that never win on a discard leave it out
    assert all(w.huxi_discard is None for w in waits(hand, [peng], Ruleset()))


def _dealer_discarded_nine(dealer_discards: int) -> Hand:
    """Seat 0, the dealer, has just discarded 九 — his ``dealer_discards``-th discard —
    which completes his 下家's WIN (13 胡息)."""
    dealer = parse_cards(DEALER)
    dealer.remove(C("九"))
    hands = [dealer, parse_cards(WIN), parse_cards(OTHER)]
    used = counts_of([c for h in hands for c in h] + [C("九")])
    rest = [Card(c) for c in range(KINDS) for _ in range(COPIES - used[c])]
    seats = [SeatState.restore(counts_of(h)) for h in hands]
    return Hand.resume(LUZHOU, dealer=0, liangzhang=C("二"), seats=seats, wall=rest, turn=0,
                       shown=(C("九"), 0, ClaimContext.DISCARD),
                       dealer_discards=dealer_discards)


@pytest.mark.parametrize(("dealer_discards", "dihu"), [(1, True), (2, False), (7, False)])
def test_s9_1_dihu_is_a_win_on_the_dealers_first_discard_only(dealer_discards: int,
                                                              dihu: bool) -> None:
    """§9.1: 地胡 when the dealer's 下家 wins on the dealer's *first* discard; the same win
    on a later discard is a plain win on a discard (a resumed hand once took every
    discard shown at the resume for the first)."""
    hand = _dealer_discarded_nine(dealer_discards)
    assert hand.dealer_discards == dealer_discards
    hand.act(1, Hu())
    r = hand.result
    assert r is not None and r.settlement is not None and r.winner == 1
    assert (r.settlement.dihu, r.settlement.fan) == (dihu, 2 if dihu else 1)
    assert r.points == ((-6, 12, -6) if dihu else (-3, 6, -3))


def test_s9_1_a_resampled_hand_counts_the_dealers_discards() -> None:
    """The dealer's discards are public (the observation's events): a hand resampled from
    a seat's view (the search players' roll-outs) scores 地胡 as the real one would."""
    from paohuzi.game.resample import resample_hand

    real = play(DEAL_DIHU, [(0, "discard 九")], rules="luzhou")
    sample = resample_hand(observe(real, 1), random.Random(0))
    assert sample.claim is not None and real.claim is not None
    assert sample.claim.dihu is real.claim.dihu is True
    later = 0
    for seed in range(40):
        hand = Hand.from_seed(seed, LUZHOU)
        rng = random.Random(seed)
        while not hand.ended:
            seat = hand.pending_seats()[0]
            claim = hand.claim
            if claim is not None and claim.seat == hand.dealer \
                    and claim.context is ClaimContext.DISCARD:
                sample = resample_hand(observe(hand, seat), random.Random(seed))
                assert sample.dealer_discards == hand.dealer_discards >= 1
                assert sample.claim is not None
                assert sample.claim.dihu is claim.dihu is (hand.dealer_discards == 1)
                later += hand.dealer_discards > 1
            hand.act(seat, rng.choice(hand.legal_actions(seat)))
    assert later > 0


def test_s9_1_resume_asks_for_a_count_of_the_dealers_discards() -> None:
    with pytest.raises(PositionError, match="must count it"):
        _dealer_discarded_nine(0)
    for wrong in (-1, True, 1.0, "1"):
        with pytest.raises(PositionError, match="dealer_discards"):
            _dealer_discarded_nine(wrong)  # type: ignore[arg-type]


def test_s9_1_a_discard_won_by_the_dealers_shangjia_is_no_dihu() -> None:
    hand = play(DEAL_DISCARD_WIN, [(0, "discard 九"), (2, "hu")], rules="luzhou")
    r = hand.result
    assert r is not None and r.settlement is not None and r.winner == 2
    assert (r.settlement.fan, r.settlement.dihu) == (1, False)
    assert r.points == (-3, -3, 6)
    assert r.settlement.fan_times == 1 and "fan_times" not in r.to_json()


def test_s9_1_win_threshold_is_10_huxi() -> None:
    ten = "二七十 一二三 四五六 伍陆柒 叁肆伍 捌玖拾 九九"  # 6 + 3 + 碰 九 1 = 10
    answer = evaluate({"rules": "luzhou", "hand": ten, "card": "九"})
    assert answer["hu"] is True and answer["huxi"] == 10 and answer["di"] == 1
    assert evaluate({"rules": "qq", "hand": ten, "card": "九"})["hu"] is False  # 7 胡息
    nine = evaluate({"rules": {"preset": "luzhou", "min_huxi": 11}, "hand": ten, "card": "九"})
    assert nine["hu"] is False and "below the 11" in nine["reason"]


# ---- 等, scoring modes and payment (evaluate answers for luzhou) ------------------------

WU = "一一一 三三三 四五六 壹壹壹 肆伍陆 捌捌捌 九九"  # no red card
HONG = "二二二 七七七 十十十 贰柒拾 四五六 肆伍陆 八八"  # 12 red


DENG = {"preset": "luzhou", "luzhou_mode": "deng"}


@pytest.mark.parametrize(("question", "huxi", "deng", "fan", "names", "loser"), [
    # 坎 一 6 + 坎 三 6 + 坎 壹 9 + 坎 捌 9 + 碰 九 1 = 31: 等 3; 乌胡 ×4; 3 × 4 × 3 = 36
    ({"hand": WU, "card": "九"}, 31, 3, 4, ["乌胡"], 36),
    # drawn himself: a 偎 九 (6): 36 胡息, 等 3 + 自摸 1 = 4; 4 × 4 × 3 = 48
    ({"hand": WU, "card": "九", "source": "self"}, 36, 4, 4, ["乌胡"], 48),
    # the deng mode: 番 1
    ({"hand": WU, "card": "九", "rules": DENG}, 31, 3, 1, [], 9),
    # 二二二 七七七 十十十 are 坎 (red, small: 9 each), never split: 27 + 贰柒拾 9 + 碰 八 1
    # = 37: 等 3; 12 red: 红胡 ×2; 3 × 2 × 3 = 18
    ({"hand": HONG, "card": "八"}, 37, 3, 2, ["红胡"], 18),
    # 地胡 doubles the 番
    ({"hand": HONG, "card": "八", "source": "discard", "dihu": True}, 37, 3, 4, ["红胡"], 36),
    ({"hand": HONG, "card": "八", "rules": DENG}, 37, 3, 1, [], 9),
])
def test_s9_1_deng_modes_and_payment(question: dict, huxi: int, deng: int, fan: int,
                                     names: list[str], loser: int) -> None:
    answer = evaluate({"rules": "luzhou", **question})
    assert answer["hu"] is True
    assert (answer["huxi"], answer["di"], answer["fan"]) == (huxi, deng, fan)
    assert [m["name"] for m in answer["mingtang"]] == names
    assert answer["points"] == {"winner": 2 * loser, "loser": -loser, "xingjia": 0}


def test_s9_1_deng_steps_every_10_huxi() -> None:
    from paohuzi.core.settlement import WinContext, settle
    from paohuzi.core.solver import Arrangement

    for huxi, deng in ((10, 1), (19, 1), (20, 2), (29, 2), (30, 3), (41, 4)):
        # a 7-门子 arrangement is not needed to settle: groups whose 胡息 add up
        groups = [Group.identical(GroupKind.PAIR, 0, LUZHOU_HUXI)]
        left = huxi
        while left:
            step = 1 if left < 6 else 6
            kind = GroupKind.PENG if step == 1 else GroupKind.KAN
            groups.append(Group.identical(kind, C("三"), LUZHOU_HUXI))
            left -= step
        win = Arrangement(tuple(groups), (False,) * len(groups))
        assert win.huxi == huxi
        s = settle(win, WinContext(), Ruleset.preset("luzhou", luzhou_mode="deng"))
        assert s.di == deng, huxi
        assert settle(win, WinContext(zimo=True), LUZHOU).di == deng + 1


def test_s9_1_evaluate_refuses_dihu_where_the_rules_have_none() -> None:
    from paohuzi.apps.evaluate import QuestionError

    with pytest.raises(QuestionError, match="dihu"):
        evaluate({"rules": "qq", "hand": HONG, "card": "八", "dihu": True})


@pytest.mark.parametrize("question", [
    {"card": "八", "dihu": True},  # another's shown draw (the default source)
    {"card": "八", "source": "self", "dihu": True},  # his own draw: 自摸
    {"card": "八", "source": "discard", "dealer": True, "dihu": True},  # the dealer himself
    {"tianhu": True, "dihu": True},
])
def test_s9_1_evaluate_refuses_dihu_on_anything_but_the_dealers_discard(
        question: dict[str, object]) -> None:
    """§9.1: 地胡 is the dealer's 下家 winning on the dealer's first discard; `evaluate`
    once scored it on a self-drawn card, another's shown draw and for the dealer."""
    from paohuzi.apps.evaluate import QuestionError

    with pytest.raises(QuestionError, match="dihu: 地胡 is the dealer's 下家"):
        evaluate({"rules": "luzhou", "hand": HONG, **question})


# ---- records, replays and the random-game invariants in every seat form --------------


def test_s9_1_records_replay_identically() -> None:
    hand = play(DEAL_DIHU, [(0, "discard 九"), (1, "peng")], rules="luzhou")
    again = replay(record_of(hand))
    assert again.state_key() == hand.state_key()
    assert [str(e) for e in again.events] == [str(e) for e in hand.events]
    rec = record(DEAL_DIHU, [(0, "discard 九"), (1, "hu")], "luzhou")
    assert replay(rec).result is not None


@pytest.mark.parametrize("players", [None, 3, 2])
def test_s9_1_random_games_keep_every_invariant(players: int | None) -> None:
    rules = LUZHOU if players is None else Ruleset.preset("luzhou", players=players)
    stats = HarnessStats()
    for i in range(120):
        hand = play_checked(19 * 100_003 + i, rules, stats, dealer=i)
        assert hand.card_total() == 80
        assert hand.dipai is not None and not hand.dipai.is_red
        r = hand.result
        assert r is not None and r.xingjia_points == 0  # the 坐底 is never paid
        if r.settlement is not None:  # 海底 is a win on the wall's last card: the 底牌
            assert not r.settlement.haidi
    assert stats.games == 120 and stats.reasons.get("hu", 0) > 0
    assert stats.illegal_refused > 120 and stats.leak_checks > 0


def test_s9_1_a_discard_win_recorded_as_other_before_still_replays() -> None:
    """Records written before the source ``discard`` existed say ``other`` for a win on
    a discard; they replay (anything else in the result must still agree)."""
    hand = play(DEAL_DIHU, [(0, "discard 九"), (1, "hu")], rules="luzhou")
    data = record_of(hand)
    assert data["result"]["source"] == "discard"
    replay({**data, "result": {**data["result"], "source": "other"}})
    with pytest.raises(RecordError):
        replay({**data, "result": {**data["result"], "source": "other", "winner": 2}})


def test_s9_1_evaluate_asks_about_a_discard_only_where_one_is_won() -> None:
    question = {"rules": "luzhou", "hand": "九九 二七十 四五六 伍陆柒 叁肆伍 捌玖拾",
                "melds": [{"kind": "peng", "cards": "三三三"}], "card": "三"}
    assert evaluate({**question, "source": "other"})["hu"] is True  # drawn: 碰 → 跑
    assert evaluate({**question, "source": "discard"})["hu"] is False
    with pytest.raises(ValueError, match="never win on a discard"):
        evaluate({**question, "rules": "qq", "source": "discard"})
