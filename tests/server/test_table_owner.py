"""A live table's owner runs everything sent to it one piece at a time, in arrival order.

Actions, deadlines and the other messages a table gets (a forfeit, a
rematch, a takeover) wait for the one running; eviction never drops a
table with work running or waiting; an error fails only its own message.
The owner is driven here with a kind and a publisher of the test's own,
so that each piece of work can be made to wait for as long as the test
needs, without a database or a socket.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from nardy.server.services.mailbox import Mailbox
from nardy.server.services.publisher import Batch
from nardy.server.services.table_owner import Commit, LiveTables, TableOwner
from nardy.server.services.table_state import ActionError, NewEvent, Roller

START = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Log:
    """A state that is just the list of what happened to it."""

    id: str
    version: int = 0
    deadline: datetime | None = None
    done: tuple[str, ...] = ()


class FrozenClock:
    def __init__(self) -> None:
        self.at = START

    def now(self) -> datetime:
        return self.at


class GatedKind:
    """A kind whose database write waits for the test to open a gate, and that checks writes never overlap."""

    name = "log"
    actions = frozenset({"note", "fail"})

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.gate.set()
        self.writing = False
        self.stored: list[str] = []

    def initial(self, table_id: str, row: Any) -> Log:
        return Log(table_id)

    def fold(self, state: Log, event: NewEvent, at: datetime) -> Log:
        return replace(state, version=state.version + 1, done=(*state.done, event.kind))

    def actor_key(self, state: Log, user_id: int) -> str:
        return f"u{user_id}"

    def decide(self, state: Log, user_id: int, action: dict[str, Any], roller: Roller) -> list[NewEvent]:
        if action["t"] == "fail":
            raise ActionError("illegal", "refused on purpose")
        return [NewEvent(f"note-{user_id}", None)]

    def timed_out(self, state: Log, roller: Roller, now: datetime) -> list[NewEvent]:
        return [NewEvent("timed_out", None)]

    def roll(self, state: Log, seeds: dict[int, str], number: int) -> tuple[int, int]:
        return (1, 2)

    def follow_up(self, state: Log, seeds: dict[int, str], new_seeds: list[Any]) -> NewEvent | None:
        return None

    async def store(self, commit: Commit[Log]) -> None:
        assert not self.writing, "two writes of one table overlapped"
        self.writing = True
        try:
            await self.gate.wait()
            self.stored.extend(e.kind for e in commit.events)
        finally:
            self.writing = False

    def render(self, state: Log, now: datetime) -> dict[str, Any]:
        return {"done": list(state.done)}

    def finished(self, state: Log) -> bool:
        return False


class Published:
    """A publisher that keeps the batches."""

    def __init__(self) -> None:
        self.batches: list[Batch] = []

    async def batch(self, batch: Batch, last: object | None) -> object:
        self.batches.append(batch)
        return batch.version

    async def team_said(self, said: Any, team: Any) -> None:
        raise AssertionError("no team here")

    async def chat_said(self, table_id: str, line: Any, readers: Any) -> None:
        raise AssertionError("no chat here")


class NoDatabase:
    """The database of a table that never moves on elsewhere: every refresh finds nothing new."""

    async def run(self, work: Any) -> None:
        return None


def live_tables(kind: GatedKind) -> tuple[LiveTables[Log], Published, FrozenClock]:
    published, clock = Published(), FrozenClock()
    live: LiveTables[Log] = LiveTables(
        kind=kind, db=NoDatabase(), publisher=published, clock=clock, process_id="p1",  # type: ignore[arg-type]
    )
    return live, published, clock


async def settle() -> None:
    """Let every ready task run until all wait on something the test controls."""
    for _ in range(20):
        await asyncio.sleep(0)


def test_actions_a_deadline_and_a_forfeit_sent_at_once_run_one_at_a_time_in_arrival_order() -> None:
    async def scenario() -> None:
        kind = GatedKind()
        live, published, clock = live_tables(kind)
        live.open(Log("t1", deadline=START))
        kind.gate.clear()

        async def forfeit(owner: TableOwner[Log]) -> str:
            await owner.commit([NewEvent("forfeited", None)], None)
            return "forfeited"

        sent = [
            asyncio.create_task(live.act("t1", user_id=1, action={"t": "note"}, action_id="a")),
            asyncio.create_task(live.on_deadline("t1", START)),
            asyncio.create_task(live.send("t1", forfeit)),
            asyncio.create_task(live.act("t1", user_id=2, action={"t": "note"}, action_id="b")),
        ]
        await settle()
        assert kind.stored == [] and not any(task.done() for task in sent), "the first write holds everything"
        kind.gate.set()
        results = await asyncio.gather(*sent)
        assert kind.stored == ["note-1", "timed_out", "forfeited", "note-2"]
        assert results == [1, None, "forfeited", 4]
        assert [(b.from_version, b.version) for b in published.batches] == [(1, 1), (2, 2), (3, 3), (4, 4)]

    asyncio.run(scenario())


def test_a_repeated_action_id_is_answered_with_its_first_version_and_changes_nothing() -> None:
    async def scenario() -> None:
        kind = GatedKind()
        live, published, _ = live_tables(kind)
        live.open(Log("t1"))
        first = await live.act("t1", user_id=1, action={"t": "note"}, action_id="same")
        await live.act("t1", user_id=2, action={"t": "note"}, action_id="other")
        assert await live.act("t1", user_id=1, action={"t": "note"}, action_id="same") == first
        assert kind.stored == ["note-1", "note-2"]

    asyncio.run(scenario())


def test_eviction_never_drops_a_table_with_work_running_or_waiting() -> None:
    async def scenario() -> None:
        kind = GatedKind()
        live, _, clock = live_tables(kind)
        live.open(Log("t1"))
        live.idle_seconds = 0
        clock.at = START + timedelta(days=1)  # long idle: only its work may keep it
        second_gate = asyncio.Event()

        async def slow_read(owner: TableOwner[Log]) -> int:
            await second_gate.wait()
            return owner.state.version

        kind.gate.clear()
        running = asyncio.create_task(live.act("t1", user_id=1, action={"t": "note"}, action_id="a"))
        await settle()
        waiting = asyncio.create_task(live.send("t1", slow_read))
        await settle()
        assert live.evict() == [], "one message runs, another waits"
        kind.gate.set()
        assert await running == 1
        assert live.evict() == [], "the second message runs now"
        second_gate.set()
        assert await waiting == 1
        await settle()
        assert live.evict(clock.at + timedelta(seconds=1)) == ["t1"]
        assert not live.is_loaded("t1")

    asyncio.run(scenario())


def test_a_table_held_by_a_task_is_not_evicted_until_the_task_ends() -> None:
    async def scenario() -> None:
        kind = GatedKind()
        live, _, clock = live_tables(kind)
        owner = live.open(Log("t1"))
        thinking = asyncio.Event()

        async def bot_turn() -> None:
            await thinking.wait()

        live.hold(owner, bot_turn())
        live.idle_seconds = 0
        clock.at = START + timedelta(days=1)
        assert live.evict() == []
        thinking.set()
        await settle()
        assert live.evict(clock.at + timedelta(seconds=1)) == ["t1"]

    asyncio.run(scenario())


def test_an_error_in_one_message_does_not_stop_the_owner() -> None:
    async def scenario() -> None:
        kind = GatedKind()
        live, _, _ = live_tables(kind)
        live.open(Log("t1"))
        with pytest.raises(ActionError):  # run at once, in the caller's task
            await live.act("t1", user_id=1, action={"t": "fail"}, action_id="x")

        async def broken(owner: TableOwner[Log]) -> None:
            raise RuntimeError("a bug in one message")

        kind.gate.clear()
        first = asyncio.create_task(live.act("t1", user_id=1, action={"t": "note"}, action_id="a"))
        refused = asyncio.create_task(live.act("t1", user_id=1, action={"t": "fail"}, action_id="y"))
        crashed = asyncio.create_task(live.send("t1", broken))
        last = asyncio.create_task(live.act("t1", user_id=2, action={"t": "note"}, action_id="b"))
        await settle()
        kind.gate.set()
        assert await first == 1
        with pytest.raises(ActionError):
            await refused
        with pytest.raises(RuntimeError):
            await crashed
        assert await last == 2
        assert kind.stored == ["note-1", "note-2"]

    asyncio.run(scenario())


def test_an_action_outside_the_kind_is_refused_before_the_table_is_touched() -> None:
    async def scenario() -> None:
        live, _, _ = live_tables(GatedKind())
        with pytest.raises(ActionError) as refused:
            await live.act("t1", user_id=1, action={"t": "vote"}, action_id="v")
        assert refused.value.code == "unknown_action"
        assert not live.is_loaded("t1")

    asyncio.run(scenario())


def test_an_idle_mailbox_runs_the_work_in_the_callers_task() -> None:
    async def scenario() -> None:
        mailbox = Mailbox()
        caller = asyncio.current_task()

        async def work() -> bool:
            return asyncio.current_task() is caller

        assert await mailbox.post(work)
        assert not mailbox.busy

    asyncio.run(scenario())


def test_a_caller_that_stops_waiting_is_skipped_and_the_rest_still_run() -> None:
    async def scenario() -> None:
        mailbox = Mailbox()
        gate = asyncio.Event()
        ran: list[str] = []

        def work(name: str) -> Any:
            async def run() -> str:
                if name == "first":
                    await gate.wait()
                ran.append(name)
                return name
            return run

        first = asyncio.create_task(mailbox.post(work("first")))
        await settle()
        gone = asyncio.create_task(mailbox.post(work("gone")))
        last = asyncio.create_task(mailbox.post(work("last")))
        await settle()
        gone.cancel()
        gate.set()
        assert await first == "first" and await last == "last"
        assert ran == ["first", "last"]
        assert not mailbox.busy

    asyncio.run(scenario())
