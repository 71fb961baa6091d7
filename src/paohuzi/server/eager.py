"""Run a coroutine at once, in the caller's step, until it first has to wait.

Sending a WebSocket message almost never waits: the socket takes it at once. Awaited
in a task of its own (with a timeout, behind a lock), each message would cost a task,
a timer and a lock although nothing waits. :func:`start` runs the coroutine right away;
only one that does have to wait is handed back, as an awaitable that finishes it (to
await in a task, under a timeout, like any coroutine): the rare slow case pays for the
machinery, the common case does not.

>>> async def quick() -> None:
...     pass
>>> start(quick()) is None
True
>>> import asyncio
>>> async def slow(out: list[str]) -> None:
...     out.append("started")
...     await asyncio.sleep(0)
...     out.append("finished")
>>> async def demo() -> list[str]:
...     out: list[str] = []
...     rest = start(slow(out))
...     out.append("handed back")
...     assert rest is not None
...     await rest
...     return out
>>> asyncio.run(demo())
['started', 'handed back', 'finished']
"""

from __future__ import annotations

import types
from collections.abc import Coroutine, Generator
from typing import Any

__all__ = ["start"]


def start(coro: Coroutine[Any, Any, None]) -> Coroutine[Any, Any, None] | None:
    """Run ``coro`` until it finishes or first waits: ``None`` if it finished (an
    exception it raised is raised here), else a coroutine that finishes it.

    The first part runs in the caller's step (``asyncio.current_task()`` is the
    caller's); the rest runs wherever the returned coroutine is awaited. Cancelling
    that await cancels ``coro`` where it waits, as awaiting ``coro`` itself would.
    """
    try:
        waiting = coro.send(None)
    except StopIteration:
        return None
    return _finish(coro, waiting)


async def _finish(coro: Coroutine[Any, Any, None], waiting: Any) -> None:
    await _resume(coro, waiting)


@types.coroutine
def _resume(coro: Coroutine[Any, Any, None], waiting: Any) -> Generator[Any, Any, None]:
    """Pass what ``coro`` waits on up to the task, and the task's answers (a value, or
    an exception such as a cancellation) back down, until ``coro`` finishes."""
    while True:
        try:
            answer = yield waiting
        except BaseException as exc:  # a cancellation, or the awaited future's error
            try:
                waiting = coro.throw(exc)
            except StopIteration:
                return
        else:
            try:
                waiting = coro.send(answer)
            except StopIteration:
                return
