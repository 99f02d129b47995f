"""The site in figures, for its operator (``nardy admin stats``): people, tables, games, analyses, coins, processes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import InstrumentedAttribute, Session

from nardy.store.db import make_engine, make_sessionmaker
from nardy.store.models import (
    Analysis, CoinAccount, FinishedGame, GameTable, ImportedMatch, Rating, ServerProcess, Tournament, User,
)


@dataclass(frozen=True, slots=True)
class SiteStatistics:
    """Counts over the whole database; a status maps to how many rows have it."""

    accounts: int
    guests: int
    rated_players: int
    tables: dict[str, int]
    """Tables (matches and chouettes) by status: ``waiting``, ``playing``, ``finished``..."""
    finished_games: int
    tournaments: dict[str, int]
    analyses: dict[str, int]
    """Analyses of finished tables and of imported matches together, by status."""
    coins_in_play: int
    """Every account's coin balance added up."""
    coins_held: int
    """Coins set aside for the coin tables under way."""
    processes_alive: int
    """Server processes whose heartbeat is recent."""


class StatisticsError(RuntimeError):
    """The figures cannot be read: no such database, or it does not answer; the message says why, in one line."""


def read_site_statistics(url: str, *, now: datetime, alive_within: timedelta) -> SiteStatistics:
    """:func:`site_statistics` of the database at ``url``, read on a connection of its own; a SQLite file is never
    created for it. Raises :class:`StatisticsError`."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and not (parsed.database and Path(parsed.database).is_file()):
        raise StatisticsError(f"there is no SQLite database at {parsed.database}")
    engine = make_engine(url, pool_size=1, max_overflow=0)
    try:
        with make_sessionmaker(engine)() as db:
            return site_statistics(db, now=now, alive_within=alive_within)
    except SQLAlchemyError as error:
        raise StatisticsError(f"cannot read the figures: {str(error).splitlines()[0]}") from error
    finally:
        engine.dispose()


def site_statistics(db: Session, *, now: datetime, alive_within: timedelta) -> SiteStatistics:
    """The figures of the site now; a process counts as alive if it was seen within ``alive_within``."""
    people = {guest: count for guest, count in db.execute(select(User.is_guest, func.count()).group_by(User.is_guest))}
    analyses: dict[str, int] = {}
    for model in (Analysis, ImportedMatch):
        for status, count in db.execute(select(model.status, func.count()).group_by(model.status)):
            analyses[status] = analyses.get(status, 0) + count
    balance, held = db.execute(
        select(func.coalesce(func.sum(CoinAccount.balance), 0), func.coalesce(func.sum(CoinAccount.held), 0))
    ).one()
    return SiteStatistics(
        accounts=people.get(False, 0),
        guests=people.get(True, 0),
        rated_players=db.scalar(select(func.count(func.distinct(Rating.user_id)))) or 0,
        tables=_by_status(db, GameTable.status),
        finished_games=db.scalar(select(func.count()).select_from(FinishedGame)) or 0,
        tournaments=_by_status(db, Tournament.status),
        analyses=analyses,
        coins_in_play=int(balance),
        coins_held=int(held),
        processes_alive=db.scalar(
            select(func.count()).select_from(ServerProcess).where(ServerProcess.seen_at >= now - alive_within)
        ) or 0,
    )


def _by_status(db: Session, status: InstrumentedAttribute[str]) -> dict[str, int]:
    return {value: count for value, count in db.execute(select(status, func.count()).group_by(status))}
