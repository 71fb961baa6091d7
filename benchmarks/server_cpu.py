"""Server CPU per action, in one process, without sockets: the table loop's own cost.

Run: ``python benchmarks/server_cpu.py [--tables 20] [--actions 3000] [--spectators 1]``
``[--warmup 500] [--profile FILE]``

Each table has 3 seated connections (and ``--spectators`` watching ones) whose
WebSocket is a stub that takes the text it is sent (JSON encoding and everything before
it is measured; the socket write and compression are not: ``benchmarks/server.py``
measures those). Each seat answers every decision it is shown with a random legal
action, sent through the protocol's handler (lock, duplicate check, ack), sends its
shuffle value and votes for the next hand. Reports the process CPU time (user + system,
``time.process_time``) per acknowledged action, and messages and bytes per action, after
``--warmup`` actions that are not counted (the first use of a code path may import a
module; runs before 2026-12-07 counted from the first action). On the 2-core VM the same
tree reads ±15 % from run to run: compare trees in alternating runs.

Run it with another tree's ``src`` on ``PYTHONPATH`` for the figures of older code, in
the same conditions; CPU time barely depends on the machine's load.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import random
import secrets
import time
from typing import Any

from paohuzi.server.connection import Client
from paohuzi.server.messages import Act, Entropy, Next
from paohuzi.server.protocol import handle
from paohuzi.server.server import Server
from paohuzi.server.storage import SQLiteStorage


class StubSocket:
    """Takes what the server sends; counts messages and bytes."""

    def __init__(self) -> None:
        self.messages = 0
        self.bytes = 0

    async def send_text(self, text: str) -> None:
        self.messages += 1
        self.bytes += len(text)

    async def close(self, code: int = 1000) -> None:
        pass


async def drive(tables: int, actions: int, spectators: int, seed: int,
                warmup: int = 0) -> dict[str, float]:
    storage = SQLiteStorage(":memory:")
    server = Server(storage)
    rng = random.Random(seed)
    players = [storage.create_player(f"p{i}")[0] for i in range(3 + spectators)]
    runtimes = []
    sockets: list[StubSocket] = []
    seats: list[list[Client]] = []
    for _ in range(tables):
        table = server.create_room({"seats": ["human"] * 3, "timer": 60, "next_delay": 0.0,
                                    "bot_delay": 0, "claim_window": 0.01})
        runtime = server.runtimes[table.code]
        clients = []
        for i in range(3 + spectators):
            ws = StubSocket()
            sockets.append(ws)
            client = Client(ws, players[i], None)  # type: ignore[arg-type]
            if hasattr(client, "delta"):
                client.delta = True  # what the browser and the bot client ask for
            runtime.connect(client)
            if i < 3:
                table.seats[i].player, table.seats[i].nickname = players[i].id, f"p{i}"
                client.seat = i
                clients.append(client)
            await runtime.send_state(client, snapshot=True)
        async with runtime.lock:
            runtime.schedule()
        runtimes.append(runtime)
        seats.append(clients)
    done = 0
    seq = [[0] * 3 for _ in range(tables)]
    start = time.process_time()
    counted_from, sent_before = 0, (0, 0)
    while done < warmup + actions:
        if warmup and counted_from == 0 and done >= warmup:
            start, counted_from = time.process_time(), done
            sent_before = (sum(w.messages for w in sockets), sum(w.bytes for w in sockets))
        await asyncio.sleep(0.005)
        for t, runtime in enumerate(runtimes):
            table = runtime.table
            for client in seats[t]:
                s = client.seat
                assert s is not None
                n = seq[t][s] + 1
                message: Any = None
                hand = table.hand
                if table.next_secret is not None and s not in table.entropy:
                    message = Entropy(n, table.next_secret[0], secrets.token_hex(16))
                elif hand is None or hand.ended:
                    if s not in runtime.next_votes and not runtime.delivery.pending:
                        message = Next(n)
                elif s in runtime.pending_humans():
                    hand_seat = table.hand_seat(s)
                    assert hand_seat is not None
                    message = Act(n, rng.choice(hand.legal_actions(hand_seat)))
                    done += 1
                if message is not None:
                    seq[t][s] = n
                    await handle(runtime, client, message)
    cpu = time.process_time() - start
    for runtime in runtimes:
        runtime.stop()
    done -= counted_from
    return {"cpu_ms": 1000 * cpu / done, "actions": done,
            "messages": (sum(w.messages for w in sockets) - sent_before[0]) / done,
            "bytes": (sum(w.bytes for w in sockets) - sent_before[1]) / done,
            "hands": sum(r.table.finished_hands for r in runtimes)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--spectators", type=int, default=1)
    parser.add_argument("--warmup", type=int, default=500,
                        help="actions played before the count starts (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", help="write cProfile statistics here")
    args = parser.parse_args()
    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None:
        profiler.enable()
    out = asyncio.run(drive(args.tables, args.actions, args.spectators, args.seed,
                            args.warmup))
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    print(f"{out['actions']:.0f} actions on {args.tables} tables ({args.spectators} "
          f"spectator(s) each), {out['hands']:.0f} hands finished: server CPU "
          f"{out['cpu_ms']:.3f} ms per action (process time), {out['messages']:.1f} "
          f"messages and {out['bytes']:.0f} bytes sent per action; load average "
          f"{os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
