"""Queries about tables and their event logs; the service never writes SQL itself."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from nardy.store.models import ATTENTION, FinishedGame, GameSeed, GameTable, ServerProcess, TableEvent


class VersionConflict(RuntimeError):
    """Another process appended to the table first; reload and try again."""


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as stored: version, kind, seat, payload, time, and the client's action id."""

    version: int
    kind: str
    seat: int | None
    payload: dict[str, Any]
    at: datetime
    action_id: str | None


def _stored(row: TableEvent) -> StoredEvent:
    return StoredEvent(row.version, row.kind, row.seat, row.payload, row.created_at, row.action_id)


def get_table(db: Session, table_id: str) -> GameTable | None:
    """The table row, or None."""
    return db.get(GameTable, table_id)


def table_version(db: Session, table_id: str) -> int | None:
    """The table's last event version, without loading anything else."""
    return db.scalar(select(GameTable.version).where(GameTable.id == table_id))


def events_after(db: Session, table_id: str, version: int = 0) -> list[StoredEvent]:
    """The table's events after ``version``, in order."""
    rows = db.scalars(
        select(TableEvent).where(TableEvent.table_id == table_id, TableEvent.version > version).order_by(TableEvent.version)
    )
    return [_stored(row) for row in rows]


def action_version(db: Session, table_id: str, action_id: str) -> int | None:
    """The version at which ``action_id`` was applied, if it was."""
    return db.scalar(
        select(func.max(TableEvent.version)).where(TableEvent.table_id == table_id, TableEvent.action_id == action_id)
    )


def seeds_of(db: Session, table_id: str) -> dict[int, str]:
    """The secret dice seeds of the table's games, by game number."""
    rows = db.scalars(select(GameSeed).where(GameSeed.table_id == table_id))
    return {row.number: row.seed for row in rows}


def append(
    db: Session,
    *,
    table_id: str,
    expected_version: int,
    events: Sequence[StoredEvent],
    summary: dict[str, Any],
    owner: str,
    seeds: Sequence[GameSeed] = (),
    finished: Sequence[FinishedGame] = (),
    extra_rows: Sequence[object] = (),
) -> None:
    """Append ``events`` after ``expected_version`` in one transaction, with the table's summary columns.

    The process appending becomes the table's ``owner`` in the same UPDATE
    (it serves the clock and the bot the new events start). ``extra_rows``
    are other rows to write in the same transaction (a rated match's new
    ratings and history, 004).

    Raises :class:`VersionConflict` if another writer got there first; nothing is written then.
    """
    try:
        moved = db.execute(
            update(GameTable)
            .where(GameTable.id == table_id, GameTable.version == expected_version)
            .values(version=expected_version + len(events), owner=owner, **summary)
        )
        if moved.rowcount != 1:  # type: ignore[attr-defined]
            raise VersionConflict(table_id)
        db.add_all(seeds)
        db.add_all(
            TableEvent(
                table_id=table_id, version=e.version, kind=e.kind, seat=e.seat,
                action_id=e.action_id, payload=e.payload, created_at=e.at,
            )
            for e in events
        )
        db.add_all(finished)
        db.add_all(extra_rows)
        db.commit()
    except IntegrityError:
        db.rollback()
        raise VersionConflict(table_id) from None
    except VersionConflict:
        db.rollback()
        raise


def seat_addresses(db: Session, table_id: str) -> tuple[str | None, str | None]:
    """The client addresses the two seats joined from (never published)."""
    row = db.execute(select(GameTable.player0_ip, GameTable.player1_ip).where(GameTable.id == table_id)).one_or_none()
    return (row[0], row[1]) if row is not None else (None, None)


def set_seat_address(db: Session, table_id: str, seat: int, address: str | None) -> None:
    """Record the client address ``seat`` joined from."""
    column = "player0_ip" if seat == 0 else "player1_ip"
    db.execute(update(GameTable).where(GameTable.id == table_id).values({column: address}))
    db.commit()


def add_table(db: Session, row: GameTable) -> None:
    """Store a new table row (before its first event)."""
    db.add(row)
    db.commit()


@dataclass(frozen=True, slots=True)
class Unattended:
    """A running table needing attention whose owner is not alive: its id, kind and the owner it had."""

    table_id: str
    kind: str
    owner: str | None


def unattended_tables(db: Session, *, me: str, alive_since: datetime, limit: int = 500) -> list[Unattended]:
    """Running tables with a clock or a bot (:data:`~nardy.store.models.ATTENTION`) that no live process owns.

    A process is alive when its heartbeat was seen at ``alive_since`` or
    later; ``me`` (the asking process) is never taken for dead. Read through
    the partial index ``ix_tables_attention``.
    """
    alive = select(ServerProcess.id).where(ServerProcess.seen_at >= alive_since)
    orphaned = or_(GameTable.owner.is_(None), (GameTable.owner != me) & GameTable.owner.not_in(alive))
    rows = db.execute(
        select(GameTable.id, GameTable.kind, GameTable.owner)
        .where(ATTENTION, orphaned)
        .limit(limit)
    )
    return [Unattended(table_id, kind, owner) for table_id, kind, owner in rows]


def claim(db: Session, tables: Sequence[Unattended], *, me: str) -> list[Unattended]:
    """Become the owner of each table that still has the owner it was found with; those won, in one transaction.

    The conditional UPDATE is the claim: of several processes claiming one
    table at once exactly one changes the row, the others find a new owner.
    Claims go in table order, so two claiming processes cannot deadlock.
    """
    won = []
    for table in sorted(tables, key=lambda t: t.table_id):
        same_owner = GameTable.owner.is_(None) if table.owner is None else GameTable.owner == table.owner
        moved = db.execute(update(GameTable).where(GameTable.id == table.table_id, same_owner).values(owner=me))
        if moved.rowcount == 1:  # type: ignore[attr-defined]
            won.append(table)
    db.commit()
    return won


LOBBY_WAITING = ("waiting", "paused")
"""Statuses listed as open: a match waiting for its second player, a chouette waiting for players."""
LOBBY_PLAYING = ("playing", "forming")
"""Statuses listed as being played (a chouette still takes newcomers then, for its next game)."""


def lobby(db: Session, *, limit: int = 100) -> tuple[list[GameTable], list[GameTable]]:
    """Public tables (matches and chouettes) waiting for players, and public tables being played."""
    waiting = db.scalars(
        select(GameTable).where(GameTable.status.in_(LOBBY_WAITING), GameTable.private.is_(False))
        .order_by(GameTable.created_at.desc()).limit(limit)
    )
    playing = db.scalars(
        select(GameTable).where(GameTable.status.in_(LOBBY_PLAYING), GameTable.private.is_(False))
        .order_by(GameTable.created_at.desc()).limit(limit)
    )
    return list(waiting), list(playing)


def waiting_tables_of(db: Session, user_id: int) -> int:
    """How many tables waiting for players ``user_id`` holds: matches they sit at, chouettes they opened."""
    held = or_(
        GameTable.player0_id == user_id,
        GameTable.player1_id == user_id,
        (GameTable.kind == "chouette") & (GameTable.created_by == user_id),
    )
    return db.scalar(select(func.count()).where(GameTable.status.in_(LOBBY_WAITING), held)) or 0


def table_kind(db: Session, table_id: str) -> str | None:
    """The table's kind (``match`` or ``chouette``), or None if there is no such table."""
    return db.scalar(select(GameTable.kind).where(GameTable.id == table_id))


def tables_of_user(
    db: Session, user_id: int, *, status: str | None = None, include_private: bool = True, limit: int = 100,
) -> list[GameTable]:
    """A player's tables, newest first; without the private ones unless ``include_private``."""
    query = select(GameTable).where(or_(GameTable.player0_id == user_id, GameTable.player1_id == user_id))
    if status is not None:
        query = query.where(GameTable.status == status)
    if not include_private:
        query = query.where(GameTable.private.is_(False))
    return list(db.scalars(query.order_by(GameTable.created_at.desc()).limit(limit)))


def table_by_invite(db: Session, token: str) -> GameTable | None:
    """The private table an invite token opens."""
    return db.scalar(select(GameTable).where(GameTable.invite_token == token))


def colour_statistics(db: Session) -> list[tuple[str, str, int]]:
    """(variant, winning colour, count) over every finished game (003's statistics by colour)."""
    rows = db.execute(
        select(FinishedGame.variant, FinishedGame.winner_colour, func.count())
        .group_by(FinishedGame.variant, FinishedGame.winner_colour)
    )
    return [(variant, colour, count) for variant, colour, count in rows]


def rolls_of_user(db: Session, user_id: int) -> list[list[int]]:
    """Every two-dice roll the user made (not opening rolls), for the public dice statistics."""
    seat_tables = db.execute(
        select(GameTable.id, GameTable.player0_id, GameTable.player1_id).where(
            or_(GameTable.player0_id == user_id, GameTable.player1_id == user_id)
        )
    ).all()
    rolls: list[list[int]] = []
    for table_id, player0, player1 in seat_tables:
        seats = [seat for seat, player in ((0, player0), (1, player1)) if player == user_id]
        rows = db.scalars(
            select(TableEvent.payload).where(
                TableEvent.table_id == table_id, TableEvent.kind == "rolled", TableEvent.seat.in_(seats)
            )
        )
        rolls.extend(list(payload["dice"]) for payload in rows)
    return rolls
