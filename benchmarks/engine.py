"""Engine benchmark: full hands per second with random players, one core, one process.

Run: ``python benchmarks/engine.py [--hands 3000] [--rules qq] [--src OLD/src]
[--check 2000] [--harness 10000]``

Every seat's 胡 check is done on every shown card (the engine always does it).

* The hands are played in a fresh process (100 warm-up hands of other seeds first, so
  no memo holds a timed hand before it is played); wall and CPU time are printed.
* ``--src OLD/src`` also times another tree's engine on the same hands, in chunks
  alternating with this tree's (so both meet the same load), and prints the ratio:
  the before/after of a change. Repeat it to time several trees in the same run.
* ``--check N`` plays N seeded random hands per rule form (every preset and the seat
  forms of :data:`FORMS`) and prints one digest per form of everything the hands
  showed: each step's legal actions in order, every event, the record, the result
  and settlement. With ``--src`` the other tree plays the same hands and every digest
  must agree (the proof that a speed-up changed no behaviour); exits 1 if one differs.
* If OpenSpiel (``pip install open_spiel``, the ``bench`` extra) or RLCard
  (``pip install rlcard``) is installed, a game of it is timed in the same run with
  uniform random players, as an anchor, and the ratio printed.
* ``--harness N`` also runs the random-game harness of ``tests/harness.py`` (all
  invariant checks) on N games per preset and reports its counts.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from golden import FORMS, form_digest, rules_of


def engine_rate(hands: int, rules: Any, seed: int = 1) -> tuple[float, float]:
    """Hands per second, wall and CPU time: deal, play with uniform random choices, settle."""
    from paohuzi.game.engine import Hand

    start, cpu = time.perf_counter(), time.process_time()
    for i in range(hands):
        hand = Hand.from_seed(seed * 1_000_003 + i, rules, dealer=i % rules.players)
        rng = random.Random(i)
        while not hand.ended:
            seat = hand.pending_seats()[0]
            legal = hand.legal_actions(seat)
            hand.act(seat, legal[rng.randrange(len(legal))])
    return hands / (time.perf_counter() - start), hands / (time.process_time() - cpu)


def _worker() -> None:
    """Child process (a tree's ``src`` on ``sys.path``): answer each task read from stdin,
    one JSON line each."""
    for line in sys.stdin:
        task = json.loads(line)
        if task["kind"] == "rate":
            from paohuzi.core.rules import Ruleset

            name = task["rules"]
            rules = rules_of(name) if name in FORMS else Ruleset.preset(name)
            out: Any = engine_rate(task["hands"], rules, seed=task["seed"])
        else:
            out = {form: form_digest(form, task["games"]) for form in task["forms"]}
        print(json.dumps(out), flush=True)


class _Child:
    """A worker process running a tree's engine (its ``src`` first on ``sys.path``)."""

    def __init__(self, src: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(Path(src).resolve())}
        self.process = subprocess.Popen([sys.executable, __file__, "--worker"], env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)

    def ask(self, task: dict[str, Any]) -> Any:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(task) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def _child(src: str, task: dict[str, Any]) -> Any:
    child = _Child(src)
    try:
        return child.ask(task)
    finally:
        child.close()


def openspiel_rate(games: int, name: str = "hearts") -> tuple[str, float] | None:
    """Games per second of an OpenSpiel game (C++) with uniform random players, driven
    from Python as the engine is, if OpenSpiel is installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game(name)
    rng = random.Random(1)
    start = time.perf_counter()
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
    return name, games / (time.perf_counter() - start)


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


def _compare_rate(args: argparse.Namespace) -> float:
    """This tree's rate, in a fresh worker process: 100 warm-up hands of other seeds, then
    ``--hands`` hands in chunks of ``--chunk``. With ``--src`` each other tree's worker
    plays the same chunks, each right after this tree's, so that all meet the same load; a
    ratio is the median of the chunks' ratios (CPU time), robust to a busy machine."""
    here = str(Path(__file__).resolve().parents[1] / "src")
    trees = [here, *args.src]
    children = [_Child(tree) for tree in trees]
    times: list[list[tuple[float, float]]] = [[] for _ in trees]
    try:
        for child in children:
            child.ask({"kind": "rate", "hands": 100, "seed": 2, "rules": args.rules})
        chunks = max(1, args.hands // args.chunk)
        for k in range(chunks):
            for child, got in zip(children, times, strict=True):
                wall, cpu = child.ask({"kind": "rate", "hands": args.chunk, "seed": 10 + k,
                                       "rules": args.rules})
                got.append((wall, cpu))  # hands/s
    finally:
        for child in children:
            child.close()
    hands = chunks * args.chunk

    def total(rates: list[tuple[float, float]], i: int) -> float:
        return hands / sum(args.chunk / r[i] for r in rates)

    wall, cpu = total(times[0], 0), total(times[0], 1)
    print(f"paohuzi engine ({args.rules}): {wall:,.0f} hands/s ({1000 / wall:.2f} ms per "
          f"hand wall; {1000 / cpu:.2f} ms CPU time, {cpu:,.0f} hands/s), {hands} hands "
          f"in chunks of {args.chunk}, random players")
    for src, other in zip(args.src, times[1:], strict=True):
        old_wall, old_cpu = total(other, 0), total(other, 1)
        ratios = sorted(ours[1] / theirs[1] for ours, theirs in zip(times[0], other, strict=True))
        best = max(r[1] for r in times[0]) / max(r[1] for r in other)
        print(f"{src} (same run, chunks alternating): {old_wall:,.0f} hands/s "
              f"({1000 / old_wall:.2f} ms wall; {1000 / old_cpu:.2f} ms CPU time) -> this "
              f"tree {ratios[len(ratios) // 2]:.2f}x faster (median of the chunks' CPU "
              f"ratios; totals {cpu / old_cpu:.2f}x; fastest chunks {best:.2f}x)")
    return wall


def _check(args: argparse.Namespace) -> None:
    forms = list(FORMS)
    ours = {form: form_digest(form, args.check) for form in forms}
    theirs = {src: _child(src, {"kind": "check", "games": args.check, "forms": forms})
              for src in args.src}
    differ = 0
    for form in forms:
        same = "".join(f" same in {src}" if digests[form] == ours[form] else
                       f" DIFFERS in {src}" for src, digests in theirs.items())
        differ += sum(digests[form] != ours[form] for digests in theirs.values())
        print(f"check {form}: {args.check} hands, digest {ours[form][:16]}{same}")
    if differ:
        sys.exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--chunk", type=int, default=100)
    parser.add_argument("--rules", default="qq")
    parser.add_argument("--src", action="append", default=[],
                        help="another tree's src folder, timed and checked alike (repeat it "
                             "for more trees)")
    parser.add_argument("--check", type=int, default=0,
                        help="digest N seeded hands per rule form (compared with --src's)")
    parser.add_argument("--anchor-games", type=int, default=2000)
    parser.add_argument("--rlcard-games", type=int, default=100)
    parser.add_argument("--harness", type=int, default=0,
                        help="also run the invariant harness on N games per preset")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        _worker()
        return
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    rate = _compare_rate(args) if args.hands else 0.0
    if rate:
        _anchors(args, rate)
    if args.check:
        _check(args)
    if args.harness:
        _harness(args.harness)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def _anchors(args: argparse.Namespace, rate: float) -> None:
    spiel = openspiel_rate(args.anchor_games)
    if spiel is None:
        print("OpenSpiel: not installed (pip install open_spiel, or the bench extra)")
    else:
        name, games = spiel
        print(f"OpenSpiel {name} (same run): {games:,.0f} games/s -> paohuzi hands/s "
              f"{rate / games:.3f}x of it")
    anchor = rlcard_mahjong_rate(args.rlcard_games)
    if anchor is None:
        print("RLCard mahjong: not installed (pip install rlcard)")
    else:
        print(f"RLCard mahjong (same run): {anchor:,.1f} games/s -> ratio {rate / anchor:.0f}x")


def _harness(games: int) -> None:
    from harness import run

    from paohuzi.core.rules import PRESETS, Ruleset

    for name in PRESETS:
        t0 = time.perf_counter()
        stats = run(games, Ruleset.preset(name), seed=7)
        print(f"harness {name}: {stats.games} games, {stats.steps} decisions, "
              f"{stats.illegal_refused} illegal actions refused, {stats.leak_checks} "
              f"hidden-card swaps, results {stats.reasons} "
              f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
