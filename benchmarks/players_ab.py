"""A/B strength of a computer player against an older version of the heuristic.

Run: ``python benchmarks/players_ab.py --new heuristic --old-rev 0b4b41c --deals 300``
``[--rules luzhou]``

Plays ``deals`` duplicate deals (every rotation of the seats, as ``paohuzi arena``):
the player ``--new`` (a name for :func:`paohuzi.players.make_player` or a search spec as
``benchmarks/search_gain.py`` takes them, today's code)
against two copies of the heuristic player as it was at git revision ``--old-rev``
(its module loaded from that revision beside today's core). Prints the new player's
points per hand with a 95% interval clustered by deal, and its decision times (CPU).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import types
from pathlib import Path

from search_gain import player_of

from paohuzi.core.rules import Ruleset
from paohuzi.game.deal import hand_seed
from paohuzi.game.engine import Hand
from paohuzi.players import observation_for
from paohuzi.players.arena import clustered_ci

ROOT = Path(__file__).resolve().parents[1]


def old_heuristic(rev: str) -> types.ModuleType:
    """The heuristic module as it was at ``rev``."""
    source = subprocess.run(["git", "show", f"{rev}:src/paohuzi/players/heuristic.py"],
                            cwd=ROOT, check=True, capture_output=True, text=True).stdout
    module = types.ModuleType(f"heuristic_{rev}")
    module.__dict__["__name__"] = module.__name__
    sys.modules[module.__name__] = module
    exec(compile(source, f"heuristic@{rev}", "exec"), module.__dict__)
    return module


def play_deal(new: str, old: types.ModuleType, seed: int, deal: int, rules: Ruleset,
              times: list[float]) -> float:
    """The new player's mean points per hand over the rotations of one deal."""
    total = 0.0
    n = rules.players
    for rotation in range(n):
        me = rotation % n
        players = [player_of(new, hash((seed, deal, rotation, s)) & 0x7FFFFFFF) if s == me
                   else old.HeuristicPlayer(hash((seed, deal, rotation, s)) & 0x7FFFFFFF)
                   for s in range(n)]
        hand = Hand.from_seed(hand_seed(seed, deal), rules, dealer=0)
        while not hand.ended:
            seat = hand.pending_seats()[0]
            legal = hand.legal_actions(seat)
            start = time.process_time()
            action = players[seat].choose(observation_for(players[seat], hand, seat), legal)
            if seat == me and len(legal) > 1:
                times.append(time.process_time() - start)
            hand.act(seat, action)
        assert hand.result is not None
        total += hand.result.points[me]
    return total / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--new", default="heuristic")
    parser.add_argument("--old-rev", default="0b4b41c")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--first", type=int, default=0, help="first deal index")
    parser.add_argument("--rules", default="qq", help="a preset (docs/rules.md)")
    args = parser.parse_args()
    old = old_heuristic(args.old_rev)
    rules = Ruleset.preset(args.rules)
    times: list[float] = []
    per_deal = [play_deal(args.new, old, args.seed, i, rules, times)
                for i in range(args.first, args.first + args.deals)]
    mean, low, high = clustered_ci(per_deal)
    times.sort()
    p50 = 1000 * times[len(times) // 2]
    p99 = 1000 * times[min(len(times) - 1, int(0.99 * len(times)))]
    print(f"{args.new} (today) vs 2 x heuristic@{args.old_rev}: {args.deals} duplicate deals "
          f"from {args.first}, seed {args.seed}, rules {rules.name}: {mean:+.2f} points/hand "
          f"[{low:+.2f}, {high:+.2f}] (95%, by deal); decision CPU p50 {p50:.1f} ms, "
          f"p99 {p99:.1f} ms over {len(times)} decisions")
    print("per-deal:", " ".join(f"{x:g}" for x in per_deal))


if __name__ == "__main__":
    main()
