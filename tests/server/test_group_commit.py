"""Group commit: waiting appends share one transaction, and one table's failure is its own, on both databases."""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import Dialect, Engine, event, select
from sqlalchemy.engine.interfaces import DBAPICursor
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from nardy.server.services.group_commit import GroupCommit, GroupedWork
from nardy.store import tables_repo
from nardy.store.db import make_engine, make_sessionmaker
from nardy.store.migrate import upgrade
from nardy.store.models import GameTable, TableEvent
from nardy.store.tables_repo import StoredEvent, Verdict, VersionConflict
from tests.server.live_server import fresh_postgres_database, postgres_unreachable

NOW = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
TABLES = ("t-a", "t-b", "t-c", "t-d")


@pytest.fixture
def sqlite_sessions(tmp_path: Path) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(f"sqlite:///{tmp_path / 'group.db'}")
    yield _with_tables(engine)
    engine.dispose()


@pytest.fixture
def postgresql_sessions() -> Iterator[sessionmaker[Session]]:
    reason = postgres_unreachable()
    if reason is not None:
        pytest.skip(reason)
    with fresh_postgres_database() as url:
        engine = make_engine(url)
        yield _with_tables(engine)
        engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def sessions(request: pytest.FixtureRequest) -> sessionmaker[Session]:
    """A database of each kind with the tables of ``TABLES``, at version 0."""
    made: sessionmaker[Session] = request.getfixturevalue(f"{request.param}_sessions")
    return made


def _with_tables(engine: Engine) -> sessionmaker[Session]:
    upgrade(engine)
    made = make_sessionmaker(engine)
    with made() as db:
        for table_id in TABLES:
            tables_repo.add_table(db, GameTable(
                id=table_id, variant="backgammon", match_length=1, options={}, created_at=NOW, status="playing",
            ))
        db.commit()
    return made


Job = tuple[str, GroupedWork]


def _append(table_id: str, version: int) -> Job:
    """A grouped append of one event after ``version``, with its key."""
    stored = [StoredEvent(version + 1, "rolled", 0, {"dice": [3, 1]}, NOW, None)]
    return table_id, partial(
        tables_repo.append_uncommitted, table_id=table_id, expected_version=version, events=stored, summary={},
        owner="p",
    )


def _versions(sessions: sessionmaker[Session]) -> dict[str, int]:
    with sessions() as db:
        return {table_id: tables_repo.table_version(db, table_id) or 0 for table_id in TABLES}


def _events(sessions: sessionmaker[Session], table_id: str) -> list[int]:
    with sessions() as db:
        return list(db.scalars(select(TableEvent.version).where(TableEvent.table_id == table_id)))


def _commits(sessions: sessionmaker[Session]) -> list[int]:
    """A list that grows by one at every commit on a connection of ``sessions``' engine checked out from now on.

    Grouped transactions commit on the driver's connection, which SQLAlchemy's
    ``commit`` event does not see: SQLite's own trace of the statements it runs does."""
    seen: list[int] = []

    def trace(driver_connection: sqlite3.Connection, _record: object, _proxy: object) -> None:
        driver_connection.set_trace_callback(lambda sql: seen.append(1) if sql == "COMMIT" else None)

    event.listen(sessions.kw["bind"], "checkout", trace)
    return seen


async def _batched(group: GroupCommit, *jobs: Job) -> list[BaseException | None]:
    """Run ``jobs`` as one batch: the writer is held busy until all of them wait."""
    started, release = threading.Event(), threading.Event()

    def hold(_cursor: DBAPICursor, _dialect: Dialect) -> Verdict:
        started.set()
        release.wait(5)
        return lambda: None

    holding = asyncio.create_task(group.write("", hold))
    await asyncio.to_thread(started.wait, 5)
    waiting = [asyncio.create_task(group.write(*job)) for job in jobs]
    await asyncio.sleep(0.05)
    release.set()
    await holding
    return list(await asyncio.gather(*waiting, return_exceptions=True))


def _one_batch(sessions: sessionmaker[Session], *jobs: Job) -> list[BaseException | None]:
    """The outcome of each of ``jobs``, run as one batch by a fresh group committer."""
    group = GroupCommit(sessions.kw["bind"])
    try:
        return asyncio.run(_batched(group, *jobs))
    finally:
        group.close()


def test_waiting_appends_are_committed_in_one_transaction(sqlite_sessions: sessionmaker[Session]) -> None:
    commits = _commits(sqlite_sessions)
    outcomes = _one_batch(sqlite_sessions, *(_append(t, 0) for t in TABLES))
    assert outcomes == [None] * len(TABLES)
    assert _versions(sqlite_sessions) == dict.fromkeys(TABLES, 1)
    assert len(commits) == 1  # the holding job wrote nothing; the four appends are one transaction


def test_on_postgresql_a_batch_is_one_round_trip(postgresql_sessions: sessionmaker[Session]) -> None:
    """BEGIN, the four appends and COMMIT go out together, and the writer waits once for all their replies."""
    with tempfile.TemporaryFile("w+") as trace:
        def traced(driver_connection: psycopg.Connection[object], _record: object, _proxy: object) -> None:
            driver_connection.pgconn.trace(trace.fileno())
            driver_connection.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)

        engine = postgresql_sessions.kw["bind"]
        event.listen(engine, "checkout", traced)
        try:
            outcomes = _one_batch(postgresql_sessions, *(_append(t, 0) for t in TABLES))
        finally:
            event.remove(engine, "checkout", traced)
        trace.seek(0)
        sent = [line.split("\t")[2].split()[0] for line in trace if line.startswith("F\t")]
    assert outcomes == [None] * len(TABLES)
    assert _versions(postgresql_sessions) == dict.fromkeys(TABLES, 1)
    syncs = [index for index, message in enumerate(sent) if message == "Sync"]
    assert len(syncs) == 2  # one for the holding job's batch, one for the four appends
    assert sent[syncs[0]:syncs[1]].count("Execute") == 1 + len(TABLES) + 1  # BEGIN, the appends, COMMIT


def test_a_conflict_fails_its_own_append_only(sessions: sessionmaker[Session]) -> None:
    outcomes = _one_batch(sessions, _append("t-a", 0), _append("t-b", 7), _append("t-c", 0))
    assert outcomes[0] is None and outcomes[2] is None
    assert isinstance(outcomes[1], VersionConflict)
    assert _versions(sessions) == {"t-a": 1, "t-b": 0, "t-c": 1, "t-d": 0}
    assert _events(sessions, "t-b") == []


def test_any_other_error_rolls_the_batch_back_and_each_append_runs_alone(sessions: sessionmaker[Session]) -> None:
    with sessions() as db:  # t-b already has an event at version 1 but its row says 0: its insert will collide
        db.add(TableEvent(table_id="t-b", version=1, kind="rolled", seat=0, payload={}, created_at=NOW))
        db.commit()
    outcomes = _one_batch(sessions, _append("t-a", 0), _append("t-b", 0), _append("t-c", 0))
    assert outcomes[0] is None and outcomes[2] is None
    assert isinstance(outcomes[1], IntegrityError)
    assert _versions(sessions) == {"t-a": 1, "t-b": 0, "t-c": 1, "t-d": 0}  # t-b's UPDATE was rolled back too
    assert _events(sessions, "t-a") == [1] and _events(sessions, "t-c") == [1]


def test_an_append_is_committed_when_its_await_returns(sessions: sessionmaker[Session]) -> None:
    group = GroupCommit(sessions.kw["bind"])

    async def one() -> dict[str, int]:
        await group.write(*_append("t-d", 0))
        return _versions(sessions)

    try:
        assert asyncio.run(one())["t-d"] == 1
    finally:
        group.close()


def test_a_batch_runs_in_the_order_of_its_keys(sessions: sessionmaker[Session]) -> None:
    """So that two processes' batches lock shared table rows in one order (no deadlock on PostgreSQL)."""
    ran: list[str] = []

    def recording(table_id: str) -> Job:
        key, append = _append(table_id, 0)

        def write(cursor: DBAPICursor, dialect: Dialect) -> Verdict:
            ran.append(key)
            return append(cursor, dialect)

        return key, write

    outcomes = _one_batch(sessions, recording("t-c"), recording("t-a"), recording("t-d"), recording("t-b"))
    assert outcomes == [None] * 4
    assert ran == ["t-a", "t-b", "t-c", "t-d"]
