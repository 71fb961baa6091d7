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
from paohuzi.game.actions import Action, ActionTextError, Chi, Discard, Hu, Pass, Peng
from paohuzi.game.deal import Deal, DealError
from paohuzi.game.engine import Hand, IllegalActionError, SeatState

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


GAME_MODULES = ("paohuzi.game.actions", "paohuzi.game.deal", "paohuzi.game.engine")


def test_the_engine_is_compiled_with_native_hands_and_seats() -> None:
    assert set(GAME_MODULES) <= set(native.COMPILED_MODULES)
    hand = Hand.from_seed(4, Ruleset())
    loaded = set(native.compiled_modules())
    # a native class has no instance __dict__; the sources' Hand has one, their seats slots
    assert hasattr(hand, "__dict__") is (not paohuzi.compiled())
    assert set(GAME_MODULES) <= loaded if paohuzi.compiled() else not loaded
    if paohuzi.compiled():
        with pytest.raises(AttributeError):
            hand.seats[0].unknown = 1  # type: ignore[attr-defined]


def _play(hand: Hand, steps: int) -> None:
    for _ in range(steps):
        if hand.ended:
            return
        seat = hand.pending_seats()[0]
        hand.act(seat, hand.legal_actions(seat)[-1])


def test_hands_and_seats_copy_pickle_and_deepcopy_mid_play_on_either_build() -> None:
    hand = Hand.from_seed(11, Ruleset.preset("qq"))
    _play(hand, 9)
    twins = [hand.copy(), copy.deepcopy(hand), pickle.loads(pickle.dumps(hand)),
             copy.copy(hand)]
    for twin in twins:
        assert twin is not hand and twin.state_key() == hand.state_key()
        assert twin.seats[0] is not hand.seats[0] or twin.seats is hand.seats  # copy.copy
    for twin in twins[:3]:  # independent: playing on goes the same way, the original untouched
        before = hand.state_key()
        _play(twin, 200)
        assert hand.state_key() == before and twin.ended
    _play(hand, 200)
    assert all(t.state_key() == hand.state_key() and t.result == hand.result
               for t in twins[:3])
    seat = hand.seats[1]
    for twin_seat in (seat.copy(), copy.deepcopy(seat), pickle.loads(pickle.dumps(seat))):
        assert isinstance(twin_seat, SeatState) and twin_seat.hand == seat.hand
        assert twin_seat.hand is not seat.hand and twin_seat.melds == seat.melds
        assert (twin_seat.owned, twin_seat.table_huxi, twin_seat.pao_ti, twin_seat.chou) == \
            (seat.owned, seat.table_huxi, seat.pao_ti, seat.chou)
    assert hand.result is not None
    assert pickle.loads(pickle.dumps(hand.result)) == hand.result == copy.deepcopy(hand.result)


def test_actions_compare_hash_and_pickle_on_either_build() -> None:
    chi = Action.from_text("chi 二贰贰 比一二三 比二三四")
    assert isinstance(chi, Chi)
    values = [Discard(Card.parse("三")), chi, Peng(), Hu(), Pass()]
    for value in values:
        again = Action.from_text(value.text)
        assert again == value and hash(again) == hash(value) and again is not chi
        assert pickle.loads(pickle.dumps(value)) == value == copy.deepcopy(value)
    assert len(set(values + [Action.from_text(v.text) for v in values])) == len(values)
    assert Discard(Card.parse("三")) != Discard(Card.parse("四")) and Hu() != Pass()
    deal = Deal.from_seed(3, Ruleset())
    assert pickle.loads(pickle.dumps(deal)) == deal == copy.deepcopy(deal)


def test_the_engines_entry_points_keep_their_precise_errors_on_either_build() -> None:
    with pytest.raises(ActionTextError, match="action must be text, got int"):
        Action.from_text(7)
    with pytest.raises(DealError, match="malformed deal"):
        Deal.from_json([], Ruleset())  # type: ignore[arg-type]
    game = Hand.from_seed(4, Ruleset())
    seat = game.pending_seats()[0]
    action = game.legal_actions(seat)[0]
    before = game.state_key()
    with pytest.raises(IllegalActionError, match="not an action: 'hu'"):
        game.act(seat, "hu")
    with pytest.raises(IllegalActionError, match=r"there is no seat 1\.5"):
        game.verify(1.5, action)
    assert not game.can("east", action) and not game.can(seat, None) and game.can(seat, action)
    assert game.state_key() == before


def test_the_prefilter_switch_is_read_from_the_class_on_either_build() -> None:
    hand = Hand.from_seed(4, Ruleset())
    assert hand.use_filters is True
    Hand.use_filters = False
    try:
        assert hand.use_filters is False and Hand.from_seed(5, Ruleset()).use_filters is False
    finally:
        Hand.use_filters = True
    assert hand.use_filters is True
