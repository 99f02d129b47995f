"""The services' database work, run in worker threads of its own so that no query blocks the event loop.

Every query of the table, chouette, directory, matchmaking and takeover
services goes through :meth:`DatabaseThreads.run`: one session per call, in a
thread of a pool kept for the database alone. It is not the loop's default
executor, which the computer players' searches use, so a long search cannot
hold a query up and a slow query cannot hold a search up. The caller awaits
the result, so whatever it holds (a table's lock) stays held across the
query; folding events and deciding on the rules stay on the event loop.
The plain appends of the tables (a roll, a step, a double) share
transactions instead, through :meth:`DatabaseThreads.grouped`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from nardy.server.services.group_commit import GroupCommit, GroupedWork

T = TypeVar("T")

DEFAULT_THREADS = 8
"""Worker threads by default (``NARDY_DATABASE_THREADS``)."""


class DatabaseThreads:
    """Runs ``work(session)`` in a worker thread, with a session of its own, and awaits it.

    Appends that may share a transaction with other tables' go through
    :meth:`grouped` instead (:mod:`nardy.server.services.group_commit`).
    """

    def __init__(self, sessions: sessionmaker[Session], engine: Engine, *, threads: int = DEFAULT_THREADS) -> None:
        self._sessions = sessions
        self._executor = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="nardy-db")
        self._group = GroupCommit(engine)

    async def run(self, work: Callable[[Session], T]) -> T:
        """``work`` in a fresh session, off the event loop; what it returns or raises.

        A running query cannot be stopped. If the caller is cancelled
        meanwhile, the cancellation waits until the query ends: whoever holds
        a table's lock keeps it until the database work it guards is done.
        """
        future = asyncio.get_running_loop().run_in_executor(self._executor, self._in_session, work)
        try:
            return await asyncio.shield(future)
        except asyncio.CancelledError:
            await asyncio.wait([future])
            raise

    async def grouped(self, key: str, work: GroupedWork) -> None:
        """``work`` (writing the rows of ``key``, a table id) in the next grouped transaction, committed when this
        returns (the rules of a grouped job: :class:`~nardy.server.services.group_commit.GroupCommit`)."""
        await self._group.write(key, work)

    def _in_session(self, work: Callable[[Session], T]) -> T:
        with self._sessions() as db:
            return work(db)

    def close(self) -> None:
        """Finish the queries under way and stop the threads."""
        self._group.close()
        self._executor.shutdown(wait=True)
