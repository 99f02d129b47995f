"""Rows a user may own only so many of (imports, tournaments not yet started), kept within their caps also
when that user's requests arrive at the same instant.

Counting and then writing lets every racing request see the count below
the cap. So the owner's row is locked first on PostgreSQL (``FOR NO KEY
UPDATE``, which other tables' foreign-key checks do not wait for), and the
new row is written before it is counted (SQLite's writers queue for its one
lock): each count then sees the other requests' rows, or waits for them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from nardy.store.models import Base, User

Name = TypeVar("Name", bound=str)


@dataclass(frozen=True)
class Cap(Generic[Name]):
    """At most ``limit`` rows that ``count`` counts (the new one included, once written)."""

    name: Name
    count: Callable[[Session], int]
    limit: int


def add_within_caps(
    db: Session, row: Base, *, owner_id: int, caps: Sequence[Cap[Name]], on_kept: Callable[[], None] | None = None,
) -> Name | None:
    """Keep ``row``, owned by ``owner_id``, unless it takes a count past its cap; the first cap it would
    pass, else None. Commits what it keeps and rolls back what it refuses.

    ``on_kept`` is called once the row is within its caps, before it is committed: what it spends (a
    request's share of a rate limit) is spent only for a row kept, and an exception it raises refuses
    the row too, and is raised on.
    """
    db.execute(select(User.id).where(User.id == owner_id).with_for_update(key_share=True))
    db.add(row)
    db.flush()
    passed = next((cap.name for cap in caps if cap.count(db) > cap.limit), None)
    if passed is not None:
        db.rollback()
        return passed
    if on_kept is not None:
        try:
            on_kept()
        except BaseException:
            db.rollback()
            raise
    db.commit()
    return None
