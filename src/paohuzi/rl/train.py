"""Training the ``expert`` player's value network (issue 15, item 3): Deep Monte-Carlo.

Plain numpy on the CPU (hand-written back-propagation and Adam), seeded and reproducible:
the same :class:`TrainConfig` gives the same weights and the same curve (the CPU seconds
in the CSV excepted). Two stages:

1. **Imitation warm start**: the heuristic player plays every seat; the network learns
   to rank its choice first among the legal actions (cross-entropy over the actions'
   values) and to predict the points the seat ends the hand with (squared error).
2. **Self-play Monte-Carlo**: the network plays every seat (greedy, with ``epsilon``
   random decisions); each decision's value target is the points its seat ends the hand
   with (DouZero's targets), learnt from a buffer of recent decisions.

Every ``eval_every`` self-play hands the current network plays ``eval_deals`` fixed
duplicate deals against two heuristic players; ``curve.csv`` and ``curve.png`` (the
learning curve, with matplotlib when installed) and ``expert.npz`` are written to the
output folder. ``python -m paohuzi.rl.train --help`` lists the options.

>>> import tempfile
>>> with tempfile.TemporaryDirectory() as out:
...     rows = train(TrainConfig.tiny(), out)
>>> [r["stage"] for r in rows]
['imitation', 'selfplay']
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from paohuzi.core.rules import Ruleset
from paohuzi.game.actions import Hu
from paohuzi.game.deal import hand_seed
from paohuzi.game.engine import Hand
from paohuzi.game.view import observe
from paohuzi.players.arena import clustered_ci
from paohuzi.players.expert import (
    POINTS_SCALE,
    ExpertModel,
    ExpertPlayer,
    action_features,
    state_features,
)
from paohuzi.players.heuristic import HeuristicPlayer

__all__ = ["TrainConfig", "train"]

Array = npt.NDArray[np.float32]
_TARGET_CLIP = 4.0
"""Value targets are points / POINTS_SCALE clipped to ± this (a rare huge hand would
otherwise dominate the squared error)."""
_CE_SHARPNESS = 10.0
"""Imitation logits are values × this (values are points / 30: a tenth apart is one logit)."""


@dataclass(frozen=True)
class TrainConfig:
    """What a training run does (all counts, no clocks: the run is reproducible)."""

    seed: int = 0
    rules: str = "qq"
    hidden: tuple[int, int] = (256, 128)
    imitation_hands: int = 3000
    imitation_epochs: int = 3
    selfplay_hands: int = 100000
    hands_per_update: int = 16
    updates_per_batch: int = 4
    batch_size: int = 256
    buffer_size: int = 50000
    epsilon: float = 0.05
    anchor: float = 0.02
    """Self-play keeps this weight of the imitation loss (the heuristic's choice ranked
    first), so that noisy Monte-Carlo targets move play away from it only slowly."""
    learning_rate: float = 1e-4
    eval_every: int = 20000
    eval_deals: int = 60

    @classmethod
    def tiny(cls, seed: int = 0) -> TrainConfig:
        """A run of seconds (the tests')."""
        return cls(seed=seed, hidden=(16, 8), imitation_hands=2, imitation_epochs=1,
                   selfplay_hands=4, hands_per_update=2, updates_per_batch=2, batch_size=16,
                   buffer_size=200, eval_every=4, eval_deals=1)


# ---- back-propagation and Adam ------------------------------------------------------------

def _forward(p: dict[str, Array], states: Array, rows: Array, seg: npt.NDArray[np.intp]
             ) -> tuple[Array, Array, Array]:
    """Values of action ``rows``; ``seg[i]``: the state (row of ``states``) of row ``i``."""
    h1 = np.maximum(rows @ p["w1a"] + (states @ p["w1s"] + p["b1"])[seg], 0.0)
    h2 = np.maximum(h1 @ p["w2"] + p["b2"], 0.0)
    return h2 @ p["w3"] + p["b3"][0], h1, h2


def _grads(p: dict[str, Array], states: Array, rows: Array, seg: npt.NDArray[np.intp],
           dq: Array, h1: Array, h2: Array) -> dict[str, Array]:
    dz2 = np.outer(dq, p["w3"]) * (h2 > 0)
    dz1 = (dz2 @ p["w2"].T) * (h1 > 0)
    ds = np.zeros((len(states), dz1.shape[1]), dtype=np.float32)
    np.add.at(ds, seg, dz1)
    return {"w1s": states.T @ ds, "w1a": rows.T @ dz1, "b1": dz1.sum(0),
            "w2": h1.T @ dz2, "b2": dz2.sum(0), "w3": h2.T @ dq,
            "b3": np.array([dq.sum()], dtype=np.float32)}


def loss_and_grads(p: dict[str, Array], states: Array, rows: Array,
                   starts: npt.NDArray[np.intp], chosen: npt.NDArray[np.intp],
                   targets: Array, imitation: float,
                   picked: npt.NDArray[np.intp] | None = None) -> tuple[float, dict[str, Array]]:
    """Mean squared error of the chosen rows' values against ``targets``, plus
    ``imitation`` × the cross-entropy of choosing the ``picked`` rows (default: the
    chosen ones) among their state's rows (``starts``: the first row of each state;
    ``chosen``: each state's chosen row)."""
    n = len(states)
    counts = np.diff(np.append(starts, len(rows)))
    seg = np.repeat(np.arange(n), counts)
    q, h1, h2 = _forward(p, states, rows, seg)
    err = q[chosen] - targets
    loss = float(np.mean(err ** 2))
    dq = np.zeros_like(q)
    dq[chosen] += 2.0 * err / n
    if imitation:
        picked = chosen if picked is None else picked
        logits = q * _CE_SHARPNESS
        logits = logits - np.maximum.reduceat(logits, starts)[seg]
        e = np.exp(logits)
        soft = e / np.add.reduceat(e, starts)[seg]
        loss += imitation * float(-np.mean(np.log(soft[picked] + 1e-12)))
        dce = soft.copy()
        dce[picked] -= 1.0
        dq += imitation * _CE_SHARPNESS * dce / n
    return loss, _grads(p, states, rows, seg, dq.astype(np.float32), h1, h2)


class Adam:
    """Adam on a model's arrays (in place)."""

    def __init__(self, params: dict[str, Array], lr: float) -> None:
        self.params, self.lr, self.t = params, lr, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, grads: dict[str, Array]) -> None:
        self.t += 1
        b1, b2 = 0.9, 0.999
        for k, g in grads.items():
            self.m[k] = b1 * self.m[k] + (1 - b1) * g
            self.v[k] = b2 * self.v[k] + (1 - b2) * g * g
            mhat = self.m[k] / (1 - b1 ** self.t)
            vhat = self.v[k] / (1 - b2 ** self.t)
            self.params[k] -= (self.lr * mhat / (np.sqrt(vhat) + 1e-8)).astype(np.float32)


# ---- playing and recording --------------------------------------------------------------

@dataclass
class _Decision:
    seat: int
    state: list[float]
    rows: list[list[float]]
    chosen: int
    pick: int


def _play(hand: Hand, model: ExpertModel | None, rng: np.random.Generator,
          epsilon: float, heuristics: Sequence[HeuristicPlayer]) -> list[_Decision]:
    """Play ``hand`` out, every seat the network's (or, without a model, the heuristic's),
    recording each real decision (胡 is always taken)."""
    decisions: list[_Decision] = []
    while not hand.ended:
        seat = hand.pending_seats()[0]
        legal = hand.legal_actions(seat)
        hu = next((a for a in legal if isinstance(a, Hu)), None)
        if len(legal) == 1 or hu is not None:
            hand.act(seat, hu or legal[0])
            continue
        view = observe(hand, seat, events=False)
        pick_action = heuristics[seat].choose(view, legal)
        pick = legal.index(pick_action)
        state, rows = state_features(view), action_features(view, legal, pick_action)
        if model is None:
            chosen = pick
        elif epsilon and rng.random() < epsilon:
            chosen = int(rng.integers(len(legal)))
        else:
            chosen = int(model.q_values(state, rows).argmax())
        decisions.append(_Decision(seat, state, rows, chosen, pick))
        hand.act(seat, legal[chosen])
    return decisions


def _targets(hand: Hand) -> list[float]:
    assert hand.result is not None
    return [max(-_TARGET_CLIP, min(_TARGET_CLIP, p / POINTS_SCALE)) for p in hand.result.points]


def _evaluate(model: ExpertModel, rules: Ruleset, seed: int, deals: int
              ) -> tuple[float, float, float]:
    """Mean points per hand of the network against two heuristic players on fixed
    duplicate deals (each deal once per seat of the network), with its 95% interval."""
    per_deal = []
    for deal in range(deals):
        total = 0.0
        for seat in range(rules.players):
            hand = Hand.from_seed(hand_seed(seed + 1_000_003, deal), rules, dealer=0)
            players: list[Any] = [HeuristicPlayer(deal * 7 + s) for s in range(rules.players)]
            players[seat] = ExpertPlayer(deal, model=model)
            while not hand.ended:
                s = hand.pending_seats()[0]
                hand.act(s, players[s].choose(observe(hand, s, events=False),
                                              hand.legal_actions(s)))
            assert hand.result is not None
            total += hand.result.points[seat]
        per_deal.append(total / rules.players)
    return clustered_ci(per_deal)


# ---- the run ------------------------------------------------------------------------------

_FIELDS = ("stage", "hands", "updates", "loss", "agree", "eval_points", "eval_low",
           "eval_high", "cpu_s")


def _batch(decisions: Sequence[_Decision], targets: Sequence[float], all_rows: bool
           ) -> tuple[Array, Array, npt.NDArray[np.intp], npt.NDArray[np.intp], Array,
                      npt.NDArray[np.intp]]:
    """States, rows, first row of each state, chosen rows, targets, the heuristic's rows."""
    states = np.asarray([d.state for d in decisions], dtype=np.float32)
    if all_rows:
        sizes = [len(d.rows) for d in decisions]
        rows = np.asarray([r for d in decisions for r in d.rows], dtype=np.float32)
        starts = np.cumsum([0, *sizes[:-1]]).astype(np.intp)
        chosen = starts + np.asarray([d.chosen for d in decisions], dtype=np.intp)
        picks = starts + np.asarray([d.pick for d in decisions], dtype=np.intp)
    else:
        rows = np.asarray([d.rows[d.chosen] for d in decisions], dtype=np.float32)
        starts = chosen = picks = np.arange(len(decisions), dtype=np.intp)
    return states, rows, starts, chosen, np.asarray(targets, dtype=np.float32), picks


def train(config: TrainConfig, out: str | Path, log: Any = None) -> list[dict[str, Any]]:
    """Run ``config``, writing ``expert.npz``, ``curve.csv`` and ``curve.png`` to ``out``;
    returns the curve's rows."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rules = Ruleset.preset(config.rules)
    rng = np.random.default_rng(config.seed)
    model = ExpertModel.initial(config.seed, config.hidden)
    adam = Adam(model.arrays, config.learning_rate)
    heuristics = [HeuristicPlayer(config.seed + s) for s in range(rules.players)]
    curve: list[dict[str, Any]] = []
    start = time.process_time()

    def record(stage: str, hands: int, loss: float, agree: float) -> None:
        mean, low, high = _evaluate(model, rules, config.seed, config.eval_deals)
        row = {"stage": stage, "hands": hands, "updates": adam.t, "loss": round(loss, 6),
               "agree": round(agree, 4), "eval_points": round(mean, 4),
               "eval_low": round(low, 4), "eval_high": round(high, 4),
               "cpu_s": round(time.process_time() - start, 1)}
        curve.append(row)
        model.save(out / "expert.npz")  # the latest model and curve, at every point
        _write_curve(curve, out)
        if log is not None:
            print(row, file=log, flush=True)

    # 1. imitation of the heuristic
    decisions: list[_Decision] = []
    targets: list[float] = []
    for i in range(config.imitation_hands):
        hand = Hand.from_seed(hand_seed(config.seed, i), rules)
        played = _play(hand, None, rng, 0.0, heuristics)
        points = _targets(hand)
        decisions += played
        targets += [points[d.seat] for d in played]
    loss = 0.0
    for _ in range(config.imitation_epochs):
        order = rng.permutation(len(decisions))
        for at in range(0, len(order), config.batch_size):
            take = order[at: at + config.batch_size]
            st, rows, starts, chosen, tg, _ = _batch([decisions[j] for j in take],
                                                     [targets[j] for j in take], True)
            loss, grads = loss_and_grads(model.arrays, st, rows, starts, chosen, tg, 1.0)
            adam.step(grads)
    agree = _agreement(model, decisions[-2000:])
    record("imitation", config.imitation_hands, loss, agree)

    # 2. self-play Monte-Carlo
    buffer: list[tuple[_Decision, float]] = []
    losses: list[float] = []
    agreed = seen = 0
    for i in range(config.selfplay_hands):
        hand = Hand.from_seed(hand_seed(config.seed + 1, i), rules)
        played = _play(hand, model, rng, config.epsilon, heuristics)
        points = _targets(hand)
        buffer += [(d, points[d.seat]) for d in played]
        agreed += sum(d.chosen == d.pick for d in played)
        seen += len(played)
        if len(buffer) > config.buffer_size:
            del buffer[: len(buffer) - config.buffer_size]
        if (i + 1) % config.hands_per_update == 0:
            for _ in range(config.updates_per_batch):
                take = rng.integers(len(buffer), size=min(config.batch_size, len(buffer)))
                st, rows, starts, chosen, tg, picks = _batch(
                    [buffer[j][0] for j in take], [buffer[j][1] for j in take],
                    config.anchor > 0)
                step_loss, grads = loss_and_grads(model.arrays, st, rows, starts, chosen, tg,
                                                  config.anchor, picks)
                adam.step(grads)
                losses.append(step_loss)
        if (i + 1) % config.eval_every == 0 or i + 1 == config.selfplay_hands:
            record("selfplay", config.imitation_hands + i + 1,
                   float(np.mean(losses)) if losses else 0.0, agreed / max(seen, 1))
            losses, agreed, seen = [], 0, 0
    return curve


def _agreement(model: ExpertModel, decisions: Sequence[_Decision]) -> float:
    """How often the network's greedy choice is the heuristic's."""
    same = sum(int(model.q_values(d.state, d.rows).argmax()) == d.pick for d in decisions)
    return same / max(len(decisions), 1)


def _write_curve(curve: Sequence[dict[str, Any]], out: Path) -> None:
    with (out / "curve.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=_FIELDS)
        writer.writeheader()
        writer.writerows(curve)
    try:
        import matplotlib
    except ImportError:
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    hands = [r["hands"] for r in curve]
    top.errorbar(hands, [r["eval_points"] for r in curve],
                 yerr=[[r["eval_points"] - r["eval_low"] for r in curve],
                       [r["eval_high"] - r["eval_points"] for r in curve]],
                 marker="o", capsize=3)
    top.axhline(0.0, color="grey", linewidth=0.8)
    top.set_ylabel("points/hand vs 2 heuristic (95%)")
    bottom.plot(hands, [r["loss"] for r in curve], marker="o", label="loss")
    bottom.plot(hands, [r["agree"] for r in curve], marker="s", label="agrees with heuristic")
    bottom.set_xlabel("hands played (imitation, then self-play)")
    bottom.legend()
    fig.suptitle("expert: Deep Monte-Carlo learning curve")
    fig.tight_layout()
    fig.savefig(out / "curve.png", dpi=100)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m paohuzi.rl.train``: a training run (options: the config's fields)."""
    parser = argparse.ArgumentParser(prog="python -m paohuzi.rl.train", description=__doc__
                                     and __doc__.split("\n\n")[0])
    defaults = asdict(TrainConfig())
    for name, value in defaults.items():
        if name == "hidden":
            parser.add_argument("--hidden", type=int, nargs=2, default=list(value))
        else:
            parser.add_argument(f"--{name.replace('_', '-')}", type=type(value), default=value)
    parser.add_argument("--out", default="artifacts/expert", help="output folder")
    args = vars(parser.parse_args(argv))
    out = args.pop("out")
    args["hidden"] = tuple(args["hidden"])
    random.seed(0)
    train(TrainConfig(**args), out, log=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
