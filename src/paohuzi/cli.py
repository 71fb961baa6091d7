"""The ``paohuzi`` command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from paohuzi.errors import PaohuziError

__all__ = ["main"]

MAX_LINE = 1 << 16
"""Longest question line accepted (64 KiB); a hand question is a few hundred bytes."""


def _answer_line(line: str) -> tuple[dict[str, object], bool]:
    """Answer one JSON question; ``(answer, ok)`` where a malformed one gives ``{"error"}``."""
    from paohuzi.evaluate import evaluate

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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``paohuzi`` console script."""
    args = build_parser().parse_args(argv)
    if args.command == "evaluate":
        return _evaluate(args, sys.stdin, sys.stdout, sys.stderr)
    raise AssertionError(args.command)  # pragma: no cover


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
