"""Helpers of the cluster tests: ``paohuzi serve`` processes on one PostgreSQL and one
Redis, where a room's lease says it is served, and a tiny load balancer."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from server_util import free_port, wait_until_serving


class Process:
    """``paohuzi serve`` as one process of a cluster."""

    def __init__(self, database: str, redis: str,
                 match: tuple[float, float, float] | None = None,
                 limits: dict[str, Any] | None = None) -> None:
        """``match``: quick match's (wait, tick, entry_ttl) seconds, ``limits``: fields of
        :class:`~paohuzi.server.limits.Limits` (tests/cluster_server.py instead of
        ``paohuzi serve``)."""
        self.port = free_port()
        if match is None and limits is not None:
            match = (20.0, 0.5, 30.0)  # MatchSettings' defaults
        command = [sys.executable, "-m", "paohuzi", "serve", "--port", str(self.port),
                   "--database", database, "--redis", redis] if match is None else \
            [sys.executable, str(Path(__file__).parent / "cluster_server.py"), str(self.port),
             database, redis, *(str(x) for x in match),
             *([json.dumps(limits)] if limits is not None else [])]
        self.proc = subprocess.Popen(
            command,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env={**os.environ, "PAOHUZI_DEBUG_STATE_HASH": "1"})
        wait_until_serving(self.base, timeout=30, proc=self.proc)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws(self, room: str) -> str:
        return f"ws://127.0.0.1:{self.port}/ws/{room}"

    def kill9(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:  # pragma: no cover
                self.proc.kill()
                self.proc.wait(timeout=10)


def owner_port(database: str, room: str) -> int:
    """The port of the process whose lease holds ``room``."""
    import psycopg

    with psycopg.connect(database) as conn:
        row = conn.execute("SELECT address FROM room_leases WHERE room = %s", (room,)).fetchone()
    assert row is not None
    return int(str(row[0]).rsplit(":", 1)[1])


class Balancer:
    """A layer-4 (TCP) load balancer on a local port, as HAProxy's or nginx's ``stream``
    mode would be: each new connection goes to the first backend that accepts it, in the
    order given, and its bytes are relayed both ways; when a backend dies its connections
    end with it (HTTP and WebSocket alike, nothing is parsed). Runs in its own thread."""

    def __init__(self, backends: list[int]) -> None:
        self.backends = backends
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.connections: list[int] = []  # the backend port of each connection relayed
        started = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            self._server = self.loop.run_until_complete(
                asyncio.start_server(self._serve, "127.0.0.1", self.port))
            started.set()
            self.loop.run_forever()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        started.wait(10)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for port in self.backends:
            try:
                up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                continue
            self.connections.append(port)
            await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))
            return
        writer.close()

    def stop(self) -> None:
        def close() -> None:
            self._server.close()
            self.loop.stop()

        self.loop.call_soon_threadsafe(close)
        self._thread.join(timeout=10)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy until the end (or an error) of ``reader``, then close ``writer``."""
    with contextlib.suppress(OSError):
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    with contextlib.suppress(OSError):
        writer.close()
