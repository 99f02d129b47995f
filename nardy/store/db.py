"""The database engine and sessions: SQLite (WAL) by default, PostgreSQL by URL."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import QueuePool


BUSY_TIMEOUT_S = 30
"""How long a SQLite connection waits for another one's lock before it gives up."""
POOL_SIZE = 20
"""Connections kept open per process by default (``NARDY_DATABASE_POOL_SIZE``)."""
POOL_OVERFLOW = 40
"""Connections opened beyond the pool at peaks (``NARDY_DATABASE_POOL_OVERFLOW``).

A process queries from FastAPI's thread pool (40 threads) and from the game
services' database threads (8 by default) at once: the pool and its overflow
together must cover both, or a burst of requests waits for a connection and
fails after 30 s."""


def make_engine(url: str, *, pool_size: int = POOL_SIZE, max_overflow: int = POOL_OVERFLOW) -> Engine:
    """An engine for ``url``; a SQLite file gets WAL, foreign keys and a busy timeout."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_S}, pool_size=pool_size,
            max_overflow=max_overflow,
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=pool_size, max_overflow=max_overflow)


def _sqlite_pragmas(connection: Any, _record: Any) -> None:
    cursor = connection.cursor()
    _switch_to_wal(cursor)
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_S * 1000}")
    cursor.close()


def _switch_to_wal(cursor: sqlite3.Cursor) -> None:
    """Put the file in WAL mode, retrying while another connection holds a lock on it.

    Switching a file still in rollback mode needs its exclusive lock. When a
    second connection is switching or writing at that moment, SQLite may
    answer "database is locked" at once instead of waiting out the busy
    timeout (it would otherwise risk a deadlock), which is what processes
    starting together on a new file meet. The pragma is retried, each try
    from scratch, until the busy timeout is spent.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    """Sessions that keep loaded objects usable after commit."""
    return sessionmaker(engine, expire_on_commit=False)


def ping(db: Session) -> None:
    """Ask the database the cheapest question there is; raises if it cannot answer."""
    db.execute(text("SELECT 1"))


def watch_pool(engine: Engine, report: Callable[[int, int], None]) -> None:
    """Call ``report(in_use, open)`` each time ``engine``'s pool lends or takes back a connection.

    ``in_use`` counts the connections lent out, ``open`` those lent or idle.
    A pool that is not a queue (an in-memory SQLite database's) is not watched.
    """
    pool = engine.pool
    if not isinstance(pool, QueuePool):
        return

    def changed(*_: Any) -> None:
        lent = pool.checkedout()
        report(lent, lent + pool.checkedin())

    event.listen(pool, "checkout", changed)
    event.listen(pool, "checkin", changed)
