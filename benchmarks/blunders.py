"""Paired roll-out proofs for the blunder positions (``tests/blunder_positions.py``).

Run: ``python benchmarks/blunders.py [--worlds 400] [--seed 15]``

For each position it samples ``worlds`` deals of the cards hidden from the deciding
seat, consistently with everything that seat knows
(:func:`paohuzi.game.resample.resample_hand`), plays the right move and the blunder
in the *same* world with the same players (heuristic players for every seat), and
reports the mean difference in the seat's points with its 95% interval: the right
move is proved when the interval excludes 0.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from blunder_positions import POSITIONS, Blunder

from paohuzi.game.resample import resample_hand
from paohuzi.game.view import observe
from paohuzi.players.search import rollout

Z95 = 1.959963984540054


def prove(blunder: Blunder, worlds: int, seed: int) -> tuple[float, float, float]:
    """Mean of (right − wrong) over paired worlds and its 95% interval."""
    hand = blunder.hand()
    seat = hand.pending_seats()[0]
    view = observe(hand, seat)
    right, wrong = blunder.actions()
    rng = random.Random(seed)
    diffs = []
    for _ in range(worlds):
        world_seed = rng.getrandbits(32)
        world = resample_hand(view, random.Random(world_seed))
        a = rollout(world.copy(), seat, right, world_seed, fast=False)
        b = rollout(world.copy(), seat, wrong, world_seed, fast=False)
        diffs.append(a - b)
    mean = statistics.fmean(diffs)
    half = Z95 * statistics.stdev(diffs) / math.sqrt(len(diffs))
    return mean, mean - half, mean + half


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--worlds", type=int, default=400)
    parser.add_argument("--seed", type=int, default=15)
    args = parser.parse_args()
    print(f"paired roll-outs: {args.worlds} sampled worlds per position, seed {args.seed}\n")
    print("| position | right | blunder | right − blunder (points) | 95% interval |")
    print("|---|---|---|---|---|")
    for blunder in POSITIONS:
        start = time.perf_counter()
        mean, low, high = prove(blunder, args.worlds, args.seed)
        print(f"| {blunder.name} | {blunder.right} | {blunder.wrong} | {mean:+.2f} | "
              f"[{low:+.2f}, {high:+.2f}] |  <!-- {time.perf_counter() - start:.0f} s -->",
              flush=True)


if __name__ == "__main__":
    main()
