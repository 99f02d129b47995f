"""Post-game analyses, off the event loop: a queue in the database, worked by a pool of worker processes.

``POST /api/tables/{id}/analysis`` writes a ``queued`` row (``analyses``),
``POST /api/imports`` an imported match whose row is its own job
(``imported_matches``); each wakes this process's queue. The queue's task
claims the oldest job of either kind with a conditional UPDATE (any server
process may; one wins each job), reads the table's or the import's record
and hands it to a worker process (``spawn``-started, kept in
a pool), which replays the record through the rules (a chouette's as each
member's game against the box, :mod:`nardy.server.services.chouette_analysis`),
analyses every decision (:mod:`nardy.bots.analysis`) and writes its progress, with a
heartbeat, into the job's row as it goes. The result is stored in the same
row. A job whose heartbeat stops for ``stale_seconds`` (its process died) is
claimed again by whichever process looks next; a job that raises is marked
``failed`` with the reason, and may be requested again.

Analysis never runs in the server's own process, so a long 2-ply analysis
costs live games nothing but a CPU core, and the worker processes run at a
lower CPU priority (:data:`WORKER_NICE`), so that even that core goes to
live games first when they want it. Users' requests pass ahead of the
background analysis the server queues at the end of every rated match
(``analyses.priority``); when a table's analysis is stored, its rated
players' figures go to the fair-play detector
(:func:`nardy.server.services.fair_play.review`).

A process with no workers claims nothing: the jobs it queues wait for a
process that has some (a dedicated one, docs/operations.md, or ``nardy
worker analysis`` processes, :mod:`nardy.server.services.analysis_worker`,
which claim from the same queue), and it only counts them for its metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from nardy.bots.analysis import analyse
from nardy.notation.transcript import transcript_from_record
from nardy.server.runtime.metrics import SILENT, Metrics
from nardy.server.services.chouette_analysis import member_games
from nardy.server.services.chouette_state import CHOUETTE_KIND
from nardy.server.services.chouettes import chouette_spec_from_row
from nardy.server.services.clock import Clock
from nardy.server.services.database import DatabaseThreads
from nardy.server.services.fair_play import review
from nardy.server.services.records import public_record
from nardy.server.services.tables import spec_from_row
from nardy.store import analyses_repo, imports_repo, tables_repo
from nardy.store.analyses_repo import JobKey
from nardy.store.db import make_engine, make_sessionmaker

log = logging.getLogger(__name__)

PROGRESS_EVERY_SECONDS = 0.5
"""How often a worker process writes its progress (and heartbeat) at most."""

WORKER_NICE = 10
"""How much a worker process lowers its CPU priority (``os.nice``) as it starts."""


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
        now = self._clock.now()
        began = time.monotonic()
        try:
            record = await self._db.run(lambda session: job_record(session, job))
            pool = self._pool or self._start_pool()
            result = await asyncio.get_running_loop().run_in_executor(
                pool, analyse_in_worker, self._database_url, job, self._me, record, level,
            )
        except Exception as error:  # the job fails, the queue goes on
            log.exception("analysis of %s %s failed", job.kind, job.id)
            reason = f"{type(error).__name__}: {error}"
            await self._db.run(lambda session: analyses_repo.fail(session, job=job, me=self._me, error=reason, now=now))
            self._metrics.analysis_done(time.monotonic() - began, failed=True)
            return
        finished = self._clock.now()
        stored = await self._db.run(
            lambda session: analyses_repo.finish(session, job=job, me=self._me, result=result, now=finished)
        )
        self._metrics.analysis_done(time.monotonic() - began, failed=False)
        if not stored:
            log.warning("analysis of %s %s was taken over by another process (or removed) before it finished here",
                        job.kind, job.id)
        elif job.kind == "table":
            try:
                await self._db.run(lambda session: review(session, table_id=job.id, result=result, level=level,
                                                          now=finished))
            except Exception:  # fair play is looked at again with the player's next match
                log.exception("the fair-play review of table %s failed", job.id)

    def _start_pool(self) -> ProcessPoolExecutor:
        self._pool = ProcessPoolExecutor(max_workers=self._workers, mp_context=multiprocessing.get_context("spawn"),
                                         initializer=lower_priority)
        return self._pool


def job_record(db: Session, job: JobKey) -> dict[str, Any]:
    """The record a job analyses: an import's, a table's, or a chouette's members' games."""
    if job.kind == "import":
        record = imports_repo.record(db, job.id)
        if record is None:
            raise LookupError(f"there is no imported match {job.id!r}")
        return record
    row = tables_repo.get_table(db, job.id)
    if row is None:
        raise LookupError(f"there is no table {job.id!r}")
    events = tables_repo.events_after(db, job.id)
    if row.kind == CHOUETTE_KIND:
        games = member_games(job.id, chouette_spec_from_row(row), events)
        return {"chouette_games": [
            {"number": game.number, "box": game.box, "member": game.member, "record": game.record} for game in games
        ]}
    return public_record(job.id, spec_from_row(row), events)


# ---------------------------------------------------------------- in the worker process


def lower_priority() -> None:
    """Give live games the CPU first: this process's priority drops by :data:`WORKER_NICE`."""
    os.nice(WORKER_NICE)


def analyse_in_worker(database_url: str, job: JobKey, me: str, record: dict[str, Any], level: str) -> dict[str, Any]:
    """Analyse a record at ``level`` and return the result's JSON; progress goes to the job's row."""
    sessions = _worker_sessions(database_url)
    last = [0.0]

    def report(done: int, total: int) -> None:
        moment = time.monotonic()
        if moment - last[0] < PROGRESS_EVERY_SECONDS or total <= 0:
            return
        last[0] = moment
        with sessions() as session:
            if not analyses_repo.progress(session, job=job, me=me, done=done / total, now=datetime.now(UTC)):
                raise RuntimeError("the job was taken over by another process, or removed")

    if "chouette_games" in record:
        return _analyse_chouette(record["chouette_games"], level, report)
    result = analyse(transcript_from_record(record), level=level, progress=report)
    answer: dict[str, Any] = result.to_json()
    return answer


def _analyse_chouette(games: list[dict[str, Any]], level: str, report: Callable[[int, int], None]) -> dict[str, Any]:
    """Each team member's game against the box, analysed as a money game of its own (one cube per member):
    ``{"kind": "chouette", "members": [{"number", "box", "member", ...the analysis...}]}``, in the order played."""
    members = []
    for index, game in enumerate(games):
        def part(done: int, total: int, before: int = index) -> None:
            report(before * total + done, len(games) * total)

        analysis = analyse(transcript_from_record(game["record"]), level=level, progress=part)
        members.append({"number": game["number"], "box": game["box"], "member": game["member"], **analysis.to_json()})
    return {"kind": "chouette", "members": members}


@functools.cache
def _worker_sessions(database_url: str) -> sessionmaker[Session]:
    """One engine per worker process, made on its first job."""
    engine: Engine = make_engine(database_url)
    return make_sessionmaker(engine)
