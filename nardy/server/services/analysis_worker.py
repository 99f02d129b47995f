"""``nardy worker analysis``: analysis workers as processes of their own, on this machine or others.

Each worker process claims a job from the database's queue
(:func:`nardy.store.analyses_repo.claim`: on PostgreSQL with ``FOR UPDATE
SKIP LOCKED``, so workers claiming at once never wait on each other and
never take one job twice) and runs it as a process of the server's pool
does (:func:`nardy.server.services.analysis_job.run_job`): at a lowered CPU
priority it analyses the job, writing progress and heartbeats into its row,
stores the result and, for a table, feeds the fair-play detector
(:func:`nardy.server.services.fair_play.review`). A worker that dies leaves
its job to go stale and be claimed again. Users' requests pass ahead of
background analyses, as in the server's pool.

The server's own pool (``analysis_workers``) stays the default on one
machine; with dedicated workers it is set to 0 (docs/operations.md).
"""

from __future__ import annotations

import logging
import multiprocessing
import signal
import threading
from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session, sessionmaker

from nardy.server.services.analysis_job import Analyser, log_outcome, lower_priority, run_job
from nardy.server.services.peers import new_process_id
from nardy.store import analyses_repo
from nardy.store.db import make_engine, make_sessionmaker

log = logging.getLogger(__name__)


def work(
    database_url: str, sessions: sessionmaker[Session], *, me: str, stale_seconds: float, poll_seconds: float,
    stop: threading.Event, analyser: Analyser | None = None, until_idle: bool = False,
) -> int:
    """Claim and run jobs one at a time (:func:`~nardy.server.services.analysis_job.run_job`) until ``stop`` is
    set (or, ``until_idle``, the queue is empty); the number of jobs whose result was stored here."""
    finished = 0
    while not stop.is_set():
        now = datetime.now(UTC)
        with sessions() as db:
            claimed = analyses_repo.claim(db, me=me, now=now, stale_before=now - timedelta(seconds=stale_seconds))
        if claimed is None:
            if until_idle:
                return finished
            stop.wait(poll_seconds)
            continue
        job, level = claimed
        outcome = run_job(sessions, database_url, me, job, level, analyser)
        log_outcome(job, outcome)
        finished += outcome.stored
    return finished


def serve(database_url: str, *, stale_seconds: float, poll_seconds: float) -> None:
    """One worker process's life: lower its priority, connect, work until interrupted or sent SIGTERM (which
    lets the job under way finish first)."""
    lower_priority()
    engine = make_engine(database_url, pool_size=1, max_overflow=1)
    me = f"worker:{new_process_id()}"
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda _signal, _frame: stop.set())
    log.info("analysis worker %s claiming jobs", me)
    try:
        work(database_url, make_sessionmaker(engine), me=me, stale_seconds=stale_seconds, poll_seconds=poll_seconds,
             stop=stop)
    except KeyboardInterrupt:
        pass
    finally:
        engine.dispose()


def run_workers(database_url: str, *, processes: int, stale_seconds: float, poll_seconds: float) -> None:
    """``processes`` worker processes (spawned), until interrupted."""
    if processes == 1:
        serve(database_url, stale_seconds=stale_seconds, poll_seconds=poll_seconds)
        return
    context = multiprocessing.get_context("spawn")
    children = [context.Process(target=serve, args=(database_url,),
                                kwargs={"stale_seconds": stale_seconds, "poll_seconds": poll_seconds},
                                name=f"nardy-analysis-worker-{number}") for number in range(processes)]
    for child in children:
        child.start()

    def pass_on(_signal: int, _frame: object) -> None:  # each child finishes its job, then stops
        for child in children:
            child.terminate()

    signal.signal(signal.SIGTERM, pass_on)
    try:
        for child in children:
            child.join()
    except KeyboardInterrupt:
        for child in children:
            child.join()
