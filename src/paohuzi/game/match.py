"""A match: consecutive hands with dealer rotation and running totals (docs/rules.md §3.1, §7).

* The first dealer is drawn at random (from the match seed); then the last
  winner deals. After a drawn hand (荒庄) the dealer keeps the deal; after 3
  drawn hands in a row it passes to the dealer's 下家 (§3.1). With the ``hunan``
  option ``huangzhuang_passes_deal`` (§9) a drawn hand passes the deal to the
  下家 at once with three seats, and the dealer keeps it with the 醒家.
* With the ``hunan`` option ``xingjia`` there are 4 match seats: the seat
  opposite the dealer is the 醒家 (xingjia), sits the hand out and is paid by
  the losers (§9; on a drawn hand the dealer pays him).
* A seat that leaves mid-hand (逃跑) pays the §7.4 penalty. Leaving — by 逃跑
  or between hands (:meth:`Match.leave`) — ends the match (§3.1 [decision]):
  :attr:`Match.over` is set, no further hand is dealt, and the caller starts a
  new match (:meth:`Match.next_match`: a random first dealer, no 荒庄 count,
  totals from zero).

>>> from paohuzi.core.rules import Ruleset
>>> m = Match(Ruleset(), seed=1)
>>> hand = m.start_hand()
>>> while not hand.ended:
...     seat = hand.pending_seats()[0]
...     _ = hand.act(seat, hand.legal_actions(seat)[-1])
>>> _ = m.finish_hand()
>>> sum(m.points)
0
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from paohuzi.core.errors import PaohuziError
from paohuzi.core.kinds import EndReason
from paohuzi.core.rules import Ruleset
from paohuzi.core.settlement import beans_of
from paohuzi.game.deal import Deal
from paohuzi.game.engine import Hand, HandResult
from paohuzi.game.record import record_of

__all__ = ["DRAWS_TO_PASS_DEAL", "HandSummary", "Match", "draws_to_pass_deal"]

DRAWS_TO_PASS_DEAL = 3
"""Drawn hands in a row after which the deal passes to the dealer's 下家 (§3.1)."""


def draws_to_pass_deal(rules: Ruleset) -> int | None:
    """Drawn hands (荒庄) in a row after which the deal passes to the dealer's 下家; None:
    the dealer keeps it however many (§3.1; ``hunan`` §9: at once with three seats, kept
    with the 醒家).

    >>> draws_to_pass_deal(Ruleset()), draws_to_pass_deal(Ruleset.preset("hunan"))
    (3, 1)
    >>> draws_to_pass_deal(Ruleset.preset("hunan", xingjia=True)) is None
    True
    """
    if rules.huangzhuang_passes_deal:
        return None if rules.xingjia else 1
    return DRAWS_TO_PASS_DEAL


@dataclass(frozen=True, slots=True)
class HandSummary:
    """One finished hand of a match, in match seats."""

    number: int
    dealer: int
    xingjia: int | None
    players: tuple[int, ...]
    result: HandResult
    points: tuple[int, ...]
    record: dict[str, Any] = field(compare=False)


class Match:
    """Consecutive hands at one table, in match seats ``0 .. rules.seats - 1``."""

    def __init__(self, rules: Ruleset, seed: int, first_dealer: int | None = None) -> None:
        self.rules = rules
        self.seed = seed
        self._rng = random.Random(seed)
        self.n_seats = rules.seats
        self.dealer = self._rng.randrange(self.n_seats) if first_dealer is None else first_dealer
        if not 0 <= self.dealer < self.n_seats:
            raise PaohuziError(f"first dealer must be a seat 0..{self.n_seats - 1}")
        self.drawn_in_a_row = 0
        self.points = [0] * self.n_seats
        self.beans = [0] * self.n_seats
        self.history: list[HandSummary] = []
        self.hand: Hand | None = None
        self._players: tuple[int, ...] = ()
        self.over = False
        """A player left (§3.1): the match deals no further hand."""

    @property
    def xingjia(self) -> int | None:
        """The match seat sitting this hand out (opposite the dealer), if any."""
        return (self.dealer + 2) % 4 if self.rules.xingjia else None

    @property
    def hand_players(self) -> tuple[int, ...]:
        """Match seats of the current (or last) hand, by hand seat; empty before any."""
        return self._players

    def playing_seats(self) -> tuple[int, ...]:
        """Match seats playing this hand, in turn order starting with the dealer."""
        seats = [(self.dealer + i) % self.n_seats for i in range(self.n_seats)]
        return tuple(s for s in seats if s != self.xingjia)

    def start_hand(self, seed: int | None = None, *,
                   on_claim_point: Callable[[Hand], None] | None = None) -> Hand:
        """Deal the next hand (hand seat 0 is the dealer: see :meth:`playing_seats`);
        ``on_claim_point``: see :attr:`Hand.on_claim_point`."""
        if self.hand is not None and not self.hand.ended:
            raise PaohuziError("the current hand has not ended")
        if self.over:
            raise PaohuziError("the match is over (a player left, §3.1): start a new match")
        self._players = self.playing_seats()
        hand_seed = self._rng.getrandbits(63) if seed is None else seed
        self.hand = Hand(self.rules, Deal.from_seed(hand_seed, self.rules, dealer=0),
                         on_claim_point=on_claim_point)
        return self.hand

    def escape(self, match_seat: int) -> HandSummary:
        """``match_seat`` leaves mid-hand (逃跑): it pays §7.4 and the hand ends."""
        if self.hand is None or self.hand.ended:
            raise PaohuziError("no hand in progress")
        if match_seat not in self._players:
            raise PaohuziError(f"match seat {match_seat} is not playing this hand")
        self.hand.escape(self._players.index(match_seat))
        summary = self.finish_hand()
        self.over = True  # §3.1: leaving ends the match
        return summary

    def leave(self, match_seat: int) -> None:
        """``match_seat`` leaves between hands: the match is over (§3.1)."""
        if not 0 <= match_seat < self.n_seats:
            raise PaohuziError(f"there is no match seat {match_seat} (0..{self.n_seats - 1})")
        if self.hand is not None and not self.hand.ended:
            raise PaohuziError("a hand is in progress: leaving now is an escape (逃跑)")
        self.over = True

    def next_match(self, first_dealer: int | None = None) -> Match:
        """The match that follows this one at the table (same rules and seats): its first
        dealer drawn at random from this match's randomness unless given (§3.1).

        >>> from paohuzi.core.rules import Ruleset
        >>> m = Match(Ruleset(), seed=1, first_dealer=2)
        >>> m.leave(0)
        >>> new = m.next_match()
        >>> new.over, new.points, new.drawn_in_a_row, new.history
        (False, [0, 0, 0], 0, [])
        """
        return Match(self.rules, seed=self._rng.getrandbits(63), first_dealer=first_dealer)

    def _deal_passes_after_draw(self) -> bool:
        """Whether the drawn hands so far pass the deal to the dealer's 下家 (§3.1, §9)."""
        needed = draws_to_pass_deal(self.rules)
        return needed is not None and self.drawn_in_a_row >= needed

    def finish_hand(self) -> HandSummary:
        """Book the ended hand's points and rotate the deal."""
        hand = self.hand
        if hand is None or not hand.ended or hand.result is None:
            raise PaohuziError("the hand has not ended")
        result = hand.result
        points = [0] * self.n_seats
        for hand_seat, match_seat in enumerate(self._players):
            points[match_seat] = result.points[hand_seat]
        if self.xingjia is not None:
            points[self.xingjia] = result.xingjia_points
        for seat in range(self.n_seats):
            self.points[seat] += points[seat]
            self.beans[seat] += beans_of(points[seat], self.rules)
        summary = HandSummary(len(self.history) + 1, self.dealer, self.xingjia, self._players,
                              result, tuple(points), record_of(hand))
        self.history.append(summary)
        if result.reason in (EndReason.HU, EndReason.TIANHU) and result.winner is not None:
            self.dealer = self._players[result.winner]
            self.drawn_in_a_row = 0
        elif result.reason is EndReason.HUANGZHUANG:
            self.drawn_in_a_row += 1
            if self._deal_passes_after_draw():
                self.dealer = self._players[1 % len(self._players)]
                self.drawn_in_a_row = 0
        self.hand = None
        return summary
