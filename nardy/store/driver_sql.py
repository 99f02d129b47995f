"""Core statements compiled once for a dialect and run on the driver's own cursor.

For the server's hottest write (a grouped append, one per accepted action),
SQLAlchemy's execution of an already compiled and cached Core statement
still cost some 100 µs of Python a call (the execution context, the result
set-up, the parameter processing), several times what SQLite itself takes
to run the statement. A :class:`DriverStatement` keeps what SQLAlchemy
compiled (the SQL in the driver's parameter style, the parameters' order
and each type's bind conversion) and hands the converted parameters to the
driver's cursor directly. SQLAlchemy still writes the SQL and converts the
values, so what lands in the database is what its own execution would write;
driver errors are translated into SQLAlchemy's exceptions, as its own
execution would raise them.

A grouped transaction (:func:`one_transaction`) on PostgreSQL is pipelined:
its BEGIN, its statements and its COMMIT go out together and their results
come back together, one round trip where each statement was one.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
from sqlalchemy import ClauseElement, Dialect, Engine
from sqlalchemy.engine.interfaces import DBAPICursor
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.sql.compiler import SQLCompiler


@dataclass(frozen=True, slots=True)
class DriverStatement:
    """One compiled statement: its SQL, its parameters in the driver's order, and their bind conversions."""

    sql: str
    names: tuple[str, ...]
    conversions: tuple[Callable[[Any], Any] | None, ...]
    positional: bool
    dialect: Dialect

    @classmethod
    def compile(cls, statement: ClauseElement, dialect: Dialect, *, columns: Sequence[str] | None = None,
                ) -> DriverStatement:
        """Compile ``statement`` for ``dialect`` (an INSERT for the given ``columns``)."""
        compiled = statement.compile(dialect=dialect, column_keys=list(columns) if columns is not None else None)
        assert isinstance(compiled, SQLCompiler)
        names = tuple(compiled.positiontup or ()) if compiled.positional else tuple(compiled.binds)
        conversions = tuple(compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect) for name in names)
        return cls(compiled.string, names, conversions, compiled.positional, dialect)

    def parameters(self, values: Mapping[str, Any]) -> Sequence[Any] | Mapping[str, Any]:
        """``values`` by name, converted and arranged as the driver takes them."""
        converted = [values[name] if convert is None else convert(values[name])
                     for name, convert in zip(self.names, self.conversions)]
        return converted if self.positional else dict(zip(self.names, converted))

    def execute(self, cursor: DBAPICursor, values: Mapping[str, Any]) -> int:
        """Run once with ``values``; the number of rows it matched."""
        self.send(cursor, values)
        return int(cursor.rowcount)

    def send(self, cursor: DBAPICursor, values: Mapping[str, Any]) -> None:
        """Run once with ``values``. Inside :func:`one_transaction` on PostgreSQL the cursor's row count is known
        only once the transaction has ended."""
        parameters = self.parameters(values)
        with translated_errors(self.dialect, self.sql, parameters):
            cursor.execute(self.sql, parameters)

    def execute_many(self, cursor: DBAPICursor, rows: Sequence[Mapping[str, Any]]) -> None:
        """Run once for each of ``rows``."""
        parameters: Any = [self.parameters(values) for values in rows]  # all positional, or all by name
        with translated_errors(self.dialect, self.sql, parameters):
            cursor.executemany(self.sql, parameters)


def own_connection(engine: Engine) -> PoolProxiedConnection:
    """A connection of ``engine`` taken out of its pool for good, for :func:`one_transaction`; closing it closes it.

    On PostgreSQL it is in autocommit mode, so that psycopg opens no
    transaction of its own: it would wait for the BEGIN's reply before
    sending anything else. Out of the pool, no other user of the engine can
    get it in that mode."""
    connection = engine.raw_connection()
    connection.detach()
    if isinstance(connection.dbapi_connection, psycopg.Connection):
        connection.dbapi_connection.autocommit = True
    return connection


@contextlib.contextmanager
def one_transaction(connection: PoolProxiedConnection, dialect: Dialect) -> Iterator[None]:
    """One transaction for the statements run on ``connection``'s cursors within the block, committed at its end.

    On PostgreSQL (``connection`` from :func:`own_connection`) the statements
    are pipelined: nothing waits for PostgreSQL until the block ends, and then
    all the replies, the COMMIT's too, come back in one round trip. A
    cursor's row count is known only after the block there. If a statement
    fails, PostgreSQL skips the rest, the COMMIT included. Raises SQLAlchemy's
    exceptions; nothing is committed then, and the connection is best
    closed (its transaction may still be open)."""
    with translated_errors(dialect):
        driver = connection.dbapi_connection
        if isinstance(driver, psycopg.Connection) and driver.autocommit:
            with driver.pipeline():
                driver.execute("BEGIN")
                yield
                driver.execute("COMMIT")
        else:
            yield
            connection.commit()


@contextlib.contextmanager
def translated_errors(dialect: Dialect, sql: str | None = None, parameters: Any = None) -> Iterator[None]:
    """Raise the driver's errors as SQLAlchemy's (an ``IntegrityError`` for a violated key, and so on)."""
    driver_error = dialect.loaded_dbapi.Error
    try:
        yield
    except driver_error as error:
        raise DBAPIError.instance(sql, parameters, error, driver_error, dialect=dialect) from error
