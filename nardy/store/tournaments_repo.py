"""Tournament queries: the tournament rows, their entries and pairings, and the lease one process advances under."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, or_, select, update
from sqlalchemy.orm import Session

from nardy.store.models import GameTable, Tournament, TournamentEntry, TournamentPairing

OPEN_STATUSES = ("registering", "running")
"""The statuses of a tournament some process still has to advance."""


def get(db: Session, tournament_id: str) -> Tournament | None:
    """The tournament, or None."""
    return db.get(Tournament, tournament_id)


def entries(db: Session, tournament_id: str) -> list[TournamentEntry]:
    """Its entries in the order they registered."""
    return list(db.scalars(
        select(TournamentEntry).where(TournamentEntry.tournament_id == tournament_id).order_by(TournamentEntry.id)
    ))


def pairings(db: Session, tournament_id: str) -> list[TournamentPairing]:
    """Its pairings, round by round, board by board."""
    return list(db.scalars(
        select(TournamentPairing).where(TournamentPairing.tournament_id == tournament_id)
        .order_by(TournamentPairing.round, TournamentPairing.board)
    ))


def tables_of(db: Session, table_ids: Sequence[str]) -> dict[str, GameTable]:
    """The table rows of these ids."""
    if not table_ids:
        return {}
    return {row.id: row for row in db.scalars(select(GameTable).where(GameTable.id.in_(table_ids)))}


def listing(db: Session, statuses: Sequence[str], *, limit: int) -> list[Tournament]:
    """Tournaments with one of ``statuses``: the next to start first, then the newest."""
    return list(db.scalars(
        select(Tournament).where(Tournament.status.in_(statuses))
        .order_by(Tournament.starts_at.is_(None), Tournament.starts_at, Tournament.created_at.desc()).limit(limit)
    ))


def finished(db: Session, *, limit: int) -> list[Tournament]:
    """The latest finished or cancelled tournaments."""
    return list(db.scalars(
        select(Tournament).where(Tournament.status.in_(("finished", "cancelled")))
        .order_by(Tournament.finished_at.desc()).limit(limit)
    ))


def open_ids(db: Session) -> list[str]:
    """The tournaments still registering or running: the ones the sweep looks at."""
    return list(db.scalars(select(Tournament.id).where(Tournament.status.in_(OPEN_STATUSES))))


def registering_by(db: Session, user_id: int) -> int:
    """How many tournaments ``user_id`` organised that have not started yet."""
    return db.scalar(
        select(func.count()).select_from(Tournament)
        .where(Tournament.created_by == user_id, Tournament.status == "registering")
    ) or 0


def claim(db: Session, tournament_id: str, *, owner: str, now: datetime, until: datetime) -> bool:
    """Take the lease to advance the tournament: True for the one process whose conditional UPDATE wins.

    The lease is free when nobody holds it or its holder's time has passed.
    """
    moved = db.execute(
        update(Tournament)
        .where(Tournament.id == tournament_id, Tournament.status.in_(OPEN_STATUSES),
               or_(Tournament.lease_until.is_(None), Tournament.lease_until < now))
        .values(lease_owner=owner, lease_until=until)
    )
    db.commit()
    return bool(moved.rowcount == 1)  # type: ignore[attr-defined]


def release(db: Session, tournament_id: str, *, owner: str) -> None:
    """Give the lease back (if still held by ``owner``)."""
    db.execute(
        update(Tournament).where(Tournament.id == tournament_id, Tournament.lease_owner == owner)
        .values(lease_owner=None, lease_until=None)
    )
    db.commit()


def set_table(db: Session, pairing_id: int, table_id: str) -> bool:
    """Link a pairing to the table opened for it, unless another already was."""
    moved = db.execute(
        update(TournamentPairing).where(TournamentPairing.id == pairing_id, TournamentPairing.table_id.is_(None))
        .values(table_id=table_id)
    )
    db.commit()
    return bool(moved.rowcount == 1)  # type: ignore[attr-defined]


def playing_pairing_of(db: Session, tournament_id: str, entry_id: int) -> TournamentPairing | None:
    """The entry's undecided pairing that has a table, if any."""
    return db.scalar(
        select(TournamentPairing).where(
            TournamentPairing.tournament_id == tournament_id, TournamentPairing.result.is_(None),
            TournamentPairing.table_id.is_not(None),
            or_(TournamentPairing.entry_a == entry_id, TournamentPairing.entry_b == entry_id),
        )
    )


def of_table(db: Session, table_id: str) -> tuple[Tournament, TournamentPairing] | None:
    """The tournament and pairing a table was opened for, if any."""
    pairing = db.scalar(select(TournamentPairing).where(TournamentPairing.table_id == table_id))
    if pairing is None:
        return None
    tournament = db.get(Tournament, pairing.tournament_id)
    assert tournament is not None
    return tournament, pairing
