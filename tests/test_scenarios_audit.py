"""Audit of docs/rules.md §3.1, §7.2, §9 and §9.1: the rules that had no test able to fail.

Each test names the line of docs/rules.md (or the rules-notes entry) it pins. Hands are
explicit deals played by the engine (``scenario.play``, so each is a replayable record)
or questions to ``evaluate``; the expected numbers are worked out by hand in the
comments from the docs/rules.md text, never read back from the code.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from scenario import kinds, play
from test_scenarios_deal import _drawn_hand, _drive_passively, _inject
from test_scenarios_luzhou import DEAL_DIHU, DEAL_TIANHU21
from test_scenarios_play import chou_deal
from test_scenarios_variants import ALL_SMALL_DUIDUI, DEAL_TIANHU_DEALER, DEAL_TIANHU_PAIR

from paohuzi.apps.evaluate import evaluate
from paohuzi.core.cards import Card, parse_cards
from paohuzi.core.kinds import Source
from paohuzi.core.mingtang import HandFacts, find_mingtang
from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.core.solver import can_hu
from paohuzi.game.actions import Pass, Peng
from paohuzi.game.engine import Hand
from paohuzi.game.match import Match
from paohuzi.game.record import record_of, replay
from paohuzi.game.view import observe, seat_view

C = Card.parse
LUZHOU = Ruleset.preset("luzhou")

# ---- §3.1 the dealer ------------------------------------------------------------------


@pytest.mark.parametrize(("rules", "seats"), [(Ruleset(), 3), (LUZHOU, 4),
                                              (Ruleset.preset("two-player"), 2)])
def test_s3_1_first_dealer_is_drawn_at_random_from_the_match_seed(rules, seats) -> None:
    """§3.1 "First hand: the dealer (庄家) is chosen at random": over seeds every seat
    deals first sometimes; one seed always gives the same dealer (replayable)."""
    dealers = [Match(rules, seed=seed).dealer for seed in range(40)]
    assert set(dealers) == set(range(seats))
    assert dealers == [Match(rules, seed=seed).dealer for seed in range(40)]


def test_s3_1_luzhou_three_drawn_hands_pass_the_deal_and_the_zuodi_follows() -> None:
    """§3.1 applies to `luzhou` (§9.1 names no other dealer rule): the dealer keeps the
    deal after 1 and 2 drawn hands; after the 3rd it passes to his 下家 (the next match
    seat), and the 坐底 — the seat opposite the dealer — moves with it, paid nothing."""
    m = Match(LUZHOU, seed=3, first_dealer=1)
    assert (m.dealer, m.xingjia) == (1, 3)
    _drawn_hand(m)
    _drawn_hand(m)
    assert (m.dealer, m.xingjia) == (1, 3)
    _drawn_hand(m)
    assert (m.dealer, m.xingjia) == (2, 0)
    assert m.playing_seats() == (2, 3, 1)
    assert m.points == [0, 0, 0, 0]


# ---- §7.2 名堂: "counts are over all cards the winner owns, winning card included" ----

# Seat 1 is dealt 贰贰贰贰 (laid as 提 at the deal, §3.5) and waits on 五; the dealer
# throws 十, nobody can take it, and seat 1 draws 五 himself.
RED_TI_DEAL: dict[str, Any] = {
    "hands": ["一一 二二 三 四 六 七七 八八 九 十 壹 叁 肆 伍 陆 柒 玖",
              "贰贰贰贰 三四五 四六 壹壹壹 叁肆伍 捌捌捌 九九",
              "一一 二二 三 四 六六 七 八 九 十 叁 肆 伍 陆 柒 捌 玖 拾"],
    "liangzhang": "拾",
    "wall": "五",
}


def test_s7_2_red_cards_of_a_table_ti_count_four() -> None:
    """§7.2: the 名堂 count every card the winner owns. Seat 1's only red cards are the 4
    of his table 提 贰: red 4 is 红胡 (2 番); counting the 提 as one card or leaving the
    table out would give no 名堂 or 乌胡. 提贰 12 + 坎壹 6 + 坎捌 6 = 24 胡息, 自摸:
    x = (24 − 12) // 3 + 1 = 5; each loser 5 · 2 · 3 = 30."""
    hand = play(RED_TI_DEAL, [(0, "discard 十")])
    assert kinds(hand, 1) == [("ti", "贰贰贰贰")]
    assert next(a.text for a in hand.legal_actions(1)) == "hu"
    hand = play(RED_TI_DEAL, [(0, "discard 十"), (1, "hu"), (2, "pass")])  # 2 could 吃
    r = hand.result
    assert r is not None and r.settlement is not None and r.winner == 1
    s = r.settlement
    assert (s.huxi, s.di, s.fan, s.zimo) == (24, 5, 2, True)
    assert [(m.name, m.fan) for m in s.mingtang] == [("红胡", 2)]
    assert r.points == (-30, 60, -30)


@pytest.mark.parametrize(("melds", "hand", "card", "red", "names"), [
    # 提贰 (4 red) + a hidden 偎 十 (3 red) = 7: 红胡
    ([{"kind": "ti", "cards": "贰贰贰贰"}, {"kind": "wei", "cards": "十十十"}],
     "三四五 四六 壹壹壹 叁肆伍 九九", "五", 7, ["红胡"]),
    # the same with one more red card in hand (柒 of 陆柒捌): 8 red, no 名堂
    ([{"kind": "ti", "cards": "贰贰贰贰"}, {"kind": "wei", "cards": "十十十"}],
     "三四五 四六 壹壹壹 陆柒捌 九九", "五", 8, []),
    # the winning card is counted: 跑 拾 (4) + 二七十 — 十 the winning card — = 7: 红胡
    ([{"kind": "pao", "cards": "拾拾拾拾"}],
     "二七 三四五 壹壹壹 叁肆伍 捌捌捌 九九", "十", 7, ["红胡"]),
])
def test_s7_2_every_owned_card_counts_for_red(melds, hand, card, red, names) -> None:
    answer = evaluate({"hand": hand, "melds": melds, "card": card, "source": "other"})
    assert answer["hu"] is True
    assert [m["name"] for m in answer["mingtang"]] == names, red


def test_s7_2_xiaozihu_formula_wins_over_the_sources_26_cards_16_fan() -> None:
    """§7.2 [decision]: "最多26只小字, 16番" contradicts the formula 8 + 1 per small card
    above 16; the formula wins: 26 small cards are 8 + 10 = 18 番 (and 大字胡 alike)."""
    facts = HandFacts(red=5, big=0, small=26, all_identical=False)
    assert [(m.name, m.fan) for m in find_mingtang("qq", facts)] == [("小字胡", 18)]
    big = HandFacts(red=5, big=26, small=0, all_identical=False)
    assert [(m.name, m.fan) for m in find_mingtang("qq", big)] == [("大字胡", 14)]


def test_s7_2_zimo_haidi_tianhu_are_shown_but_are_no_mingtang() -> None:
    """§7.2: "海底, 自摸 and 天胡 are not 名堂 but are shown in the settlement": the
    dealer's mandatory 天胡 in `qq` lists only 对对胡 and 小字胡 as 名堂, and the result
    carries the flags."""
    r = play(DEAL_TIANHU_DEALER, []).result
    assert r is not None and r.settlement is not None
    names = [m.name for m in r.settlement.mingtang]
    assert names == ["对对胡", "小字胡"]
    assert not {"自摸", "天胡", "海底"} & set(names)
    shown = r.to_json()
    assert shown["zimo"] is True and shown["tianhu"] is True and shown["haidi"] is False


# ---- §9 hunan: 臭牌 blocks 吃 only --------------------------------------------------


def test_s9_hunan_chou_card_may_still_be_penged_but_not_eaten() -> None:
    """§9 hunan "臭牌 blocks 吃 only, not 碰". The §4.5 example: seat 1 (一 二 二 三 贰)
    passes on the dealer's 二 (碰 and 吃 possible), so 二 is 臭 for him. When the last 二
    is later shown (the dealer's draw), in `qq` nobody may take it; in `hunan` seat 1 may
    碰 it but still not 吃 it (一二三), and the dealer (his own discard, 三四 in hand) may
    not 吃 it either."""
    actions = [(0, "discard 二"), (1, "pass"), (1, "pass"), (2, "pass"), (0, "pass")]
    qq = play(chou_deal("十 拾 二"), actions, rules="qq")
    assert [str(e) for e in qq.events if "二" in str(e)][-2:] == [
        "seat 0 show 二", "seat 0 to_pile 二"]
    hunan = play(chou_deal("十 拾 二"), actions, rules="hunan")
    assert str(hunan.events[-1]) == "seat 0 show 二"
    assert C("二") in hunan.seats[1].chou and C("二") in hunan.seats[0].chou
    assert hunan.pending_seats() == [1]
    assert hunan.legal_actions(1) == [Peng(), Pass()]  # no 吃 一二三 / 二二贰
    assert hunan.legal_actions(0) == []
    taken = play(chou_deal("十 拾 二"), [*actions, (1, "peng")], rules="hunan")
    assert ("peng", "二二二") in kinds(taken, 1)


# ---- §9 hunan: 自摸's 3 胡息 do not count toward the 15 to win (N9) ---------------------

TWELVE = "六七八 三四五 四五六 壹贰叁 贰柒拾 叁肆伍 九玖"
"""With 九 (the 绞 九九玖): 壹贰叁 6 + 贰柒拾 6 = 12 胡息; 5 red cards."""
FIFTEEN = "一二三 三四五 四五六 壹贰叁 贰柒拾 叁肆伍 九玖"
"""With 九: 一二三 3 + 12 = 15 胡息; 5 red cards (平胡 in every scheme)."""


def test_s9_hunan_zimo_bonus_does_not_count_toward_winning() -> None:
    """N9: 12 胡息 + 自摸's 3 would be 15, but the 15 needed are counted without the
    bonus: no win, drawn himself or not; with 15 the 自摸 囤 is 1 + (15 + 3 − 15) // 3 = 2,
    平胡: each loser 2 · 1 · 3 = 6 (another's card: 囤 1, 3)."""
    hunan = Ruleset.preset("hunan")
    for source in ("self", "other"):
        answer = evaluate({"hand": TWELVE, "card": "九", "source": source, "rules": "hunan"})
        assert answer["hu"] is False and "below the 15" in answer["reason"]
        assert not can_hu(parse_cards(TWELVE), [], C("九"), Source(source), hunan)
    own = evaluate({"hand": FIFTEEN, "card": "九", "source": "self", "rules": "hunan"})
    assert (own["huxi"], own["di"], own["points"]["loser"]) == (15, 2, -6)
    other = evaluate({"hand": FIFTEEN, "card": "九", "source": "other", "rules": "hunan"})
    assert (other["di"], other["points"]["loser"]) == (1, -3)


def test_s9_hunan_has_no_haidi_fan() -> None:
    """N14: the hunan list has no 海底: a 海底 win scores as any other (囤 1, 平胡 ×1)."""
    answer = evaluate({"hand": FIFTEEN, "card": "九", "last": True, "rules": "hunan"})
    assert (answer["fan"], answer["points"]["loser"]) == (1, -3)
    qq = evaluate({"hand": FIFTEEN, "card": "九", "last": True, "rules": "qq"})
    assert qq["fan"] == 2  # qq: 海底 on a 平胡 makes 2


# ---- §9 changde: 海底 and the 花样 levels ----------------------------------------------


@pytest.mark.parametrize(("huayang", "last", "fan", "loser"), [
    ("half", False, 1, -3),
    ("half", True, 2, -6),   # "平胡 海底 1": 海底 adds 1 番 to a 平胡 (N7)
    ("basic", True, 1, -3),  # 基本花样 has no 海底 (N16)
    ("full", True, 2, -6),
])
def test_s9_changde_haidi_on_a_pinghu(huayang, last, fan, loser) -> None:
    """§9 changde "海底 2 (平胡 海底 1)": 15 胡息, 等 1, 5 red (no 花样)."""
    answer = evaluate({"hand": FIFTEEN, "card": "九", "last": last,
                       "rules": {"preset": "changde", "huayang": huayang}})
    assert answer["mingtang"] == []
    assert (answer["di"], answer["fan"], answer["points"]["loser"]) == (1, fan, loser)


@pytest.mark.parametrize(("huayang", "names", "fan"), [("basic", ["乌胡"], 5),
                                                       ("half", ["乌对"], 10)])
def test_s9_changde_basic_level_keeps_zimo_plus_one_deng(huayang, names, fan) -> None:
    """§9 "基本 = 红胡, 点胡, 红乌, 乌胡 (and 自摸's +1 等)": six 坎 and a self-drawn 九
    onto 九九 (偎 3): 6 · 3 + 3 = 21 胡息, 等 = 1 + (21 − 15) // 3 + 1 (自摸) = 4."""
    answer = evaluate({**ALL_SMALL_DUIDUI, "source": "self",
                       "rules": {"preset": "changde", "huayang": huayang}})
    assert (answer["huxi"], answer["di"], answer["fan"]) == (21, 4, fan)
    assert [m["name"] for m in answer["mingtang"]] == names
    assert answer["points"]["loser"] == -4 * fan * 3


# ---- §9 two-player: the 20 set-aside cards stay unseen ---------------------------------

TWO_DEAL: dict[str, Any] = {
    "hands": ["一一二二三三四四五五六六七七八八九九十十",
              "壹壹贰贰叁叁肆肆伍伍陆陆柒柒捌捌玖玖一二"],
    "liangzhang": "三",
    "set_aside": "拾拾拾拾 壹壹贰贰叁叁肆肆伍伍陆陆柒柒捌捌",
}


def test_s9_two_player_set_aside_cards_are_never_seen() -> None:
    """§9 two-player: "20 cards set aside unseen after the deal". Every 拾 is set aside:
    no seat (nor a spectator) ever sees a 拾, during the hand or once it has ended."""
    rules = Ruleset.preset("two-player")
    hand = play(TWO_DEAL, [], rules="two-player")
    assert len(hand.deal.set_aside) == 20 and len(hand.wall) == 19
    steps = 0
    while True:
        for seat in (0, 1, None):
            assert "拾" not in json.dumps(seat_view(hand, seat), ensure_ascii=False), steps
            assert observe(hand, seat).unseen_counts()[C("拾")] == 4
        if hand.ended:
            break
        seat = hand.pending_seats()[0]
        legal = hand.legal_actions(seat)
        hand.act(seat, Pass() if Pass() in legal else legal[0])
        steps += 1
    assert steps > 0 and rules.set_aside == 20


# ---- §9 "every preset selectable in every interface and stored with each record" -------


@pytest.mark.parametrize("rules", [*(Ruleset.preset(name) for name in PRESETS),
                                   Ruleset.preset("luzhou", players=2),
                                   Ruleset.preset("hunan", xingjia=True),
                                   Ruleset.preset("changde", huayang="full")],
                         ids=lambda r: f"{r.name}-{r.seats}-{r.huayang}")
def test_s9_every_preset_is_stored_with_its_record(rules) -> None:
    hand = Hand.from_seed(7, rules)
    _drive_passively(hand)
    rec = record_of(hand)
    assert rec["rules"] == rules.to_dict() and rec["rules"]["name"] == rules.name
    again = replay(json.loads(json.dumps(rec)))
    assert again.rules == rules and again.state_key() == hand.state_key()


def test_s9_luzhou_is_selectable_on_the_command_line(tmp_path) -> None:
    """§9: every preset on the command line — `luzhou` too (the CLI tests cover the others)."""
    out = subprocess.run([sys.executable, "-m", "paohuzi", "simulate", "--games", "3",
                          "--seed", "1", "--rules", "luzhou", "--records", str(tmp_path)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "rules: luzhou" in out.stdout
    records = sorted(tmp_path.glob("*.json"))
    assert len(records) == 3
    assert json.loads(records[0].read_text())["rules"] == LUZHOU.to_dict()


# ---- §9.1 luzhou -----------------------------------------------------------------------


@pytest.mark.parametrize(("red", "big", "small", "identical", "expected"), [
    (0, 9, 12, False, [("乌胡", 4)]),
    (0, 9, 12, True, [("乌胡", 4)]),    # no 对对胡 in luzhou
    (1, 9, 12, False, []),               # no 点胡
    (9, 9, 12, False, []),
    (10, 9, 12, False, [("红胡", 2)]),   # "红胡, 10+ red: ×2"
    (13, 9, 12, False, [("红胡", 2)]),   # no 红乌: 10+ with no upper bound
    (21, 9, 12, False, [("红胡", 2)]),
    (4, 9, 12, False, []),               # qq's 4 / 7 red are nothing here
    (7, 9, 12, False, []),
    (5, 21, 0, False, []),               # no 大字胡 / 小字胡
    (5, 0, 21, False, []),
])
def test_s9_1_hongwu_mode_has_only_honghu_and_wuhu(red, big, small, identical,
                                                   expected) -> None:
    found = find_mingtang("luzhou", HandFacts(red, big, small, identical))
    assert [(m.name, m.fan) for m in found] == expected


@pytest.mark.parametrize(("deal", "winner", "huxi", "deng", "fan", "each"), [
    # non-dealer 3 提 + 2 坎 + 八八 (luzhou 胡息): 提一 12 + 提四 12 + 提伍 15 + 坎三 6 +
    # 坎陆 9 = 54: 等 1 + 44 // 10 = 5, 自摸 +1 = 6; no red: 乌胡 4, 天胡 ×2 = 8;
    # 6 · 8 · 3 = 144 from each loser.
    (DEAL_TIANHU_PAIR, 1, 54, 6, 8, 144),
    # the dealer, 3 提 + 坎 二 七 十 (red, 9 each) = 39 + 27 = 66: 等 1 + 5 + 1 = 7;
    # 9 red: 平胡 1, 天胡 ×2 = 2; 7 · 2 · 3 = 42.
    (DEAL_TIANHU_DEALER, 0, 66, 7, 2, 42),
])
def test_s9_1_mandatory_tianhu_doubles_the_fan(deal, winner, huxi, deng, fan, each) -> None:
    """§9.1 "天胡 and 地胡 each double the 番" — the mandatory 3 提 / 5 坎 天胡 (§6.4, N21)
    too, and it is 自摸 (+1 等)."""
    r = play(deal, [], rules="luzhou").result
    assert r is not None and r.reason == "tianhu" and r.winner == winner
    s = r.settlement
    assert s is not None and s.tianhu and s.zimo and not s.dihu
    assert (s.huxi, s.di, s.fan) == (huxi, deng, fan)
    assert r.points == tuple(2 * each if seat == winner else -each for seat in range(3))


def test_s9_1_escape_pays_by_the_luzhou_huxi_and_never_the_zuodi() -> None:
    """§9.1 + §7.4 (N19, N23): seat 2 of the hand leaves at once. H over the two others
    with the luzhou table: seat 1 (二七十 ×2: 6 + 6) 12 + the dealer (壹贰叁 6 + 一二三 3)
    9 = 21 (qq table: 3 + 3 + 9 = 15); penalty (max(0, (21 − 12) // 3) + 8) · 3 = 33, the
    leaver's 下家 (the dealer) takes the odd point: 17 and 16; the 坐底 (match seat 2,
    opposite dealer 0) neither pays nor is paid."""
    expected = {"luzhou": (21, (17, 16, 0, -33)), "qq": (15, (14, 13, 0, -27))}
    for table, (h, points) in expected.items():
        m = Match(LUZHOU.replace(huxi_table=table), seed=5, first_dealer=0)
        assert m.xingjia == 2 and m.playing_seats() == (0, 1, 3)
        hand = _inject(m, DEAL_DIHU)
        summary = m.escape(3)
        assert str(hand.events[-1]) == f"seat 2 escape (H={h})"
        assert summary.points == points and m.over
        assert hand.result is not None and hand.result.xingjia_points == 0



def test_s9_1_chouhu_on_a_discard_bars_the_next_shown_copy() -> None:
    """§9.1 win on a discard, with §4.5 臭胡 (N22): seat 1 passes his win (地胡) on the
    dealer's discarded 九; three draws later seat 2 draws and shows another 九 while seat
    1's hand still wins on it and his table 胡息 is unchanged (0): nobody is asked, the 九
    goes to seat 2's pile."""
    hand = play({**DEAL_DIHU, "wall": "四 肆 九"}, [(0, "discard 九"), (1, "pass")],
                rules="luzhou")
    assert hand.seats[1].chouhu == {C("九"): 0}
    for _ in range(30):
        seat = hand.pending_seats()[0]
        legal = hand.legal_actions(seat)
        events = [str(e) for e in hand.act(seat, Pass() if Pass() in legal else legal[0])]
        if "seat 2 show 九" in events:
            break
    else:
        raise AssertionError("the 九 was never shown")
    assert events[events.index("seat 2 show 九") + 1] == "seat 2 to_pile 九"
    st = hand.seats[1]
    assert st.table_huxi == 0
    assert can_hu(st.hand_cards, list(st.melds), C("九"), Source.OTHER, LUZHOU)  # it wins


# ---- N60: 天胡 / 地胡 double the 番 in both luzhou scoring modes ---------------------------

DENG = {"preset": "luzhou", "luzhou_mode": "deng"}


def test_n60_tianhu_and_dihu_double_the_fan_in_the_deng_mode_too() -> None:
    """N60 (§9.1 "天胡 and 地胡 each double the 番"; `deng`: "番 = 1"): the doubling is the
    win's, not a 名堂 of the mode, so a `deng` 天胡 / 地胡 has 番 2.
    地胡 (DEAL_DIHU): 13 胡息, 等 1, 番 2: 1 · 2 · 3 = 6 from each loser (as `hongwu`,
    a 平胡 there). The dealer's 21-card 天胡: 18 胡息, 等 1 + 自摸 1 = 2, 番 2: 12 each.
    A no-red 地胡 shows the modes apart: `deng` 2 (乌胡 dropped), `hongwu` 4 · 2 = 8."""
    dihu = play(DEAL_DIHU, [(0, "discard 九"), (1, "hu")], rules=DENG).result
    assert dihu is not None and dihu.settlement is not None and dihu.settlement.dihu
    assert (dihu.settlement.di, dihu.settlement.fan) == (1, 2)
    assert dihu.points == (-6, 12, -6)
    tianhu = play(DEAL_TIANHU21, [(0, "hu")], rules=DENG).result
    assert tianhu is not None and tianhu.settlement is not None and tianhu.settlement.tianhu
    assert (tianhu.settlement.di, tianhu.settlement.fan) == (2, 2)
    assert tianhu.points == (24, -12, -12)
    wu = "一一一 三三三 四五六 壹壹壹 肆伍陆 捌捌捌 九九"  # 31 胡息, 等 3, no red
    deng = evaluate({"hand": wu, "card": "九", "source": "discard", "dihu": True, "rules": DENG})
    hongwu = evaluate({"hand": wu, "card": "九", "source": "discard", "dihu": True,
                       "rules": "luzhou"})
    assert (deng["di"], deng["fan"], deng["mingtang"]) == (3, 2, [])
    assert (hongwu["di"], hongwu["fan"]) == (3, 8)
    assert (deng["points"]["loser"], hongwu["points"]["loser"]) == (-18, -72)


# ---- §3.1 [decision] at the server: the first dealer from the committed shuffle ---------


def _first_dealer_at_a_table(code: str, rules: Any, seats: list[str], secret: str,
                             values: list[str]) -> tuple[int, int]:
    """A fresh table deals its first hand from a fixed secret and entropy values; (its
    dealer, the dealer the shuffle says)."""
    pytest.importorskip("starlette")
    from paohuzi.server.table import RoomConfig, Table

    t = Table(code, RoomConfig.from_json({"rules": rules, "seats": seats}))
    t.apply({"k": "commit", "hand": 1, "secret": secret, "salt": "ab" * 16})
    for seat, value in enumerate(values):
        t.apply({"k": "entropy", "hand": 1, "seat": seat, "value": value})
    t.apply(t.new_start_entry())
    assert t.match is not None and t.shuffle is not None
    return t.match.dealer, t.shuffle.dealer_of(len(seats))  # type: ignore[union-attr]


@pytest.mark.parametrize(("rules", "seats"), [
    ("qq", ["heuristic"] * 3), ("luzhou", ["heuristic"] * 4)])
def test_s3_1_first_dealer_of_a_table_comes_from_the_shuffle_not_the_room(rules,
                                                                           seats) -> None:
    """§3.1 [decision]: "The random first dealer is drawn from the hand's committed
    randomness, never from anything a player chooses (a room code, a name)": the same
    shuffle gives the same first dealer in rooms of any code, and different shuffles
    give every seat."""
    values = ["a1", "b2", "c3", "d4"][: len(seats)]
    dealers = set()
    for n in range(24):
        secret = f"{n:064x}"
        dealer, drawn = _first_dealer_at_a_table("ROOM01", rules, seats, secret, values)
        assert dealer == drawn
        assert _first_dealer_at_a_table("ZZZZ99", rules, seats, secret, values)[0] == dealer
        dealers.add(dealer)
    assert dealers == set(range(len(seats)))
