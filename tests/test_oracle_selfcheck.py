"""Self-checks of the brute-force oracle (tests/oracle.py) on hand-made hands."""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from oracle import (
    free_decompositions,
    is_jiao,
    is_sentence,
    oracle_best_huxi,
    oracle_partial_best_huxi,
    parse,
    sentence_or_jiao_huxi,
)


def P(text):
    return parse(text)


def C(text):
    (c,) = parse(text)
    return c


# ---------------------------------------------------------------- basics


def test_doc_example_18():
    hand = P("一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖")
    assert len(hand) == 20
    for source in ("other", "liangzhang", "self"):
        assert oracle_best_huxi(hand, [], C("拾"), source) == 18


def test_no_arrangement_is_none():
    hand = P("一一三三五五七七九九 壹壹叁叁伍伍柒柒玖玖")
    assert oracle_best_huxi(hand, [], C("拾"), "other") is None
    assert oracle_best_huxi(hand, [], C("拾"), "self") is None


def test_hand_order_irrelevant():
    hand = P("一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖")
    rng = random.Random(7)
    for _ in range(5):
        rng.shuffle(hand)
        assert oracle_best_huxi(hand, [], C("拾"), "other") == 18


# ------------------------------------------------------- kan / ti forcing


def test_self_kan_forces_ti_blocking_free_use():
    # 三三三 is a 坎; with another's 三 the kan stays and 一二三 forms (3+3+6);
    # self-drawn 三 must make 提, which leaves 一二 stranded.
    hand = P("三三三 一二 四五六 七八九 壹贰叁 肆伍陆 柒捌玖")
    assert oracle_best_huxi(hand, [], C("三"), "other") == 12
    assert oracle_best_huxi(hand, [], C("三"), "liangzhang") == 12
    assert oracle_best_huxi(hand, [], C("三"), "self") is None


def test_self_kan_ti_scores_ti():
    # 提 三 (9) + pair 一一 + 壹贰叁 (6) = 15; from another: 跑 (6) + 6 = 12
    hand = P("三三三 一一 四五六 七八九 壹贰叁 肆伍陆 柒捌玖")
    assert oracle_best_huxi(hand, [], C("三"), "self") == 15
    assert oracle_best_huxi(hand, [], C("三"), "other") == 12


def test_hand_four_of_a_kind_is_locked_ti():
    # 肆肆肆肆 in hand is a 提 (12) -> pair required
    hand = P("肆肆肆肆 一二三 四五六 七八九 壹贰叁 柒捌玖 五")
    assert len(hand) == 20
    assert oracle_best_huxi(hand, [], C("五"), "other") == 12 + 3 + 6
    # no pair possible -> invalid
    assert oracle_best_huxi(hand, [], C("拾"), "other") is None


# ------------------------------------------------------ pair -> wei / peng


def test_self_pair_forces_wei():
    # other: 一一壹 + 一二三 = 3 (the 碰 option strands 壹二三);
    # self: forced 偎 strands 壹二三 -> None
    hand = P("一一壹二三 四五六 七八九 肆伍陆 柒捌玖 贰叁肆")
    assert len(hand) == 20
    assert oracle_best_huxi(hand, [], C("一"), "other") == 3
    assert oracle_best_huxi(hand, [], C("一"), "self") is None


def test_wei_vs_peng_scores_and_no_free_triplet():
    hand = P("一一 四五六 七八九 肆伍陆 柒捌玖 贰叁肆 壹贰叁")
    # self: 偎 一 (3) + 6; other: 碰 一 (1) + 6 (一一一 free is not a group)
    assert oracle_best_huxi(hand, [], C("一"), "self") == 9
    assert oracle_best_huxi(hand, [], C("一"), "other") == 7
    assert free_decompositions((0, 0, 0)) == {}


# -------------------------------------------------------- table melds


def test_table_peng_self_may_stay_free():
    peng = [("peng", P("五五五"))]
    hand = P("四六 一二三 七八九 壹贰叁 肆伍陆 柒捌玖")
    # 跑 would strand 四六; X used freely: 碰 1 + 四五六 0 + 3 + 6
    assert oracle_best_huxi(hand, peng, C("五"), "self") == 10
    assert oracle_best_huxi(hand, peng, C("五"), "other") == 10


def test_table_peng_becomes_pao_with_pair():
    peng = [("peng", P("五五五"))]
    hand = P("十十 一二三 七八九 壹贰叁 肆伍陆 柒捌玖")
    assert oracle_best_huxi(hand, peng, C("五"), "self") == 6 + 3 + 6
    assert oracle_best_huxi(hand, peng, C("五"), "other") == 6 + 3 + 6


def test_table_wei_self_forces_ti():
    wei = [("wei", P("五五五"))]
    hand = P("四六 一二三 七八九 壹贰叁 肆伍陆 柒捌玖")
    assert oracle_best_huxi(hand, wei, C("五"), "self") is None
    assert oracle_best_huxi(hand, wei, C("五"), "other") == 3 + 3 + 6
    chou = [("chouwei", P("五五五"))]
    assert oracle_best_huxi(hand, chou, C("五"), "self") is None
    hand2 = P("十十 一二三 七八九 壹贰叁 肆伍陆 柒捌玖")
    assert oracle_best_huxi(hand2, wei, C("五"), "self") == 9 + 3 + 6
    assert oracle_best_huxi(hand2, wei, C("五"), "other") == 6 + 3 + 6


def test_pair_iff_pao_or_ti():
    hand = P("一二三 四五六 七八九 壹贰叁 肆伍陆 十")
    ti = [("ti", P("拾拾拾拾"))]
    assert oracle_best_huxi(hand, ti, C("十"), "other") == 12 + 3 + 6
    chi = [("chi", P("捌玖拾"))]
    assert oracle_best_huxi(hand, chi, C("十"), "other") is None


def test_chi_meld_scores():
    melds = [("chi", P("一二三")), ("chi", P("贰柒拾")), ("chi", P("九九玖"))]
    hand = P("四五六 七八九 壹贰叁 肆伍")
    assert oracle_best_huxi(hand, melds, C("陆"), "other") == 3 + 6 + 0 + 6
    assert oracle_partial_best_huxi(hand, melds) == 3 + 6 + 6


# ------------------------------------------------------------ partial


def test_partial():
    assert oracle_partial_best_huxi(P("一二三七十"), []) == 3
    assert oracle_partial_best_huxi(P("一二二三七十"), []) == 6
    assert oracle_partial_best_huxi(P("五五五 陆陆陆陆 壹贰叁 九"), []) == 3 + 12 + 6
    # a 坎 of 二 is locked, so no scoring sentence can use those 二
    assert oracle_partial_best_huxi(P("二二二 一三七十"), []) == 3
    assert oracle_partial_best_huxi([], [("pao", P("八八八八"))]) == 6


# -------------------------------------- free decomposition vs naive search


def _naive_partitions(cards):
    """Every partition of the card positions into groups (no shape list)."""
    cards = list(cards)
    if not cards:
        yield []
        return
    first, rest = cards[0], cards[1:]
    n = len(rest)
    for i in range(n):
        grp = [first, rest[i]]
        if grp[0] == grp[1]:
            others = rest[:i] + rest[i + 1 :]
            for p in _naive_partitions(others):
                yield [tuple(grp), *p]
        for j in range(i + 1, n):
            grp3 = [first, rest[i], rest[j]]
            if is_sentence(grp3) or is_jiao(grp3):
                others = [rest[k] for k in range(n) if k not in (i, j)]
                for p in _naive_partitions(others):
                    yield [tuple(grp3), *p]


def _naive_decomp(cards):
    out = {}
    for part in _naive_partitions(cards):
        pairs = sum(1 for g in part if len(g) == 2)
        if pairs > 1:
            continue
        key = (len(part), pairs)
        h = sum(sentence_or_jiao_huxi(g) for g in part if len(g) == 3)
        out[key] = max(out.get(key, -1), h)
    return out


def test_free_decomposition_matches_naive():
    rng = random.Random(12345)
    deck = [k for k in range(20) for _ in range(2)]
    for _ in range(300):
        n = rng.choice([2, 3, 5, 6, 8, 9])
        # draw from a narrow window so that groups actually form
        lo = rng.randrange(0, 20)
        window = [
            c for c in deck if lo <= c < lo + 4 or c % 10 == lo % 10 or c in (1, 6, 9, 11, 16, 19)
        ]
        cards = sorted(rng.sample(window, min(n, len(window))))
        assert free_decompositions(tuple(cards)) == _naive_decomp(cards), cards


# ------------------------------- constructed winning hands: lower bound

_SAME_HUXI = {
    "kan": (3, 6),
    "peng": (1, 3),
    "wei": (3, 6),
    "chouwei": (3, 6),
    "pao": (6, 9),
    "ti": (9, 12),
}


def _random_three(rng):
    """A random sentence (incl. 2-7-10) or 绞."""
    base = 10 if rng.random() < 0.5 else 0
    r = rng.random()
    if r < 0.6:
        v = rng.randrange(0, 8)
        return [base + v, base + v + 1, base + v + 2]
    if r < 0.75:
        return [base + 1, base + 6, base + 9]
    v = rng.randrange(0, 10)
    return sorted([v, v + 10, v + (10 if rng.random() < 0.5 else 0)])


def _construct(rng):
    """A 7-门子 winning arrangement: (hand+X, melds, kan kinds, huxi)."""
    hand, melds, kans, huxi = [], [], [], 0
    has_pt = rng.random() < 0.5
    slots = 7
    if has_pt:
        k = rng.randrange(20)
        kind = rng.choice(["pao", "ti"])
        melds.append((kind, [k] * 4))
        huxi += _SAME_HUXI[kind][k >= 10]
        p = rng.randrange(20)
        hand += [p, p]
        slots -= 2
    for _ in range(slots):
        r = rng.random()
        if r < 0.6:
            g = _random_three(rng)
            hand += g
            huxi += sentence_or_jiao_huxi(g)
        elif r < 0.7:
            g = _random_three(rng)
            melds.append(("chi", g))
            huxi += sentence_or_jiao_huxi(g)
        elif r < 0.8:
            k = rng.randrange(20)
            hand += [k] * 3
            kans.append(k)
            huxi += _SAME_HUXI["kan"][k >= 10]
        else:
            k = rng.randrange(20)
            kind = rng.choice(["peng", "wei", "chouwei"] + (["pao", "ti"] if has_pt else []))
            melds.append((kind, [k] * (4 if kind in ("pao", "ti") else 3)))
            huxi += _SAME_HUXI[kind][k >= 10]
    return hand, melds, kans, huxi


def test_constructed_winning_hands_lower_bound():
    """The oracle finds at least the huxi of any arrangement we build."""
    rng = random.Random(2024)
    checked = 0
    for _ in range(5000):
        full, melds, kans, claimed = _construct(rng)
        allc = full + [c for _, g in melds for c in g]
        if max(allc.count(k) for k in range(20)) > 4:
            continue
        if len(kans) != len(set(kans)):
            continue
        # winning card X: a non-坎 hand card (the pair or a sentence/jiao card)
        free = list(full)
        for k in kans:
            for _ in range(3):
                free.remove(k)
        if not free:
            continue
        x = rng.choice(free)
        h = list(full)
        h.remove(x)
        # the built arrangement is legal only if the hand's 3/4-of-a-kinds
        # are exactly the built 坎 (else they would be locked differently)
        if sorted(k for k in range(20) if h.count(k) >= 3) != sorted(kans):
            continue
        if any(h.count(k) == 4 for k in range(20)):
            continue
        got = oracle_best_huxi(h, melds, x, "other")
        assert got is not None and got >= claimed, (h, melds, x, claimed, got)
        checked += 1
    assert checked > 500, checked
