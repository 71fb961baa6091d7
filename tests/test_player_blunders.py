"""The computer players' blunder classes (issue 15, item 2): regression positions.

Each position (``tests/blunder_positions.py``) has a right move proved by paired
roll-outs in ``benchmarks/blunders.py`` (figures in ``benchmarks/blunders.md``); here
the players must make it, and the pieces of the fix are checked one by one.
"""

from __future__ import annotations

import dataclasses

import pytest
from blunder_positions import DEAD_WAIT, MINGTANG, POSITIONS, Blunder

from paohuzi.core.cards import counts_of, parse_cards
from paohuzi.core.groups import Group, GroupKind
from paohuzi.core.rules import Ruleset
from paohuzi.game.engine import Hand
from paohuzi.game.view import observe
from paohuzi.players import make_player, observation_for
from paohuzi.players.heuristic import HeuristicPlayer, danger, hand_value, mingtang_potential
from paohuzi.players.search import SearchPlayer


def _decide(player: object, blunder: Blunder) -> str:
    hand = blunder.hand()
    seat = hand.pending_seats()[0]
    legal = hand.legal_actions(seat)
    assert {blunder.right, blunder.wrong} <= {a.text for a in legal}
    return player.choose(observation_for(player, hand, seat), legal).text  # type: ignore[attr-defined]


@pytest.mark.parametrize("blunder", POSITIONS, ids=lambda b: b.name)
def test_heuristic_makes_the_proved_move(blunder: Blunder) -> None:
    assert _decide(HeuristicPlayer(1), blunder) == blunder.right


@pytest.mark.parametrize("blunder", POSITIONS, ids=lambda b: b.name)
def test_normal_level_avoids_the_blunder(blunder: Blunder) -> None:
    assert _decide(make_player("normal", 1), blunder) != blunder.wrong


def test_a_near_group_waiting_on_seen_cards_only_is_worth_nothing() -> None:
    """壹贰 waits on 叁 only: with every 叁 seen, 贰 adds nothing to 壹."""
    hand = counts_of(parse_cards("壹贰 四六 七十 伍陆柒"))
    all_live = [4] * 20
    no_san = list(all_live)
    no_san[12] = 0  # 叁
    loose = counts_of(parse_cards("壹 四六 七十 伍陆柒"))
    rules = Ruleset.preset("hunan")  # no 名堂 for 3 or 4 red cards
    assert hand_value(hand, [], all_live, rules=rules) > hand_value(loose, [], all_live,
                                                                    rules=rules)
    assert hand_value(hand, [], no_san, rules=rules) == pytest.approx(
        hand_value(loose, [], no_san, rules=rules))


def test_a_near_group_is_worth_less_as_its_cards_run_out() -> None:
    """四五 waits on 三 or 六: worth most while both are live, less with one copy of
    each left, nothing with every copy seen (SCARCE_WAIT's reason)."""
    rules = Ruleset.preset("hunan")
    hand = counts_of(parse_cards("四五 七八九 壹贰叁"))
    loose = counts_of(parse_cards("四 七八九 壹贰叁"))

    def gain(san: int, liu: int) -> float:
        live = [4] * 20
        live[2], live[5] = san, liu  # 三, 六
        return hand_value(hand, [], live, rules=rules) - hand_value(loose, [], live,
                                                                   rules=rules)

    assert gain(4, 4) > gain(1, 1) > gain(0, 0) == pytest.approx(0.0)
    assert gain(1, 4) == pytest.approx(gain(4, 4))  # one side live enough: a full wait


def test_a_pair_whose_third_copy_is_all_seen_is_worth_less() -> None:
    rules = Ruleset.preset("hunan")
    hand = counts_of(parse_cards("九九 四五 壹贰叁"))
    live = [4] * 20
    gone = list(live)
    gone[8] = 0  # 九
    assert hand_value(hand, [], gone, rules=rules) < hand_value(hand, [], live, rules=rules)


def test_mingtang_potential_asks_the_scheme() -> None:
    one_red = counts_of(parse_cards("三四五六八九九 壹壹壹肆肆肆伍伍伍陆柒捌"))
    assert mingtang_potential(one_red, [], Ruleset()) == 3  # qq 真点胡: 4 番
    hunan = Ruleset.preset("hunan")
    assert mingtang_potential(one_red, [], hunan) == 2  # hunan 点胡: ×3
    two_red = counts_of(parse_cards("三四五六七九九 壹壹壹肆肆肆伍伍伍陆柒捌"))
    assert mingtang_potential(two_red, [], Ruleset()) == 0


def test_mingtang_wait_is_valued_by_its_score() -> None:
    """At 18 胡息 the 真点胡 wait is worth more than a wider 平胡 wait."""
    hand = MINGTANG.hand()
    view = observe(hand, 0)
    live = view.unseen_counts()
    values = {}
    for card in ("七", "三"):
        counts = list(view.hand)
        counts[int(parse_cards(card)[0])] -= 1
        values[card] = hand_value(counts, [], live, rules=view.rules)
    assert values["七"] > values["三"]


def test_danger_counts_the_xiajia_chi_and_chou_cards() -> None:
    """A card the 下家 threw away himself (臭 for him) is safer than one he may 吃."""
    hand = DEAD_WAIT.hand()
    view = observe(hand, 0)
    live = view.unseen_counts()
    # 五 feeds the 下家's 吃 (四五六, 三四五, 五六七 ...) and both seats' 碰
    assert danger(view, 4, live) > 0
    wu = parse_cards("五")[0]
    xiajia_chou = dataclasses.replace(view, piles=((), (wu,), ()))
    shangjia_chou = dataclasses.replace(view, piles=((), (), (wu,)))
    # the same cards seen either way; the 下家's 臭 takes his 碰 and his 吃 away
    assert xiajia_chou.unseen_counts() == shangjia_chou.unseen_counts()
    live = xiajia_chou.unseen_counts()
    assert danger(xiajia_chou, wu, live) < danger(shangjia_chou, wu, live)
    # the 上家 nearer to winning (a 碰 of 捌 on his table) makes the card more dangerous
    peng = Group.identical(GroupKind.PENG, parse_cards("捌")[0])
    nearer = dataclasses.replace(xiajia_chou, melds=((*view.melds[0],), (), (peng,)))
    assert danger(nearer, wu, live) > danger(xiajia_chou, wu, live)


def test_search_gets_the_same_observation_online_and_in_the_arena() -> None:
    """The server, the arena and play_hand build a player's observation with one
    function: the search player gets the event list it samples from."""
    from paohuzi.server import runtime

    assert runtime.observation_for is observation_for
    hand = Hand.from_seed(5, Ruleset())
    seat = hand.pending_seats()[0]
    search = SearchPlayer(1)
    view = observation_for(search, hand, seat)
    assert view is not None and view.events == observe(hand, seat).events
    assert observation_for(HeuristicPlayer(1), hand, seat) is not None


def test_every_position_has_a_recorded_proof() -> None:
    """``benchmarks/blunders.md`` (the paired roll-outs' output) holds, for every
    position, its right move and blunder with a 95% interval above 0."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "benchmarks" / "blunders.md").read_text(
        encoding="utf-8")
    rows = {cells[1]: cells for line in text.splitlines() if line.startswith("| ")
            for cells in [[c.strip() for c in line.split("|")]]}
    for blunder in POSITIONS:
        cells = rows[blunder.name]
        assert (cells[2], cells[3]) == (blunder.right, blunder.wrong)
        low = float(cells[5].strip("[]").split(",")[0])
        assert low > 0, blunder.name
