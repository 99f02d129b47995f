"""Backups of the database and their restore: a SQLite file through SQLite's online backup API, PostgreSQL
through its own ``pg_dump`` and ``pg_restore``, run as outside programs.

A backup is taken while the server runs. SQLite's backup API copies the
database page by page as one consistent snapshot (in WAL mode the server's
writers go on meanwhile), into a single self-contained file, checked before
it takes its name, so a failed backup never leaves a file that looks like
one. ``pg_dump`` takes one consistent snapshot too, in its compressed
``custom`` format, which ``pg_restore`` reads.

A restore goes into a database with no tables (a new file, or a database
just made with ``createdb``), unless ``replace`` is asked for; the server
must not run on that database meanwhile. The restored database has the
schema of the backup's day: the server migrates it to its own at start.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import SQLAlchemyError

SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first bytes of every SQLite database file."""
PG_DUMP_MAGIC = b"PGDMP"
"""The first bytes of a ``pg_dump --format=custom`` archive."""
BUSY_TIMEOUT_S = 30
"""How long the backup waits for a lock the server holds."""


class BackupError(RuntimeError):
    """A backup or restore that cannot be made; the message says why, in one line."""


@dataclass(frozen=True, slots=True)
class Database:
    """Where a database is, read from its SQLAlchemy URL: a SQLite file, or a PostgreSQL database."""

    url: URL

    @classmethod
    def from_url(cls, url: str) -> Database:
        """The database of ``url``; :class:`BackupError` for a kind this module cannot back up."""
        parsed = make_url(url)
        if parsed.get_backend_name() not in ("sqlite", "postgresql"):
            raise BackupError(f"cannot back up a {parsed.get_backend_name()} database: SQLite or PostgreSQL only")
        if parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:"):
            raise BackupError("an in-memory SQLite database has nothing to back up")
        return cls(parsed)

    @property
    def is_sqlite(self) -> bool:
        return self.url.get_backend_name() == "sqlite"

    @property
    def sqlite_path(self) -> Path:
        assert self.url.database
        return Path(self.url.database)


def backup(url: str, destination: Path) -> None:
    """Write a backup of the database at ``url`` to ``destination`` (replaced if it exists)."""
    database = Database.from_url(url)
    if not destination.parent.is_dir():
        raise BackupError(f"there is no directory {destination.parent} to write the backup in")
    partial = destination.with_name(f".{destination.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        if database.is_sqlite:
            _sqlite(_sqlite_backup, database.sqlite_path, partial)
        else:
            _run("pg_dump", ["--format=custom", "--no-owner", f"--file={partial}"], database.url)
        partial.replace(destination)
    finally:
        partial.unlink(missing_ok=True)


def restore(url: str, source: Path, *, replace: bool = False) -> None:
    """Restore the backup ``source`` into the database at ``url``, which must have no tables unless ``replace``."""
    database = Database.from_url(url)
    if not source.is_file():
        raise BackupError(f"there is no backup at {source}")
    expected = SQLITE_MAGIC if database.is_sqlite else PG_DUMP_MAGIC
    with source.open("rb") as file:
        if file.read(len(expected)) != expected:
            kind = "a SQLite file" if database.is_sqlite else "a pg_dump archive (--format=custom)"
            raise BackupError(f"{source} is not {kind}: a backup restores into the kind of database it came from")
    if not replace and _has_tables(database):
        raise BackupError("the database to restore into has tables already: restore into a new one, or replace it")
    if database.is_sqlite:
        _sqlite(_sqlite_restore, source, database.sqlite_path)
    else:
        clean = ["--clean", "--if-exists"] if replace else []
        _run("pg_restore", [*clean, "--no-owner", "--single-transaction", "--exit-on-error", str(source)],
             database.url)


# ----- SQLite


def _sqlite(step: Callable[[Path, Path], None], source: Path, target: Path) -> None:
    """Run a backup or restore step, SQLite's own errors (a full disk, a locked file) told as one line."""
    try:
        step(source, target)
    except sqlite3.Error as error:
        raise BackupError(f"SQLite: {error}") from error


def _sqlite_backup(path: Path, destination: Path) -> None:
    if not path.is_file():
        raise BackupError(f"there is no SQLite database at {path}")
    source = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
    try:
        copy = sqlite3.connect(destination)
        try:
            source.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file, whatever the server's mode
            _check(copy, destination)
        finally:
            copy.close()
    finally:
        source.close()


def _sqlite_restore(source: Path, path: Path) -> None:
    backup_file = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        _check(backup_file, source)
        path.parent.mkdir(parents=True, exist_ok=True)
        target = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S)
        try:
            backup_file.backup(target)
        finally:
            target.close()
    finally:
        backup_file.close()


def _check(connection: sqlite3.Connection, path: Path) -> None:
    verdict = connection.execute("PRAGMA quick_check").fetchone()[0]
    if verdict != "ok":
        raise BackupError(f"{path} fails SQLite's check: {verdict}")


# ----- PostgreSQL


def _run(program: str, arguments: list[str], url: URL) -> None:
    """Run ``pg_dump`` or ``pg_restore`` on the database of ``url``; the password goes in the environment, never on
    the command line, where any user of the machine could read it."""
    found = shutil.which(program)
    if found is None:
        raise BackupError(f"{program} is not installed (Debian: apt-get install postgresql-client)")
    target = url.set(drivername="postgresql", password=None).render_as_string(hide_password=False)
    environment = dict(os.environ)
    if url.password is not None:
        environment["PGPASSWORD"] = str(url.password)
    command = [found, *arguments, f"--dbname={target}"]
    finished = subprocess.run(command, env=environment, capture_output=True, text=True, check=False)
    if finished.returncode != 0:
        said = (finished.stderr.strip() or finished.stdout.strip() or f"exit status {finished.returncode}")
        raise BackupError(f"{program} failed: {said.splitlines()[0]}")


def _has_tables(database: Database) -> bool:
    if database.is_sqlite and not database.sqlite_path.exists():
        return False
    engine = create_engine(database.url)
    try:
        with engine.connect() as connection:
            return bool(inspect(connection).get_table_names())
    except SQLAlchemyError as error:
        raise BackupError(f"cannot reach the database to restore into: {str(error).splitlines()[0]}") from error
    finally:
        engine.dispose()
