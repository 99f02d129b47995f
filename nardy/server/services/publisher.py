"""What the services hand over to be told to a table's watchers, and the publisher they hand it to.

The services speak of domain things: a batch of events just committed, a
team member's message, a chat line. How those become messages on the
wire, and who among the watchers receives them, is the socket layer's
business (:class:`~nardy.server.ws.publisher.SocketPublisher` implements
:class:`Publisher`); the services never build a wire message and never
import the socket layer, which sits above them. The app wires the two
together.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from typing import Any, Protocol

from nardy.store.chat_repo import StoredChat
from nardy.store.tables_repo import StoredEvent


@dataclass(frozen=True, slots=True)
class Batch:
    """The events of one commit to a table, versions ``from_version`` to ``version``, and its view after them."""

    table_id: str
    events: list[StoredEvent]
    from_version: int
    version: int
    view: dict[str, Any]


@dataclass(frozen=True, slots=True)
class TeamSaid:
    """A chouette team member's message to the team (``team_say``): never stored, never versioned."""

    table_id: str
    user_id: int
    name: str
    text: str
    suggest: str | None
    steps: list[dict[str, Any]] | None


class Publisher(Protocol):
    """Tells a table's watchers, in every server process, what happened at the table."""

    async def batch(self, batch: Batch, last: object | None) -> object:
        """Publish a committed batch. ``last`` is what this call returned for the table's previous batch (the
        owner keeps it with the table, None at first): the publisher may send the view as its changes since
        then. Returns what to pass with the next batch."""
        ...

    async def team_said(self, said: TeamSaid, team: Set[int]) -> None:
        """Publish a team message to the connections of ``team`` (user ids) alone."""
        ...

    async def chat_said(self, table_id: str, line: StoredChat, readers: Set[int] | None) -> None:
        """Publish a chat line to the connections of ``readers`` (user ids) alone, or to every watcher (None)."""
        ...
