"""Does a message sent right behind a decision tell what the others hold? (timing)

Run: ``python benchmarks/ping_timing.py [--rooms 16] [--hands 4] [--window 0.05]``
``[--level easy] [--src OTHER/src ...]``

The attack a review found after ``benchmarks/ack_timing.py``'s fixes: the decision's own
``ack`` leaves before the engine's work, but a ``ping`` pipelined right behind the
decision was answered once that work was done — ~0.4 ms later when nobody could claim
the discarded card (the engine went on to the next draw) than when someone could.
docs/protocol.md, "Claim windows", says what the server does about it.

One raw WebSocket client per room (seat 0, random legal decisions, a ``ping`` sent right
behind each) plays against two computers of ``--level`` on a ``benchmarks/load_server.py``
process; the server runs on CPU 0 and this process on CPU 1. Each decision is put in a
class from the game records (``ack_timing.classes``: a discard nobody else may claim or
one another seat may claim; a claim answer that resolves the card or one after which
another seat still decides), and for each pair the medians and the AUC (0.5: the classes
cannot be told apart) of send → the decision's ack and send → the ping's answer are
printed. Wall time on loopback; the machine's load is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx
import websockets

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from ack_timing import PAIRS, auc, classes  # noqa: E402
from server import free_port, start_server, stop_servers  # noqa: E402

Timing = tuple[str, int, float, float]
"""(the decision's text, its seq, send → its ack, send → the ping's answer) in ms."""


async def play_room(url: str, hands: int, rng: random.Random) -> list[Timing]:
    """Seat 0 plays ``hands`` hands at random, a ping behind each decision."""
    seq, acted_on, seen_hands = 0, None, set()
    sent: dict[int, tuple[str, float]] = {}  # seq → (what, when)
    acks: dict[int, float] = {}
    pings: dict[int, float] = {}
    async with websockets.connect(url, max_size=2**22, compression=None) as ws:
        while len(seen_hands) < hands:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 30))
            now = time.perf_counter()
            kind = msg.get("type")
            if kind == "welcome":
                seq = max(seq, msg.get("last_seq") or 0)
            elif kind == "ack" and msg.get("seq") in sent:
                what, at = sent[msg["seq"]]
                (pings if what == "ping" else acks)[msg["seq"]] = (now - at) * 1000
            if kind != "state":
                continue
            shuffle = msg.get("next_shuffle")
            if shuffle and not shuffle.get("sent"):
                seq += 1
                await ws.send(json.dumps({"type": "entropy", "seq": seq,
                                          "hand": shuffle["hand"], "value": "ab" * 8}))
            view = msg.get("view") or {}
            if view.get("result") is not None:
                if msg["table"]["hand_no"] not in seen_hands:
                    seen_hands.add(msg["table"]["hand_no"])
                    seq += 1
                    await ws.send(json.dumps({"type": "next", "seq": seq}))
                continue
            legal = view.get("legal_actions") or []
            key = (msg["table"]["hand_no"], msg["events_from"] + len(msg["events"]))
            if not legal or key == acted_on:
                continue
            acted_on = key
            action = rng.choice(legal)
            at = time.perf_counter()
            sent[seq + 1], sent[seq + 2] = (action, at), ("ping", at)
            await ws.send(json.dumps({"type": "act", "seq": seq + 1, "action": action}))
            await ws.send(json.dumps({"type": "ping", "seq": seq + 2}))
            seq += 2
    return [(what, s, acks[s], pings[s + 1]) for s, (what, _) in sorted(sent.items())
            if s in acks and s + 1 in pings]


async def play_rooms(port: int, rooms: int, hands: int, window: float, level: str
                     ) -> list[tuple[str, list[Timing]]]:
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(timeout=30) as http:
        token = (await http.post(f"{base}/api/players", json={"nickname": "probe"})
                 ).json()["token"]
        played = []
        for room in range(rooms):
            reply = await http.post(f"{base}/api/rooms", json={
                "seats": ["human", level, level], "sit": True, "timer": 60,
                "next_delay": 0.2, "bot_delay": 0, "claim_window": window},
                headers={"authorization": f"Bearer {token}"})
            reply.raise_for_status()
            code = reply.json()["code"]
            url = f"ws://127.0.0.1:{port}/ws/{code}?token={token}"
            played.append((code, await play_room(url, hands, random.Random(room))))
    return played


def measure(src: Path, rooms: int, hands: int, window: float, level: str
            ) -> dict[str, list[tuple[float, float]]]:
    from paohuzi.server.storage import SQLiteStorage

    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        database = str(Path(tmp) / "ping.db")
        proc = start_server(src, port, database, cpus={0})
        try:
            played = asyncio.run(play_rooms(port, rooms, hands, window, level))
        finally:
            stop_servers([proc])
        storage = SQLiteStorage(database)
        found: dict[str, list[tuple[float, float]]] = {k: [] for pair in PAIRS for k in pair}
        for code, timings in played:
            mine = iter([(kind, text) for record in storage.games_in_room(code)[:hands]
                         for seat, kind, text in classes(record) if seat == 0])
            for text, _, ack, ping in timings:
                kind = next((k for k, t in mine if t == text), None)
                if kind is not None:
                    found[kind].append((ack, ping))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rooms", type=int, default=16)
    parser.add_argument("--hands", type=int, default=4)
    parser.add_argument("--window", type=float, default=0.05, help="the claim window (s)")
    parser.add_argument("--level", default="easy")
    parser.add_argument("--src", type=Path, action="append")
    args = parser.parse_args()
    os.sched_setaffinity(0, {1})
    for src in args.src or [HERE.parent / "src"]:
        load = os.getloadavg()[0]
        found = measure(src.resolve(), args.rooms, args.hands, args.window, args.level)
        print(f"{src}, two {args.level} computers, claim window {args.window} s "
              f"(load {load:.2f} → {os.getloadavg()[0]:.2f}; ms, wall)")
        for first, second in PAIRS:
            a, b = found[first], found[second]
            if len(a) < 2 or len(b) < 2:
                print(f"  {first} / {second}: too few decisions ({len(a)}, {len(b)})")
                continue
            for k, what in enumerate(("send → ack", "send → ping's")):
                x, y = [t[k] for t in a], [t[k] for t in b]
                print(f"  {what:14s} {first:30s} n={len(x):5d} median "
                      f"{statistics.median(x):7.3f}")
                print(f"  {'':14s} {second:30s} n={len(y):5d} median "
                      f"{statistics.median(y):7.3f}   AUC {auc(x, y):.3f}")


if __name__ == "__main__":
    main()
