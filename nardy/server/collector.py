"""Keeping CPython's cycle collector from stopping every game at once.

A full (generation 2) collection walks every container object the
interpreter tracks, and a live server holds a few hundred per WebSocket
(tasks, coroutines, queues, the connection's parser): at 1,000 games one
full collection stopped all connections for about half a second,
every few seconds. Almost none of those objects is ever cyclic garbage: a
closed connection, a finished action and a replaced table state are freed by
reference counting.

So the server *ages* its survivors out of the collector's sight: after
every generation-1 collection it calls ``gc.freeze()``, which moves
everything still alive into the permanent generation. Automatic collections
then only ever see objects younger than the last generation-1 collection,
so they stay short whatever the number of games. Frozen objects are still
freed when their reference count drops; only cyclic garbage made of frozen
objects waits, and every ``full_seconds`` the collector unfreezes and
collects everything once, so such garbage is bounded in time: a planned
pause instead of a stream of unplanned ones. ``benchmarks.load`` reports how
much cyclic garbage the frozen generation held at the end of its window
(under two thousand objects after a minute of 400 or 1,000 games).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time

log = logging.getLogger(__name__)


YOUNG_SECONDS = 0.25
"""How often the young generations are collected (and their survivors frozen) whatever the allocation count.

CPython starts a collection when allocations outnumber deallocations by 700,
and every old object freed counts against the new ones: a server that
replaces each table's state at every action frees about as much as it
allocates, so its young generations filled with survivors between rare
collections, the longest of which then took 19 to 30 ms at 400 and 1,000 games.
Collected four times a second, they hold a quarter second's survivors."""


class Collector:
    """Freezes the survivors of each generation-1 collection, collects the young generations every
    :data:`YOUNG_SECONDS`, and everything once every ``full_seconds``."""

    def __init__(self, *, freeze_survivors: bool, full_seconds: float) -> None:
        self._freeze_survivors = freeze_survivors
        self._full_seconds = full_seconds
        self._tasks: list[asyncio.Task[None]] = []

    def start(self) -> None:
        """Freeze what start-up left alive, then keep freezing survivors."""
        gc.collect()
        gc.freeze()
        if self._freeze_survivors:
            gc.callbacks.append(_freeze_after_young_collection)
            loop = asyncio.get_running_loop()
            self._tasks.append(loop.create_task(self._collect_young(), name="gc-young"))
            if self._full_seconds > 0:
                self._tasks.append(loop.create_task(self._collect_fully(), name="gc-full"))

    async def stop(self) -> None:
        """Stop freezing and unfreeze, so the collector sees everything again (an app stopped in a process
        that goes on, as in tests, leaves no garbage out of its reach)."""
        if _freeze_after_young_collection in gc.callbacks:
            gc.callbacks.remove(_freeze_after_young_collection)
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        gc.unfreeze()

    async def _collect_young(self) -> None:
        while True:
            await asyncio.sleep(YOUNG_SECONDS)
            gc.collect(1)

    async def _collect_fully(self) -> None:
        while True:
            await asyncio.sleep(self._full_seconds)
            full_collection()


def _freeze_after_young_collection(phase: str, info: dict[str, int]) -> None:
    if phase == "stop" and info["generation"] == 1:
        gc.freeze()


def full_collection() -> int:
    """Unfreeze, collect everything, freeze again; the unreachable objects found."""
    started = time.perf_counter()
    gc.unfreeze()
    found = gc.collect()
    gc.freeze()
    log.info("full garbage collection: %d unreachable objects, %.0f ms", found, (time.perf_counter() - started) * 1e3)
    return found
