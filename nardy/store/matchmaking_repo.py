"""Queries about the matchmaking pool: one JSON row (``matchmaking``) rewritten whole under a version check."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from nardy.store.models import MatchmakingRow

POOL_ROW = 1
"""The id of the one row that holds the pool."""


def load_pool(db: Session) -> tuple[int | None, dict[str, Any]]:
    """The stored pool and its version; ``(None, {})`` while no row exists yet."""
    row = db.execute(
        select(MatchmakingRow.version, MatchmakingRow.state).where(MatchmakingRow.id == POOL_ROW)
    ).one_or_none()
    if row is None:
        return None, {}
    return int(row.version), dict(row.state)


def write_pool(db: Session, *, version: int | None, state: dict[str, Any], now: datetime) -> bool:
    """Store ``state`` over the pool read at ``version`` (None: no row then); False if someone wrote in between."""
    if version is None:
        db.add(MatchmakingRow(id=POOL_ROW, version=1, state=state, updated_at=now))
        try:
            db.commit()
        except IntegrityError:
            db.rollback()
            return False
        return True
    written = db.execute(
        update(MatchmakingRow)
        .where(MatchmakingRow.id == POOL_ROW, MatchmakingRow.version == version)
        .values(version=version + 1, state=state, updated_at=now)
    )
    if written.rowcount != 1:  # type: ignore[attr-defined]
        db.rollback()
        return False
    db.commit()
    return True
