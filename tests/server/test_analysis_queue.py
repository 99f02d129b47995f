"""The server's own analysis pool: its worker processes run each job whole (record, analysis, result, fair play),
and a worker process that dies fails only its own job, the next job getting a fresh pool."""

from __future__ import annotations

import asyncio
import os
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy.orm import Session, sessionmaker

from nardy.server.services.analysis_job import JobOutcome, run_job
from nardy.server.services.analysis_queue import AnalysisQueue
from nardy.server.services.clock import SystemClock
from nardy.server.services.database import DatabaseThreads
from nardy.store import analyses_repo
from nardy.store.analyses_repo import JobKey
from nardy.store.db import make_engine, make_sessionmaker
from nardy.store.migrate import upgrade
from nardy.store.models import GameTable
from tests.databases import sqlite_url  # noqa: F401  (fixture)

pytestmark = pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")

NOW = datetime(2026, 12, 6, 12, tzinfo=UTC)


def _no_decisions(url: str, job: JobKey, me: str, record: dict[str, Any], level: str) -> dict[str, Any]:
    return {"games": [], "analysed_in": os.getpid()}


def runner_dying_on_table_dies(url: str, me: str, job: JobKey, level: str) -> JobOutcome:
    """In a pool's worker process: die on table ``dies``, run any other job whole (with an empty analysis)."""
    if job.id == "dies":
        os._exit(3)
    return run_job(make_sessionmaker(make_engine(url)), url, me, job, level, _no_decisions)


def _queue_two_jobs(sessions: sessionmaker[Session]) -> None:
    with sessions() as db:
        for minute, table in enumerate(("dies", "lives")):
            db.add(GameTable(id=table, variant="backgammon", match_length=1, options={}, created_at=NOW,
                             status="finished"))
            db.flush()
            db.add(analyses_repo.background(table_id=table, level="advanced", now=NOW.replace(minute=minute)))
        db.commit()


async def _work_until_both_end(url: str, sessions: sessionmaker[Session]) -> None:
    engine = make_engine(url)
    queue = AnalysisQueue(db=DatabaseThreads(make_sessionmaker(engine), engine), clock=SystemClock(),
                          process_id="server-1", database_url=url, workers=1, poll_seconds=0.1, stale_seconds=600,
                          job_runner=runner_dying_on_table_dies)
    await queue.start()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            with sessions() as db:
                if all(analyses_repo.get(db, table).status in ("done", "failed")  # type: ignore[union-attr]
                       for table in ("dies", "lives")):
                    return
            await asyncio.sleep(0.1)
        pytest.fail("the two jobs did not end")
    finally:
        await queue.stop()
        engine.dispose()


def test_a_dead_worker_process_fails_its_job_and_the_next_job_gets_a_fresh_one(sqlite_url: str) -> None:  # noqa: F811
    upgrade(sqlite_url)
    engine = make_engine(sqlite_url)
    sessions = make_sessionmaker(engine)
    try:
        _queue_two_jobs(sessions)
        asyncio.run(_work_until_both_end(sqlite_url, sessions))
        with sessions() as db:
            dead = analyses_repo.get(db, "dies")
            alive = analyses_repo.get(db, "lives")
            assert dead is not None and dead.status == "failed"
            assert "BrokenProcessPool" in (dead.error or ""), dead.error
            assert alive is not None and alive.status == "done", alive.error if alive else None
            assert alive.result["analysed_in"] != os.getpid(), "the worker process stored the result itself"
    finally:
        engine.dispose()
