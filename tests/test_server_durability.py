"""kill -9 mid-game: no acknowledged action is lost and every table resumes identically."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_util import (
    ended,
    free_port,
    play_out,
    proc_stat,
    seat_people,
    until,
    wait_until_serving,
)

from paohuzi.server.client import BotClient

pytest.importorskip("starlette")

KILLS = 3


class ServerProcess:
    def __init__(self, database: str) -> None:
        self.database = database
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "paohuzi", "serve", "--port", str(self.port),
             "--database", self.database], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env={**os.environ, "PAOHUZI_DEBUG_STATE_HASH": "1"})
        wait_until_serving(self.base)

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


def state_hash(base: str, room: str) -> str:
    """The whole table's state hash (a debug endpoint the test server enables)."""
    reply = httpx.get(f"{base}/api/debug/rooms/{room}/hash", timeout=10)
    reply.raise_for_status()
    return str(reply.json()["hash"])


async def play_for(bots: list[BotClient], seconds: float) -> None:
    tasks = [asyncio.create_task(b.play(10**6, timeout=seconds + 5)) for b in bots]
    await asyncio.sleep(seconds)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def logged_rows(database: str, room: str) -> list[tuple[str]]:
    """The raw log of a room, read around the server (SQLite file or PostgreSQL URL)."""
    if database.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(database) as conn:
            return list(conn.execute("SELECT entry FROM table_log WHERE room = %s",
                                     (room,)).fetchall())
    db = sqlite3.connect(database)
    rows = db.execute("SELECT entry FROM table_log WHERE room = ?", (room,)).fetchall()
    db.close()
    return list(rows)


def logged_acts(database: str, room: str) -> set[tuple[int, int]]:
    rows = logged_rows(database, room)
    acts = set()
    for (raw,) in rows:
        entry = json.loads(raw)
        if entry["k"] == "act" and entry.get("player") is not None:
            acts.add((entry["seat"], entry["seq"]))
    return acts


def test_kill_minus_nine_loses_nothing(database):
    server = ServerProcess(database)
    server.start()
    try:
        players = [httpx.post(f"{server.base}/api/players", json={"nickname": f"p{i}"}).json()
                   for i in range(3)]
        tokens = [p["token"] for p in players]
        room = httpx.post(f"{server.base}/api/rooms", json={
            "seats": ["human"] * 3, "timer": 60, "next_delay": 0.1, "bot_delay": 0,
            "claim_window": 0.05},
            headers={"authorization": f"Bearer {tokens[0]}"}).json()["code"]
        url = f"ws://127.0.0.1:{server.port}/ws/{room}"
        acked: dict[int, set[int]] = {0: set(), 1: set(), 2: set()}
        summary: list[dict[str, Any]] = []
        for round_no in range(KILLS):
            # reconnect=False: the bots stop at the kill (the test restarts the server)
            bots = [BotClient(url, tokens[s], seat=s, seed=round_no * 3 + s, think=0.01,
                              keep_messages=False, reconnect=False) for s in range(3)]
            # 1. kill -9 while the bots are playing
            async def active(bots: list[BotClient] = bots) -> None:
                tasks = [asyncio.create_task(b.play(10**6, timeout=30)) for b in bots]
                await asyncio.sleep(1.2)
                server.kill9()
                await asyncio.gather(*tasks, return_exceptions=True)
            asyncio.run(active())
            for s, bot in enumerate(bots):
                acked[s].update(seq for seq, _ in bot.acked)
            server.start()
            logged = logged_acts(database, room)
            lost = [(s, q) for s in acked for q in acked[s] if (s, q) not in logged]
            assert not lost, f"acknowledged actions lost: {lost[:5]}"
            # 2. a quiet table: its state hash survives another kill -9 exactly
            before = state_hash(server.base, room)
            server.kill9()
            server.start()
            after = state_hash(server.base, room)
            assert after == before
            summary.append({"round": round_no, "acked": sum(len(v) for v in acked.values()),
                            "hash": after})
        assert sum(len(v) for v in acked.values()) > 30  # the bots really played
        # the table still plays after the restarts
        bots = [BotClient(url, tokens[s], seat=s, seed=99 + s, keep_messages=False)
                for s in range(3)]
        asyncio.run(play_for(bots, 1.0))
        assert any(b.acked for b in bots)
    finally:
        server.stop()


def descendants(pid: int) -> set[int]:
    """The processes started by ``pid`` and by them, and so on (Linux's /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        fields = proc_stat(int(entry.name))
        if fields is not None:  # else ended meanwhile
            parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


def test_computer_workers_end_with_a_server_killed_minus_nine(tmp_path):
    """A computer worker waits on a queue whose writing end it holds itself and keeps
    the forkserver open, so after ``kill -9`` of the server they used to live on for
    ever, one set more at each crash. They watch the server and end with it."""
    server = ServerProcess(str(tmp_path / "workers.db"))
    server.start()
    try:
        token = httpx.post(f"{server.base}/api/players", json={"nickname": "w"}).json()["token"]
        code = httpx.post(f"{server.base}/api/rooms/quick", json={
            "level": "normal", "bot_delay": 0, "timer": 30, "next_delay": 0,
            "claim_window": 0.05}, headers={"authorization": f"Bearer {token}"}).json()["code"]
        bot = BotClient(f"ws://127.0.0.1:{server.port}/ws/{code}", token, seat=0,
                        keep_messages=False)
        asyncio.run(bot.play(1, timeout=120))
        assert server.proc is not None
        started = descendants(server.proc.pid)
        assert len(started) >= 2, started  # the forkserver and at least one worker
        server.kill9()

        def left() -> set[int]:
            return {pid for pid in started if not ended(pid)}

        assert until(lambda: not left(), timeout=10), left()
    finally:
        server.stop()


class _Died(BaseException):
    """The process dying at that point."""


def test_a_match_summary_the_process_died_before_storing_is_stored_on_restart(tmp_path):
    """The 大结算 is stored after the match's last hand's settlement commits: a process
    that died between the two lost it for good (a restart did not store it, and the next
    deal started a new match). A restored room stores it (once)."""
    from paohuzi.server.backends import open_storage
    from paohuzi.server.server import Server

    path = str(tmp_path / "game.db")

    async def first_life() -> str:
        server = Server(open_storage(path), computer_processes=False)
        players = [server.storage.create_player(f"p{s}", beans=2000)[0].id for s in range(3)]
        table = server.create_room({"seats": ["human"] * 3, "hands": 4, "claim_window": 0.05})
        runtime = server.runtimes[table.code]
        async with runtime.lock:
            seat_people(runtime, players)
            for number in range(4):
                if number == 3:  # the match's last hand: die once its settlement is in
                    def die(*_: Any) -> None:
                        raise _Died
                    server.storage.save_match = die  # type: ignore[method-assign]
                runtime.commit({"k": "start", "seed": 100 + number, "salt": "x"})
                play_out(runtime, players)
                with contextlib.suppress(_Died):
                    runtime.settle_if_needed(showing=True)
        assert table.match is not None and table.match.over
        runtime.stop()
        server.pool.close()
        server.storage.close()
        return table.code

    code = asyncio.run(first_life())
    server = Server(open_storage(path), computer_processes=False)
    try:
        assert server.storage.matches_in_room(code) == []  # lost with the process
        server.restore()
        stored = server.storage.matches_in_room(code)
        assert len(stored) == 1, stored
        server.restore_room(code, dict(server.storage.rooms())[code])  # again: once
        assert len(server.storage.matches_in_room(code)) == 1
    finally:
        for runtime in server.runtimes.values():
            runtime.stop()
        server.pool.close()
        server.storage.close()


def test_a_settlement_rates_again_when_another_process_moved_a_rating(tmp_path):
    """Another process settles a hand of the same player between this one's rating and
    its transaction: the transaction refuses the stale rating, and the hand is rated
    again from the new one (nothing lost, nothing written twice)."""
    from paohuzi.server import settlement
    from paohuzi.server.backends import open_storage
    from paohuzi.server.server import Server

    async def go() -> None:
        server = Server(open_storage(str(tmp_path / "game.db")), computer_processes=False)
        storage = server.storage
        players = [storage.create_player(f"p{s}", beans=2000)[0].id for s in range(3)]
        table = server.create_room({"seats": ["human"] * 3, "claim_window": 0.05})
        runtime = server.runtimes[table.code]
        async with runtime.lock:
            seat_people(runtime, players)
            runtime.commit({"k": "start", "seed": 5, "salt": "x"})
            play_out(runtime, players)
        tried: list[dict[int, Any]] = []
        real = storage.settle_hand

        def settle_hand(*args: Any) -> Any:
            tried.append({u.player_id: u.rated_from for u in args[4]})
            if len(tried) == 1:  # another process settles a hand of p0 meanwhile
                storage._db.execute("UPDATE players SET rating_mu = 30.5 WHERE id = ?",
                                    (players[0],))
            return real(*args)

        storage.settle_hand = settle_hand  # type: ignore[method-assign]
        settlement.settle(storage, table, server.rate)
        assert len(tried) == 2 and tried[1][players[0]][0] == 30.5, tried
        assert not table.needs_settlement()
        assert [e["k"] for e in storage.load_log(table.code)].count("settled") == 1
        after = storage.player(players[0])
        assert after is not None and after.hands == 1 and after.rating_mu != 30.5
        runtime.stop()
        server.pool.close()
        storage.close()
    asyncio.run(go())


def test_a_new_room_and_its_creator_seated_are_one_write(tmp_path):
    """The room was stored, then its creator's sit appended: a failure (or a crash)
    between them left a room whose creator was never seated. Both go in one
    transaction now: no separate log append is needed to seat him."""
    from server_util import auth, live_server

    with live_server(str(tmp_path / "one.db")) as srv:
        _, token = srv.player()
        storage = srv.server.storage
        real = storage.append_log

        def refuse(*_: Any) -> int:
            raise sqlite3.OperationalError("disk I/O error")

        storage.append_log = refuse  # type: ignore[method-assign]
        try:
            reply = httpx.post(f"{srv.base}/api/rooms/quick", json={"level": "easy"},
                               headers=auth(token))
        finally:
            storage.append_log = real  # type: ignore[method-assign]
        assert reply.status_code == 200, reply.text
        code = reply.json()["code"]
        assert storage.load_log(code)[0]["k"] == "sit"


def test_a_restored_room_knows_which_seats_the_computer_played(tmp_path):
    """A review: a process died with a hand over and not yet settled; its successor
    settled it without the notes of who made each person's decisions (kept in memory),
    so a seat the computer played all hand (托管, timeouts) gained as if its person had
    played. The log says who decided (``act``'s ``player``/``auto``): a restored room
    notes it again."""
    from paohuzi.game.actions import Pass
    from paohuzi.server.backends import open_storage
    from paohuzi.server.server import Server

    path = str(tmp_path / "game.db")

    async def first_life() -> tuple[str, int]:
        server = Server(open_storage(path), computer_processes=False)
        players = [server.storage.create_player(f"p{s}", beans=2000)[0].id for s in range(3)]
        table = server.create_room({"seats": ["human"] * 3, "claim_window": 0.05})
        runtime = server.runtimes[table.code]
        async with runtime.lock:
            seat_people(runtime, players)
            runtime.commit({"k": "start", "seed": 7, "salt": "x"})
            hand = table.hand
            assert hand is not None
            while not hand.ended:  # seat 0's every decision made by the computer
                seat = hand.pending_seats()[0]
                legal = hand.legal_actions(seat)
                pick = next((a for a in legal if isinstance(a, Pass)), legal[0])
                match_seat = table.match_seat(seat)
                runtime.act(match_seat, pick,
                            player=None if match_seat == 0 else players[match_seat])
        played = runtime.computer_played(table.hand_no)
        assert played == {0}
        runtime.stop()  # dies before the end is shown and settled
        server.pool.close()
        server.storage.close()
        return table.code, table.hand_no

    code, hand_no = asyncio.run(first_life())
    server = Server(open_storage(path), computer_processes=False)
    try:
        server.restore()
        assert server.runtimes[code].computer_played(hand_no) == {0}
    finally:
        for runtime in server.runtimes.values():
            runtime.stop()
        server.pool.close()
        server.storage.close()
