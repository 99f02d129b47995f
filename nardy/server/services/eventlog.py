"""What the table services share: a table held in memory as the fold of its event log.

A match (:mod:`~nardy.server.services.tables`) and a chouette
(:mod:`~nardy.server.services.chouettes`) are both a row of ``tables`` and an
append-only log in ``table_events``, with their dice seeds in ``game_seeds``.
Each service folds the log with its own pure ``apply_event`` and decides with
its own rules; loading, catching up with other processes, retrying an action,
folding a batch with the server's follow-ups and publishing it are the same,
and live here.

Every read and write of the database runs in the services' worker threads
(:class:`~nardy.server.services.database.DatabaseThreads`), awaited under
the table's lock: the event loop folds and decides, and serves every other
socket while a query runs.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy.orm import Session

from nardy.server.pubsub import PubSub
from nardy.server.services.clock import Clock
from nardy.server.services.database import DatabaseThreads
from nardy.server.services.table_state import ActionError, NewEvent
from nardy.server.view_changes import ShownView, show
from nardy.server.wire import encode
from nardy.store import tables_repo
from nardy.store.models import GameTable
from nardy.store.tables_repo import StoredEvent, VersionConflict


class Logged(Protocol):
    """A state folded from a table's log: it knows its table and version."""

    @property
    def id(self) -> str: ...

    @property
    def version(self) -> int: ...


S = TypeVar("S", bound=Logged)
Apply = Callable[[S, NewEvent, datetime], S]

log = logging.getLogger(__name__)

IDLE_SECONDS = 30 * 60
"""A table nobody has touched for this long leaves memory (its log reloads it on the next access)."""

FINISHED_SECONDS = 60
"""A finished table leaves memory this long after its last use: the end of a match and the
rematch that follows are served from memory, and nothing keeps it there afterwards."""


def table_channel(table_id: str) -> str:
    """The publish/subscribe channel of one table."""
    return f"table:{table_id}"


AUDIENCE_PREFIX = '{"audience": '
"""How a message for some users only starts on a table's channel (see :func:`addressed`)."""


def addressed(audience: Iterable[int], message: dict[str, Any]) -> str:
    """A message for the connections of ``audience`` (user ids) alone, as published on the table's channel.

    Each process's hub delivers it to its watchers signed in as one of those
    users and to nobody else (a chouette's team channel, a match's chat kept from spectators).
    """
    return json.dumps({"audience": sorted(set(audience)), "message": message})


def parse_addressed(text: str) -> tuple[frozenset[int], str] | None:
    """The audience and the message text of an :func:`addressed` message; None for a message to all."""
    if not text.startswith(AUDIENCE_PREFIX):
        return None
    envelope = json.loads(text)
    return frozenset(envelope["audience"]), json.dumps(envelope["message"])


def event_message(event: StoredEvent) -> dict[str, Any]:
    """One stored event as clients receive it."""
    return {
        "version": event.version,
        "kind": event.kind,
        "seat": event.seat,
        "payload": event.payload,
        "at": event.at.isoformat(),
    }


@dataclass
class LiveLog(Generic[S]):
    """A table held in memory: its folded state, its secret seeds and the lock serialising it."""

    state: S
    seeds: dict[int, str]
    apply: Callable[[S, NewEvent, datetime], S]
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    acted: dict[str, int] = field(default_factory=dict)
    """Applied action ids (``who:client id``) and the version each was acknowledged with."""
    used_at: datetime | None = None
    """When the table was last loaded or used (the service's clock)."""
    pins: int = 0
    """Callers and tasks holding this table across an ``await`` (an action, a bot's move): it stays in memory."""
    shown: ShownView | None = None
    """The view this process published last, so that the next goes as its changes."""

    @property
    def busy(self) -> bool:
        """Something holds the table now: it must not be dropped from memory."""
        return self.pins > 0 or self.lock.locked()

    def fold(self, stored: StoredEvent) -> None:
        """Apply one stored event to the cached state."""
        self.state = self.apply(self.state, NewEvent(stored.kind, stored.seat, stored.payload), stored.at)
        if stored.action_id is not None:
            self.acted[stored.action_id] = stored.version


@dataclass(frozen=True, slots=True)
class _Read:
    """What one trip to the database brought back: the row (when loading), events after a version, the seeds."""

    row: GameTable | None
    events: list[StoredEvent]
    seeds: dict[int, str]


def _read_whole(db: Session, table_id: str) -> _Read | None:
    row = tables_repo.get_table(db, table_id)
    if row is None:
        return None
    return _Read(row, tables_repo.events_after(db, table_id, 0), tables_repo.seeds_of(db, table_id))


def _read_after(db: Session, table_id: str, version: int) -> _Read | None:
    """The events after ``version`` and the seeds, or None when the table has not moved on."""
    stored = tables_repo.table_version(db, table_id)
    if stored is None or stored <= version:
        return None
    return _Read(None, tables_repo.events_after(db, table_id, version), tables_repo.seeds_of(db, table_id))


async def load_log(
    db: DatabaseThreads,
    table_id: str,
    *,
    kind: str,
    initial: Callable[[GameTable], S],
    apply: Callable[[S, NewEvent, datetime], S],
) -> LiveLog[S]:
    """Read a table of ``kind`` and fold its whole log; ``no_such_table`` or ``wrong_kind`` otherwise."""
    read = await db.run(lambda session: _read_whole(session, table_id))
    if read is None or read.row is None:
        raise ActionError("no_such_table", f"there is no table {table_id!r}")
    if read.row.kind != kind:
        raise ActionError("wrong_kind", f"table {table_id!r} is a {read.row.kind} table, not a {kind} table")
    live = LiveLog(state=initial(read.row), seeds=read.seeds, apply=apply)
    for stored in read.events:
        live.fold(stored)
    return live


async def refresh(db: DatabaseThreads, live: LiveLog[S]) -> bool:
    """Fold in events another server process appended since we last looked; True if there were any.

    The caller holds the table's lock, so nothing else folds into ``live`` while the query runs.
    """
    table_id, version = live.state.id, live.state.version
    read = await db.run(lambda session: _read_after(session, table_id, version))
    if read is None:
        return False
    live.seeds = read.seeds
    for stored in read.events:
        live.fold(stored)
    return True


async def catch_up(db: DatabaseThreads, live: LiveLog[S], action_id: str | None) -> bool:
    """Fold in what the database has that we lack; True if anything was new, or the action was done."""
    moved = await refresh(db, live)
    if action_id is None:
        return moved
    if action_id in live.acted:
        return True
    table_id = live.state.id
    done = await db.run(lambda session: tables_repo.action_version(session, table_id, action_id))
    if done is not None:
        live.acted[action_id] = done
        return True
    return moved


async def act_with_retries(
    db: DatabaseThreads,
    live: LiveLog[S],
    identify: Callable[[S], str],
    decide: Callable[[S], list[NewEvent]],
    commit: Callable[[LiveLog[S], list[NewEvent], str], Awaitable[None]],
) -> int:
    """Decide on the cached state and commit; the database is read again only when that fails.

    ``identify`` names who acts in a given state, as the key the action is
    de-duplicated under (``<seat>:<client id>``), or refuses with
    :class:`ActionError` (``not_seated``). It is asked again of every state
    the action is tried on, never remembered: the seat a user held in a stale
    copy may belong to someone else by now. Only a decision made on the
    latest state can commit (the version check refuses the others), so
    whoever acts is always resolved from the state the action lands on.

    A refusal may come from a copy another process has moved on from, and a
    commit may lose a race with another process: both catch up from the
    database and try again. A repeated action is answered with the version
    it was first applied at.
    """
    async with live.lock:
        for attempt in range(3):
            try:
                action_id = identify(live.state)
            except ActionError:
                if attempt == 0 and await catch_up(db, live, None):
                    continue
                raise
            done = live.acted.get(action_id)
            if done is not None:
                return done
            try:
                events = decide(live.state)
            except ActionError:
                if attempt == 0 and await catch_up(db, live, action_id):
                    continue
                raise
            try:
                await commit(live, events, action_id)
            except VersionConflict:
                await catch_up(db, live, action_id)
                continue
            return live.state.version
    raise ActionError("busy", "the table is busy; try again")


def fold_batch(
    start: S,
    events: list[NewEvent],
    now: datetime,
    apply: Callable[[S, NewEvent, datetime], S],
    follow_up: Callable[[S], NewEvent | None],
    action_id: str | None,
    on_event: Callable[[S, NewEvent], None] | None = None,
) -> tuple[S, list[StoredEvent]]:
    """Fold ``events`` and every follow-up the server adds after each; the stored rows of the batch.

    The action id marks the last event of its batch: a repeat is acked with that version.
    """
    state = start
    stored: list[StoredEvent] = []
    pending = list(events)
    while pending:
        event = pending.pop(0)
        state = apply(state, event, now)
        stored.append(StoredEvent(state.version, event.kind, event.seat, event.payload, now, None))
        if on_event is not None:
            on_event(state, event)
        follow = follow_up(state)
        if follow is not None:
            pending.insert(0, follow)
    if action_id is not None and stored:
        stored[-1] = replace(stored[-1], action_id=action_id)
    return state, stored


async def publish(
    pubsub: PubSub, table_id: str, stored: list[StoredEvent], version: int, view: dict[str, Any],
    shown: ShownView | None = None,
) -> ShownView:
    """Send a committed batch (its events and the view after them) to the table's watchers; returns the view
    as shown, for the next batch.

    The view goes as the changes since ``shown`` when ``shown`` is the version just before the batch and the
    view kept its top-level keys (:mod:`~nardy.server.view_changes`), else whole.
    """
    following = shown if shown is not None and shown.version == stored[0].version - 1 else None
    shown, changes = show(view, version, following)
    message: dict[str, Any] = {
        "t": "events",
        "table": table_id,
        "from_version": stored[0].version,
        "version": version,
        "events": [event_message(e) for e in stored],
    }
    if changes is None:
        message["state"] = view
    else:
        message["changes"] = changes
    await pubsub.publish(table_channel(table_id), encode(message), versioned=True)
    return shown


class EventLogService(Generic[S]):
    """What a table service of one kind shares: its live tables, loading, reading and publishing.

    A subclass names its ``kind`` and says how a row starts a state, how an
    event folds into it and how it is shown to clients.

    Tables live in memory only while they are in use: :meth:`evict` drops
    a finished table ``finished_seconds`` after its last use and any other
    one after ``idle_seconds`` without use, unless something holds it (its
    lock, an action or a task in flight: see :meth:`_hold`). Dropping is
    always safe: the state is the fold of the database log, which the next
    access reloads. A move clock keeps no table in memory either: the timer
    holds only the table's id, and its deadline loads the table again.
    """

    kind: str

    def __init__(
        self,
        *,
        db: DatabaseThreads,
        pubsub: PubSub,
        clock: Clock,
        process_id: str,
        idle_seconds: float = IDLE_SECONDS,
        finished_seconds: float = FINISHED_SECONDS,
    ) -> None:
        self._db = db
        self._pubsub = pubsub
        self._clock = clock
        self.process_id = process_id
        """This server process: the owner its commits write on a table (``tables.owner``)."""
        self._live: dict[str, LiveLog[S]] = {}
        self.idle_seconds = idle_seconds
        self.finished_seconds = finished_seconds
        self._sweeper: asyncio.Task[None] | None = None

    def _initial(self, table_id: str, row: GameTable) -> S:
        """The state of the table before its first event."""
        raise NotImplementedError

    def _fold_event(self, state: S, event: NewEvent, at: datetime) -> S:
        """The state after ``event``."""
        raise NotImplementedError

    def _render(self, state: S, now: datetime) -> dict[str, Any]:
        """The view clients get of ``state`` at ``now``."""
        raise NotImplementedError

    def _is_finished(self, state: S) -> bool:
        """True when the table will not change again except by its players' afterthoughts (rematch offers)."""
        raise NotImplementedError

    def _after_commit(self, live: LiveLog[S]) -> None:
        """What the process that changed the table does next: arm its clock, start a computer player's turn."""
        raise NotImplementedError

    async def adopt(self, table_id: str) -> None:
        """Serve a table this process took over from one that stopped answering (or from nobody, after a restart).

        The table is read again and treated as if this process had just made
        its last change: its clock is armed (a deadline already past fires at
        once) and a computer player whose turn it is starts it. Should the
        old owner still be alive after all, both may act once: the version
        check lets one of them commit.
        """
        async with self._hold(table_id) as live, live.lock:
            await refresh(self._db, live)
            self._after_commit(live)

    async def current(self, table_id: str) -> S:
        """The table's state, loaded if needed and refreshed from the database."""
        async with self._hold(table_id) as live, live.lock:
            await refresh(self._db, live)
            return live.state

    async def snapshot(self, table_id: str) -> tuple[int, dict[str, Any]]:
        """The current version and view."""
        state = await self.current(table_id)
        return state.version, self.view_of(state)

    def view_of(self, state: S) -> dict[str, Any]:
        """The client view of ``state`` now."""
        return self._render(state, self._clock.now())

    async def events_since(self, table_id: str, version: int) -> list[dict[str, Any]]:
        """The public events after ``version``, as sent to clients."""
        events = await self._db.run(lambda session: tables_repo.events_after(session, table_id, version))
        return [event_message(e) for e in events]

    # ----- which tables are held in memory

    def is_loaded(self, table_id: str) -> bool:
        """Whether the table is held in memory now."""
        return table_id in self._live

    def evict(self, now: datetime | None = None) -> list[str]:
        """Drop the tables nobody holds that are finished and unused for ``finished_seconds``,
        or unused for ``idle_seconds``; their ids."""
        now = now if now is not None else self._clock.now()
        finished_before = now - timedelta(seconds=self.finished_seconds)
        idle_before = now - timedelta(seconds=self.idle_seconds)
        dropped = []
        for table_id, live in list(self._live.items()):
            if live.busy:
                continue
            used = live.used_at if live.used_at is not None else now
            if used <= idle_before or (used <= finished_before and self._is_finished(live.state)):
                del self._live[table_id]
                dropped.append(table_id)
        if dropped:
            log.debug("%s tables dropped from memory: %d (%d held)", self.kind, len(dropped), len(self._live))
        return dropped

    def _start_sweeping(self) -> None:
        """Run :meth:`evict` periodically (inside the running event loop)."""
        self._sweeper = asyncio.create_task(self._sweep(), name=f"nardy-evict-{self.kind}")

    async def _stop_sweeping(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            try:
                await self._sweeper
            except asyncio.CancelledError:
                pass

    async def _sweep(self) -> None:
        period = max(1.0, min(60.0, self.finished_seconds, self.idle_seconds) / 2)
        while True:
            await asyncio.sleep(period)
            try:
                self.evict()
            except Exception:
                log.exception("dropping idle %s tables failed", self.kind)

    @asynccontextmanager
    async def _hold(self, table_id: str) -> AsyncIterator[LiveLog[S]]:
        """The table, loaded if needed and kept in memory until the block ends."""
        live = await self._load(table_id)
        live.pins += 1
        try:
            yield live
        finally:
            self._release(live)

    def _spawn(self, live: LiveLog[S], work: Coroutine[Any, Any, None], background: set[asyncio.Task[None]]) -> None:
        """Run ``work`` as a task that keeps ``live`` in memory until it ends (a bot's move, a rematch)."""
        live.pins += 1
        task = asyncio.create_task(work)
        background.add(task)
        task.add_done_callback(background.discard)
        task.add_done_callback(lambda _: self._release(live))

    def _release(self, live: LiveLog[S]) -> None:
        live.pins -= 1
        live.used_at = self._clock.now()

    @staticmethod
    def _store_new_table(db: Session, row: GameTable, *, user_id: int, waiting_cap: int | None) -> None:
        """Write the row of a table ``user_id`` opens; with ``waiting_cap``, refuse it (``too_many_tables``) if they
        would then hold more tables waiting for players, and roll back what the transaction did before."""
        if waiting_cap is None:
            tables_repo.add_table(db, row)
        elif not tables_repo.add_waiting_table(db, row, user_id=user_id, cap=waiting_cap):
            raise ActionError(
                "too_many_tables",
                f"you already have {waiting_cap} tables waiting for players: start or leave one before opening another",
            )

    def _new_live(self, state: S) -> LiveLog[S]:
        """Hold a table just created (no events yet)."""
        live = LiveLog(state=state, seeds={}, apply=self._fold_event, used_at=self._clock.now())
        self._live[state.id] = live
        return live

    async def _load(self, table_id: str) -> LiveLog[S]:
        live = self._live.get(table_id)
        if live is not None:
            live.used_at = self._clock.now()
            return live
        loaded = await load_log(
            self._db, table_id, kind=self.kind,
            initial=lambda row: self._initial(table_id, row), apply=self._fold_event,
        )
        loaded.used_at = self._clock.now()
        return self._live.setdefault(table_id, loaded)

    async def _publish(self, live: LiveLog[S], stored: list[StoredEvent]) -> None:
        """Send the batch just committed to ``live``'s watchers, its view as changes where they can follow them."""
        state = live.state
        live.shown = await publish(self._pubsub, state.id, stored, state.version, self.view_of(state), live.shown)
