"""A background task that does one piece of work every so many seconds, for as long as the app runs."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)


class Periodic:
    """Runs ``work`` every ``seconds`` in the running event loop; a failure is logged and the next round
    still comes (one failed sweep must not stop matchmaking or the tournaments)."""

    def __init__(self, work: Callable[[], Awaitable[object]], seconds: float, *, name: str) -> None:
        self._work = work
        self._seconds = seconds
        self._name = name
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the rounds (the first after ``seconds``)."""
        self._task = asyncio.create_task(self._run(), name=self._name)

    async def stop(self) -> None:
        """Stop the rounds, waiting for one under way to be cancelled."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self._seconds)
            try:
                await self._work()
            except Exception:  # noqa: BLE001 - logged; the next round comes anyway
                log.exception("%s failed", self._name)
