"""docs/rules.md §1 (cards) and §11 (notation)."""

from __future__ import annotations

import pytest

from paohuzi.core.cards import ALL_CARDS, Card, counts_of, format_cards, full_deck, parse_cards
from paohuzi.core.errors import CardTextError


def test_twenty_kinds_four_copies_eighty_cards():
    deck = full_deck()
    assert len(deck) == 80
    assert set(counts_of(deck)) == {4}


def test_simplified_text_round_trip():
    text = "一二三四五六七八九十壹贰叁肆伍陆柒捌玖拾"
    cards = parse_cards(text)
    assert [int(c) for c in cards] == list(range(20))
    assert format_cards(cards) == text


def test_variant_forms():
    # §1: the traditional 貳 陸 and the form 叄 must parse (rules-notes N1 adds 貮 參).
    assert parse_cards("貳陸叄貮參") == parse_cards("贰陆叁贰叁")


def test_ascii_forms():
    assert parse_cards("x1 x10 d1 d10") == parse_cards("一十壹拾")
    assert parse_cards("X3D7") == parse_cards("三柒")
    assert format_cards(parse_cards("三柒"), ascii=True) == "x3 d7"


def test_whitespace_optional_and_mixed():
    assert parse_cards("一 二\t三\n壹,贰，叁") == parse_cards("一二三壹贰叁")
    assert parse_cards("x1一d2") == parse_cards("一一贰")


def test_value_size_and_red():
    wu, big_wu = Card.parse("五"), Card.parse("伍")
    assert wu.point == big_wu.point == 5
    assert not wu.is_big and big_wu.is_big
    reds = [c.text for c in ALL_CARDS if c.is_red]
    assert reds == ["二", "七", "十", "贰", "柒", "拾"]
    assert sum(1 for c in full_deck() if c.is_red) == 24


@pytest.mark.parametrize(
    ("text", "position", "char"),
    [("一二Q", 2, "Q"), ("壹 貳 五 6", 6, "6"), ("ab", 0, "a"), ("十拾零", 2, "零")],
)
def test_bad_character_named_with_position(text, position, char):
    with pytest.raises(CardTextError) as info:
        parse_cards(text)
    assert info.value.position == position
    assert repr(char) in str(info.value)
    assert f"position {position}" in str(info.value)


@pytest.mark.parametrize(("text", "position"), [("x", 0), ("x0", 1), ("d11", 2), ("x1 d", 3)])
def test_bad_ascii_value(text, position):
    with pytest.raises(CardTextError) as info:
        parse_cards(text)
    assert info.value.position == position


def test_card_parse_exactly_one():
    assert Card.parse("拾") == 19
    with pytest.raises(CardTextError):
        Card.parse("一二")
    with pytest.raises(CardTextError):
        Card.parse("")


def test_card_errors_are_value_errors():
    with pytest.raises(ValueError):
        parse_cards("?")
    with pytest.raises(ValueError):
        Card(20)
