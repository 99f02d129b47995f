"""The grouped append on the driver's cursor writes what SQLAlchemy's own execution writes, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError

from nardy.store import tables_repo
from nardy.store.db import make_engine, make_sessionmaker
from nardy.store.driver_sql import one_transaction, own_connection
from nardy.store.migrate import upgrade
from nardy.store.models import GameTable, TableEvent
from nardy.store.tables_repo import StoredEvent, VersionConflict
from tests.server.live_server import fresh_postgres_database, postgres_unreachable

NOW = datetime(2026, 12, 4, 15, 30, 12, 345678, tzinfo=UTC)
EVENTS = [
    StoredEvent(1, "rolled", 0, {"dice": [6, 5], "by": "server"}, NOW, "a-1"),
    StoredEvent(2, "moved", 0, {"steps": [[24, 18], [18, 13]], "text": "24/13 ✓"}, NOW + timedelta(seconds=1), None),
]
SUMMARY = {"score": {"score": [1, 0], "games": 1}, "winner": 0}


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    if request.param == "sqlite":
        made = make_engine(f"sqlite:///{tmp_path / 'driver.db'}")
        upgrade(made)
        yield made
        made.dispose()
        return
    reason = postgres_unreachable()
    if reason is not None:
        pytest.skip(reason)
    with fresh_postgres_database() as url:
        made = make_engine(url)
        upgrade(made)
        yield made
        made.dispose()


def _table(engine: Engine, table_id: str) -> None:
    with make_sessionmaker(engine)() as db:
        tables_repo.add_table(db, GameTable(
            id=table_id, variant="backgammon", match_length=3, options={}, created_at=NOW, status="playing",
        ))


def _stored(engine: Engine, table_id: str) -> tuple[tuple[object, ...], list[tuple[object, ...]]]:
    """The table's row and its events as SQLAlchemy reads them back."""
    with make_sessionmaker(engine)() as db:
        row = db.get_one(GameTable, table_id)
        table = (row.version, row.owner, row.active_at, row.score, row.winner)
        events = [(e.version, e.kind, e.seat, e.action_id, e.payload, e.created_at) for e in db.scalars(
            select(TableEvent).where(TableEvent.table_id == table_id).order_by(TableEvent.version))]
    return table, events


def _append_on_driver(engine: Engine, table_id: str, expected_version: int, events: list[StoredEvent] = EVENTS,
                      ) -> None:
    """As the grouped writer runs it: in a transaction of its own, the verdict read once that has ended."""
    connection = own_connection(engine)
    try:
        with one_transaction(connection, engine.dialect):
            verdict = tables_repo.append_uncommitted(
                connection.cursor(), engine.dialect, table_id=table_id, expected_version=expected_version,
                events=events, summary=SUMMARY, owner="process-1",
            )
        verdict()
    finally:
        connection.close()


def test_the_driver_append_reads_back_like_the_session_append(engine: Engine) -> None:
    _table(engine, "by-driver")
    _table(engine, "by-session")
    _append_on_driver(engine, "by-driver", 0)
    with make_sessionmaker(engine)() as db:
        tables_repo.append(db, table_id="by-session", expected_version=0, events=EVENTS, summary=SUMMARY,
                           owner="process-1")
    driver, session = _stored(engine, "by-driver"), _stored(engine, "by-session")
    assert driver == session
    assert driver[0] == (2, "process-1", NOW + timedelta(seconds=1), SUMMARY["score"], 0)
    assert [event[5] for event in driver[1]] == [NOW, NOW + timedelta(seconds=1)]  # aware UTC, to the microsecond


def test_appends_of_one_event_and_of_several_follow_each_other(engine: Engine) -> None:
    """PostgreSQL's one-statement append has a shape per number of events: one, and then two."""
    _table(engine, "one-then-two")
    _append_on_driver(engine, "one-then-two", 0, EVENTS[:1])
    later = [StoredEvent(e.version + 1, e.kind, e.seat, e.payload, e.at, None) for e in EVENTS]
    _append_on_driver(engine, "one-then-two", 1, later)
    table, events = _stored(engine, "one-then-two")
    assert table[0] == 3 and [(event[0], event[1]) for event in events] == [(1, "rolled"), (2, "rolled"), (3, "moved")]


def test_a_stale_version_writes_nothing(engine: Engine) -> None:
    _table(engine, "stale")
    with pytest.raises(VersionConflict):
        _append_on_driver(engine, "stale", 5)
    assert _stored(engine, "stale") == ((0, None, None, None, None), [])


def test_a_broken_key_raises_sqlalchemys_integrity_error(engine: Engine) -> None:
    """As SQLAlchemy's own execution would: the table service turns it into a version conflict."""
    _table(engine, "twice")
    with make_sessionmaker(engine)() as db:  # the events exist, but the row still says version 0
        db.add(TableEvent(table_id="twice", version=1, kind="rolled", seat=0, payload={}, created_at=NOW))
        db.commit()
    with pytest.raises(IntegrityError):
        _append_on_driver(engine, "twice", 0)
    assert _stored(engine, "twice")[0][0] == 0
