"""Does the acknowledgement of a decision tell what the others hold? (a timing side channel)

Run: ``python benchmarks/ack_timing.py [--rooms 6] [--hands 4] [--opponents computers]``
``[--level easy] [--parallel 1] [--pin] [--src OTHER/src ...]``

One bot client per room, alone in this process (the attacker: no think time), plays
seat 0 over a real WebSocket against a ``benchmarks/load_server.py`` process, with two
computers of ``--level`` (``--opponents computers``, the default) or two more bot clients in
this process (``--opponents humans``: then the latencies of all three are kept, and
their own sends and reads on the client side blur the classes); every decision's
latency (send → its ``ack``; for a discard also send → the state showing it) is kept.
Afterwards each hand is replayed from its game record and every decision put in a class
by what the engine did after it — which only the server knows:

* a discard **nobody else may claim** (the engine goes on to the next draw at once) or
  one **another seat may claim** (the engine stops and waits);
* a claim answer (pass, 吃, 碰) **that resolves the card** (the last open option) or one
  **after which another seat still decides**.

Use ``--pin`` (the server on CPU 0, this process on CPU 1): on one machine's loopback
the kernel wakes the reading client on the CPU of the server that wrote to it, so an
ack already written still reaches the client later when the server goes on working
(~0.4 ms here, AUC 0.63 unpinned for acks sent before the engine's work) — an artifact
of measuring on one machine that a client across a network does not see.

For each pair the script prints the median latencies of both and the AUC: the chance
that a latency of the first class exceeds one of the second (0.5: the classes cannot be
told apart; the further from 0.5, the more a player learns about others' hidden options
from his own messages). Wall time on localhost; the machine's load is printed, and the classes of
one pair are measured in the same run, interleaved.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from server import free_port, start_server, stop_servers  # noqa: E402

from paohuzi.core.rules import Ruleset  # noqa: E402
from paohuzi.game.actions import Action, Discard  # noqa: E402
from paohuzi.game.deal import Deal  # noqa: E402
from paohuzi.game.engine import Hand  # noqa: E402
from paohuzi.server.client import BotClient  # noqa: E402
from paohuzi.server.storage import SQLiteStorage  # noqa: E402

PAIRS = (("discard: nobody may claim", "discard: another may claim"),
         ("answer: resolves the card", "answer: another still decides"))


def classes(record: dict[str, Any]) -> list[tuple[int, str | None, str]]:
    """(match seat, class or None, action) of each decision of a hand, in the record's
    order."""
    rules = Ruleset.from_json(record["rules"])
    seats = record.get("match_seats") or list(range(rules.seats))
    deal = Deal.from_seed(int(record["deal"]["seed"]), rules, int(record["deal"]["dealer"]))
    hand = Hand(rules, deal)
    out: list[tuple[int, str | None, str]] = []
    for step in record["actions"]:
        seat, action = int(step["seat"]), Action.from_text(step["action"])
        claim_before = hand.claim
        hand.act(seat, action)
        kind: str | None = None
        if isinstance(action, Discard):
            waiting = hand.claim is not None and hand.claim.card == action.card \
                and any(s != seat for s in hand.claim.options)
            kind = PAIRS[0][1] if waiting else PAIRS[0][0]
        elif claim_before is not None:
            still = hand.claim is claim_before or (
                hand.claim is not None and hand.claim.card == claim_before.card
                and hand.claim.context == claim_before.context and not hand.ended)
            kind = PAIRS[1][1] if still else PAIRS[1][0]
        out.append((seats[seat], kind, action.text))
    return out


def auc(high: list[float], low: list[float]) -> float:
    """P(a value of ``high`` > one of ``low``), ties counting a half (Mann–Whitney)."""
    pooled = sorted([(v, 0) for v in high] + [(v, 1) for v in low])
    rank_sum, i = 0.0, 0
    while i < len(pooled):
        j = i
        while j < len(pooled) and pooled[j][0] == pooled[i][0]:
            j += 1
        mid = (i + j + 1) / 2  # 1-based mean rank of the tie group
        rank_sum += mid * sum(1 for k in range(i, j) if pooled[k][1] == 0)
        i = j
    n, m = len(high), len(low)
    return (rank_sum - n * (n + 1) / 2) / (n * m)


async def play_rooms(port: int, rooms: int, hands: int, humans: bool, parallel: int,
                     level: str = "easy") -> list[tuple[str, list[BotClient]]]:
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(timeout=30) as http:
        tokens = [(await http.post(f"{base}/api/players", json={"nickname": f"t{i}"})
                   ).json()["token"] for i in range(3)]
        played = []
        for _ in range(rooms):
            reply = await http.post(f"{base}/api/rooms", json={
                "seats": ["human"] * 3 if humans else ["human", level, level],
                "timer": 60, "next_delay": 0.2, "bot_delay": 0, "claim_window": 0.05},
                headers={"authorization": f"Bearer {tokens[0]}"})
            reply.raise_for_status()
            code = reply.json()["code"]
            bots = [BotClient(f"ws://127.0.0.1:{port}/ws/{code}", tokens[s], seat=s,
                              seed=1000 * len(played) + s) for s in range(3 if humans else 1)]
            played.append((code, bots))
    # ``parallel`` rooms at a time (1: a room's latencies are not mixed with another's work)
    for first in range(0, len(played), parallel):
        await asyncio.gather(*(b.play(hands, timeout=900)
                               for _, bots in played[first:first + parallel] for b in bots))
    return played


def timings(bot: BotClient) -> list[tuple[float, float]]:
    """Per acknowledged decision of ``bot``, in order: (send → ack, send → the state that
    shows it) in ms; the second only for a discard (NaN otherwise: what follows an
    answer comes a claim window later). A state released before the discard arrived
    may still come after its ack: the one that shows it holds its event."""
    sent_to_ack = dict(zip((seq for seq, _ in bot.acked), bot.latencies, strict=True))
    action = dict(bot.acked)
    out = []
    for i, msg in enumerate(bot.messages):
        latency = sent_to_ack.get(msg.get("seq", -1)) if msg.get("type") == "ack" else None
        if latency is None:
            continue
        sent, shown = bot.received_at[i] - latency, float("nan")
        if action[msg["seq"]].startswith("discard"):
            shown = next((bot.received_at[j] for j in range(i + 1, len(bot.messages))
                          if bot.messages[j].get("type") == "state" and any(
                              e.get("kind") == "discard" and e.get("seat") == bot.seat
                              for e in bot.messages[j].get("events", []))), float("nan"))
        out.append((latency * 1000, (shown - sent) * 1000))
    return out


def measure(src: Path, rooms: int, hands: int, humans: bool, parallel: int,
            pin: bool = False, level: str = "easy") -> dict[str, list[tuple[float, float]]]:
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        database = str(Path(tmp) / "ack.db")
        proc = start_server(src, port, database, cpus={0} if pin else None)
        try:
            played = asyncio.run(play_rooms(port, rooms, hands, humans, parallel, level))
        finally:
            stop_servers([proc])
        storage = SQLiteStorage(database)
        found: dict[str, list[tuple[float, float]]] = {k: [] for pair in PAIRS for k in pair}
        for code, bots in played:
            per_seat: dict[int, list[tuple[str | None, str]]] = {0: [], 1: [], 2: []}
            for record in storage.games_in_room(code)[:hands]:
                for seat, kind, text in classes(record):
                    per_seat[seat].append((kind, text))
            for seat, bot in enumerate(bots):
                times = timings(bot)
                recorded = iter(per_seat[seat])
                for (_, text), pair in zip(bot.acked, times, strict=True):
                    # a decision whose ack never came (the bot stopped first) is skipped
                    kind = next((k for k, t in recorded if t == text), "none left")
                    if kind == "none left":
                        raise SystemExit(f"room {code} seat {seat}: an ack of {text!r} "
                                         "that no recorded decision matches")
                    if kind is not None:
                        found[kind].append(pair)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=6)
    parser.add_argument("--hands", type=int, default=4)
    parser.add_argument("--opponents", choices=("computers", "humans"), default="computers")
    parser.add_argument("--level", default="easy",
                        help="the computers' level (a searching one thinks in claim windows)")
    parser.add_argument("--parallel", type=int, default=1, help="rooms played at once")
    parser.add_argument("--pin", action="store_true",
                        help="the server on CPU 0, this process on CPU 1")
    parser.add_argument("--src", type=Path, action="append")
    args = parser.parse_args()
    if args.pin:
        os.sched_setaffinity(0, {1})
    for src in args.src or [HERE.parent / "src"]:
        load = os.getloadavg()[0]
        found = measure(src.resolve(), args.rooms, args.hands, args.opponents == "humans",
                        args.parallel, args.pin, args.level)
        print(f"{src}, opponents: {args.opponents}"
              f"{'' if args.opponents == 'humans' else ' ' + args.level} (load {load:.2f} → "
              f"{os.getloadavg()[0]:.2f}; ms, wall)")
        for first, second in PAIRS:
            a, b = found[first], found[second]
            if not a or not b:
                print(f"  {first} / {second}: too few decisions ({len(a)}, {len(b)})")
                continue
            for k, what in enumerate(("send → ack", "send → shown")):
                x = [t[k] for t in a if t[k] == t[k]]
                y = [t[k] for t in b if t[k] == t[k]]
                if not x or not y:
                    continue
                print(f"  {what:18s} {first:30s} n={len(x):5d} median "
                      f"{statistics.median(x):7.3f}")
                print(f"  {'':18s} {second:30s} n={len(y):5d} median "
                      f"{statistics.median(y):7.3f}   AUC {auc(x, y):.3f}")


if __name__ == "__main__":
    main()
