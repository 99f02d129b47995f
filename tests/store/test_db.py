"""The engine's SQLite set-up: WAL, and waiting for other connections' locks."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from sqlalchemy import text

from nardy.store.db import make_engine


def test_a_new_file_is_switched_to_wal_once_another_writer_lets_go(tmp_path: Path) -> None:
    """A writer in rollback mode makes SQLite refuse the switch at once; the engine waits for it instead."""
    path = tmp_path / "new.sqlite3"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("CREATE TABLE early (x)")
    plain = sqlite3.connect(path, timeout=5)
    try:
        plain.execute("PRAGMA journal_mode=WAL")
        refused_at_once = False
    except sqlite3.OperationalError:
        refused_at_once = True
    finally:
        plain.close()
    assert refused_at_once, "the situation under test no longer arises: SQLite itself now waits"
    release = threading.Timer(0.3, lambda: writer.execute("COMMIT"))
    release.start()
    engine = make_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as connection:
            assert connection.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert connection.execute(text("SELECT count(*) FROM early")).scalar() == 0
    finally:
        release.join()
        engine.dispose()
        writer.close()
