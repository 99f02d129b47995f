"""Which service serves a table: the service of the table's kind (a match's, a chouette's).

The WebSocket endpoint asks the directory and stays the same for every kind:
subscribe, resync, actions and the chat history look alike, and each kind's
service decides what its tables take (a match's chat, a chouette's team
channel). A table in memory is of the kind of the service holding it; the
kind of any other is read from the database (in the database threads, off
the event loop). Every player's action passes here, so here it is counted
and timed (:mod:`nardy.server.runtime.metrics`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Protocol

from nardy.server.runtime.metrics import SILENT, Metrics
from nardy.server.services.database import DatabaseThreads
from nardy.server.services.table_state import ActionError
from nardy.store import tables_repo
from nardy.store.tables_repo import StoredEvent


class TableEntrance(Protocol):
    """What the endpoint needs of the service of a kind of table."""

    @property
    def kind(self) -> str: ...

    def is_loaded(self, table_id: str) -> bool: ...

    async def snapshot(self, table_id: str) -> tuple[int, dict[str, Any]]: ...

    async def events_since(self, table_id: str, version: int) -> list[StoredEvent]: ...

    async def act(self, table_id: str, *, user_id: int, action: dict[str, Any], action_id: str) -> int: ...

    async def chat_history(self, table_id: str, user_id: int | None) -> list[dict[str, Any]]: ...


class TableDirectory:
    """Routes a table id to the service of its kind."""

    def __init__(
        self, *, db: DatabaseThreads, services: Iterable[TableEntrance], metrics: Metrics = SILENT,
    ) -> None:
        self._db = db
        self._services = {service.kind: service for service in services}
        self._metrics = metrics

    async def kind_of(self, table_id: str) -> str:
        """The table's kind (``match``, ``chouette``); ``no_such_table`` otherwise.

        A table held in memory is of its service's kind; any other is looked up
        in the database. Nothing is remembered per table: a process serves
        thousands of tables an hour, and an entry kept for each (as there was)
        grew the server's memory for as long as it ran.
        """
        for kind, service in self._services.items():
            if service.is_loaded(table_id):
                return kind
        stored = await self._db.run(lambda session: tables_repo.table_kind(session, table_id))
        if stored is None or stored not in self._services:
            raise ActionError("no_such_table", f"there is no table {table_id!r}")
        return stored

    async def service_for(self, table_id: str) -> TableEntrance:
        """The service that serves ``table_id``."""
        return self._services[await self.kind_of(table_id)]

    async def act(self, table_id: str, *, user_id: int, action: dict[str, Any], action_id: str) -> int:
        """Hand an action to the service of the table's kind; the version after it."""
        began = time.perf_counter()
        try:
            service = await self.service_for(table_id)
            version = await service.act(table_id, user_id=user_id, action=action, action_id=action_id)
        except ActionError as error:
            self._metrics.action(action["t"], error.code, time.perf_counter() - began)
            raise
        self._metrics.action(action["t"], None, time.perf_counter() - began)
        return version

    async def chat_history(self, table_id: str, user_id: int | None) -> list[dict[str, Any]]:
        """The last chat messages of the table that ``user_id`` (None: a visitor) may read, for a new
        subscriber; none where the table's kind keeps none."""
        service = await self.service_for(table_id)
        return await service.chat_history(table_id, user_id)
