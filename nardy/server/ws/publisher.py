"""What a table's watchers receive, and how it reaches them in every server process.

The services hand over domain things (:mod:`~nardy.server.services.publisher`);
this module gives them their shape on the wire (``docs/protocol.md``) and
publishes them on the table's channel, where each process's
:class:`~nardy.server.ws.hub.Hub` hands them to its watchers:

* a committed batch becomes an ``events`` message, its view sent as the
  changes since the view this process published before it
  (:mod:`~nardy.server.ws.view_changes`) or whole;
* a team message (``team``) and a chat line kept from spectators (``chat``)
  are *addressed*: the message text follows a line naming the user ids it
  is for, and the hub gives it to the connections signed in as one of them.
"""

from __future__ import annotations

from collections.abc import Iterable, Set
from typing import Any

from nardy.server.pubsub import PubSub
from nardy.server.services.chat import chat_message
from nardy.server.services.publisher import Batch, TeamSaid
from nardy.server.ws.view_changes import ShownView, show
from nardy.server.ws.wire import encode
from nardy.store.chat_repo import StoredChat
from nardy.store.tables_repo import StoredEvent

ADDRESSED = "@"
"""How a message for some users only starts (JSON text never does): ``@<id>,<id>...`` and a newline."""


def table_channel(table_id: str) -> str:
    """The publish/subscribe channel of one table."""
    return f"table:{table_id}"


def addressed(audience: Iterable[int], text: str) -> str:
    """The message ``text`` for the connections of ``audience`` (user ids) alone, as published on a channel."""
    return f"{ADDRESSED}{','.join(str(user) for user in sorted(set(audience)))}\n{text}"


def parse_addressed(published: str) -> tuple[frozenset[int], str] | None:
    """The audience and the message text of an :func:`addressed` message; None for a message to all."""
    if not published.startswith(ADDRESSED):
        return None
    head, _, text = published.partition("\n")
    return frozenset(int(user) for user in head[1:].split(",") if user), text


def event_message(event: StoredEvent) -> dict[str, Any]:
    """One stored event as clients receive it."""
    return {
        "version": event.version,
        "kind": event.kind,
        "seat": event.seat,
        "payload": event.payload,
        "at": event.at.isoformat(),
    }


def events_message(table_id: str, from_version: int, version: int, events: list[StoredEvent]) -> dict[str, Any]:
    """An ``events`` message without its view: the events of versions ``from_version`` to ``version``."""
    return {
        "t": "events",
        "table": table_id,
        "from_version": from_version,
        "version": version,
        "events": [event_message(e) for e in events],
    }


class SocketPublisher:
    """Publishes what the services hand over as the protocol's messages (the services' ``Publisher``)."""

    def __init__(self, pubsub: PubSub) -> None:
        self._pubsub = pubsub

    async def batch(self, batch: Batch, last: object | None) -> ShownView:
        """Send a committed batch to the table's watchers; the view as shown, for the next batch.

        The view goes as the changes since ``last`` when that is the view of
        the version just before the batch and the view kept its top-level keys,
        else whole.
        """
        following = last if isinstance(last, ShownView) and last.version == batch.from_version - 1 else None
        shown, changes = show(batch.view, batch.version, following)
        message = events_message(batch.table_id, batch.from_version, batch.version, batch.events)
        if changes is None:
            message["state"] = batch.view
        else:
            message["changes"] = changes
        await self._pubsub.publish(table_channel(batch.table_id), encode(message), versioned=True)
        return shown

    async def team_said(self, said: TeamSaid, team: Set[int]) -> None:
        """A ``team`` message, to the team's connections alone."""
        message = {
            "t": "team", "table": said.table_id, "from": said.user_id, "name": said.name, "text": said.text,
            "suggest": said.suggest, "steps": said.steps,
        }
        await self._pubsub.publish(table_channel(said.table_id), addressed(team, encode(message)))

    async def chat_said(self, table_id: str, line: StoredChat, readers: Set[int] | None) -> None:
        """A ``chat`` message, to its readers' connections alone or to every watcher."""
        text = encode({"t": "chat", "table": table_id, "messages": [chat_message(line)]})
        await self._pubsub.publish(table_channel(table_id), text if readers is None else addressed(readers, text))
