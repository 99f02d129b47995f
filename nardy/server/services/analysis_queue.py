"""Post-game analyses, off the event loop: a queue in the database, worked by a pool of worker processes.

``POST /api/tables/{id}/analysis`` writes a ``queued`` row (``analyses``),
``POST /api/imports`` an imported match whose row is its own job
(``imported_matches``); each wakes this process's queue. The queue's task
claims the oldest job of either kind with a conditional UPDATE (any server
process may; one wins each job) and hands its key to a worker process
(``spawn``-started, kept in a pool), which does the rest on its own
database connection (:func:`nardy.server.services.analysis_job.run_job`):
reads the table's or the import's record, replays it through the rules (a
chouette's as each member's game against the box,
:mod:`nardy.server.services.chouette_analysis`), analyses every decision
(:mod:`nardy.bots.analysis`), writes its progress, with a heartbeat, into
the job's row as it goes, stores the result in the same row and feeds a
table's rated players' figures to the fair-play detector
(:func:`nardy.server.services.fair_play.review`). A job whose heartbeat
stops for ``stale_seconds`` (its process died) is claimed again by whichever
process looks next; a job that raises is marked ``failed`` with the reason,
and may be requested again.

Analysis never runs in the server's own process, nor does the work around
it (reading the record, storing the result, judging the players: Python
that would hold the interpreter's lock against the event loop): a long
2-ply analysis costs live games a CPU core (on a machine with none to
spare, also some of their slowest round trips: docs/operations.md). The
worker processes run at a lower CPU priority
(:data:`~nardy.server.services.analysis_job.WORKER_NICE`), so that even
that core goes to live games first when they want it. Users' requests pass
ahead of the background analysis the server queues at the end of every
rated match (``analyses.priority``).

A process with no workers claims nothing: the jobs it queues wait for a
process that has some (a dedicated one, docs/operations.md, or ``nardy
worker analysis`` processes, :mod:`nardy.server.services.analysis_worker`,
which claim from the same queue), and it only counts them for its metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from datetime import timedelta

from nardy.server.runtime.metrics import SILENT, Metrics
from nardy.server.services.analysis_job import JobOutcome, log_outcome, run_job_in_pool, start_pool_worker
from nardy.server.services.clock import Clock
from nardy.server.services.database import DatabaseThreads
from nardy.store import analyses_repo
from nardy.store.analyses_repo import JobKey

log = logging.getLogger(__name__)

JobRunner = Callable[[str, str, JobKey, str], JobOutcome]
"""What a worker process runs for a claimed job: (database URL, this process's id, job, level) to how it ended;
:func:`~nardy.server.services.analysis_job.run_job_in_pool`, or a test's stand-in (a module-level function, which
a spawned process can import)."""


class AnalysisQueue:
    """This process's share of the analysis queue: one task claiming jobs, a pool of worker processes."""

    def __init__(
        self,
        *,
        db: DatabaseThreads,
        clock: Clock,
        process_id: str,
        database_url: str,
        workers: int,
        poll_seconds: float,
        stale_seconds: float,
        metrics: Metrics = SILENT,
        job_runner: JobRunner = run_job_in_pool,
    ) -> None:
        self._db = db
        self._clock = clock
        self._me = process_id
        self._database_url = database_url
        self._workers = workers
        self._poll = poll_seconds
        self._stale = timedelta(seconds=stale_seconds)
        self._wake = asyncio.Event()
        self._pool: ProcessPoolExecutor | None = None
        self._task: asyncio.Task[None] | None = None
        self._running: set[asyncio.Task[None]] = set()
        self._metrics = metrics
        self._job_runner = job_runner

    async def start(self) -> None:
        """Start claiming jobs (the worker processes start with the first job)."""
        self._task = asyncio.create_task(self._serve(), name="nardy-analysis-queue")

    async def stop(self) -> None:
        """Stop claiming; a job under way is left to go stale and be claimed again by a live process."""
        tasks = [task for task in (self._task, *self._running) if task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def wake(self) -> None:
        """A job was queued: look now rather than at the next poll."""
        self._wake.set()

    async def _serve(self) -> None:
        running = self._running
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._poll)
            self._wake.clear()
            while len(running) < self._workers:
                now = self._clock.now()
                try:
                    job = await self._db.run(
                        lambda session: analyses_repo.claim(session, me=self._me, now=now, stale_before=now - self._stale)
                    )
                except Exception:
                    log.exception("claiming an analysis job failed")
                    break
                if job is None:
                    break
                key, level = job
                task = asyncio.create_task(self._run(key, level), name=f"nardy-analysis-{key.kind}-{key.id}")
                running.add(task)
                task.add_done_callback(running.discard)
                task.add_done_callback(lambda _: self._wake.set())  # a worker is free: look for more
            if self._metrics.enabled:
                await self._count_waiting()

    async def _count_waiting(self) -> None:
        try:
            self._metrics.analysis_queue(await self._db.run(analyses_repo.queued))
        except Exception:
            log.exception("counting the analyses waiting failed")

    async def _run(self, job: JobKey, level: str) -> None:
        began = time.monotonic()
        pool: ProcessPoolExecutor | None = None
        try:
            pool = self._pool or self._start_pool()
            outcome: JobOutcome = await asyncio.get_running_loop().run_in_executor(
                pool, self._job_runner, self._database_url, self._me, job, level,
            )
        except Exception as error:  # the worker process died, or could not start: the job fails, the queue goes on
            log.exception("analysis of %s %s failed", job.kind, job.id)
            if isinstance(error, BrokenProcessPool) and self._pool is pool:
                self._pool = None  # the next job starts a fresh pool
            reason = f"{type(error).__name__}: {error}"
            now = self._clock.now()
            await self._db.run(lambda session: analyses_repo.fail(session, job=job, me=self._me, error=reason, now=now))
            self._metrics.analysis_done(time.monotonic() - began, failed=True)
            return
        self._metrics.analysis_done(time.monotonic() - began, failed=outcome.failed)
        log_outcome(job, outcome)

    def _start_pool(self) -> ProcessPoolExecutor:
        self._pool = ProcessPoolExecutor(max_workers=self._workers, mp_context=multiprocessing.get_context("spawn"),
                                         initializer=start_pool_worker)
        return self._pool

