"""Environment benchmark: PettingZoo AEC steps per second with random legal actions.

Run: ``python benchmarks/rl.py [--steps 100000] [--rules qq] [--profile]``

Each step is what a learner's loop does: read the acting agent's observation and mask
(``env.last()``), pick a uniformly random legal action, ``env.step`` it. The steps of
agents removed at the end of a hand (``step(None)``) count too, as the AEC loop makes
them. Figures are also given for the engine alone on the same hands (no observation), so
the encoding's cost shows. Target (issue 15): 10,000 steps per second. Rates are per
second of the process's CPU time (one core; on a shared machine wall time says more about
the neighbours than about the code).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time

import numpy as np

from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.game.engine import Hand
from paohuzi.rl.env import PaohuziEnv


def env_rate(rules: Ruleset, steps: int, seed: int = 1) -> tuple[float, int]:
    """Steps per second and hands played in ``steps`` AEC steps."""
    env = PaohuziEnv(rules)
    rng = random.Random(seed)
    env.reset(seed=seed)
    hands = 0
    start = time.process_time()
    for _ in range(steps):
        if not env.agents:
            hands += 1
            env.reset()
        obs, _, done, _, _ = env.last()
        if done:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    return steps / (time.process_time() - start), hands


def engine_rate(rules: Ruleset, hands: int, seed: int = 1) -> float:
    """Engine decisions per second (random legal actions, no observation)."""
    rng = random.Random(seed)
    decisions = 0
    start = time.process_time()
    for i in range(hands):
        hand = Hand.from_seed(seed * 1_000_003 + i, rules)
        while not hand.ended:
            seat = hand.pending_seats()[0]
            legal = hand.legal_actions(seat)
            hand.act(seat, legal[rng.randrange(len(legal))])
            decisions += 1
    return decisions / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--rules", default=None, help="one preset (default: every preset)")
    parser.add_argument("--profile", action="store_true", help="profile one run instead")
    args = parser.parse_args()
    names = [args.rules] if args.rules else list(PRESETS)
    if args.profile:
        rules = Ruleset.preset(names[0])
        cProfile.runctx("env_rate(rules, args.steps)", globals(), locals(), "/tmp/rl.prof")
        pstats.Stats("/tmp/rl.prof").sort_stats("tottime").print_stats(15)
        return
    env_rate(Ruleset.preset(names[0]), 2000)  # warm-up (chi plan memos)
    for name in names:
        rules = Ruleset.preset(name)
        rate, hands = env_rate(rules, args.steps)
        engine = engine_rate(rules, max(hands, 1))
        print(f"{name:>10}: {rate:8,.0f} env steps/s ({hands} hands); "
              f"engine alone {engine:8,.0f} decisions/s")


if __name__ == "__main__":
    main()
