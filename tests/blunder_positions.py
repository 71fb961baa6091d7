"""Regression positions for the computer players' blunder classes (issue 15, item 2).

Each position is an explicit deal (and, where needed, the decisions played from it),
the seat to decide, the move the player must make (``right``) and the move the player
made before the fix (``wrong``). ``benchmarks/blunders.py`` proves ``right`` better than
``wrong`` by paired roll-outs (the same sampled worlds for both moves, sampled from the
seat's observation) and records the figures in ``benchmarks/blunders.md``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from paohuzi.core.cards import COPIES, KINDS, counts_of, parse_cards
from paohuzi.core.rules import Ruleset
from paohuzi.game.actions import Action
from paohuzi.game.deal import Deal
from paohuzi.game.engine import Hand


@dataclass(frozen=True)
class Blunder:
    """A position, its right move and the blunder the old player made there."""

    name: str
    build: Callable[[], Hand]
    right: str
    wrong: str

    def hand(self) -> Hand:
        return self.build()

    def actions(self) -> tuple[Action, Action]:
        return Action.from_text(self.right), Action.from_text(self.wrong)


def dealer_start(cards: str, liangzhang: str, seed: int, rules: Ruleset | None = None) -> Hand:
    """A hand whose dealer (seat 0) holds ``cards`` (21, the 亮张 among them); the other
    cards dealt to the others and the wall in an order shuffled from ``seed``."""
    rules = rules or Ruleset()
    mine = [int(c) for c in parse_cards(cards)]
    shown = int(parse_cards(liangzhang)[0])
    mine.remove(shown)
    counts = counts_of([*mine, shown])
    rest = [c for c in range(KINDS) for _ in range(COPIES - counts[c])]
    random.Random(seed).shuffle(rest)
    hands = [mine, *(rest[20 * i: 20 * i + 20] for i in range(rules.players - 1))]
    wall = rest[20 * (rules.players - 1):]
    return Hand(rules, Deal.from_cards(rules, 0, hands, shown, wall))


def played(seed: int, moves: list[tuple[int, str]], rules: Ruleset | None = None) -> Hand:
    """A hand dealt from ``seed`` with ``moves`` (seat, action text) played."""
    hand = Hand.from_seed(seed, rules or Ruleset())
    for seat, text in moves:
        hand.act(seat, Action.from_text(text))
    return hand


MINGTANG = Blunder(
    "名堂: 真点胡 (×4) beats 平胡 at a wait",
    # 18 胡息 in 坎; discarding 七 leaves one red card (柒) and waits on 三 叁 壹 肆 伍:
    # 真点胡; discarding 三 waits on more cards (二 五 八) for a 平胡.
    lambda: dealer_start("壹壹壹 肆肆肆 伍伍伍 四五六七 陆柒捌 九九玖 三三", "三", 1),
    right="discard 七", wrong="discard 三")

DEAD_WAIT = Blunder(
    "dead wait: break the near-group whose card is all seen",
    # 提 叁叁叁叁 on the table: 壹贰 waits on 叁 only, and every 叁 is seen; 四六 (五)
    # and 七十 (二) are live.
    lambda: dealer_start("叁叁叁叁 壹贰 四六 七十 伍陆柒 捌捌捌 九九 一一一", "九", 1),
    right="discard 壹", wrong="discard 十")

DANGER = Blunder(
    "danger: throw the card the 下家 threw himself (臭 for him), not one he may 吃",
    # seat 1 to discard; its 下家 (seat 2) threw 六, so 六 is 臭 for him: he can neither
    # 吃 nor 碰 it; 贰 (as many copies unseen) he may.
    lambda: played(294, [(0, "discard 五"), (2, "discard 六"), (0, "pass"),
                         (0, "discard 一"), (1, "peng")]),
    right="discard 六", wrong="discard 贰")

SCARCE_WAIT = Blunder(
    "scarce wait: break the near-group whose cards are nearly all seen",
    # 四五 waits on 三 or 六, and three of each are in the hand's own 坎: one copy of
    # each is left; 九十 waits on 八, three copies live. The old heuristic valued both
    # near-groups alike and broke 九十 (an edge card goes first, all else equal).
    lambda: dealer_start("三三三 六六六 四五 壹贰 捌捌捌 七八九 伍陆柒 九十", "十", 1),
    right="discard 四", wrong="discard 九")

POSITIONS = (MINGTANG, DEAD_WAIT, DANGER, SCARCE_WAIT)
