"""A migrated SQLite database for each test server to start from, made once per test process.

A server migrates its database at start-up, and migrating a fresh SQLite
file runs every Alembic revision: a quarter to half a second, for each of
the suite's many hundreds of servers. Instead each server's data directory
gets a copy of one file migrated when the test process first needs it, so
the server's own ``upgrade`` finds it at head and changes nothing. The tests
of the migrations themselves start from empty databases and do not use this.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from pathlib import Path

from nardy.store.migrate import upgrade

DATABASE_NAME = "nardy.sqlite3"
"""The file a server keeps its SQLite database in, under its data directory (``Settings.resolved_database_url``)."""


@functools.cache
def _migrated_template() -> Path:
    directory = Path(tempfile.mkdtemp(prefix="nardy-migrated-"))
    atexit.register(shutil.rmtree, directory, True)
    path = directory / DATABASE_NAME
    upgrade(f"sqlite:///{path}")
    return path


def provide_migrated_sqlite(data_dir: Path) -> None:
    """Put a database migrated to head into ``data_dir``, unless one is there already (a restart keeps its own)."""
    target = data_dir / DATABASE_NAME
    if not target.exists():
        data_dir.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(_migrated_template(), target)
