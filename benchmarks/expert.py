"""Decision time of the ``expert`` level: CPU time of one thread per real decision.

The expert plays one seat against two heuristic players; every decision with more than
one legal action is timed with ``time.thread_time`` (CPU time of this thread only, so
other jobs on the machine do not count). Prints p50, p99 and the maximum.

    python benchmarks/expert.py [--hands 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from paohuzi.core.rules import Ruleset  # noqa: E402
from paohuzi.game.deal import hand_seed  # noqa: E402
from paohuzi.game.engine import Hand  # noqa: E402
from paohuzi.game.view import observe  # noqa: E402
from paohuzi.players import make_player  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", default="expert")
    args = parser.parse_args()
    rules = Ruleset()
    times: list[float] = []
    make_player(args.level, 0)  # loads the model before timing
    for i in range(args.hands):
        seat_of_expert = i % rules.players
        players = [make_player(args.level if s == seat_of_expert else "heuristic", i * 3 + s)
                   for s in range(rules.players)]
        hand = Hand.from_seed(hand_seed(args.seed, i), rules)
        while not hand.ended:
            seat = hand.pending_seats()[0]
            legal = hand.legal_actions(seat)
            view = observe(hand, seat)
            start = time.thread_time()
            action = players[seat].choose(view, legal)
            if seat == seat_of_expert and len(legal) > 1:
                times.append(time.thread_time() - start)
            hand.act(seat, action)
    times.sort()

    def pct(q: float) -> float:
        return 1000 * times[min(len(times) - 1, int(q * len(times)))]

    print(f"{args.level}: {len(times)} decisions in {args.hands} hands; CPU time per decision "
          f"p50 {pct(0.5):.2f} ms, p99 {pct(0.99):.2f} ms, max {1000 * times[-1]:.2f} ms")


if __name__ == "__main__":
    main()
