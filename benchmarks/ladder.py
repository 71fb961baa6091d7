"""The strength ladder: every level against every other on the same duplicate deals.

Run: ``python benchmarks/ladder.py --deals 3000 --jobs 1 --out ladder.json [--expert]``

For every ordered pairing (A, B) of distinct levels, A plays against two copies of
B on duplicate deals (``paohuzi arena``: every deal in every rotation of the seats).
All pairings use the same seed, hence the same deal set. Each finished pairing is
saved at once to ``--out`` (JSON), so a long run can stop and continue: pairings
already in the file (for the same seed, deal count and rules) are skipped.

Printed (Markdown, ready for the README): a matrix of A's points per hand against
two B with the 95% interval clustered by deal, the adjacent-step line (each level
against two of the level below), 胡 rates, and per level its decision times p50/p99
in CPU time of the deciding thread (with wall time beside), pooled over every
pairing the level played.

Each pairing also keeps A's points deal by deal, so two ladders of the same deals (a
player changed between them) compare pairing by pairing with ``--compare OTHER.json``:
the difference paired by deal, whose interval is far tighter than the two results'.
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import sys
import time
from collections.abc import Iterable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Any

from paohuzi.core.rules import Ruleset
from paohuzi.players import make_player
from paohuzi.players.arena import clustered_ci, run_arena

DEFAULT_LEVELS = ("random", "easy", "heuristic", "normal", "hard")
"""Weakest first: the adjacent steps are read in this order."""

BUCKET = 1.05
"""Decision times are kept as histograms of buckets 5% wide (in µs), so that pairings
merge into one per-level distribution without storing every sample."""


def histogram(seconds: Iterable[float]) -> dict[str, int]:
    """Counts of decision times by bucket: bucket ``k`` holds ``[1.05^k, 1.05^(k+1))`` µs.

    >>> histogram([0.0, 1e-6, 2e-3, 2e-3])
    {'0': 2, '155': 2}
    """
    counts: dict[str, int] = {}
    for s in seconds:
        us = s * 1e6
        k = max(0, math.floor(math.log(us) / math.log(BUCKET))) if us > 1.0 else 0
        counts[str(k)] = counts.get(str(k), 0) + 1
    return counts


def merge(histograms: Iterable[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for h in histograms:
        for k, c in h.items():
            total[k] = total.get(k, 0) + c
    return total


def percentile_ms(counts: dict[str, int], q: float) -> float:
    """The ``q`` quantile in ms, read as the upper edge of its bucket (never optimistic).

    >>> round(percentile_ms(histogram([1e-3] * 199 + [1.0]), 0.99), 3)
    1.021
    """
    n = sum(counts.values())
    if n == 0:
        return 0.0
    rank = min(n - 1, int(q * n))
    seen = 0
    for k in sorted(counts, key=int):
        seen += counts[k]
        if seen > rank:
            return BUCKET ** (int(k) + 1) / 1000
    raise AssertionError("unreachable")


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have ended (the arena's
    ``--jobs`` workers, once the pairing is over)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def play_pairing(a: str, b: str, deals: int, seed: int, rules: Ruleset,
                 jobs: int) -> dict[str, Any]:
    """A against two B on ``deals`` duplicate deals: A's figures, B's, and times."""
    cpu_start = _cpu_seconds()
    report = run_arena([a, b, b], deals, seed, rules, jobs)
    pa, b1, b2 = report.players
    return {
        "a": a, "b": b, "deals": deals,
        "points": pa.mean, "low": pa.low, "high": pa.high,
        "hu_a": pa.hu_rate, "hu_b": (b1.hu_rate + b2.hu_rate) / 2,
        "draw_rate": report.draw_rate, "hands": report.hands,
        "wall_s": report.seconds, "cpu_s": _cpu_seconds() - cpu_start,
        "cpu_a": histogram(report.cpu_samples[0]),
        "cpu_b": merge([histogram(report.cpu_samples[1]), histogram(report.cpu_samples[2])]),
        "wall_a": histogram(report.wall_samples[0]),
        "wall_b": merge([histogram(report.wall_samples[1]), histogram(report.wall_samples[2])]),
        "deal_points_a": [round(v, 6) for v in report.deal_points[0]],
    }


def compare(data: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """Each pairing that both ladders played on the same deals, paired deal by deal: this
    ladder's A minus the other's (the players changed between the two runs), points per
    hand with a 95% interval clustered by deal — far tighter than the difference of the
    two intervals, since both faced the same cards."""
    for key in ("seed", "deals", "rules"):
        if data.get(key) != other.get(key):
            raise LadderFileMismatch(f"the ladders differ in {key}: "
                                     f"{data.get(key)!r} and {other.get(key)!r}")
    rotations = 3  # A against two B: every deal in its three rotations
    lines = []
    for key, mine in data["pairings"].items():
        theirs = other["pairings"].get(key)
        if theirs is None or "deal_points_a" not in mine or "deal_points_a" not in theirs:
            continue
        diffs = [(a - b) / rotations for a, b in zip(mine["deal_points_a"],
                                                     theirs["deal_points_a"], strict=True)]
        mean, low, high = clustered_ci(diffs)
        lines.append(f"{key}: {mean:+.2f} [{low:+.2f}, {high:+.2f}] points per hand "
                     f"against the other ladder, paired over {len(diffs)} deals")
    return lines


def pairing_key(a: str, b: str) -> str:
    return f"{a} vs {b}"


class LadderFileMismatch(ValueError):
    """The ``--out`` file holds a ladder of another seed, deal count or rule set."""


def load(path: Path, seed: int, deals: int, rules: str) -> dict[str, Any]:
    header = {"seed": seed, "deals": deals, "rules": rules}
    if not path.exists():
        return {**header, "pairings": {}}
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    for key, value in header.items():
        if data.get(key) != value:
            raise LadderFileMismatch(
                f"{path} holds a ladder with {key}={data.get(key)!r}, not {value!r}: "
                "use another --out or the same settings to resume")
    return data


def save(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    tmp.replace(path)


def run_ladder(levels: Sequence[str], deals: int, seed: int, rules: Ruleset, jobs: int,
               out: Path, log: Any = None) -> dict[str, Any]:
    """Play every missing ordered pairing of ``levels`` and save each as it finishes."""
    for name in levels:
        make_player(name, 0)  # unknown names fail before any work
    data = load(out, seed, deals, rules.name)
    for a in levels:
        for b in levels:
            key = pairing_key(a, b)
            if a == b or key in data["pairings"]:
                continue
            result = play_pairing(a, b, deals, seed, rules, jobs)
            data["pairings"][key] = result
            save(out, data)
            if log is not None:
                log.write(f"{key}: {result['points']:+.2f} [{result['low']:+.2f}, "
                          f"{result['high']:+.2f}] in {result['cpu_s']:.0f} s CPU\n")
                log.flush()
    return data


def _ms(value: float) -> str:
    return f"{value:.3f} ms" if value < 0.1 else f"{value:.2f} ms"


def _cell(r: dict[str, Any] | None) -> str:
    if r is None:
        return "missing"
    return f"{r['points']:+.2f} [{r['low']:+.2f}, {r['high']:+.2f}]"


def markdown(data: dict[str, Any], levels: Sequence[str]) -> str:
    """The matrix, the adjacent steps, 胡 rates and per-level decision times."""
    pairings: dict[str, dict[str, Any]] = data["pairings"]
    lines = [
        f"Ladder: {data['deals']} duplicate deals per pairing (the same deals for every "
        f"pairing, seed {data['seed']}, rules `{data['rules']}`), each deal in all 3 "
        "rotations. Cell: the row level's points per hand against two of the column level, "
        "95% interval clustered by deal.",
        "",
        "| A \\ two B | " + " | ".join(levels) + " |",
        "|---|" + "---|" * len(levels),
    ]
    for a in levels:
        cells = ["—" if a == b else _cell(pairings.get(pairing_key(a, b))) for b in levels]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    lines += ["", "| step (upper vs two lower) | points / hand | 95% CI | interval excludes 0 "
              "| 胡 rate upper / lower |", "|---|---|---|---|---|"]
    for lower, upper in pairwise(levels):
        r = pairings.get(pairing_key(upper, lower))
        if r is None:
            lines.append(f"| {upper} > {lower} | missing | | | |")
            continue
        excludes = "yes" if r["low"] > 0 or r["high"] < 0 else "no"
        lines.append(
            f"| {upper} > {lower} | {r['points']:+.2f} | [{r['low']:+.2f}, {r['high']:+.2f}] "
            f"| {excludes} | {100 * r['hu_a']:.1f}% / {100 * r['hu_b']:.1f}% |")
    lines += ["", "| level | decision CPU p50 | CPU p99 | wall p50 | wall p99 | decisions "
              "| pairings |", "|---|---|---|---|---|---|---|"]
    for level in levels:
        played = [(r, side) for r in pairings.values() for side in ("a", "b")
                  if r[side] == level]
        if not played:
            lines.append(f"| {level} | missing | | | | 0 | 0 |")
            continue
        cpu = merge(r[f"cpu_{side}"] for r, side in played)
        wall = merge(r[f"wall_{side}"] for r, side in played)
        lines.append(
            f"| {level} | {_ms(percentile_ms(cpu, 0.5))} | {_ms(percentile_ms(cpu, 0.99))} "
            f"| {_ms(percentile_ms(wall, 0.5))} | {_ms(percentile_ms(wall, 0.99))} "
            f"| {sum(cpu.values())} | {len(played)} |")
    missing = [pairing_key(a, b) for a in levels for b in levels
               if a != b and pairing_key(a, b) not in pairings]
    lines += ["", "Missing pairings: " + (", ".join(missing) if missing else "none") + ".", ""]
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    p.add_argument("--levels", default=",".join(DEFAULT_LEVELS),
                   help="comma-separated, weakest first (default: %(default)s)")
    p.add_argument("--expert", action="store_true",
                   help="add the experimental 'expert' player at the top (needs numpy)")
    p.add_argument("--deals", type=int, default=3000)
    p.add_argument("--seed", type=int, default=2026)
    p.add_argument("--rules", default=None, help="a preset name (default: the default rules)")
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--out", type=Path, default=Path("ladder.json"))
    p.add_argument("--report-only", action="store_true",
                   help="print the table from --out without playing")
    p.add_argument("--compare", type=Path, default=None,
                   help="another ladder file of the same deals: print each common pairing's "
                        "difference, paired deal by deal")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    levels = [name.strip() for name in args.levels.split(",") if name.strip()]
    if args.expert and "expert" not in levels:
        levels.append("expert")
    if len(levels) < 2 or len(set(levels)) != len(levels):
        raise SystemExit(f"--levels needs two or more distinct levels, got {levels}")
    if args.deals < 2:
        raise SystemExit("--deals must be 2 or more (an interval needs two deals)")
    rules = Ruleset.preset(args.rules) if args.rules else Ruleset()
    if args.report_only:
        data = load(args.out, args.seed, args.deals, rules.name)
    else:
        data = run_ladder(levels, args.deals, args.seed, rules, args.jobs, args.out, sys.stderr)
    print(markdown(data, levels))
    if args.compare is not None:
        print("\n".join(compare(data, json.loads(args.compare.read_text(encoding="utf-8")))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
