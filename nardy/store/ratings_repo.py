"""Queries about ratings: a family's leaderboard, and a player's ratings and rating history."""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import select
from sqlalchemy.orm import Session

from nardy.store.models import Rating, RatingChange, User


def leaderboard(db: Session, family: str, *, limit: int = 100) -> list[tuple[str, Rating]]:
    """The best ``limit`` ratings of ``family`` with their usernames, highest first (ties by name); accounts marked
    engine-assisted are left out."""
    rows = db.execute(
        select(User.username, Rating).join(Rating, Rating.user_id == User.id)
        .where(Rating.family == family, User.engine_assisted.is_(False)).order_by(Rating.rating.desc(), User.username).limit(limit)
    )
    return [(name, rating) for name, rating in rows]


def ratings_of(db: Session, user_id: int) -> list[Rating]:
    """The player's current ratings, one per family they played."""
    return list(db.scalars(select(Rating).where(Rating.user_id == user_id).order_by(Rating.family)))


def ratings_by_user(db: Session, user_ids: Collection[int]) -> dict[tuple[int, str], float]:
    """The current ratings of ``user_ids``, by (user id, family), in one query (a family never played is absent)."""
    if not user_ids:
        return {}
    rows = db.execute(select(Rating.user_id, Rating.family, Rating.rating).where(Rating.user_id.in_(list(user_ids))))
    return {(user_id, family): rating for user_id, family, rating in rows}


def history_of(db: Session, user_id: int, family: str | None = None) -> list[RatingChange]:
    """The player's rating changes, in ``family`` or in all, oldest first."""
    query = select(RatingChange).where(RatingChange.user_id == user_id)
    if family is not None:
        query = query.where(RatingChange.family == family)
    return list(db.scalars(query.order_by(RatingChange.at, RatingChange.id)))
