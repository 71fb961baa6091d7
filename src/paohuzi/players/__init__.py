"""Players: anything that, given a seat's view and its legal actions, returns one action.

The same interface serves people (the UI), computer players and remote bots:
a player sees only :func:`paohuzi.game.view.seat_view` and the legal actions.

The computer players live beside this interface: :mod:`~paohuzi.players.heuristic`,
:mod:`~paohuzi.players.search` (with :mod:`~paohuzi.players.sampling`),
:mod:`~paohuzi.players.expert` (a learned value network; numpy, imported lazily), and
:mod:`~paohuzi.players.arena` measures them. The package uses the core and the game only
(``tests/test_layers.py`` checks).

>>> from paohuzi.game.engine import Hand
>>> from paohuzi.core.rules import Ruleset
>>> hand = Hand.from_seed(16, Ruleset())
>>> r = play_hand(hand, [RandomPlayer(1), RandomPlayer(2), RandomPlayer(3)])
>>> r.reason, r.winner, r.source, r.points
(<EndReason.HU: 'hu'>, 1, <Source.SELF: 'self'>, (-18, 36, -18))
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from paohuzi.game.actions import Action
from paohuzi.game.engine import Hand, HandResult
from paohuzi.game.view import Observation, observe

__all__ = ["EXPERIMENTAL", "LEVELS", "PLAYER_NAMES", "Player", "RandomPlayer", "choose_move",
           "make_player", "observation_for", "play_hand", "searches"]

log = logging.getLogger("paohuzi.players")


class Player(Protocol):
    """Chooses one of ``legal`` given the seat's :class:`~paohuzi.game.view.Observation`."""

    def choose(self, view: Observation | None, legal: Sequence[Action]) -> Action: ...


class RandomPlayer:
    """Uniform over the legal actions (the floor)."""

    needs_view = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: Observation | None, legal: Sequence[Action]) -> Action:
        return legal[self.rng.randrange(len(legal))]


def observation_for(player: object, hand: Hand, seat: int) -> Observation | None:
    """What a computer player is given of ``hand`` at ``seat``: the one builder that
    :func:`play_hand`, the arena and the server use, so a player plays the same online
    and offline. ``None`` for a player that reads nothing (``needs_view = False``); the
    event list unless the player says it does not read it (``needs_events = False``).
    """
    if not getattr(player, "needs_view", True):
        return None
    return observe(hand, seat, events=getattr(player, "needs_events", True))


def choose_move(name: str, seed: int, view: Observation | None,
                legal: Sequence[Action], deadline: float | None = None) -> Action:
    """The decision of the computer player ``name`` seeded ``seed``, always one of
    ``legal``: what the game server runs for a computer seat, in a worker process of its
    own (the arguments and the result are small values that pickle). A player that fails
    (a bug) takes the last legal action rather than stop a table.

    ``deadline`` (``time.monotonic()``, the same clock in every process of a machine):
    a searching player stops sampling by then, taking its favourite move where there was
    no time to sample (a claim answered within its claim window).

    >>> from paohuzi.core.rules import Ruleset
    >>> from paohuzi.game.engine import Hand
    >>> hand = Hand.from_seed(16, Ruleset())
    >>> seat = hand.pending_seats()[0]
    >>> legal = hand.legal_actions(seat)
    >>> view = observation_for(make_player("normal"), hand, seat)
    >>> choose_move("normal", 7, view, legal) == make_player("normal", 7).choose(view, legal)
    True
    """
    try:
        player = make_player(name, seed)
        if deadline is not None:
            _stop_by(player, deadline)
        action = player.choose(view, legal)
    except Exception as error:  # pragma: no cover - defensive: a table must never stop
        # the error's type only: its text or traceback may name hidden cards
        log.error("the computer player %s failed (%s)", name, type(error).__name__)
        return legal[-1]
    return action if action in legal else legal[-1]


def searches(name: str) -> bool:
    """Whether the computer player ``name`` searches, so that a deadline can cut its
    thinking short (:func:`choose_move`).

    >>> searches("normal"), searches("hard"), searches("heuristic"), searches("random")
    (True, True, False, False)
    """
    from paohuzi.players.search import SearchPlayer

    return name in PLAYER_NAMES and isinstance(make_player(name), SearchPlayer)


def _stop_by(player: Player, deadline: float) -> None:
    """Bound a searching player's thinking by ``deadline``; other players are quick."""
    from paohuzi.players.search import SearchPlayer

    if isinstance(player, SearchPlayer):
        left = max(0.0, deadline - time.monotonic())
        player.time_limit = left if player.time_limit is None else min(player.time_limit, left)


def play_hand(hand: Hand, players: Sequence[Player],
              on_action: Callable[[int, Action], None] | None = None) -> HandResult:
    """Play ``hand`` to its end, asking each pending seat's player in priority order."""
    while not hand.ended:
        seat = hand.pending_seats()[0]
        player = players[seat]
        legal = hand.legal_actions(seat)
        action = player.choose(observation_for(player, hand, seat), legal)
        hand.act(seat, action)
        if on_action is not None:
            on_action(seat, action)
    assert hand.result is not None
    return hand.result


LEVELS = {
    "easy": "heuristic, with 30% of its decisions taken at random",
    "normal": "search: up to 16 determinisations x 3 candidates, at most 350 roll-out "
              "decisions (p99 under 200 ms)",
    "hard": "search: up to 32 determinisations x 3 candidates, at most 1000 roll-out "
            "decisions (p99 under 1 s)",
}
"""The levels a person picks, and what plays at each."""

NORMAL_BUDGET = 350
"""``normal``'s bound on its roll-outs' heuristic decisions per decision: it keeps the
decision's CPU p99 under 200 ms, cutting samples where roll-outs are long (early in a
hand), while decisions late in a hand (short roll-outs) get up to :data:`NORMAL_SAMPLES`
(README, "The search levels' gain"; ``benchmarks/search_gain.py``)."""

NORMAL_SAMPLES = 16
"""``normal``'s most samples per decision (8 until 2026-12-07: 16 measured +0.23 points
a hand [−0.22, +0.68] over it at the decisions, at the same p99, since the budget is
what binds where decisions are costly)."""

HARD_SAMPLES, HARD_BUDGET = 32, 1000
"""``hard``'s most samples and bound on roll-out decisions per decision (16 samples and no
bound until 2026-12-07: at the decisions 32 @1000 measured +1.92 points a hand against the
heuristic and +0.63 over ``normal``, where 16 unbounded had +1.60 and +0.31; decision CPU
p99 501 ms against 476)."""

EXPERIMENTAL = ("expert",)
"""Players for research and the arena, not offered as a level until they are measured
stronger than the levels below them (``expert``: docs/expert.md)."""

PLAYER_NAMES = ("random", "heuristic", "search", *LEVELS)
"""The players a room's seat may be (the server, the lobby)."""


def make_player(name: str, seed: int | None = None) -> Player:
    """A computer player by name: ``random``, ``heuristic``, ``search``, a level
    (``easy``, ``normal``, ``hard``; see :data:`LEVELS`) or ``expert`` (the learned player,
    :data:`EXPERIMENTAL`).

    ``expert`` needs numpy (:class:`~paohuzi.players.expert.ExpertUnavailableError`, an
    :class:`ImportError`, says so when it is missing); the others need nothing."""
    from paohuzi.players.heuristic import HeuristicPlayer
    from paohuzi.players.search import SearchPlayer

    if name == "random":
        return RandomPlayer(seed)
    if name == "heuristic":
        return HeuristicPlayer(seed)
    if name == "easy":
        return HeuristicPlayer(seed, noise=0.3)
    if name in ("search", "normal"):
        return SearchPlayer(seed, samples=NORMAL_SAMPLES, candidates=3, budget=NORMAL_BUDGET)
    if name == "hard":
        return SearchPlayer(seed, samples=HARD_SAMPLES, candidates=3, budget=HARD_BUDGET)
    if name == "expert":
        from paohuzi.players.expert import ExpertPlayer

        return ExpertPlayer(seed)
    raise ValueError(f"unknown player {name!r}; players: "
                     f"{', '.join((*PLAYER_NAMES, *EXPERIMENTAL))}")
