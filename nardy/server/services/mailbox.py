"""A mailbox: the work sent to one object runs one piece at a time, in the order it arrived.

Each live table has one (:class:`~nardy.server.services.table_owner.TableOwner`):
an action, a deadline, a forfeit, a rematch, a takeover and a refresh are
all pieces of work posted to it, so nothing of the table runs beside
anything else of it, and nobody takes a lock by hand.

Posting to an idle mailbox runs the work at once, in the caller's own task:
the common case (one action on a table nobody else touches now) costs no
task switch. Work posted while other work runs waits in a queue, and when
the running piece ends a task of the mailbox's own runs the queue out, in
order, handing each caller its result or its error. An error fails only
the piece that raised it; a caller that gives up waiting (it was cancelled)
is skipped. The queue is made only when work first has to wait: most
tables never need one, and every object a live table keeps is walked by
each collection of the old generation (:mod:`nardy.server.collector`).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")

Work = Callable[[], Awaitable[Any]]


class Mailbox:
    """Runs posted work one piece at a time, in arrival order (see the module's docstring)."""

    __slots__ = ("_queue", "_running", "_runner")

    def __init__(self) -> None:
        self._queue: deque[tuple[Work, asyncio.Future[Any]]] | None = None
        self._running = False
        self._runner: asyncio.Task[None] | None = None

    @property
    def busy(self) -> bool:
        """Work runs now or waits: whatever the mailbox serves must stay as it is."""
        return self._running

    @property
    def waiting(self) -> int:
        """Pieces of work waiting for the one running."""
        return len(self._queue) if self._queue is not None else 0

    async def post(self, work: Callable[[], Awaitable[T]]) -> T:
        """Run ``work`` once everything posted before it has run; what it returns or raises."""
        if self._running:
            future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
            if self._queue is None:
                self._queue = deque()
            self._queue.append((work, future))
            return await future
        self._running = True
        try:
            return await work()
        finally:
            self._hand_on()

    def _hand_on(self) -> None:
        """The running piece ended: the queue runs on in a task of its own, or the mailbox is idle."""
        if self._queue:  # None or empty: nothing waits
            self._runner = asyncio.create_task(self._run_queue(), name="nardy-mailbox")
        else:
            self._running = False

    async def _run_queue(self) -> None:
        queue = self._queue
        assert queue is not None
        try:
            while queue:
                work, future = queue.popleft()
                if future.done():  # its caller stopped waiting
                    continue
                try:
                    result = await work()
                except Exception as error:
                    if not future.done():
                        future.set_exception(error)
                else:
                    if not future.done():
                        future.set_result(result)
        finally:
            while queue:  # cancelled (the server stops): nothing more runs
                queue.popleft()[1].cancel()
            self._queue = None
            self._running = False
            self._runner = None
