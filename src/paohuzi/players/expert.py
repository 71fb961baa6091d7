"""The ``expert`` level: a value network over (observation, action), learned by self-play.

In the style of DouZero (Deep Monte-Carlo): the network gives each legal action the
points the seat can expect at the end of the hand if it takes it; the player takes the
best one (胡 is always taken). It was trained by :mod:`paohuzi.rl.train` — first to agree
with the heuristic player and to predict its outcomes, then on self-play outcomes — and
its weights ship in the package (``expert.npz``, docs/expert.md).

The features are built here from the seat's :class:`~paohuzi.game.view.Observation` only
(standard library; what the seat may see), for the state and for each legal action
(the cards it takes from the hand, the hand after it, its 胡息 potential, its live waits,
and whether the heuristic player would choose it). Inference is plain numpy, imported
only when an expert is built (the other levels never need it); numpy's threads are pinned
to one when this module is the first to import it.

>>> from paohuzi.game.engine import Hand
>>> from paohuzi.core.rules import Ruleset
>>> from paohuzi.players import play_hand, RandomPlayer
>>> result = play_hand(Hand.from_seed(3, Ruleset()),
...                    [ExpertPlayer(1), RandomPlayer(2), RandomPlayer(3)])
>>> sum(result.points)
0
"""

from __future__ import annotations

import io
import os
import random
import sys
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

from paohuzi.core.cardcount import must_discard
from paohuzi.core.cards import COPIES, KINDS
from paohuzi.core.errors import PaohuziError
from paohuzi.core.groups import Group, GroupKind
from paohuzi.core.kinds import ClaimContext, Source
from paohuzi.core.solver import may_win_cards, partial_huxi_counts, solve_counts
from paohuzi.game.actions import Action, Chi, Discard, Hu, Pass, Peng
from paohuzi.game.view import Observation
from paohuzi.players.heuristic import HeuristicPlayer

__all__ = ["ACTION_SIZE", "FEATURES_VERSION", "MODEL_FILE", "POINTS_SCALE", "STATE_SIZE",
           "ExpertModel", "ExpertPlayer",
           "ExpertUnavailableError", "ModelFileError", "action_features", "default_model",
           "load_model", "numpy_module", "state_features"]

FEATURES_VERSION = 1
"""Bumped whenever the features change (a model file records the version it was trained on)."""

SLOTS = 3
"""Seats the state describes, seen from the observer (slot 1: his 下家); two players pad."""
_PHASES = ("discard", "claim", "play", "ended")
_CONTEXTS = tuple(ClaimContext)
_SLOT_SIZE = 2 * KINDS + 4
STATE_SIZE = 4 * KINDS + KINDS + SLOTS + len(_CONTEXTS) + len(_PHASES) + 4 + SLOTS * _SLOT_SIZE
"""Entries of :func:`state_features`."""
_KINDS_OF_ACTION = (Discard, Chi, Peng, Hu, Pass)
ACTION_SIZE = len(_KINDS_OF_ACTION) + 2 * KINDS + 10
"""Entries of each row of :func:`action_features`."""
_HUXI_SCALE = 30.0


class ExpertUnavailableError(ImportError):
    """The expert level needs numpy (``pip install 'paohuzi[expert]'``)."""


class ModelFileError(PaohuziError, ValueError):
    """A model file that is not an expert model of these features."""


def numpy_module() -> Any:
    """numpy, imported with its threads pinned to one (:class:`ExpertUnavailableError`
    when it is not installed)."""
    if "numpy" not in sys.modules:
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ.setdefault(var, "1")
    try:
        import numpy
    except ImportError as exc:
        raise ExpertUnavailableError(
            "the expert player needs numpy: pip install 'paohuzi[expert]' "
            f"(or the rl/dev extras) ({exc})") from exc
    return numpy


# ---- features --------------------------------------------------------------------------

def state_features(view: Observation) -> list[float]:
    """The seat's state as :data:`STATE_SIZE` numbers (counts scaled to about 0..1).

    >>> from paohuzi.game.engine import Hand
    >>> from paohuzi.core.rules import Ruleset
    >>> from paohuzi.game.view import observe
    >>> x = state_features(observe(Hand.from_seed(3, Ruleset()), 0))
    >>> len(x) == STATE_SIZE, round(sum(x[:KINDS]) * COPIES)  # the dealer holds 21 cards
    (True, 21)
    """
    assert view.seat is not None, "the expert player needs a seat's observation"
    seat, players = view.seat, view.players
    out: list[float] = [n / COPIES for n in view.hand]
    out += [n / COPIES for n in view.unseen_counts()]
    out += [1.0 if c in view.chou else 0.0 for c in range(KINDS)]
    out += [1.0 if c in view.declined_peng else 0.0 for c in range(KINDS)]
    claim = [0.0] * (KINDS + SLOTS + len(_CONTEXTS))
    if view.claim is not None:
        card, source, context = view.claim
        claim[card] = 1.0
        claim[KINDS + (source - seat) % players] = 1.0
        claim[KINDS + SLOTS + _CONTEXTS.index(context)] = 1.0
    out += claim
    out += [1.0 if view.phase == p else 0.0 for p in _PHASES]
    own_melds = [m for m in view.melds[seat] if m is not None]
    out += [view.wall / 80.0, 1.0 if view.dealer == seat else 0.0,
            partial_huxi_counts(view.hand, own_melds) / _HUXI_SCALE,
            view.rules.min_huxi / _HUXI_SCALE]
    for slot in range(SLOTS):
        block = [0.0] * _SLOT_SIZE
        if slot < players:
            other = (seat + slot) % players
            hidden = 0
            for meld in view.melds[other]:
                if meld is None:
                    hidden += 1
                    continue
                for c in meld.cards:
                    block[c] += 1 / COPIES
            for c in view.piles[other]:
                block[KINDS + c] += 1 / COPIES
            block[2 * KINDS:] = [view.table_huxi(other) / _HUXI_SCALE,
                                 view.hand_sizes[other] / 21.0,
                                 1.0 if view.xianggong[other] else 0.0, hidden / 3.0]
        out += block
    return out


def _taken(view: Observation, action: Action) -> tuple[list[int], list[Group]]:
    """The cards ``action`` takes from the hand, and the groups it lays down."""
    taken = [0] * KINDS
    laid: list[Group] = []
    if isinstance(action, Discard):
        taken[action.card] = 1
    elif isinstance(action, Peng):
        assert view.claim is not None
        taken[view.claim[0]] = 2
        laid.append(Group.identical(GroupKind.PENG, view.claim[0]))
    elif isinstance(action, Chi):
        assert view.claim is not None
        used = list(action.eat.cards)
        used.remove(view.claim[0])
        for c in (*used, *(c for g in action.bi for c in g.cards)):
            taken[c] += 1
        laid += [action.eat, *action.bi]
    return taken, laid


def _waits(hand: list[int], melds: Sequence[Group], live: Sequence[int],
           min_huxi: int) -> tuple[float, float]:
    """Live copies of the cards the hand waits on (听牌), and the same weighted by 胡息."""
    copies = weighted = 0.0
    allowed = may_win_cards(hand, melds, min_huxi)
    for card in range(KINDS):
        if live[card] <= 0 or not allowed >> card & 1:
            continue
        win = solve_counts(hand, melds, card, Source.OTHER, min_huxi=min_huxi, trusted=True)
        if win is not None:
            copies += live[card]
            weighted += live[card] * win.huxi / 15.0
    return copies, weighted


def _shape(hand: Sequence[int]) -> tuple[int, int, int]:
    """坎 (three or four alike), pairs, and free cards with no neighbour of their size."""
    kan = sum(1 for n in hand if n >= 3)
    pairs = sum(1 for n in hand if n == 2)
    lonely = 0
    for c, n in enumerate(hand):
        if n != 1:
            continue
        v, base = c % 10, c - c % 10
        near = any(hand[base + w] for w in (v - 2, v - 1, v + 1, v + 2) if 0 <= w < 10)
        if not near and not hand[(c + 10) % KINDS]:
            lonely += 1
    return kan, pairs, lonely


def action_features(view: Observation, legal: Sequence[Action],
                    pick: Action | None) -> list[list[float]]:
    """One row of :data:`ACTION_SIZE` numbers per action of ``legal``; ``pick``: the
    heuristic player's choice (its row is flagged)."""
    assert view.seat is not None
    live = view.unseen_counts()
    min_huxi = view.rules.min_huxi
    melds = [m for m in view.melds[view.seat] if m is not None]
    rows = []
    for action in legal:
        taken, laid = _taken(view, action)
        after = [n - t for n, t in zip(view.hand, taken, strict=True)]
        after_melds = melds + laid
        huxi = partial_huxi_counts(after, after_melds)
        copies = weighted = 0.0
        card_live = 0.0
        if isinstance(action, Discard):
            card_live = live[action.card] / COPIES
            copies, weighted = _waits(after, after_melds, live, min_huxi)
        owned = sum(after) + sum(len(m.cards) for m in after_melds)
        discards_next = isinstance(action, Chi | Peng) and must_discard(
            owned, sum(1 for m in after_melds if m.is_pao_or_ti))
        kan, pairs, lonely = _shape(after)
        row = [1.0 if type(action) is kind else 0.0 for kind in _KINDS_OF_ACTION]
        row += [t / 2.0 for t in taken]
        row += [n / COPIES for n in after]
        row += [huxi / _HUXI_SCALE, 1.0 if huxi >= min_huxi else 0.0, card_live,
                copies / 8.0, weighted / 8.0, 1.0 if discards_next else 0.0,
                kan / 3.0, pairs / 4.0, lonely / 6.0,
                1.0 if pick is not None and action == pick else 0.0]
        rows.append(row)
    return rows


# ---- the network -----------------------------------------------------------------------

_ARRAYS = ("w1s", "w1a", "b1", "w2", "b2", "w3", "b3")
"""The model's arrays: ``q = w3 · relu(w2 · relu(w1s·s + w1a·a + b1) + b2) + b3``."""


class ExpertModel:
    """The value network: :meth:`q_values` of each action row given the state."""

    def __init__(self, arrays: dict[str, Any]) -> None:
        np = numpy_module()
        missing = [k for k in _ARRAYS if k not in arrays]
        if missing:
            raise ModelFileError(f"the model lacks the arrays {', '.join(missing)}")
        self.arrays = {k: np.ascontiguousarray(arrays[k], dtype=np.float32) for k in _ARRAYS}
        w1s, w1a = self.arrays["w1s"], self.arrays["w1a"]
        if w1s.shape[0] != STATE_SIZE or w1a.shape[0] != ACTION_SIZE:
            raise ModelFileError(
                f"the model takes {w1s.shape[0]} state and {w1a.shape[0]} action features; "
                f"these features have {STATE_SIZE} and {ACTION_SIZE} (retrain it)")
        self.hidden = (int(w1s.shape[1]), int(self.arrays["w2"].shape[1]))

    @classmethod
    def initial(cls, seed: int, hidden: tuple[int, int] = (256, 128)) -> ExpertModel:
        """A fresh model (He-initialised weights drawn from ``seed``)."""
        np = numpy_module()
        rng = np.random.default_rng(seed)
        h1, h2 = hidden
        scale1 = np.sqrt(2.0 / (STATE_SIZE + ACTION_SIZE))
        return cls({
            "w1s": rng.normal(0.0, scale1, (STATE_SIZE, h1)),
            "w1a": rng.normal(0.0, scale1, (ACTION_SIZE, h1)),
            "b1": np.zeros(h1), "w2": rng.normal(0.0, np.sqrt(2.0 / h1), (h1, h2)),
            "b2": np.zeros(h2), "w3": rng.normal(0.0, np.sqrt(1.0 / h2), (h2,)),
            "b3": np.zeros(1)})

    def q_values(self, state: Sequence[float], rows: Sequence[Sequence[float]]) -> Any:
        """The value (points / :data:`POINTS_SCALE`) of each action row (float32 array)."""
        np = numpy_module()
        a = self.arrays
        s = np.asarray(state, dtype=np.float32)
        x = np.asarray(rows, dtype=np.float32)
        h1 = np.maximum(x @ a["w1a"] + (s @ a["w1s"] + a["b1"]), 0.0)
        h2 = np.maximum(h1 @ a["w2"] + a["b2"], 0.0)
        return h2 @ a["w3"] + a["b3"][0]

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the model as a compressed ``.npz`` (with the features' version)."""
        np = numpy_module()
        np.savez_compressed(path, features_version=np.array(FEATURES_VERSION),
                            **self.arrays)


POINTS_SCALE = 30.0
"""The network's values are points divided by this."""


def load_model(source: str | os.PathLike[str] | bytes) -> ExpertModel:
    """A model from a ``.npz`` path or its bytes (:class:`ModelFileError` when it is
    not a model of these features)."""
    np = numpy_module()
    data = io.BytesIO(source) if isinstance(source, bytes) else source
    try:
        with np.load(data, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except (OSError, ValueError, EOFError) as exc:
        raise ModelFileError(f"not a model file: {exc}") from exc
    version = int(arrays.pop("features_version", -1))
    if version != FEATURES_VERSION:
        raise ModelFileError(f"the model was trained on features version {version}; "
                             f"these are version {FEATURES_VERSION} (retrain it)")
    return ExpertModel(arrays)


MODEL_FILE = "expert.npz"
"""The shipped weights, beside this module (package data)."""


@cache
def default_model() -> ExpertModel:
    """The shipped model (loaded once)."""
    numpy_module()  # a missing numpy is the error to tell first
    return load_model(resources.files("paohuzi.players").joinpath(MODEL_FILE).read_bytes())


# ---- the player ------------------------------------------------------------------------

class ExpertPlayer:
    """Takes the legal action of highest learned value (胡 always). ``model``: the
    shipped one by default; ``epsilon``: the share of decisions taken at random (for
    self-play exploration; 0 in play)."""

    needs_view = True

    def __init__(self, seed: int | None = None, model: ExpertModel | None = None,
                 epsilon: float = 0.0) -> None:
        self.model = model if model is not None else default_model()
        self.rng = random.Random(seed)
        self.epsilon = epsilon
        self.heuristic = HeuristicPlayer(seed)

    def features(self, view: Observation, legal: Sequence[Action]
                 ) -> tuple[list[float], list[list[float]]]:
        """The state's and each legal action's features (with the heuristic's pick)."""
        pick = self.heuristic.choose(view, legal)
        return state_features(view), action_features(view, legal, pick)

    def choose(self, view: Observation | None, legal: Sequence[Action]) -> Action:
        assert view is not None, "the expert player needs its seat's observation"
        if len(legal) == 1:
            return legal[0]
        for action in legal:
            if isinstance(action, Hu):
                return action
        if self.epsilon and self.rng.random() < self.epsilon:
            return legal[self.rng.randrange(len(legal))]
        state, rows = self.features(view, legal)
        return legal[int(self.model.q_values(state, rows).argmax())]
