"""Queries about users, their login sessions and the single-use links mailed to them.

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

from nardy.store.models import AccountToken, LoginSession, User


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


def sessions_of(db: Session, user_id: int) -> list[str]:
    """The ``token_hash`` of every session of ``user_id``, expired or not."""
    return list(db.scalars(select(LoginSession.token_hash).where(LoginSession.user_id == user_id)))


def delete_sessions_of(db: Session, user_id: int, *, keep: str | None = None) -> list[str]:
    """Remove every session of ``user_id`` but the one stored as ``keep``; their ``token_hash``. The caller commits."""
    ended = [token_hash for token_hash in sessions_of(db, user_id) if token_hash != keep]
    if ended:
        db.execute(delete(LoginSession).where(LoginSession.token_hash.in_(ended)))
    return ended


def verified_by_email(db: Session, email: str) -> list[User]:
    """The accounts (not deleted) whose verified e-mail address is ``email`` in any letter case."""
    return list(db.scalars(select(User).where(
        func.lower(User.email) == email.lower(), User.email_verified.is_(True), User.deleted_at.is_(None),
    )))


def add_token(db: Session, row: AccountToken) -> None:
    """Store a mailed link's token; the caller commits."""
    db.add(row)


def live_token(db: Session, token_hash: str, *, purpose: str, at: datetime) -> AccountToken | None:
    """The unexpired token stored as ``token_hash`` for ``purpose``, or ``None``."""
    return db.scalars(select(AccountToken).where(
        AccountToken.token_hash == token_hash, AccountToken.purpose == purpose, AccountToken.expires_at > at,
    )).one_or_none()


def use_token(db: Session, token_hash: str) -> bool:
    """Delete the token stored as ``token_hash``: whether this call did (a link used twice at once works once)."""
    result = db.execute(delete(AccountToken).where(AccountToken.token_hash == token_hash))
    return bool(getattr(result, "rowcount", 0) == 1)


def delete_tokens_of(db: Session, user_id: int, *, purpose: str | None = None) -> None:
    """Remove ``user_id``'s mailed links (of one ``purpose``, or all); the caller commits."""
    query = delete(AccountToken).where(AccountToken.user_id == user_id)
    if purpose is not None:
        query = query.where(AccountToken.purpose == purpose)
    db.execute(query)
