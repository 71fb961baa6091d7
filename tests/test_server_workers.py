"""The computer's worker processes: what happens when they die, hang, cannot start or
are closed (paohuzi.server.scheduler.WorkerProcesses). Each case falls back to a move
made in the server, never to the call that broke a worker."""

from __future__ import annotations

import os
import time
from typing import Any

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

