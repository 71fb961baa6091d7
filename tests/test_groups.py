"""docs/rules.md §2 (groups) and §5 (the 胡息 table, both sizes)."""

from __future__ import annotations

import pytest

from paohuzi.core.errors import MeldError
from paohuzi.core.groups import Group, GroupKind

# §5: (kind, small example, small huxi, big example, big huxi)
TABLE = [
    ("peng", "三三三", 1, "叁叁叁", 3),
    ("kan", "三三三", 3, "叁叁叁", 6),
    ("wei", "三三三", 3, "叁叁叁", 6),
    ("chouwei", "三三三", 3, "叁叁叁", 6),
    ("pao", "三三三三", 6, "叁叁叁叁", 9),
    ("ti", "三三三三", 9, "叁叁叁叁", 12),
    ("sentence", "一二三", 3, "壹贰叁", 6),
    ("sentence", "二七十", 3, "贰柒拾", 6),
    ("sentence", "二三四", 0, "捌玖拾", 0),
    ("jiao", "九九玖", 0, "九玖玖", 0),
    ("pair", "五五", 0, "伍伍", 0),
]


@pytest.mark.parametrize(("kind", "small", "small_huxi", "big", "big_huxi"), TABLE)
def test_huxi_table(kind, small, small_huxi, big, big_huxi):
    assert Group.parse(kind, small).huxi == small_huxi
    assert Group.parse(kind, big).huxi == big_huxi


@pytest.mark.parametrize("text", ["壹二三", "一二贰", "二七拾", "一三五", "九十壹"])
def test_sizes_never_mix_in_a_sentence(text):
    with pytest.raises(MeldError, match="not a sentence"):
        Group.parse("sentence", text)


@pytest.mark.parametrize("text", ["九九九", "九九八", "玖玖玖"])
def test_jiao_needs_both_sizes_of_one_value(text):
    with pytest.raises(MeldError):
        Group.parse("jiao", text)


def test_identical_groups_and_sizes():
    with pytest.raises(MeldError, match="identical"):
        Group.parse("peng", "三三叁")
    with pytest.raises(MeldError, match="holds 4 cards"):
        Group.parse("ti", "三三三")
    with pytest.raises(MeldError, match="unknown group kind"):
        Group.parse("gang", "三三三")
    assert Group.parse("sentence", "三一二").cards == Group.parse("sentence", "一二三").cards


def test_kind_flags():
    assert GroupKind.PAO.size == 4 and GroupKind.PAIR.size == 2 and GroupKind.KAN.size == 3
    assert not GroupKind.SENTENCE.identical and not GroupKind.JIAO.identical
    assert all(k.identical for k in (GroupKind.PAIR, GroupKind.KAN, GroupKind.PENG,
                                     GroupKind.WEI, GroupKind.CHOUWEI, GroupKind.PAO,
                                     GroupKind.TI))
