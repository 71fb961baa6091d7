"""``paohuzi arena``: computer players against each other on duplicate deals.

Every deal is played once per rotation of the players round the table, so each
player sits in every seat — the dealer's included — with the same cards
(duplicate deals cancel most of the luck of the deal). For each player it
reports mean points per hand with a 95% confidence interval clustered by deal
(the deal is the unit: a player's points are averaged over the rotations of one
deal, and the interval is mean ± 1.96 · sd / √deals of those per-deal means),
its 胡 rate, mean winning 胡息, the 荒庄 rate and decision times (p50/p99), both
wall time and CPU time (``time.thread_time``: the deciding thread's CPU, which
other work on a shared machine does not inflate).

The run is deterministic for a seed: deal ``i`` is dealt from a seed derived
from the run's seed and every player's seed from (run seed, deal, rotation,
seat); results are gathered in deal order whatever the number of workers
(decision times excepted).

>>> report = run_arena(["heuristic", "random", "random"], deals=4, seed=1)
>>> [p.name for p in report.players], report.hands
(['heuristic', 'random', 'random'], 12)
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any, TextIO

from paohuzi.core.kinds import EndReason
from paohuzi.core.rules import Ruleset
from paohuzi.game.deal import hand_seed
from paohuzi.game.engine import Hand
from paohuzi.players import make_player, observation_for

__all__ = ["ArenaReport", "PlayerStats", "clustered_ci", "run_arena", "write_report"]

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""


def clustered_ci(per_deal: Sequence[float]) -> tuple[float, float, float]:
    """Mean of per-deal values and its 95% interval ``(mean, low, high)``.

    >>> tuple(round(x, 3) for x in clustered_ci([1.0, 3.0, 2.0, 2.0]))
    (2.0, 1.2, 2.8)
    """
    n = len(per_deal)
    mean = statistics.fmean(per_deal)
    if n < 2:
        return mean, -math.inf, math.inf
    half = Z95 * statistics.stdev(per_deal) / math.sqrt(n)
    return mean, mean - half, mean + half


@dataclass
class DealOutcome:
    """One deal played in every rotation, per player slot."""

    points: list[float]  # per slot: total over the rotations
    wins: list[int]
    win_huxi: list[int]
    draws: int
    hands: int
    times: list[list[float]]  # per slot: decision wall times in seconds
    cpu_times: list[list[float]] = field(default_factory=list)  # per slot: thread CPU seconds


@dataclass
class PlayerStats:
    name: str
    mean: float
    low: float
    high: float
    hu_rate: float
    mean_win_huxi: float
    p50_ms: float
    p99_ms: float
    decisions: int
    cpu_p50_ms: float = 0.0
    cpu_p99_ms: float = 0.0


@dataclass
class ArenaReport:
    players: list[PlayerStats]
    deals: int
    hands: int
    draw_rate: float
    seed: int
    rules: str
    jobs: int
    seconds: float
    cumulative: list[list[float]] = field(default_factory=list)  # per slot, per deal
    wall_samples: list[list[float]] = field(default_factory=list)  # per slot: seconds
    cpu_samples: list[list[float]] = field(default_factory=list)  # per slot: thread CPU s
    deal_points: list[list[float]] = field(default_factory=list)
    """Per slot and deal, the slot's points summed over the deal's rotations (so two runs
    on the same deals can be compared deal by deal)."""

    def markdown(self) -> str:
        lines = [
            f"# Arena: {', '.join(p.name for p in self.players)}",
            "",
            f"{self.deals} duplicate deals x {len(self.players)} rotations = {self.hands} "
            f"hands, rules `{self.rules}`, seed {self.seed}, {self.jobs} worker(s), "
            f"{self.seconds:.0f} s. 荒庄 rate {100 * self.draw_rate:.1f}%.",
            "",
            "| seat slot | player | points / hand | 95% CI (by deal) | 胡 rate | mean winning 胡息 "
            "| decision p50 | p99 | CPU p50 | CPU p99 | decisions |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for i, p in enumerate(self.players):
            lines.append(
                f"| {i} | {p.name} | {p.mean:+.2f} | [{p.low:+.2f}, {p.high:+.2f}] | "
                f"{100 * p.hu_rate:.1f}% | {p.mean_win_huxi:.1f} | {p.p50_ms:.2f} ms | "
                f"{p.p99_ms:.2f} ms | {p.cpu_p50_ms:.2f} ms | {p.cpu_p99_ms:.2f} ms | "
                f"{p.decisions} |")
        lines += ["", "Points per hand are what the player won or lost per hand it played; "
                  "the interval treats each deal (all its rotations) as one observation. "
                  "Decision times count decisions with more than one legal action: wall "
                  "time, then CPU time of the deciding thread.", ""]
        return "\n".join(lines)


def _play_deal(args: tuple[Sequence[str], int, int, dict[str, Any]]) -> DealOutcome:
    names, seed, deal_index, rules_dict = args
    rules = Ruleset.from_dict(rules_dict)
    n = len(names)
    out = DealOutcome([0.0] * n, [0] * n, [0] * n, 0, 0, [[] for _ in range(n)],
                      [[] for _ in range(n)])
    deal_seed = hand_seed(seed, deal_index)
    for rotation in range(n):
        # slot j sits at seat (j + rotation) % n; seat 0 deals
        seat_of = [(j + rotation) % n for j in range(n)]
        slot_at = {seat: j for j, seat in enumerate(seat_of)}
        players = [make_player(names[slot_at[seat]],
                               hash((seed, deal_index, rotation, seat)) & 0x7FFFFFFF)
                   for seat in range(n)]
        hand = Hand.from_seed(deal_seed, rules, dealer=0)
        while not hand.ended:
            seat = hand.pending_seats()[0]
            legal = hand.legal_actions(seat)
            player = players[seat]
            start = time.perf_counter()
            cpu_start = time.thread_time()
            action = player.choose(observation_for(player, hand, seat), legal)
            if len(legal) > 1:
                out.cpu_times[slot_at[seat]].append(time.thread_time() - cpu_start)
                out.times[slot_at[seat]].append(time.perf_counter() - start)
            hand.act(seat, action)
        result = hand.result
        assert result is not None
        out.hands += 1
        for seat in range(n):
            out.points[slot_at[seat]] += result.points[seat]
        if result.winner is not None and result.arrangement is not None:
            out.wins[slot_at[result.winner]] += 1
            out.win_huxi[slot_at[result.winner]] += result.arrangement.huxi
        elif result.reason is EndReason.HUANGZHUANG:
            out.draws += 1
    return out


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run_arena(names: Sequence[str], deals: int, seed: int, rules: Ruleset | None = None,
              jobs: int = 1, progress: TextIO | None = None, first: int = 0) -> ArenaReport:
    """Play ``deals`` duplicate deals between the named players: the seed's deals
    ``first``, ``first + 1``, ... (each deal and its players are seeded from the seed and
    the deal's index alone, so a long run split into ranges plays the same games)."""
    if first < 0:
        raise ValueError(f"first deal {first} is negative")
    rules = rules or Ruleset()
    if len(names) != rules.players:
        raise ValueError(f"{len(names)} players named for a {rules.players}-player game")
    for name in names:
        make_player(name, 0)  # unknown names fail before any work
    tasks = [(tuple(names), seed, i, rules.to_dict()) for i in range(first, first + deals)]
    start = time.perf_counter()
    outcomes: list[DealOutcome] = []
    if jobs > 1:
        with get_context("fork").Pool(jobs) as pool:
            for outcome in pool.imap(_play_deal, tasks, chunksize=max(1, deals // (jobs * 20))):
                outcomes.append(outcome)
                _progress(progress, len(outcomes), deals)
    else:
        for task in tasks:
            outcomes.append(_play_deal(task))
            _progress(progress, len(outcomes), deals)
    if progress is not None:
        progress.write("\n")
    n = len(names)
    rotations = n
    stats = []
    cumulative: list[list[float]] = [[] for _ in range(n)]
    deal_points = [[o.points[j] for o in outcomes] for j in range(n)]
    wall_samples: list[list[float]] = []
    cpu_samples: list[list[float]] = []
    for j, name in enumerate(names):
        per_deal = [points / rotations for points in deal_points[j]]
        running = 0.0
        for value in per_deal:
            running += value
            cumulative[j].append(running)
        mean, low, high = clustered_ci(per_deal)
        wins = sum(o.wins[j] for o in outcomes)
        times = [t for o in outcomes for t in o.times[j]]
        cpu = [t for o in outcomes for t in o.cpu_times[j]]
        wall_samples.append(times)
        cpu_samples.append(cpu)
        stats.append(PlayerStats(
            name, mean, low, high, wins / (deals * rotations),
            sum(o.win_huxi[j] for o in outcomes) / wins if wins else 0.0,
            1000 * _percentile(times, 0.5), 1000 * _percentile(times, 0.99), len(times),
            1000 * _percentile(cpu, 0.5), 1000 * _percentile(cpu, 0.99)))
    hands = sum(o.hands for o in outcomes)
    return ArenaReport(stats, deals, hands, sum(o.draws for o in outcomes) / max(hands, 1),
                       seed, rules.name, jobs, time.perf_counter() - start, cumulative,
                       wall_samples, cpu_samples, deal_points)


def _progress(stream: TextIO | None, done: int, total: int) -> None:
    if stream is None:
        return
    step = max(1, total // 100)
    if done % step == 0 or done == total:
        bar = "#" * int(30 * done / total)
        stream.write(f"\r[{bar:<30}] {done}/{total} deals")
        stream.flush()


def write_report(report: ArenaReport, folder: Path) -> list[Path]:
    """Write ``report.md`` (and ``cumulative.png`` when matplotlib is installed)."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    md = folder / "report.md"
    text = report.markdown()
    png = folder / "cumulative.png"
    if _plot(report, png):
        text += "\n![cumulative points](cumulative.png)\n"
        written.append(png)
    md.write_text(text, encoding="utf-8")
    written.insert(0, md)
    return written


def _plot(report: ArenaReport, path: Path) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    for j, p in enumerate(report.players):
        series = report.cumulative[j]
        xs = list(range(1, len(series) + 1))
        sd = statistics.stdev([b - a for a, b in zip([0.0, *series], series, strict=False)]) \
            if len(series) > 1 else 0.0
        band = [Z95 * sd * math.sqrt(x) for x in xs]
        ax.plot(xs, series, label=f"{j}: {p.name} ({p.mean:+.2f}/hand)")
        ax.fill_between(xs, [s - b for s, b in zip(series, band, strict=True)],
                        [s + b for s, b in zip(series, band, strict=True)], alpha=0.15)
    ax.axhline(0, color="grey", linewidth=0.8)
    ax.set_xlabel("deals")
    ax.set_ylabel("cumulative points per hand (per deal mean)")
    ax.set_title(f"Arena, {report.deals} duplicate deals, 95% bands")
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def main(names: Sequence[str], deals: int, seed: int, rules: Ruleset, jobs: int,
         out: Path) -> int:
    progress = sys.stderr if sys.stderr.isatty() else None
    report = run_arena(names, deals, seed, rules, jobs, progress)
    paths = write_report(report, out)
    print(report.markdown())
    print("written: " + ", ".join(str(p) for p in paths))
    return 0
