"""Run the real server (uvicorn, real sockets) for tests."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from paohuzi.game.actions import Hu, Pass
from paohuzi.server.app import create_app
from paohuzi.server.limits import Limits
from paohuzi.server.matchmaking import MatchSettings
from paohuzi.server.transport import uvicorn_config

FAST_WINDOW = 0.05
"""The claim window of the rooms tests make, unless they say otherwise (seconds)."""


def until(check: Any, timeout: float = 15.0) -> Any:
    """Call ``check`` every 50 ms until it answers something true or ``timeout`` seconds
    pass; its last answer."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def wait_until_serving(base: str, timeout: float = 20.0,
                       proc: subprocess.Popen[bytes] | None = None) -> None:
    """Wait until a server process a test started answers HTTP at ``base``; a process
    that exits first is reported with the end of its standard error."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.stderr.read().decode()[-2000:]}"
                               if proc.stderr else "server exited")
        try:
            httpx.get(f"{base}/api/rooms/x", timeout=0.5)
            return
        except httpx.HTTPError:
            time.sleep(0.05)
    raise RuntimeError("server did not start")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    def __init__(self, database: str, limits: Limits | None = None,
                 match: MatchSettings | None = None, computer_processes: bool = True) -> None:
        self.port = free_port()
        self.app = create_app(database=database, limits=limits, match=match,
                              computer_processes=computer_processes)
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        self._server = uvicorn.Server(uvicorn_config(self.app, "127.0.0.1", self.port, limits,
                                                     log_level="warning"))
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    @property
    def server(self) -> Any:
        return self.app.state.server

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)

    def player(self, nickname: str = "测试") -> tuple[int, str]:
        reply = httpx.post(f"{self.base}/api/players", json={"nickname": nickname})
        reply.raise_for_status()
        return reply.json()["player"]["id"], reply.json()["token"]

    def room(self, token: str, **options: Any) -> str:
        options.setdefault("claim_window", FAST_WINDOW)
        reply = httpx.post(f"{self.base}/api/rooms", json=options,
                           headers={"authorization": f"Bearer {token}"})
        assert reply.status_code == 200, reply.text
        return str(reply.json()["code"])

    def quick(self, token: str, **options: Any) -> str:
        options.setdefault("claim_window", FAST_WINDOW)
        reply = httpx.post(f"{self.base}/api/rooms/quick", json=options,
                           headers={"authorization": f"Bearer {token}"})
        assert reply.status_code == 200, reply.text
        return str(reply.json()["code"])

    def games(self, token: str, timeout: float = 10.0) -> list[dict[str, Any]]:
        """The player's games (``/api/me``) once there is one: a hand is recorded when
        its end is shown to the table, a claim window after the move that ended it."""
        deadline = time.monotonic() + timeout
        while True:
            games = httpx.get(f"{self.base}/api/me",
                              headers={"authorization": f"Bearer {token}"}).json()["games"]
            if games or time.monotonic() > deadline:
                return list(games)
            time.sleep(0.05)

    def ws_url(self, code: str) -> str:
        return f"{self.ws_base}/ws/{code}"


@contextlib.contextmanager
def live_server(database: str, limits: Limits | None = None,
                match: MatchSettings | None = None,
                computer_processes: bool = True) -> Iterator[LiveServer]:
    server = LiveServer(database, limits, match, computer_processes)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def auth(token: str) -> dict[str, str]:
    """The HTTP header of a player's token."""
    return {"authorization": f"Bearer {token}"}


def proc_stat(pid: int) -> list[str] | None:
    """The fields of Linux's ``/proc/PID/stat`` after the command name (the state first,
    then the parent's pid, ...); None once the process is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text.rsplit(")", 1)[1].split()


def ended(pid: int) -> bool:
    """The process has ended (gone, or a zombie nobody has reaped yet)."""
    fields = proc_stat(pid)
    return fields is None or fields[0] in ("Z", "X")


def seat_people(runtime: Any, players: list[int]) -> None:
    """Seat ``players`` at match seats 0, 1, ... of a room (the caller holds its lock)."""
    for seat, player in enumerate(players):
        runtime.commit({"k": "sit", "seat": seat, "player": player, "nickname": f"p{seat}"})


def play_out(runtime: Any, players: list[int]) -> None:
    """Play the room's hand to its end, each seat taking 胡 when offered, else passing,
    else its first legal action (the caller holds the lock)."""
    table = runtime.table
    hand = table.hand
    while not hand.ended:
        seat = hand.pending_seats()[0]
        legal = hand.legal_actions(seat)
        pick = next((a for a in legal if isinstance(a, Hu)), None) or \
            next((a for a in legal if isinstance(a, Pass)), legal[0])
        runtime.act(table.match_seat(seat), pick, player=players[table.match_seat(seat)])


def deal_now(runtime: Any) -> None:
    """Deal the room's next hand at once: the server's commitment and the start, with no
    seat's value (log entries committed directly; the caller holds the lock, or no task
    runs)."""
    table = runtime.table
    runtime.commit(table.new_commit_entry())
    runtime.commit(table.new_start_entry())


def play_last_moves(runtime: Any) -> None:
    """Play the room's hand to its end, each seat taking its last legal action, and settle
    it (log entries committed directly)."""
    table = runtime.table
    hand = table.hand
    assert hand is not None
    while not hand.ended:
        seat = hand.pending_seats()[0]
        runtime.commit({"k": "act", "seat": table.match_seat(seat),
                        "action": hand.legal_actions(seat)[-1].text, "player": None})
    runtime.settle_if_needed()
