"""One owner per live table: the table held in memory, and the mailbox through which everything reaches it.

A match and a chouette are both a row of ``tables`` and an append-only log
in ``table_events``, with their dice seeds in ``game_seeds``. In memory a
table is a :class:`TableOwner`: the fold of its log, its seeds, the action
ids it applied, and a :class:`~nardy.server.services.mailbox.Mailbox`. Every
piece of work on the table is a message to its owner, run one at a time in
the order sent: a player's action, the move clock running out, the forfeit
of an abandoned game, the rematch being recorded, the takeover from a
process that stopped answering, a read of its current state. A message
asks for the table refreshed from the database first (another process may
have moved it on), or not, as an action does: it is decided on the state in
memory and refreshed only when that fails. Eviction drops only an owner
whose mailbox is empty and that nobody holds.

What differs between a match and a chouette is a :class:`TableKind`, a
small object the owner is composed with: the state before the first event,
the fold of one event, the decision on an action, the server's follow-ups,
the database write of a batch, the view, whether the table is finished.

Every read and write of the database runs in the services' worker threads
(:class:`~nardy.server.services.database.DatabaseThreads`), awaited inside
the message: the event loop folds and decides, and serves every other table
while a query runs.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy.orm import Session

from nardy.server.runtime.log_context import about_table
from nardy.server.runtime.metrics import SILENT, Metrics
from nardy.server.services.clock import Clock
from nardy.server.services.database import DatabaseThreads
from nardy.server.services.mailbox import Mailbox
from nardy.server.services.publisher import Batch, Publisher
from nardy.server.services.table_state import ActionError, NewEvent, Roller
from nardy.server.services.timers import DeadlineTimers
from nardy.store import tables_repo
from nardy.store.models import GameSeed, GameTable
from nardy.store.tables_repo import StoredEvent, VersionConflict

log = logging.getLogger(__name__)

IDLE_SECONDS = 30 * 60
"""A table nobody has touched for this long leaves memory (its log reloads it on the next access)."""

FINISHED_SECONDS = 60
"""A finished table leaves memory this long after its last use: the end of a match and the
rematch that follows are served from memory, and nothing keeps it there afterwards."""


class Logged(Protocol):
    """A state folded from a table's log: it knows its table, its version and its move clock's deadline."""

    @property
    def id(self) -> str: ...

    @property
    def version(self) -> int: ...

    @property
    def deadline(self) -> datetime | None: ...


S = TypeVar("S", bound=Logged)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Commit(Generic[S]):
    """One batch to store in one transaction: the state before and after it, its events and the seeds it dealt."""

    start: S
    state: S
    events: list[StoredEvent]
    seeds: list[GameSeed]
    at: datetime
    owner: str
    """The process committing (``tables.owner``)."""


class TableKind(Protocol[S]):
    """What a kind of table (a match, a chouette) says; the owner does the rest."""

    name: str
    """Its ``tables.kind``."""
    actions: frozenset[str]
    """The protocol actions it takes (``t``); any other is refused ``unknown_action``."""

    def initial(self, table_id: str, row: GameTable) -> S:
        """The state before the first event."""
        ...

    def fold(self, state: S, event: NewEvent, at: datetime) -> S:
        """The state after ``event``."""
        ...

    def actor_key(self, state: S, user_id: int) -> str:
        """Who ``user_id`` acts as in ``state``, as its action ids are de-duplicated under; ``not_seated`` else."""
        ...

    def decide(self, state: S, user_id: int, action: dict[str, Any], roller: Roller) -> list[NewEvent]:
        """The events ``user_id``'s ``action`` adds, or :class:`ActionError`."""
        ...

    def timed_out(self, state: S, roller: Roller, now: datetime) -> list[NewEvent]:
        """The events the server adds when the move clock runs out in ``state``; none when nobody is timed."""
        ...

    def roll(self, state: S, seeds: dict[int, str], number: int) -> tuple[int, int]:
        """Roll ``number`` of the game or formation in play, from its seed."""
        ...

    def follow_up(self, state: S, seeds: dict[int, str], new_seeds: list[GameSeed]) -> NewEvent | None:
        """The next event the server adds by itself after ``state``, if any (dealing seeds into both)."""
        ...

    async def store(self, commit: Commit[S]) -> None:
        """Write the batch in one transaction; :class:`VersionConflict` when another process wrote first."""
        ...

    def render(self, state: S, now: datetime) -> dict[str, Any]:
        """The view clients get of ``state`` at ``now``."""
        ...

    def finished(self, state: S) -> bool:
        """True when the table will not change again except by its players' afterthoughts (rematch offers)."""
        ...


def fold_batch(
    kind: TableKind[S], start: S, events: list[NewEvent], now: datetime, seeds: dict[int, str],
    new_seeds: list[GameSeed], action_id: str | None,
) -> tuple[S, list[StoredEvent]]:
    """Fold ``events`` and every follow-up the server adds after each; the stored rows of the batch.

    The action id marks the last event of its batch: a repeat is acked with that version.
    """
    state = start
    stored: list[StoredEvent] = []
    pending = list(events)
    while pending:
        event = pending.pop(0)
        state = kind.fold(state, event, now)
        stored.append(StoredEvent(state.version, event.kind, event.seat, event.payload, now, None))
        follow = kind.follow_up(state, seeds, new_seeds)
        if follow is not None:
            pending.insert(0, follow)
    if action_id is not None and stored:
        stored[-1] = replace(stored[-1], action_id=action_id)
    return state, stored


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


Message = Callable[["TableOwner[S]"], Awaitable[T]]
"""A piece of work for a table's owner: it runs with the owner to itself."""


class TableOwner(Generic[S]):
    """One live table: its folded state, its secret seeds, its applied action ids, and its mailbox.

    Only the work of a message changes it (see :meth:`ask`); the methods
    below are for that work, never for a caller outside it. Outside a
    message, its state may be read as of a moment (a computer player
    thinks about it), never written.
    """

    __slots__ = ("acted", "holds", "last_published", "loaded", "seeds", "state", "table_id", "used_at",
                 "_mailbox", "_tables")

    def __init__(self, tables: LiveTables[S], table_id: str, now: datetime) -> None:
        self._tables = tables
        self.table_id = table_id
        self.state: S
        self.loaded = False
        self.seeds: dict[int, str] = {}
        self.acted: dict[str, int] = {}
        """Applied action ids (``who:client id``) and the version each was acknowledged with."""
        self.used_at = now
        """When the table was last used (the service's clock)."""
        self.holds = 0
        """Tasks that will send the table a message later (a bot thinking, a rematch being opened): it stays."""
        self.last_published: object | None = None
        """What the publisher returned for the last batch this process published, for the next."""
        self._mailbox = Mailbox()

    @property
    def busy(self) -> bool:
        """A message runs or waits, or a task holds the table: it must not be dropped from memory."""
        return self.holds > 0 or self._mailbox.busy

    async def ask(self, work: Message[S, T], *, fresh: bool = True) -> T:
        """Run ``work`` once the messages sent before it have run: on the table loaded, and with ``fresh``
        refreshed from the database first; what it returns or raises."""

        async def message() -> T:
            if not self.loaded:
                await self._load()
            elif fresh:
                await self.refresh()
            return await work(self)

        try:
            return await self._mailbox.post(message)
        finally:
            self.used_at = self._tables.clock.now()

    # ----- for the work of a message

    def fold(self, stored: StoredEvent) -> None:
        """Apply one stored event to the state."""
        self.state = self._tables.kind.fold(self.state, NewEvent(stored.kind, stored.seat, stored.payload), stored.at)
        if stored.action_id is not None:
            self.acted[stored.action_id] = stored.version

    def roller(self) -> Roller:
        """The dice of the game in play in the current state."""
        state, kind = self.state, self._tables.kind
        return lambda number: kind.roll(state, self.seeds, number)

    async def refresh(self) -> bool:
        """Fold in events another server process appended since we last looked; True if there were any."""
        table_id, version = self.table_id, self.state.version
        read = await self._tables.db.run(lambda session: _read_after(session, table_id, version))
        if read is None:
            return False
        self.seeds = read.seeds
        for stored in read.events:
            self.fold(stored)
        return True

    async def catch_up(self, action_id: str | None) -> bool:
        """Fold in what the database has that we lack; True if anything was new, or the action was done."""
        moved = await self.refresh()
        if action_id is None:
            return moved
        if action_id in self.acted:
            return True
        table_id = self.table_id
        done = await self._tables.db.run(lambda session: tables_repo.action_version(session, table_id, action_id))
        if done is not None:
            self.acted[action_id] = done
            return True
        return moved

    async def act(self, identify: Callable[[S], str], decide: Callable[[S], list[NewEvent]]) -> int:
        """Decide on the state in memory and commit; the database is read again only when that fails.

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
        for attempt in range(3):
            try:
                action_id = identify(self.state)
            except ActionError:
                if attempt == 0 and await self.catch_up(None):
                    continue
                raise
            done = self.acted.get(action_id)
            if done is not None:
                return done
            try:
                events = decide(self.state)
            except ActionError:
                if attempt == 0 and await self.catch_up(action_id):
                    continue
                raise
            try:
                await self.commit(events, action_id)
            except VersionConflict:
                await self.catch_up(action_id)
                continue
            return self.state.version
        raise ActionError("busy", "the table is busy; try again")

    async def commit(self, events: list[NewEvent], action_id: str | None) -> None:
        """Fold ``events`` with the server's follow-ups, store them in one transaction, then publish the batch and
        serve what it begins (the move clock, a computer's turn)."""
        tables = self._tables
        kind = tables.kind
        now = tables.clock.now()
        start = self.state
        seeds = dict(self.seeds)
        new_seeds: list[GameSeed] = []
        state, stored = fold_batch(kind, start, events, now, seeds, new_seeds, action_id)
        await kind.store(Commit(start, state, stored, new_seeds, now, tables.process_id))
        self.state = state
        self.seeds = seeds
        if action_id is not None:
            self.acted[action_id] = state.version
        batch = Batch(state.id, stored, stored[0].version, state.version, kind.render(state, tables.clock.now()))
        self.last_published = await tables.publisher.batch(batch, self.last_published)
        tables.serve(self)

    async def _load(self) -> None:
        """Read the table and fold its whole log; ``no_such_table`` or ``wrong_kind`` (and forgotten) otherwise."""
        tables, table_id = self._tables, self.table_id
        read = await tables.db.run(lambda session: _read_whole(session, table_id))
        try:
            if read is None or read.row is None:
                raise ActionError("no_such_table", f"there is no table {table_id!r}")
            if read.row.kind != tables.kind.name:
                raise ActionError(
                    "wrong_kind", f"table {table_id!r} is a {read.row.kind} table, not a {tables.kind.name} table",
                )
        except ActionError:
            if not self._mailbox.waiting:
                tables.forget(self)
            raise
        self.state = tables.kind.initial(table_id, read.row)
        self.seeds = read.seeds
        for stored in read.events:
            self.fold(stored)
        self.loaded = True


class LiveTables(Generic[S]):
    """The live tables of one kind in this process: one owner each, their move clocks, and their eviction.

    Tables live in memory only while they are in use: :meth:`evict` drops
    a finished table ``finished_seconds`` after its last use and any other
    one after ``idle_seconds`` without use, unless its owner is busy (a
    message runs or waits, or a task holds it: :meth:`hold`). Dropping is
    always safe: the state is the fold of the database log, which the next
    message reloads. A move clock keeps no table in memory either: the timer
    holds only the table's id, and its deadline is a message that loads it.
    """

    def __init__(
        self,
        *,
        kind: TableKind[S],
        db: DatabaseThreads,
        publisher: Publisher,
        clock: Clock,
        process_id: str,
        begun: Callable[[TableOwner[S]], None] = lambda owner: None,
        idle_seconds: float = IDLE_SECONDS,
        finished_seconds: float = FINISHED_SECONDS,
        metrics: Metrics = SILENT,
    ) -> None:
        self.kind = kind
        self.db = db
        self.publisher = publisher
        self.clock = clock
        self.process_id = process_id
        """This server process: the owner its commits write on a table (``tables.owner``)."""
        self._begun = begun
        self.idle_seconds = idle_seconds
        self.finished_seconds = finished_seconds
        self.timers = DeadlineTimers(clock, self.on_deadline)
        self._owners: dict[str, TableOwner[S]] = {}
        self._background: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.Task[None] | None = None
        self._metrics = metrics

    # ----- lifecycle

    def start(self) -> None:
        """Start the move clocks and the periodic eviction (inside the running event loop)."""
        self.timers.start()
        self._sweeper = asyncio.create_task(self._sweep(), name=f"nardy-evict-{self.kind.name}")

    async def stop(self) -> None:
        """Stop the clocks, the eviction and the tasks holding tables."""
        await self.timers.stop()
        if self._sweeper is not None:
            self._sweeper.cancel()
            try:
                await self._sweeper
            except asyncio.CancelledError:
                pass
        for task in list(self._background):
            task.cancel()

    # ----- messages

    async def send(self, table_id: str, work: Message[S, T], *, fresh: bool = True) -> T:
        """Send ``work`` to the owner of ``table_id`` (made, and the table loaded, if needed); its answer.

        What is logged meanwhile names the table (:mod:`nardy.server.runtime.log_context`).
        """
        owner = self._owners.get(table_id)
        if owner is None:
            owner = self._owners[table_id] = TableOwner(self, table_id, self.clock.now())
            self._held_changed()
        with about_table(table_id):
            return await owner.ask(work, fresh=fresh)

    def open(self, state: S) -> TableOwner[S]:
        """The owner of a table just created (no events yet)."""
        owner = TableOwner(self, state.id, self.clock.now())
        owner.state = state
        owner.loaded = True
        self._owners[state.id] = owner
        self._held_changed()
        return owner

    async def act(self, table_id: str, *, user_id: int, action: dict[str, Any], action_id: str) -> int:
        """Apply a player's action; the table's version after it. Raises ActionError."""
        kind = self.kind
        if action["t"] not in kind.actions:
            raise ActionError("unknown_action", f"{action['t']!r} is not an action of a {kind.name} table")

        async def apply(owner: TableOwner[S]) -> int:
            return await owner.act(
                lambda state: f"{kind.actor_key(state, user_id)}:{action_id}",
                lambda state: kind.decide(state, user_id, action, owner.roller()),
            )

        return await self.send(table_id, apply, fresh=False)

    async def current(self, table_id: str) -> S:
        """The table's state, refreshed from the database."""

        async def read(owner: TableOwner[S]) -> S:
            return owner.state

        return await self.send(table_id, read)

    async def adopt(self, table_id: str) -> None:
        """Serve a table this process took over from one that stopped answering (or from nobody, after a restart).

        The table is read again and treated as if this process had just made
        its last change: its clock is armed (a deadline already past fires at
        once) and a computer player whose turn it is starts it. Should the
        old owner still be alive after all, both may act once: the version
        check lets one of them commit.
        """

        async def serve(owner: TableOwner[S]) -> None:
            self.serve(owner)

        await self.send(table_id, serve)

    async def on_deadline(self, table_id: str, deadline: datetime) -> None:
        """The move clock ran out: the server decides for whoever was timed, if the deadline still stands."""

        async def time_out(owner: TableOwner[S]) -> None:
            state = owner.state
            now = self.clock.now()
            if state.deadline != deadline or now < deadline:
                return
            events = self.kind.timed_out(state, owner.roller(), now)
            if not events:
                return
            try:
                await owner.commit(events, None)
            except VersionConflict:
                log.info("%s table %s moved on before its timeout was recorded", self.kind.name, table_id)

        await self.send(table_id, time_out)

    def serve(self, owner: TableOwner[S]) -> None:
        """What this process does after a change it made or a table it took over: arm the clock, and whatever the
        change begins (a computer player's turn, a rematch)."""
        self.timers.arm(owner.table_id, owner.state.deadline)
        self._begun(owner)

    def hold(self, owner: TableOwner[S], work: Coroutine[Any, Any, None]) -> None:
        """Run ``work`` as a task that keeps ``owner`` in memory until it ends (a bot's move, a rematch)."""
        owner.holds += 1
        task = asyncio.create_task(work)
        self._background.add(task)
        task.add_done_callback(self._background.discard)
        task.add_done_callback(lambda _: self._release(owner))

    def _release(self, owner: TableOwner[S]) -> None:
        owner.holds -= 1
        owner.used_at = self.clock.now()

    async def snapshot(self, table_id: str) -> tuple[int, dict[str, Any]]:
        """The table's current version and view."""
        state = await self.current(table_id)
        return state.version, self.view_of(state)

    async def events_since(self, table_id: str, version: int) -> list[StoredEvent]:
        """The table's stored events after ``version``."""
        return await self.db.run(lambda session: tables_repo.events_after(session, table_id, version))

    # ----- what is in memory

    def view_of(self, state: S) -> dict[str, Any]:
        """The client view of ``state`` now."""
        return self.kind.render(state, self.clock.now())

    def is_loaded(self, table_id: str) -> bool:
        """Whether the table is held in memory now."""
        owner = self._owners.get(table_id)
        return owner is not None and owner.loaded

    def forget(self, owner: TableOwner[S]) -> None:
        """Drop ``owner`` from memory, if it is still the table's owner (a table that could not be loaded)."""
        if self._owners.get(owner.table_id) is owner:
            del self._owners[owner.table_id]
            self._held_changed()

    def evict(self, now: datetime | None = None) -> list[str]:
        """Drop the tables whose owner is idle that are finished and unused for ``finished_seconds``, or unused
        for ``idle_seconds``; their ids."""
        now = now if now is not None else self.clock.now()
        finished_before = now - timedelta(seconds=self.finished_seconds)
        idle_before = now - timedelta(seconds=self.idle_seconds)
        dropped = []
        for table_id, owner in list(self._owners.items()):
            if owner.busy:
                continue
            used = owner.used_at
            if not owner.loaded or used <= idle_before or (
                used <= finished_before and self.kind.finished(owner.state)
            ):
                del self._owners[table_id]
                dropped.append(table_id)
        if dropped:
            log.debug("%s tables dropped from memory: %d (%d held)", self.kind.name, len(dropped), len(self._owners))
            self._held_changed()
        return dropped

    def _held_changed(self) -> None:
        self._metrics.live_tables(self.kind.name, len(self._owners))

    async def _sweep(self) -> None:
        period = max(1.0, min(60.0, self.finished_seconds, self.idle_seconds) / 2)
        while True:
            await asyncio.sleep(period)
            try:
                self.evict()
            except Exception:
                log.exception("dropping idle %s tables failed", self.kind.name)

    @staticmethod
    def store_new_table(db: Session, row: GameTable, *, user_id: int, waiting_cap: int | None) -> None:
        """Write the row of a table ``user_id`` opens; with ``waiting_cap``, refuse it (``too_many_tables``) if they
        would then hold more tables waiting for players, and roll back what the transaction did before."""
        if waiting_cap is None:
            tables_repo.add_table(db, row)
        elif not tables_repo.add_waiting_table(db, row, user_id=user_id, cap=waiting_cap):
            raise ActionError(
                "too_many_tables",
                f"you already have {waiting_cap} tables waiting for players: start or leave one before opening another",
            )


class LiveTableReads(Generic[S]):
    """What a table service answers about its live tables by asking them (:class:`LiveTables`): one definition
    for matches and chouettes, whose services differ in what they create and decide, not in how they read."""

    live: LiveTables[S]

    async def current(self, table_id: str) -> S:
        """The table's state, loaded if needed and refreshed from the database."""
        return await self.live.current(table_id)

    async def snapshot(self, table_id: str) -> tuple[int, dict[str, Any]]:
        """The current version and view."""
        return await self.live.snapshot(table_id)

    def view_of(self, state: S) -> dict[str, Any]:
        """The client view of ``state`` now."""
        return self.live.view_of(state)

    async def events_since(self, table_id: str, version: int) -> list[StoredEvent]:
        """The events after ``version``."""
        return await self.live.events_since(table_id, version)

    async def adopt(self, table_id: str) -> None:
        """Serve a table taken over from a process that stopped answering (:meth:`LiveTables.adopt`)."""
        await self.live.adopt(table_id)

    def is_loaded(self, table_id: str) -> bool:
        """Whether the table is held in memory now."""
        return self.live.is_loaded(table_id)

    def evict(self, now: datetime | None = None) -> list[str]:
        """Drop the finished or idle tables nobody uses (:meth:`LiveTables.evict`); their ids."""
        return self.live.evict(now)
