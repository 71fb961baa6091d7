"""Computer moves of every room on a few workers, shared fairly between rooms.

A room asks for one move at a time (its runtime has one computer task). Among the
moves waiting, the next to run is the one of the room that has used the least thinking
time so far (a room new to the pool starts level with the last move run), so a room
of quick computers is never stuck behind rooms of slow ones: it waits for at most the
moves already running. A move due by a time (a claim answer, due before its claim
window ends) that is still waiting then is made at once by its ``expired`` function
(the player with no time left: the heuristic's favourite, a few ms), so no queue holds
a claim window open.

A move runs on one of the pool's threads, which hands it to a worker process
(:class:`WorkerProcesses`, what ``paohuzi serve`` does) or, without them, runs it in the
thread. In the server's own interpreter a searching computer's thinking takes the
interpreter lock in turns with the event loop, slowing whatever the loop does meanwhile
(another seat's answer in a claim window, a ping) by an amount a client can time: that
told a careful client that some computer had an option on the card shown
(docs/protocol.md, "Claim windows").
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
import multiprocessing
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

__all__ = ["FairPool", "WorkerProcesses"]

T = TypeVar("T")

log = logging.getLogger("paohuzi.server")

WORKER_PRELOAD = ["paohuzi.players", "paohuzi.players.search", "paohuzi.players.heuristic"]
"""Imported once by the process that starts the workers (the forkserver), so a worker
starts as a fork of it, ready, in milliseconds."""


MOVE_TIMEOUT = 30.0
"""Seconds a worker may take over one call before it is taken for hung (the slowest
level thinks about a second): its workers are killed and replaced, and the call falls
back."""


class WorkerProcesses:
    """Processes that run functions away from this interpreter, started on first use.

    Started by the forkserver (spawned where there is none): clean interpreters, not
    forks of a server's threads and sockets. A worker that dies (killed, out of memory)
    breaks the set: the calls in flight are tried once more on a fresh set. A call that
    breaks that one too, one that runs past ``timeout`` (its workers are killed), and
    any call when workers cannot be started or after :meth:`close` return ``fallback()``
    (run here: something cheap) or else run here, so a table never stops for them.
    Workers ignore Ctrl-C (the server stops them when it stops) and end with the server
    however it ends (``kill -9``).

    >>> workers = WorkerProcesses(1)
    >>> workers.call(pow, (2, 10))
    1024
    >>> workers.call(os._exit, (1,), fallback=lambda: "made here")  # the worker dies
    'made here'
    >>> workers.close()
    """

    def __init__(self, workers: int, timeout: float = MOVE_TIMEOUT) -> None:
        if workers < 1:
            raise ValueError("worker processes need at least one worker")
        self.workers = workers
        self.timeout = timeout
        self._lock = threading.Lock()
        self._executor: ProcessPoolExecutor | None = None
        self._closed = False

    def call(self, fn: Callable[..., T], args: tuple[Any, ...],
             fallback: Callable[[], T] | None = None) -> T:
        """``fn(*args)`` in a worker (``fn``, its arguments and result must pickle); an
        exception ``fn`` raises is raised here."""
        for attempt in (1, 2):
            executor = None
            try:
                executor = self._current()
                future = executor.submit(fn, *args)
            except BrokenProcessPool:  # broken by another call's worker meanwhile
                self._replace(executor)
                continue
            except (OSError, RuntimeError, NotImplementedError, ValueError) as error:
                if executor is not None and not self._closed and executor is not \
                        self._executor:  # replaced by another call meanwhile: again
                    continue
                if not self._closed:
                    log.error("computer worker processes cannot start (%s): the move is "
                              "made in the server", type(error).__name__)
                break
            try:
                return future.result(timeout=self.timeout)
            except BrokenProcessPool:
                self._replace(executor)
                log.warning("a computer worker process died (attempt %d): replaced", attempt)
            except FutureTimeout:
                self._replace(executor, kill=True)
                log.error("a computer worker ran past %g s: the workers were killed and "
                          "replaced", self.timeout)
                break
            except CancelledError:  # closed, or killed by another call's hung worker
                break
        return fallback() if fallback is not None else fn(*args)

    def warm(self) -> bool:
        """Start the workers now, each taking one trivial call, rather than with the
        first move (starting the forkserver takes a fraction of a second, which that
        move's thinking time or its claim window would pay). False where they cannot
        start (the first move then falls back, and says why)."""
        try:
            executor = self._current()
            calls = [executor.submit(time.sleep, 0.01) for _ in range(self.workers)]
            for call in calls:
                call.result(timeout=self.timeout)
        except Exception:  # broken, closed or cannot start: the moves deal with it
            return False
        return True

    def pids(self) -> list[int]:
        """The process ids of the workers started (none before the first call)."""
        with self._lock:
            executor = self._executor
        return [] if executor is None else sorted(_processes(executor))

    def close(self) -> None:
        """Stop the workers; later calls run here (or fall back)."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)

    def _current(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._closed:
                raise RuntimeError("the worker processes are closed")
            if self._executor is None:
                self._executor = ProcessPoolExecutor(
                    self.workers, mp_context=_start_context(), initializer=_worker_start,
                    initargs=(os.getpid(),))
            return self._executor

    def _replace(self, broken: ProcessPoolExecutor | None, kill: bool = False) -> None:
        if broken is None:
            return
        with self._lock:
            if self._executor is broken:
                self._executor = None
        if kill:
            for process in _processes(broken).values():
                process.kill()
        broken.shutdown(wait=False, cancel_futures=True)


def _processes(executor: ProcessPoolExecutor) -> dict[int, Any]:
    """An executor's worker processes by pid (a snapshot of a private table the executor
    fills as it starts them; empty where a Python has none)."""
    table = getattr(executor, "_processes", None) or {}
    for _ in range(3):
        try:
            return dict(table)
        except RuntimeError:  # pragma: no cover - changed size while copied: again
            continue
    return {}  # pragma: no cover


def _start_context() -> Any:
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")  # pragma: no cover - not on Linux
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(WORKER_PRELOAD)
    return context


def _worker_start(server_pid: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with, args=(server_pid,), name="server-watch",
                     daemon=True).start()


def _exit_with(server_pid: int) -> None:
    """End this worker when the server process ends, however it ends. A worker waits
    on a queue whose writing end it holds itself, and it holds the forkserver open: after
    a ``kill -9`` of the server nothing else would ever end either."""
    try:
        pidfd = os.pidfd_open(server_pid)
    except ProcessLookupError:
        os._exit(0)
    except (AttributeError, OSError):  # pragma: no cover - not Linux 5.3+: poll instead
        while _alive(server_pid):
            time.sleep(1.0)
        os._exit(0)
    select.select([pidfd], [], [])  # readable once the process has ended
    os._exit(0)


def _alive(pid: int) -> bool:  # pragma: no cover - see _exit_with
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class FairPool:
    """A bounded pool running computer moves, least-served room first: ``workers`` at a
    time, on threads, each handing its move to one of as many worker ``processes``
    (:class:`WorkerProcesses`) when asked for them.

    >>> async def demo() -> list[str]:
    ...     pool = FairPool(workers=1)
    ...     done = await asyncio.gather(pool.run("a", str.upper, "x"), pool.run("b", str, 1))
    ...     pool.close()
    ...     return done
    >>> asyncio.run(demo())
    ['X', '1']
    """

    def __init__(self, workers: int = 2, processes: bool = False) -> None:
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self.workers = workers
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix="computer")
        self.processes = WorkerProcesses(workers) if processes else None
        self._waiting: list[tuple[float, int, str, Callable[[], Any],
                                  asyncio.Future[Any]]] = []
        self._order = itertools.count()
        self._running = 0
        self._used: dict[str, float] = {}  # thinking seconds per room, levelled
        self._floor = 0.0  # the level of the last move started
        self._expiries: dict[int, asyncio.TimerHandle] = {}  # of moves waiting, by order

    async def run(self, room: str, fn: Callable[..., T], *args: Any,
                  fallback: Callable[[], T] | None = None, deadline: float | None = None,
                  expired: Callable[[], T] | None = None) -> T:
        """Run ``fn(*args)`` on a worker when it is ``room``'s turn; its result (or
        ``fallback()``'s, where worker processes fail: :meth:`WorkerProcesses.call`).

        ``deadline`` (``time.monotonic()``) with ``expired``: if the move has not started
        by then, ``expired()`` is its result, made here at once (it must be quick); a
        move started in time runs to its end (``fn`` itself keeps to the deadline)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        level = max(self._used.get(room, 0.0), self._floor)
        processes = self.processes
        call = (lambda: fn(*args)) if processes is None else \
            (lambda: processes.call(fn, args, fallback))
        order = next(self._order)
        heapq.heappush(self._waiting, (level, order, room, call, future))
        if deadline is not None and expired is not None:
            self._expiries[order] = loop.call_later(
                max(0.0, deadline - time.monotonic()), self._expire, order, expired, future)
        self._dispatch(loop)
        try:
            return await future
        finally:
            handle = self._expiries.pop(order, None)
            if handle is not None:  # cancelled while waiting
                handle.cancel()

    def _expire(self, order: int, expired: Callable[[], Any],
                future: asyncio.Future[Any]) -> None:
        """A move still waiting at its deadline: made now by ``expired`` (its entry in
        the queue is skipped when its turn comes)."""
        if self._expiries.pop(order, None) is None or future.done():
            return
        try:
            future.set_result(expired())
        except Exception as error:  # handed to the awaiting task
            future.set_exception(error)

    def _dispatch(self, loop: asyncio.AbstractEventLoop) -> None:
        while self._running < self.workers and self._waiting:
            level, order, room, call, future = heapq.heappop(self._waiting)
            handle = self._expiries.pop(order, None)
            if handle is not None:  # started in time: it keeps to its deadline itself
                handle.cancel()
            if future.done():  # cancelled, or made at its deadline
                continue
            self._floor = level
            self._running += 1
            self._executor.submit(self._work, loop, room, level, call, future)

    def _work(self, loop: asyncio.AbstractEventLoop, room: str, level: float,
              call: Callable[[], Any], future: asyncio.Future[Any]) -> None:
        start = time.perf_counter()
        try:
            result, error = call(), None
        except Exception as exc:  # handed to the awaiting task
            result, error = None, exc
        used = time.perf_counter() - start
        loop.call_soon_threadsafe(self._done, loop, room, level + used, result, error, future)

    def _done(self, loop: asyncio.AbstractEventLoop, room: str, level: float, result: Any,
              error: BaseException | None, future: asyncio.Future[Any]) -> None:
        self._running -= 1
        self._used[room] = level
        if len(self._used) > 4096:  # forget rooms no further ahead than the floor
            self._used = {r: u for r, u in self._used.items() if u > self._floor}
        if not future.done():
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)
        self._dispatch(loop)

    def warm(self) -> None:
        """Start the worker processes, if any, in the background (:meth:`WorkerProcesses.warm`)."""
        if self.processes is not None:
            threading.Thread(target=self.processes.warm, name="computer-warm",
                             daemon=True).start()

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
        if self.processes is not None:
            self.processes.close()
