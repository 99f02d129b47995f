"""Group commit: the appends of many tables written in one transaction.

Every accepted action is one committed transaction on its table's row, and
at a few hundred actions a second the per-transaction work (a session, the
BEGIN and COMMIT, on PostgreSQL the write-ahead-log flush) costs more than
the rows themselves. One writer thread takes whatever appends are waiting,
runs them in one transaction on one connection and commits once; each
caller's await returns only after that commit, so "commit before publish"
holds for every action in the batch. With one action waiting the batch is that action alone: a
quiet server pays nothing for batching, a busy one pays one commit for
many actions.

A grouped job is given a cursor of its own on the driver's connection and
the dialect (:mod:`nardy.store.driver_sql`: the per-statement work of
SQLAlchemy's execution cost more than the writes). It sends its writes and
returns its verdict, which the writer calls once the transaction has ended:
on PostgreSQL the batch is pipelined, BEGIN, every job's statements and
COMMIT sent together, so a job learns what its statements did only then
(:func:`~nardy.store.driver_sql.one_transaction`). A job must therefore be
all-or-nothing within its statements: when the table has moved on it writes
nothing, and its verdict raises
:class:`~nardy.store.tables_repo.VersionConflict`, which fails that job
alone. It never commits or rolls back. Any other error rolls the whole batch
back, and then every job of it runs again in a transaction of its own, so
only the job at fault sees its error.

A batch runs its jobs in the order of their keys (the table ids), so two
processes' batches lock the rows they share in the same order and cannot
deadlock each other on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import Dialect, Engine
from sqlalchemy.engine.interfaces import DBAPICursor
from sqlalchemy.pool import PoolProxiedConnection

from nardy.store.driver_sql import one_transaction, own_connection
from nardy.store.tables_repo import Verdict, VersionConflict

log = logging.getLogger(__name__)

GroupedWork = Callable[[DBAPICursor, Dialect], Verdict]
"""A grouped job's writes: given a cursor of the batch's connection and the database's dialect, it sends them and
returns its verdict (the module's docstring)."""

MAX_BATCH = 64
"""The most appends one transaction takes (a bound on how long its commit keeps the others waiting)."""


@dataclass(slots=True)
class _Job:
    key: str
    work: GroupedWork
    loop: asyncio.AbstractEventLoop
    done: asyncio.Future[None] = field(repr=False)


class GroupCommit:
    """One writer thread committing the waiting appends together (see the module's docstring)."""

    def __init__(self, engine: Engine, *, max_batch: int = MAX_BATCH) -> None:
        self._engine = engine
        self._max_batch = max_batch
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._connection: PoolProxiedConnection | None = None
        self._thread = threading.Thread(target=self._serve, name="nardy-db-group", daemon=True)
        self._thread.start()

    async def write(self, key: str, work: GroupedWork) -> None:
        """Run ``work`` (writing the rows of ``key``) in the next grouped transaction; return once it is committed.

        Raises what ``work`` raised (nothing of it is written then), or the
        commit's error. Like :meth:`DatabaseThreads.run`, a cancelled caller
        still waits for its transaction to end.
        """
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._jobs.put(_Job(key, work, loop, done))
        try:
            await asyncio.shield(done)
        except asyncio.CancelledError:
            await asyncio.wait([done])
            raise

    def close(self) -> None:
        """Commit what is waiting and stop the writer."""
        self._jobs.put(None)
        self._thread.join()

    def _serve(self) -> None:
        try:
            self._serve_until_closed()
        finally:
            self._let_go()

    def _serve_until_closed(self) -> None:
        stopping = False
        while not stopping:
            first = self._jobs.get()
            if first is None:
                return
            batch = [first]
            while len(batch) < self._max_batch:
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    stopping = True
                    break
                batch.append(job)
            batch.sort(key=lambda job: job.key)
            self._commit(batch)

    def _commit(self, batch: list[_Job]) -> None:
        try:
            outcomes = self._run(batch)
        except Exception:
            log.debug("a grouped transaction of %d failed; each job runs alone", len(batch), exc_info=True)
            self._let_go()
            outcomes = [self._alone(job) for job in batch]
        for job, outcome in zip(batch, outcomes):
            try:
                job.loop.call_soon_threadsafe(_settle, job.done, outcome)
            except RuntimeError:  # its loop has closed: nobody awaits it any more
                log.debug("a grouped append finished after its event loop closed")

    def _run(self, batch: list[_Job]) -> list[BaseException | None]:
        """Run ``batch`` in one transaction and commit it; each job's verdict."""
        connection = self._held()
        dialect = self._engine.dialect
        with one_transaction(connection, dialect):
            verdicts = [job.work(connection.cursor(), dialect) for job in batch]
        return [_judged(verdict) for verdict in verdicts]

    def _alone(self, job: _Job) -> BaseException | None:
        try:
            return self._run([job])[0]
        except Exception as error:
            self._let_go()
            return error

    def _held(self) -> PoolProxiedConnection:
        """The writer's own connection, kept from batch to batch, out of the engine's pool
        (:func:`~nardy.store.driver_sql.own_connection`).

        Kept, not checked out of the pool for each batch: SQLite keeps its
        page cache per connection, and a batch on whichever pooled connection
        came next could find the tables' pages cold (in the load benchmark
        the gain was too small to tell from the noise: benchmarks/RESULTS.md),
        and PostgreSQL's pipelined batches need a connection set up for them."""
        if self._connection is None:
            self._connection = own_connection(self._engine)
        return self._connection

    def _let_go(self) -> None:
        """Close the writer's connection, and with it what its transaction left (a broken one is dropped)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.close()


def _judged(verdict: Verdict) -> VersionConflict | None:
    try:
        verdict()
    except VersionConflict as conflict:
        return conflict
    return None


def _settle(done: asyncio.Future[None], outcome: BaseException | None) -> None:
    if done.cancelled():
        return
    if outcome is None:
        done.set_result(None)
    else:
        done.set_exception(outcome)
