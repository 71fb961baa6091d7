"""The hand solver: docs/rules.md §2 (groups, 坎 whole, the pair), §5 (winning-card groups), §6."""

from __future__ import annotations

import pytest
from notation import C, H, M, random_counts

from paohuzi.core.cards import counts_of
from paohuzi.core.errors import CardCountError, PaohuziError
from paohuzi.core.groups import GroupKind
from paohuzi.core.rules import Ruleset
from paohuzi.core.solver import (
    best_huxi,
    best_partial_huxi,
    can_hu,
    may_win,
    solve,
    solve_counts,
    solve_tianhu,
    tianhu_kind,
    waits,
)

EXAMPLE = "一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖"
QQ = Ruleset()


def kinds(arrangement):
    return sorted((g.kind.value, g.text) for g in arrangement.groups)


def test_rules_example_18_huxi():
    """§7 / the evaluate contract: 18 胡息 on 拾 from another player."""
    a = solve(H(EXAMPLE), [], C("拾"), "other")
    assert a is not None and a.huxi == 18
    assert len(a.groups) == 7
    assert sorted(a.cards) == sorted([*H(EXAMPLE), C("拾")])
    assert ("sentence", "捌玖拾") in kinds(a)
    assert C("拾") in a.groups[a.winning_group].cards
    assert can_hu(H(EXAMPLE), [], C("拾"), "other", QQ)


def test_waits_of_the_example():
    """听牌: 捌玖 waits on 柒 and 拾, 18 胡息 either way and from either source."""
    found = [(w.card.text, w.huxi_self, w.huxi_other) for w in waits(H(EXAMPLE), [], QQ)]
    assert found == [("柒", 18, 18), ("拾", 18, 18)]


def test_below_threshold_and_not_seven_menzi():
    # 14 胡息: same shape with 二七十 → 二三四 (loses 3) and 一二三 kept: 15; drop 一二三 too.
    hand = H("二三四 五六七 壹贰叁 贰柒拾 四五六 七八九 捌玖")
    assert best_huxi(hand, [], C("拾"), "other") == 12
    assert not can_hu(hand, [], C("拾"), "other", QQ)
    # A card that fits nowhere: no arrangement at all.
    assert solve(H(EXAMPLE), [], C("五"), "other") is None


HAND_KAN_SAN = "三三三 一二 四五六 七八九 壹贰叁 肆伍陆 柒捌玖"


def test_po_pao_hu_other_players_card_used_elsewhere():
    """§4.2.2 破跑胡: another's 三 may complete 一二三 instead of the forced 跑."""
    a = solve(H(HAND_KAN_SAN), [], C("三"), "other")
    assert a is not None and a.huxi == 3 + 3 + 6  # 坎 三, 一二三, 壹贰叁
    assert ("kan", "三三三") in kinds(a) and ("sentence", "一二三") in kinds(a)


def test_po_pao_bu_po_ti_own_draw_must_ti():
    """§4.2.1 破跑不破提: a self-drawn 三 onto a hand 坎 is a 提, so 一二 is left over."""
    assert solve(H(HAND_KAN_SAN), [], C("三"), "self") is None


HAND_KAN_PAIR = "三三三 一一 四五六 七八九 壹贰叁 肆伍陆 柒捌玖"


def test_pao_hu_and_ti_hu():
    """§5: onto a hand 坎, another's card is 跑 (跑胡), one's own a 提 (提胡); the pair is 将."""
    pao = solve(H(HAND_KAN_PAIR), [], C("三"), "other")
    ti = solve(H(HAND_KAN_PAIR), [], C("三"), "self")
    assert pao is not None and ti is not None
    assert ("pao", "三三三三") in kinds(pao) and ("pair", "一一") in kinds(pao)
    assert pao.huxi == 6 + 6 and ti.huxi == 9 + 6
    assert ("ti", "三三三三") in kinds(ti)


HAND_PAIR_BA = "八八 一二三 二七十 壹贰叁 贰柒拾 肆伍陆 柒捌玖"


def test_wei_hu_and_peng_hu():
    """§5: a hand pair + own draw is a 偎 (偎胡), + another's card a 碰 (碰胡)."""
    wei = solve(H(HAND_PAIR_BA), [], C("八"), "self")
    peng = solve(H(HAND_PAIR_BA), [], C("八"), "other")
    assert wei is not None and peng is not None
    assert ("wei", "八八八") in kinds(wei) and wei.huxi == 3 + 18
    assert ("peng", "八八八") in kinds(peng) and peng.huxi == 1 + 18


def test_table_peng_grows_to_pao_on_a_drawn_card():
    """§2/§5: any drawn card onto one's table 碰 is a 跑 (from either source)."""
    melds = [M("peng", "七七七")]
    hand = H("五五 一二三 壹贰叁 贰柒拾 八九十 柒捌玖")  # 17 in hand + 3 on the table
    for source in ("self", "other"):
        a = solve(hand, melds, C("七"), source)
        assert a is not None
        assert ("pao", "七七七七") in kinds(a)
        assert a.on_table[a.winning_group]
        assert a.huxi == 6 + 3 + 6 + 6


def test_table_peng_card_may_be_used_elsewhere():
    """破跑胡 with a table 碰: the drawn 七 completes 七八九 instead (no pair, so no 跑 fits)."""
    melds = [M("peng", "七七七")]
    hand = H("八九 一二三 壹贰叁 贰柒拾 四五六 肆伍陆")
    a = solve(hand, melds, C("七"), "other")
    assert a is not None and ("peng", "七七七") in kinds(a) and ("sentence", "七八九") in kinds(a)
    assert a.huxi == 1 + 3 + 6 + 6


def test_table_wei_own_draw_must_ti_other_card_pao():
    melds = [M("wei", "六六六")]
    hand = H("九九 一二三 壹贰叁 贰柒拾 柒捌玖 肆伍陆")  # 九九 is the 将
    ti = solve(hand, melds, C("六"), "self")
    pao = solve(hand, melds, C("六"), "other")
    assert ti is not None and ("ti", "六六六六") in kinds(ti) and ti.huxi == 9 + 3 + 6 + 6
    assert pao is not None and ("pao", "六六六六") in kinds(pao) and pao.huxi == 6 + 3 + 6 + 6


def test_table_chouwei_behaves_like_wei():
    melds = [M("chouwei", "六六六")]
    hand = H("九九 一二三 壹贰叁 贰柒拾 柒捌玖 肆伍陆")
    a = solve(hand, melds, C("六"), "self")
    assert a is not None and ("ti", "六六六六") in kinds(a)


def test_pair_exactly_when_pao_or_ti_owned():
    """§2: a 跑/提 obliges exactly one pair; without one there is no pair."""
    # Table 提: the hand needs a pair.
    melds = [M("ti", "九九九九")]
    hand = H("五五 一二三 壹贰叁 贰柒拾 柒捌玖 肆伍")  # 16 in hand + 4 on the table
    a = solve(hand, melds, C("陆"), "other")
    assert a is not None and sum(g.kind is GroupKind.PAIR for g in a.groups) == 1
    assert a.huxi == 9 + 3 + 6 + 6  # small 提 九 is 9
    # Without the table 提 the same kind of hand (a pair and sentences) cannot win:
    # 21 cards must all be in sentences/绞, no pair allowed.
    assert solve(H("五五 一二三 壹贰叁 贰柒拾 柒捌玖 肆伍 六七八"), [], C("陆"), "other") is None


def test_four_in_hand_is_a_locked_ti():
    """rules-notes N2: four identical in hand count as a 提 (and oblige a pair)."""
    hand = H("五五五五 九九 一二三 壹贰叁 柒捌玖 二三四 肆伍")
    a = solve(hand, [], C("陆"), "other")
    assert a is not None and ("ti", "五五五五") in kinds(a) and ("pair", "九九") in kinds(a)
    assert a.huxi == 9 + 3 + 6


def test_kan_is_never_split():
    """§2: a 坎 can't be split. 二二二 一三 四: 一二三 + 二二四? No — only the 坎 stays."""
    hand = H("二二二 一 三 五六七 壹贰叁 贰柒拾 肆伍陆 柒捌玖")
    assert solve(hand, [], C("四"), "other") is None
    for a_hand, card in ((HAND_KAN_SAN, "三"), (HAND_KAN_PAIR, "一")):
        a = solve(H(a_hand), [], C(card), "other")
        if a is not None:
            assert any(g.kind in (GroupKind.KAN, GroupKind.PAO) and g.cards[0] == C("三")
                       for g in a.groups)


def test_liangzhang_is_own_card_for_dealer():
    """rules-notes N3: for the dealer a pair + 亮张 is a 坎; for others a 碰 (or elsewhere)."""
    dealer = solve(H(HAND_PAIR_BA), [], C("八"), "liangzhang", dealer=True)
    other = solve(H(HAND_PAIR_BA), [], C("八"), "liangzhang", dealer=False)
    assert dealer is not None and ("kan", "八八八") in kinds(dealer) and dealer.huxi == 21
    assert other is not None and ("peng", "八八八") in kinds(other) and other.huxi == 19


def test_too_many_copies_rejected():
    with pytest.raises(CardCountError, match="5 copies of 三"):
        solve(H("三三三 一二 七八九 壹贰叁 肆伍陆 柒捌玖"), [M("sentence", "三四五")], C("三"),
              "other")
    with pytest.raises(PaohuziError, match="source"):
        solve(H(EXAMPLE), [], C("拾"), "wall")
    # without table groups: the hand and the card alone (the check's quick path)
    with pytest.raises(CardCountError, match="5 copies of 三"):
        solve(H("三三三三 一二 七八九 壹贰叁 肆伍陆 柒捌玖"), [], C("三"), "other")


@pytest.mark.parametrize(("counts", "message"), [
    ([0] * 19 + [-1], "a hand is 20 counts of 0 to 4, got"),
    ([1] * 19, "a hand is 20 counts"),
])
def test_bad_count_vectors_rejected_by_name(counts: list[int], message: str) -> None:
    with pytest.raises(CardCountError, match=message):
        solve_counts(counts, [], 0, "other")
    with pytest.raises(CardCountError, match=message):
        solve_counts(counts, [], 0, "self", trusted=False)


def test_partial_best_huxi():
    """§6.4 / §7.4: leftovers allowed; table groups and 坎 count whole."""
    assert best_partial_huxi(H("一二三 七十 四"), []) == 3  # one 二: 一二三 or 二七十
    assert best_partial_huxi(H("一二三 二七十 四"), []) == 6
    assert best_partial_huxi(H("一一二二三 七十")) == 6
    assert best_partial_huxi(H("壹壹壹 一二三"), [M("peng", "九九九")]) == 6 + 3 + 1
    assert best_partial_huxi(H("二二二 一三 七十")) == 3  # the 坎 of 二 is not split


def test_tianhu_kinds():
    """§6.4: 3 提, or 5 提+坎 together (a 提 counts as a 坎, never the reverse)."""
    assert tianhu_kind(H("一一一一 二二二二 三三三三 四五六七八九")) == "3ti"
    assert tianhu_kind(H("一一一一 二二二二 三三三 四四四 五五五")) == "5kan"
    assert tianhu_kind(H("一一一 二二二 三三三 四四四 六七八九十壹贰")) is None
    assert tianhu_kind(H("一一一一 二二二二"), [M("ti", "三三三三")]) == "3ti"


def test_tianhu_leftover_not_duiduihu():
    """rules-notes N6: a 天胡 with leftovers is not all-identical."""
    a = solve_tianhu(H("一一一一 二二二二 三三三三 四五六 七八九 十十"))
    assert a is not None and a.leftover and not a.all_identical
    assert a.huxi == 27


def test_kan_always_appears_whole_in_random_solutions():
    """Property over many positions: each hand 坎 is a 坎 (or grown to 跑/提) in the result."""
    from paohuzi.players.sampling import random_positions

    checked = 0
    for p in random_positions(99, 3000):
        a = solve(p.hand, p.melds, p.card, p.source)
        if a is None:
            continue
        counts = counts_of(p.hand)
        for card, n in enumerate(counts):
            if n >= 3:
                assert any(g.kind in (GroupKind.KAN, GroupKind.TI, GroupKind.PAO)
                           and g.cards[0] == card and not a.on_table[i]
                           for i, g in enumerate(a.groups)), (str(p), str(a))
                checked += 1
        assert sorted(a.cards) == sorted(list(p.hand) + [c for m in p.melds for c in m.cards]
                                         + [p.card])
        assert a.huxi == best_huxi(p.hand, p.melds, p.card, p.source)
    assert checked > 100


def test_win_prefilter_never_rejects_a_win_and_rejects_most_others():
    from paohuzi.players.sampling import random_positions

    wins = rejected = 0
    for p in random_positions(31, 2000):
        counts = counts_of(p.hand)
        for min_huxi in (0, 15, 21):
            win = solve_counts(counts, p.melds, p.card, p.source, min_huxi=min_huxi)
            passed = may_win(counts, p.melds, p.card, min_huxi)
            if win is not None:
                wins += 1
                assert passed, (str(p), min_huxi, str(win))
            rejected += not passed
    assert wins > 1000
    assert rejected > 2000  # of the 6000 questions, most non-wins are ruled out cheaply


def test_win_prefilter_asks_whether_the_free_cards_group_with_the_card():
    """A card that can only join the free cards (held at most once, no table 偎/碰 of
    it) passes may_win only when the free cards and it split into sentences and 绞 (with
    the pair when a 跑/提 is owned): the check that rules most failing solves out."""
    from paohuzi.core.decompose import best_free_huxi
    from paohuzi.players.sampling import random_positions

    grouped = refused = 0
    for p in random_positions(5, 1500):
        counts = counts_of(p.hand)
        pao_ti = counts.count(4) + sum(m.kind in (GroupKind.PAO, GroupKind.TI) for m in p.melds)
        grows = {m.cards[0] for m in p.melds
                 if m.kind in (GroupKind.WEI, GroupKind.CHOUWEI, GroupKind.PENG)}
        for card in range(20):
            if counts[card] > 1 or card in grows:
                continue
            free = [n if n <= 2 else 0 for n in counts]
            free[card] += 1
            groups = best_free_huxi(free, pao_ti > 0) >= 0
            if may_win(counts, p.melds, card, 0):
                assert groups, (str(p), card)
                grouped += 1
            else:
                refused += groups is False
    assert grouped > 100 and refused > 10_000


def test_win_prefilter_asks_whether_the_free_cards_group_when_the_card_grows_a_group():
    """A card that can grow an identical group (a hand pair or 坎, a table 偎/碰 of it)
    passes may_win only when the free cards split as one of its placements leaves them:
    without the pair beside the card's 3-card group, as they are beside a 4-card group
    (which owes the pair), or with the card among them. Most such cards that the solver
    would have been asked about are refused this way, and no win is refused."""
    from paohuzi.core.decompose import best_free_huxi
    from paohuzi.players.sampling import random_positions

    def splits(free, need_pair):
        n = sum(free) - 2 * need_pair
        return n >= 0 and n % 3 == 0 and best_free_huxi(free, need_pair) >= 0

    passed = refused = wins = 0
    for p in random_positions(9, 1500):
        counts = counts_of(p.hand)
        pao_ti = counts.count(4) + sum(m.kind in (GroupKind.PAO, GroupKind.TI) for m in p.melds)
        grows = {m.cards[0] for m in p.melds
                 if m.kind in (GroupKind.WEI, GroupKind.CHOUWEI, GroupKind.PENG)}
        free = [n if n <= 2 else 0 for n in counts]
        for card in range(20):
            if counts[card] < 2 and card not in grows:
                continue
            joined = list(free)
            joined[card] += 1
            ok = splits(joined, pao_ti > 0)
            if counts[card] == 3 or card in grows:
                ok = ok or splits(free, True)
            elif counts[card] == 2:
                paired = list(free)
                paired[card] -= 2
                ok = ok or splits(paired, pao_ti > 0)
            if may_win(counts, p.melds, card, 0):
                assert ok, (str(p), card)
                passed += 1
            else:
                refused += 1
            if counts[card] + sum(m.cards.count(card) for m in p.melds) == 4:
                continue  # every copy is held: no fifth to win on
            for source in ("self", "other"):
                if solve_counts(counts, p.melds, card, source) is not None:
                    wins += 1
                    assert may_win(counts, p.melds, card, 0), (str(p), card, source)
    assert passed > 100 and refused > 2_000 and wins > 50


def test_win_prefilter_checks_the_card_count():
    hand = counts_of(H(EXAMPLE))  # 20 cards: 21 with 拾, a win
    assert may_win(hand, [], C("拾"), 15)
    hand[C("四")] += 1  # 21 cards: 22 with the card, and no 跑/提 to make
    assert not may_win(hand, [], C("拾"), 0)


def _table_totals(melds, card):
    """What a caller keeping running totals knows of the table groups (see may_win_on)."""
    cards = sum(len(m.cards) for m in melds)
    pao_ti = sum(m.kind in (GroupKind.PAO, GroupKind.TI) for m in melds)
    huxi = sum(m.huxi for m in melds)
    grows = 0
    for m in melds:
        if m.kind in (GroupKind.WEI, GroupKind.CHOUWEI, GroupKind.PENG):
            grows |= 1 << m.cards[0]
    return cards, pao_ti, huxi, grows


@pytest.mark.parametrize("table_name", ["qq", "luzhou"])
def test_win_prefilter_mask_holds_every_card_the_prefilter_lets_through(table_name):
    """The engine's per-hand-version mask (may_win_mask) is a superset of may_win_on, and
    may_win_on from running totals answers as may_win from the groups, and may_win_cards
    (every card at once) as may_win card by card; all rule cards out."""
    from paohuzi.core.groups import HUXI_TABLES
    from paohuzi.core.solver import (
        hand_facts,
        isolated_cards,
        may_win_cards,
        may_win_mask,
        may_win_on,
        win_facts,
    )
    from paohuzi.players.sampling import random_positions

    table = HUXI_TABLES[table_name]
    let_through = masked_out = 0
    for p in random_positions(17, 600):
        counts = counts_of(p.hand)
        facts = win_facts(counts, table)
        assert facts == hand_facts(counts, table)
        assert facts.isolated == isolated_cards(counts)
        cards, pao_ti, huxi, grows = _table_totals(p.melds, p.card)
        for min_huxi in (0, 10, 15, 21):
            mask = may_win_mask(facts, counts, cards, pao_ti, huxi, grows, min_huxi, table)
            allowed = may_win_cards(counts, p.melds, min_huxi, table)
            for card in range(20):
                on = may_win_on(facts, counts, card, cards, pao_ti, huxi,
                                bool(grows >> card & 1), min_huxi, table)
                assert on == may_win(counts, p.melds, card, min_huxi, table)
                assert on == bool(allowed >> card & 1), (str(p), card, min_huxi)
                if on:
                    let_through += 1
                    assert mask >> card & 1, (str(p), card, min_huxi)
                masked_out += not mask >> card & 1
    assert let_through > 1000 and masked_out > 10_000


def _facts_by_hand(counts, table):
    """The prefilter's facts of a hand worked out card by card (the plain reading of
    WinFacts' fields), to check win_facts' packed one-pass form against."""
    from paohuzi.core.decompose import pack_free, partial_scoring_sentences
    from paohuzi.core.groups import partners

    free = [n if n <= 2 else 0 for n in counts]
    locked = sum(table.identical[GroupKind.KAN][c] if n == 3 else
                 table.identical[GroupKind.TI][c] if n == 4 else 0
                 for c, n in enumerate(counts))
    isolated = tuple(c for c in range(20) if counts[c] == 1
                     and not any(free[d] for d in partners(c)))
    return (sum(counts), counts.count(4), locked + partial_scoring_sentences(free, table),
            tuple(free), isolated, sum(1 << c for c in range(20) if counts[c] >= 2),
            sum(free), pack_free(free))


@pytest.mark.parametrize("table_name", ["qq", "luzhou"])
def test_win_facts_packed_pass_reads_each_field_right(table_name):
    """win_facts sums packed per-card rows in one pass: every field it reads off the sum
    equals the card-by-card reading, on random hands with 坎 and 提 (up to 4 of a card)."""
    import random

    from paohuzi.core.groups import HUXI_TABLES
    from paohuzi.core.solver import win_facts

    table = HUXI_TABLES[table_name]
    rng = random.Random(5)
    kans = 0
    for _ in range(3000):
        counts = random_counts(rng, 1, 27)
        kans += 3 in counts or 4 in counts
        assert tuple(win_facts(counts, table)) == _facts_by_hand(counts, table), counts
    assert kans > 500


def test_isolated_allow_is_the_partner_rule():
    """At most two isolated cards; the card must be a partner of each (or, for one, the
    card itself)."""
    from paohuzi.core.groups import partners
    from paohuzi.core.solver import isolated_allow

    for a in range(20):
        assert isolated_allow((), a)
        for card in range(20):
            assert isolated_allow((a,), card) == (card == a or card in partners(a))
            for b in range(a + 1, 20):
                assert isolated_allow((a, b), card) == (card in partners(a)
                                                        and card in partners(b))
    assert not any(isolated_allow((0, 1, 2), card) for card in range(20))
