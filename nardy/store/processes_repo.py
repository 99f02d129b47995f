"""Queries about the running server processes: their heartbeats (``server_processes``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, update
from sqlalchemy.orm import Session

from nardy.store.models import ServerProcess


def beat(db: Session, process_id: str, now: datetime, *, forget_before: datetime) -> None:
    """Record that ``process_id`` is alive at ``now``, and remove the rows of processes unseen since ``forget_before``.

    The row is made again if it is missing (the first beat, or a peer removed
    it while this process was stalled). A table whose owner has no row counts
    as unowned, exactly as one whose owner's heartbeat is stale, so removing
    old rows changes nothing but the table's size.
    """
    db.execute(delete(ServerProcess).where(ServerProcess.seen_at < forget_before))
    seen = db.execute(update(ServerProcess).where(ServerProcess.id == process_id).values(seen_at=now))
    if seen.rowcount != 1:  # type: ignore[attr-defined]
        db.add(ServerProcess(id=process_id, started_at=now, seen_at=now))
    db.commit()


def forget(db: Session, process_id: str) -> None:
    """Remove the process's row (a graceful stop): its tables count as unowned at once."""
    db.execute(delete(ServerProcess).where(ServerProcess.id == process_id))
    db.commit()
