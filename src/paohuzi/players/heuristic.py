"""The heuristic computer player: fast, sensible play in the spirit of seed 004.

It values a hand by how close it is to a winning hand and by the 胡息 it can
still make, using the solver (RULES.md §10):

* **shape**: the best split of the free hand cards into complete groups
  (sentences, 二七十), near-groups (两面/嵌张 pairs of cards, 对子) and loose
  cards, memoised per size on the packed counts; 坎 and table groups count as
  complete;
* **胡息 potential**: table and 坎 胡息 plus the best 一二三/二七十 the hand can
  still make (a hand needs 15 to win, so a hand short of it is worth less);
* **waits** (听牌): when the hand is one card from winning, every winning card
  weighted by how many copies are still live (80 cards minus those seen — card
  counting) and by the 胡息 it would give.

Discards keep the hand's shape, drop loose and edge cards first, prefer small
over big (宁小莫大: a big card feeds an opponent's 碰/跑 more 胡息) and prefer
cards already seen (熟张) over unseen ones (生张); once the wall runs low and the
hand is far from winning, safety weighs more (defence). 碰 and 吃 are taken
when the hand after the best following discard is worth more than passing;
the 比 completion chosen is the one leaving the best hand. 胡 is always taken.

>>> from paohuzi.game.engine import Hand
>>> from paohuzi.core.rules import Ruleset
>>> from paohuzi.players import play_hand, RandomPlayer
>>> result = play_hand(Hand.from_seed(3, Ruleset()),
...                    [HeuristicPlayer(1), RandomPlayer(2), RandomPlayer(3)])
>>> result.reason, result.winner, result.points
(<EndReason.HU: 'hu'>, 0, (12, -6, -6))
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from paohuzi.core.cardcount import must_discard
from paohuzi.core.cards import KINDS
from paohuzi.core.groups import (
    QQ_HUXI,
    SCORING_VALUES,
    SENTENCE_VALUES,
    Group,
    GroupKind,
    HuxiTable,
)
from paohuzi.core.kinds import Source
from paohuzi.core.solver import may_win, partial_huxi_counts, solve_counts
from paohuzi.game.actions import Action, Chi, Discard, Hu, Pass, Peng
from paohuzi.game.view import Observation

__all__ = ["HeuristicPlayer", "hand_value"]

# ---- shape: blocks per size, memoised on packed counts (3 bits a value) ------------

_COMPLETE = 3.0
_NEAR = 1.1
_PAIR = 1.3
_blocks_memo: dict[int, float] = {0: 0.0}


def _field(code: int, v: int) -> int:
    return (code >> (3 * v)) & 7


def _moves(low: int) -> tuple[tuple[tuple[int, ...], int, float], ...]:
    """The blocks whose lowest card is value ``low``, from groups' table of sentences:
    ``(their other values, their code, block value)``. A complete sentence is worth
    ``_COMPLETE`` (more if it scores); a near-group (two cards of a sentence, waiting
    on the third) ``_NEAR`` for neighbours, less for a gap (嵌张), less still for the 2
    with the 7 or the 10 of 二七十.
    """
    moves: list[tuple[tuple[int, ...], int, float]] = []
    near: dict[int, float] = {}
    for values in SENTENCE_VALUES:
        if values[0] == low:
            bonus = 0.6 if values in SCORING_VALUES else 0.0
            moves.append((values[1:], sum(1 << (3 * v) for v in values[1:]), _COMPLETE + bonus))
        if low in values:
            for v in values:
                if v - low == 1:
                    near[v] = _NEAR
                elif v - low == 2:
                    near[v] = _NEAR * 0.85
                elif v > low == values[0]:
                    near[v] = _NEAR * 0.7
    moves.extend(((v,), 1 << (3 * v), gain) for v, gain in sorted(near.items()))
    return tuple(moves)


_MOVES = tuple(_moves(low) for low in range(10))


def _blocks(code: int) -> float:
    """Best block score of one size's free cards (complete groups and near-groups)."""
    found = _blocks_memo.get(code)
    if found is not None:
        return found
    i = ((code & -code).bit_length() - 1) // 3
    one = 1 << (3 * i)
    rest = code - one
    best = _blocks(rest)  # the lowest card left loose
    for others, mask, gain in _MOVES[i]:
        if all(_field(code, v) for v in others):
            best = max(best, gain + _blocks(rest - mask))
    if _field(code, i) >= 2:
        best = max(best, _PAIR + _blocks(rest - one))
    _blocks_memo[code] = best
    return best


def _shape(free: Sequence[int]) -> float:
    small = big = 0
    for v in range(9, -1, -1):
        small = (small << 3) | free[v]
        big = (big << 3) | free[v + 10]
    jiao = sum(0.5 for v in range(10) if free[v] and free[v + 10] and free[v] + free[v + 10] >= 2)
    return _blocks(small) + _blocks(big) + jiao


# ---- the value of a hand -----------------------------------------------------------

def _waits_value(hand: list[int], melds: Sequence[Group], live: Sequence[int],
                 min_huxi: int, table: HuxiTable = QQ_HUXI) -> float:
    """Σ over winning cards of live copies × (胡息 / 15), the cards it waits on."""
    total = 0.0
    for card in range(KINDS):
        if live[card] <= 0 or not may_win(hand, melds, card, min_huxi, table):
            continue
        win = solve_counts(hand, melds, card, Source.OTHER, min_huxi=min_huxi, trusted=True,
                           table=table)
        if win is not None:
            total += live[card] * win.huxi / 15.0
    return total


def hand_value(hand: list[int], melds: Sequence[Group], live: Sequence[int],
               min_huxi: int = 15, waits: bool = True, table: HuxiTable = QQ_HUXI) -> float:
    """How good a hand is: shape, 胡息 potential (scored by ``table``, the rules' 胡息
    table) and (with ``waits``) its live waits."""
    free = [n if n <= 2 else 0 for n in hand]
    locked = sum(1 for n in hand if n >= 3)
    huxi = partial_huxi_counts(hand, melds, table)
    value = _shape(free) + _COMPLETE * (locked + len(melds))
    value += 0.22 * min(huxi, min_huxi + 9)
    if huxi < min_huxi:
        value -= 0.15 * (min_huxi - huxi)
    if waits:
        value += 2.5 * _waits_value(hand, melds, live, min_huxi, table)
    return value


_REFINE = 3
"""Candidates whose waits are computed after a first pass without them."""


class HeuristicPlayer:
    """Fast, sensible play (see the module docstring). ``noise`` > 0 makes it weaker:
    that share of decisions is taken at random (the ``easy`` level)."""

    needs_view = True

    def __init__(self, seed: int | None = None, noise: float = 0.0, fast: bool = False) -> None:
        self.rng = random.Random(seed)
        self.noise = noise
        self.refine = 1 if fast else _REFINE
        """How many discards get their waits valued (1: the quick roll-out policy)."""

    def choose(self, view: Observation | None, legal: Sequence[Action]) -> Action:
        assert view is not None, "the heuristic player needs its seat's observation"
        if len(legal) == 1:
            return legal[0]
        for action in legal:
            if isinstance(action, Hu):
                return action
        if self.noise and self.rng.random() < self.noise:
            return legal[self.rng.randrange(len(legal))]
        live = view.unseen_counts()
        own_melds = [m for m in view.melds[view.seat] if m is not None] \
            if view.seat is not None else []
        hand = list(view.hand)
        min_huxi = view.rules.min_huxi
        if all(isinstance(a, Discard) for a in legal):
            return self._best_discard(view, hand, own_melds, live, legal, min_huxi)[0]
        return self._claim(view, hand, own_melds, live, legal, min_huxi)

    # ---- discards --------------------------------------------------------------------

    def _danger(self, view: Observation, card: int, live: Sequence[int]) -> float:
        """What a discard may feed the others: a 碰 or 跑 of an unseen card (big cards
        feed more 胡息, 宁小莫大); cards already seen (熟张) are safer."""
        unseen = live[card]
        danger = 0.0
        if unseen >= 2:
            danger += (0.35 if card >= 10 else 0.15) * (unseen - 1)
        late = view.wall < 8
        return danger * (2.0 if late else 1.0)

    def _best_discard(self, view: Observation, hand: list[int], melds: Sequence[Group],
                      live: Sequence[int], legal: Sequence[Action], min_huxi: int
                      ) -> tuple[Action, float]:
        scored: list[tuple[float, int, Action]] = []
        for i, action in enumerate(legal):
            if not isinstance(action, Discard):
                continue
            card = action.card
            hand[card] -= 1
            value = hand_value(hand, melds, live, min_huxi, waits=False, table=view.rules.huxi)
            hand[card] += 1
            value -= self._danger(view, card, live)
            if card % 10 in (0, 9):  # edge cards 一/十 go first, all else equal
                value += 0.05
            scored.append((value, -i, action))
        scored.sort(reverse=True)
        best: tuple[Action, float] | None = None
        for value, _, action in scored[:self.refine]:  # the waits only for the best few
            assert isinstance(action, Discard)
            hand[action.card] -= 1
            value += 2.5 * _waits_value(hand, melds, live, min_huxi, view.rules.huxi)
            hand[action.card] += 1
            if best is None or value > best[1]:
                best = (action, value)
        assert best is not None
        return best

    def _after_intake_value(self, view: Observation, hand: list[int], melds: list[Group],
                            live: Sequence[int], min_huxi: int) -> float:
        """The hand's value after an intake, with the best discard if one is due."""
        owned = sum(hand) + sum(len(m.cards) for m in melds)
        k = sum(1 for m in melds if m.is_pao_or_ti)
        if not must_discard(owned, k):
            return hand_value(hand, melds, live, min_huxi, table=view.rules.huxi)
        discards = [Discard(c) for c in range(KINDS) if 0 < hand[c] <= 2]  # type: ignore[arg-type]
        if not discards:
            return hand_value(hand, melds, live, min_huxi, table=view.rules.huxi) - 5.0  # 相公
        return self._best_discard(view, hand, melds, live, discards, min_huxi)[1]

    # ---- claims ------------------------------------------------------------------------

    def _claim(self, view: Observation, hand: list[int], melds: list[Group],
               live: Sequence[int], legal: Sequence[Action], min_huxi: int) -> Action:
        assert view.claim is not None
        card = view.claim[0]
        best_action: Action = next(a for a in legal if isinstance(a, Pass))
        best_value = hand_value(hand, melds, live, min_huxi, table=view.rules.huxi) + 0.4
        for action in legal:
            if isinstance(action, Peng):
                new_hand = list(hand)
                new_hand[card] -= 2
                new_melds = [*melds, Group.identical(GroupKind.PENG, card, view.rules.huxi)]
            elif isinstance(action, Chi):
                new_hand = list(hand)
                for g in action.bi:
                    for c in g.cards:
                        new_hand[c] -= 1
                used = list(action.eat.cards)
                used.remove(card)
                for c in used:
                    new_hand[c] -= 1
                new_melds = [*melds, *(g.scored_by(view.rules.huxi)
                                       for g in (action.eat, *action.bi))]
            else:
                continue
            value = self._after_intake_value(view, new_hand, new_melds, live, min_huxi)
            if value > best_value:
                best_action, best_value = action, value
        return best_action
