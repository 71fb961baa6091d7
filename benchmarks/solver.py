"""Solver benchmark: full best-arrangement queries (``solve``) over two fixed seeded sets.

Run: ``python benchmarks/solver.py [--positions 10000] [--seed 2026] [--src OLD/src]``

The sets (``paohuzi.players.sampling``):

* ``project``: the project's positions (``random_positions``): built hands with table
  groups, and dealt hands that rarely win;
* ``concealed``: winning hands of concealed cards with few identical cards
  (``concealed_positions``): no card held more than twice, many values in both sizes,
  so many 绞 choices (the product of them is printed).

Measures, per set, in one run on one core:

* ``cold``: every solver cache cleared before the pass, then each position
  once (states memoised during the pass are reused by later positions, as in a
  real game);
* ``warm``: a second pass over the same positions;
* ``cold/query``: caches cleared before *every* query (the worst case);
* the brute-force oracle (``tests/oracle.py``, unmemoised: every partition of
  the free cards is enumerated) on a sample of the same positions; the two must agree.

``--src OLD/src`` also times another tree's ``solve`` on the same positions (cold and
cold/query, in a child process run right after, so under the same load) and prints
the ratio: the before/after of a change.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from math import prod
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

Plain = tuple[list[int], list[tuple[str, list[int]]], int, str]
"""A position as plain data (cards as ints, groups as ``(kind, cards)``): any tree reads it."""


def _time_solve(positions: list[Plain], clear_each: bool, clear_first: bool = True
                ) -> list[float]:
    """Seconds per ``solve`` of each position, caches cleared first (unless not
    ``clear_first``: a warm pass) and before each query when ``clear_each``. Imports
    ``paohuzi`` from wherever ``sys.path`` finds it (another tree's, in the child)."""
    from paohuzi.core.decompose import clear_caches
    from paohuzi.core.solver import solve

    built = _built(positions)
    if clear_first:
        clear_caches()
    times = []
    for hand, melds, card, source in built:
        if clear_each:
            clear_caches()
        t0 = time.perf_counter()
        solve(hand, melds, card, source)
        times.append(time.perf_counter() - t0)
    return times


def _built(positions: list[Plain]) -> list[tuple[list[int], list[Any], int, Any]]:
    """The positions as ``solve`` takes them (groups built by the tree imported)."""
    from paohuzi.core.groups import Group
    from paohuzi.core.kinds import Source

    return [(hand, [Group.make(kind, cards) for kind, cards in melds], card, Source(source))
            for hand, melds, card, source in positions]


def _worker() -> None:
    """Child process: time the positions read from stdin, print the medians (µs)."""
    sets = json.load(sys.stdin)
    out = {name: {"cold": statistics.median(_time_solve(ps, False)) * 1e6,
                  "cold/query": statistics.median(_time_solve(ps, True)) * 1e6}
           for name, ps in sets.items()}
    json.dump(out, sys.stdout)


def _fmt(times: list[float]) -> str:
    return (f"median {statistics.median(times) * 1e6:7.1f} µs  "
            f"mean {statistics.fmean(times) * 1e6:7.1f} µs  "
            f"{len(times) / sum(times):9.0f} queries/s")


def _plain(p: object) -> Plain:
    from paohuzi.players.sampling import Position

    assert isinstance(p, Position)
    melds = [(m.kind.value, [int(c) for c in m.cards]) for m in p.melds]
    return [int(c) for c in p.hand], melds, int(p.card), p.source.value


def _oracle_args(p: Plain) -> tuple[list[int], list[tuple[str, list[int]]], int, str]:
    hand, melds, card, source = p
    return hand, [("chi" if kind in ("sentence", "jiao") else kind, cards)
                  for kind, cards in melds], card, source


def _jiao_choices(p: Plain) -> int:
    cards = [*p[0], p[2]]
    return prod(sum(1 for k1 in range(3) for k2 in range(3)
                    if 2 * k1 + k2 <= cards.count(v) and k1 + 2 * k2 <= cards.count(v + 10))
                for v in range(10))


def _report(name: str, positions: list[Plain], oracle_sample: int) -> tuple[float, float]:
    import oracle

    from paohuzi.core.solver import best_huxi

    cold = _time_solve(positions, clear_each=False)
    warm = _time_solve(positions, clear_each=False, clear_first=False)
    per_query = _time_solve(positions, clear_each=True)
    choices = sorted(_jiao_choices(p) for p in positions)
    sample = positions[:oracle_sample]
    oracle_times = []
    disagreements = 0
    oracle.unmemoised()  # plain brute force: nothing remembered within or across queries
    for p, built in zip(sample, _built(sample), strict=True):
        t0 = time.perf_counter()
        expected = oracle.oracle_best_huxi(*_oracle_args(p))
        oracle_times.append(time.perf_counter() - t0)
        disagreements += best_huxi(*built) != (-1 if expected is None else expected)
    print(f"[{name}] {len(positions)} positions, 绞 choices: median "
          f"{choices[len(choices) // 2]}, most {choices[-1]}")
    print(f"  solver cold        {_fmt(cold)}")
    print(f"  solver warm        {_fmt(warm)}")
    print(f"  solver cold/query  {_fmt(per_query)}")
    print(f"  oracle (n={len(sample)})  {_fmt(oracle_times)}")
    print(f"  speed-up vs oracle (median): cold "
          f"{statistics.median(oracle_times) / statistics.median(cold):.1f}x")
    print(f"  oracle disagreements: {disagreements}")
    if disagreements:
        sys.exit(1)
    return statistics.median(cold) * 1e6, statistics.median(per_query) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--oracle-sample", type=int, default=2_000)
    parser.add_argument("--src", help="another tree's src folder, timed on the same positions")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker()
        return

    from paohuzi.players.sampling import concealed_positions, random_positions

    sets = {"project": [_plain(p) for p in random_positions(args.seed, args.positions)],
            "concealed": [_plain(p) for p in concealed_positions(args.seed, args.positions)]}
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    medians = {name: _report(name, ps, args.oracle_sample) for name, ps in sets.items()}
    if args.src:
        env = {**os.environ, "PYTHONPATH": str(Path(args.src).resolve())}
        child = subprocess.run([sys.executable, __file__, "--worker"], input=json.dumps(sets),
                               capture_output=True, text=True, env=env, check=True)
        old = json.loads(child.stdout)
        for name, (cold, per_query) in medians.items():
            print(f"[{name}] {args.src}: cold median {old[name]['cold']:.1f} µs "
                  f"(this tree {cold:.1f}, {old[name]['cold'] / cold:.1f}x faster), "
                  f"cold/query {old[name]['cold/query']:.1f} µs (this tree {per_query:.1f})")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
