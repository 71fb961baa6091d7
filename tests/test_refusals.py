"""A player's refusals in every language (paohuzi.server.refusals): one table of words,
each used by the server, each language filling the same slots."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("starlette")  # the server's extra

from paohuzi.server.economy import EntryRefused, changci, check_entry
from paohuzi.server.inputs import BadInput, clean_nickname
from paohuzi.server.refusals import LANGUAGES, WORDS, refusal, slots, words, words_of

SERVER = Path(__file__).resolve().parents[1] / "src" / "paohuzi" / "server"


UNSAID = {"entry_minimum": ("english",), "too_many_open_rooms": ("rooms",),
          # (an action's and a game's codes: Chinese says it in words)
          "action_not_allowed": ("action", "allowed"), "game_unreplayable": ("game",)}
"""The English slots a refusal's Chinese leaves out, and why."""


@pytest.mark.parametrize("code", sorted(WORDS))
def test_each_language_fills_the_same_slots(code):
    english, chinese = WORDS[code]
    en, zh = slots(english), slots(chinese)
    assert not any(name.endswith("_zh") for name in en), code
    # Chinese uses a slot of the English, or the Chinese of one (``what`` -> ``what_zh``)
    for name in zh:
        assert name in en or (name.endswith("_zh") and name[:-3] in en), (code, name)
    for name in en:  # and says everything the English says (but what is said otherwise)
        assert name in zh or f"{name}_zh" in zh or name in UNSAID.get(code, ()), (code, name)
    assert re.search(r"[\u4e00-\u9fff]", chinese), code  # Chinese, not a copy


def test_every_refusal_is_raised_somewhere():
    """A code nobody raises is dead words (and one raised with a typo fails at once:
    ``words`` looks it up)."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in SERVER.glob("*.py")
                       if p.name != "refusals.py")
    unused = [code for code in WORDS if f'"{code}"' not in source]
    assert unused == []


def test_a_refusal_is_its_english_with_its_words():
    exc = refusal(EntryRefused, "entry_minimum", title="初级场", english="Junior room",
                  entry=1000, beans=5)
    assert isinstance(exc, EntryRefused)
    assert str(exc) == "初级场 (Junior room) needs at least 1000 beans to sit; you hold 5"
    assert words_of(exc) == {"en": str(exc),
                             "zh": "初级场入场至少需要 1000 欢乐豆，你现有 5 欢乐豆"}
    assert set(words("being_seated")) == set(LANGUAGES)
    assert words_of(ValueError("plain")) is None
    with pytest.raises(KeyError):
        words("no_such_refusal")
    with pytest.raises(KeyError):  # a slot left unfilled is a defect, not an empty text
        words("seat_taken")


def test_the_server_raises_its_refusals_with_their_words():
    with pytest.raises(EntryRefused) as entry:
        check_entry(changci("gaoji"), 300)
    assert words_of(entry.value) == {
        "en": "高级场 (Senior room) needs at least 20000 beans to sit; you hold 300",
        "zh": "高级场入场至少需要 20000 欢乐豆，你现有 300 欢乐豆"}
    with pytest.raises(BadInput) as kept:
        clean_nickname("电脑 (hard)")
    assert words_of(kept.value)["zh"] == "以“电脑”或“computer”开头的昵称留给电脑玩家"
    with pytest.raises(BadInput) as hidden:
        clean_nickname("阿\u202e明")
    said = words_of(hidden.value)
    assert said is not None and said["en"] == str(hidden.value)
    assert said["zh"] == "昵称含有看不见的格式字符（U+202E），请使用可见字符"


@pytest.mark.parametrize(("rules", "chinese"), [
    ({"preset": "two-player", "xingjia": True}, "“第四座 (醒家/坐底)”只能在“人数”为 3 时选用"),
    ({"preset": "qq", "huayang": "full"}, "“花样”只能在“计分方式”为“等 × 番”时选用"),
    ({"preset": "qq", "luzhou_mode": "deng"},
     "“泸州计分”只能在“计分方式”为“等 × 番 (泸州)”时选用"),
    ({"preset": "qq", "settlement": "tokyo"},
     "“计分方式”应为以下之一：底 × 番、等 × 番、囤 × 名堂、等 × 番 (泸州)；当前为 'tokyo'"),
    ({"preset": "qq", "huxi_table": 7}, "“胡息表”应为以下之一：标准、泸州；当前为 7"),
])
def test_rules_that_do_not_hold_together_are_refused_in_both_languages(rules, chinese):
    """Which option, and what it needs or may be, in the player's language: not the
    core's English inside a Chinese frame."""
    from paohuzi.server.table import RoomConfig, TableError

    with pytest.raises(TableError) as refused:
        RoomConfig.from_json({"rules": rules})
    said = words_of(refused.value)
    assert said is not None and said["en"] == str(refused.value)
    assert said["zh"] == chinese
    assert not re.search(r"[a-z]{4,}", said["zh"].replace("tokyo", ""))  # no English in it


@pytest.mark.parametrize("value", [3.0, "3", True, 1000])
def test_a_stake_out_of_bounds_is_told_the_rooms_bounds(value):
    """A review: a stake of the wrong type was refused with the core's bounds (base
    1..10000), then a well-typed 101 with the room's (1..100). Both name the room's."""
    from paohuzi.server.table import STAKES, RoomConfig, TableError

    with pytest.raises(TableError) as refused:
        RoomConfig.from_json({"rules": "qq", "base": value})
    low, high = STAKES["base"]
    assert f"base must be an integer {low}..{high}, got" in str(refused.value)
    said = words_of(refused.value)
    assert said is not None and f"{low} 到 {high} 之间" in said["zh"]
