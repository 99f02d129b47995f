"""The migrations build exactly the models' schema, on SQLite and PostgreSQL, and rerun harmlessly.

The databases come from ``tests/databases.py``: a fresh one of each kind per test.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Engine, event, inspect, select, text
from sqlalchemy.exc import IntegrityError

from nardy.store.db import make_engine
from nardy.store.migrate import alembic_config, current_revision, head_revision, upgrade
from nardy.store.models import Base
from tests.databases import database_url, postgresql_url, sqlite_url  # noqa: F401  (fixtures)

# SQLite's reflection cannot read the expression index on lower(username): comparing and inspecting skip it,
# saying so (the index itself is tested below).
pytestmark = [
    pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index"),
    pytest.mark.filterwarnings("ignore:autogenerate skipping metadata-specified expression-based index"),
]

@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


def _differences(engine: Engine) -> list[object]:
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, Base.metadata))


def test_upgrade_of_an_empty_database_matches_the_models(engine: Engine) -> None:
    assert current_revision(engine) is None
    upgrade(engine)
    assert current_revision(engine) == head_revision()
    assert _differences(engine) == []


def test_upgrade_from_a_url(database_url: str) -> None:
    upgrade(database_url)
    engine = make_engine(database_url)
    try:
        assert current_revision(engine) == head_revision()
    finally:
        engine.dispose()


def test_second_upgrade_changes_nothing(engine: Engine) -> None:
    upgrade(engine)
    with engine.begin() as connection:
        connection.execute(
            Base.metadata.tables["users"].insert(),
            {"username": "ann", "is_guest": False, "language": "en", "preferences": {}, "created_at": datetime.now(UTC)},
        )
    statements: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: statements.append(args[2]))

    upgrade(engine)

    writes = [s for s in statements if s.lstrip().split(None, 1)[0].upper() in {"CREATE", "ALTER", "DROP", "INSERT"}]
    assert writes == []
    assert current_revision(engine) == head_revision()
    with engine.connect() as connection:
        assert connection.execute(text("SELECT username FROM users")).scalars().all() == ["ann"]


def test_every_constraint_is_named(engine: Engine) -> None:
    """Batch mode on SQLite can only drop or alter a constraint it can name."""
    upgrade(engine)
    with engine.connect() as connection:
        inspector = inspect(connection)
        for table in Base.metadata.tables:
            assert inspector.get_pk_constraint(table)["name"], table
            assert all(fk["name"] for fk in inspector.get_foreign_keys(table)), table
            assert all(uq["name"] for uq in inspector.get_unique_constraints(table)), table


def test_downgrade_to_base_and_back(engine: Engine) -> None:
    upgrade(engine)
    with engine.begin() as connection:
        command.downgrade(alembic_config(connection=connection), "base")
    with engine.connect() as connection:
        assert set(inspect(connection).get_table_names()) <= {"alembic_version"}
    assert current_revision(engine) is None
    upgrade(engine)
    assert _differences(engine) == []


def test_processes_upgrading_at_once(database_url: str) -> None:
    """Four processes start the upgrade at the same instant: all succeed, none needs the retry."""
    start_at = time.time() + 2
    code = (
        "import logging, sys, time\n"
        "from nardy.store.migrate import upgrade\n"
        "logging.basicConfig(level=logging.WARNING)\n"
        "time.sleep(max(0.0, float(sys.argv[2]) - time.time()))\n"
        "upgrade(sys.argv[1])\n"
    )
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", code, database_url, str(start_at)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    results = [(worker.wait(timeout=120), worker.communicate()[1]) for worker in workers]
    for returncode, stderr in results:
        assert returncode == 0, stderr
        assert "retrying" not in stderr, stderr
    engine = make_engine(database_url)
    try:
        assert current_revision(engine) == head_revision()
        assert _differences(engine) == []
    finally:
        engine.dispose()


def test_sqlite_engine_uses_wal_and_foreign_keys(sqlite_url: str) -> None:
    engine = make_engine(sqlite_url)
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    finally:
        engine.dispose()


def test_sqlite_foreign_keys_are_back_on_after_upgrade(sqlite_url: str) -> None:
    """The upgrade turns foreign keys off while it runs; pooled connections must get them back."""
    engine = make_engine(sqlite_url)
    try:
        upgrade(engine)
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
    finally:
        engine.dispose()


def test_usernames_are_unique_in_any_letter_case(engine: Engine) -> None:
    """The database itself refuses "Bob" next to "bob" (two sign-ups racing both pass the service's check)."""
    upgrade(engine)
    users = Base.metadata.tables["users"]
    row = {"is_guest": False, "language": "", "preferences": {}, "created_at": datetime.now(UTC)}
    with engine.begin() as connection:
        connection.execute(users.insert(), {**row, "username": "bob"})
    with pytest.raises(IntegrityError), engine.begin() as connection:
        connection.execute(users.insert(), {**row, "username": "Bob"})
    with engine.begin() as connection:
        connection.execute(users.insert(), {**row, "username": "bobby"})
        assert connection.execute(text("SELECT count(*) FROM users")).scalar() == 2


def test_tables_stored_with_several_automatic_doubles_load_with_one(engine: Engine) -> None:
    """000: «лишь одно автоматическое удвоение за партию»; tables stored before the limit are set to one."""
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection=connection), "0007")
    tables = Base.metadata.tables["tables"]
    row = {"kind": "match", "variant": "backgammon", "match_length": 0, "rated": False, "private": False,
           "created_at": datetime.now(UTC), "status": "finished", "version": 0}
    with engine.begin() as connection:
        connection.execute(tables.insert(), [
            {**row, "id": "many", "options": {"cube": True, "automatic_doubles": 4}},
            {**row, "id": "one", "options": {"cube": True, "automatic_doubles": 1}},
            {**row, "id": "none", "options": {"cube": False}},
        ])
    upgrade(engine)
    with engine.connect() as connection:
        stored = dict(connection.execute(select(tables.c.id, tables.c.options)).all())
    assert stored["many"]["automatic_doubles"] == 1 and stored["one"]["automatic_doubles"] == 1
    assert stored["none"] == {"cube": False}


def test_chouettes_stored_before_0014_get_their_present_players(engine: Engine) -> None:
    """A player's own list finds their chouettes through ``chouette_players``; stored ones are filled from their
    summaries."""
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection=connection), "0013")
    tables, users = Base.metadata.tables["tables"], Base.metadata.tables["users"]
    now = datetime.now(UTC)
    with engine.begin() as connection:
        connection.execute(users.insert(), [
            {"id": n, "username": name, "password_hash": "x", "created_at": now}
            for n, name in ((1, "ann"), (2, "ben"), (3, "cat"))
        ])
        row = {"variant": "backgammon", "match_length": 0, "options": {}, "rated": False, "private": False,
               "created_at": now, "version": 3}
        connection.execute(tables.insert(), [
            {**row, "id": "ch", "kind": "chouette", "status": "playing",
             "score": {"players": [{"user_id": 1, "name": "ann"}, {"user_id": 3, "name": "cat"}], "games": 0}},
            {**row, "id": "empty", "kind": "chouette", "status": "closed", "score": {"players": []}},
            {**row, "id": "m", "kind": "match", "status": "playing", "score": None, "player0_id": 2},
        ])
    upgrade(engine)
    players = Base.metadata.tables["chouette_players"]
    with engine.connect() as connection:
        stored = sorted(connection.execute(select(players.c.table_id, players.c.user_id)).all())
    assert stored == [("ch", 1), ("ch", 3)]
