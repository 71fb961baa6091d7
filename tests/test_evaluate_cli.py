"""End-to-end tests of ``paohuzi evaluate`` (the JSON command line), docs/rules.md §5–§7, §9.

Every expected value below is worked out by hand from docs/rules.md in the comment
next to it; none is copied from the program's output. The command is run as a
real subprocess: ``python -m paohuzi evaluate`` for most tests, and the
installed ``paohuzi`` console script at least once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest

CMD = [sys.executable, "-m", "paohuzi", "evaluate"]

# Card order for a canonical text of a group (small 1..10, then big 1..10).
ORDER = "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"

# The contract's example: 20 cards, winning on another player's 拾.
EXAMPLE_HAND = "一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖"
EXAMPLE = {
    "rules": "qq", "hand": EXAMPLE_HAND, "melds": [], "card": "拾", "source": "other",
    "dealer": False, "last": False, "tianhu": False, "base": 3, "multiplier": 1,
}


def run_raw(stdin: str, *args: str, cmd: list[str] | None = None
            ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*(cmd or CMD), *args], input=stdin, capture_output=True, text=True,
        encoding="utf-8", timeout=60, check=False,
    )


def ask(question: dict[str, Any], cmd: list[str] | None = None) -> dict[str, Any]:
    """Run one well-formed question: exit 0, nothing on stderr, one JSON object out."""
    proc = run_raw(json.dumps(question, ensure_ascii=False), cmd=cmd)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    answer = json.loads(proc.stdout)
    assert isinstance(answer, dict)
    return answer


def ask_bad(stdin: str) -> str:
    """Run one malformed question: exit 2, one line on stderr, nothing on stdout."""
    proc = run_raw(stdin)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].strip()
    return lines[0]


def q(**changes: Any) -> dict[str, Any]:
    """The example question with some keys changed (``None`` removes a key)."""
    out = dict(EXAMPLE)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def canon(text: str) -> str:
    return "".join(sorted((c for c in text if not c.isspace()), key=ORDER.index))


def group_set(answer: dict[str, Any]) -> Counter[tuple[str, int]]:
    return Counter((canon(g["cards"]), g["huxi"]) for g in answer["groups"])


def check_groups(answer: dict[str, Any], owned: str) -> None:
    """7 groups, covering exactly the cards owned, their 胡息 adding up to ``huxi``."""
    groups = answer["groups"]
    assert len(groups) == 7
    covered = Counter(c for g in groups for c in g["cards"] if not c.isspace())
    assert covered == Counter(c for c in owned if not c.isspace())
    assert sum(g["huxi"] for g in groups) == answer["huxi"]


# ---- 1. the contract's example ------------------------------------------------------

def test_example_end_to_end() -> None:
    a = ask(EXAMPLE)
    assert a["hu"] is True
    # 一二三 3 + 二七十 3 + 壹贰叁 6 + 贰柒拾 6 + 四五六 0 + 七八九 0 + 捌玖拾 0 = 18 (§5).
    assert a["huxi"] == 18
    check_groups(a, EXAMPLE_HAND + "拾")
    assert group_set(a) == Counter({
        ("一二三", 3): 1, ("二七十", 3): 1, ("壹贰叁", 6): 1, ("贰柒拾", 6): 1,
        ("四五六", 0): 1, ("七八九", 0): 1, ("捌玖拾", 0): 1,
    })
    assert all(g["kind"] == "sentence" for g in a["groups"])
    assert a["zimo"] is False and a["haidi"] is False and a["tianhu"] is False
    # x = (18 - 12) // 3 = 2 (§7.1).
    assert a["di"] == 2
    # Red: 二 二七十 贰 贰柒拾 七 拾 = 1+3+1+3+1+1 = 10 → 假点胡 3 番; big 9, small 12.
    assert a["fan"] == 3
    assert a["mingtang"] == [{"name": "假点胡", "fan": 3}]
    # Loser -x·f·d = -2·3·3 = -18, winner +36; beans × 1.
    assert a["points"] == {"winner": 36, "loser": -18}
    assert a["beans"] == {"winner": 36, "loser": -18}


def test_example_through_installed_console_script() -> None:
    script = shutil.which("paohuzi")
    assert script is not None, "the paohuzi console script is not installed"
    a = ask(EXAMPLE, cmd=[script, "evaluate"])
    assert (a["hu"], a["huxi"], a["di"], a["fan"]) == (True, 18, 2, 3)
    assert a["points"] == {"winner": 36, "loser": -18}
    # A malformed question through the script too.
    proc = run_raw("{", cmd=[script, "evaluate"])
    assert proc.returncode == 2 and proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1


def test_defaults_rules_base_multiplier_source() -> None:
    # rules qq, base 3, multiplier 1, source other, flags false are the defaults.
    a = ask({"hand": EXAMPLE_HAND, "card": "拾"})
    assert (a["hu"], a["huxi"], a["di"], a["fan"]) == (True, 18, 2, 3)
    assert a["zimo"] is False
    assert a["points"] == {"winner": 36, "loser": -18}
    assert a["beans"] == {"winner": 36, "loser": -18}


def test_ascii_card_notation_accepted() -> None:
    # §11: x1..x10 small, d1..d10 big, accepted everywhere a card is parsed.
    hand = "x1 x2 x3 x2 x7 x10 d1 d2 d3 d2 d7 d10 x4 x5 x6 x7 x8 x9 d8 d9"
    a = ask(q(hand=hand, card="d10"))
    assert (a["hu"], a["huxi"], a["fan"]) == (True, 18, 3)


# ---- 2. not winning ----------------------------------------------------------------

def test_below_15_huxi_does_not_win() -> None:
    # 四五六 七八九 肆伍陆 柒捌玖 一二三 二七十 五六+七: 7 门子 but 3 + 3 = 6 胡息 at most
    # (one 一, one 十: only one 一二三 and one 二七十 are possible).
    hand = "四五六 七八九 肆伍陆 柒捌玖 一二三 二七十 五六"
    a = ask(q(hand=hand, card="七"))
    assert a["hu"] is False
    assert isinstance(a["reason"], str) and a["reason"]


def test_not_seven_menzi_does_not_win() -> None:
    # Example hand + 五: 8 big cards (壹贰贰叁柒捌玖拾) need 绞 taking 2 mod 3 of them:
    # 二贰贰 leaves 壹叁 stranded; 二二贰+七七柒 leaves small 一 with no 二. No split.
    a = ask(q(card="五"))
    assert a["hu"] is False
    assert isinstance(a["reason"], str) and a["reason"]
    assert "groups" not in a


# ---- 3. source variants ------------------------------------------------------------

def test_zimo_adds_one_to_di() -> None:
    a = ask(q(source="self"))
    assert a["hu"] is True and a["zimo"] is True and a["tianhu"] is False
    assert a["huxi"] == 18
    # x = 2 + 1 (自摸) = 3; f = 3 → loser -27, winner 54.
    assert a["di"] == 3 and a["fan"] == 3
    assert a["points"] == {"winner": 54, "loser": -27}


def test_haidi_on_mingtang_hand_adds_two_fan() -> None:
    a = ask(q(last=True))
    assert a["hu"] is True and a["haidi"] is True and a["zimo"] is False
    # 假点胡 3 + 海底 2 (on a 名堂胡) = 5; x = 2 → loser -2·5·3 = -30.
    assert a["di"] == 2 and a["fan"] == 5
    assert a["points"] == {"winner": 60, "loser": -30}


def test_liangzhang_dealer_is_tianhu_and_zimo() -> None:
    a = ask(q(source="liangzhang", dealer=True))
    assert a["hu"] is True and a["tianhu"] is True and a["zimo"] is True
    assert a["huxi"] == 18
    # 天胡: x = (2·18 - 12) // 3 + 1 (自摸) = 8 + 1 = 9; f = 3 → loser -81.
    assert a["di"] == 9 and a["fan"] == 3
    assert a["points"] == {"winner": 162, "loser": -81}


def test_liangzhang_non_dealer_is_tianhu_not_zimo() -> None:
    a = ask(q(source="liangzhang", dealer=False))
    assert a["hu"] is True and a["tianhu"] is True and a["zimo"] is False
    # x = (36 - 12) // 3 = 8; f = 3 → loser -72.
    assert a["di"] == 8 and a["fan"] == 3
    assert a["points"] == {"winner": 144, "loser": -72}


def test_no_liangzhang_win_where_the_21st_card_is_not_shown() -> None:
    """§9.1: luzhou shows no 亮张 (no 亮张 win): only the dealer's own 21 cards win at
    the deal. And the 亮张 is never the wall's last card (§6.3: no 海底 on it)."""
    luzhou = {"rules": "luzhou", "hand": "二七十 二七十 四五六 四五六 伍陆柒 叁肆伍 九九",
              "card": "九", "source": "liangzhang"}
    error = ask_bad(json.dumps({**luzhou, "dealer": False}, ensure_ascii=False))
    assert "show no 亮张" in error, error
    dealer = ask({**luzhou, "dealer": True})  # his 21 cards: the 天胡 of §9.1
    assert dealer["hu"] is True and dealer["tianhu"] is True
    error = ask_bad(json.dumps(q(source="liangzhang", last=True), ensure_ascii=False))
    assert "never the wall's last card" in error, error


# ---- 4. table groups (melds) and how the winning card is grouped --------------------

@pytest.mark.parametrize("wei_kind", ["wei", "chouwei"])
def test_table_melds_counted(wei_kind: str) -> None:
    melds = [
        {"kind": "peng", "cards": "叁叁叁"},     # big 碰 3
        {"kind": wei_kind, "cards": "四四四"},  # small 偎/臭偎 3
        {"kind": "pao", "cards": "伍伍伍伍"},   # big 跑 9
        {"kind": "ti", "cards": "六六六六"},    # small 提 9
        {"kind": "chi", "cards": "贰柒拾"},     # eaten 贰柒拾 6
    ]
    # 17 table cards + 4 in hand = 21 owned; 2 跑/提 allow 20..21 (§4.4).
    # 跑/提 owned → one pair: 一二三 (3) + 十十 pair (0).
    a = ask(q(hand="一二三十", melds=melds, card="十"))
    assert a["hu"] is True
    # 3 + 3 + 9 + 9 + 6 + 3 + 0 = 33.
    assert a["huxi"] == 33
    check_groups(a, "叁叁叁四四四伍伍伍伍六六六六贰柒拾一二三十十")
    by_cards = {canon(g["cards"]): g for g in a["groups"]}
    expected_table = {
        "叁叁叁": ("peng", 3), "四四四": (wei_kind, 3), "伍伍伍伍": ("pao", 9),
        "六六六六": ("ti", 9),
    }
    for cards, (kind, huxi) in expected_table.items():
        g = by_cards[cards]
        assert (g["kind"], g["huxi"], g["table"]) == (kind, huxi, True)
    chi = by_cards["贰柒拾"]
    assert chi["huxi"] == 6 and chi["table"] is True
    assert chi["kind"] in ("sentence", "chi")
    assert by_cards["一二三"]["table"] is False and by_cards["一二三"]["huxi"] == 3
    assert by_cards["十十"]["huxi"] == 0 and by_cards["十十"]["table"] is False
    # Red: 贰柒拾 3 + 二 + 十十 = 6 → no 名堂 (平胡, f = 1); big 10, small 12.
    assert a["mingtang"] == [] and a["fan"] == 1
    # x = (33 - 12) // 3 = 7 → loser -7·1·3 = -21.
    assert a["di"] == 7
    assert a["points"] == {"winner": 42, "loser": -21}


def test_haidi_on_pinghu_makes_two_fan() -> None:
    melds = [
        {"kind": "peng", "cards": "叁叁叁"}, {"kind": "wei", "cards": "四四四"},
        {"kind": "pao", "cards": "伍伍伍伍"}, {"kind": "ti", "cards": "六六六六"},
        {"kind": "chi", "cards": "贰柒拾"},
    ]
    a = ask(q(hand="一二三十", melds=melds, card="十", last=True))
    # 平胡 + 海底 → f = 2; x = 7 → loser -7·2·3 = -42.
    assert a["haidi"] is True and a["fan"] == 2 and a["di"] == 7
    assert a["points"] == {"winner": 84, "loser": -42}


# Table 碰 壹壹壹 and 17 hand cards; the winning 壹 turns the 碰 into a 跑.
PENG_MELDS = [{"kind": "peng", "cards": "壹壹壹"}]
PENG_HAND = "贰柒拾 一二三 二七十 叁肆伍 陆柒捌 九九"


@pytest.mark.parametrize(("source", "zimo", "di", "loser"), [
    # x = (21 - 12) // 3 = 3, 平胡 (8 red) → -3·1·3 = -9; 自摸 x = 4 → -12.
    ("other", False, 3, -9),
    ("self", True, 4, -12),
])
def test_drawn_card_turns_table_peng_into_pao(source: str, zimo: bool, di: int,
                                              loser: int) -> None:
    # Used elsewhere (壹贰叁) the 壹 would leave 九九 with no 八/玖 and no pair allowed,
    # so the only win is the 跑: 壹壹壹壹 9 + pair 九九 + 贰柒拾 6 + 一二三 3 + 二七十 3
    # + 叁肆伍 0 + 陆柒捌 0 = 21.
    a = ask(q(hand=PENG_HAND, melds=PENG_MELDS, card="壹", source=source))
    assert a["hu"] is True
    assert a["huxi"] == 21
    check_groups(a, PENG_HAND + "壹壹壹壹")
    pao = [g for g in a["groups"] if canon(g["cards"]) == "壹壹壹壹"]
    assert len(pao) == 1
    assert (pao[0]["kind"], pao[0]["huxi"], pao[0]["table"]) == ("pao", 9, True)
    assert a["zimo"] is zimo
    assert a["mingtang"] == [] and a["fan"] == 1
    assert a["di"] == di
    assert a["points"] == {"winner": -2 * loser, "loser": loser}


# Hand 坎 三三三 with 一二: the 4th 三 wins only when used in 一二三.
KAN_HAND = "三三三 一二 壹贰叁 贰柒拾 四五六 七八九 肆伍陆"


def test_self_drawn_card_onto_kan_must_be_ti_po_pao_bu_po_ti() -> None:
    # Self-drawn 三 onto a hand 坎 must make a 提 (§4.2.1, 破跑不破提). With the 提 a
    # pair is required, and 一 can then join nothing (no free 三, one 一, one 壹).
    a = ask(q(hand=KAN_HAND, card="三", source="self"))
    assert a["hu"] is False
    assert isinstance(a["reason"], str) and a["reason"]


def test_other_players_card_onto_kan_may_break_the_pao() -> None:
    # Another's 三 may be used elsewhere (破跑胡): 坎 三三三 3 + 一二三 3 + 壹贰叁 6
    # + 贰柒拾 6 + 四五六 0 + 七八九 0 + 肆伍陆 0 = 18.
    a = ask(q(hand=KAN_HAND, card="三", source="other"))
    assert a["hu"] is True
    assert a["huxi"] == 18
    check_groups(a, KAN_HAND + "三")
    by_cards = {canon(g["cards"]): g for g in a["groups"]}
    assert by_cards["三三三"]["kind"] == "kan" and by_cards["三三三"]["huxi"] == 3
    assert by_cards["一二三"]["huxi"] == 3
    assert not any(len(canon(g["cards"])) == 4 for g in a["groups"])
    # Red: 二 + 贰 + 贰柒拾 + 七 = 6 → 平胡; x = (18 - 12) // 3 = 2 → loser -6.
    assert a["fan"] == 1 and a["di"] == 2 and a["zimo"] is False
    assert a["points"] == {"winner": 12, "loser": -6}


# Hand pair 玖玖: another's 玖 makes a 碰 (碰胡), a self-drawn one a 偎 (偎胡).
PAIR_HAND = "一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 玖玖"


def test_pair_plus_others_card_is_peng() -> None:
    # 3 + 3 + 6 + 6 + 0 + 0 + big 碰 3 = 21 (no 捌, so 玖 fits no sentence).
    a = ask(q(hand=PAIR_HAND, card="玖", source="other"))
    assert a["hu"] is True and a["huxi"] == 21
    check_groups(a, PAIR_HAND + "玖")
    g = next(g for g in a["groups"] if canon(g["cards"]) == "玖玖玖")
    assert (g["kind"], g["huxi"]) == ("peng", 3)
    # Red: 二 + 二七十 + 贰 + 贰柒拾 + 七 = 9 → 平胡; x = 3 → loser -9.
    assert a["fan"] == 1 and a["di"] == 3
    assert a["points"] == {"winner": 18, "loser": -9}


def test_pair_plus_self_drawn_card_is_wei() -> None:
    # Big 偎 6 instead of 碰 3: 24 胡息; x = (24 - 12) // 3 + 1 = 5 → loser -15.
    a = ask(q(hand=PAIR_HAND, card="玖", source="self"))
    assert a["hu"] is True and a["huxi"] == 24 and a["zimo"] is True
    g = next(g for g in a["groups"] if canon(g["cards"]) == "玖玖玖")
    assert (g["kind"], g["huxi"]) == ("wei", 6)
    assert a["fan"] == 1 and a["di"] == 5
    assert a["points"] == {"winner": 30, "loser": -15}


# ---- 5. mandatory 天胡 ----------------------------------------------------------------

def test_tianhu_three_ti_non_dealer_with_leftover() -> None:
    # 20 dealt cards: 提 一 (9), 提 二 (9), 提 叁 (12) and 8 cards that form no group.
    free = "四五七九壹贰捌拾"
    hand = "一一一一 二二二二 叁叁叁叁 " + free
    a = ask({"hand": hand, "tianhu": True, "dealer": False})
    assert a["hu"] is True and a["tianhu"] is True and a["zimo"] is True
    # No scoring sentence among the free cards (二 and 叁 are locked in 提): 30 胡息.
    assert a["huxi"] == 30
    assert "leftover" in a
    assert Counter(canon(a["leftover"])) == Counter(free)
    grouped = Counter(c for g in a["groups"] for c in g["cards"])
    assert grouped == Counter("一一一一二二二二叁叁叁叁")
    assert sum(g["huxi"] for g in a["groups"]) == 30
    # Red over all 20 cards: 二×4 + 贰 + 七 + 拾 = 7 → 红胡 2 番.
    assert a["mingtang"] == [{"name": "红胡", "fan": 2}] and a["fan"] == 2
    # 天胡: x = (2·30 - 12) // 3 + 1 (自摸) = 17 → loser -17·2·3 = -102.
    assert a["di"] == 17
    assert a["points"] == {"winner": 204, "loser": -102}


def test_tianhu_five_kan_dealer_21_cards() -> None:
    # Dealer's 21 cards (亮张 included): 5 坎 + 一二三 + 七九捌 left over.
    hand = "壹壹壹 贰贰贰 叁叁叁 四四四 五五五 一二三 七九捌"
    a = ask({"hand": hand, "tianhu": True, "dealer": True})
    assert a["hu"] is True and a["tianhu"] is True and a["zimo"] is True
    # Big 坎 6·3 + small 坎 3·2 + 一二三 3 = 27.
    assert a["huxi"] == 27
    assert Counter(canon(a["leftover"])) == Counter("七九捌")
    # Red: 贰×3 + 二 + 七 = 5; big 10, small 11 → 平胡.
    assert a["mingtang"] == [] and a["fan"] == 1
    # x = (54 - 12) // 3 + 1 = 15 → loser -45.
    assert a["di"] == 15
    assert a["points"] == {"winner": 90, "loser": -45}


def test_tianhu_without_three_ti_or_five_kan_does_not_win() -> None:
    # 2 提 + 2 坎 = 4 < 5, and 2 提 < 3.
    hand = "一一一一 二二二二 三三三 四四四 五六七八 九十"
    a = ask({"hand": hand, "tianhu": True, "dealer": False})
    assert a["hu"] is False
    assert isinstance(a["reason"], str) and a["reason"]


# ---- 6. presets, base and multiplier --------------------------------------------------

def test_changde_preset() -> None:
    a = ask(q(rules="changde"))
    assert a["hu"] is True and a["huxi"] == 18
    # 等 = 1 + (18 - 15) // 3 = 2; 10 red → 红胡 ×2; loser -2·2·3 = -12.
    assert a["di"] == 2 and a["fan"] == 2
    assert a["mingtang"] == [{"name": "红胡", "fan": 2}]
    assert a["points"] == {"winner": 24, "loser": -12}


def test_hunan_preset() -> None:
    a = ask(q(rules="hunan"))
    assert a["hu"] is True and a["huxi"] == 18
    # 囤 = 1 + (18 - 15) // 3 = 2; 10 red, not 对对 → 红胡 ×2; loser -12.
    assert a["di"] == 2 and a["fan"] == 2
    assert [m["fan"] for m in a["mingtang"]] == [2]
    assert a["points"] == {"winner": 24, "loser": -12}


def test_two_player_needs_21_huxi() -> None:
    a = ask(q(rules="two-player"))
    assert a["hu"] is False
    assert isinstance(a["reason"], str) and a["reason"]


def test_two_player_wins_with_21_huxi_one_loser() -> None:
    a = ask(q(rules="two-player", hand=PENG_HAND, melds=PENG_MELDS, card="壹"))
    assert a["hu"] is True and a["huxi"] == 21
    # x = 3, f = 1, d = 3; one loser pays 9, the winner gets 9.
    assert a["points"] == {"winner": 9, "loser": -9}


def test_rules_object_form() -> None:
    a = ask(q(rules={"preset": "qq"}))
    assert (a["hu"], a["huxi"], a["di"], a["fan"]) == (True, 18, 2, 3)
    assert a["points"] == {"winner": 36, "loser": -18}
    b = ask(q(rules={"preset": "changde"}))
    assert (b["di"], b["fan"]) == (2, 2)
    c = ask(q(rules={"preset": "two-player"}))
    assert c["hu"] is False


def test_base_and_multiplier() -> None:
    a = ask(q(base=5, multiplier=10))
    # -x·f·d = -2·3·5 = -30, winner 60; beans ×10.
    assert a["points"] == {"winner": 60, "loser": -30}
    assert a["beans"] == {"winner": 600, "loser": -300}
    b = ask(q(multiplier=4))
    assert b["points"] == {"winner": 36, "loser": -18}
    assert b["beans"] == {"winner": 144, "loser": -72}


# ---- 7. malformed questions -----------------------------------------------------------

def test_bad_card_text_names_character_and_position() -> None:
    # "一二三 二七十Q…": Q is character 7 of the text.
    msg = ask_bad(json.dumps(q(hand="一二三 二七十Q壹贰叁 贰柒拾 四五六 七八九 捌玖"),
                             ensure_ascii=False))
    assert "Q" in msg and "7" in msg
    assert "hand" in msg


def test_bad_winning_card_text() -> None:
    msg = ask_bad(json.dumps(q(card="Z"), ensure_ascii=False))
    assert "Z" in msg and "card" in msg


def test_five_copies_of_a_card() -> None:
    hand = "五五五五 一二三 二七十 壹贰叁 贰柒拾 捌玖 九九"  # 20 cards, + a 5th 五
    msg = ask_bad(json.dumps(q(hand=hand, card="五"), ensure_ascii=False))
    assert "五" in msg


def test_five_copies_across_hand_and_melds() -> None:
    melds = [{"kind": "peng", "cards": "五五五"}]
    hand = "五五 一二三 二七十 壹贰叁 贰柒拾 捌玖 九"  # 17 + 3 on the table = 20
    msg = ask_bad(json.dumps(q(hand=hand, melds=melds, card="拾"), ensure_ascii=False))
    assert "五" in msg


def test_unknown_meld_kind() -> None:
    melds = [{"kind": "gang", "cards": "五五五五"}]
    msg = ask_bad(json.dumps(q(hand="一二三 二七十 壹贰叁 贰柒拾 四六七八", melds=melds),
                             ensure_ascii=False))
    assert "gang" in msg


@pytest.mark.parametrize("meld", [
    {"kind": "peng", "cards": "一二三"},
    {"kind": "pao", "cards": "五五五"},
    {"kind": "chi", "cards": "壹二三"},
    {"kind": "ti", "cards": "六六六七"},
])
def test_meld_cards_do_not_fit_kind(meld: dict[str, str]) -> None:
    msg = ask_bad(json.dumps(q(hand="一二三 二七十 壹贰叁 贰柒拾 四五六 八八", melds=[meld]),
                             ensure_ascii=False))
    assert "meld" in msg


def test_impossible_card_count() -> None:
    # 15 cards in hand, no table groups: a player holds 20 between turns (§4.4).
    msg = ask_bad(json.dumps(q(hand="一二三 二七十 壹贰叁 贰柒拾 四五六"), ensure_ascii=False))
    assert "15" in msg


def test_invalid_json() -> None:
    msg = ask_bad('{"hand": "一二三", ')
    assert "JSON" in msg


def test_json_array_instead_of_object() -> None:
    msg = ask_bad(json.dumps([EXAMPLE], ensure_ascii=False))
    assert "object" in msg


def test_unknown_key() -> None:
    msg = ask_bad(json.dumps(q(foo=1), ensure_ascii=False))
    assert "foo" in msg


def test_unknown_preset() -> None:
    msg = ask_bad(json.dumps(q(rules="mahjong"), ensure_ascii=False))
    assert "mahjong" in msg


def test_source_discard_is_malformed() -> None:
    # §6.1.3: never a discarded card; "discard" is no source.
    msg = ask_bad(json.dumps(q(source="discard"), ensure_ascii=False))
    assert "discard" in msg and "source" in msg


def test_base_zero() -> None:
    msg = ask_bad(json.dumps(q(base=0), ensure_ascii=False))
    assert "base" in msg


def test_card_missing() -> None:
    msg = ask_bad(json.dumps(q(card=None), ensure_ascii=False))
    assert "card" in msg


# ---- 8. --jsonl batches ---------------------------------------------------------------

def test_jsonl_batch_keeps_order_and_goes_on() -> None:
    lines = [
        json.dumps(EXAMPLE, ensure_ascii=False),                          # wins, 18
        json.dumps(q(card="五"), ensure_ascii=False),                      # no 7 门子
        '{"hand": "一二三", ',                                            # invalid JSON
        json.dumps(q(hand="一二三Q二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖"),
                   ensure_ascii=False),                                   # bad card
        json.dumps(q(source="self"), ensure_ascii=False),                 # wins, 自摸
        json.dumps(q(foo=1), ensure_ascii=False),                         # unknown key
        json.dumps(q(rules="two-player"), ensure_ascii=False),            # below 21
    ]
    proc = run_raw("\n".join(lines) + "\n", "--jsonl")
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(out) == len(lines)
    assert out[0]["hu"] is True and out[0]["huxi"] == 18
    assert out[0]["points"] == {"winner": 36, "loser": -18}
    assert out[1]["hu"] is False and "error" not in out[1]
    assert set(out[2]) == {"error"} and "JSON" in out[2]["error"]
    assert set(out[3]) == {"error"} and "Q" in out[3]["error"]
    assert out[4]["hu"] is True and out[4]["zimo"] is True and out[4]["di"] == 3
    assert set(out[5]) == {"error"} and "foo" in out[5]["error"]
    assert out[6]["hu"] is False and "error" not in out[6]


def test_jsonl_every_line_malformed_still_exit_0() -> None:
    proc = run_raw("[1]\nnot json\n", "--jsonl")
    assert proc.returncode == 0
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(out) == 2 and all(set(o) == {"error"} for o in out)
