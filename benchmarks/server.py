"""Server load benchmark: N tables of bot clients over real WebSockets, on this machine.

Run: ``python benchmarks/server.py [--tables 200] [--seconds 60] [--think 1.0]``
or, several processes on PostgreSQL and Redis (docs/scaling.md):
``python benchmarks/server.py --processes 1 2 [--database postgresql://… --redis redis://…]``
(without URLs, throwaway PostgreSQL and Redis are started as the tests do).

The server runs as ``paohuzi serve`` in its own process with a fresh SQLite
database; this process runs 3 bot clients per table (people-like: each waits
``--think`` seconds before each decision, so every seat acts about once a
second when it is its turn). Reports action latency (send → acknowledgement)
p50/p99/max, errors, hands finished and the server's memory.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from paohuzi.server.client import BotClient


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def run(tables: int, seconds: float, think: float, port: int) -> dict[str, float]:
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        tokens = [(await http.post("/api/players", json={"nickname": f"bot{i}"})).json()["token"]
                  for i in range(3)]
        codes = []
        for _ in range(tables):
            reply = await http.post("/api/rooms", json={
                "seats": ["human"] * 3, "timer": 60, "next_delay": 1.0, "bot_delay": 0},
                headers={"authorization": f"Bearer {tokens[0]}"})
            codes.append(reply.json()["code"])
    bots = [BotClient(f"ws://127.0.0.1:{port}/ws/{code}", tokens[s], seat=s,
                      seed=t * 3 + s, think=think, keep_messages=False)
            for t, code in enumerate(codes) for s in range(3)]
    start = time.monotonic()
    tasks = [asyncio.create_task(b.play(10**6, timeout=seconds + 30)) for b in bots]
    await asyncio.sleep(seconds)
    elapsed = time.monotonic() - start
    for task in tasks:
        task.cancel()
    results = await asyncio.gather(*tasks, return_exceptions=True)
    crashed = sum(1 for r in results if isinstance(r, Exception)
                  and not isinstance(r, asyncio.CancelledError))
    latencies = sorted(x for b in bots for x in b.latencies)
    errors = sum(len(b.errors) for b in bots)
    hands = sum(b.hands_seen for b in bots) / 3
    return {
        "actions": len(latencies),
        "actions_per_s": len(latencies) / elapsed,
        "p50_ms": 1000 * statistics.median(latencies) if latencies else 0.0,
        "p99_ms": 1000 * latencies[int(0.99 * len(latencies))] if latencies else 0.0,
        "max_ms": 1000 * latencies[-1] if latencies else 0.0,
        "errors": errors,
        "client_failures": crashed,
        "hands": hands,
    }


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--think", type=float, default=1.0)
    parser.add_argument("--processes", type=int, nargs="+", default=None,
                        help="run on N processes sharing PostgreSQL and Redis, for each N")
    parser.add_argument("--database", default=None, help="postgresql:// URL (--processes)")
    parser.add_argument("--redis", default=None, help="redis:// URL (--processes)")
    args = parser.parse_args()
    if args.processes:
        processes_main(args.processes, args.tables, args.seconds, args.think, args.database,
                       args.redis)
        return
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        prefix = [sys.executable, "-m", "cProfile", "-o", os.environ["PAOHUZI_PROFILE"]] \
            if os.environ.get("PAOHUZI_PROFILE") else [sys.executable]
        proc = subprocess.Popen([*prefix, "-m", "paohuzi", "serve", "--port", str(port),
                                 "--database", str(Path(folder) / "load.db")],
                                stdout=subprocess.DEVNULL)
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
            idle = rss_mib(proc.pid)
            cpu0, own0, wall0 = cpu_seconds(proc.pid), time.process_time(), time.monotonic()
            out = asyncio.run(run(args.tables, args.seconds, args.think, port))
            wall = time.monotonic() - wall0
            server_cpu = (cpu_seconds(proc.pid) - cpu0) / wall
            client_cpu = (time.process_time() - own0) / wall
            peak = rss_mib(proc.pid)
        finally:
            os.kill(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
    print(f"{args.tables} tables x 3 seats, {args.seconds:.0f} s, think {args.think} s, "
          f"server and load on this machine ({os.cpu_count()} cores)")
    print(f"actions: {out['actions']} ({out['actions_per_s']:.0f}/s), hands finished: "
          f"{out['hands']:.0f}")
    print(f"latency send->ack: p50 {out['p50_ms']:.1f} ms, p99 {out['p99_ms']:.1f} ms, "
          f"max {out['max_ms']:.1f} ms")
    print(f"errors: {out['errors']}, client failures: {out['client_failures']}")
    print(f"server memory: {idle:.0f} MiB idle, {peak:.0f} MiB under load")
    print(f"CPU: server {100 * server_cpu:.0f}% of a core, load clients {100 * client_cpu:.0f}%")


if __name__ == "__main__":
    main()
