"""What a searching player gains over the heuristic, per decision, from paired roll-outs.

Run: ``python benchmarks/search_gain.py --games 100 --players normal hard``
``[--worlds 200] [--jobs 2] [--rules qq]``

An arena against two heuristic players needs thousands of deals to tell a search level
from the heuristic it searches with (3,000 deals of normal took 4,629 CPU seconds and
gave +0.08 [−0.32, +0.49] points a hand), because a hand's points swing by tens while a
better decision moves them by fractions. This measures the same thing with far less
noise, where it arises: at the decisions.

1. Heuristic players play ``--games`` hands (seeded, every seat heuristic: the positions
   a searching player meets against two heuristic players, up to its own few
   deviations). Every decision with more than one legal action and no 胡 is a position.
2. Each player under test decides at every position (its decision CPU time is kept).
   Where it chooses what the heuristic chooses, it gains exactly 0 there.
3. Where it deviates, both actions are valued by ``--worlds`` paired roll-outs: the
   real hands of every seat, the wall shuffled again (:func:`reshuffled`: what no seat
   knows), the same worlds for both actions, heuristic players (the arena's opponents,
   and the heuristic's own continuation) to the end of the hand; the value is the seat's
   mean points. The worlds are seeded by the position alone, never shared with the
   player's own; the players' real cards keep the search's own guesses about them (its
   re-sampled worlds) out of the verdict.

It prints, per player: positions, how often it deviates, its gain per decision with a 95%
interval over positions, that gain times the decisions a seat takes per hand (an
estimate of points per hand against two heuristic players, for one seat), and its
decision CPU p50/p99. The estimate assumes the rest of the hand is played as the
heuristic plays it; the arena (``paohuzi arena``, ``benchmarks/ladder.py``) is the
final word.

A player is a name for :func:`paohuzi.players.make_player` or
``search:samples=N,candidates=K,z=Z,budget=B,fast=F`` for another budget of the search
(``z``: its ``confidence``; ``budget``: as :class:`SearchPlayer` has it; ``fast=0``: its
roll-outs play the heuristic itself, not its quick policy).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import time
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from paohuzi.core.rules import Ruleset
from paohuzi.game.actions import Action, Hu
from paohuzi.game.deal import hand_seed
from paohuzi.game.engine import Hand
from paohuzi.players import Player, make_player, observation_for
from paohuzi.players.heuristic import HeuristicPlayer
from paohuzi.players.search import SearchPlayer, rollout

Position = tuple[int, int]
"""(game, number of actions played before the decision)."""

_SETTINGS: dict[str, object] = {}


def player_of(spec: str, seed: int) -> Player:
    """``spec``: a player name, or ``search:samples=N,candidates=K,z=Z,budget=B,fast=F``
    (each key optional: 5, 2, 1.0, no budget and 1 — the quick roll-out policy; 0: the
    heuristic itself —: ``normal`` before 2026-12-06, which is now
    ``search:samples=8,candidates=3,budget=350``)."""
    if not spec.startswith("search:"):
        return make_player(spec, seed)
    options = dict(part.split("=") for part in spec.split(":", 1)[1].split(","))
    return SearchPlayer(seed, samples=int(options.get("samples", 5)),
                        candidates=int(options.get("candidates", 2)),
                        confidence=float(options.get("z", 1.0)),
                        budget=int(options["budget"]) if "budget" in options else None,
                        fast_rollouts=options.get("fast", "1") == "1")


def _rules() -> Ruleset:
    rules = _SETTINGS.get("rules")
    assert isinstance(rules, Ruleset)
    return rules


def _seed() -> int:
    seed = _SETTINGS.get("seed")
    assert isinstance(seed, int)
    return seed


def _deal(game: int) -> tuple[Hand, list[HeuristicPlayer]]:
    rules = _rules()
    hand = Hand.from_seed(hand_seed(_seed(), game), rules, dealer=0)
    return hand, [HeuristicPlayer(game * 7 + s) for s in range(rules.players)]


@cache
def _game(game: int) -> tuple[tuple[int, ...], tuple[Action, ...]]:
    """The hand's actions (seat, action) as the heuristic players play them: the seats
    and the actions in order."""
    hand, players = _deal(game)
    seats: list[int] = []
    actions: list[Action] = []
    while not hand.ended:
        seat = hand.pending_seats()[0]
        legal = hand.legal_actions(seat)
        action = legal[0] if len(legal) == 1 else \
            players[seat].choose(observation_for(players[seat], hand, seat), legal)
        seats.append(seat)
        actions.append(action)
        hand.act(seat, action)
    return tuple(seats), tuple(actions)


def positions_of(game: int) -> list[Position]:
    """The game's decisions with a choice (more than one legal action, no 胡)."""
    seats, actions = _game(game)
    hand, _ = _deal(game)
    out = []
    for step, (seat, action) in enumerate(zip(seats, actions, strict=True)):
        legal = hand.legal_actions(seat)
        if len(legal) > 1 and not any(isinstance(a, Hu) for a in legal):
            out.append((game, step))
        hand.act(seat, action)
    return out


def at(position: Position) -> tuple[Hand, int, Action]:
    """The hand at ``position``, the deciding seat and the heuristic's own choice."""
    game, step = position
    seats, actions = _game(game)
    hand, _ = _deal(game)
    for seat, action in zip(seats[:step], actions[:step], strict=True):
        hand.act(seat, action)
    return hand, seats[step], actions[step]


def choice_of(task: tuple[str, Position]) -> tuple[str, Position, str, str, float]:
    """A player's choice at a position: (player, position, its action, the heuristic's,
    CPU seconds)."""
    spec, position = task
    hand, seat, heuristic = at(position)
    game, step = position
    player = player_of(spec, game * 1_000_003 + step)
    legal = hand.legal_actions(seat)
    start = time.process_time()
    action = player.choose(observation_for(player, hand, seat), legal)
    spent = time.process_time() - start
    return spec, position, action.text, heuristic.text, spent


def reshuffled(hand: Hand, rng: random.Random) -> Hand:
    """``hand`` with its face-down cards that no seat knows (the wall and the set-aside
    cards) shuffled again: every seat's real cards, another order of the wall. (A
    world re-sampled from the deciding seat's observation would share the search's own
    model of the opponents' hands, and its errors.)"""
    world = hand.copy()
    pool = [*world.wall, *world.set_aside]
    rng.shuffle(pool)
    size = len(world.wall)
    wall, world.set_aside = pool[:size], tuple(pool[size:])
    if world.dipai is not None and world.dipai in wall:  # §9.1: the shown 底牌 stays last
        wall.remove(world.dipai)
        wall.append(world.dipai)
    world.wall = wall
    return world


def values_of(task: tuple[Position, tuple[str, ...], int]
              ) -> tuple[Position, dict[str, list[float]]]:
    """Each action's points over the same ``worlds`` re-sampled worlds."""
    position, texts, worlds = task
    hand, seat, _ = at(position)
    legal = {a.text: a for a in hand.legal_actions(seat)}
    game, step = position
    rng = random.Random(f"worlds:{_seed()}:{game}:{step}")
    out: dict[str, list[float]] = {text: [] for text in texts}
    for _ in range(worlds):
        world_seed = rng.getrandbits(32)
        base = reshuffled(hand, random.Random(world_seed))
        for text in texts:
            out[text].append(rollout(base.copy(), seat, legal[text], world_seed, fast=False))
    return position, out


def gain_of(choice: tuple[str, Position, str, str, float],
            values: dict[Position, dict[str, list[float]]]) -> float:
    """What a choice gains over the heuristic's at its position (0 where they agree)."""
    _, position, action, heuristic, _ = choice
    if action == heuristic:
        return 0.0
    points = values[position]
    return statistics.fmean(points[action]) - statistics.fmean(points[heuristic])


def _interval(values: Sequence[float], scale: float, form: str) -> str:
    """``mean [low, high]`` (95%, over independent positions), times ``scale``."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values))
    return (f"{mean * scale:+{form}} [{(mean - half) * scale:+{form}}, "
            f"{(mean + half) * scale:+{form}}]")


def _init(seed: int, rules: Ruleset) -> None:
    _SETTINGS["seed"] = seed
    _SETTINGS["rules"] = rules


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--first", type=int, default=0, help="the first game's number")
    parser.add_argument("--players", nargs="+", default=["normal"])
    parser.add_argument("--worlds", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--rules", default="qq")
    parser.add_argument("--cache", help="a JSON file keeping the roll-outs' values between "
                        "runs (the worlds depend on the position only)")
    args = parser.parse_args()
    rules = Ruleset.preset(args.rules)
    _init(args.seed, rules)
    started = time.time()
    games = range(args.first, args.first + args.games)
    with multiprocessing.Pool(args.jobs, _init, (args.seed, rules)) as pool:
        positions = [p for found in pool.map(positions_of, games) for p in found]
        per_hand = len(positions) / (len(games) * rules.players)
        print(f"{len(positions)} positions in {len(games)} hands ({args.rules}, seed "
              f"{args.seed}): {per_hand:.1f} decisions with a choice per seat and hand")
        tasks = [(spec, p) for spec in args.players for p in positions]
        choices = pool.map(choice_of, tasks, chunksize=4)
        wanted: dict[Position, set[str]] = {}
        for _, position, action, heuristic, _ in choices:
            if action != heuristic:
                wanted.setdefault(position, {heuristic}).add(action)
        cache_file = Path(args.cache) if args.cache else None
        kept = json.loads(cache_file.read_text()) if cache_file and cache_file.exists() else {}
        prefix = f"{args.rules}:{args.seed}:{args.worlds}:"
        values: dict[Position, dict[str, list[float]]] = {}
        value_tasks = []
        for p, texts in wanted.items():
            known = kept.get(f"{prefix}{p[0]}:{p[1]}", {})
            values[p] = {t: known[t] for t in texts if t in known}
            missing = tuple(sorted(t for t in texts if t not in known))
            if missing:
                value_tasks.append((p, missing, args.worlds))
        for p, found in pool.map(values_of, value_tasks):
            values[p].update(found)
            kept.setdefault(f"{prefix}{p[0]}:{p[1]}", {}).update(found)
        if cache_file:
            cache_file.write_text(json.dumps(kept))
    first: list[float] = []
    for spec in args.players:
        mine = [c for c in choices if c[0] == spec]
        gains = [gain_of(c, values) for c in mine]
        deviations = sum(1 for c in mine if c[2] != c[3])
        times = [c[4] * 1000 for c in mine]
        split = {kind: sum(g for g, c in zip(gains, mine, strict=True)
                           if c[3].startswith("discard") == (kind == "discards")) * per_hand
                 / len(gains) for kind in ("discards", "claims")}
        print(f"{spec}: {deviations} deviations in {len(mine)} decisions; gain per decision "
              f"{_interval(gains, 1.0, '.3f')}; × {per_hand:.1f} decisions = "
              f"{_interval(gains, per_hand, '.2f')} points per hand; decision CPU p50 "
              f"{_percentile(times, 0.5):.1f} ms, p99 {_percentile(times, 0.99):.1f} ms; "
              f"from discards {split['discards']:+.2f}, from claims {split['claims']:+.2f}")
        if first:
            paired = [a - b for a, b in zip(gains, first, strict=True)]
            print(f"  against {args.players[0]} on the same positions: "
                  f"{_interval(paired, per_hand, '.2f')} points per hand")
        else:
            first = gains
    print(f"{len(wanted)} positions valued with {args.worlds} worlds each "
          f"({len(value_tasks)} of them in this run); "
          f"{time.time() - started:.0f} s wall")


if __name__ == "__main__":
    main()
