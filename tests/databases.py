"""Fresh databases of both kinds, as fixtures a test module imports (``from tests.databases import database_url,
postgresql_url, sqlite_url``: ``database_url`` asks for the other two by name).

PostgreSQL is the server at ``NARDY_TEST_POSTGRES_URL`` (default
``postgresql+psycopg://postgres@127.0.0.1:5432/test``); each test gets a fresh
database there, dropped afterwards. Without a server those tests are skipped.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, make_url
from sqlalchemy.exc import OperationalError

POSTGRES_URL = os.environ.get("NARDY_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'nardy.sqlite3'}"


@pytest.fixture
def postgresql_url() -> Iterator[str]:
    """A fresh, empty database ``nardy_test_<random>`` on the test server, dropped afterwards."""
    admin = create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3})
    name = f"nardy_test_{uuid.uuid4().hex[:12]}"
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except OperationalError as error:
        admin.dispose()
        pytest.skip(f"PostgreSQL not reachable at {POSTGRES_URL}: {error.orig}")
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> str:
    """An empty database of each kind."""
    url: str = request.getfixturevalue(f"{request.param}_url")
    return url
