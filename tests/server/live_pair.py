"""Two live server processes on one database and one Redis, as fixtures a test module imports.

``from tests.server.live_pair import database_url, live_servers, redis_url  # noqa: F401``
(pytest finds a fixture by the name it has in the test module). The database is a
SQLite file in WAL mode or a fresh PostgreSQL database; a case is skipped, with the
reason, when its service does not answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.live_server import (
    FAST_CLIENT_ENV,
    REDIS_URL,
    LiveServer,
    fresh_postgres_database,
    postgres_unreachable,
    redis_unreachable,
    running_together,
)


@pytest.fixture
def redis_url() -> str:
    reason = redis_unreachable()
    if reason is not None:
        pytest.skip(reason)
    return REDIS_URL


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'shared' / 'nardy.sqlite3'}"
        return
    reason = postgres_unreachable()
    if reason is not None:
        pytest.skip(reason)
    with fresh_postgres_database() as url:
        yield url


@pytest.fixture
def live_servers(tmp_path: Path, database_url: str, redis_url: str) -> Iterator[tuple[LiveServer, LiveServer]]:
    """Processes A and B on one database and one Redis, started together (both migrate at once)."""
    pair = [
        LiveServer(tmp_path / name, database_url=database_url, redis_url=redis_url, env=FAST_CLIENT_ENV)
        for name in ("a", "b")
    ]
    with running_together(pair):
        yield pair[0], pair[1]
