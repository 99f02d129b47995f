"""Queries about imported matches (``imported_matches``): keeping one, a user's list, finding and removing one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session, defer

from nardy.store import owner_caps
from nardy.store.models import ImportedMatch

LISTED = 100
"""The most imports a user's list shows, newest first."""


CapPassed = Literal["kept", "unfinished"]
"""Which cap a refused import would have passed: the imports a user keeps, or those waiting for analysis."""


def add_within_caps(
    db: Session, imported: ImportedMatch, *, kept: int, unfinished: int, on_kept: Callable[[], None] | None = None,
) -> CapPassed | None:
    """Keep a new import (its analysis queued) unless its owner would then keep more than ``kept`` imports,
    or have more than ``unfinished`` queued or being analysed; the cap it would pass, else None. Two
    uploads at once cannot both pass; ``on_kept`` runs before a kept import is committed, and may still
    refuse it by raising (:func:`nardy.store.owner_caps.add_within_caps`)."""
    owner = imported.owner_id
    caps: tuple[owner_caps.Cap[CapPassed], ...] = (
        owner_caps.Cap("kept", lambda session: count_of_owner(session, owner), kept),
        owner_caps.Cap(
            "unfinished", lambda session: count_of_owner(session, owner, unfinished_only=True), unfinished,
        ),
    )
    return owner_caps.add_within_caps(db, imported, owner_id=owner, caps=caps, on_kept=on_kept)


def get(db: Session, import_id: str, *, owner_id: int) -> ImportedMatch | None:
    """The import ``import_id`` if ``owner_id`` read it in; None for anyone else's, as for one that is not there."""
    return db.scalar(select(ImportedMatch).where(ImportedMatch.id == import_id, ImportedMatch.owner_id == owner_id))


def record(db: Session, import_id: str) -> dict[str, Any] | None:
    """The kept record of import ``import_id`` (for its analysis, whoever owns it); None once it is removed."""
    return db.scalar(select(ImportedMatch.record).where(ImportedMatch.id == import_id))


def of_owner(db: Session, owner_id: int) -> list[ImportedMatch]:
    """The user's imports, newest first, without their records (a list shows none)."""
    rows = db.scalars(
        select(ImportedMatch).where(ImportedMatch.owner_id == owner_id)
        .options(defer(ImportedMatch.record), defer(ImportedMatch.result))
        .order_by(ImportedMatch.created_at.desc(), ImportedMatch.id).limit(LISTED)
    )
    return list(rows)


def count_of_owner(db: Session, owner_id: int, *, unfinished_only: bool = False) -> int:
    """How many imports the user keeps (``unfinished_only``: of those, how many are queued or being analysed)."""
    query = select(func.count()).select_from(ImportedMatch).where(ImportedMatch.owner_id == owner_id)
    if unfinished_only:
        query = query.where(ImportedMatch.status.in_(("queued", "running")))
    return db.scalar(query) or 0


def remove(db: Session, import_id: str, *, owner_id: int) -> bool:
    """Remove the user's import (a running analysis of it then finds nothing to write); whether there was one."""
    gone = db.execute(delete(ImportedMatch).where(ImportedMatch.id == import_id, ImportedMatch.owner_id == owner_id))
    db.commit()
    return bool(gone.rowcount == 1)  # type: ignore[attr-defined]
