"""Who watches which table in this process, and the fan-out of published events to them.

One publish/subscribe subscription per watched table per process forwards
each published message, already serialised, to every local watcher's queue.
A watcher too slow to keep up is disconnected; on reconnect it resyncs from
the version it last saw. A message addressed to some users only (a
chouette's team channel, the chat of a rated match its players keep from
spectators: :func:`~nardy.server.ws.publisher.addressed`) goes to the
watchers signed in as one of them and to nobody else.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections import deque

from nardy.server.pubsub import PubSub, SubscriptionOverflow
from nardy.server.ws.publisher import parse_addressed, table_channel

log = logging.getLogger(__name__)

QUEUE_LIMIT = 256
"""Messages a connection may have waiting to be sent before it counts as too far behind."""


class Watcher:
    """One connection's outgoing messages, or the mark that it fell too far behind (``overflowed``).

    ``user_id`` is the user the connection is signed in as (None for a visitor).
    ``wake`` is the connection's event, set whenever there is a message to
    send or the watcher overflowed. While a table's subscription is answered
    its published messages are held back (:meth:`hold`), so that the answer and
    the chat history come first and nothing they already hold is sent after them.
    """

    def __init__(self, wake: asyncio.Event, user_id: int | None = None) -> None:
        self.user_id = user_id
        self.overflowed = False
        self._wake = wake
        self._outbox: deque[str] = deque()
        self._held: dict[str, list[str]] = {}

    def deliver(self, table_id: str, message: str) -> None:
        """Queue a message about ``table_id`` (or hold it back); past :data:`QUEUE_LIMIT` waiting, overflow."""
        held = self._held.get(table_id)
        if held is not None:
            held.append(message)
            return
        if self.overflowed:
            return
        if len(self._outbox) < QUEUE_LIMIT:
            self._outbox.append(message)
        else:
            self.overflowed = True
        self._wake.set()

    def overflow(self) -> None:
        """Mark the watcher as too far behind: its connection must close, and the client resync."""
        self.overflowed = True
        self._wake.set()

    def next_message(self) -> str | None:
        """The oldest message waiting to be sent, taken off the queue; ``None`` if none waits."""
        return self._outbox.popleft() if self._outbox else None

    def hold(self, table_id: str) -> None:
        """Keep ``table_id``'s messages back until :meth:`release`."""
        self._held.setdefault(table_id, [])

    def release(self, table_id: str, version: int | None, last_chat: int | None = None) -> None:
        """Queue what was held of ``table_id``, less what the subscriber already has: the events up to
        ``version`` and the chat messages up to id ``last_chat`` (the history it was sent)."""
        for message in self._held.pop(table_id, []):
            if not _covered(message, version, last_chat):
                self.deliver(table_id, message)


def _covered(message: str, version: int | None, last_chat: int | None) -> bool:
    """Whether a published message only carries events up to ``version``, or chat messages up to ``last_chat``."""
    published = json.loads(message)
    if published.get("t") == "chat":
        ids = [line.get("id") for line in published.get("messages", [])]
        return last_chat is not None and all(isinstance(i, int) and i <= last_chat for i in ids)
    shown = published.get("version")
    return version is not None and isinstance(shown, int) and shown <= version


class Hub:
    """Local watchers per table, fed from the publish/subscribe layer."""

    def __init__(self, pubsub: PubSub) -> None:
        self._pubsub = pubsub
        self._watchers: dict[str, set[Watcher]] = {}
        self._feeds: dict[str, asyncio.Task[None]] = {}

    async def watch(self, table_id: str, watcher: Watcher) -> None:
        """Start sending ``table_id``'s events to ``watcher``."""
        watchers = self._watchers.setdefault(table_id, set())
        watchers.add(watcher)
        if table_id not in self._feeds:
            ready = asyncio.Event()
            self._feeds[table_id] = asyncio.create_task(self._feed(table_id, ready), name=f"feed-{table_id}")
            await ready.wait()

    def unwatch(self, table_id: str, watcher: Watcher) -> None:
        """Stop sending ``table_id``'s events to ``watcher``; drop the feed when nobody watches."""
        watchers = self._watchers.get(table_id)
        if watchers is None:
            return
        watchers.discard(watcher)
        if not watchers:
            del self._watchers[table_id]
            feed = self._feeds.pop(table_id, None)
            if feed is not None:
                feed.cancel()

    def unwatch_all(self, watcher: Watcher) -> None:
        """Forget ``watcher`` everywhere (its connection closed)."""
        for table_id in [t for t, ws in self._watchers.items() if watcher in ws]:
            self.unwatch(table_id, watcher)

    async def close(self) -> None:
        """Stop every feed."""
        for feed in self._feeds.values():
            feed.cancel()
        for feed in list(self._feeds.values()):
            with contextlib.suppress(asyncio.CancelledError):
                await feed
        self._feeds.clear()

    async def _feed(self, table_id: str, ready: asyncio.Event) -> None:
        try:
            async with self._pubsub.subscribe(table_channel(table_id)) as subscription:
                ready.set()
                while True:
                    try:
                        message = await anext(subscription)
                    except SubscriptionOverflow:
                        self._resync_all(table_id)
                        continue
                    except StopAsyncIteration:
                        break
                    self._deliver(table_id, message)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("feed of table %s failed; its watchers must resync", table_id)
            self._resync_all(table_id)
        finally:
            ready.set()
            if self._feeds.get(table_id) is asyncio.current_task():
                del self._feeds[table_id]

    def _deliver(self, table_id: str, message: str) -> None:
        watchers = list(self._watchers.get(table_id, ()))
        limited = parse_addressed(message)
        if limited is None:
            for watcher in watchers:
                watcher.deliver(table_id, message)
            return
        audience, text = limited
        for watcher in watchers:
            if watcher.user_id is not None and watcher.user_id in audience:
                watcher.deliver(table_id, text)

    def _resync_all(self, table_id: str) -> None:
        """Messages were lost: make every watcher of the table reconnect and resync."""
        for watcher in list(self._watchers.get(table_id, ())):
            watcher.overflow()
