"""Server load benchmark: N tables of bot clients over real WebSockets, on this machine.

Run: ``python benchmarks/server.py [--tables 200] [--seconds 60] [--think 1.0]``

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--think", type=float, default=1.0)
    args = parser.parse_args()
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
