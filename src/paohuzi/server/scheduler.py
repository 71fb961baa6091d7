"""Computer moves of every room on a few threads, shared fairly between rooms.

A room asks for one move at a time (its runtime has one computer task). Among the
moves waiting, the next to run is the one of the room that has used the least thinking
time so far (a room new to the pool starts level with the last move run), so a room
of quick computers is never stuck behind rooms of slow ones: it waits for at most the
moves already running.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

__all__ = ["FairPool"]

T = TypeVar("T")


class FairPool:
    """A bounded pool of threads running computer moves, least-served room first.

    >>> async def demo() -> list[str]:
    ...     pool = FairPool(workers=1)
    ...     done = await asyncio.gather(pool.run("a", str.upper, "x"), pool.run("b", str, 1))
    ...     pool.close()
    ...     return done
    >>> asyncio.run(demo())
    ['X', '1']
    """

    def __init__(self, workers: int = 2) -> None:
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self.workers = workers
        self._executor = ThreadPoolExecutor(workers, thread_name_prefix="computer")
        self._waiting: list[tuple[float, int, str, Callable[[], Any],
                                  asyncio.Future[Any]]] = []
        self._order = itertools.count()
        self._running = 0
        self._used: dict[str, float] = {}  # thinking seconds per room, levelled
        self._floor = 0.0  # the level of the last move started

    async def run(self, room: str, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` on a worker when it is ``room``'s turn; its result."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        level = max(self._used.get(room, 0.0), self._floor)
        heapq.heappush(self._waiting, (level, next(self._order), room,
                                       lambda: fn(*args), future))
        self._dispatch(loop)
        return await future

    def _dispatch(self, loop: asyncio.AbstractEventLoop) -> None:
        while self._running < self.workers and self._waiting:
            level, _, room, call, future = heapq.heappop(self._waiting)
            if future.cancelled():
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
        if not future.cancelled():
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(result)
        self._dispatch(loop)

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)
