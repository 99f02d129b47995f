"""The server's garbage-collection policy: survivors of young collections are frozen, so automatic
collections never walk every live game, and a full collection still frees frozen cyclic garbage."""

from __future__ import annotations

import asyncio
import gc
import weakref

from nardy.server.collector import YOUNG_SECONDS, Collector, full_collection


class Node:
    """A container that can sit in a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def test_survivors_of_a_young_collection_leave_the_collectors_sight() -> None:
    async def scenario() -> None:
        collector = Collector(freeze_survivors=True, full_seconds=0)
        collector.start()
        try:
            survivor = Node()
            assert gc.is_tracked(survivor)
            gc.collect(1)
            assert all(survivor is not o for o in gc.get_objects(0) + gc.get_objects(1) + gc.get_objects(2))
            assert gc.get_freeze_count() > 0
        finally:
            await collector.stop()
        assert gc.get_freeze_count() == 0  # stopped: everything is in sight again

    asyncio.run(scenario())


def test_a_full_collection_frees_cyclic_garbage_that_was_frozen() -> None:
    async def scenario() -> None:
        collector = Collector(freeze_survivors=True, full_seconds=0)
        collector.start()
        try:
            first, second = Node(), Node()
            first.other, second.other = second, first
            gc.collect(1)  # the cycle is alive now, so it is frozen
            watch = weakref.ref(first)
            del first, second
            gc.collect()  # an ordinary full collection does not see frozen objects
            assert watch() is not None
            assert full_collection() >= 2
            assert watch() is None
        finally:
            await collector.stop()

    asyncio.run(scenario())


def test_off_only_start_up_objects_are_frozen() -> None:
    async def scenario() -> None:
        collector = Collector(freeze_survivors=False, full_seconds=0)
        collector.start()
        try:
            frozen = gc.get_freeze_count()
            survivor = Node()
            gc.collect(1)
            assert gc.get_freeze_count() == frozen
            assert any(survivor is o for o in gc.get_objects(2))
        finally:
            await collector.stop()

    asyncio.run(scenario())


def test_the_young_generations_are_collected_by_the_clock_not_only_by_allocations() -> None:
    """A survivor leaves the collector's sight within about YOUNG_SECONDS, though nothing else is allocated."""
    async def scenario() -> None:
        collector = Collector(freeze_survivors=True, full_seconds=0)
        collector.start()
        try:
            survivor = Node()
            young = gc.get_objects(0) + gc.get_objects(1)
            assert any(survivor is o for o in young)
            del young
            await asyncio.sleep(YOUNG_SECONDS * 3)
            assert all(survivor is not o for o in gc.get_objects(0) + gc.get_objects(1) + gc.get_objects(2))
        finally:
            await collector.stop()

    asyncio.run(scenario())
