"""Solver benchmark: best-arrangement queries over a fixed seeded set of positions.

Run: ``python benchmarks/solver.py [--positions 10000] [--seed 2026]``

Measures, in one run on one core:

* ``cold``: every solver cache cleared before the pass, then each position
  once (sub-decompositions memoised during the pass are reused by later
  positions, as in a real game);
* ``cold/query``: caches cleared before *every* query (the worst case);
* ``warm``: a second pass over the same positions;
* the brute-force oracle (``tests/oracle.py``, unmemoised: every partition of
  the free cards is enumerated) on a sample of the same positions.

Prints medians, means and the ratio to the oracle, and checks both agree.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import oracle

from paohuzi.core.decompose import clear_caches
from paohuzi.core.solver import solve
from paohuzi.players.sampling import Position, random_positions


def _oracle_args(p: Position) -> tuple[list[int], list[tuple[str, list[int]]], int, str]:
    melds = [("chi" if m.kind.value in ("sentence", "jiao") else m.kind.value,
              [int(c) for c in m.cards]) for m in p.melds]
    return [int(c) for c in p.hand], melds, int(p.card), p.source


def _timed_pass(positions: list[Position], clear_each: bool) -> tuple[list[float], int]:
    times = []
    wins = 0
    for p in positions:
        if clear_each:
            clear_caches()
        t0 = time.perf_counter()
        a = solve(p.hand, p.melds, p.card, p.source)
        times.append(time.perf_counter() - t0)
        wins += a is not None and a.huxi >= 15
    return times, wins


def _fmt(times: list[float]) -> str:
    return (f"median {statistics.median(times) * 1e6:7.1f} µs  "
            f"mean {statistics.fmean(times) * 1e6:7.1f} µs  "
            f"{len(times) / sum(times):9.0f} queries/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--oracle-sample", type=int, default=2_000)
    args = parser.parse_args()

    positions = random_positions(args.seed, args.positions)
    clear_caches()
    cold, wins = _timed_pass(positions, clear_each=False)
    warm, _ = _timed_pass(positions, clear_each=False)
    per_query, _ = _timed_pass(positions, clear_each=True)

    sample = positions[: args.oracle_sample]
    oracle_times = []
    disagreements = 0
    oracle.unmemoised()  # plain brute force: nothing remembered within or across queries
    for p in sample:
        t0 = time.perf_counter()
        expected = oracle.oracle_best_huxi(*_oracle_args(p))
        oracle_times.append(time.perf_counter() - t0)
        got = solve(p.hand, p.melds, p.card, p.source)
        disagreements += (None if got is None else got.huxi) != expected

    print(f"positions: {len(positions)} (seed {args.seed}), {wins} winning (≥ 15 胡息)")
    print(f"solver cold        {_fmt(cold)}")
    print(f"solver warm        {_fmt(warm)}")
    print(f"solver cold/query  {_fmt(per_query)}")
    print(f"oracle (n={len(sample)})    {_fmt(oracle_times)}")
    ratio = statistics.median(oracle_times) / statistics.median(cold)
    ratio_q = statistics.median(oracle_times) / statistics.median(per_query)
    print(f"speed-up vs oracle (median): cold {ratio:.0f}x, cold/query {ratio_q:.0f}x")
    print(f"oracle disagreements: {disagreements}")
    if disagreements:
        sys.exit(1)


if __name__ == "__main__":
    main()
