"""Server load benchmark: N tables of bot clients over real WebSockets, on this machine.

Run: ``python benchmarks/server.py [--tables 200] [--seconds 60] [--think 1.0]``
``[--jitter 0.5] [--stagger 10] [--src OTHER/src ...] [--capacity [--refine 2]]``
or, several processes on PostgreSQL and Redis (docs/scaling.md):
``python benchmarks/server.py --processes 1 2 [--capacity] [--database postgresql://…``
``--redis redis://…]`` (without URLs, throwaway PostgreSQL and Redis are started as the
tests do, and their CPU is measured too). ``--server-cpus 0,1 --load-cpus 2-7`` pins
the servers, and the load clients with PostgreSQL and Redis, to CPUs of their own
(on a machine with more cores than the servers are to be measured on).

Each server runs in its own process (``benchmarks/load_server.py``: ``paohuzi serve``
with the rate limits off): alone on a fresh SQLite database, or (``--processes N``) N
of them on a fresh PostgreSQL database and an emptied Redis, room k created through
and played on process k mod N (a load balancer routing by room). This process runs 3
bot clients per table. A bot thinks ``think * (1 ± jitter)`` seconds (uniform) before
each decision, and the tables start at random moments over the first ``stagger``
seconds, so the load is not a synchronised burst. Measured over the ``seconds`` after
every table has started:

* action latency (send → acknowledgement) p50/p99/max, actions per second;
* CPU per action: the server processes' CPU time (user + system, summed) over the
  window divided by the actions acknowledged in it; the same for the load clients
  (this process), and for PostgreSQL's and Redis's process trees (throwaway ones);
* the machine's load average (``os.getloadavg``) at the start and the end — the
  load clients share the machine, so compare figures taken in the same run;
* with N > 1, the failover time: process 0 is killed (-9) after the window, and the
  seconds until another process serves its first room are reported.

``--src`` (repeatable) runs the same load against other source trees too, one after the
other, each with a fresh server (e.g. ``git archive`` of an older commit's ``src``), and
prints each one's figures and the ratios to the first. ``--capacity`` finds the most
tables held at p99 <= ``--p99-limit`` ms (and no error) — per source tree, or per
process count with ``--processes``: ``--tables`` grown by x1.5 until a count fails, then
``--refine`` bisection steps between the last count held and the first failed — and
reports it (and, with ``--processes``, its ratio to the first count).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from paohuzi.server.client import BotClient

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


@dataclass(frozen=True)
class Result:
    """One load run's figures (latencies in ms, CPU per action in ms)."""

    tables: int
    processes: int  # server processes (0: one process on SQLite)
    actions: int
    seconds: float
    p50: float
    p99: float
    max: float
    cpu_per_action_ms: float  # the server processes', summed
    system_share: float  # of the servers' CPU time, the kernel's (sockets)
    server_cpu: float  # in cores
    client_cpu: float  # in cores
    client_per_action_ms: float
    services_per_action_ms: tuple[tuple[str, float], ...]  # PostgreSQL, Redis
    errors: int
    failures: int
    hands: float
    rss_mib: float
    load_start: float
    load_end: float
    client_lag_p99: float = 0.0  # the load clients' event loop: how late a 10 ms sleep woke
    error_kinds: tuple[tuple[str, int], ...] = ()  # the commonest error messages, counted
    first_room: str = ""  # created on (owned by) the first process
    failover: float | None = None  # seconds from kill -9 to the room served again

    @property
    def held(self) -> bool:
        """Whether the servers held this load (set by :func:`main` for its limit)."""
        return self.errors == 0 and self.failures == 0 and self.actions > 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_seconds(pid: int) -> tuple[float, float]:
    """A process's CPU time so far: (user, system) seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def tree_cpu(root: int) -> tuple[float, float]:
    """The CPU time so far of a process and its live descendants (PostgreSQL's backends),
    with what its exited children used (user, system seconds)."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, tuple[int, int, int, int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # exited meanwhile
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        times[pid] = (int(fields[11]), int(fields[12]), int(fields[13]), int(fields[14]))
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    user = sum(times[p][0] for p in tree if p in times) + times.get(root, (0, 0, 0, 0))[2]
    system = sum(times[p][1] for p in tree if p in times) + times.get(root, (0, 0, 0, 0))[3]
    return user / tick, system / tick


@dataclass(frozen=True)
class Watched:
    """The processes whose CPU a run measures: the servers, and services (name, root)."""

    servers: tuple[int, ...]
    services: tuple[tuple[str, int], ...] = ()

    def snapshot(self) -> tuple[float, float, tuple[float, ...]]:
        """Servers' (user, system) seconds, and each service's seconds."""
        times = [tree_cpu(pid) for pid in self.servers]
        return (sum(t[0] for t in times), sum(t[1] for t in times),
                tuple(sum(tree_cpu(pid)) for _, pid in self.services))


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def percentile(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


async def make_rooms(ports: list[int], tables: int) -> tuple[list[str], list[str]]:
    """Three players' tokens, and ``tables`` rooms: room k created through (so owned by)
    process k mod N, as a load balancer routing by room would."""
    async with httpx.AsyncClient(timeout=30) as http:
        first = f"http://127.0.0.1:{ports[0]}"
        tokens = [(await http.post(f"{first}/api/players",
                                   json={"nickname": f"bot{i}"})).json()["token"]
                  for i in range(3)]
        codes = []
        for k in range(tables):
            reply = await http.post(f"http://127.0.0.1:{ports[k % len(ports)]}/api/rooms", json={
                "seats": ["human"] * 3, "timer": 60, "next_delay": 1.0, "bot_delay": 0},
                headers={"authorization": f"Bearer {tokens[0]}"})
            reply.raise_for_status()
            codes.append(reply.json()["code"])
    return tokens, codes


async def load(ports: list[int], watched: Watched, args: argparse.Namespace,
               tables: int) -> Result:
    """``tables`` tables of 3 bots on the servers at ``ports`` (room k on process k mod N),
    started at random moments over ``args.stagger`` seconds, measured over
    ``args.seconds`` once every table has started."""
    tokens, codes = await make_rooms(ports, tables)
    rng = random.Random(args.seed)
    starts = [rng.uniform(0, args.stagger) for _ in codes]
    bots = [BotClient(f"ws://127.0.0.1:{ports[t % len(ports)]}/ws/{code}", tokens[s], seat=s,
                      seed=args.seed + t * 3 + s, think=args.think, jitter=args.jitter,
                      transport=args.client, keep_messages=False)
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
    lags: list[float] = []

    async def watch_loop() -> None:  # a busy client loop would add to every latency
        while True:
            before = time.monotonic()
            await asyncio.sleep(0.01)
            lags.append(time.monotonic() - before - 0.01)

    watcher = asyncio.create_task(watch_loop())
    load_start = os.getloadavg()[0]
    user0, system0, services0 = watched.snapshot()
    own0, wall0 = time.process_time(), time.monotonic()
    await asyncio.sleep(args.seconds)
    wall = time.monotonic() - wall0
    user1, system1, services1 = watched.snapshot()
    watcher.cancel()
    user, system = user1 - user0, system1 - system0
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
    per_action = 1000 / actions if actions else 0.0
    return Result(
        tables=tables, processes=len(ports) if watched.services else 0, actions=actions,
        seconds=wall,
        p50=1000 * statistics.median(latencies) if latencies else 0.0,
        p99=1000 * percentile(latencies, 0.99), max=1000 * latencies[-1] if latencies else 0.0,
        cpu_per_action_ms=server_cpu * per_action,
        system_share=system / server_cpu if server_cpu else 0.0,
        server_cpu=server_cpu / wall, client_cpu=client_cpu / wall,
        client_per_action_ms=client_cpu * per_action,
        services_per_action_ms=tuple(
            (name, (after - before) * per_action) for (name, _), before, after
            in zip(watched.services, services0, services1, strict=True)),
        errors=sum(len(b.errors) for b in bots), failures=crashed,
        hands=sum(b.hands_seen for b in bots) / 3,
        rss_mib=sum(rss_mib(pid) for pid in watched.servers),
        load_start=load_start, load_end=load_end, first_room=codes[0] if codes else "",
        client_lag_p99=1000 * percentile(sorted(lags), 0.99),
        error_kinds=tuple(Counter(e[:80] for b in bots for e in b.errors).most_common(3)))


def cpu_list(text: str) -> set[int]:
    """CPUs as ``taskset`` lists them: ``0,1`` or ``2-7`` or ``0,4-5``."""
    out: set[int] = set()
    for part in text.split(","):
        first, _, last = part.partition("-")
        out.update(range(int(first), int(last or first) + 1))
    return out


def pin(pids: list[int], cpus: set[int] | None) -> None:
    """Run ``pids`` and their descendants (PostgreSQL's backends) on ``cpus`` only;
    children forked later inherit it."""
    if cpus is None:
        return
    for root in pids:
        for pid in tree_pids(root):
            with contextlib.suppress(OSError):
                os.sched_setaffinity(pid, cpus)


def tree_pids(root: int) -> set[int]:
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                parents[int(entry.name)] = int(
                    (entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    tree, grew = {root}, True
    while grew:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grew = bool(more)
    return tree


def start_server(src: Path, port: int, database: str, redis: str | None = None,
                 profile: str | None = None,
                 cpus: set[int] | None = None) -> subprocess.Popen[bytes]:
    """``benchmarks/load_server.py`` from ``src`` on ``port`` (on ``cpus``), once it
    answers."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    env.pop("PAOHUZI_PROFILE", None)
    if profile:
        env["PAOHUZI_PROFILE"] = profile
    proc = subprocess.Popen([sys.executable, str(HERE / "load_server.py"), str(port), database,
                             *([redis] if redis else [])], stdout=subprocess.DEVNULL, env=env)
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/rooms/x", timeout=0.5)
            pin([proc.pid], cpus)
            return proc
        except httpx.HTTPError:
            if time.monotonic() > deadline or proc.poll() is not None:
                proc.kill()
                raise
            time.sleep(0.05)


def stop_servers(procs: list[subprocess.Popen[bytes]]) -> None:
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


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


class Services:
    """The PostgreSQL and Redis of ``--processes``: those given by URL, else throwaway
    ones started as the tests do (tests/services.py), whose CPU is then measured too."""

    def __init__(self, database: str | None, redis: str | None) -> None:
        self.started: list[Any] = []
        self.database, self.redis = database, redis
        self.pg: Any = None
        self.watched: list[tuple[str, int]] = []
        if database is None or redis is None:
            sys.path.insert(0, str(HERE.parent / "tests"))
            from services import ThrowawayPostgres, ThrowawayRedis

            if database is None:
                self.pg = ThrowawayPostgres()
                self.started.append(self.pg)
                pid = (self.pg.data / "postmaster.pid").read_text().split()[0]
                self.watched.append(("PostgreSQL", int(pid)))
            if redis is None:
                cache = ThrowawayRedis()
                self.started.append(cache)
                self.redis = cache.url
                self.watched.append(("Redis", cache.proc.pid))

    def fresh(self) -> tuple[str, str]:
        """A fresh database (throwaway PostgreSQL) and an emptied Redis."""
        import redis as redis_client

        assert self.redis is not None
        client = redis_client.Redis.from_url(self.redis)
        client.flushall()
        client.close()
        database = self.pg.fresh_database() if self.pg is not None else self.database
        assert database is not None
        return database, self.redis

    def stop(self) -> None:
        for service in self.started:
            service.stop()


def run_cluster(n: int, tables: int, args: argparse.Namespace, services: Services,
                profile: str | None) -> Result:
    """``tables`` tables on ``n`` fresh processes sharing PostgreSQL and Redis; with
    ``n`` > 1 the failover time of process 0's first room after its kill -9."""
    database, redis = services.fresh()
    ports = [free_port() for _ in range(n)]
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for i, port in enumerate(ports):
            procs.append(start_server(SRC, port, database, redis,
                                      profile and (profile if i == 0 else f"{profile}.{i}"),
                                      args.server_cpus))
        watched = Watched(tuple(p.pid for p in procs), tuple(services.watched))
        result = asyncio.run(load(ports, watched, args, tables))
        if n > 1 and result.first_room:
            result = dataclasses.replace(
                result, failover=failover_seconds(procs, ports, result.first_room))
        return result
    finally:
        stop_servers(procs)


def run_once(src: Path, tables: int, args: argparse.Namespace, profile: str | None) -> Result:
    """Start a fresh server from ``src`` on a fresh SQLite file, load it, stop it."""
    port = free_port()
    with tempfile.TemporaryDirectory() as folder:
        proc = start_server(src, port, str(Path(folder) / "load.db"), profile=profile,
                            cpus=args.server_cpus)
        try:
            return asyncio.run(load([port], Watched((proc.pid,)), args, tables))
        finally:
            stop_servers([proc])


def held(r: Result, limit: float) -> bool:
    """Whether a run held its tables: p99 within ``limit`` ms, no error."""
    return r.held and r.p99 <= limit


def capacity(measure: Callable[[int], Result], start: int, limit: float,
             refine: int) -> int:
    """The most tables held at p99 <= ``limit`` ms: ``start`` grown by x1.5 until a count
    fails (or shrunk by /1.5 until one holds), then ``refine`` bisection steps between
    the last count held and the first failed (so a ratio is not quantised by 1.5)."""
    good, bad, tables = 0, 0, start
    while tables > 0:
        if held(measure(tables), limit):
            good = tables
            if bad:
                break
            tables = max(tables + 1, int(tables * 1.5))
        else:
            bad = tables
            if good:
                break
            tables = int(tables / 1.5)
    for _ in range(refine):
        if not (good and bad) or bad - good <= max(1, good // 50):
            break
        tables = (good + bad) // 2
        if held(measure(tables), limit):
            good = tables
        else:
            bad = tables
    return good


def report(name: str, r: Result) -> None:
    kinds = "; ".join(f"{n} x {text!r}" for text, n in r.error_kinds)
    print(f"{name}: {r.tables} tables, {r.actions} actions in {r.seconds:.0f} s "
          f"({r.actions / r.seconds:.0f}/s), hands {r.hands:.0f}, "
          f"errors {r.errors}{f' ({kinds})' if kinds else ''}, client failures {r.failures}")
    services = "".join(f", {name} {ms:.3f}" for name, ms in r.services_per_action_ms)
    print(f"  latency p50 {r.p50:.1f} ms, p99 {r.p99:.1f} ms, max {r.max:.1f} ms; "
          f"server CPU {r.cpu_per_action_ms:.3f} ms/action "
          f"({100 * r.system_share:.0f}% of it in the kernel; {100 * r.server_cpu:.0f}% of a "
          f"core); CPU ms/action: load clients {r.client_per_action_ms:.3f}{services} "
          f"(load clients {100 * r.client_cpu:.0f}% of a core, their loop late by "
          f"{r.client_lag_p99:.1f} ms p99); "
          f"{r.rss_mib:.0f} MiB; load average {r.load_start:.2f} -> {r.load_end:.2f}"
          + (f"; failover after kill -9 {r.failover:.1f} s" if r.failover is not None
             else ""), flush=True)


def processes_main(args: argparse.Namespace) -> None:
    """``--processes N…``: the load on N processes sharing PostgreSQL and Redis, for each
    N in turn (fresh processes, database and Redis each run); with ``--capacity``, the
    most tables each N holds, and their ratio to the first N."""
    services = Services(args.database, args.redis)
    pin([pid for _, pid in services.watched], args.load_cpus)
    profile = os.environ.get("PAOHUZI_PROFILE")
    most: dict[int, int] = {}
    try:
        for n in args.processes:
            def measure(tables: int, n: int = n) -> Result:
                r = run_cluster(n, tables, args, services, profile)
                report(f"{n} process(es)", r)
                return r

            if args.capacity:
                most[n] = capacity(measure, args.tables, args.p99_limit, args.refine)
            else:
                measure(args.tables)
    finally:
        services.stop()
    first = args.processes[0]
    for n, count in most.items():
        ratio = f" (x{count / most[first]:.2f} of {first})" if most[first] and n != first \
            else ""
        print(f"{n} process(es): most tables held at p99 <= {args.p99_limit:.0f} ms: "
              f"{count or 'none'}{ratio}", flush=True)


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
                        help="grow --tables by x1.5 until p99 exceeds --p99-limit, then "
                             "refine by bisection")
    parser.add_argument("--refine", type=int, default=2,
                        help="bisection steps of --capacity after the x1.5 steps")
    parser.add_argument("--p99-limit", type=float, default=50.0)
    parser.add_argument("--processes", type=int, nargs="+", default=None,
                        help="run on N processes sharing PostgreSQL and Redis, for each N")
    parser.add_argument("--database", default=None, help="postgresql:// URL (--processes)")
    parser.add_argument("--redis", default=None, help="redis:// URL (--processes)")
    parser.add_argument("--client-loop", choices=["uvloop", "asyncio"], default="uvloop",
                        help="the load clients' event loop (uvloop: less CPU per action, "
                             "as the servers' uvicorn uses)")
    parser.add_argument("--client", choices=["picows", "websockets"], default="picows",
                        help="the load clients' WebSocket library (picows: frames handled "
                             "in a callback, no task per message, so the clients take "
                             "little of the cores the servers share; it does not ask for "
                             "compression)")
    parser.add_argument("--server-cpus", type=cpu_list, default=None,
                        help="run the server processes on these CPUs only (e.g. 0,1)")
    parser.add_argument("--load-cpus", type=cpu_list, default=None,
                        help="run the load clients, and the throwaway PostgreSQL and "
                             "Redis, on these CPUs only (e.g. 2-7)")
    args = parser.parse_args()
    if args.client == "picows":
        try:
            import picows  # noqa: F401
        except ImportError:
            parser.error("--client picows needs picows: pip install -e '.[bench]' "
                         "(or --client websockets)")
    pin([os.getpid()], args.load_cpus)
    if args.client_loop == "uvloop":  # the load clients' loop (uvicorn[standard] brings it)
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    print(f"{os.cpu_count()} cores, servers and load clients ({args.client}, "
          f"{args.client_loop}) on this machine; think "
          f"{args.think} s ± {100 * args.jitter:.0f}%, starts over {args.stagger:.0f} s, "
          f"window {args.seconds:.0f} s; load average at start {os.getloadavg()[0]:.2f}",
          flush=True)
    if args.processes:
        processes_main(args)
        return
    sources = [SRC, *args.src]
    profile = os.environ.get("PAOHUZI_PROFILE")  # cProfile the (first) server process
    if args.capacity:
        most = {}
        for i, src in enumerate(sources):
            def measure(tables: int, src: Path = src, i: int = i) -> Result:
                r = run_once(src, tables, args, profile if i == 0 else None)
                report(str(src), r)
                return r

            most[src] = capacity(measure, args.tables, args.p99_limit, args.refine)
        for src in sources:
            print(f"{src}: most tables held at p99 <= {args.p99_limit:.0f} ms: "
                  f"{most[src] or 'none'}")
        return
    results = []
    for i, src in enumerate(sources):
        r = run_once(src, args.tables, args, profile if i == 0 else None)
        report(str(src), r)
        results.append(r)
    first = results[0]
    for src, r in zip(sources[1:], results[1:], strict=True):
        print(f"  {src} / {sources[0]}: CPU per action x"
              f"{r.cpu_per_action_ms / max(first.cpu_per_action_ms, 1e-9):.2f}, "
              f"p99 x{r.p99 / max(first.p99, 1e-9):.2f}")


if __name__ == "__main__":
    main()
