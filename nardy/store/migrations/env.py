"""Alembic's environment for :mod:`nardy.store`: how a migration reaches the database.

Alembic runs this file for every command. It is normally driven by
:func:`nardy.store.migrate.upgrade`, which opens the connection itself (to
take a lock and hold one transaction around all the steps) and hands it over
in ``config.attributes["connection"]``. Without one, the URL in the
config's ``sqlalchemy.url`` is used, and with ``--sql`` (offline mode) the
SQL is printed instead of run.

The target is :data:`nardy.store.models.Base.metadata`, so autogenerate
compares the database with the models. SQLite can alter little in place, so
its changes are rendered and run as batch operations (copy and swap the table).
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine, pool

from nardy.store.models import Base

target_metadata = Base.metadata


def _run_offline() -> None:
    """Print the SQL for the chosen revisions instead of running it."""
    url = context.config.get_main_option("sqlalchemy.url")
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        render_as_batch=bool(url and url.startswith("sqlite")),
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _run_on(connection: Connection) -> None:
    """Run the migrations on an open connection."""
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _run_online() -> None:
    """Run on the connection we were given, or on a fresh one to ``sqlalchemy.url``."""
    given = context.config.attributes.get("connection")
    if isinstance(given, Connection):
        _run_on(given)
        return
    url = context.config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database: set config.attributes['connection'] or sqlalchemy.url")
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        with engine.begin() as connection:
            _run_on(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    _run_offline()
else:
    _run_online()
