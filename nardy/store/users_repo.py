"""Queries about users and their login sessions: the one case-insensitive name lookup, names by id, and sessions.

Usernames are ASCII (letters, digits, ``_`` and ``-``), so SQL's ``lower``
agrees with Python's, and the unique index on ``lower(username)`` lets a
name in any letter case match at most one user. Sessions are found by the
SHA-256 of their token (``token_hash``), the only form of it that is stored.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from nardy.store.models import LoginSession, User


def by_name(db: Session, username: str) -> User | None:
    """The user named ``username`` in any letter case, or ``None``."""
    return db.scalars(select(User).where(func.lower(User.username) == username.lower())).one_or_none()


def names_by_id(db: Session, user_ids: Collection[int]) -> dict[int, str]:
    """The usernames of ``user_ids`` (those that exist), by id, in one query."""
    if not user_ids:
        return {}
    return {user_id: name for user_id, name in db.execute(select(User.id, User.username).where(User.id.in_(user_ids)))}


def signed_in_by(db: Session, token_hash: str) -> tuple[User, LoginSession] | None:
    """The session stored as ``token_hash`` and its user, expired or not; ``None`` for no such session."""
    row = db.execute(
        select(User, LoginSession)
        .join(LoginSession, LoginSession.user_id == User.id)
        .where(LoginSession.token_hash == token_hash)
    ).one_or_none()
    return None if row is None else (row[0], row[1])


def live_token_hashes(db: Session, token_hashes: Collection[str], *, at: datetime) -> set[str]:
    """Which of ``token_hashes`` are sessions that have not ended (signed out or expired) by ``at``, in one query."""
    return set(db.scalars(
        select(LoginSession.token_hash).where(LoginSession.token_hash.in_(token_hashes), LoginSession.expires_at > at)
    ))


def delete_session(db: Session, token_hash: str) -> None:
    """Remove the session stored as ``token_hash``, if there is one; the caller commits."""
    db.execute(delete(LoginSession).where(LoginSession.token_hash == token_hash))
