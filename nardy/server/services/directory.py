"""Which service serves a table: a match goes to the table service, a chouette to the chouette service.

The WebSocket endpoint asks the directory and stays the same for both kinds:
subscribe, resync and actions look alike; only ``team_say`` is a chouette's
alone, and the chat (``say``, ``chat_spectators``) a two-seat table's. A
table in memory is served by the service holding it; the kind of any other
is read from the database (in the database threads, off the event loop).
"""

from __future__ import annotations

from typing import Any, Protocol

from nardy.server.services.chat import ChatService
from nardy.server.services.chouette_state import CHOUETTE_KIND
from nardy.server.services.chouettes import ChouetteService
from nardy.server.services.database import DatabaseThreads
from nardy.server.services.table_state import ActionError
from nardy.server.services.tables import TableService
from nardy.store import tables_repo

CHOUETTE_ACTIONS = frozenset({"start", "vote", "box_answer", "team_say"})
"""Actions only a chouette takes."""
MATCH_ACTIONS = frozenset({"say", "chat_spectators"})
"""Actions only a two-seat table takes: its chat."""


class TableLike(Protocol):
    """What the endpoint needs of a table service."""

    async def snapshot(self, table_id: str) -> tuple[int, dict[str, Any]]: ...

    async def events_since(self, table_id: str, version: int) -> list[dict[str, Any]]: ...

    async def act(self, table_id: str, *, user_id: int, action: dict[str, Any], action_id: str) -> int: ...


class TableDirectory:
    """Routes a table id to the service of its kind."""

    def __init__(
        self, *, db: DatabaseThreads, tables: TableService, chouettes: ChouetteService, chat: ChatService,
    ) -> None:
        self._db = db
        self.tables = tables
        self.chouettes = chouettes
        self.chat = chat

    async def kind_of(self, table_id: str) -> str:
        """``match`` or ``chouette``; ``no_such_table`` otherwise.

        A table held in memory is of its service's kind; any other is looked up
        in the database. Nothing is remembered per table: a process serves
        thousands of tables an hour, and an entry kept for each (as there was)
        grew the server's memory for as long as it ran.
        """
        for service in (self.tables, self.chouettes):
            if service.is_loaded(table_id):
                return service.kind
        kind = await self._db.run(lambda session: tables_repo.table_kind(session, table_id))
        if kind is None:
            raise ActionError("no_such_table", f"there is no table {table_id!r}")
        return kind

    async def service_for(self, table_id: str) -> TableLike:
        """The service that serves ``table_id``."""
        return self.chouettes if await self.kind_of(table_id) == CHOUETTE_KIND else self.tables

    async def act(self, table_id: str, *, user_id: int, action: dict[str, Any], action_id: str) -> int:
        """Apply an action (or send a chat or chouette team message) at the table's service; the version after it."""
        if await self.kind_of(table_id) != CHOUETTE_KIND:
            if action["t"] in CHOUETTE_ACTIONS:
                raise ActionError("unknown_action", f"{action['t']!r} is an action of a chouette table")
            if action["t"] == "say":
                return await self.chat.say(table_id, user_id=user_id, action=action, action_id=action_id)
            return await self.tables.act(table_id, user_id=user_id, action=action, action_id=action_id)
        if action["t"] in MATCH_ACTIONS:
            raise ActionError("unknown_action", f"{action['t']!r} is the chat of a two-seat table; a chouette has none")
        if action["t"] == "team_say":
            return await self.chouettes.team_say(table_id, user_id=user_id, action=action)
        return await self.chouettes.act(table_id, user_id=user_id, action=action, action_id=action_id)

    async def chat_history(self, table_id: str, user_id: int | None) -> list[dict[str, Any]]:
        """The last chat messages of a two-seat table that ``user_id`` (None: a visitor) may read, for a
        new subscriber; none at a chouette (its team channel keeps nothing)."""
        if await self.kind_of(table_id) == CHOUETTE_KIND:
            return []
        history = await self.chat.history(table_id, user_id, last=self.chat.limits.history)
        return history or []
