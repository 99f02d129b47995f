"""One analysis job, from its record to its stored result, in the worker process that analyses it.

Both kinds of worker run a claimed job through :func:`run_job`: the
server's own pool (:mod:`nardy.server.services.analysis_queue`, through
:func:`run_job_in_pool`) and ``nardy worker analysis`` processes
(:mod:`nardy.server.services.analysis_worker`). The job's record is read,
analysed, its progress and heartbeat written as it goes, the result stored
and, for a table, the fair-play detector fed
(:func:`nardy.server.services.fair_play.review`), all here, at the worker's
lowered CPU priority and on its own database connection. The server's
process only claims the job and hears how it ended: reading a match's
events, writing its result and judging its players cost some tens of
milliseconds of Python each, which in the server's process would hold the
interpreter's lock against the live tables' event loop
(`benchmarks/RESULTS.md`, *Analysis workers busy, and metrics on*).
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from nardy.bots.analysis import analyse
from nardy.notation.transcript import transcript_from_record
from nardy.server.services.chouette_analysis import member_games
from nardy.server.services.chouette_state import CHOUETTE_KIND
from nardy.server.services.chouettes import chouette_spec_from_row
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

ORPHAN_CHECK_SECONDS = 1.0
"""How often a server pool's process looks whether its server is still there."""

Analyser = Callable[[str, JobKey, str, dict[str, Any], str], dict[str, Any]]
"""What analyses a job: (database URL, job, worker id, record, level) to the result's JSON."""


@dataclass(frozen=True)
class JobOutcome:
    """How a job ended in its worker, for the caller to count and log (:func:`run_job` logs nothing).

    ``stored``: the result is in the job's row. Neither stored nor failed: another process took the
    job over (or it was removed) before it finished here. ``error``: the reason written into a failed
    job's row; ``trace``: the traceback of that failure, or of a fair-play review that raised after the
    result was stored (the review is tried again with the player's next match).
    """

    stored: bool
    error: str | None = None
    trace: str | None = None

    @property
    def failed(self) -> bool:
        """The job is marked failed, with :attr:`error` as its reason."""
        return self.error is not None


def log_outcome(job: JobKey, outcome: JobOutcome) -> None:
    """Log a job that failed, was taken over, or whose fair-play review raised; a job stored cleanly is not logged."""
    if outcome.failed:
        log.error("analysis of %s %s failed: %s\n%s", job.kind, job.id, outcome.error, outcome.trace)
    elif not outcome.stored:
        log.warning("analysis of %s %s was taken over by another process (or removed) before it finished here",
                    job.kind, job.id)
    elif outcome.trace is not None:
        log.error("the fair-play review of table %s failed\n%s", job.id, outcome.trace)


def lower_priority() -> None:
    """Give live games the CPU first: this process's priority drops by :data:`WORKER_NICE`."""
    os.nice(WORKER_NICE)


def start_pool_worker() -> None:
    """A server pool's process as it starts: lower its priority, and end it once the server that started it is gone.

    A pool's process holds its own end of the queue it reads jobs from, so it never sees the server die: without
    this watch a server killed or stopped mid-job left its workers behind, idle for good, each holding its memory.
    A job under way when the server dies is left to go stale and be claimed again, as a dead worker's is.
    """
    lower_priority()
    server = os.getppid()

    def watch() -> None:
        while os.getppid() == server:
            time.sleep(ORPHAN_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="nardy-server-watch", daemon=True).start()


def run_job(sessions: sessionmaker[Session], database_url: str, me: str, job: JobKey, level: str,
            analyser: Analyser | None = None) -> JobOutcome:
    """Read ``job``'s record, analyse it at ``level`` (``analyser``, :func:`analyse_in_worker` by default), store
    the result as worker ``me`` and feed a table's to the fair-play detector; a job that raises is marked failed."""
    try:
        with sessions() as db:
            record = job_record(db, job)
        result = (analyser or analyse_in_worker)(database_url, job, me, record, level)
    except Exception as error:  # the job fails, the worker goes on
        reason = f"{type(error).__name__}: {error}"
        with sessions() as db:
            analyses_repo.fail(db, job=job, me=me, error=reason, now=datetime.now(UTC))
        return JobOutcome(stored=False, error=reason, trace=traceback.format_exc())
    now = datetime.now(UTC)
    with sessions() as db:
        if not analyses_repo.finish(db, job=job, me=me, result=result, now=now):
            return JobOutcome(stored=False)
        if job.kind == "table":
            try:
                review(db, table_id=job.id, result=result, level=level, now=now)
            except Exception:  # fair play is looked at again with the player's next match
                return JobOutcome(stored=True, trace=traceback.format_exc())
    return JobOutcome(stored=True)


def run_job_in_pool(database_url: str, me: str, job: JobKey, level: str) -> JobOutcome:
    """:func:`run_job` in a process of the server's pool, on that process's own engine (made on its first job)."""
    return run_job(_worker_sessions(database_url), database_url, me, job, level)


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
