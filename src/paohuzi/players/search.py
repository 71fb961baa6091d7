"""The search computer player: determinised roll-outs on top of the heuristic player.

For a decision with several sensible options it

1. ranks the legal actions with the heuristic player's values and keeps the best
   few candidates;
2. samples the hidden cards consistently with its own observation, as a full
   engine hand (:func:`paohuzi.game.resample.resample_hand`);
3. plays every candidate forward from the same samples (common random numbers)
   with heuristic players for all seats to the end of the hand;
4. leaves the heuristic's favourite only for a candidate whose mean advantage in
   points over it, paired on the same samples, exceeds its standard error (times
   ``confidence``, 1 by default).

It sees only its :class:`~paohuzi.game.view.Observation`: the samples are drawn from
a generator seeded by the player's seed and the public content of the
observation, so two observations that differ only in cards hidden from it
lead to the same decision. The budget is a number of samples (deterministic);
an optional time limit stops early.

>>> from paohuzi.game.engine import Hand
>>> from paohuzi.core.rules import Ruleset
>>> from paohuzi.players import play_hand
>>> from paohuzi.players.heuristic import HeuristicPlayer, mingtang_potential, wait_cards
>>> r = play_hand(Hand.from_seed(8, Ruleset()),
...               [SearchPlayer(1, samples=2), HeuristicPlayer(2), HeuristicPlayer(3)])
>>> r.reason, r.winner, r.points
(<EndReason.HU: 'hu'>, 0, (18, -9, -9))
"""

from __future__ import annotations

import hashlib
import math
import random
import statistics
import time
from collections.abc import Sequence

from paohuzi.core.groups import Group
from paohuzi.game.actions import Action, Discard, Hu
from paohuzi.game.engine import Hand, PositionError
from paohuzi.game.resample import resample_hand
from paohuzi.game.view import Observation
from paohuzi.players import observation_for
from paohuzi.players.heuristic import (
    HeuristicPlayer,
    mingtang_potential,
    own_table_groups,
    wait_cards,
)

__all__ = ["SearchPlayer", "rollout"]


def _fingerprint(view: Observation) -> int:
    """A stable hash of what the observer sees (never of hidden cards)."""
    parts = [repr(view.hand), repr([[None if m is None else (m.kind.value, tuple(m.cards))
                                     for m in melds] for melds in view.melds]),
             repr(view.piles), repr(view.hand_sizes), str(view.wall), _claim_text(view),
             repr(sorted(view.chou)), str(len(view.events))]
    digest = hashlib.blake2b("|".join(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def _outcome(view: Observation, hand: list[int], melds: Sequence[Group],
             action: Action) -> tuple[frozenset[int], int]:
    """What a discard leaves: the cards the hand then waits on and its 名堂 potential."""
    assert isinstance(action, Discard)
    hand[action.card] -= 1
    waits = wait_cards(hand, melds, view.rules)
    potential = mingtang_potential(hand, melds, view.rules)
    hand[action.card] += 1
    return waits, potential


def _claim_text(view: Observation) -> str:
    """The open claim as text, its context as a plain string (stable fingerprints)."""
    if view.claim is None:
        return "None"
    card, seat, context = view.claim
    return repr((card, seat, context.value))


class SearchPlayer:
    """Determinised roll-outs (see the module docstring).

    Args:
        seed: the player's seed.
        samples: determinisations per decision (the budget).
        candidates: how many of the heuristic's best actions are searched.
        time_limit: optional seconds per decision: no sample is started that would end
            past it at the pace of those before (none with no time at all; then, as with
            a single sample, the heuristic's favourite is played).
        confidence: how many standard errors a candidate's paired gain over the
            heuristic's favourite must exceed for the search to play it.
        budget: optional bound on the roll-outs' decisions (heuristic choices) per
            decision: no sample is started that would pass it at the pace of those
            before. Deterministic, unlike ``time_limit``, and close to CPU time.
        fast_rollouts: whether the roll-outs play the heuristic's quick policy (waits
            valued for its best discard only) rather than the heuristic itself. The quick
            one measured stronger at the same CPU time (more samples beat a truer model
            of the opponents: README, "The search levels' gain").
    """

    needs_view = True

    def __init__(self, seed: int | None = None, samples: int = 6, candidates: int = 3,
                 time_limit: float | None = None, confidence: float = 1.0,
                 budget: int | None = None, fast_rollouts: bool = True) -> None:
        self.fast_rollouts = fast_rollouts
        self.seed = 0 if seed is None else seed
        self.confidence = confidence
        self.budget = budget
        self.samples = samples
        self.candidates = candidates
        self.time_limit = time_limit
        self.heuristic = HeuristicPlayer(self.seed)

    def _ranked(self, view: Observation, legal: Sequence[Action]) -> list[Action]:
        """Legal actions, the heuristic's favourite first. For claims the rest follow in
        the heuristic's order of value (the best 吃 plans, not the first by name); for
        discards the best of each other outcome (a different set of waits or 名堂
        potential) comes before the rest, so that the search weighs moves that change what
        the hand waits on or aims at."""
        if not all(isinstance(a, Discard) for a in legal):
            ranked = [a for _, a in self.heuristic.claim_values(view, legal)]
            return [*ranked, *(a for a in legal if a not in ranked)]
        favourite = self.heuristic.choose(view, legal)
        rest = [a for a in legal if a != favourite]
        if not rest:
            return [favourite]
        live = view.unseen_counts()
        hand = list(view.hand)
        melds = own_table_groups(view)
        scored = self.heuristic.discard_values(view, hand, melds, live, rest)
        ranked = [a for _, _, a in scored]
        seen = {_outcome(view, hand, melds, favourite)}
        distinct: list[Action] = []
        for action in ranked:
            key = _outcome(view, hand, melds, action)
            if key not in seen:
                seen.add(key)
                distinct.append(action)
        return [favourite, *distinct, *(a for a in ranked if a not in distinct)]

    def choose(self, view: Observation | None, legal: Sequence[Action]) -> Action:
        assert view is not None and view.seat is not None
        if len(legal) == 1:
            return legal[0]
        for action in legal:
            if isinstance(action, Hu):
                return action
        candidates = self._ranked(view, legal)[: self.candidates]
        if len(candidates) == 1:
            return candidates[0]
        rng = random.Random(self.seed * 1_000_003 + _fingerprint(view))
        results: list[list[float]] = [[] for _ in candidates]
        done = steps = rollouts = 0
        start = time.perf_counter()
        while done < self.samples and not self._out_of_time(start, done) \
                and not self._out_of_steps(steps, rollouts, len(candidates)):
            sample_seed = rng.getrandbits(32)
            try:
                base = resample_hand(view, random.Random(sample_seed))
            except PositionError:
                break
            for i, action in enumerate(candidates):
                # the same sample for every candidate (common random numbers)
                points, used = self._rollout(base.copy(), view.seat, action, sample_seed)
                results[i].append(points)
                steps += used
                rollouts += 1
            done += 1
        if done < 2:
            return candidates[0]
        # Leave the heuristic's favourite only for a candidate whose paired advantage on
        # the same samples is positive and larger than its own standard error: with few
        # samples, roll-out noise must not overrule a sound default.
        best, best_gain = 0, 0.0
        for i in range(1, len(candidates)):
            gain, error = _paired(results[i], results[0])
            if gain > self.confidence * error and gain > best_gain:
                best, best_gain = i, gain
        return candidates[best]

    def _rollout(self, hand: Hand, me: int, action: Action, seed: int) -> tuple[float, int]:
        """One roll-out: its points for ``me`` and the decisions it took."""
        return play_out(hand, me, action, seed, self.fast_rollouts)

    def _out_of_steps(self, steps: int, rollouts: int, candidates: int) -> bool:
        """Whether one more sample of the ``candidates``, each roll-out as long as the
        mean of those before, would take the roll-outs' decisions past the budget."""
        if self.budget is None or not rollouts:
            return False
        return steps + candidates * steps / rollouts > self.budget

    def _out_of_time(self, start: float, done: int) -> bool:
        """Whether one more sample, as long as the mean of those ``done``, would end past
        the time limit."""
        if self.time_limit is None:
            return False
        spent = time.perf_counter() - start
        return spent + (spent / done if done else 0.0) > self.time_limit

def rollout(hand: Hand, me: int, action: Action, seed: int, fast: bool = True) -> float:
    """``me``'s points when it takes ``action`` in ``hand`` (a sampled world, played on)
    and heuristic players (seeded from ``seed``; ``fast``: the quick roll-out policy)
    play every seat to the end of the hand; -1e9 if ``action`` is not legal there."""
    return play_out(hand, me, action, seed, fast)[0]


def play_out(hand: Hand, me: int, action: Action, seed: int, fast: bool = True
             ) -> tuple[float, int]:
    """:func:`rollout`'s points, and the number of decisions the players took."""
    if not hand.can(me, action):
        return -1e9, 0
    hand.act(me, action)
    players = [HeuristicPlayer(seed + s, fast=fast) for s in range(hand.players)]
    steps = decisions = 0
    while not hand.ended and steps < 400:
        seat = hand.pending_seats()[0]
        legal = hand.legal_actions(seat)
        player = players[seat]
        if len(legal) == 1:
            choice = legal[0]
        else:
            choice = player.choose(observation_for(player, hand, seat), legal)
            decisions += 1
        hand.act(seat, choice)
        steps += 1
    assert hand.result is not None
    return float(hand.result.points[me]), decisions


def _paired(new: Sequence[float], old: Sequence[float]) -> tuple[float, float]:
    """Mean of the paired differences ``new - old`` and its standard error."""
    diffs = [a - b for a, b in zip(new, old, strict=True)]
    return statistics.fmean(diffs), statistics.stdev(diffs) / math.sqrt(len(diffs))

