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
pairing the level played, and the build that played (``sources``, or ``compiled``: the
same choices, other times; ``PYTHONPATH=.compiled`` runs a compiled install).

With ``--chunk N`` a pairing is played N deals at a time and each finished chunk is saved
(under ``partial`` in the file) before the next starts: a pairing of many CPU hours (hard
against two normal) can be spread over several runs, each continuing where the last
stopped, and is merged into one pairing once its last chunk is in. Every deal and its
players are seeded from the seed and the deal's index alone, so the chunks play exactly
the games one run would. Until then the tables show the deals played so far.

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

import paohuzi
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


ROTATIONS = 3
"""A against two B: every deal in its three rotations."""


def play_pairing(a: str, b: str, deals: int, seed: int, rules: Ruleset,
                 jobs: int, first: int = 0) -> dict[str, Any]:
    """A against two B on ``deals`` duplicate deals (the seed's deals from ``first`` on):
    A's figures, B's, and times."""
    cpu_start = _cpu_seconds()
    report = run_arena([a, b, b], deals, seed, rules, jobs, first=first)
    pa, b1, b2 = report.players
    return {
        "a": a, "b": b, "deals": deals, "first": first, "build": _build(),
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


def _build() -> str:
    """Which build played (the choices are the same on both; the times are not)."""
    return "compiled" if paohuzi.compiled() else "sources"


def combine(chunks: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One pairing's record from the records of its chunks, played on consecutive deals
    from deal 0 on: counts and times added, rates weighted by hands, the points and their
    interval computed again over every deal (as one run of all the deals would).

    >>> one = {"a": "x", "b": "y", "deals": 2, "first": 0, "hands": 6, "hu_a": 0.5,
    ...        "hu_b": 0.25, "draw_rate": 0.0, "wall_s": 1.0, "cpu_s": 2.0,
    ...        "cpu_a": {"3": 1}, "cpu_b": {}, "wall_a": {"3": 1}, "wall_b": {},
    ...        "deal_points_a": [3.0, -3.0]}
    >>> two = one | {"first": 2, "hu_a": 0.0, "deal_points_a": [6.0, 0.0]}
    >>> r = combine([one, two])
    >>> r["deals"], r["hands"], r["hu_a"], r["points"], r["cpu_a"], r["cpu_s"]
    (4, 12, 0.25, 0.5, {'3': 2}, 4.0)
    """
    if not chunks:
        raise ValueError("no chunks to combine")
    expected = 0
    for chunk in chunks:
        if chunk.get("first", 0) != expected or len(chunk["deal_points_a"]) != chunk["deals"]:
            raise LadderFileMismatch(
                f"chunks of {chunks[0]['a']} vs {chunks[0]['b']} are not consecutive deals "
                f"from 0: one starts at deal {chunk.get('first', 0)}, expected {expected}")
        expected += chunk["deals"]
    hands = sum(c["hands"] for c in chunks)
    deal_points = [v for c in chunks for v in c["deal_points_a"]]
    mean, low, high = clustered_ci([v / ROTATIONS for v in deal_points])

    def weighted(key: str) -> float:
        return sum(c[key] * c["hands"] for c in chunks) / hands if hands else 0.0

    return {
        "a": chunks[0]["a"], "b": chunks[0]["b"], "deals": expected, "first": 0,
        "points": mean, "low": low, "high": high,
        "hu_a": weighted("hu_a"), "hu_b": weighted("hu_b"), "draw_rate": weighted("draw_rate"),
        "hands": hands, "chunks": len(chunks),
        "build": "+".join(sorted({c.get("build", "sources") for c in chunks})),
        "wall_s": sum(c["wall_s"] for c in chunks), "cpu_s": sum(c["cpu_s"] for c in chunks),
        **{key: merge(c[key] for c in chunks) for key in ("cpu_a", "cpu_b", "wall_a", "wall_b")},
        "deal_points_a": deal_points,
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
    rotations = ROTATIONS
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
               out: Path, log: Any = None, chunk: int | None = None) -> dict[str, Any]:
    """Play every missing ordered pairing of ``levels`` and save each as it finishes
    (with ``chunk``: each chunk of that many deals as it finishes)."""
    for name in levels:
        make_player(name, 0)  # unknown names fail before any work
    if chunk is not None and chunk < 2:
        raise ValueError(f"a chunk of {chunk} deals: at least 2 are needed")
    data = load(out, seed, deals, rules.name)
    for a in levels:
        for b in levels:
            key = pairing_key(a, b)
            if a == b or key in data["pairings"]:
                continue
            partial: list[dict[str, Any]] = data.setdefault("partial", {}).get(key, [])
            if partial or chunk is not None:
                data["partial"][key] = partial
                done = sum(c["deals"] for c in partial)
                size = chunk or deals - done
                while done < deals:
                    n = min(size, deals - done)
                    partial.append(play_pairing(a, b, n, seed, rules, jobs, first=done))
                    done += n
                    save(out, data)
                    _log(log, f"{key}, deals {done - n}-{done - 1}", combine(partial))
                result = combine(partial)
                del data["partial"][key]
            else:
                result = play_pairing(a, b, deals, seed, rules, jobs)
            if not data["partial"]:
                del data["partial"]
            data["pairings"][key] = result
            save(out, data)
            _log(log, key, result)
    return data


def _log(log: Any, what: str, result: dict[str, Any]) -> None:
    if log is not None:
        log.write(f"{what}: {result['points']:+.2f} [{result['low']:+.2f}, "
                  f"{result['high']:+.2f}] over {result['deals']} deals, "
                  f"{result['cpu_s']:.0f} s CPU\n")
        log.flush()


def _ms(value: float) -> str:
    return f"{value:.3f} ms" if value < 0.1 else f"{value:.2f} ms"


def _cell(r: dict[str, Any] | None, deals: int) -> str:
    if r is None:
        return "missing"
    so_far = f" ({r['deals']} of {deals} deals so far)" if r["deals"] < deals else ""
    return f"{r['points']:+.2f} [{r['low']:+.2f}, {r['high']:+.2f}]{so_far}"


def shown_pairings(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The finished pairings, and each pairing in progress as its chunks so far."""
    shown = {key: combine(chunks) for key, chunks in data.get("partial", {}).items() if chunks}
    finished: dict[str, dict[str, Any]] = data["pairings"]
    return shown | finished


def markdown(data: dict[str, Any], levels: Sequence[str]) -> str:
    """The matrix, the adjacent steps, 胡 rates and per-level decision times."""
    pairings = shown_pairings(data)
    deals = data["deals"]
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
        cells = ["—" if a == b else _cell(pairings.get(pairing_key(a, b)), deals)
                 for b in levels]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    lines += ["", "| step (upper vs two lower) | points / hand | 95% CI | interval excludes 0 "
              "| 胡 rate upper / lower |", "|---|---|---|---|---|"]
    for lower, upper in pairwise(levels):
        r = pairings.get(pairing_key(upper, lower))
        if r is None:
            lines.append(f"| {upper} > {lower} | missing | | | |")
            continue
        excludes = "yes" if r["low"] > 0 or r["high"] < 0 else "no"
        if r["deals"] < deals:
            excludes += f" (after {r['deals']} of {deals} deals)"
        lines.append(
            f"| {upper} > {lower} | {r['points']:+.2f} | [{r['low']:+.2f}, {r['high']:+.2f}] "
            f"| {excludes} | {100 * r['hu_a']:.1f}% / {100 * r['hu_b']:.1f}% |")
    lines += ["", "| level | decision CPU p50 | CPU p99 | wall p50 | wall p99 | decisions "
              "| pairings | build |", "|---|---|---|---|---|---|---|---|"]
    for level in levels:
        played = [(r, side) for r in pairings.values() for side in ("a", "b")
                  if r[side] == level]
        if not played:
            lines.append(f"| {level} | missing | | | | 0 | 0 | |")
            continue
        cpu = merge(r[f"cpu_{side}"] for r, side in played)
        wall = merge(r[f"wall_{side}"] for r, side in played)
        lines.append(
            f"| {level} | {_ms(percentile_ms(cpu, 0.5))} | {_ms(percentile_ms(cpu, 0.99))} "
            f"| {_ms(percentile_ms(wall, 0.5))} | {_ms(percentile_ms(wall, 0.99))} "
            f"| {sum(cpu.values())} | {len(played)} "
            f"| {'+'.join(sorted({r.get('build', 'sources') for r, _ in played}))} |")
    missing = [key + (f" ({pairings[key]['deals']} of {deals} deals played)"
                      if key in pairings else "")
               for key in (pairing_key(a, b) for a in levels for b in levels if a != b)
               if key not in data["pairings"]]
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
    p.add_argument("--chunk", type=int, default=None,
                   help="play each missing pairing this many deals at a time, saving each "
                        "chunk, so a long pairing can stop and continue (default: whole)")
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
        if args.chunk is not None and args.chunk < 2:
            raise SystemExit("--chunk must be 2 or more (an interval needs two deals)")
        data = run_ladder(levels, args.deals, args.seed, rules, args.jobs, args.out, sys.stderr,
                          args.chunk)
    print(markdown(data, levels))
    if args.compare is not None:
        print("\n".join(compare(data, json.loads(args.compare.read_text(encoding="utf-8")))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
