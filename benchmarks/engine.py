"""Engine benchmark: full hands per second with random players, one core, one process.

Run: ``python benchmarks/engine.py [--hands 3000] [--rules qq] [--src OLD/src]
[--check 2000] [--harness 10000]``

Every seat's 胡 check is done on every shown card (the engine always does it).

* Each round runs in a fresh process (100 warm-up hands of other seeds, then the timed
  hands), so no memo holds a timed hand before it is played; the best round is printed,
  wall and CPU time.
* ``--src OLD/src`` also times another tree's engine on the same hands, its rounds
  alternating with this tree's (so both run under the same load), and prints the ratio:
  the before/after of a change.
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
    """Child process (another tree on ``sys.path``): run the task read from stdin."""
    task = json.load(sys.stdin)
    if task["kind"] == "rate":
        out: Any = _timed(task["hands"], task["rules"])
    else:
        out = {form: form_digest(form, task["games"]) for form in task["forms"]}
    json.dump(out, sys.stdout)


def _child(src: str, task: dict[str, Any]) -> Any:
    env = {**os.environ, "PYTHONPATH": str(Path(src).resolve())}
    child = subprocess.run([sys.executable, __file__, "--worker"], input=json.dumps(task),
                           capture_output=True, text=True, env=env, check=True)
    return json.loads(child.stdout)


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


def _timed(hands: int, rules: str) -> tuple[float, float]:
    """A fresh process's rate: 100 warm-up hands of other seeds, then ``hands`` hands (a
    fresh process each round, so that no memo holds the timed hands already)."""
    from paohuzi.core.rules import Ruleset

    ruleset = rules_of(rules) if rules in FORMS else Ruleset.preset(rules)
    engine_rate(100, ruleset, seed=2)
    return engine_rate(hands, ruleset)


def _compare_rate(args: argparse.Namespace) -> float:
    """This tree's rate (best of the rounds), alternating with ``--src``'s if given."""
    here = str(Path(__file__).resolve().parents[1] / "src")
    task = {"kind": "rate", "hands": args.hands, "rules": args.rules}
    ours: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    for _ in range(args.rounds):
        ours.append(tuple(_child(here, task)))
        if args.src:
            theirs.append(tuple(_child(args.src, task)))
    wall, cpu = max(r[0] for r in ours), max(r[1] for r in ours)
    print(f"paohuzi engine ({args.rules}): {wall:,.0f} hands/s ({1000 / wall:.2f} ms per "
          f"hand; CPU time {1000 / cpu:.2f} ms per hand), best of {args.rounds} rounds of "
          f"{args.hands} hands, random players")
    if theirs:
        old_wall, old_cpu = max(r[0] for r in theirs), max(r[1] for r in theirs)
        print(f"{args.src} (same run, alternating): {old_wall:,.0f} hands/s "
              f"({1000 / old_wall:.2f} ms per hand; CPU time {1000 / old_cpu:.2f} ms) -> "
              f"this tree {wall / old_wall:.2f}x (CPU {cpu / old_cpu:.2f}x)")
    return wall


def _check(args: argparse.Namespace) -> None:
    forms = list(FORMS)
    ours = {form: form_digest(form, args.check) for form in forms}
    theirs = _child(args.src, {"kind": "check", "games": args.check, "forms": forms}) \
        if args.src else {}
    differ = 0
    for form in forms:
        same = "" if not theirs else (" same in " + args.src if theirs[form] == ours[form]
                                      else " DIFFERS in " + args.src)
        differ += bool(theirs) and theirs[form] != ours[form]
        print(f"check {form}: {args.check} hands, digest {ours[form][:16]}{same}")
    if differ:
        sys.exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--rules", default="qq")
    parser.add_argument("--src", help="another tree's src folder, timed and checked alike")
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
