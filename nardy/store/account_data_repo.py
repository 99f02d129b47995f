"""Everything stored about one account: read out for its owner, or erased when they delete it.

The export gathers the rows a person wrote or played in (their tables, the
chat lines they wrote, their coins' ledger). The erasure keeps the games:
the ``users`` row stays under a new name, and every copy of the old name
kept beside the games (the ``seated`` and ``sat`` events, a chouette's
summary, tournament entries and standings) is replaced by it. What was the
account's alone goes: chat lines, coins, ratings and their history (the
opponents' own rating rows are not touched), imported matches, sessions,
mailed links, the addresses it signed in from and the blocks it made or was
the target of. Reports it made stay, without their author; the moderation
audit log stays whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, or_, select, update
from sqlalchemy.orm import Session

from nardy.store.models import (
    AccountToken,
    ChatMessage,
    ChouettePlayer,
    CoinAccount,
    CoinHold,
    CoinMovement,
    GameTable,
    ImportedMatch,
    LoginAddress,
    LoginSession,
    Rating,
    RatingChange,
    Report,
    TableEvent,
    Tournament,
    TournamentEntry,
    User,
    UserBlock,
)

OPEN_TOURNAMENT_STATUSES = ("registering", "running")
_SEAT_EVENTS = ("seated", "sat")
"""The events that copy a player's name into a table's log: a seat taken at a match, a place at a chouette."""


def _played_at(user_id: int) -> Any:
    """The condition on ``tables`` of those ``user_id`` sat at: a seat of a match, or a place at a chouette."""
    return or_(
        GameTable.player0_id == user_id,
        GameTable.player1_id == user_id,
        GameTable.id.in_(select(ChouettePlayer.table_id).where(ChouettePlayer.user_id == user_id)),
    )


def tables_played(db: Session, user_id: int) -> Sequence[GameTable]:
    """Every table ``user_id`` sat at, oldest first."""
    return db.scalars(select(GameTable).where(_played_at(user_id)).order_by(GameTable.created_at)).all()


def chat_written(db: Session, user_id: int) -> Sequence[ChatMessage]:
    """Every chat line ``user_id`` wrote, oldest first."""
    return db.scalars(select(ChatMessage).where(ChatMessage.user_id == user_id).order_by(ChatMessage.id)).all()


def coin_ledger(db: Session, user_id: int) -> Sequence[CoinMovement]:
    """``user_id``'s whole coins ledger, oldest first."""
    return db.scalars(select(CoinMovement).where(CoinMovement.user_id == user_id).order_by(CoinMovement.id)).all()


def open_tournament_entries(db: Session, user_id: int) -> int:
    """How many tournaments not yet over ``user_id`` is registered in and has not withdrawn from."""
    return len(db.scalars(
        select(TournamentEntry.id)
        .join(Tournament, Tournament.id == TournamentEntry.tournament_id)
        .where(TournamentEntry.user_id == user_id, TournamentEntry.withdrawn_at.is_(None),
               Tournament.status.in_(OPEN_TOURNAMENT_STATUSES))
    ).all())


def addresses_of(db: Session, user_id: int) -> Sequence[LoginAddress]:
    """The addresses the account signed in from, first seen first."""
    return db.scalars(select(LoginAddress).where(LoginAddress.user_id == user_id).order_by(LoginAddress.first_seen)).all()


def erase(db: Session, user: User, *, new_name: str, at: datetime) -> None:
    """Delete ``user``'s account as described above, renaming them ``new_name``; the caller commits.

    The caller makes sure first that the account sits at no unfinished table
    (whose live state in memory would still hold the old name).
    """
    user_id = user.id
    _rename_in_tables(db, user_id, new_name)
    _rename_in_tournaments(db, user_id, new_name)
    for model in (ChatMessage, CoinHold, CoinMovement, CoinAccount, RatingChange, Rating, LoginSession, AccountToken):
        db.execute(delete(model).where(model.user_id == user_id))
    db.execute(delete(ImportedMatch).where(ImportedMatch.owner_id == user_id))
    db.execute(delete(LoginAddress).where(LoginAddress.user_id == user_id))
    db.execute(delete(UserBlock).where(or_(UserBlock.blocker_id == user_id, UserBlock.blocked_id == user_id)))
    db.execute(update(Report).where(Report.reporter_id == user_id).values(reporter_id=None))
    user.username = new_name
    user.password_hash = None
    user.email = None
    user.email_verified = False
    user.language = ""
    user.preferences = {}
    user.deleted_at = at


def _rename_in_tables(db: Session, user_id: int, new_name: str) -> None:
    """The name in the seat events of ``user_id``'s tables, and in the player lists of chouettes' summaries."""
    played = select(GameTable.id).where(_played_at(user_id))
    seat_events = select(TableEvent).where(TableEvent.table_id.in_(played), TableEvent.kind.in_(_SEAT_EVENTS))
    for event in db.scalars(seat_events):
        if event.payload.get("user_id") == user_id:
            event.payload = {**event.payload, "name": new_name}
    for table in db.scalars(select(GameTable).where(_played_at(user_id), GameTable.kind == "chouette")):
        players = (table.score or {}).get("players")
        if players:
            renamed = [{**p, "name": new_name} if p.get("user_id") == user_id else p for p in players]
            table.score = {**(table.score or {}), "players": renamed}


def _rename_in_tournaments(db: Session, user_id: int, new_name: str) -> None:
    """The name of ``user_id``'s tournament entries, and in the final standings that list them."""
    for entry in db.scalars(select(TournamentEntry).where(TournamentEntry.user_id == user_id)):
        entry.name = new_name
        tournament = db.get(Tournament, entry.tournament_id)
        standings = None if tournament is None else tournament.standings
        if tournament is not None and standings:
            tournament.standings = _renamed_standings(standings, entry.id, new_name)


def _renamed_standings(standings: dict[str, Any], entry_id: int, new_name: str) -> dict[str, Any]:
    """``standings`` with ``new_name`` in every row of the entry ``entry_id``."""
    return {
        key: [{**row, "name": new_name} if isinstance(row, dict) and row.get("entry") == entry_id else row
              for row in rows] if isinstance(rows, list) else rows
        for key, rows in standings.items()
    }
