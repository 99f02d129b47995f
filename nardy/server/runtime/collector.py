"""Keeping CPython's cycle collector from stopping every game at once.

A full (generation 2) collection walks every container object the
interpreter tracks, and a live server holds some two hundred per WebSocket
(the frameworks' coroutines and the connection's tasks, parser and
handshake, :class:`nardy.server.ws.endpoint.Connection`): at 1,000 games one
full collection stopped all connections for about half a second, every few
seconds. Almost none of those objects is ever cyclic garbage: a closed
connection, a finished action and a replaced table state are freed by
reference counting.

So the collector's automatic collections are kept to the young generations.
What start-up left alive (modules, classes, the app; some 160,000 objects)
is frozen for good with ``gc.freeze()``, out of every collection's sight.
The young generations are collected four times a second, so they stay small
(only a burst of :data:`YOUNG_THRESHOLD` allocations starts a collection sooner),
and their survivors go to the old generation (2) as usual; the old
generation is never collected automatically. It holds the live games'
objects and the little cyclic garbage among them (statements a thread was
building while the young generations were collected): about a thousand
objects after 1,000 games were set up and played, not growing with the
time they played (benchmarks/RESULTS.md). It is collected once
a minute while the process holds at most :data:`QUIET_CONNECTIONS`
WebSockets, when the walk costs a few milliseconds. A process never that
quiet looks at it once ``full_seconds`` (a day) have passed, at the first
minute with about as few sockets as the fewest it saw since its last look,
so at the quietest hour of its day, and at the latest after twice
``full_seconds``. Walking it then would stop every game for about 0.6 µs
per object they hold (0.1 s at 400 games, 0.3 to 0.4 s at 1,000), so a
forked child walks its copy instead (:mod:`nardy.server.runtime.garbage_probe`:
no stop but the fork's 5 to 23 ms, the games slowed while the child runs)
and the process collects only when the child found more than
:data:`GARBAGE_WORTH_A_PAUSE` unreachable objects, or could not tell.
``benchmarks.load`` reports the objects of each generation and the cyclic
garbage the server held at the end of its window.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import time
from collections.abc import Callable

from nardy.server.runtime.garbage_probe import Probe, probe_old_generation
from nardy.server.runtime.periodic import Periodic

log = logging.getLogger(__name__)


YOUNG_SECONDS = 0.25
"""How often the young generations are collected whatever the allocation count.

CPython starts a collection when allocations outnumber deallocations by 700,
and every old object freed counts against the new ones: a server that
replaces each table's state at every action frees about as much as it
allocates, so its young generations filled with survivors between rare
collections, the longest of which then took 19 to 30 ms at 400 and 1,000 games.
Collected four times a second, they hold a quarter second's survivors."""

YOUNG_THRESHOLD = 20_000
"""How many more tracked objects allocated than freed start a young collection before the clock does.

CPython's own 700 is passed only in bursts, and a server that falls behind
makes bursts of its backlog: its event loop takes in many messages in one
turn, and their objects are all alive at once. At 700, each burst was
collected while alive, so every young collection walked and promoted live
work, and fell behind further (benchmarks/RESULTS.md, *Garbage collection*).
The clock bounds the young generations anyway; this bounds a burst's walk
to some milliseconds."""

OLD_CHECK_SECONDS = 60.0
"""How often the collector asks whether the old generation may be collected now."""

QUIET_CONNECTIONS = 50
"""The most open WebSockets at which the old generation is collected without waiting for ``full_seconds``:
with 50 sockets (25 games) it held about 26,000 objects, walked in 5 to 7 ms (60 games: 47,000 in 15 ms)."""

TROUGH_SLACK = 1.1
"""Once ``full_seconds`` have passed, the old generation is collected at the first check whose open sockets
are at most this many times the fewest seen at a check since its last collection: at the day's quietest
hour, when the walk is shortest, and at the latest after twice ``full_seconds``."""

GARBAGE_WORTH_A_PAUSE = 50_000
"""The most unreachable objects a never-quiet process's probe may find and leave for a later day: some
megabytes, against the few hundred objects a day of play leaves (benchmarks/RESULTS.md)."""

_NEVER = 2**31 - 1
"""A generation-2 threshold no count of generation-1 collections reaches."""

_CPYTHON_THRESHOLDS = (700, 10, 10)
"""CPython's own thresholds: a young collection per 700 net allocations, a middle one per ten young ones, and
an old one per ten middle ones."""


class Collector:
    """Freezes start-up's objects, collects the young generations every :data:`YOUNG_SECONDS`, and the
    old one when few connections are open or, once ``full_seconds`` have passed, at the day's quietest if
    a probe finds it holds garbage worth the pause."""

    def __init__(
        self, *, young_only: bool, full_seconds: float, open_connections: Callable[[], int],
        monotonic: Callable[[], float] = time.monotonic, probe: Callable[[], Probe | None] = probe_old_generation,
    ) -> None:
        self._young_only = young_only
        self._full_seconds = full_seconds
        self._open_connections = open_connections
        self._monotonic = monotonic
        self._probe = probe
        self._thresholds_before = _CPYTHON_THRESHOLDS
        self._rounds: list[Periodic] = []
        self._last_old = 0.0
        self._fewest_since_old = sys.maxsize

    def start(self) -> None:
        """Freeze what start-up left alive, then keep automatic collections to the young generations."""
        gc.collect()
        gc.freeze()
        if self._young_only:
            young, middle, old = gc.get_threshold()
            if old != _NEVER:  # else another app of this process holds them: CPython's own are restored
                self._thresholds_before = (young, middle, old)
            gc.set_threshold(YOUNG_THRESHOLD, middle, _NEVER)
            self._last_old, self._fewest_since_old = self._monotonic(), sys.maxsize
            self._rounds = [
                Periodic(self._collect_young, YOUNG_SECONDS, name="the young generations' collection"),
                Periodic(self._check_old, OLD_CHECK_SECONDS, name="the old generation's check"),
            ]
            for rounds in self._rounds:
                rounds.start()

    async def stop(self) -> None:
        """Restore the thresholds and unfreeze, so the collector sees everything again (an app stopped in a
        process that goes on, as in tests, leaves no garbage out of its reach)."""
        for rounds in self._rounds:
            await rounds.stop()
        self._rounds.clear()
        if self._young_only:
            gc.set_threshold(*self._thresholds_before)
        gc.unfreeze()

    def old_generation_due(self, since_last: float, open_now: int, fewest: int) -> bool:
        """Whether to see to the old generation now (collect it when quiet, else probe it): ``since_last``
        seconds after it was last seen to, with ``open_now`` sockets open, and at least ``fewest`` open at
        every check since then."""
        if open_now <= QUIET_CONNECTIONS:
            return True
        if self._full_seconds <= 0 or since_last < self._full_seconds:
            return False
        return open_now <= fewest * TROUGH_SLACK or since_last >= 2 * self._full_seconds

    async def _collect_young(self) -> None:
        gc.collect(1)

    async def _check_old(self) -> None:
        open_now = self._open_connections()
        self._fewest_since_old = min(self._fewest_since_old, open_now)
        if not self.old_generation_due(self._monotonic() - self._last_old, open_now, self._fewest_since_old):
            return
        if open_now <= QUIET_CONNECTIONS or await self._garbage_worth_a_pause():
            collect_old_generation()
        self._last_old, self._fewest_since_old = self._monotonic(), sys.maxsize

    async def _garbage_worth_a_pause(self) -> bool:
        """Whether the probe found more garbage than :data:`GARBAGE_WORTH_A_PAUSE`, or could not tell."""
        probe = await asyncio.to_thread(self._probe)
        if probe is None:
            log.warning("the old generation's probe did not report: collecting it in the process")
            return True
        log.info(
            "old-generation probe: %d unreachable objects (%s), a stall of %.1f ms, %.0f ms in all, "
            "%d page faults here, %s MiB copied",
            probe.unreachable, ", ".join(f"{name} {count}" for name, count in probe.commonest) or "none",
            probe.stall_seconds * 1e3, probe.seconds * 1e3, probe.faults,
            "?" if probe.copied_bytes is None else f"{probe.copied_bytes / 2**20:.0f}",
        )
        return probe.unreachable > GARBAGE_WORTH_A_PAUSE


def collect_old_generation() -> int:
    """Collect every generation but what start-up froze; the unreachable objects found."""
    started = time.perf_counter()
    found = gc.collect(2)
    log.debug(
        "old-generation garbage collection: %d unreachable objects, %.1f ms",
        found, (time.perf_counter() - started) * 1e3,
    )
    return found
