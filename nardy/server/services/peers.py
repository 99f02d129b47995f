"""Which server processes are alive, and who takes over the clocks and bots of one that is not.

A table's move clock and its computer player's turn are served by the
process that made the table's last change, its *owner* (``tables.owner``,
written by the same UPDATE that appends the events). Were that process
killed, nobody would time the actor out and the bot would never move. So:

* every process has an id and a heartbeat row (``server_processes``),
  rewritten every ``heartbeat_seconds``;
* a process unseen for ``dead_after_seconds`` counts as dead (a process that
  stops gracefully removes its row, so it counts as dead at once);
* every ``sweep_seconds`` each process looks for running tables needing
  attention (a deadline set, or a computer player seated) whose owner is
  dead, claims each with a conditional UPDATE (``owner = me`` where the owner
  is still the dead one: of several sweeping processes exactly one wins),
  and hands those it won to the service of their kind, which re-arms the
  clock and starts the bot's turn (``LiveTables.adopt``, a message to the table's owner).

A deadline is thus fired at most ``dead_after_seconds + sweep_seconds``
after it passed, or after its owner died if that was later. Start-up is the
first sweep: a restarted process takes the tables nobody serves, never those
a live peer owns. Should a process only have been slow (its heartbeat late
rather than stopped), two processes may fire one deadline or move one bot:
the version check of every append lets exactly one of them commit, so the
log still holds one decision.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
from collections.abc import Awaitable, Callable, Mapping
from datetime import timedelta
from typing import Protocol

from nardy.server.services.clock import Clock
from nardy.server.services.database import DatabaseThreads
from nardy.store import processes_repo, tables_repo

log = logging.getLogger(__name__)

FORGOTTEN_AFTER = timedelta(hours=1)
"""A process unseen this long has its heartbeat row removed (a missing row counts as dead, so this only tidies)."""


def new_process_id() -> str:
    """A fresh id for this process: host and pid (for people reading the database), and a random part."""
    return f"{socket.gethostname()[:32]}:{os.getpid()}:{secrets.token_hex(6)}"


class Adopter(Protocol):
    """A table service that can serve a table taken over from a dead process."""

    async def adopt(self, table_id: str) -> None: ...


class Peers:
    """This process's heartbeat and the takeover sweep, as two background tasks."""

    def __init__(
        self,
        *,
        db: DatabaseThreads,
        clock: Clock,
        process_id: str,
        services: Mapping[str, Adopter],
        heartbeat_seconds: float,
        dead_after_seconds: float,
        sweep_seconds: float,
    ) -> None:
        if dead_after_seconds <= heartbeat_seconds:
            raise ValueError("a process must miss more than one heartbeat before it counts as dead")
        self.process_id = process_id
        self._db = db
        self._clock = clock
        self._services = services
        self._heartbeat = heartbeat_seconds
        self._dead_after = timedelta(seconds=dead_after_seconds)
        self._sweep = sweep_seconds
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """Say this process is alive, take over what nobody serves, then keep doing both."""
        await self.beat()
        await self.sweep()
        self._tasks = [
            asyncio.create_task(self._every(self._heartbeat, self.beat), name="nardy-heartbeat"),
            asyncio.create_task(self._every(self._sweep, self.sweep), name="nardy-takeover"),
        ]

    async def stop(self) -> None:
        """Stop both tasks and remove this process's row: its tables are free for a peer at once."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            try:
                await task
            except asyncio.CancelledError:
                pass
        self._tasks = []
        await self._db.run(lambda db: processes_repo.forget(db, self.process_id))

    async def beat(self) -> None:
        """Record that this process is alive now (and tidy away rows of processes long gone)."""
        now = self._clock.now()
        await self._db.run(lambda db: processes_repo.beat(db, self.process_id, now, forget_before=now - FORGOTTEN_AFTER))

    async def sweep(self) -> list[str]:
        """Claim the running tables needing attention whose owner is dead, and have their services serve them.

        Returns the ids of the tables taken over.
        """
        alive_since = self._clock.now() - self._dead_after
        me = self.process_id
        found = [
            table for table in await self._db.run(
                lambda db: tables_repo.unattended_tables(db, me=me, alive_since=alive_since)
            )
            if table.kind in self._services
        ]
        if not found:
            return []
        won = await self._db.run(lambda db: tables_repo.claim(db, found, me=me))
        for table in won:
            log.info("taking over %s table %s from %s", table.kind, table.table_id, table.owner or "nobody")
            try:
                await self._services[table.kind].adopt(table.table_id)
            except Exception:
                log.exception("serving table %s after taking it over failed", table.table_id)
        return [table.table_id for table in won]

    @staticmethod
    async def _every(seconds: float, work: Callable[[], Awaitable[object]]) -> None:
        while True:
            await asyncio.sleep(seconds)
            try:
                await work()
            except Exception:
                log.exception("%s failed", getattr(work, "__name__", "a periodic task"))
