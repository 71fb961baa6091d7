"""The compiled build against the sources: engine hands/s and solver medians, same run.

Run: ``python benchmarks/compiled.py [--compiled .compiled] [--hands 1000] [--positions 5000]
[--rounds 2]``

``--compiled DIR``: a compiled install (built first when DIR does not exist:
``PAOHUZI_COMPILE=1 pip install --no-deps --target DIR .``, which needs a C compiler).
Each round times the sources (``src/``) and then the compiled build, each in a fresh
child process on one core, so both run under the same load:

* the engine: full hands, random players (``benchmarks/engine.py``'s ``engine_rate``),
  wall time and the child's CPU time;
* the solver: ``solve`` on ``benchmarks/solver.py``'s two sets (project, concealed),
  caches cleared before the pass (cold) and before every query (cold/query), medians;
* the players: ``--deals`` duplicate deals (three hands each) of normal against two
  heuristic (``paohuzi.players.arena``), the mean CPU time of a decision of each (the
  heuristic is compiled; the search's roll-outs are played by it). Both builds must make
  the same choices: the deals' points are compared, and a difference stops the run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def _mean_ms(samples: list[float]) -> float:
    return 1000 * statistics.fmean(samples) if samples else 0.0


def _worker(hands: int, positions: int, seed: int, deals: int) -> dict[str, object]:
    """In the child: time the ``paohuzi`` that ``PYTHONPATH`` finds."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from engine import engine_rate
    from solver import _plain, _time_solve

    import paohuzi
    from paohuzi.core.rules import Ruleset
    from paohuzi.players.sampling import concealed_positions, random_positions

    rules = Ruleset.preset("qq")
    engine_rate(100, rules)  # warm-up
    rate, cpu_rate = engine_rate(hands, rules)
    cpu_ms = 1000 / cpu_rate
    out: dict[str, object] = {"compiled": paohuzi.compiled(), "hands/s": rate,
                              "cpu ms/hand": cpu_ms}
    for name, make in (("project", random_positions), ("concealed", concealed_positions)):
        plain = [_plain(p) for p in make(seed, positions)]
        out[f"{name} cold µs"] = statistics.median(_time_solve(plain, False)) * 1e6
        out[f"{name} cold/query µs"] = statistics.median(_time_solve(plain, True)) * 1e6
    if deals:
        from paohuzi.players.arena import run_arena

        report = run_arena(["normal", "heuristic", "heuristic"], deals, seed, rules)
        out["normal CPU ms/decision"] = _mean_ms(report.cpu_samples[0])
        out["heuristic CPU ms/decision"] = _mean_ms(report.cpu_samples[1]
                                                    + report.cpu_samples[2])
        out["points"] = report.deal_points
    return out


def _child(src: Path, args: argparse.Namespace) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    proc = subprocess.run(
        [sys.executable, __file__, "--worker", "--hands", str(args.hands),
         "--positions", str(args.positions), "--seed", str(args.seed),
         "--deals", str(args.deals)],
        capture_output=True, text=True, env=env, check=True)
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--compiled", default=".compiled", help="a compiled install")
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--positions", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--deals", type=int, default=2,
                        help="duplicate deals of normal vs two heuristic (0: none)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        json.dump(_worker(args.hands, args.positions, args.seed, args.deals), sys.stdout)
        return
    compiled = Path(args.compiled).resolve()
    if not compiled.exists():
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target",
                        str(compiled), str(ROOT)], check=True,
                       env={**os.environ, "PAOHUZI_COMPILE": "1"})
    trees = {"sources": ROOT / "src", "compiled": compiled}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    for _ in range(args.rounds):
        for name, src in trees.items():
            runs[name].append(_child(src, args))
    if not runs["compiled"][0]["compiled"] or runs["sources"][0]["compiled"]:
        sys.exit(f"{compiled} is not a compiled build (or src/ holds compiled modules)")
    points = {json.dumps(r.get("points")) for rs in runs.values() for r in rs}
    if len(points) > 1:
        sys.exit("the two builds' players chose differently (the deals' points differ)")
    keys = [k for k in runs["sources"][0] if k not in ("compiled", "points")]
    print(f"{'':26} {'sources':>10} {'compiled':>10}  ratio (best of {args.rounds} rounds)")
    for key in keys:
        pick = max if key == "hands/s" else min
        pure = pick(r[key] for r in runs["sources"])
        fast = pick(r[key] for r in runs["compiled"])
        ratio = fast / pure if key == "hands/s" else pure / fast
        print(f"{key:26} {pure:10.4g} {fast:10.4g}  {ratio:.2f}x")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
