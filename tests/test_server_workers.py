"""The computer's worker processes: what happens when they die, hang, cannot start or
are closed (paohuzi.server.scheduler.WorkerProcesses). Each case falls back to a move
made in the server, never to the call that broke a worker."""

from __future__ import annotations

import os
import time
from typing import Any, ClassVar

import pytest
from server_util import ended, until

from paohuzi.server import scheduler
from paohuzi.server.scheduler import WorkerProcesses


def fallback_marker() -> str:
    return "fallback"


@pytest.fixture
def workers() -> Any:
    made = WorkerProcesses(1)
    yield made
    made.close()


def test_a_call_runs_in_a_worker_process(workers):
    assert workers.call(os.getpid, ()) != os.getpid()
    assert workers.call(os.getpid, ()) in workers.pids()


def test_a_call_that_kills_its_worker_twice_falls_back_not_again_here(workers):
    """os._exit kills the worker, on the fresh set too: the fallback answers (made here,
    without os._exit here, or this test would end)."""
    assert workers.call(os._exit, (1,), fallback=fallback_marker) == "fallback"
    assert workers.call(pow, (3, 3)) == 27  # a fresh set serves the next call


def test_a_worker_killed_once_is_replaced_and_the_call_retried(workers):
    first = workers.call(os.getpid, ())
    os.kill(first, 9)
    time.sleep(0.2)
    second = workers.call(os.getpid, (), fallback=lambda: -1)
    assert second not in (first, -1, os.getpid())


def test_a_call_past_the_timeout_kills_its_worker_and_falls_back():
    workers = WorkerProcesses(1, timeout=0.5)
    try:
        hung = workers.call(os.getpid, ())
        started = time.monotonic()
        assert workers.call(time.sleep, (30,), fallback=fallback_marker) == "fallback"
        assert time.monotonic() - started < 10
        assert until(lambda: ended(hung), 5)
        assert workers.call(pow, (2, 5)) == 32
    finally:
        workers.close()


def test_workers_that_cannot_start_fall_back(monkeypatch):
    def no_processes() -> Any:
        raise OSError("no /dev/shm here")

    monkeypatch.setattr(scheduler, "_start_context", no_processes)
    workers = WorkerProcesses(1)
    assert workers.call(pow, (2, 3), fallback=fallback_marker) == "fallback"
    assert workers.call(pow, (2, 3)) == 8  # without a fallback: run here
    assert workers.pids() == []


def test_closed_workers_are_not_started_again(workers):
    workers.call(pow, (2, 2))
    workers.close()
    assert workers.call(pow, (2, 2), fallback=fallback_marker) == "fallback"
    assert workers.pids() == []


def test_an_error_raised_by_the_function_is_raised_here(workers):
    with pytest.raises(ZeroDivisionError):
        workers.call(divmod, (1, 0), fallback=fallback_marker)



def test_a_move_still_waiting_at_its_deadline_is_made_then_by_its_expired_function():
    """A claim answer queued behind moves already running used to wait for them (a hard
    search: up to a second each), holding its claim window open: at its deadline it is
    made at once by ``expired``, and the move it replaced never runs. A move started
    before its deadline is not replaced."""
    import asyncio
    import threading

    from paohuzi.server.scheduler import FairPool

    release = threading.Event()
    ran: list[str] = []

    def hold() -> str:
        release.wait(10)
        return "held"

    def think(name: str) -> str:
        ran.append(name)
        return name

    async def go() -> tuple[Any, ...]:
        pool = FairPool(workers=1)
        holding = asyncio.ensure_future(pool.run("busy", hold))
        await asyncio.sleep(0.05)  # the only worker is taken
        start = time.monotonic()
        answer = await pool.run("quiet", think, "searched", deadline=start + 0.2,
                                expired=lambda: "quick")
        waited = time.monotonic() - start
        release.set()
        held = await holding
        later = await pool.run("quiet", think, "in time", deadline=time.monotonic() + 5,
                               expired=lambda: "quick")
        pool.close()
        return answer, waited, held, later

    answer, waited, held, later = asyncio.run(go())
    assert answer == "quick" and 0.15 < waited < 2.0, (answer, waited)
    assert held == "held" and later == "in time"
    assert ran == ["in time"]  # the expired move never ran


def test_a_claim_answer_queued_behind_a_long_move_comes_by_its_deadline(tmp_path):
    """A live room of hard computers with a 0.3 s claim window: when its first claim
    answer is asked, another room's long move takes the pool's only worker first. The
    answer comes by its deadline (without the deadline in the queue it came when the
    long move ended, here after 20 s)."""
    import asyncio
    import threading

    from server_util import live_server

    from paohuzi.server.client import BotClient
    from paohuzi.server.scheduler import FairPool

    release = threading.Event()
    answered: list[tuple[float, float | None, Any]] = []

    class HeldPool(FairPool):
        held: ClassVar[list[Any]] = []

        async def run(self, room: str, fn: Any, *args: Any, **options: Any) -> Any:
            if answered or options.get("deadline") is None:
                return await super().run(room, fn, *args, **options)
            holding = asyncio.ensure_future(super().run("elsewhere", release.wait, 20.0))
            self.held.append(holding)
            await asyncio.sleep(0.01)  # the only worker is taken
            start = time.monotonic()
            answer = await super().run(room, fn, *args, **options)
            answered.append((time.monotonic() - start, options["deadline"] - start, answer))
            release.set()
            return answer

    with live_server(str(tmp_path / "held.db"), computer_processes=False) as srv:
        srv.server.pool = HeldPool(workers=1)
        _, token = srv.player()
        code = srv.quick(token, level="hard", bot_delay=0, timer=30, next_delay=0,
                         claim_window=0.3)
        bot = BotClient(srv.ws_url(code), token, seat=0, keep_messages=False)
        try:
            asyncio.run(bot.play(1, timeout=60))
        finally:
            release.set()
    assert answered, "no computer answered a claim"
    waited, allowed, answer = answered[0]
    # the claim window's end: 0.3 s after the card is shown, later where the card's
    # frame waits behind an earlier claim window still showing (seen in CI: 0.46 s)
    assert allowed is not None and allowed < 2.0
    assert waited < allowed + 0.5, answered  # a few ms past the deadline, not 20 s
    assert answer is not None


def test_warm_workers_start_before_the_first_call(workers):
    """The first move once paid the workers' start (a fraction of a second, from its
    claim window); ``warm`` starts them beforehand, and a later call finds them."""
    assert workers.pids() == []
    assert workers.warm() is True
    started = workers.pids()
    assert len(started) == workers.workers
    assert workers.call(os.getpid, ()) in started


def test_warm_workers_that_cannot_start_say_so_and_calls_fall_back(monkeypatch):
    made = WorkerProcesses(1)
    made.close()
    assert made.warm() is False
    assert made.call(pow, (2, 3), fallback=fallback_marker) == "fallback"


def test_a_server_starts_its_computer_workers_with_itself(tmp_path):
    from server_util import live_server

    with live_server(str(tmp_path / "warm.db")) as srv:
        processes = srv.server.pool.processes
        assert until(lambda: len(processes.pids()) == processes.workers, 20.0)
