"""Queries about virtual coins: accounts, the ledger, and the coins held at tables.

Every change of a balance is a single conditional UPDATE that states what
must still be true (the day not yet topped up, the free coins enough to
hold), so two server processes on one database can never both spend the
same coins; the caller learns from the row count whether it happened. The
ledger row of a change records the balance the same transaction left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from nardy.store.models import CoinAccount, CoinHold, CoinMovement, User

_ACCOUNTS = CoinAccount.metadata.tables["coin_accounts"]
_HOLDS = CoinHold.metadata.tables["coin_holds"]


@dataclass(frozen=True, slots=True)
class Balance:
    """A player's coins: all of them, and the part held at coin tables."""

    balance: int
    held: int

    @property
    def free(self) -> int:
        """The coins not held at any table: what a new coin table may hold."""
        return self.balance - self.held


def open_account(db: Session, user_id: int, *, grant: int, today: str, at: datetime) -> bool:
    """Give ``user_id`` a coin account with the starting ``grant``, unless they have one; True if opened now.

    An INSERT that does nothing on a conflict, so two processes opening the
    same account at once open it once.
    """
    dialect = db.get_bind().dialect.name
    values: dict[str, Any] = {"user_id": user_id, "balance": grant, "held": 0, "topped_up_on": today}
    statement: Any
    if dialect == "postgresql":
        statement = postgresql.insert(_ACCOUNTS).values(values).on_conflict_do_nothing()
    else:
        statement = sqlite.insert(_ACCOUNTS).values(values).on_conflict_do_nothing()
    opened = db.scalar(statement.returning(_ACCOUNTS.c.user_id)) is not None  # PostgreSQL gives no rowcount here
    if opened:
        _record(db, user_id, grant, "grant", None, at)
    return opened


def top_up(db: Session, user_id: int, *, amount: int, today: str, at: datetime) -> bool:
    """Add the daily ``amount`` if ``user_id`` has not had it on ``today`` (a UTC date); True if added now."""
    added = _changed(db.execute(
        update(_ACCOUNTS)
        .where(_ACCOUNTS.c.user_id == user_id, _ACCOUNTS.c.topped_up_on < today)
        .values(balance=_ACCOUNTS.c.balance + amount, topped_up_on=today)
    ))
    if added:
        _record(db, user_id, amount, "top_up", None, at)
    return added


def hold(db: Session, user_id: int, *, table_id: str, amount: int) -> bool:
    """Set ``amount`` aside for ``table_id`` if that many coins are free; True if held."""
    held = _changed(db.execute(
        update(_ACCOUNTS)
        .where(_ACCOUNTS.c.user_id == user_id, _ACCOUNTS.c.balance - _ACCOUNTS.c.held >= amount)
        .values(held=_ACCOUNTS.c.held + amount)
    ))
    if held:
        db.execute(insert(_HOLDS).values(table_id=table_id, user_id=user_id, amount=amount))
    return held


def release(db: Session, user_id: int, *, table_id: str) -> int:
    """Give back what ``user_id`` held at ``table_id`` (nothing if nothing); returns the amount released."""
    amount = db.scalar(
        delete(_HOLDS).where(_HOLDS.c.table_id == table_id, _HOLDS.c.user_id == user_id).returning(_HOLDS.c.amount)
    )
    if amount:
        db.execute(update(_ACCOUNTS).where(_ACCOUNTS.c.user_id == user_id).values(held=_ACCOUNTS.c.held - amount))
    return int(amount or 0)


def transfer(
    db: Session, *, table_id: str, winner_id: int, loser_id: int, amount: int, at: datetime,
) -> None:
    """Release both players' holds at ``table_id`` and move ``amount`` from the loser to the winner.

    The loser's coins are taken only while they cover ``amount``, which
    their released hold guarantees; anything else is a broken invariant
    and raises, so the match end that called this is not written either.
    Accounts are locked in the order of their ids, so two transfers between
    the same players never wait on each other.
    """
    for user_id in sorted((winner_id, loser_id)):
        release(db, user_id, table_id=table_id)
        if user_id == loser_id:
            taken = _changed(db.execute(
                update(_ACCOUNTS)
                .where(_ACCOUNTS.c.user_id == loser_id, _ACCOUNTS.c.balance - _ACCOUNTS.c.held >= amount)
                .values(balance=_ACCOUNTS.c.balance - amount)
            ))
            if not taken:
                raise RuntimeError(f"user {loser_id} cannot cover {amount} coins at table {table_id}")
            _record(db, loser_id, -amount, "match_lost", table_id, at)
        else:
            db.execute(
                update(_ACCOUNTS).where(_ACCOUNTS.c.user_id == winner_id).values(balance=_ACCOUNTS.c.balance + amount)
            )
            _record(db, winner_id, amount, "match_won", table_id, at)


def _changed(result: Any) -> bool:
    """Whether a conditional UPDATE or INSERT changed its one row."""
    return int(result.rowcount) == 1


def _record(db: Session, user_id: int, amount: int, reason: str, table_id: str | None, at: datetime) -> None:
    """The ledger row of a change just made in this transaction, with the balance it left."""
    after = db.scalar(select(_ACCOUNTS.c.balance).where(_ACCOUNTS.c.user_id == user_id))
    db.add(CoinMovement(user_id=user_id, amount=amount, reason=reason, table_id=table_id, balance_after=after, at=at))
    db.flush()


def balance_of(db: Session, user_id: int) -> Balance | None:
    """``user_id``'s coins, or None if they never had an account."""
    row = db.execute(select(_ACCOUNTS.c.balance, _ACCOUNTS.c.held).where(_ACCOUNTS.c.user_id == user_id)).first()
    return Balance(row.balance, row.held) if row is not None else None


def held_at(db: Session, table_id: str) -> dict[int, int]:
    """The coins each player holds at ``table_id``, by user id."""
    rows = db.execute(select(_HOLDS.c.user_id, _HOLDS.c.amount).where(_HOLDS.c.table_id == table_id))
    return {row.user_id: row.amount for row in rows}


def history(db: Session, user_id: int, *, before: int | None, limit: int) -> Sequence[CoinMovement]:
    """``user_id``'s ledger, newest first: up to ``limit`` movements with ids below ``before`` (all if None)."""
    query = select(CoinMovement).where(CoinMovement.user_id == user_id)
    if before is not None:
        query = query.where(CoinMovement.id < before)
    return db.scalars(query.order_by(CoinMovement.id.desc()).limit(limit)).all()


def leaderboard(db: Session, *, limit: int) -> list[tuple[str, int]]:
    """The account holders with the most coins, as ``(username, balance)``, ties by name."""
    rows = db.execute(
        select(User.username, CoinAccount.balance)
        .join(CoinAccount, CoinAccount.user_id == User.id)
        .where(User.is_guest.is_(False))
        .order_by(CoinAccount.balance.desc(), User.username)
        .limit(limit)
    )
    return [(row.username, row.balance) for row in rows]
