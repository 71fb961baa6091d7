"""Message flood from one address: how much of the server's CPU one address can take
while keeping every per-connection, per-account and per-address bound.

Run: ``python benchmarks/flood.py [--seconds 8] [--modes resync-deflate resync ping]``
``[--rate 28] [--workers 2] [--budgets default off]``

For each mode and each budget setting a fresh server process is started (this file run
with ``--serve``: ``create_app`` under ``uvicorn_config`` with the default ``Limits``,
``frames_per_address`` replaced when ``--budgets`` says ``off``) on 127.0.0.1. The
attacker is one address, 127.0.0.2 (its HTTP requests and sockets are bound to it), and
does what the bounds let it: 13 accounts (``players_per_address``: 30 at once), a quick
room against computers each (the account seated; ``max_open_rooms_per_address``: 32),
then up to 200 connections (``connections_per_address``): each room's owner once, and
the accounts spectating each other's rooms 3 connections per account and room
(``MAX_CONNECTIONS_PER_PLAYER``) up to 16 spectators a room (``max_spectators``),
at most 40 per account (``connections_per_account``). The connections are spread over
``--workers`` load processes; each connection sends ``--rate`` frames a second (under
the per-connection 30) of the mode's kind:

* ``resync-deflate``: ``{"type":"resync"}`` with permessage-deflate offered (each is
  answered with the full state, ~2 KB, compressed);
* ``resync``: the same without compression offered;
* ``ping``: ``{"type":"ping"}`` (answered with an ack).

A normal player at another table, from 127.0.0.1, sends a ping every 0.1 s and times its
ack. Reported per run: the server process tree's CPU (``/proc/PID/stat`` user + system,
its computer workers included) per second, idle (connections open, no flood) and
flooding; the frames the attacker sent and the answers it got per second (states,
errors, acks); server CPU per frame; the connections the server closed; the normal
player's ping p50/p99/max. The load processes share the machine: the server may get
less than a core, and then the frames answered a second fall short of what was sent;
compare figures of the same run.

Figures of 2026-12-06 (2 cores shared with another job and the load processes;
``--seconds 8``; ``off`` is the tree before the budget, ``default`` 300 at once then
100 a second; cpu in cores, ping of the player at another table in ms)::

    mode            budget  conns closed   cpu  sent/s states/s errors/s  us/frame  ping p50/p99
    resync-deflate  off       200      0  0.36    5587     4889      445        65   270 / 841
    resync-deflate  default   200    192  0.03     252      137       91        81   0.8 / 4.6
    resync          off       200      0  0.33    5587     5571       16        58    49 / 174
    resync          default   200    193  0.04     334      137      172        93   0.5 / 11
    ping            off       200      0  0.31    5586        0        0        55   0.6 / 3.4
    ping            default   200    178  0.03     307        0      145        85   0.6 / 9.7

Without the budget one address held a third of a core (the server kept up: it answered
what was sent); a faster core does more frames a second, but an IPv6 site rotating
through its /64s (200 connections each) or several addresses multiply it. With it, the
flooding connections are closed within the second (reconnecting: 10 a second,
``connections_per_address``). An attacker staying under the closing rule (``--rate 1.25``:
250 frames a second from 200 connections) got 100 states a second (after the burst)
and 100 errors, 0.06 of a core either way (the tests were running beside it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ATTACKER = "127.0.0.2"
PLAYER = "127.0.0.1"
ACCOUNTS = 13
SPECTATORS = 16
PER_ROOM = 3
PER_ACCOUNT = 40
CONNECTIONS = 200


# ---- the server process -------------------------------------------------------------

def serve(port: int, database: str, budget: str) -> None:
    import uvicorn

    from paohuzi.server.app import create_app
    from paohuzi.server.limits import Limits
    from paohuzi.server.serve import tune_gc
    from paohuzi.server.transport import uvicorn_config

    limits = Limits()
    if budget == "off" and "frames_per_address" in Limits.__dataclass_fields__:
        # (a tree from before the budget has none: off is what it does)
        limits = Limits(frames_per_address=None)
    app = create_app(database=database, limits=limits)
    server = uvicorn.Server(uvicorn_config(app, "0.0.0.0", port, limits,
                                           log_level="warning"))
    tune_gc()
    server.run()


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of ``pid`` and its children now."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = text.rsplit(")", 1)[1].split()
        if int(entry) == pid or int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / ticks
    return total


# ---- the attacker's setup (HTTP, from its address) -----------------------------------

def setup(base: str) -> tuple[list[tuple[str, str, bool]], str, str]:
    """Accounts and rooms from the attacker's address; the connections it may open, as
    (room, token, seated); and a normal player's room and token (from 127.0.0.1)."""
    import httpx

    attacker = httpx.Client(base_url=base, transport=httpx.HTTPTransport(
        local_address=ATTACKER), timeout=10)
    tokens: list[str] = []
    for i in range(ACCOUNTS):
        reply = attacker.post("/api/players", json={"nickname": f"flood{i}"})
        reply.raise_for_status()
        tokens.append(reply.json()["token"])
    rooms: list[str] = []
    for token in tokens:
        reply = attacker.post("/api/rooms/quick", json={"level": "easy", "timer": 120},
                              headers={"authorization": f"Bearer {token}"})
        reply.raise_for_status()
        rooms.append(reply.json()["code"])
    plan: list[tuple[str, str, bool]] = [(code, tokens[i], True) for i, code in
                                         enumerate(rooms)]
    per_account = [1] * ACCOUNTS
    watching = [0] * len(rooms)
    while len(plan) < CONNECTIONS:
        placed = False
        for r, code in enumerate(rooms):
            for a in range(ACCOUNTS):
                if a == r or len(plan) >= CONNECTIONS:
                    continue
                if watching[r] + PER_ROOM > SPECTATORS or \
                        per_account[a] + PER_ROOM > PER_ACCOUNT:
                    continue
                if any(c == code and t == tokens[a] for c, t, _ in plan):
                    continue
                take = min(PER_ROOM, CONNECTIONS - len(plan))
                plan += [(code, tokens[a], False)] * take
                watching[r] += take
                per_account[a] += take
                placed = True
        if not placed:
            break
    player = httpx.Client(base_url=base, transport=httpx.HTTPTransport(
        local_address=PLAYER), timeout=10)
    reply = player.post("/api/players", json={"nickname": "normal"})
    token = reply.json()["token"]
    reply = player.post("/api/rooms/quick", json={"level": "easy", "timer": 120},
                        headers={"authorization": f"Bearer {token}"})
    return plan, reply.json()["code"], token


# ---- a load process -------------------------------------------------------------------

async def _flood(ws_base: str, plan: list[tuple[str, str, bool]], mode: str, rate: float,
                 start: float, seconds: float) -> dict[str, Any]:
    import websockets

    counts: dict[str, float] = {"sent": 0, "state": 0, "error": 0, "ack": 0, "other": 0,
                                "bytes": 0, "closed": 0, "refused": 0, "opened": 0}
    compression = "deflate" if mode == "resync-deflate" else None
    kind = "ping" if mode == "ping" else "resync"

    async def one(code: str, token: str, index: int) -> None:
        try:
            ws = await websockets.connect(f"{ws_base}/ws/{code}?token={token}",
                                          compression=compression, max_size=None,
                                          local_addr=(ATTACKER, 0), open_timeout=30)
        except Exception:
            counts["refused"] += 1
            return
        seq = 0
        first = json.loads(await ws.recv())
        if first.get("type") != "welcome":
            counts["refused"] += 1
            await ws.close()
            return
        counts["opened"] += 1
        seq = int(first.get("last_seq") or 0)
        measuring = False

        async def reader() -> None:
            try:
                async for raw in ws:
                    if not measuring:
                        continue
                    counts["bytes"] += len(raw)
                    head = raw[:40]
                    key = "state" if '"state"' in head or '"delta"' in head else \
                        "error" if '"error"' in head else "ack" if '"ack"' in head else "other"
                    counts[key] += 1
            except websockets.ConnectionClosed:
                pass
            if time.time() < start + seconds:
                counts["closed"] += 1

        task = asyncio.create_task(reader())
        await asyncio.sleep(max(0.0, start - time.time()) + index * (1.0 / rate) / 50)
        measuring = True
        step = 1.0 / rate
        due = time.monotonic()
        end = time.monotonic() + (start + seconds - time.time())
        try:
            while time.monotonic() < end and not task.done():
                seq += 1
                await ws.send(json.dumps({"type": kind, "seq": seq}))
                counts["sent"] += 1
                due += step
                await asyncio.sleep(max(0.0, due - time.monotonic()))
        except websockets.ConnectionClosed:
            pass
        measuring = False
        await ws.close()
        task.cancel()

    await asyncio.gather(*(one(c, t, i) for i, (c, t, _) in enumerate(plan)))
    return counts


def worker(args: tuple[str, list[tuple[str, str, bool]], str, float, float, float],
           out: Any) -> None:
    out.put(asyncio.run(_flood(*args)))


async def normal_player(ws_base: str, code: str, token: str, start: float,
                        seconds: float) -> list[float]:
    """Ping round trips (seconds) of a player at another table, during the flood."""
    import websockets

    async with websockets.connect(f"{ws_base}/ws/{code}?token={token}",
                                  local_addr=(PLAYER, 0), max_size=None) as ws:
        seq = int(json.loads(await ws.recv()).get("last_seq") or 0)
        times: list[float] = []
        pending: dict[int, float] = {}

        async def reader() -> None:
            async for raw in ws:
                msg = json.loads(raw)
                if msg.get("type") == "ack" and msg.get("seq") in pending:
                    times.append(time.monotonic() - pending.pop(msg["seq"]))

        task = asyncio.create_task(reader())
        await asyncio.sleep(max(0.0, start - time.time()))
        while time.time() < start + seconds:
            seq += 1
            pending[seq] = time.monotonic()
            await ws.send(json.dumps({"type": "ping", "seq": seq}))
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)
        task.cancel()
        return times


def run_one(mode: str, budget: str, rate: float, seconds: float, workers: int) -> dict[str, Any]:
    import httpx

    with tempfile.TemporaryDirectory() as tmp:
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        proc = subprocess.Popen([sys.executable, __file__, "--serve", str(port),
                                 str(Path(tmp) / "g.db"), budget])
        base, ws_base = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    httpx.get(f"{base}/api/rooms/x", timeout=0.5)
                    break
                except httpx.HTTPError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise RuntimeError("server did not start") from None
                    time.sleep(0.1)
            plan, code, token = setup(base)
            settle = 4.0 + len(plan) / 40  # connecting, welcome and snapshot each
            start = time.time() + settle
            queue: Any = mp.Queue()
            procs = [mp.Process(target=worker, args=((ws_base, plan[i::workers], mode, rate,
                                                      start, seconds), queue))
                     for i in range(workers)]
            for p in procs:
                p.start()
            time.sleep(settle - 2.0)
            idle0 = tree_cpu(proc.pid)
            time.sleep(1.5)
            idle = (tree_cpu(proc.pid) - idle0) / 1.5
            pings_task = None

            async def watch() -> tuple[float, list[float]]:
                nonlocal pings_task
                pings_task = asyncio.create_task(normal_player(ws_base, code, token,
                                                               start + 1.0, seconds - 1.5))
                await asyncio.sleep(max(0.0, start + 0.5 - time.time()))
                cpu0 = tree_cpu(proc.pid)
                t0 = time.monotonic()
                await asyncio.sleep(seconds - 1.0)
                cpu = (tree_cpu(proc.pid) - cpu0) / (time.monotonic() - t0)
                return cpu, await pings_task

            cpu, pings = asyncio.run(watch())
            results = [queue.get(timeout=120) for _ in procs]
            for p in procs:
                p.join(timeout=30)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    total = {k: sum(r[k] for r in results) for k in results[0]}
    per_s = {k: total[k] / seconds for k in ("sent", "state", "error", "ack", "bytes")}
    pings.sort()
    return {"mode": mode, "budget": budget, "connections": total["opened"],
            "refused": total["refused"], "closed": total["closed"], "idle_cpu": idle,
            "cpu": cpu, **per_s,
            "us_per_frame": (cpu - idle) / per_s["sent"] * 1e6 if per_s["sent"] else 0.0,
            "ping_p50": statistics.median(pings) * 1000 if pings else float("nan"),
            "ping_p99": pings[int(len(pings) * 0.99) - 1] * 1000 if pings else float("nan"),
            "ping_max": pings[-1] * 1000 if pings else float("nan"), "pings": len(pings)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serve", nargs=3, metavar=("PORT", "DATABASE", "BUDGET"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rate", type=float, default=28.0,
                        help="frames a second per connection (the limit is 30)")
    parser.add_argument("--workers", type=int, default=2, help="load processes")
    parser.add_argument("--modes", nargs="+", default=["resync-deflate", "resync", "ping"],
                        choices=["resync-deflate", "resync", "ping"])
    parser.add_argument("--budgets", nargs="+", default=["default", "off"],
                        choices=["default", "off"],
                        help="the per-address frame budget as Limits() has it, or off")
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), args.serve[1], args.serve[2])
        return
    print(f"{'mode':15} {'budget':7} {'conns':>5} {'closed':>6} {'idle':>5} {'cpu':>5} "
          f"{'sent/s':>7} {'states/s':>8} {'errors/s':>8} {'acks/s':>7} {'KB/s':>6} "
          f"{'us/frame':>8} {'ping p50/p99/max ms':>20}")
    for mode in args.modes:
        for budget in args.budgets:
            r = run_one(mode, budget, args.rate, args.seconds, args.workers)
            print(f"{r['mode']:15} {r['budget']:7} {r['connections']:5.0f} {r['closed']:6.0f} "
                  f"{r['idle_cpu']:5.2f} {r['cpu']:5.2f} {r['sent']:7.0f} {r['state']:8.0f} "
                  f"{r['error']:8.0f} {r['ack']:7.0f} {r['bytes'] / 1024:6.0f} "
                  f"{r['us_per_frame']:8.0f} "
                  f"{r['ping_p50']:6.1f}/{r['ping_p99']:6.1f}/{r['ping_max']:6.1f}", flush=True)


if __name__ == "__main__":
    main()
