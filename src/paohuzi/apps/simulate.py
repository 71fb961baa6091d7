"""``paohuzi simulate``: many hands between random legal players, with statistics.

>>> stats = simulate(20, seed=1)
>>> stats.hands, stats.wins + stats.draws + stats.tianhu == 20
(20, True)
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from paohuzi.core.kinds import EndReason
from paohuzi.core.rules import Ruleset
from paohuzi.game.deal import hand_seed
from paohuzi.game.engine import Hand
from paohuzi.game.record import record_of
from paohuzi.players import RandomPlayer, play_hand

__all__ = ["SimulationStats", "simulate"]


@dataclass
class SimulationStats:
    hands: int = 0
    wins: int = 0
    tianhu: int = 0
    draws: int = 0
    winning_huxi: int = 0
    zimo: int = 0
    haidi: int = 0
    mingtang: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0

    def report(self) -> list[str]:
        n = max(self.hands, 1)
        won = self.wins + self.tianhu
        lines = [
            f"hands: {self.hands} in {self.seconds:.2f} s = "
            f"{self.hands / max(self.seconds, 1e-9):.0f} hands/s",
            f"won: {won} ({100 * won / n:.1f}%)  drawn (荒庄): {self.draws} "
            f"({100 * self.draws / n:.1f}%)",
            f"mean winning 胡息: {self.winning_huxi / max(won, 1):.2f}",
            f"天胡: {self.tianhu} ({100 * self.tianhu / n:.2f}%)  自摸: {self.zimo} "
            f"({100 * self.zimo / n:.1f}%)  海底: {self.haidi} ({100 * self.haidi / n:.1f}%)",
            "名堂 (per hand): " + (", ".join(f"{name} {count} ({100 * count / n:.2f}%)"
                                            for name, count in self.mingtang.most_common())
                                   or "none"),
        ]
        return lines


def simulate(games: int, seed: int, rules: Ruleset | None = None,
             records: Path | None = None, progress: TextIO | None = None) -> SimulationStats:
    """Play ``games`` hands with random players; deterministic for ``seed``."""
    rules = rules or Ruleset()
    stats = SimulationStats()
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    step = max(1, games // 50)
    for i in range(games):
        s = hand_seed(seed, i)
        hand = Hand.from_seed(s, rules, dealer=i % rules.players)
        players = [RandomPlayer(s + k) for k in range(rules.players)]
        result = play_hand(hand, players)
        stats.hands += 1
        if result.reason is EndReason.HUANGZHUANG:
            stats.draws += 1
        elif result.settlement is not None:
            if result.reason is EndReason.TIANHU or result.settlement.tianhu:
                stats.tianhu += 1
            else:
                stats.wins += 1
            stats.winning_huxi += result.settlement.huxi
            stats.zimo += result.settlement.zimo
            stats.haidi += result.settlement.haidi
            stats.mingtang.update(m.name for m in result.settlement.mingtang)
        if records is not None:
            path = records / f"hand-{i:06d}.json"
            path.write_text(json.dumps(record_of(hand), ensure_ascii=False, indent=1))
        if progress is not None and (i + 1) % step == 0:
            done = (i + 1) / games
            bar = "#" * int(30 * done)
            progress.write(f"\r[{bar:<30}] {i + 1}/{games}")
            progress.flush()
    if progress is not None:
        progress.write("\n")
    stats.seconds = time.perf_counter() - start
    return stats


def main(games: int, seed: int, rules: Ruleset, records: Path | None) -> int:
    progress = sys.stderr if games >= 200 and sys.stderr.isatty() else None
    stats = simulate(games, seed, rules, records, progress)
    print(f"rules: {rules.name}  seed: {seed}")
    for line in stats.report():
        print(line)
    return 0
