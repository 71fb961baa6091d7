"""名堂 and settlement (docs/rules.md §5, §6.3, §6.4, §7, §9).

Every expected number below is worked out by hand from docs/rules.md; the comments
show the arithmetic. Hands are real positions solved by :func:`solve`, so a
wrong count of red / big / small cards (§7.2: "over all cards the winner owns,
winning card included") shows up here too.
"""

from __future__ import annotations

import pytest

from paohuzi.core.cards import Card, parse_cards
from paohuzi.core.groups import Group, GroupKind
from paohuzi.core.mingtang import HandFacts, find_mingtang
from paohuzi.core.rules import Ruleset
from paohuzi.core.settlement import (
    Huangzhuang,
    SettlementError,
    Taopao,
    WinContext,
    Won,
    beans_of,
    escape_penalty,
    payout,
    settle,
    split_escape_penalty,
    win_context,
)
from paohuzi.core.solver import Arrangement, solve, solve_tianhu

# ---------------------------------------------------------------- helpers


def win(hand: str, card: str, source: str = "other", melds: tuple[Group, ...] = (),
        *, dealer: bool = False) -> Arrangement:
    """The best winning arrangement of ``hand`` + ``melds`` + ``card``."""
    arrangement = solve(parse_cards(hand), list(melds), Card.parse(card), source, dealer=dealer)
    assert arrangement is not None, f"{hand} + {card} should win"
    return arrangement


def fans(scheme: str, red: int, big: int = 9, small: int = 12,
         all_identical: bool = False) -> dict[str, int]:
    """{名堂: 番} found for some hand facts under a scheme."""
    found = find_mingtang(scheme, HandFacts(red, big, small, all_identical))
    out = {m.name: m.fan for m in found}
    assert len(out) == len(found), "a 名堂 must not be listed twice"
    return out


QQ = Ruleset.preset("qq")
CHANGDE = Ruleset.preset("changde")
HUNAN = Ruleset.preset("hunan")

# The hands used end to end. Each comment gives its groups, 胡息 (§5) and its
# red / big / small counts (§1, §7.2), winning card included.

# docs/rules.md §7 example: 一二三(3) 二七十(3) 壹贰叁(6) 贰柒拾(6) 四五六 七八九 捌玖拾 = 18;
# red 二 + 二七十 + 贰 + 贰柒拾 + 七 + 拾 = 10 (假点胡 in qq, 红胡 in changde/hunan).
EXAMPLE = "一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖"

# 平胡: 一二三(3) 三四五 四五六 壹贰叁(6) 贰柒拾(6) 叁肆伍 九九玖 = 15;
# red 二 贰 贰 柒 拾 = 5, big 10, small 11: no 名堂 in any scheme.
PINGHU = "一二三 三四五 四五六 壹贰叁 贰柒拾 叁肆伍 九玖"

# 真点胡 / 点胡: 一二三(3) 坎叁(6) 坎肆(6) 三四五 四五六 八八捌 九玖玖 = 15; only red card 二.
DIANHU = "一二三 叁叁叁 肆肆肆 三四五 四五 八八捌 九玖玖"

# 小字胡: 一二三(3) 二七十(3) 三四五 四五六 六七八 坎九(3) 壹贰叁(6) = 15;
# small 18, big 3, red 二 二 七 七 十 贰 = 6.
XIAOZI = "一二三 二七十 三四五 四五六 六七 九九九 壹贰叁"

# 大字胡: 壹贰叁(6) 贰柒拾(6) 叁肆伍 肆伍陆 陆柒捌 坎玖(6) 一二三(3) = 21;
# big 18, small 3, red 贰 贰 柒 柒 拾 二 = 6.
DAZI = "壹贰叁 贰柒拾 叁肆伍 肆伍陆 陆柒 玖玖玖 一二三"

# 乌对 (no red, all identical): 碰一(1) 碰三(1) 坎壹 坎叁 坎肆 坎伍 (6 each) 碰捌(3) = 29.
WUDUI_MELDS = (Group.parse("peng", "一一一"), Group.parse("peng", "三三三"))
WUDUI = "壹壹壹 叁叁叁 肆肆肆 伍伍伍 捌捌"

# 红对 (12 red, all identical): 碰贰(3) 偎十(3) 坎二(3) 坎七(3) 坎壹(6) 坎叁(6) 碰四(1) = 25.
HONGDUI_MELDS = (Group.parse("peng", "贰贰贰"), Group.parse("wei", "十十十"))
HONGDUI = "二二二 七七七 壹壹壹 叁叁叁 四四"

# 红乌对 (15 red, all identical): 碰贰(3) 偎十(3) 坎二(3) 坎七(3) 坎柒(6) 坎叁(6) 碰四(1) = 25.
HONGWUDUI = "二二二 七七七 柒柒柒 叁叁叁 四四"


# ---------------------------------------------------------------- §7.2 qq 名堂


@pytest.mark.parametrize(
    ("red", "expected"),
    [
        (0, {"乌胡": 5}),
        (1, {"真点胡": 4}),
        (2, {}),
        (3, {}),
        (4, {"红胡": 2}),
        (5, {}),
        (6, {}),
        (7, {"红胡": 2}),
        (8, {}),
        (9, {}),
        (10, {"假点胡": 3}),
        (11, {"红胡": 2}),
        (12, {"红胡": 2}),
        (13, {"红乌": 4}),
        (14, {"红乌": 5}),
        (16, {"红乌": 7}),
    ],
)
def test_qq_red_mingtang_boundaries(red, expected):
    """§7.2: 红胡 4/7/11–12 (2), 真点胡 1 (4), 假点胡 10 (3), 红乌 13+ (4 + 1 per red above 13),
    乌胡 0 (5); any other red count is no red 名堂."""
    assert fans("qq", red) == expected


@pytest.mark.parametrize(
    ("big", "expected"),
    [(17, {}), (18, {"大字胡": 6}), (19, {"大字胡": 7}), (21, {"大字胡": 9})],
)
def test_qq_dazihu_boundaries(big, expected):
    """§7.2: 大字胡 needs 18+ big cards: 6, plus 1 per big card above 18. (red 5: no red 名堂)"""
    assert fans("qq", red=5, big=big, small=21 - big) == expected


@pytest.mark.parametrize(
    ("small", "expected"),
    [(15, {}), (16, {"小字胡": 8}), (17, {"小字胡": 9}), (21, {"小字胡": 13})],
)
def test_qq_xiaozihu_boundaries(small, expected):
    """§7.2: 小字胡 needs 16+ small cards: 8, plus 1 per small card above 16."""
    assert fans("qq", red=5, big=21 - small, small=small) == expected


def test_qq_duiduihu():
    """§7.2: 对对胡 (every 门子 of identical cards) is 5 番."""
    assert fans("qq", red=5, all_identical=True) == {"对对胡": 5}


@pytest.mark.parametrize(
    ("red", "big", "small", "identical", "expected"),
    [
        # 乌胡 5 + 对对胡 5
        (0, 12, 9, True, {"乌胡": 5, "对对胡": 5}),
        # 红胡 2 + 大字胡 6 + 1
        (4, 19, 2, False, {"红胡": 2, "大字胡": 7}),
        # 乌胡 5 + 小字胡 8 + 1
        (0, 4, 17, False, {"乌胡": 5, "小字胡": 9}),
        # 真点胡 4 + 对对胡 5
        (1, 9, 12, True, {"真点胡": 4, "对对胡": 5}),
        # 红乌 4 + 2 + 对对胡 5 + 大字胡 6
        (15, 18, 3, True, {"红乌": 6, "对对胡": 5, "大字胡": 6}),
    ],
)
def test_qq_several_mingtang_are_all_listed(red, big, small, identical, expected):
    """§7.2: 番数 is the sum of every 名堂 that applies, so each one is found."""
    assert fans("qq", red, big, small, identical) == expected


# ---------------------------------------------------------------- §9 changde 花样


@pytest.mark.parametrize(
    ("red", "identical", "expected"),
    [
        (10, False, {"红胡": 2}),
        (11, False, {"红胡": 2}),
        (12, False, {"红胡": 2}),
        (4, False, {}),  # 4 and 7 red are 红胡 in qq only
        (7, False, {}),
        (9, False, {}),
        (1, False, {"点胡": 3}),
        (13, False, {"红乌": 4}),
        (16, False, {"红乌": 4}),  # no increment per red above 13
        (0, False, {"乌胡": 5}),
        (5, True, {"对对胡": 4}),
        (0, True, {"乌对": 10}),  # 乌 + 对 = 10, one entry
        (11, True, {"红胡": 2, "对对胡": 4}),
        (14, True, {"红乌": 4, "对对胡": 4}),
    ],
)
def test_changde_huayang(red, identical, expected):
    """§9 changde: 红胡 10–12 ×2, 点胡 1 ×3, 红乌 13+ ×4, 乌胡 ×5, 对对胡 ×4, 乌+对 = 10."""
    assert fans("changde", red, all_identical=identical) == expected


# ---------------------------------------------------------------- §9 hunan: one 名堂


@pytest.mark.parametrize(
    ("red", "identical", "expected"),
    [
        (10, False, ("红胡", 2)),
        (11, False, ("红胡", 2)),
        (12, False, ("红胡", 2)),
        (1, False, ("点胡", 3)),
        (13, False, ("红乌", 4)),
        (15, False, ("红乌", 4)),
        (5, True, ("对对胡", 4)),
        (0, False, ("乌胡", 5)),
        (12, True, ("红对", 6)),
        (13, True, ("红乌对", 8)),
        (0, True, ("乌对", 10)),
        # 点胡 ×3 and 对对胡 ×4 both hold and form no combination: the one that
        # applies is the larger, 对对胡.
        (1, True, ("对对胡", 4)),
    ],
)
def test_hunan_exactly_one_mingtang(red, identical, expected):
    """§9 hunan: exactly one 名堂 applies: 红胡 2, 点胡 3, 红乌 4, 对对胡 4, 乌胡 5, 红对 6,
    红乌对 8, 乌对 10."""
    found = find_mingtang("hunan", HandFacts(red, 9, 12, identical))
    assert [(m.name, m.fan) for m in found] == [expected]


@pytest.mark.parametrize(
    ("red", "big", "small"), [(4, 9, 12), (7, 9, 12), (9, 9, 12), (5, 19, 2), (5, 3, 18)]
)
def test_hunan_no_mingtang_for_these_facts(red, big, small):
    """§9 hunan's list has no 4/7-red 红胡, no 大字胡 and no 小字胡: these are 平胡."""
    assert find_mingtang("hunan", HandFacts(red, big, small, False)) == []


@pytest.mark.parametrize(("big", "small"), [(20, 1), (1, 20)])
def test_changde_has_no_dazi_xiaozi(big, small):
    """§9 changde lists its 花样 (红胡 点胡 红乌 乌胡 对对胡 海底): no 大字胡 / 小字胡."""
    assert fans("changde", red=5, big=big, small=small) == {}


# ---------------------------------------------------------------- §7 qq settlement end to end


def test_rules_example_settlement():
    """§7 example: 18 胡息, x = (18 − 12) // 3 = 2, 假点胡 3 番, d = 3: each loser 2·3·3 = 18,
    the winner 2·18 = 36."""
    a = win(EXAMPLE, "拾")
    assert a.huxi == 18
    s = settle(a, WinContext(), QQ)
    assert (s.huxi, s.di, s.fan) == (18, 2, 3)
    assert [(m.name, m.fan) for m in s.mingtang] == [("假点胡", 3)]
    assert (s.loser_points, s.winner_points) == (-18, 36)
    assert (s.zimo, s.haidi, s.tianhu) == (False, False, False)


def test_zimo_adds_one_di_qq():
    """§7.1: 自摸 adds 1 to x: x = 2 + 1 = 3, 假点胡 3, d 3 → each loser 27, winner 54."""
    a = win(EXAMPLE, "拾", "self")
    assert a.huxi == 18
    s = settle(a, WinContext(zimo=True), QQ)
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (3, 3, -27, 54)
    assert s.zimo


def test_pinghu_settlement():
    """§7: 平胡 f = 1; 15 胡息 → x = 1; each loser 1·1·3 = 3, winner 6."""
    a = win(PINGHU, "九")
    assert a.huxi == 15
    s = settle(a, WinContext(), QQ)
    assert s.mingtang == ()
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (1, 1, -3, 6)


def test_haidi_on_pinghu_makes_fan_two():
    """§7.2: 海底 adds 1 番 to a 平胡 (f = 2): x 1 · f 2 · d 3 = 6 each."""
    s = settle(win(PINGHU, "九"), WinContext(haidi=True), QQ)
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (1, 2, -6, 12)
    assert s.haidi


def test_haidi_and_zimo_on_pinghu():
    """§7.1 + §7.2: x = 1 + 1 (自摸), f = 2 (海底 平胡): 2·2·3 = 12 each."""
    s = settle(win(PINGHU, "九", "self"), WinContext(zimo=True, haidi=True), QQ)
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (2, 2, -12, 24)


def test_haidi_adds_two_fan_to_mingtang_hu():
    """§7.2: 海底 adds 2 番 to a 名堂胡: 假点胡 3 + 2 = 5; 2·5·3 = 30 each."""
    s = settle(win(EXAMPLE, "拾"), WinContext(haidi=True), QQ)
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (2, 5, -30, 60)
    assert "海底" not in {m.name for m in s.mingtang}  # §7.2: 海底 is not a 名堂


def test_haidi_on_several_mingtang_adds_two_once():
    """§7.2: 乌胡 5 + 对对胡 5 + 海底 2 = 12; 29 胡息 → x = 17 // 3 = 5; 5·12·3 = 180."""
    s = settle(win(WUDUI, "捌", melds=WUDUI_MELDS), WinContext(haidi=True), QQ)
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (5, 12, -180, 360)


def test_wuhu_plus_duiduihu_is_ten_fan_qq():
    """§7.2: 乌胡 5 + 对对胡 5 = 10 番; 29 胡息 → x = 5; each 5·10·3 = 150."""
    a = win(WUDUI, "捌", melds=WUDUI_MELDS)
    assert a.huxi == 29
    assert a.all_identical
    s = settle(a, WinContext(), QQ)
    assert {m.name: m.fan for m in s.mingtang} == {"乌胡": 5, "对对胡": 5}
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (5, 10, -150, 300)


def test_duiduihu_with_pao_and_pair_qq():
    """§2/§7.2: with a 跑 the pair is a 门子 and counts as identical, so 对对胡 holds.
    跑伍(9) 碰捌(3) 坎壹 坎叁 坎肆 (6 each) 碰三(1) 对一 = 31, no red → 乌胡 + 对对胡 = 10;
    x = 19 // 3 = 6; each 6·10·3 = 180."""
    melds = (Group.parse("pao", "伍伍伍伍"), Group.parse("peng", "捌捌捌"))
    a = win("壹壹壹 叁叁叁 肆肆肆 一一 三三", "三", melds=melds)
    assert a.huxi == 31
    assert sum(g.kind is GroupKind.PAIR for g in a.groups) == 1
    s = settle(a, WinContext(), QQ)
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (6, 10, -180, 360)


def test_hongdui_qq_adds_hong_and_dui():
    """§7.2: 12 red → 红胡 2, all identical → 对对胡 5: f = 7; 25 胡息 → x = 13 // 3 = 4;
    each 4·7·3 = 84."""
    a = win(HONGDUI, "四", melds=HONGDUI_MELDS)
    assert a.huxi == 25
    s = settle(a, WinContext(), QQ)
    assert {m.name: m.fan for m in s.mingtang} == {"红胡": 2, "对对胡": 5}
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (4, 7, -84, 168)


def test_hongwu_dui_qq():
    """§7.2: 15 red → 红乌 4 + 2 = 6, + 对对胡 5 = 11; x = 4; each 4·11·3 = 132."""
    a = win(HONGWUDUI, "四", melds=HONGDUI_MELDS)
    assert a.huxi == 25
    s = settle(a, WinContext(), QQ)
    assert {m.name: m.fan for m in s.mingtang} == {"红乌": 6, "对对胡": 5}
    assert (s.fan, s.loser_points) == (11, -132)


def test_zhendianhu_end_to_end():
    """§7.2: exactly one red card (the 二 of 一二三) → 真点胡 4; 15 胡息 → x 1; 1·4·3 = 12."""
    a = win(DIANHU, "六")
    assert a.huxi == 15
    s = settle(a, WinContext(), QQ)
    assert [(m.name, m.fan) for m in s.mingtang] == [("真点胡", 4)]
    assert (s.loser_points, s.winner_points) == (-12, 24)


def test_xiaozihu_end_to_end():
    """§7.2: 18 small cards → 小字胡 8 + 2 = 10; 15 胡息 → x 1; 1·10·3 = 30."""
    a = win(XIAOZI, "八")
    assert a.huxi == 15
    s = settle(a, WinContext(), QQ)
    assert [(m.name, m.fan) for m in s.mingtang] == [("小字胡", 10)]
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (1, 10, -30, 60)


def test_dazihu_end_to_end():
    """§7.2: 18 big cards → 大字胡 6; 21 胡息 → x = 9 // 3 = 3; 3·6·3 = 54."""
    a = win(DAZI, "捌")
    assert a.huxi == 21
    s = settle(a, WinContext(), QQ)
    assert [(m.name, m.fan) for m in s.mingtang] == [("大字胡", 6)]
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (3, 6, -54, 108)


@pytest.mark.parametrize(("base", "loser"), [(1, -6), (3, -18), (10, -60)])
def test_base_score_scales_points(base, loser):
    """§7.3: each loser pays x·f·d: 2·3·d for the §7 example; the winner gets twice that."""
    s = settle(win(EXAMPLE, "拾"), WinContext(), Ruleset.preset("qq", base=base))
    assert (s.loser_points, s.winner_points) == (loser, -2 * loser)


def test_beans_are_points_times_multiplier():
    """§7.5: beans = points × the room multiplier: 18 · 5 = 90 per loser, 36 · 5 = 180."""
    s = settle(win(EXAMPLE, "拾"), WinContext(), Ruleset.preset("qq", multiplier=5))
    assert (s.loser_points, s.winner_points) == (-18, 36)
    assert (s.loser_beans, s.winner_beans) == (-90, 180)


def test_two_player_one_loser_pays_the_winner():
    """§9 two-player / §7.3: one loser, so the winner gets exactly what he pays:
    大字胡 hand (21 胡息 ≥ 21): 3·6·3 = 54."""
    s = settle(win(DAZI, "捌"), WinContext(), Ruleset.preset("two-player"))
    assert (s.loser_points, s.winner_points) == (-54, 54)


# ---------------------------------------------------------------- §6.4 / §7.1 天胡


TIANHU_3TI = "四四四四 五五五五 肆肆肆肆 一二三 壹贰叁 八 九 玖"
TIANHU_5KAN = "一一一 三三三 壹壹壹 叁叁叁 肆肆肆 二 贰 拾 柒 五"


def test_solve_tianhu_three_ti():
    """§6.4: 3 提 win at once; 提四 9 + 提五 9 + 提肆 12 + 一二三 3 + 壹贰叁 6 = 39;
    八 九 玖 are left over."""
    a = solve_tianhu(parse_cards(TIANHU_3TI))
    assert a is not None
    assert a.huxi == 39
    assert sorted(a.leftover) == parse_cards("八九玖")
    assert sum(g.kind is GroupKind.TI for g in a.groups) == 3


def test_solve_tianhu_three_ti_one_on_table():
    """§6.4: a 提 already laid down counts too (same hand, 提四 on the table): 39."""
    hand = "五五五五 肆肆肆肆 一二三 壹贰叁 八 九 玖"
    a = solve_tianhu(parse_cards(hand), [Group.parse("ti", "四四四四")])
    assert a is not None
    assert a.huxi == 39


def test_solve_tianhu_five_kan():
    """§6.4: 5 坎: 坎一 3 + 坎三 3 + 坎壹 6 + 坎叁 6 + 坎肆 6 + 贰柒拾 6 = 30; 二 五 left over
    (the 坎 一/三 are never broken for 一二三)."""
    a = solve_tianhu(parse_cards(TIANHU_5KAN))
    assert a is not None
    assert a.huxi == 30
    assert sorted(a.leftover) == parse_cards("二五")


def test_solve_tianhu_ti_counts_as_kan():
    """§6.4: a 提 counts as a 坎: 1 提 + 4 坎 is a 天胡. 提一 9 + 3 + 6 + 6 + 6 = 30."""
    a = solve_tianhu(parse_cards("一一一一 三三三 壹壹壹 叁叁叁 肆肆肆 二 五 六 七"))
    assert a is not None
    assert a.huxi == 30


@pytest.mark.parametrize(
    "hand",
    [
        "一一一 三三三 壹壹壹 叁叁叁 二 五 六 七 八 九 十 贰",  # 4 坎
        "一一一一 三三三三 壹壹壹 叁叁叁 五 六 七 八 九",  # 2 提 + 2 坎 = 4
        "一一一一 三三三三 壹壹壹 五 六 七 八 九 十 贰 柒",  # a 坎 is never a 提: not 3 提
    ],
)
def test_solve_tianhu_none(hand):
    """§6.4: fewer than 3 提 and fewer than 5 提+坎: no mandatory 天胡."""
    assert solve_tianhu(parse_cards(hand)) is None


def test_tianhu_settlement_three_ti():
    """§7.1: 天胡 x = (2h − 12) // 3, 自摸 +1 (§6.4: a mandatory 天胡 is 自摸):
    h 39 → (78 − 12) // 3 = 22, + 1 = 23; red 2 → 平胡 f 1; each 23·1·3 = 69."""
    a = solve_tianhu(parse_cards(TIANHU_3TI))
    assert a is not None
    s = settle(a, WinContext(zimo=True, tianhu=True), QQ)
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (23, 1, -69, 138)
    assert s.tianhu and s.zimo


def test_tianhu_settlement_counts_leftover_cards():
    """§7.1/§7.2: 5 坎 天胡 h 30 → x = 48 // 3 + 1 = 17; red 二 贰 拾 柒 = 4 (leftovers
    included) → 红胡 2; each 17·2·3 = 102."""
    a = solve_tianhu(parse_cards(TIANHU_5KAN))
    assert a is not None
    s = settle(a, WinContext(zimo=True, tianhu=True), QQ)
    assert [(m.name, m.fan) for m in s.mingtang] == [("红胡", 2)]
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (17, 2, -102, 204)


def test_liangzhang_hu_non_dealer_not_zimo():
    """§6.4: a non-dealer winning on the 亮张 is a 天胡 but not 自摸:
    x = (36 − 12) // 3 = 8; 假点胡 3; each 8·3·3 = 72."""
    a = win(EXAMPLE, "拾", "liangzhang")
    assert a.huxi == 18
    s = settle(a, WinContext(tianhu=True), QQ)
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (8, 3, -72, 144)


def test_liangzhang_hu_dealer_is_zimo():
    """§6.4: the dealer's 天胡 counts as 自摸: x = 8 + 1 = 9; each 9·3·3 = 81."""
    a = win(EXAMPLE, "拾", "liangzhang", dealer=True)
    assert a.huxi == 18
    s = settle(a, WinContext(zimo=True, tianhu=True), QQ)
    assert (s.di, s.loser_points, s.winner_points) == (9, -81, 162)


# ---------------------------------------------------------------- §9 changde settlement


def test_changde_example_hand_is_honghu():
    """§9 changde: 10 red is 红胡 ×2 (not 假点胡); 等 = 1 + (18 − 15) // 3 = 2;
    each 2·2·3 = 12."""
    s = settle(win(EXAMPLE, "拾"), WinContext(), CHANGDE)
    assert [(m.name, m.fan) for m in s.mingtang] == [("红胡", 2)]
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (2, 2, -12, 24)


def test_changde_zimo_adds_one_deng():
    """§9 changde: 自摸 +1 等: 15 胡息 → 1 + 0 + 1 = 2; 平胡 f 1; each 2·1·3 = 6."""
    s = settle(win(PINGHU, "九", "self"), WinContext(zimo=True), CHANGDE)
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (2, 1, -6, 12)


def test_changde_wudui_is_one_entry_of_ten():
    """§9 changde: 乌 + 对 = 10; 等 = 1 + (29 − 15) // 3 = 5; each 5·10·3 = 150."""
    s = settle(win(WUDUI, "捌", melds=WUDUI_MELDS), WinContext(), CHANGDE)
    assert [(m.name, m.fan) for m in s.mingtang] == [("乌对", 10)]
    assert (s.di, s.fan, s.loser_points) == (5, 10, -150)


def test_changde_hongdui_adds_up():
    """§9 changde: 红胡 ×2 + 对对胡 ×4 = 6 (花样 add up); 等 = 1 + 10 // 3 = 4; 4·6·3 = 72."""
    s = settle(win(HONGDUI, "四", melds=HONGDUI_MELDS), WinContext(), CHANGDE)
    assert (s.di, s.fan, s.loser_points) == (4, 6, -72)


def test_changde_dianhu_zimo():
    """§9 changde: 点胡 ×3; 自摸 等 = 1 + 0 + 1 = 2; each 2·3·3 = 18."""
    s = settle(win(DIANHU, "六", "self"), WinContext(zimo=True), CHANGDE)
    assert [(m.name, m.fan) for m in s.mingtang] == [("点胡", 3)]
    assert (s.di, s.fan, s.loser_points) == (2, 3, -18)


# ---------------------------------------------------------------- §9 hunan settlement


def test_hunan_example_hand():
    """§9 hunan: 囤 = 1 + (18 − 15) // 3 = 2; 10 red → 红胡 ×2; each 2·2·3 = 12."""
    s = settle(win(EXAMPLE, "拾"), WinContext(), HUNAN)
    assert [(m.name, m.fan) for m in s.mingtang] == [("红胡", 2)]
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (2, 2, -12, 24)
    assert s.xingjia_points == 0


def test_hunan_zimo_adds_three_huxi_only():
    """§9 hunan: 自摸 adds 3 胡息 and nothing else: 囤 = 1 + (18 + 3 − 15) // 3 = 3
    (not 4); 红胡 2; each 3·2·3 = 18."""
    s = settle(win(EXAMPLE, "拾", "self"), WinContext(zimo=True), HUNAN)
    assert (s.di, s.fan, s.loser_points, s.winner_points) == (3, 2, -18, 36)


def test_hunan_pinghu():
    """§9 hunan: 5 red, mixed groups → no 名堂; 囤 1; each 1·1·3 = 3."""
    s = settle(win(PINGHU, "九"), WinContext(), HUNAN)
    assert s.mingtang == ()
    assert (s.di, s.fan, s.loser_points) == (1, 1, -3)


@pytest.mark.parametrize(
    ("hand", "card", "melds", "name", "fan", "loser"),
    [
        # 25 胡息: 囤 = 1 + 10 // 3 = 4
        (HONGDUI, "四", HONGDUI_MELDS, "红对", 6, -4 * 6 * 3),
        (HONGWUDUI, "四", HONGDUI_MELDS, "红乌对", 8, -4 * 8 * 3),
        # 29 胡息: 囤 = 1 + 14 // 3 = 5
        (WUDUI, "捌", WUDUI_MELDS, "乌对", 10, -5 * 10 * 3),
        # 15 胡息: 囤 1
        (DIANHU, "六", (), "点胡", 3, -1 * 3 * 3),
    ],
)
def test_hunan_one_mingtang_multiplies(hand, card, melds, name, fan, loser):
    """§9 hunan: exactly one 名堂 multiplies the 囤 (no adding of 红胡 and 对对胡)."""
    s = settle(win(hand, card, melds=melds), WinContext(), HUNAN)
    assert [(m.name, m.fan) for m in s.mingtang] == [(name, fan)]
    assert (s.fan, s.loser_points, s.winner_points) == (fan, loser, -2 * loser)


@pytest.mark.parametrize("base", [3, 7])
def test_hunan_xingjia_is_paid_one_unit(base):
    """§9 hunan: the 醒家 sits out and is paid one unit (d) by each loser; the winner and
    the two losers settle as without him."""
    rules = Ruleset.preset("hunan", xingjia=True, base=base)
    s = settle(win(EXAMPLE, "拾"), WinContext(), rules)
    assert s.xingjia_points == base
    assert (s.loser_points, s.winner_points) == (-4 * base, 8 * base)


# ---------------------------------------------------------------- §7.4 逃跑


@pytest.mark.parametrize(
    ("others_huxi", "base", "expected"),
    [
        (30, 3, (6 + 8) * 3),  # (30 − 12) // 3 = 6
        (15, 3, (1 + 8) * 3),
        (14, 3, (0 + 8) * 3),  # 2 // 3 = 0
        (12, 3, 8 * 3),
        (11, 3, 8 * 3),  # below 12: max(0, …) = 0
        (5, 3, 8 * 3),
        (0, 3, 8 * 3),
        (31, 1, 6 + 8),  # 19 // 3 = 6
        (45, 2, (11 + 8) * 2),
    ],
)
def test_escape_penalty(others_huxi, base, expected):
    """§7.4: the leaver loses (max(0, (H − 12) // 3) + 8) · d."""
    assert escape_penalty(others_huxi, Ruleset.preset("qq", base=base)) == expected


@pytest.mark.parametrize(
    ("penalty", "expected"),
    [(42, [21, 21]), (27, [14, 13]), (15, [8, 7]), (24, [12, 12]), (1, [1, 0])],
)
def test_split_escape_penalty(penalty, expected):
    """§7.4: the two others gain half each; the first in turn takes the odd point."""
    assert split_escape_penalty(penalty, 2) == expected
    assert sum(split_escape_penalty(penalty, 2)) == penalty


# ---------------------------------------------------------------- §6.3 / §6.4 win_context


@pytest.mark.parametrize(
    ("source", "dealer", "last", "zimo", "haidi", "tianhu"),
    [
        ("self", False, False, True, False, False),  # §6.3: own draw (偎胡/提胡 too)
        ("self", True, True, True, True, False),  # own draw, the wall's last card
        ("other", False, False, False, False, False),  # another seat's shown draw
        ("other", True, True, False, True, False),  # dealer or not: not 自摸; 海底 still
        ("liangzhang", True, False, True, False, True),  # §6.4: the dealer's 天胡 is 自摸
        ("liangzhang", False, False, False, False, True),  # a non-dealer's is not
        ("tianhu", False, False, True, False, True),  # mandatory 天胡: always 自摸
        ("tianhu", True, True, True, False, True),  # ... and never 海底 (no card)
    ],
)
def test_win_context(source, dealer, last, zimo, haidi, tianhu):
    """§6.3, §6.4 [decision]: 自摸 for one's own draw, every dealer 天胡 and every
    mandatory 天胡; 海底 for the wall's last card; 天胡 for the 亮张 and the deal."""
    assert win_context(source, dealer=dealer, last=last) == WinContext(zimo, haidi, tianhu)


def test_win_context_rejects_an_unknown_source():
    """A win source is one of Source's (a discard is one: 泸州 wins it, §9.1)."""
    with pytest.raises(SettlementError, match="unknown win source 'wall'"):
        win_context("wall")


# ---------------------------------------------------------------- §7.3–§7.5, §9 payout


def test_payout_of_a_win_without_xingjia():
    """§7.3: qq example hand, each loser −18, the winner +36; §7.5 beans ×5."""
    rules = Ruleset.preset("qq", multiplier=5)
    s = settle(win(EXAMPLE, "拾"), WinContext(), rules)
    p = payout(Won(2, s), rules)
    assert p.points == (-18, -18, 36)
    assert p.beans == (-90, -90, 180)
    assert (p.xingjia_points, p.xingjia_beans) == (0, 0)


@pytest.mark.parametrize("base", [3, 7])
def test_payout_of_a_win_pays_the_xingjia_one_unit_per_loser(base):
    """§9 hunan, N12: 囤 2, 红胡 ×2: each loser pays the winner 4d and the 醒家 d;
    the 醒家 gets 2d; beans ×2."""
    rules = Ruleset.preset("hunan", xingjia=True, base=base, multiplier=2)
    s = settle(win(EXAMPLE, "拾"), WinContext(), rules)
    p = payout(Won(0, s), rules)
    assert p.points == (8 * base, -5 * base, -5 * base)
    assert p.xingjia_points == 2 * base
    assert p.beans == (16 * base, -10 * base, -10 * base)
    assert p.xingjia_beans == 4 * base
    assert sum(p.points) + p.xingjia_points == 0


def test_payout_of_a_two_player_win():
    """N13: the one loser pays the winner exactly what the winner gets."""
    rules = Ruleset.preset("two-player")
    p = payout(Won(1, settle(win(DAZI, "捌"), WinContext(), rules)), rules)
    assert p.points == (-54, 54)


@pytest.mark.parametrize(("xingjia", "expected", "to_xingjia"),
                         [(False, (0, 0, 0), 0), (True, (0, -3, 0), 3)])
def test_payout_of_a_drawn_hand(xingjia, expected, to_xingjia):
    """§7.3: a drawn hand pays nothing; N12: with a 醒家 the dealer (here seat 1) pays
    him d = 3."""
    rules = Ruleset.preset("hunan", xingjia=xingjia, multiplier=4)
    p = payout(Huangzhuang(dealer=1), rules)
    assert p.points == expected
    assert (p.xingjia_points, p.xingjia_beans) == (to_xingjia, 4 * to_xingjia)
    assert p.beans == tuple(4 * x for x in expected)


@pytest.mark.parametrize(
    ("leaver", "others_huxi", "expected"),
    [
        (0, 30, (-42, 21, 21)),  # (6 + 8)·3 = 42, halves
        (2, 15, (14, 13, -27)),  # (1 + 8)·3 = 27; his 下家 (seat 0) takes the odd point
        (1, 15, (13, -27, 14)),  # 下家 of seat 1 is seat 2
    ],
)
def test_payout_of_an_escape(leaver, others_huxi, expected):
    """§7.4: the leaver pays the penalty, the others share it in turn order from his
    下家; the 醒家 gets nothing from an escape."""
    for rules in (QQ, Ruleset.preset("hunan", xingjia=True)):
        p = payout(Taopao(leaver, others_huxi), rules)
        assert p.points == expected
        assert p.xingjia_points == 0


@pytest.mark.parametrize(
    "outcome",
    [Huangzhuang(3), Huangzhuang(-1), Taopao(3, 20), Won(5, settle(win(EXAMPLE, "拾"),
                                                                    WinContext(), QQ))],
)
def test_payout_rejects_a_seat_out_of_range(outcome):
    with pytest.raises(SettlementError, match="there is no seat"):
        payout(outcome, QQ)


@pytest.mark.parametrize(("points", "multiplier", "beans"), [(-18, 5, -90), (36, 1, 36), (0, 9, 0)])
def test_beans_are_points_times_the_multiplier(points, multiplier, beans):
    """§7.5."""
    assert beans_of(points, Ruleset.preset("qq", multiplier=multiplier)) == beans
