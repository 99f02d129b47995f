"""Queries about post-game analyses (``analyses``): requesting one, claiming jobs, progress and results."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from nardy.store.models import Analysis


def get(db: Session, table_id: str) -> Analysis | None:
    """The analysis of ``table_id``, if one was requested."""
    return db.get(Analysis, table_id)


def request(db: Session, *, table_id: str, level: str, user_id: int | None, now: datetime) -> tuple[Analysis, bool]:
    """The table's analysis, queued now if there was none (or the last one failed); and whether it was queued now."""
    existing = db.get(Analysis, table_id)
    if existing is not None and existing.status != "failed":
        return existing, False
    if existing is None:
        job = Analysis(table_id=table_id, level=level, status="queued", progress=0.0, requested_by=user_id,
                       requested_at=now)
        db.add(job)
    else:
        job = existing
        job.level, job.status, job.progress, job.error = level, "queued", 0.0, None
        job.requested_by, job.requested_at, job.claimed_by, job.heartbeat_at = user_id, now, None, None
    try:
        db.commit()
    except IntegrityError:  # another request queued it first
        db.rollback()
        found = db.get(Analysis, table_id)
        assert found is not None
        return found, False
    return job, True


def claim(db: Session, *, me: str, now: datetime, stale_before: datetime) -> tuple[str, str] | None:
    """Take the oldest queued job, or a running one whose heartbeat is older than ``stale_before``.

    Returns ``(table_id, level)`` of the job won, or None. The conditional
    UPDATE is the claim: of several processes trying one job, one wins.
    """
    waiting = or_(Analysis.status == "queued", (Analysis.status == "running") & (Analysis.heartbeat_at < stale_before))
    candidates = db.execute(
        select(Analysis.table_id, Analysis.level, Analysis.status, Analysis.claimed_by)
        .where(waiting).order_by(Analysis.requested_at).limit(5)
    ).all()
    for table_id, level, status, claimed_by in candidates:
        same = (Analysis.status == status) & (
            Analysis.claimed_by.is_(None) if claimed_by is None else Analysis.claimed_by == claimed_by
        )
        won = db.execute(
            update(Analysis).where(Analysis.table_id == table_id, same)
            .values(status="running", claimed_by=me, heartbeat_at=now, progress=0.0)
        )
        db.commit()
        if won.rowcount == 1:  # type: ignore[attr-defined]
            return table_id, level
    return None


def progress(db: Session, *, table_id: str, me: str, done: float, now: datetime) -> bool:
    """Record progress (0..1) and a heartbeat of a job this process holds; False when it holds it no more."""
    moved = db.execute(
        update(Analysis).where(Analysis.table_id == table_id, Analysis.claimed_by == me, Analysis.status == "running")
        .values(progress=done, heartbeat_at=now)
    )
    db.commit()
    return bool(moved.rowcount == 1)  # type: ignore[attr-defined]


def finish(db: Session, *, table_id: str, me: str, result: dict[str, Any], now: datetime) -> bool:
    """Store the result of a job this process holds; False (nothing stored) if another took it over."""
    moved = db.execute(
        update(Analysis).where(Analysis.table_id == table_id, Analysis.claimed_by == me, Analysis.status == "running")
        .values(status="done", progress=1.0, result=result, finished_at=now, heartbeat_at=now)
    )
    db.commit()
    return bool(moved.rowcount == 1)  # type: ignore[attr-defined]


def fail(db: Session, *, table_id: str, me: str, error: str, now: datetime) -> None:
    """Mark a job this process holds as failed, with a short reason (it may be requested again)."""
    db.execute(
        update(Analysis).where(Analysis.table_id == table_id, Analysis.claimed_by == me)
        .values(status="failed", error=error[:500], finished_at=now)
    )
    db.commit()
