"""Quick-match benchmark (issue 16): the queue's wait, and the server's CPU cost of
matching with 1,000 people queued.

Run: ``python benchmarks/matchmaking.py [--queued 1000] [--rate 5] [--minutes 10]``

1. **One pass over 1,000 queued** (:class:`~paohuzi.server.matchmaking.Queue` alone):
   everyone in one 场次 and preset with spread ratings and addresses, and the same
   people spread over every 场次 and preset; CPU milliseconds per pass.
2. **The server's pass** (:class:`~paohuzi.server.matchmaking.Matchmaker` with a real
   :class:`~paohuzi.server.server.Server` and in-memory SQLite): 1,000 players queue,
   one tick seats them all (rooms created, seats logged); CPU seconds and per person.
3. **The wait**: people arrive at ``--rate`` a second (Poisson) into one 场次 for
   ``--minutes``; a pass every 0.5 s, computers after 20 s; the waits seen (median, 90th
   percentile, longest) and how many sat with computers. Repeated at a low rate, where
   most people meet nobody and computers fill their seats.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time

from paohuzi.core.rules import PRESETS, Ruleset
from paohuzi.server.economy import CHANGCI, STARTING_BEANS
from paohuzi.server.matchmaking import Group, MatchSettings, Queue, Ticket
from paohuzi.server.server import Server
from paohuzi.server.storage import SQLiteStorage

SEATS = {name: Ruleset.preset(name).seats for name in PRESETS}


def tickets(n: int, spread: bool, rng: random.Random) -> list[Ticket]:
    keys = [(c.key, p) for c in CHANGCI for p in PRESETS] if spread else [("xinshou", "qq")]
    return [Ticket(i, f"p{i}", f"10.{i % 250}.{i // 250}.1", rng.gauss(0.0, 8.0),
                   *keys[i % len(keys)], since=rng.uniform(0.0, 19.0)) for i in range(n)]


def one_pass(n: int, spread: bool, repeat: int = 5) -> float:
    """CPU milliseconds of one matching pass over ``n`` queued (best of ``repeat``)."""
    best = float("inf")
    for r in range(repeat):
        q = Queue(wait=20.0)
        for t in tickets(n, spread, random.Random(r)):
            q.join(t)
        start = time.process_time()
        q.match(10.0, SEATS)
        best = min(best, time.process_time() - start)
    return best * 1000


def server_pass(n: int) -> tuple[float, int]:
    """CPU seconds of the server's tick seating ``n`` queued players, and rooms made."""
    server = Server(SQLiteStorage(":memory:"), match=MatchSettings(wait=0.0))
    rng = random.Random(3)
    for i in range(n):
        rec, _ = server.storage.create_player(f"p{i}", beans=STARTING_BEANS)
        server.matchmaker.join(rec, f"10.{i % 250}.{i // 250}.1", "xinshou", "qq",
                               now=rng.uniform(0.0, 19.0))
    start = time.process_time()
    seated = asyncio.run(server.matchmaker.tick(now=30.0))
    spent = time.process_time() - start
    assert seated == n, seated
    rooms = len(server.runtimes)
    server.pool.close()
    server.storage.close()
    return spent, rooms


def waits(rate: float, minutes: float, seed: int = 7) -> tuple[list[float], int, int]:
    """Simulated waits (seconds) with arrivals at ``rate`` a second; people seated with
    computers; people seated in all."""
    rng = random.Random(seed)
    q = Queue(wait=20.0)
    arrivals: list[float] = []
    now = 0.0
    while now < minutes * 60:
        now += rng.expovariate(rate)
        arrivals.append(now)
    seen: list[float] = []
    with_computers = 0
    clock, i, pid = 0.0, 0, 0
    while clock < minutes * 60 + 30:
        clock += 0.5
        while i < len(arrivals) and arrivals[i] <= clock:
            q.join(Ticket(pid, "p", f"10.0.{pid // 250}.{pid % 250}", rng.gauss(0.0, 8.0),
                          "xinshou", "qq", arrivals[i]))
            pid, i = pid + 1, i + 1
        for result in q.match(clock, SEATS):
            assert isinstance(result, Group)
            seen += [clock - t.since for t in result.people]
            if len(result.people) < result.seats:
                with_computers += len(result.people)
    return seen, with_computers, len(seen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queued", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=5.0, help="arrivals a second")
    parser.add_argument("--minutes", type=float, default=10.0)
    args = parser.parse_args()
    n = args.queued
    print(f"one pass, {n} queued in one 场次 and preset: {one_pass(n, False):.1f} ms CPU")
    print(f"one pass, {n} queued over {len(CHANGCI) * len(PRESETS)} queues: "
          f"{one_pass(n, True):.1f} ms CPU")
    spent, rooms = server_pass(n)
    print(f"server tick seating {n} queued ({rooms} rooms made): {spent:.2f} s CPU, "
          f"{spent / n * 1000:.2f} ms a person")
    for rate in (args.rate, 0.05):
        seen, alone, total = waits(rate, args.minutes)
        cuts = statistics.quantiles(seen, n=10)
        print(f"wait at {rate:g} arrivals/s over {args.minutes:g} min: median "
              f"{statistics.median(seen):.1f} s, 90th percentile {cuts[-1]:.1f} s, longest "
              f"{max(seen):.1f} s; {alone} of {total} seated with computers")


if __name__ == "__main__":
    main()
