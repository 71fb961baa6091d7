"""Server load benchmark: N tables of bot clients over real WebSockets, on this machine.

Run: ``python benchmarks/server.py [--tables 200] [--seconds 60] [--think 1.0]``
``[--jitter 0.5] [--stagger 10] [--src OTHER/src ...] [--capacity]``
or, several processes on PostgreSQL and Redis (docs/scaling.md):
``python benchmarks/server.py --processes 1 2 [--database postgresql://… --redis redis://…]``
(without URLs, throwaway PostgreSQL and Redis are started as the tests do).

The server runs in its own process (``benchmarks/load_server.py``: ``paohuzi serve``
with the rate limits off) with a fresh SQLite database; this process runs 3 bot
clients per table. A bot thinks ``think * (1 ± jitter)`` seconds (uniform) before each
decision, and the tables start at random moments over the first ``stagger`` seconds, so
the load is not a synchronised burst. Measured over the ``seconds`` after every table
has started:

* action latency (send → acknowledgement) p50/p99/max;
* server CPU per action: the server process's CPU time (user + system) over the
  window divided by the actions acknowledged in it;
* the machine's load average (``os.getloadavg``) at the start and the end — the
  load clients share the machine, so compare figures taken in the same run.

``--src`` (repeatable) runs the same load against other source trees too, one after the
other, each with a fresh server (e.g. ``git archive`` of an older commit's ``src``), and
prints each one's figures and the ratios to the first. ``--capacity`` tries
``--tables`` and then larger counts (x1.5) until p99 exceeds ``--p99-limit`` ms and
reports the most tables held.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from paohuzi.server.client import BotClient

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


@dataclass(frozen=True)
class Result:
    """One load run's figures (latencies in ms)."""

    tables: int
    actions: int
    seconds: float
    p50: float
    p99: float
    max: float
    cpu_per_action_ms: float
    system_share: float  # of the server's CPU time, the kernel's (sockets)
    server_cpu: float  # share of one core
    client_cpu: float
    errors: int
    failures: int
    hands: float
    rss_mib: float
    load_start: float
    load_end: float


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> tuple[float, float]:
    """A process's CPU time so far: (user, system) seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


async def load(port: int, pid: int, args: argparse.Namespace, tables: int) -> Result:
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        tokens = [(await http.post("/api/players", json={"nickname": f"bot{i}"})).json()["token"]
                  for i in range(3)]
        codes = []
        for _ in range(tables):
            reply = await http.post("/api/rooms", json={
                "seats": ["human"] * 3, "timer": 60, "next_delay": 1.0, "bot_delay": 0},
                headers={"authorization": f"Bearer {tokens[0]}"})
            reply.raise_for_status()
            codes.append(reply.json()["code"])
    rng = random.Random(args.seed)
    starts = [rng.uniform(0, args.stagger) for _ in codes]
    bots = [BotClient(f"ws://127.0.0.1:{port}/ws/{code}", tokens[s], seat=s,
                      seed=args.seed + t * 3 + s, think=args.think, jitter=args.jitter,
                      keep_messages=False)
            for t, code in enumerate(codes) for s in range(3)]
    total = args.stagger + args.seconds

    async def play(bot: BotClient, delay: float) -> None:
        await asyncio.sleep(delay)
        await bot.play(10**6, timeout=total + 30)

    tasks = [asyncio.create_task(play(b, starts[i // 3] + 0.2 * (i % 3)))
             for i, b in enumerate(bots)]
    await asyncio.sleep(args.stagger + 0.5)
    for b in bots:  # the window starts once every table has started
        b.latencies.clear()
    load_start = os.getloadavg()[0]
    cpu0, own0, wall0 = cpu_seconds(pid), time.process_time(), time.monotonic()
    await asyncio.sleep(args.seconds)
    wall = time.monotonic() - wall0
    cpu1 = cpu_seconds(pid)
    user, system = cpu1[0] - cpu0[0], cpu1[1] - cpu0[1]
    server_cpu = user + system
    client_cpu = time.process_time() - own0
    latencies = sorted(x for b in bots for x in b.latencies)
    load_end = os.getloadavg()[0]
    for task in tasks:
        task.cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    crashed = sum(1 for r in results if isinstance(r, Exception)
                  and not isinstance(r, asyncio.CancelledError))
    actions = len(latencies)
    return Result(
        tables=tables, actions=actions, seconds=wall,
        p50=1000 * statistics.median(latencies) if latencies else 0.0,
        p99=1000 * percentile(latencies, 0.99), max=1000 * latencies[-1] if latencies else 0.0,
        cpu_per_action_ms=1000 * server_cpu / actions if actions else 0.0,
        system_share=system / server_cpu if server_cpu else 0.0,
        server_cpu=server_cpu / wall, client_cpu=client_cpu / wall,
        errors=sum(len(b.errors) for b in bots), failures=crashed,
        hands=sum(b.hands_seen for b in bots) / 3, rss_mib=rss_mib(pid),
        load_start=load_start, load_end=load_end)


def start_serve(args: list[str], port: int) -> subprocess.Popen[bytes]:
    """``paohuzi serve`` on ``port`` with ``args``, once it answers."""
    proc = subprocess.Popen([sys.executable, "-m", "paohuzi", "serve", "--port", str(port),
                             *args], stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/rooms/x", timeout=0.5)
            return proc
        except httpx.HTTPError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise
            time.sleep(0.05)


async def run_cluster(ports: list[int], tables: int, seconds: float,
                      think: float) -> dict[str, Any]:
    """Like :func:`run`, the rooms spread over several processes: room k is created
    through, and played on, process k mod N (a load balancer routing by room)."""
    tokens = []
    async with httpx.AsyncClient(timeout=30) as http:
        base = f"http://127.0.0.1:{ports[0]}"
        for i in range(3):
            reply = await http.post(f"{base}/api/players", json={"nickname": f"bot{i}"})
            tokens.append(reply.json()["token"])
        rooms = []
        for t in range(tables):
            port = ports[t % len(ports)]
            reply = await http.post(f"http://127.0.0.1:{port}/api/rooms", json={
                "seats": ["human"] * 3, "timer": 60, "next_delay": 1.0, "bot_delay": 0},
                headers={"authorization": f"Bearer {tokens[0]}"})
            rooms.append((port, reply.json()["code"]))
    bots = [BotClient(f"ws://127.0.0.1:{port}/ws/{code}", tokens[s], seat=s,
                      seed=t * 3 + s, think=think, keep_messages=False)
            for t, (port, code) in enumerate(rooms) for s in range(3)]
    start = time.monotonic()
    tasks = [asyncio.create_task(b.play(10**6, timeout=seconds + 30)) for b in bots]
    await asyncio.sleep(seconds)
    elapsed = time.monotonic() - start
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    latencies = sorted(x for b in bots for x in b.latencies)
    return {
        "actions": len(latencies),
        "actions_per_s": len(latencies) / elapsed,
        "p50_ms": 1000 * statistics.median(latencies) if latencies else 0.0,
        "p99_ms": 1000 * latencies[int(0.99 * len(latencies))] if latencies else 0.0,
        "errors": sum(len(b.errors) for b in bots),
        "first_room": rooms[0][1],  # created on (owned by) the first process
    }


def failover_seconds(procs: list[subprocess.Popen[bytes]], ports: list[int],
                     code: str) -> float:
    """kill -9 the owner of ``code`` (process 0), and the seconds until another
    process serves it."""
    os.kill(procs[0].pid, signal.SIGKILL)
    procs[0].wait(timeout=10)
    killed = time.monotonic()
    while time.monotonic() - killed < 60:
        for port in ports[1:]:
            try:
                got = httpx.get(f"http://127.0.0.1:{port}/api/rooms/{code}", timeout=1,
                                follow_redirects=True)
                if got.status_code == 200:
                    return time.monotonic() - killed
            except httpx.HTTPError:
                pass
        time.sleep(0.05)
    return float("inf")


def services(database: str | None, redis: str | None) -> tuple[str, str, list[Any]]:
    """The PostgreSQL and Redis URLs to use: those given, else throwaway ones."""
    started: list[Any] = []
    if database is None or redis is None:
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        from services import ThrowawayPostgres, ThrowawayRedis

        if database is None:
            pg = ThrowawayPostgres()
            started.append(pg)
            database = pg.fresh_database()
        if redis is None:
            cache = ThrowawayRedis()
            started.append(cache)
            redis = cache.url
    return database, redis, started


def processes_main(counts: list[int], tables: int, seconds: float, think: float,
                   database: str | None, redis: str | None) -> None:
    """``--processes N…``: the same load on N processes sharing PostgreSQL and Redis,
    for each N in turn (a fresh database each); p50/p99, CPU per action, and the
    failover time after a kill -9 of one process."""
    base_db, redis_url, started = services(database, redis)
    try:
        for n in counts:
            db = base_db
            if started and hasattr(started[0], "fresh_database"):
                db = started[0].fresh_database()
            import redis as redis_client

            redis_client.Redis.from_url(redis_url).flushall()
            ports = [free_port() for _ in range(n)]
            procs = [start_serve(["--database", db, "--redis", redis_url], port)
                     for port in ports]
            try:
                cpu0 = sum(cpu_seconds(p.pid) for p in procs)
                out = asyncio.run(run_cluster(ports, tables, seconds, think))
                cpu = sum(cpu_seconds(p.pid) for p in procs) - cpu0
                failover = failover_seconds(procs, ports, str(out["first_room"])) \
                    if n > 1 else None
            finally:
                for p in procs:
                    if p.poll() is None:
                        p.terminate()
                        p.wait(timeout=10)
            per_action = 1000 * cpu / out["actions"] if out["actions"] else 0.0
            print(f"{n} process(es), {tables} tables x 3 seats, {seconds:.0f} s, think "
                  f"{think} s: {out['actions']:.0f} actions ({out['actions_per_s']:.0f}/s), "
                  f"p50 {out['p50_ms']:.1f} ms, p99 {out['p99_ms']:.1f} ms, "
                  f"server CPU {per_action:.2f} ms per action, errors {out['errors']:.0f}"
                  + (f", failover after kill -9 {failover:.1f} s" if failover else ""),
                  flush=True)
    finally:
        for service in started:
            service.stop()


def run_once(src: Path, tables: int, args: argparse.Namespace, profile: str | None) -> Result:
    """Start a fresh server from ``src``, load it, stop it."""
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        env = {**os.environ, "PYTHONPATH": str(src)}
        env.pop("PAOHUZI_PROFILE", None)
        if profile:
            env["PAOHUZI_PROFILE"] = profile
        proc = subprocess.Popen([sys.executable, str(HERE / "load_server.py"), str(port),
                                 str(Path(folder) / "load.db")],
                                stdout=subprocess.DEVNULL, env=env)
        try:
            deadline = time.monotonic() + 20
            while True:
                try:
                    httpx.get(f"http://127.0.0.1:{port}/", timeout=0.5)
                    break
                except httpx.HTTPError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
            return asyncio.run(load(port, proc.pid, args, tables))
        finally:
            os.kill(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)


def report(src: Path, r: Result) -> None:
    print(f"{src}: {r.tables} tables, {r.actions} actions in {r.seconds:.0f} s "
          f"({r.actions / r.seconds:.0f}/s), hands {r.hands:.0f}, "
          f"errors {r.errors}, client failures {r.failures}")
    print(f"  latency p50 {r.p50:.1f} ms, p99 {r.p99:.1f} ms, max {r.max:.1f} ms; "
          f"server CPU {r.cpu_per_action_ms:.3f} ms/action "
          f"({100 * r.system_share:.0f}% of it in the kernel; {100 * r.server_cpu:.0f}% of a "
          f"core), load clients {100 * r.client_cpu:.0f}%; "
          f"{r.rss_mib:.0f} MiB; load average {r.load_start:.2f} -> {r.load_end:.2f}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0,
                        help="measured window, after every table has started")
    parser.add_argument("--think", type=float, default=1.0, help="mean think time (s)")
    parser.add_argument("--jitter", type=float, default=0.5,
                        help="think times uniform in think * (1 ± jitter)")
    parser.add_argument("--stagger", type=float, default=10.0,
                        help="tables start at random moments over this many seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--src", type=Path, action="append", default=[],
                        help="another source tree to measure the same way (repeatable)")
    parser.add_argument("--capacity", action="store_true",
                        help="grow --tables by x1.5 until p99 exceeds --p99-limit")
    parser.add_argument("--p99-limit", type=float, default=50.0)
    parser.add_argument("--processes", type=int, nargs="+", default=None,
                        help="run on N processes sharing PostgreSQL and Redis, for each N")
    parser.add_argument("--database", default=None, help="postgresql:// URL (--processes)")
    parser.add_argument("--redis", default=None, help="redis:// URL (--processes)")
    args = parser.parse_args()
    if args.processes:
        processes_main(args.processes, args.tables, args.seconds, args.think, args.database,
                       args.redis)
        return
    sources = [SRC, *args.src]
    profile = os.environ.get("PAOHUZI_PROFILE")  # cProfile the (first) server process
    print(f"{os.cpu_count()} cores, server and load clients on this machine; think "
          f"{args.think} s ± {100 * args.jitter:.0f}%, starts over {args.stagger:.0f} s, "
          f"window {args.seconds:.0f} s; load average at start {os.getloadavg()[0]:.2f}")
    tables = args.tables
    held: dict[Path, int] = {}
    while True:
        results = []
        for i, src in enumerate(sources):
            r = run_once(src, tables, args, profile if i == 0 else None)
            report(src, r)
            results.append(r)
            if r.p99 <= args.p99_limit and r.errors == 0 and r.failures == 0:
                held[src] = max(held.get(src, 0), tables)
        for src, r in zip(sources[1:], results[1:], strict=True):
            first = results[0]
            print(f"  {src} / {sources[0]}: CPU per action x"
                  f"{r.cpu_per_action_ms / max(first.cpu_per_action_ms, 1e-9):.2f}, "
                  f"p99 x{r.p99 / max(first.p99, 1e-9):.2f}")
        if not args.capacity or all(r.p99 > args.p99_limit for r in results):
            break
        tables = int(tables * 1.5)
    if args.capacity:
        for src in sources:
            print(f"{src}: most tables held at p99 <= {args.p99_limit:.0f} ms: "
                  f"{held.get(src, 0) or 'none tried'}")


if __name__ == "__main__":
    main()
