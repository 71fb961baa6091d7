"""The heuristic computer player: fast, sensible play in the spirit of seed 004.

It values a hand by how close it is to a winning hand and by the 胡息 it can
still make, using the solver (docs/rules.md §10):

* **shape**: the best split of the free hand cards into complete groups
  (sentences, 二七十), near-groups (两面/嵌张 pairs of cards, 对子) and loose
  cards, memoised per size on the packed counts; 坎 and table groups count as
  complete; a near-group is worth less as the cards it waits on run out (every
  copy seen: nothing; one copy left: less), and so is a pair whose third copy is
  all seen (card counting);
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

import functools
import random
from collections.abc import Callable, Iterator, Sequence

from paohuzi.core.cardcount import must_discard
from paohuzi.core.cards import ALL_CARDS, KINDS
from paohuzi.core.decompose import partial_scoring_sentences
from paohuzi.core.groups import (
    JIAOS,
    SCORING_VALUES,
    SENTENCE_VALUES,
    SHAPES,
    Group,
    GroupKind,
    group_huxi,
)
from paohuzi.core.kinds import Source
from paohuzi.core.mingtang import HandFacts, MingtangTable, table_of
from paohuzi.core.rules import Ruleset
from paohuzi.core.settlement import settle, win_context
from paohuzi.core.solver import (
    Arrangement,
    may_win_cards,
    partial_huxi_counts,
    solve_counts,
)
from paohuzi.game.actions import Action, Chi, Discard, Hu, Pass, Peng
from paohuzi.game.view import Observation

__all__ = ["HeuristicPlayer", "danger", "hand_value", "mingtang_potential", "own_table_groups",
           "wait_cards"]

# ---- shape: blocks per size, memoised on packed counts (3 bits a value) ------------

_COMPLETE = 3.0
_NEAR = 1.1
_PAIR = 1.3
_blocks_memo: dict[int, float] = {}


def _field(code: int, v: int) -> int:
    return (code >> (3 * v)) & 7


def _moves(low: int) -> tuple[tuple[tuple[int, ...], int, float, int], ...]:
    """The blocks whose lowest card is value ``low``, from groups' table of sentences:
    ``(their other values, their code, block value, the values they wait on)``, the last
    a bit mask. A complete sentence is worth ``_COMPLETE`` (more if it scores) and waits on
    nothing; a near-group (two cards of a sentence, waiting on the third) ``_NEAR`` for
    neighbours, less for a gap (嵌张), less still for the 2 with the 7 or the 10 of 二七十.
    """
    moves: list[tuple[tuple[int, ...], int, float, int]] = []
    near: dict[int, float] = {}
    needs: dict[int, int] = {}
    for values in SENTENCE_VALUES:
        if values[0] == low:
            bonus = 0.6 if values in SCORING_VALUES else 0.0
            moves.append((values[1:], sum(1 << (3 * v) for v in values[1:]),
                          _COMPLETE + bonus, 0))
        if low in values:
            for v in values:
                if v <= low:
                    continue
                third = next(t for t in values if t not in (low, v))
                needs[v] = needs.get(v, 0) | 1 << third
                if v - low == 1:
                    near[v] = _NEAR
                elif v - low == 2:
                    near[v] = _NEAR * 0.85
                elif low == values[0]:
                    near[v] = max(near.get(v, 0.0), _NEAR * 0.7)
    moves.extend(((v,), 1 << (3 * v), gain, needs[v]) for v, gain in sorted(near.items()))
    return tuple(moves)


_MOVES = tuple(_moves(low) for low in range(10))


def _blocks(code: int, dead: int = 0, scarce: int = 0) -> float:
    """Best block score of one size's free cards (complete groups and near-groups);
    ``dead``: a bit mask of the values with no live copy left (a near-group waiting only
    on dead values is no block, one with a dead side is worth less, a pair of one is
    worth less); ``scarce``: the values with one live copy (a near-group waiting only on
    those is worth less)."""
    if code == 0:
        return 0.0
    key = code | dead << 30 | scarce << 40
    found = _blocks_memo.get(key)
    if found is not None:
        return found
    if len(_blocks_memo) >= _MEMO_LIMIT:
        _blocks_memo.clear()
    i = ((code & -code).bit_length() - 1) // 3
    one = 1 << (3 * i)
    rest = code - one
    best = _blocks(rest, dead, scarce)  # the lowest card left loose
    for others, mask, gain, wanted in _MOVES[i]:
        if all(_field(code, v) for v in others):
            if wanted & dead:
                if wanted & ~dead == 0:
                    continue  # a dead wait: every card it needs is visible
                gain *= _HALF_DEAD
            if wanted & ~dead & ~scarce == 0:
                gain *= _SCARCE
            best = max(best, gain + _blocks(rest - mask, dead, scarce))
    if _field(code, i) >= 2:
        pair = _PAIR * (_DEAD_PAIR if dead >> i & 1 else 1.0)
        best = max(best, pair + _blocks(rest - one, dead, scarce))
    _blocks_memo[key] = best
    return best


_HALF_DEAD = 0.75
"""What a near-group keeps when one of the two cards it waits on is dead."""
_SCARCE = 0.85
"""What a near-group keeps when every live card it waits on has one copy left (the
others seen): measured with ``benchmarks/players_ab.py`` (``benchmarks/blunders.md``)."""
_DEAD_PAIR = 0.85
"""What a pair keeps when no third copy is live (it can no longer become a 坎 or 碰)."""
_MEMO_LIMIT = 1 << 20
"""Entries the block memo holds before it starts again (a server runs for weeks)."""


def live_masks(live: Sequence[int]) -> tuple[int, int, int, int]:
    """What the shape reads of the live counts, per size as bit masks of values: the dead
    ones (no live copy left: all four seen) and the scarce ones (one live copy):
    ``(dead small, scarce small, dead big, scarce big)``. One decision works them out
    once for every hand it values.

    >>> from paohuzi.core.cards import KINDS
    >>> live = [4] * KINDS
    >>> live[0], live[1], live[19] = 0, 1, 0
    >>> live_masks(live)
    (1, 2, 512, 0)
    """
    dead_small = dead_big = scarce_small = scarce_big = 0
    for v in range(10):
        small, big = live[v], live[v + 10]
        if small <= 0:
            dead_small |= 1 << v
        elif small == 1:
            scarce_small |= 1 << v
        if big <= 0:
            dead_big |= 1 << v
        elif big == 1:
            scarce_big |= 1 << v
    return dead_small, scarce_small, dead_big, scarce_big


_JIAO = 0.5
"""What a 绞 pair (a small and a big card of one value, three or four of them) adds."""


def _jiao_at(free: Sequence[int], v: int) -> int:
    """Whether the free cards hold a 绞 pair of value ``v``."""
    small, big = free[v], free[v + 10]
    return int(bool(small and big and small + big >= 2))


# ---- the value of a hand -----------------------------------------------------------

def _win_units(win: Arrangement, rules: Ruleset) -> float:
    """What a win is worth, in units of the ruleset's base score paid by each loser
    (底 × 番 with the 名堂 of the scheme, :func:`paohuzi.core.settlement.settle`)."""
    settled = settle(win, _ON_DISCARD, rules)
    return settled.winner_points / (max(1, rules.players - 1) * rules.base)


_ON_DISCARD = win_context(Source.OTHER)


def _waits_value(hand: list[int], melds: Sequence[Group], live: Sequence[int],
                 rules: Ruleset) -> float:
    """Σ over winning cards of live copies × what the win would be worth (its 胡息 and
    名堂, as the settlement counts them): the cards it waits on."""
    total = 0.0
    live_cards = 0
    for card in range(KINDS):
        if live[card] > 0:
            live_cards |= 1 << card
    for card, win in _wins(hand, melds, rules, live_cards):
        total += live[card] * _win_units(win, rules)
    return total


def wait_cards(hand: list[int], melds: Sequence[Group], rules: Ruleset) -> frozenset[int]:
    """The cards the hand would win on (shown by another seat), live or not."""
    return frozenset(card for card, _ in _wins(hand, melds, rules, _ALL_CARDS))


_ALL_CARDS = (1 << KINDS) - 1


def _wins(hand: list[int], melds: Sequence[Group], rules: Ruleset, among: int
          ) -> Iterator[tuple[int, Arrangement]]:
    """Each card of ``among`` (bits: bit ``c`` is card ``c``) the hand would win on,
    shown by another seat, with its best arrangement, lowest card first. The solver's
    prefilter (:func:`~paohuzi.core.solver.may_win_cards`) rules most cards out without a
    search."""
    cards = may_win_cards(hand, melds, rules.min_huxi, rules.huxi, among)
    while cards:
        low = cards & -cards
        cards ^= low
        card = low.bit_length() - 1
        win = solve_counts(hand, melds, card, Source.OTHER, min_huxi=rules.min_huxi,
                           trusted=True, table=rules.huxi)
        if win is not None:
            yield card, win


def own_table_groups(view: Observation) -> list[Group]:
    """The observer's own groups on the table (none for a spectator)."""
    if view.seat is None:
        return []
    return [m for m in view.melds[view.seat] if m is not None]


def mingtang_potential(hand: Sequence[int], melds: Sequence[Group], rules: Ruleset) -> int:
    """The 番 beyond 平胡 the cards owned now would score if they won as they are (their
    red, big and small counts, as :mod:`paohuzi.core.mingtang` reads them; 对对胡 is not
    guessed): a hand keeping them aims at that 名堂.

    >>> from paohuzi.core.cards import counts_of, parse_cards
    >>> hand = counts_of(parse_cards("三四五六八九九 壹壹壹肆肆肆伍伍伍陆柒捌"))
    >>> mingtang_potential(hand, [], Ruleset())  # one red card: 真点胡 (×4)
    3
    >>> mingtang_potential(counts_of(parse_cards("二七十 贰柒拾")), [], Ruleset())
    0
    """
    red, big, total = _colour_counts(hand, melds)
    return _fan_beyond(table_of(rules), red, big, total - big)


def _colour_counts(hand: Sequence[int], melds: Sequence[Group]) -> tuple[int, int, int]:
    """The red, big and all cards owned: in the hand and in the table groups."""
    red = big = total = 0
    for card in range(KINDS):
        n = hand[card]
        if n:
            total += n
            red += n * _RED[card]
            big += n * _BIG[card]
    for meld in melds:
        for card in meld.cards:
            total += 1
            red += _RED[card]
            big += _BIG[card]
    return red, big, total


_RED = tuple(int(card.is_red) for card in ALL_CARDS)
_BIG = tuple(int(card.is_big) for card in ALL_CARDS)


def _fan_beyond(table: MingtangTable, red: int, big: int, small: int) -> int:
    """The 番 beyond 平胡 of a table for these counts (not 对对胡), memoised."""
    key = (id(table), red, big, small)
    fan = _fan_memo.get(key)
    if fan is None:
        fan = table.fan(table.find(HandFacts(red, big, small, all_identical=False)),
                        haidi=False) - 1
        _fan_memo[key] = fan
    return fan


_fan_memo: dict[tuple[int, int, int, int], int] = {}
"""Keyed by the table's id: the tables are module constants, alive for good."""


@functools.cache
def _rules_with(min_huxi: int) -> Ruleset:
    return Ruleset(min_huxi=min_huxi)


def hand_value(hand: list[int], melds: Sequence[Group], live: Sequence[int],
               min_huxi: int = 15, waits: bool = True, rules: Ruleset | None = None) -> float:
    """How good a hand is: shape (near-groups waiting on cards all seen are dead), 胡息
    and 名堂 potential and (with ``waits``) its live waits, worth what they would score."""
    rules = rules or _rules_with(min_huxi)
    return _hand_value(hand, melds, live, live_masks(live), rules, min_huxi, waits)


def _hand_value(hand: list[int], melds: Sequence[Group], live: Sequence[int],
                masks: tuple[int, int, int, int], rules: Ruleset, min_huxi: int,
                waits: bool) -> float:
    """:func:`hand_value`, the live counts' :func:`live_masks` given."""
    value = _Position(hand, melds, masks, rules, min_huxi).value()
    if waits:
        value += _WAIT * _waits_value(hand, melds, live, rules)
    return value


class _Position:
    """A hand and its table groups under one decision's live counts: what
    :func:`hand_value` (without waits) adds up, worked out once, so that the value of the
    hand less one free card (a discard) costs a few lookups:

    * shape: the free cards (outside 坎 and 提) packed per size for the block memo, and
      the 绞 pairs among them; the complete groups (坎, 提 and table groups);
    * 胡息: the table, 坎 and 提 胡息 and the best scoring sentences of the free cards;
    * 名堂 potential: the red, big and all cards owned.
    """

    __slots__ = ("_complete", "_fixed_huxi", "_free", "_masks", "_min_huxi", "_rules",
                 "_scoring", "big", "codes", "jiao", "red", "total")

    def __init__(self, hand: Sequence[int], melds: Sequence[Group],
                 masks: tuple[int, int, int, int], rules: Ruleset, min_huxi: int) -> None:
        free = [n if n <= 2 else 0 for n in hand]
        small = big = 0
        for v in range(9, -1, -1):
            small = (small << 3) | free[v]
            big = (big << 3) | free[v + 10]
        self._free = free
        self.codes = [small, big]
        self.jiao = sum(_jiao_at(free, v) for v in range(10))
        self._complete = sum(1 for n in hand if n >= 3) + len(melds)
        self._scoring = partial_scoring_sentences(free, rules.huxi)
        self._fixed_huxi = partial_huxi_counts(hand, melds, rules.huxi) - self._scoring
        self._masks = masks
        self._rules = rules
        self._min_huxi = min_huxi
        self.red, self.big, self.total = _colour_counts(hand, melds)

    def value(self) -> float:
        """:func:`hand_value` of the hand, without waits."""
        small, big = self.codes
        return self._value(small, big, self.jiao, self._fixed_huxi + self._scoring,
                           self.red, self.big, self.total)

    def value_without(self, card: int) -> float:
        """:func:`hand_value` of the hand less one ``card`` (held once or twice), without
        waits."""
        free = self._free
        v, size = card % 10, card // 10
        jiao = self.jiao - _jiao_at(free, v)
        free[card] -= 1
        jiao += _jiao_at(free, v)
        scoring = partial_scoring_sentences(free, self._rules.huxi) \
            if v in _SCORING_VALUE_SET else self._scoring
        free[card] += 1
        codes = list(self.codes)
        codes[size] -= 1 << (3 * v)
        return self._value(codes[0], codes[1], jiao, self._fixed_huxi + scoring,
                           self.red - _RED[card], self.big - _BIG[card], self.total - 1)

    def _value(self, small: int, big: int, jiao: int, huxi: int, red: int, big_cards: int,
               total: int) -> float:
        dead_small, scarce_small, dead_big, scarce_big = self._masks
        min_huxi = self._min_huxi
        shape = _blocks(small, dead_small, scarce_small) + _blocks(big, dead_big, scarce_big) \
            + _JIAO * jiao
        value = shape + _COMPLETE * self._complete
        value += 0.22 * min(huxi, min_huxi + 9)
        if huxi < min_huxi:
            value -= 0.15 * (min_huxi - huxi)
        value += _MINGTANG * _fan_beyond(table_of(self._rules), red, big_cards,
                                         total - big_cards)
        return value


_SCORING_VALUE_SET = frozenset(v for values in SCORING_VALUES for v in values)
"""The values (0 to 9) a scoring sentence (一二三, 二七十) holds."""


_WAIT = 2.5
"""Weight of a wait: per live winning card and unit of points it would win."""
_MINGTANG = 0.3
"""Weight of each 番 of 名堂 potential."""


# ---- danger: what a discard may feed the others ------------------------------------

def _holds_both(live: Sequence[int], first: int, second: int, share: float) -> float:
    """Rough chance that a seat holding ``share`` of the hidden cards has both cards."""
    if first == second:
        return min(1.0, live[first] * (live[first] - 1) / 2 * share * share)
    return min(1.0, live[first] * share) * min(1.0, live[second] * share)


def _chi_shapes(card: int) -> tuple[tuple[int, int, float], ...]:
    """The other two cards of every sentence and 绞 holding ``card``, with what the group
    would give (its 胡息 / 3, and a 门子 more)."""
    out = []
    for shape in SHAPES:
        if card in shape:
            rest = list(shape)
            rest.remove(card)
            huxi = group_huxi(GroupKind.JIAO if shape in JIAOS else GroupKind.SENTENCE, shape)
            out.append((rest[0], rest[1], huxi / 3.0 + 1.0))
    return tuple(out)


_CHI_SHAPES = tuple(_chi_shapes(card) for card in range(KINDS))


def danger(view: Observation, card: int, live: Sequence[int]) -> float:
    """What discarding ``card`` may feed the others, in the hand value's units.

    Each other seat may 碰 it (it holds two of the hidden copies), and the 下家 may
    also 吃 it (it holds the other two cards of a sentence or 绞); a seat for which the
    card is 臭 (it threw that card away itself: in its pile) can do neither. What the
    group would give (its 胡息, from :mod:`paohuzi.core.groups`, and a 门子 more) is
    weighted by how near that seat is to winning (its visible table 胡息 and groups).
    Late in the hand (a short wall) every risk counts more.
    """
    return dangers(view, live)(card)


def dangers(view: Observation, live: Sequence[int]) -> Callable[[int], float]:
    """:func:`danger` of each card, the seats' facts worked out once."""
    me = view.seat
    hidden = sum(live) or 1
    min_huxi = view.rules.min_huxi
    xiajia = None if me is None else (me + 1) % view.players
    late = _DANGER * (1.5 if view.wall < 8 else 1.0)
    seats = []
    for seat in range(view.players):
        if seat == me or not view.hand_sizes[seat]:
            continue
        near = 1.0 + min(1.0, view.table_huxi(seat) / min_huxi) + 0.15 * len(view.melds[seat])
        share = view.hand_sizes[seat] / hidden
        # the 下家's chance of holding each card, for its 吃
        single = [min(1.0, n * share) for n in live] if seat == xiajia else None
        seats.append((share, near, frozenset(view.piles[seat]), single))

    table = view.rules.huxi

    def of(card: int) -> float:
        peng_gain = table.huxi(GroupKind.PENG, (card, card, card)) / 3.0 + 1.0
        total = 0.0
        for share, near, chou, single in seats:
            if card in chou:
                continue
            risk = _holds_both(live, card, card, share) * peng_gain
            if single is not None:
                missing = 1.0
                for first, second, gain in _CHI_SHAPES[card]:
                    p = _holds_both(live, first, second, share) if first == second \
                        else single[first] * single[second]
                    missing *= 1.0 - p * gain / 3.0
                risk += 1.0 - missing
            total += risk * near
        return late * total

    return of


_DANGER = 0.3
"""Weight of the danger of a discard against the hand value."""

_REFINE = 8
"""Candidates whose waits are computed after a first pass without them (3 until
2026-12-06: 8 measured +0.25 points/hand [+0.04, +0.46] against it, 3,000 deals)."""
_PASS = 0.4
"""What passing on a claim is worth beyond the hand as it is (the hand keeps its
options; 0.8 measured the same)."""


class _Decision:
    """What the valuations of one decision share: its view, the live counts and what the
    shape reads of them, and the danger of each card (worked out once a card)."""

    __slots__ = ("_danger", "_danger_of", "live", "masks", "rules", "view")

    def __init__(self, view: Observation, live: Sequence[int]) -> None:
        self.view = view
        self.live = live
        self.rules = view.rules
        self.masks = live_masks(live)
        self._danger_of = dangers(view, live)
        self._danger: dict[int, float] = {}

    def danger(self, card: int) -> float:
        """:func:`danger` of discarding ``card``."""
        found = self._danger.get(card)
        if found is None:
            found = self._danger[card] = self._danger_of(card)
        return found

    def hand_value(self, hand: list[int], melds: Sequence[Group]) -> float:
        """:func:`hand_value` with waits, under this decision's live counts."""
        return _hand_value(hand, melds, self.live, self.masks, self.rules,
                           self.rules.min_huxi, waits=True)


class HeuristicPlayer:
    """Fast, sensible play (see the module docstring). ``noise`` > 0 makes it weaker:
    that share of decisions is taken at random (the ``easy`` level)."""

    needs_view = True
    needs_events = False
    """It reads the piles, not the event list."""

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
        decision = _Decision(view, view.unseen_counts())
        own_melds = own_table_groups(view)
        hand = list(view.hand)
        if all(isinstance(a, Discard) for a in legal):
            return self._best_discard(decision, hand, own_melds, legal)[0]
        return self._claim(decision, hand, own_melds, legal)

    # ---- discards --------------------------------------------------------------------

    def discard_values(self, view: Observation, hand: list[int], melds: Sequence[Group],
                       live: Sequence[int], legal: Sequence[Action]
                       ) -> list[tuple[float, int, Action]]:
        """First-pass values of the legal discards (waits not valued), best first."""
        return self._discard_values(_Decision(view, live), hand, melds, legal)

    @staticmethod
    def _discard_values(decision: _Decision, hand: list[int], melds: Sequence[Group],
                        legal: Sequence[Action]) -> list[tuple[float, int, Action]]:
        rules = decision.rules
        position = _Position(hand, melds, decision.masks, rules, rules.min_huxi)
        scored: list[tuple[float, int, Action]] = []
        for i, action in enumerate(legal):
            if not isinstance(action, Discard):
                continue
            card = action.card
            value = position.value_without(card)
            value -= decision.danger(card)
            if card % 10 in (0, 9):  # edge cards 一/十 go first, all else equal
                value += 0.05
            scored.append((value, -i, action))
        scored.sort(reverse=True)
        return scored

    def _best_discard(self, decision: _Decision, hand: list[int], melds: Sequence[Group],
                      legal: Sequence[Action]) -> tuple[Action, float]:
        scored = self._discard_values(decision, hand, melds, legal)
        best: tuple[Action, float] | None = None
        for value, _, action in scored[:self.refine]:  # the waits only for the best few
            assert isinstance(action, Discard)
            hand[action.card] -= 1
            value += _WAIT * _waits_value(hand, melds, decision.live, decision.rules)
            hand[action.card] += 1
            if best is None or value > best[1]:
                best = (action, value)
        assert best is not None
        return best

    def _after_intake_value(self, decision: _Decision, hand: list[int],
                            melds: list[Group]) -> float:
        """The hand's value after an intake, with the best discard if one is due."""
        owned = sum(hand) + sum(len(m.cards) for m in melds)
        k = sum(1 for m in melds if m.is_pao_or_ti)
        if not must_discard(owned, k):
            return decision.hand_value(hand, melds)
        discards = [Discard(c) for c in range(KINDS) if 0 < hand[c] <= 2]  # type: ignore[arg-type]
        if not discards:
            return decision.hand_value(hand, melds) - 5.0  # 相公
        return self._best_discard(decision, hand, melds, discards)[1]

    # ---- claims ------------------------------------------------------------------------

    def claim_values(self, view: Observation, legal: Sequence[Action]
                     ) -> list[tuple[float, Action]]:
        """The values of the claim actions in ``legal`` (pass, 碰 and each 吃 plan), best
        first; ties keep pass first, then ``legal``'s order. The first is the heuristic's
        choice (when ``legal`` has no 胡 and the player no noise)."""
        return self._claim_values(_Decision(view, view.unseen_counts()), list(view.hand),
                                  own_table_groups(view), legal)

    def _claim(self, decision: _Decision, hand: list[int], melds: list[Group],
               legal: Sequence[Action]) -> Action:
        return self._claim_values(decision, hand, melds, legal)[0][1]

    def _claim_values(self, decision: _Decision, hand: list[int], melds: list[Group],
                      legal: Sequence[Action]) -> list[tuple[float, Action]]:
        view = decision.view
        assert view.claim is not None
        card = view.claim[0]
        values: list[tuple[float, Action]] = [
            (decision.hand_value(hand, melds) + _PASS,
             next(a for a in legal if isinstance(a, Pass)))]
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
            values.append((self._after_intake_value(decision, new_hand, new_melds), action))
        values.sort(key=lambda pair: -pair[0])  # stable: ties keep their order
        return values
