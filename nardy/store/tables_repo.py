"""Queries about tables and their event logs; the service never writes SQL itself."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, lru_cache, partial
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement, Connection, Dialect, Update, bindparam, case, exists, func, insert, or_, select, union_all, update,
)
from sqlalchemy.engine.interfaces import DBAPICursor
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from nardy.store import owner_caps
from nardy.store.driver_sql import DriverStatement
from nardy.store.models import ATTENTION, ChouettePlayer, FinishedGame, GameSeed, GameTable, ServerProcess, TableEvent


class VersionConflict(RuntimeError):
    """Another process appended to the table first; reload and try again."""


Verdict = Callable[[], None]
"""What a grouped append returns: called once its transaction has ended, it raises
:class:`VersionConflict` if the append wrote nothing."""


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
    (it serves the clock and the bot the new events start), and the table's
    ``active_at`` becomes the time of the last event. ``extra_rows``
    are other rows to write in the same transaction (a rated match's new
    ratings and history, 004).

    Raises :class:`VersionConflict` if another writer got there first; nothing is written then.
    """
    rows = [*seeds, *finished, *extra_rows]
    try:
        write_append(db, table_id, expected_version, events, summary, owner)
        if rows:
            db.add_all(rows)
        db.commit()
    except IntegrityError:
        db.rollback()
        raise VersionConflict(table_id) from None
    except VersionConflict:
        db.rollback()
        raise


def append_uncommitted(
    cursor: DBAPICursor,
    dialect: Dialect,
    *,
    table_id: str,
    expected_version: int,
    events: Sequence[StoredEvent],
    summary: dict[str, Any],
    owner: str,
) -> Verdict:
    """:func:`append`'s plain case (no other rows) in the caller's transaction, left open: a grouped append
    (:mod:`nardy.server.services.group_commit`). Returns its verdict, to call once the transaction has ended: it
    raises :class:`VersionConflict` if the table had moved on, and nothing was written then.

    On the driver's own cursor, with the statements compiled once for
    ``dialect`` (:mod:`nardy.store.driver_sql`): a grouped append runs for
    every accepted action, and SQLAlchemy's execution of even a cached
    statement took twice the time of the writes themselves. On PostgreSQL
    the UPDATE and the INSERT are one statement (:func:`_advance_and_insert`),
    which writes nothing when the version is stale: a grouped transaction is
    pipelined there (:func:`~nardy.store.driver_sql.one_transaction`), so
    its row count is known only at the end. On SQLite the UPDATE comes first
    and the INSERT runs only if it moved the table.
    """
    if dialect.name == "postgresql":
        values = _advance_values(table_id, expected_version, events, summary, owner)
        for index, row in enumerate(_event_rows(table_id, events)):
            values.update({f"e{index}_{name}": value for name, value in row.items()})
        _advance_and_insert(dialect, frozenset(summary), len(events)).send(cursor, values)
    else:
        advance, insert_events = _driver_statements(dialect, frozenset(summary))
        if advance.execute(cursor, _advance_values(table_id, expected_version, events, summary, owner)) == 1:
            insert_events.execute_many(cursor, _event_rows(table_id, events))  # its row count: the events'
    return partial(_all_inserted, cursor, len(events), table_id)


def _all_inserted(cursor: DBAPICursor, count: int, table_id: str) -> None:
    """Raise :class:`VersionConflict` unless the cursor's last statement inserted the append's ``count`` events."""
    if cursor.rowcount != count:
        raise VersionConflict(table_id)


def write_append(
    db: Session | Connection, table_id: str, expected_version: int, events: Sequence[StoredEvent], summary: dict[str, Any],
    owner: str,
) -> None:
    """:func:`append`'s two statements through SQLAlchemy, in the caller's transaction, left open: the table's
    conditional UPDATE, then the events' INSERT. Raises :class:`VersionConflict` having written nothing."""
    values = _advance_values(table_id, expected_version, events, summary, owner)
    moved = db.execute(_advance(frozenset(summary)), values)
    if moved.rowcount != 1:  # type: ignore[attr-defined]
        raise VersionConflict(table_id)
    db.execute(_INSERT_EVENTS, _event_rows(table_id, events))


def _advance_values(
    table_id: str, expected_version: int, events: Sequence[StoredEvent], summary: dict[str, Any], owner: str,
) -> dict[str, Any]:
    """The parameters of :func:`_advance`'s UPDATE for an append of ``events``."""
    return {
        "at_id": table_id, "at_version": expected_version, "new_version": expected_version + len(events),
        "new_owner": owner, "new_active_at": events[-1].at, **{f"new_{key}": value for key, value in summary.items()},
    }


def _event_rows(table_id: str, events: Sequence[StoredEvent]) -> list[dict[str, Any]]:
    """The rows of ``table_events`` for ``events``."""
    return [
        {"table_id": table_id, "version": e.version, "kind": e.kind, "seat": e.seat, "action_id": e.action_id,
         "payload": e.payload, "created_at": e.at}
        for e in events
    ]


_TABLES, _TABLE_EVENTS = GameTable.metadata.tables["tables"], TableEvent.metadata.tables["table_events"]
_INSERT_EVENTS = insert(_TABLE_EVENTS)
_EVENT_COLUMNS = tuple(column.name for column in _TABLE_EVENTS.columns if not column.primary_key)
"""The columns an append writes: every one of ``table_events`` but its generated key, each a key of
:func:`_event_rows`' rows (a column added to the model and not to those rows fails every append)."""


@lru_cache(maxsize=64)
def _driver_statements(dialect: Dialect, columns: frozenset[str]) -> tuple[DriverStatement, DriverStatement]:
    """:func:`_advance` and the events' INSERT compiled for ``dialect``, the grouped append's two statements.

    The INSERT asks for no generated keys back (``inline``): a grouped append
    needs none, and on PostgreSQL a RETURNING clause would turn a plain
    insert into a query."""
    return (
        DriverStatement.compile(_advance(columns), dialect),
        DriverStatement.compile(_INSERT_EVENTS.inline(), dialect, columns=_EVENT_COLUMNS),
    )


@lru_cache(maxsize=256)
def _advance_and_insert(dialect: Dialect, columns: frozenset[str], count: int) -> DriverStatement:
    """For PostgreSQL: :func:`_advance` and the INSERT of ``count`` events in one statement, compiled for
    ``dialect``. The UPDATE is a data-modifying common table expression, and each event row is inserted only if
    it updated the table, so the statement inserts ``count`` rows, or none on a version conflict. The events'
    parameters are those of :func:`_event_rows`, the ``i``-th event's prefixed ``e<i>_``."""
    if count < 1:
        raise ValueError("an append has at least one event")
    advanced = _advance(columns).returning(_TABLES.c.id).cte("advanced")
    rows = [
        select(*(bindparam(f"e{index}_{name}", type_=_TABLE_EVENTS.c[name].type).label(name) for name in _EVENT_COLUMNS))
        .where(exists(select(advanced.c.id)))
        for index in range(count)
    ]
    source = rows[0] if count == 1 else union_all(*rows)
    return DriverStatement.compile(insert(_TABLE_EVENTS).from_select(list(_EVENT_COLUMNS), source).add_cte(advanced), dialect)


@cache
def _advance(columns: frozenset[str]) -> Update:
    """The conditional UPDATE of :func:`append` setting ``columns`` besides version, owner and last activity.

    Core statements built once with bound parameters, not ORM ones built per
    call: the same SQL, without the ORM's unit of work and without building
    and hashing a statement for every action (together half the CPU of a
    write on SQLite)."""
    return update(_TABLES).where(
        _TABLES.c.id == bindparam("at_id"), _TABLES.c.version == bindparam("at_version"),
    ).values(
        version=bindparam("new_version"), owner=bindparam("new_owner"), active_at=bindparam("new_active_at"),
        **{column: bindparam(f"new_{column}") for column in sorted(columns)},
    )


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


@dataclass(frozen=True, slots=True)
class LobbyPage:
    """The lobby's lists: every public table waiting for players, and one page of those being played."""

    waiting: list[GameTable]
    playing: list[GameTable]
    playing_total: int
    """How many public tables are being played in all (the pages together)."""


def lobby(db: Session, *, kind: str | None = None, offset: int = 0, limit: int = 100) -> LobbyPage:
    """Public tables (matches and chouettes, or one ``kind``) waiting for players, and a page of those being played.

    Games against the computer are never listed as being played: they are
    their player's own (see :func:`unfinished_tables_of`), and an abandoned one
    would otherwise stay in everyone's lobby.
    """
    public: list[ColumnElement[bool]] = [GameTable.private.is_(False)]
    if kind is not None:
        public.append(GameTable.kind == kind)
    waiting = db.scalars(
        select(GameTable).where(GameTable.status.in_(LOBBY_WAITING), *public)
        .order_by(GameTable.created_at.desc()).limit(100)
    )
    between_people = [GameTable.status.in_(LOBBY_PLAYING), GameTable.bot_seat.is_(None), *public]
    playing = db.scalars(
        select(GameTable).where(*between_people)
        .order_by(GameTable.created_at.desc(), GameTable.id).offset(offset).limit(limit)
    )
    total = db.scalar(select(func.count()).select_from(GameTable).where(*between_people)) or 0
    return LobbyPage(list(waiting), list(playing), total)


@dataclass(frozen=True, slots=True)
class SiteActivity:
    """What the home page counts: who is at a table now, and how many games are being played."""

    players: int
    """Distinct people seated at a match waiting for its second player or being played (the computer is no one)."""
    games: int
    """Matches and chouettes being played, against people or the computer, public or private."""


def site_activity(db: Session) -> SiteActivity:
    """The people at tables and the games being played now, counted in the database (every server process's)."""
    seated = [GameTable.kind == "match", GameTable.status.in_((*LOBBY_WAITING, *LOBBY_PLAYING))]
    seats = union_all(
        select(GameTable.player0_id.label("user_id")).where(*seated, GameTable.player0_id.is_not(None)),
        select(GameTable.player1_id.label("user_id")).where(*seated, GameTable.player1_id.is_not(None)),
    ).subquery()
    players = db.scalar(select(func.count(func.distinct(seats.c.user_id)))) or 0
    games = db.scalar(select(func.count()).select_from(GameTable).where(GameTable.status.in_(LOBBY_PLAYING))) or 0
    return SiteActivity(int(players), int(games))


def live_public_matches(db: Session, *, limit: int = 50) -> list[GameTable]:
    """The newest public matches between two people being played (the candidates to feature on the home page)."""
    return list(db.scalars(
        select(GameTable).where(
            GameTable.kind == "match", GameTable.status == "playing", GameTable.private.is_(False),
            GameTable.bot_seat.is_(None), GameTable.player0_id.is_not(None), GameTable.player1_id.is_not(None),
        ).order_by(GameTable.created_at.desc(), GameTable.id).limit(limit)
    ))


def unfinished_tables_of(db: Session, user_id: int, *, limit: int = 50) -> list[GameTable]:
    """The tables ``user_id`` plays at that are waiting or being played (the lobby's statuses), private ones
    too, newest first: the two-seat tables they sit at and the chouettes they are a player of now."""
    seated = or_(GameTable.player0_id == user_id, GameTable.player1_id == user_id)
    sat_at_chouette = GameTable.id.in_(select(ChouettePlayer.table_id).where(ChouettePlayer.user_id == user_id))
    rows = db.scalars(
        select(GameTable).where(or_(seated, sat_at_chouette), GameTable.status.in_((*LOBBY_WAITING, *LOBBY_PLAYING)))
        .order_by(GameTable.created_at.desc()).limit(limit)
    )
    return [row for row in rows if row.kind != "chouette" or user_id in _chouette_players(row)]


def _chouette_players(row: GameTable) -> list[int]:
    """The users playing at a chouette now, from its summary."""
    return [player["user_id"] for player in (row.score or {}).get("players", [])]


@dataclass(frozen=True, slots=True)
class IdleTable:
    """A running game against the computer that has not changed since ``active_at``, at ``version``."""

    table_id: str
    version: int
    active_at: datetime


def idle_computer_tables(db: Session, *, active_before: datetime, limit: int = 100) -> list[IdleTable]:
    """Running, untimed games against the computer unchanged since before ``active_before``.

    The computer answers at once, so a game that stays still waits for its
    human. Timed games are left to their clocks. Read through the partial
    index of the tables needing attention (:data:`~nardy.store.models.ATTENTION`).
    """
    rows = db.execute(
        select(GameTable.id, GameTable.version, GameTable.active_at)
        .where(ATTENTION, GameTable.bot_seat.is_not(None), GameTable.deadline_at.is_(None),
               GameTable.active_at < active_before)
        .limit(limit)
    )
    return [IdleTable(table_id, version, active_at) for table_id, version, active_at in rows if active_at is not None]


def claim_idle(db: Session, table: IdleTable, *, now: datetime) -> bool:
    """Claim an idle table to end it: True for the one process whose conditional UPDATE finds it unchanged.

    The claim moves ``active_at`` to ``now``, so a second process claiming the
    same table finds it changed; a claim whose process dies before ending the
    game is tried again once the table has been idle that long once more.
    """
    moved = db.execute(
        update(GameTable)
        .where(GameTable.id == table.table_id, GameTable.version == table.version,
               GameTable.active_at == table.active_at, GameTable.status == "playing")
        .values(active_at=now)
    )
    db.commit()
    return bool(moved.rowcount == 1)  # type: ignore[attr-defined]


def table_status(db: Session, table_id: str) -> str | None:
    """The table's status (``waiting``, ``playing``, ``finished``, ...), or None if there is no such table."""
    return db.scalar(select(GameTable.status).where(GameTable.id == table_id))


def waiting_tables_of(db: Session, user_id: int) -> int:
    """How many tables waiting for players ``user_id`` holds: matches they sit at, chouettes they opened, and
    matches against people they opened whose seats are not written yet (the creator sits down just after)."""
    held = or_(
        GameTable.player0_id == user_id,
        GameTable.player1_id == user_id,
        (GameTable.kind == "chouette") & (GameTable.created_by == user_id),
        (GameTable.created_by == user_id) & GameTable.bot_seat.is_(None)
        & GameTable.player0_id.is_(None) & GameTable.player1_id.is_(None),
    )
    return db.scalar(select(func.count()).where(GameTable.status.in_(LOBBY_WAITING), held)) or 0


def add_waiting_table(db: Session, row: GameTable, *, user_id: int, cap: int) -> bool:
    """Store a new table row opened by ``user_id`` unless they would then hold more than ``cap`` tables
    waiting for players (:func:`waiting_tables_of` counts the row at once); whether it was stored. Two
    tables opened at once cannot both pass (:mod:`nardy.store.owner_caps`)."""
    waiting = owner_caps.Cap("waiting", lambda session: waiting_tables_of(session, user_id), cap)
    return owner_caps.add_within_caps(db, row, owner_id=user_id, caps=(waiting,)) is None


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


def closed_chouettes_of(db: Session, user_id: int, *, include_private: bool = True, limit: int = 100) -> list[GameTable]:
    """The chouettes ``user_id`` sat at that have closed (their last player left), newest first; without the
    private ones unless ``include_private``."""
    sat_at = GameTable.id.in_(select(ChouettePlayer.table_id).where(ChouettePlayer.user_id == user_id))
    query = select(GameTable).where(sat_at, GameTable.kind == "chouette", GameTable.status == "closed")
    if not include_private:
        query = query.where(GameTable.private.is_(False))
    return list(db.scalars(query.order_by(GameTable.finished_at.desc()).limit(limit)))


@dataclass(frozen=True, slots=True)
class TableAccess:
    """Who may read a table: anyone when it is public; when private, its ``members`` and holders of its invite."""

    private: bool
    invite_token: str | None
    members: frozenset[int]
    """Its creator, the users seated at a match, and everyone who ever sat at a chouette (private tables only)."""


def table_access(db: Session, table_id: str) -> TableAccess | None:
    """Whether the table is private, its invite token and its members; None if there is no such table.

    One primary-key read for a public table; a private chouette also reads who sat at it.
    """
    row = db.execute(
        select(GameTable.private, GameTable.invite_token, GameTable.kind, GameTable.created_by,
               GameTable.player0_id, GameTable.player1_id).where(GameTable.id == table_id)
    ).first()
    if row is None:
        return None
    private, invite_token, kind, *people = row
    if not private:
        return TableAccess(False, None, frozenset())
    members = {user_id for user_id in people if user_id is not None}
    if kind == "chouette":
        members.update(db.scalars(select(ChouettePlayer.user_id).where(ChouettePlayer.table_id == table_id)))
    return TableAccess(True, invite_token, frozenset(members))


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


def colour_statistics_of_user(db: Session, user_id: int, *, include_private: bool) -> list[tuple[str, str, str, int]]:
    """(variant, colour ``user_id`` played, winning colour, count) over the user's finished games; without those
    of private tables unless ``include_private`` (003's statistics by colour, for one player)."""
    played = case((FinishedGame.white_id == user_id, "white"), else_="black")
    query = (
        select(FinishedGame.variant, played, FinishedGame.winner_colour, func.count())
        .where(or_(FinishedGame.white_id == user_id, FinishedGame.black_id == user_id))
        .group_by(FinishedGame.variant, played, FinishedGame.winner_colour)
    )
    if not include_private:
        query = query.join(GameTable, GameTable.id == FinishedGame.table_id).where(GameTable.private.is_(False))
    return [(variant, colour, winner, count) for variant, colour, winner, count in db.execute(query)]


def site_rolls(db: Session) -> Iterator[list[int]]:
    """Every two-dice roll made on the site (not opening rolls), read a thousand at a time: the site's dice
    statistics."""
    payloads = db.scalars(
        select(TableEvent.payload).where(TableEvent.kind == "rolled").execution_options(yield_per=1000)
    )
    for payload in payloads:
        yield list(payload["dice"])


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
