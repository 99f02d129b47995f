"""Bring a database's schema to the newest migration, from code, at start-up.

The Alembic environment lives inside the package (``nardy/store/migrations``)
and its configuration is built here, so no ``alembic.ini`` is needed and an
installed wheel can migrate its own database.

:func:`upgrade` is safe to call on every start and from several processes at
once. All the steps run in one transaction that first takes a lock (``BEGIN
IMMEDIATE`` on SQLite, an advisory lock on PostgreSQL), so a second process
waits, then finds the database at head and does nothing. Should a race still
slip through (a lock wait timing out), the upgrade is retried once.

New migrations are written with ``python -m nardy.store.migrate revision -m
"what changes"``, which autogenerates the difference between the models and a
scratch database at head; see :func:`main`.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
from collections.abc import Sequence
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError

from nardy.store.db import make_engine

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
"""The Alembic script directory shipped inside the package."""

_PG_LOCK_KEY = 0x6E61726479  # "nardy": the advisory lock that serialises upgrades

_RACE_ERRORS = (OperationalError, IntegrityError, ProgrammingError)

_log = logging.getLogger(__name__)


def alembic_config(*, url: str | None = None, connection: Connection | None = None) -> Config:
    """An Alembic configuration in code: the package's scripts, and a URL or an open connection.

    Revision files are named ``<rev>_<slug>.py`` so that they sort in order.
    """
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("path_separator", "os")
    config.set_main_option("file_template", "%%(rev)s_%%(slug)s")
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str | None:
    """The newest revision among the package's migrations."""
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at; ``None`` for a database never migrated."""
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def upgrade(engine_or_url: Engine | str) -> None:
    """Migrate the database to head; nothing happens if it is there already.

    Given a URL, a short-lived engine is made (with :func:`make_engine`, so a
    new SQLite file gets WAL) and disposed of afterwards; a given engine is
    left open.
    """
    if isinstance(engine_or_url, Engine):
        _upgrade_with_retry(engine_or_url)
        return
    engine = make_engine(engine_or_url)
    try:
        _upgrade_with_retry(engine)
    finally:
        engine.dispose()


def _upgrade_with_retry(engine: Engine) -> None:
    try:
        _upgrade_once(engine)
    except _RACE_ERRORS as error:
        _log.warning("database upgrade failed (%s); retrying once", error)
        _upgrade_once(engine)


def _upgrade_once(engine: Engine) -> None:
    with engine.connect() as connection:
        if connection.dialect.name == "sqlite":
            _upgrade_sqlite(connection)
        else:
            if connection.dialect.name == "postgresql":
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
            command.upgrade(alembic_config(connection=connection), "head")
            connection.commit()


def _upgrade_sqlite(connection: Connection) -> None:
    """Upgrade SQLite in one write transaction, with foreign keys off meanwhile.

    Batch mode rebuilds a table by copying it and dropping the original; with
    foreign keys on, that drop would cascade to the rows referring to it. The
    pragma only changes outside a transaction, so it is set before ``BEGIN
    IMMEDIATE`` (which takes the write lock at once, queueing a second
    process), and the references are checked before committing.
    """
    connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
    try:
        connection.exec_driver_sql("BEGIN IMMEDIATE")
        command.upgrade(alembic_config(connection=connection), "head")
        broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
        if broken:
            connection.rollback()
            raise RuntimeError(f"migration left broken foreign keys: {broken[:5]}")
        connection.commit()
    finally:
        connection.rollback()
        connection.exec_driver_sql("PRAGMA foreign_keys=ON")
        connection.commit()


def _next_revision_id(config: Config) -> str:
    """The next four-digit revision number: one more than the highest numbered so far."""
    numbers = [int(s.revision) for s in ScriptDirectory.from_config(config).walk_revisions() if s.revision.isdigit()]
    return f"{max(numbers, default=0) + 1:04d}"


def main(argv: Sequence[str] | None = None) -> None:
    """``python -m nardy.store.migrate``: upgrade, show the revision, or write a new migration.

    ``revision`` autogenerates against ``--url`` if given, otherwise against a
    scratch SQLite database brought to head, so a developer needs no server.
    """
    parser = argparse.ArgumentParser(
        prog="python -m nardy.store.migrate",
        description="Upgrade a nardy database, show its revision, or write a new migration.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    up = commands.add_parser("upgrade", help="migrate the database to head")
    up.add_argument("--url", required=True, help="SQLAlchemy database URL")
    current = commands.add_parser("current", help="print the database's revision and the head")
    current.add_argument("--url", required=True, help="SQLAlchemy database URL")
    revision = commands.add_parser("revision", help="write a new migration file")
    revision.add_argument("-m", "--message", required=True, help="what the migration changes")
    revision.add_argument("--empty", action="store_true", help="do not autogenerate; write an empty migration")
    revision.add_argument("--url", help="compare the models with this database instead of a scratch SQLite one")
    args = parser.parse_args(argv)

    if args.command == "upgrade":
        upgrade(args.url)
    elif args.command == "current":
        engine = make_engine(args.url)
        try:
            print(f"database: {current_revision(engine)}  head: {head_revision()}")
        finally:
            engine.dispose()
    else:
        _write_revision(args.message, autogenerate=not args.empty, url=args.url)


def _write_revision(message: str, *, autogenerate: bool, url: str | None) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        url = url or f"sqlite:///{Path(scratch) / 'scratch.sqlite3'}"
        if autogenerate:
            upgrade(url)
        config = alembic_config(url=url)
        command.revision(config, message=message, autogenerate=autogenerate, rev_id=_next_revision_id(config))


if __name__ == "__main__":
    main()
