"""The learned ``expert`` player (issue 15, item 3): its shipped model, its inference
(numpy only, deterministic, legal moves only, from the seat's view only) and its
reproducible training (paohuzi.rl.train)."""

from __future__ import annotations

import csv
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paohuzi.core.rules import Ruleset
from paohuzi.game.actions import Hu
from paohuzi.game.engine import Hand
from paohuzi.game.resample import resample_hand
from paohuzi.game.view import observe
from paohuzi.players import make_player
from paohuzi.players.expert import (
    ACTION_SIZE,
    FEATURES_VERSION,
    STATE_SIZE,
    ExpertModel,
    ExpertPlayer,
    ModelFileError,
    default_model,
    load_model,
    state_features,
)
from paohuzi.rl.train import TrainConfig, loss_and_grads, train

SRC = Path(__file__).resolve().parent.parent / "src"


def test_the_shipped_model_loads_and_is_small():
    path = SRC / "paohuzi" / "players" / "expert.npz"
    assert path.stat().st_size < 4_000_000
    model = default_model()
    assert model.arrays["w1s"].shape[0] == STATE_SIZE
    assert model.arrays["w1a"].shape[0] == ACTION_SIZE
    with np.load(path) as npz:
        assert int(npz["features_version"]) == FEATURES_VERSION
    assert all(np.isfinite(a).all() for a in model.arrays.values())


def test_a_bad_model_file_is_refused(tmp_path):
    with pytest.raises(ModelFileError, match="not a model file"):
        load_model(b"not an npz")
    small = ExpertModel.initial(0, (8, 4))
    arrays = dict(small.arrays)
    arrays["w1s"] = arrays["w1s"][:-1]
    np.savez(tmp_path / "bad.npz", features_version=np.array(FEATURES_VERSION), **arrays)
    with pytest.raises(ModelFileError, match="state and"):
        load_model(tmp_path / "bad.npz")
    np.savez(tmp_path / "old.npz", features_version=np.array(FEATURES_VERSION - 1),
             **small.arrays)
    with pytest.raises(ModelFileError, match="version"):
        load_model(tmp_path / "old.npz")


def _play(rules: Ruleset, seed: int) -> list[str]:
    """Experts in every seat; every choice legal (胡 always taken); the choices' texts."""
    hand = Hand.from_seed(seed, rules)
    players = [make_player("expert", s) for s in range(rules.players)]
    record = []
    while not hand.ended:
        seat = hand.pending_seats()[0]
        legal = hand.legal_actions(seat)
        action = players[seat].choose(observe(hand, seat), legal)
        assert action in legal
        if any(isinstance(a, Hu) for a in legal):
            assert isinstance(action, Hu)
        record.append(f"{seat} {action.text}")
        hand.act(seat, action)
    return record


@pytest.mark.parametrize("preset", ["qq", "two-player", "changde", "hunan"])
def test_inference_is_legal_and_deterministic(preset):
    rules = Ruleset.preset(preset)
    for seed in (1, 2):
        first = _play(rules, seed)
        assert len(first) > 10
        assert _play(rules, seed) == first


def test_choices_use_only_what_the_seat_sees():
    """Re-dealing every card the seat cannot see changes neither features nor choice."""
    rng = random.Random(5)
    checked = 0
    for seed in range(6):
        hand = Hand.from_seed(seed, Ruleset())
        player = ExpertPlayer(1)
        while not hand.ended and checked < 40:
            seat = hand.pending_seats()[0]
            legal = hand.legal_actions(seat)
            view = observe(hand, seat)
            if len(legal) > 1:
                twin = resample_hand(view, rng)
                twin_view = observe(twin, seat)
                assert state_features(twin_view) == state_features(view)
                assert player.choose(twin_view, twin.legal_actions(seat)) == \
                    player.choose(view, legal)
                checked += 1
            hand.act(seat, legal[0])
    assert checked >= 30


def _run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": str(SRC)}, check=False)


def test_inference_needs_numpy_only_with_one_thread():
    code = """
import os, sys
from paohuzi.game.engine import Hand
from paohuzi.core.rules import Ruleset
from paohuzi.game.view import observe
from paohuzi.players import make_player
assert "numpy" not in sys.modules  # the other levels never load it
player = make_player("expert", 1)
hand = Hand.from_seed(7, Ruleset())
seat = hand.pending_seats()[0]
print(player.choose(observe(hand, seat), hand.legal_actions(seat)).text)
heavy = ("numpy", "pettingzoo", "gymnasium", "matplotlib", "jax", "torch", "scipy", "paohuzi.rl")
print(",".join(m for m in heavy if m in sys.modules), os.environ["OPENBLAS_NUM_THREADS"],
      os.environ["OMP_NUM_THREADS"])
"""
    done = _run_python(code)
    assert done.returncode == 0, done.stderr
    third, *threads = done.stdout.splitlines()[-1].split()
    assert third == "numpy" and threads == ["1", "1"]


def test_expert_without_numpy_is_a_clear_error():
    code = """
import sys
sys.modules["numpy"] = None  # as if it were not installed
from paohuzi.players import make_player
make_player("heuristic", 1)
try:
    make_player("expert", 1)
except ImportError as exc:
    print(type(exc).__name__, exc)
"""
    done = _run_python(code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ExpertUnavailableError the expert player needs numpy")
    assert "paohuzi[expert]" in done.stdout


def test_back_propagation_matches_finite_differences():
    rng = np.random.default_rng(1)
    shapes = {"w1s": (5, 6), "w1a": (4, 6), "b1": (6,), "w2": (6, 3), "b2": (3,),
              "w3": (3,), "b3": (1,)}
    p = {k: rng.normal(0, 0.4, s) for k, s in shapes.items()}
    states, rows = rng.random((3, 5)), rng.random((7, 4))
    starts, chosen, targets = np.array([0, 2, 5]), np.array([1, 2, 6]), rng.random(3)
    for imitation in (0.0, 1.0):
        _, grads = loss_and_grads(p, states, rows, starts, chosen, targets, imitation)
        for k, value in p.items():
            for idx in np.ndindex(value.shape):
                old = value[idx]
                value[idx] = old + 1e-6
                up, _ = loss_and_grads(p, states, rows, starts, chosen, targets, imitation)
                value[idx] = old - 1e-6
                down, _ = loss_and_grads(p, states, rows, starts, chosen, targets, imitation)
                value[idx] = old
                assert grads[k][idx] == pytest.approx((up - down) / 2e-6, abs=1e-5), (k, idx)


def _curve(folder: Path) -> list[dict[str, str]]:
    with (folder / "curve.csv").open() as f:
        return [{k: v for k, v in row.items() if k != "cpu_s"} for row in csv.DictReader(f)]


def test_training_is_reproducible(tmp_path):
    runs = []
    for name in ("a", "b"):
        train(TrainConfig.tiny(seed=3), tmp_path / name)
        runs.append(load_model(tmp_path / name / "expert.npz"))
    assert _curve(tmp_path / "a") == _curve(tmp_path / "b")
    assert [r["stage"] for r in _curve(tmp_path / "a")] == ["imitation", "selfplay"]
    for key, value in runs[0].arrays.items():
        assert np.array_equal(value, runs[1].arrays[key]), key
    initial = ExpertModel.initial(3, (16, 8))
    assert not np.array_equal(runs[0].arrays["w2"], initial.arrays["w2"])  # it learnt
    train(TrainConfig.tiny(seed=4), tmp_path / "c")
    other = load_model(tmp_path / "c" / "expert.npz")
    assert not np.array_equal(other.arrays["w2"], runs[0].arrays["w2"])
