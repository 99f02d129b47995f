"""Queries about analysis jobs: a finished table's analysis (``analyses``) and an imported match's
(``imported_matches``, each row its own job): requesting, claiming, progress and results.

The queue works both kinds alike; a job is named by a :class:`JobKey`, the
kind of thing analysed and its id. Queued jobs are claimed by priority
(``analyses.priority``; an import is always a user's, :data:`USER_PRIORITY`),
then oldest first. On PostgreSQL a claim locks its candidate rows with ``FOR
UPDATE SKIP LOCKED``, so processes claiming at once (server processes, ``nardy
worker analysis`` processes on other machines) each get a different job
without waiting on each other; on SQLite, which has one writer at a time, the
conditional UPDATE alone decides.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal, NamedTuple

from sqlalchemy import ColumnElement, func, literal, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import InstrumentedAttribute, Session

from nardy.store.models import BACKGROUND_PRIORITY, USER_PRIORITY, Analysis, AnalysisJob, ImportedMatch

JobKind = Literal["table", "import"]

_MODELS: dict[JobKind, type[Analysis] | type[ImportedMatch]] = {"table": Analysis, "import": ImportedMatch}
_KEYS: dict[JobKind, InstrumentedAttribute[str]] = {"table": Analysis.table_id, "import": ImportedMatch.id}
_CANDIDATES = 5
"""Jobs of each kind looked at per claim, oldest first: a lost race moves on to the next."""


class JobKey(NamedTuple):
    """Which analysis job: a finished table's (``table``) or an imported match's (``import``), by its id."""

    kind: JobKind
    id: str


def get(db: Session, table_id: str) -> Analysis | None:
    """The analysis of ``table_id``, if one was requested."""
    return db.get(Analysis, table_id)


def background(*, table_id: str, level: str, now: datetime) -> Analysis:
    """The analysis the server queues by itself for a rated match that just ended, behind users' requests
    (not added: it rides in the transaction that records the match's end)."""
    return Analysis(table_id=table_id, level=level, status="queued", progress=0.0, requested_by=None,
                    requested_at=now, priority=BACKGROUND_PRIORITY)


def wants_work(existing: Analysis | None, level: str) -> bool:
    """Whether a user's request for ``level`` queues work: there is no analysis, the last one failed, or only
    the background one, not yet run or shallower than ``level``."""
    if existing is None or existing.status == "failed":
        return True
    if existing.priority >= USER_PRIORITY:
        return False
    return existing.status == "queued" or _LEVELS.index(level) > _LEVELS.index(existing.level)


_LEVELS = ("advanced", "expert", "world-class")
"""The analysis levels, shallowest first (``nardy.bots.analysis.LEVELS``, which the store does not import)."""


def request(db: Session, *, table_id: str, level: str, user_id: int | None, now: datetime) -> tuple[Analysis, bool]:
    """The table's analysis, queued now at the user's priority if there was none, the last one failed, or there
    is only the background one, not yet run or shallower than ``level`` (:func:`wants_work`); and whether it
    was queued now. A background analysis still queued is promoted in place, at ``level``."""
    existing = db.get(Analysis, table_id)
    if not wants_work(existing, level):
        assert existing is not None
        return existing, False
    if existing is None:
        job = Analysis(table_id=table_id, level=level, status="queued", progress=0.0, requested_by=user_id,
                       requested_at=now, priority=USER_PRIORITY)
        db.add(job)
    else:
        job = existing
        queue_again(job, level=level, user_id=user_id, now=now)
        job.priority = USER_PRIORITY
    try:
        db.commit()
    except IntegrityError:  # another request queued it first
        db.rollback()
        found = db.get(Analysis, table_id)
        assert found is not None
        return found, False
    return job, True


def queue_again(job: AnalysisJob, *, level: str, user_id: int | None, now: datetime) -> None:
    """Put a failed job back in the queue at ``level`` (the caller commits)."""
    job.level, job.status, job.progress, job.error = level, "queued", 0.0, None
    job.requested_by, job.requested_at, job.claimed_by, job.heartbeat_at = user_id, now, None, None


def claim(db: Session, *, me: str, now: datetime, stale_before: datetime) -> tuple[JobKey, str] | None:
    """Take the oldest queued job of either kind, or a running one whose heartbeat is older than ``stale_before``.

    Returns the job won and its level, or None. The conditional UPDATE is
    the claim: of several processes trying one job, one wins. Jobs of a
    higher priority come first, then the oldest. On PostgreSQL the
    candidates are locked as they are read (``FOR UPDATE SKIP LOCKED``): a
    job another claim is looking at is passed over, not waited for.
    """
    skip_locked = db.get_bind().dialect.name == "postgresql"
    candidates: list[tuple[int, datetime, JobKey, str, str, str | None]] = []
    for kind, model in _MODELS.items():
        waiting = or_(model.status == "queued", (model.status == "running") & (model.heartbeat_at < stale_before))
        columns = (_KEYS[kind], model.level, model.status, model.claimed_by, model.requested_at)
        if model is Analysis:
            query = select(*columns, Analysis.priority).order_by(Analysis.priority.desc(), model.requested_at)
        else:
            query = select(*columns, literal(USER_PRIORITY)).order_by(model.requested_at)
        query = query.where(waiting).limit(_CANDIDATES)
        if skip_locked:
            query = query.with_for_update(skip_locked=True, of=model)
        rows = db.execute(query).all()
        candidates.extend((rank, requested_at, JobKey(kind, key), level, status, claimed_by)
                          for key, level, status, claimed_by, requested_at, rank in rows)
    candidates.sort(key=lambda candidate: (-candidate[0], candidate[1]))
    if not candidates:
        db.rollback()
        return None
    for _, _, job, level, status, claimed_by in candidates:
        model = _MODELS[job.kind]
        same = (model.status == status) & (
            model.claimed_by.is_(None) if claimed_by is None else model.claimed_by == claimed_by
        )
        won = db.execute(
            update(model).where(_is(job), same).values(status="running", claimed_by=me, heartbeat_at=now, progress=0.0)
        )
        db.commit()
        if won.rowcount == 1:  # type: ignore[attr-defined]
            return job, level
    return None


def queued(db: Session) -> int:
    """How many jobs of either kind wait for a worker."""
    return sum(db.scalar(select(func.count()).select_from(model).where(model.status == "queued")) or 0
               for model in _MODELS.values())


def table_jobs(db: Session) -> list[tuple[str, datetime | None]]:
    """Every table's analysis as (status, when it ended or None), those that ended first, earliest first: how
    fast the queue is worked (the load benchmark's ``--analysis-backlog``)."""
    rows = db.execute(select(Analysis.status, Analysis.finished_at)
                      .order_by(Analysis.finished_at.is_(None), Analysis.finished_at))
    return [(status, finished) for status, finished in rows]


def progress(db: Session, *, job: JobKey, me: str, done: float, now: datetime) -> bool:
    """Record progress (0..1) and a heartbeat of a job this process holds; False when it holds it no more."""
    model = _MODELS[job.kind]
    moved = db.execute(
        update(model).where(_is(job), model.claimed_by == me, model.status == "running")
        .values(progress=done, heartbeat_at=now)
    )
    db.commit()
    return bool(moved.rowcount == 1)  # type: ignore[attr-defined]


def finish(db: Session, *, job: JobKey, me: str, result: dict[str, Any], now: datetime) -> bool:
    """Store the result of a job this process holds; False (nothing stored) if another took it over."""
    model = _MODELS[job.kind]
    moved = db.execute(
        update(model).where(_is(job), model.claimed_by == me, model.status == "running")
        .values(status="done", progress=1.0, result=result, finished_at=now, heartbeat_at=now)
    )
    db.commit()
    return bool(moved.rowcount == 1)  # type: ignore[attr-defined]


def fail(db: Session, *, job: JobKey, me: str, error: str, now: datetime) -> None:
    """Mark a job this process holds as failed, with a short reason (it may be requested again)."""
    model = _MODELS[job.kind]
    db.execute(update(model).where(_is(job), model.claimed_by == me).values(status="failed", error=error[:500],
                                                                            finished_at=now))
    db.commit()


def _is(job: JobKey) -> ColumnElement[bool]:
    return _KEYS[job.kind] == job.id
