"""Move clocks: one task per server process wakes at the next stored deadline.

Deadlines live in the database (the fold of each table's log computes them),
so a restarted process re-arms them and a deadline that passed while the
server was down fires at once. Firing is only a request: the table service
checks under its lock that the deadline still stands before timing anyone out.
"""

from __future__ import annotations

import asyncio
import heapq
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from nardy.server.services.clock import Clock

log = logging.getLogger(__name__)

OnDeadline = Callable[[str, datetime], Awaitable[None]]


class DeadlineTimers:
    """A heap of (deadline, table) and one sleeper task that serves it."""

    def __init__(self, clock: Clock, on_deadline: OnDeadline) -> None:
        self._clock = clock
        self._on_deadline = on_deadline
        self._heap: list[tuple[datetime, str]] = []
        self._armed: dict[str, datetime] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start serving deadlines (inside the running event loop)."""
        self._task = asyncio.create_task(self._run(), name="nardy-deadlines")

    async def stop(self) -> None:
        """Stop the sleeper task."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    def arm(self, table_id: str, deadline: datetime | None) -> None:
        """Set (or clear, with None) the table's deadline."""
        if deadline is None:
            self._armed.pop(table_id, None)
            return
        if self._armed.get(table_id) == deadline:
            return
        self._armed[table_id] = deadline
        heapq.heappush(self._heap, (deadline, table_id))
        self._wake.set()

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            while self._heap and self._armed.get(self._heap[0][1]) != self._heap[0][0]:
                heapq.heappop(self._heap)
            if not self._heap:
                await self._wake.wait()
                continue
            deadline, table_id = self._heap[0]
            delay = (deadline - self._clock.now()).total_seconds()
            if delay > 0:
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout=min(delay, 60.0))
                except TimeoutError:
                    pass
                continue
            heapq.heappop(self._heap)
            self._armed.pop(table_id, None)
            try:
                await self._on_deadline(table_id, deadline)
            except Exception:
                log.exception("timing out table %s failed", table_id)
