"""The optional compiled build (``PAOHUZI_COMPILE=1``, mypyc): one source, either build.

These run on both builds (CI runs the core, solver, engine and scenario tests on the
compiled one too). ``PAOHUZI_EXPECT_COMPILED=1`` (or ``0``) makes the test of the build
loaded strict: CI sets it, so a compiled run that silently loaded the sources fails.
"""

from __future__ import annotations

import copy
import importlib.util
import os
import pickle
from pathlib import Path

import pytest

import paohuzi
from paohuzi.core import native
from paohuzi.core.cards import Card, parse_cards
from paohuzi.core.errors import CardTextError, MeldError, PaohuziError
from paohuzi.core.groups import Group, GroupKind
from paohuzi.core.rules import Ruleset
from paohuzi.core.solver import solve
from paohuzi.game.engine import Hand, IllegalActionError

ROOT = Path(__file__).resolve().parent.parent


def test_a_build_is_all_compiled_or_all_sources() -> None:
    loaded = native.compiled_modules()
    assert loaded in ((), native.COMPILED_MODULES), loaded
    assert paohuzi.compiled() is (loaded == native.COMPILED_MODULES)
    wanted = os.environ.get("PAOHUZI_EXPECT_COMPILED")
    if wanted is not None:
        assert paohuzi.compiled() is (wanted == "1")


def test_setup_compiles_the_listed_modules() -> None:
    spec = importlib.util.spec_from_file_location("paohuzi_setup", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    setup = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(setup)  # not __main__: defines, builds nothing
    names = setup.compiled_modules()
    assert names == list(native.COMPILED_MODULES)
    assert all((ROOT / "src" / (name.replace(".", "/") + ".py")).is_file() for name in names)


def test_mypyc_attr_does_nothing_at_run_time() -> None:
    class Plain:
        pass

    assert native.mypyc_attr(native_class=False)(Plain) is Plain


def test_values_copy_and_pickle_on_either_build() -> None:
    hand = parse_cards("一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖")
    win = solve(hand, [], Card.parse("拾"), "other")  # type: ignore[arg-type]
    assert win is not None and win.huxi == 18
    group = Group.identical(GroupKind.PENG, 3)
    for value in (win, group, Card(7), Ruleset.preset("changde")):
        assert pickle.loads(pickle.dumps(value)) == value
        assert copy.deepcopy(value) == value and copy.copy(value) == value
    assert isinstance(Card(7), int) and Card(7) + 1 == 8


def test_bad_input_keeps_its_precise_error_on_either_build() -> None:
    with pytest.raises(CardTextError, match="must be a string"):
        parse_cards(7)  # type: ignore[arg-type]
    hand = parse_cards("一二三 二七十 壹贰叁 贰柒拾 四五六 七八九 捌玖")
    with pytest.raises(PaohuziError, match="source must be one of"):
        solve(hand, [], Card.parse("拾"), "nowhere")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"card index must be 0\.\.19"):
        Card(20)
    with pytest.raises(MeldError, match="unknown group kind 'straight'"):
        Group.make("straight", parse_cards("一二三"))
    game = Hand.from_seed(4, Ruleset())
    action = game.legal_actions(game.pending_seats()[0])[0]
    with pytest.raises(IllegalActionError, match="there is no seat 'east'"):
        game.act("east", action)  # type: ignore[arg-type]


def test_a_hand_copies_on_either_build() -> None:
    hand = Hand.from_seed(4, Ruleset())
    twin = hand.copy()
    seat = twin.pending_seats()[0]
    twin.act(seat, twin.legal_actions(seat)[0])
    assert twin.state_key() != hand.state_key()
    assert hand.copy().state_key() == hand.state_key()
