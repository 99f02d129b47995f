"""The server's garbage-collection policy: start-up's objects are frozen for good, automatic collections
keep to the young generations, and the old generation is collected when few connections are open or
once every ``full_seconds``."""

from __future__ import annotations

import asyncio
import gc
import weakref

from nardy.server.runtime.collector import (
    GARBAGE_WORTH_A_PAUSE,
    QUIET_CONNECTIONS,
    TROUGH_SLACK,
    YOUNG_SECONDS,
    YOUNG_THRESHOLD,
    Collector,
    collect_old_generation,
)
from nardy.server.runtime.garbage_probe import Probe


class Node:
    """A container that can sit in a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def _probe_finding(unreachable: int) -> Probe:
    return Probe(unreachable=unreachable, commonest=(), stall_seconds=0.001, seconds=0.1, faults=0, copied_bytes=0)


def _in_generation(obj: object, *generations: int) -> bool:
    return any(obj is o for generation in generations for o in gc.get_objects(generation))


def test_start_up_objects_are_frozen_and_survivors_go_to_the_old_generation() -> None:
    async def scenario() -> None:
        before = Node()
        collector = Collector(young_only=True, full_seconds=0, open_connections=lambda: 0)
        collector.start()
        try:
            assert gc.get_freeze_count() > 0
            assert not _in_generation(before, 0, 1, 2)
            survivor = Node()
            gc.collect(1)
            assert _in_generation(survivor, 2)
        finally:
            await collector.stop()
        assert gc.get_freeze_count() == 0  # stopped: everything is in sight again

    asyncio.run(scenario())


def test_no_automatic_collection_walks_the_old_generation() -> None:
    """However many young collections run, cyclic garbage in the old generation stays until it is collected."""
    async def scenario() -> None:
        collector = Collector(young_only=True, full_seconds=0, open_connections=lambda: 0)
        collector.start()
        try:
            assert gc.get_threshold()[2] >= 2**31 - 1
            first, second = Node(), Node()
            first.other, second.other = second, first
            gc.collect(1)  # the cycle is alive now, so it goes to the old generation
            watch = weakref.ref(first)
            del first, second
            for _ in range(200):
                [Node() for _ in range(1000)]  # allocations enough for many automatic young collections
            assert watch() is not None
            assert collect_old_generation() >= 2
            assert watch() is None
        finally:
            await collector.stop()

    thresholds = gc.get_threshold()
    asyncio.run(scenario())
    assert gc.get_threshold() == thresholds  # stopped: CPython's collections are as they were


def test_the_old_generation_is_due_when_few_sockets_are_open() -> None:
    collector = Collector(young_only=True, full_seconds=3600, open_connections=lambda: 0)
    assert collector.old_generation_due(since_last=60, open_now=QUIET_CONNECTIONS, fewest=QUIET_CONNECTIONS)
    assert not collector.old_generation_due(since_last=3599, open_now=QUIET_CONNECTIONS + 1, fewest=1)
    never = Collector(young_only=True, full_seconds=0, open_connections=lambda: 0)
    assert not never.old_generation_due(since_last=10**9, open_now=QUIET_CONNECTIONS + 1, fewest=1)
    assert never.old_generation_due(since_last=10**9, open_now=QUIET_CONNECTIONS, fewest=1)


def test_after_full_seconds_the_old_generation_waits_for_the_quietest_hour_at_most_as_long_again() -> None:
    collector = Collector(young_only=True, full_seconds=3600, open_connections=lambda: 0)
    trough = 400
    assert collector.old_generation_due(since_last=3600, open_now=trough, fewest=trough)  # flat load: at once
    assert not collector.old_generation_due(since_last=3600, open_now=2000, fewest=trough)
    assert collector.old_generation_due(since_last=5000, open_now=int(trough * TROUGH_SLACK), fewest=trough)
    assert not collector.old_generation_due(since_last=7199, open_now=2000, fewest=trough)
    assert collector.old_generation_due(since_last=7200, open_now=2000, fewest=trough)


def test_off_only_start_up_objects_are_frozen() -> None:
    async def scenario() -> None:
        thresholds = gc.get_threshold()
        collector = Collector(young_only=False, full_seconds=0, open_connections=lambda: 0)
        collector.start()
        try:
            assert gc.get_threshold() == thresholds
            frozen = gc.get_freeze_count()
            survivor = Node()
            gc.collect(1)
            assert gc.get_freeze_count() == frozen
            assert _in_generation(survivor, 2)
        finally:
            await collector.stop()

    asyncio.run(scenario())


def test_the_young_generations_are_collected_by_the_clock_not_only_by_allocations() -> None:
    """A survivor reaches the old generation within about YOUNG_SECONDS, though nothing else is allocated."""
    async def scenario() -> None:
        collector = Collector(young_only=True, full_seconds=0, open_connections=lambda: 0)
        collector.start()
        try:
            survivor = Node()
            assert _in_generation(survivor, 0, 1)
            deadline = asyncio.get_running_loop().time() + YOUNG_SECONDS * 3
            while not _in_generation(survivor, 2) and asyncio.get_running_loop().time() < deadline:
                await asyncio.sleep(YOUNG_SECONDS / 10)
            assert _in_generation(survivor, 2)
        finally:
            await collector.stop()

    asyncio.run(scenario())


def test_a_quiet_process_collects_its_old_generation_by_itself(monkeypatch) -> None:
    monkeypatch.setattr("nardy.server.runtime.collector.OLD_CHECK_SECONDS", 0.05)

    async def scenario() -> None:
        collector = Collector(young_only=True, full_seconds=0, open_connections=lambda: 0)
        collector.start()
        try:
            first, second = Node(), Node()
            first.other, second.other = second, first
            gc.collect(1)
            watch = weakref.ref(first)
            del first, second
            for _ in range(40):
                await asyncio.sleep(0.05)
                if watch() is None:
                    break
            assert watch() is None
        finally:
            await collector.stop()

    asyncio.run(scenario())


def _hourly_checks(monkeypatch, sockets: list[int], found: Probe | None, full_seconds: float = 24 * 3600,
                   ) -> tuple[list[int], list[int]]:
    """A check an hour (hours counted from the start), ``sockets[i]`` open at hour i + 1, each probe finding
    ``found``: the hours of the probes and of the collections. The run stops at hour ``len(sockets)``; a look
    due there would race the stop, so the counts end before one."""
    monkeypatch.setattr("nardy.server.runtime.collector.OLD_CHECK_SECONDS", 0)
    counts = iter(sockets + [sockets[-1]] * 50)  # the checks run between the run's end and the collector's stop
    hour = [0]
    probed_at: list[int] = []
    collected_at: list[int] = []

    def open_connections() -> int:
        hour[0] += 1
        return next(counts)

    def probe() -> Probe | None:
        probed_at.append(hour[0])
        return found

    monkeypatch.setattr("nardy.server.runtime.collector.collect_old_generation", lambda: collected_at.append(hour[0]) or 0)

    async def scenario() -> None:
        collector = Collector(
            young_only=True, full_seconds=full_seconds, open_connections=open_connections,
            monotonic=lambda: hour[0] * 3600.0, probe=probe,
        )
        collector.start()
        try:
            while hour[0] < len(sockets):
                await asyncio.sleep(0)
        finally:
            await collector.stop()

    asyncio.run(scenario())
    return probed_at, collected_at


def test_each_day_the_old_generation_is_seen_to_at_the_quietest_hour_seen_since_the_last(monkeypatch) -> None:
    """Each day's trough is five hours in, then the load is flat. Each look's probe finds garbage worth the
    pause, so each collects."""
    first_day = [900, 700, 500, 400, 300, 320, 600, 1200] + [1500] * 16
    second_day = [900, 700, 500, 400, 300] + [1500] * 19  # its trough, at hour 29, is the first day's again
    third_day = [1500] * 4 + [600] + [1500] * 19  # a busier day: its trough is higher than the days before
    probed_at, collected_at = _hourly_checks(
        monkeypatch, first_day + second_day + third_day + [1500] * 30, _probe_finding(GARBAGE_WORTH_A_PAUSE + 1),
    )
    # a day in, the load is high: the first waits for the day's trough, met again at hour 29; the second
    # counts only the hours since the first, so the third day's higher trough (hour 53) is its quietest;
    # after that the load is flat, so every day's first check is as quiet as any
    assert probed_at == collected_at == [29, 53, 77, 101]


def test_a_busy_process_whose_probe_finds_little_garbage_never_stops_for_the_walk(monkeypatch) -> None:
    probed_at, collected_at = _hourly_checks(monkeypatch, [1000] * 90, _probe_finding(GARBAGE_WORTH_A_PAUSE))
    assert probed_at == [24, 48, 72]
    assert collected_at == []


def test_a_busy_process_collects_when_its_probe_finds_garbage_worth_the_pause(monkeypatch) -> None:
    probed_at, collected_at = _hourly_checks(monkeypatch, [1000] * 90, _probe_finding(GARBAGE_WORTH_A_PAUSE + 1))
    assert probed_at == collected_at == [24, 48, 72]


def test_a_busy_process_collects_when_its_probe_cannot_tell(monkeypatch) -> None:
    probed_at, collected_at = _hourly_checks(monkeypatch, [1000] * 90, None)
    assert probed_at == collected_at == [24, 48, 72]


def test_a_quiet_process_collects_without_probing(monkeypatch) -> None:
    probed_at, collected_at = _hourly_checks(monkeypatch, [QUIET_CONNECTIONS] * 5, None, full_seconds=3600)
    assert collected_at[:5] == [1, 2, 3, 4, 5] and probed_at == []


def test_a_burst_of_live_objects_is_left_to_the_clock() -> None:
    """A server behind its load takes in a burst of work whose objects are alive at once: no collection walks
    them while they are young and alive, unless the burst is larger than YOUNG_THRESHOLD."""
    async def scenario() -> None:
        collector = Collector(young_only=True, full_seconds=0, open_connections=lambda: 0)
        collector.start()
        try:
            gc.collect(1)
            young_collections = gc.get_stats()[0]["collections"]
            burst = [Node() for _ in range(YOUNG_THRESHOLD // 2)]
            assert gc.get_stats()[0]["collections"] == young_collections
            assert all(_in_generation(node, 0) for node in burst[:: len(burst) // 10])
            flood = [Node() for _ in range(YOUNG_THRESHOLD)]
            assert gc.get_stats()[0]["collections"] > young_collections
            del burst, flood
        finally:
            await collector.stop()

    asyncio.run(scenario())
