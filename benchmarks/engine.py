"""Engine benchmark: full hands per second with random players, one core, one process.

Run: ``python benchmarks/engine.py [--hands 3000] [--rules qq] [--harness 10000]``

Every seat's 胡 check is done on every shown card (the engine always does it).
If RLCard is installed, its mahjong environment is timed in the same run with
random agents, as the anchor (``pip install rlcard``). ``--harness N`` also runs
the random-game harness of ``tests/harness.py`` (all invariant checks) on N games
per preset and reports its counts.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.game.engine import Hand


def engine_rate(hands: int, rules: Ruleset, seed: int = 1) -> float:
    """Hands per second: deal, play with uniform random choices, settle."""
    start = time.perf_counter()
    for i in range(hands):
        hand = Hand.from_seed(seed * 1_000_003 + i, rules, dealer=i % rules.players)
        rng = random.Random(i)
        while not hand.ended:
            seat = hand.pending_seats()[0]
            legal = hand.legal_actions(seat)
            hand.act(seat, legal[rng.randrange(len(legal))])
    return hands / (time.perf_counter() - start)


def rlcard_mahjong_rate(games: int) -> float | None:
    try:
        import rlcard
        from rlcard.agents import RandomAgent
    except ImportError:
        return None
    env = rlcard.make("mahjong", config={"seed": 1})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    start = time.perf_counter()
    for _ in range(games):
        env.run(is_training=False)
    return games / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--rules", default="qq")
    parser.add_argument("--rlcard-games", type=int, default=100)
    parser.add_argument("--harness", type=int, default=0,
                        help="also run the invariant harness on N games per preset")
    args = parser.parse_args()
    rules = Ruleset.preset(args.rules)
    engine_rate(100, rules)  # warm-up
    rate = engine_rate(args.hands, rules)
    print(f"paohuzi engine ({args.rules}): {rate:,.0f} hands/s "
          f"({1000 / rate:.2f} ms per hand, {args.hands} hands, random players)")
    anchor = rlcard_mahjong_rate(args.rlcard_games)
    if anchor is None:
        print("RLCard mahjong: not installed (pip install rlcard)")
    else:
        print(f"RLCard mahjong (same run): {anchor:,.1f} games/s -> ratio {rate / anchor:.0f}x")
    if args.harness:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
        from harness import run

        for name in PRESETS:
            t0 = time.perf_counter()
            stats = run(args.harness, Ruleset.preset(name), seed=7)
            print(f"harness {name}: {stats.games} games, {stats.steps} decisions, "
                  f"{stats.illegal_refused} illegal actions refused, {stats.leak_checks} "
                  f"hidden-card swaps, results {stats.reasons} "
                  f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
