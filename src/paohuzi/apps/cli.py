"""The ``paohuzi`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from paohuzi.core.errors import PaohuziError

__all__ = ["main"]

MAX_LINE = 1 << 16
"""Longest question line accepted (64 KiB); a hand question is a few hundred bytes."""


def _answer_line(line: str) -> tuple[dict[str, object], bool]:
    """Answer one JSON question; ``(answer, ok)`` where a malformed one gives ``{"error"}``."""
    from paohuzi.apps.evaluate import evaluate

    if len(line) > MAX_LINE:
        return {"error": f"question longer than {MAX_LINE} bytes"}, False
    try:
        question = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"error": f"malformed JSON: {exc}"}, False
    try:
        return evaluate(question), True
    except PaohuziError as exc:
        return {"error": str(exc)}, False
    except RecursionError:
        return {"error": "question nested too deeply"}, False


def _evaluate(args: argparse.Namespace, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> int:
    if args.jsonl:
        for line in stdin:
            # every input line gets exactly one answer line, a blank one an error
            answer, _ = _answer_line(line) if line.strip() else ({"error": "empty line"}, False)
            stdout.write(json.dumps(answer, ensure_ascii=False) + "\n")
            stdout.flush()
        return 0
    text = stdin.read()
    answer, ok = _answer_line(text)
    if not ok:
        stderr.write(f"paohuzi evaluate: {answer['error']}\n")
        return 2
    stdout.write(json.dumps(answer, ensure_ascii=False, indent=args.indent) + "\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paohuzi", description="跑胡子 (Paohuzi): rules engine, solver and tools")
    sub = parser.add_subparsers(dest="command", required=True)
    ev = sub.add_parser(
        "evaluate", help="answer a JSON question about a hand (stdin) with JSON (stdout)",
        description="Read one JSON question on stdin, write one JSON answer on stdout. "
                    "Exit 2 with a one-line error on stderr when the question is malformed.")
    ev.add_argument("--jsonl", action="store_true",
                    help="one question per input line, one answer per output line; "
                         "a malformed line gets an {\"error\": ...} line and the batch goes on")
    ev.add_argument("--indent", type=int, default=None, help="pretty-print the answer")

    sim = sub.add_parser("simulate", help="play hands between random legal players",
                         description="Play N hands with random legal players and print "
                                     "hands per second, win/draw rates, mean winning 胡息 "
                                     "and the frequency of each 名堂.")
    sim.add_argument("--games", type=int, default=1000)
    sim.add_argument("--seed", type=int, default=0)
    sim.add_argument("--rules", default="qq", help="preset: qq, changde, hunan, two-player, luzhou")
    sim.add_argument("--records", type=Path, default=None, help="save each hand's record here")

    pl = sub.add_parser("play", help="play in the terminal against two computer players",
                        description="Play hand after hand in the terminal against computer "
                                    "players; choose actions by number, q to leave.")
    pl.add_argument("--rules", default="qq", help="preset: qq, changde, hunan, two-player, luzhou")
    pl.add_argument("--seed", type=int, default=None)
    pl.add_argument("--hands", type=int, default=None, help="stop after this many hands")

    ar = sub.add_parser("arena", help="computer players against each other on duplicate deals",
                        description="Play duplicate deals (every player in every seat) and "
                                    "report points per hand with 95%% confidence intervals.")
    ar.add_argument("--players", required=True,
                    help="comma-separated: random, heuristic, search, easy, normal, hard, expert")
    ar.add_argument("--deals", type=int, default=100)
    ar.add_argument("--seed", type=int, default=0)
    ar.add_argument("--rules", default="qq")
    ar.add_argument("--jobs", type=int, default=1, help="worker processes")
    ar.add_argument("--out", type=Path, default=Path("arena-report"))

    sv = sub.add_parser("serve", help="run the game server (needs the server extra)",
                        description="Serve the game over HTTP and WebSocket with an embedded "
                                    "SQLite database, or PostgreSQL.")
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=8000)
    sv.add_argument("--database", default=None,
                    help="SQLite file (default: paohuzi.db in the user data folder) or a "
                         "postgresql://user@host/db URL (needs the postgres extra)")
    sv.add_argument("--redis", default=None,
                    help="redis://host:port URL: run as one of several processes sharing a "
                         "PostgreSQL --database (docs/scaling.md)")
    sv.add_argument("--advertise", default=None,
                    help="the http://host:port where the other processes reach this one "
                         "(default: http://HOST:PORT)")

    rep = sub.add_parser("replay", help="replay a game record step by step",
                         description="Replay a game record (JSON) through the engine, print "
                                     "each step and the settlement; fail if it does not "
                                     "reach the recorded result.")
    rep.add_argument("file", type=Path)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``paohuzi`` console script."""
    args = build_parser().parse_args(argv)
    if args.command == "evaluate":
        return _evaluate(args, sys.stdin, sys.stdout, sys.stderr)
    if args.command == "simulate":
        from paohuzi.apps.simulate import main as simulate_main
        from paohuzi.core.rules import Ruleset

        if args.games < 1:
            sys.stderr.write("paohuzi simulate: --games must be at least 1\n")
            return 2
        try:
            rules = Ruleset.preset(args.rules)
        except PaohuziError as exc:
            sys.stderr.write(f"paohuzi simulate: {exc}\n")
            return 2
        return simulate_main(args.games, args.seed, rules, args.records)
    if args.command == "play":
        from paohuzi.apps.play import play
        from paohuzi.core.rules import Ruleset

        try:
            rules = Ruleset.preset(args.rules)
        except PaohuziError as exc:
            sys.stderr.write(f"paohuzi play: {exc}\n")
            return 2
        return play(sys.stdin, sys.stdout, rules, args.seed, args.hands)
    if args.command == "arena":
        from paohuzi.core.rules import Ruleset
        from paohuzi.players import EXPERIMENTAL, PLAYER_NAMES
        from paohuzi.players.arena import main as arena_main

        names = [n.strip() for n in args.players.split(",") if n.strip()]
        unknown = [n for n in names if n not in (*PLAYER_NAMES, *EXPERIMENTAL)]
        try:
            rules = Ruleset.preset(args.rules)
        except PaohuziError as exc:
            sys.stderr.write(f"paohuzi arena: {exc}\n")
            return 2
        if unknown or len(names) != rules.players or args.deals < 1 or args.jobs < 1:
            sys.stderr.write(
                f"paohuzi arena: need {rules.players} players from "
                f"{', '.join(PLAYER_NAMES)}, --deals and --jobs of at least 1"
                + (f"; unknown: {', '.join(unknown)}" if unknown else "") + "\n")
            return 2
        return arena_main(names, args.deals, args.seed, rules, args.jobs, args.out)
    if args.command == "serve":
        from paohuzi.server.serve import main as serve_main

        return serve_main(args.host, args.port, args.database, args.redis, args.advertise)
    if args.command == "replay":
        from paohuzi.game.record import describe

        try:
            text = args.file.read_text(encoding="utf-8")
            lines = describe(text)
        except OSError as exc:
            sys.stderr.write(f"paohuzi replay: cannot read {args.file}: {exc.strerror}\n")
            return 2
        except PaohuziError as exc:
            sys.stderr.write(f"paohuzi replay: {exc}\n")
            return 2
        sys.stdout.write("\n".join(lines) + "\n")
        return 0
    raise AssertionError(args.command)  # pragma: no cover


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
