"""Publish/subscribe: the same behaviour in-process and through Redis.

The Redis cases run against ``redis://127.0.0.1:6379/0`` and are skipped when
nothing answers there. Each test uses channel names of its own, so runs that
share the Redis server do not see each other's messages.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager

import pytest
import redis
import redis.asyncio as aioredis

from nardy.server.pubsub import (
    REDIS_PREFIX,
    InProcessPubSub,
    PubSub,
    RedisPubSub,
    Subscription,
    SubscriptionOverflow,
    make_pubsub,
)
from tests.server.tcp_proxy import TcpProxy

REDIS_URL = "redis://127.0.0.1:6379/0"
TIMEOUT = 5.0

Factory = Callable[..., PubSub]


def redis_unreachable() -> str | None:
    """Why Redis cannot be used here, or ``None`` when it answers."""
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=0.5, socket_timeout=0.5)
    try:
        client.ping()
    except redis.RedisError as error:
        return f"Redis is not reachable at {REDIS_URL}: {error}"
    finally:
        client.close()
    return None


@pytest.fixture(scope="session")
def redis_available() -> None:
    reason = redis_unreachable()
    if reason is not None:
        pytest.skip(reason)


@pytest.fixture(params=["in-process", "redis"])
def make(request: pytest.FixtureRequest) -> Factory:
    """A factory of pubsubs of one kind; each test builds its own inside its event loop."""
    if request.param == "redis":
        request.getfixturevalue("redis_available")
        return lambda **options: RedisPubSub(REDIS_URL, **options)
    return lambda **options: InProcessPubSub(**options)


@pytest.fixture
def channel() -> Iterator[Callable[[str], str]]:
    """Channel names unique to this test."""
    prefix = uuid.uuid4().hex
    yield lambda name: f"test:{prefix}:{name}"


@asynccontextmanager
async def opened(factory: Factory, **options: int) -> AsyncIterator[PubSub]:
    pubsub = factory(**options)
    try:
        yield pubsub
    finally:
        await pubsub.aclose()


async def receive(subscription: Subscription) -> str:
    return await asyncio.wait_for(anext(subscription), TIMEOUT)


async def settled(ask: Callable[[], Awaitable[object]], expected: object, timeout: float = 5.0) -> None:
    """Ask until the answer is ``expected``; fail with the last answer after ``timeout`` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while (answer := await ask()) != expected:
        assert asyncio.get_running_loop().time() < deadline, answer
        await asyncio.sleep(0.01)


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(scenario(), 4 * TIMEOUT))


def test_messages_arrive_in_order(make: Factory, channel: Callable[[str], str]) -> None:
    async def scenario() -> None:
        async with opened(make) as pubsub, pubsub.subscribe(channel("game")) as subscription:
            for number in range(200):
                await pubsub.publish(channel("game"), f"event {number}")
            assert [await receive(subscription) for _ in range(200)] == [f"event {n}" for n in range(200)]

    run(scenario)


def test_every_subscriber_gets_every_message(make: Factory, channel: Callable[[str], str]) -> None:
    async def scenario() -> None:
        async with opened(make) as pubsub:
            async with pubsub.subscribe(channel("game")) as first, pubsub.subscribe(channel("game")) as second:
                assert pubsub.subscriber_count(channel("game")) == 2
                await pubsub.publish(channel("game"), "a")
                await pubsub.publish(channel("game"), "b")
                assert [await receive(first), await receive(first)] == ["a", "b"]
                assert [await receive(second), await receive(second)] == ["a", "b"]

    run(scenario)


def test_leaving_the_context_unsubscribes(make: Factory, channel: Callable[[str], str]) -> None:
    async def scenario() -> None:
        async with opened(make) as pubsub:
            async with pubsub.subscribe(channel("game")) as staying:
                async with pubsub.subscribe(channel("game")) as leaving:
                    await pubsub.publish(channel("game"), "both")
                    assert await receive(leaving) == "both"
                assert pubsub.subscriber_count(channel("game")) == 1
                await pubsub.publish(channel("game"), "one")
                assert [await receive(staying), await receive(staying)] == ["both", "one"]
                with pytest.raises(StopAsyncIteration):
                    await anext(leaving)
            assert pubsub.subscriber_count(channel("game")) == 0
            await pubsub.publish(channel("game"), "nobody listens")

    run(scenario)


def test_channels_are_isolated(make: Factory, channel: Callable[[str], str]) -> None:
    async def scenario() -> None:
        async with opened(make) as pubsub, pubsub.subscribe(channel("one")) as one:
            async with pubsub.subscribe(channel("two")) as two:
                await pubsub.publish(channel("two"), "for two")
                await pubsub.publish(channel("one"), "for one")
                assert await receive(one) == "for one"
                assert await receive(two) == "for two"

    run(scenario)


def test_a_slow_subscriber_is_told_to_resync(make: Factory, channel: Callable[[str], str]) -> None:
    """Past its queue size the subscriber gets SubscriptionOverflow once, then new messages as usual."""

    async def scenario() -> None:
        async with opened(make, queue_size=3) as pubsub:
            async with pubsub.subscribe(channel("slow")) as slow, pubsub.subscribe(channel("sync")) as sync:
                for number in range(10):
                    await pubsub.publish(channel("slow"), f"event {number}")
                # One connection delivers in order: once "sync" arrives, all ten reached "slow".
                await pubsub.publish(channel("sync"), "done")
                assert await receive(sync) == "done"
                with pytest.raises(SubscriptionOverflow) as overflow:
                    await receive(slow)
                assert overflow.value.channel == channel("slow")
                await pubsub.publish(channel("slow"), "after the resync")
                assert await receive(slow) == "after the resync"

    run(scenario)


def test_a_message_for_the_others_skips_this_process_and_counts_who_heard_it(
    make: Factory, channel: Callable[[str], str],
) -> None:
    """In-process there is nobody else; through Redis the other process hears it, and is counted."""
    name = channel("others")

    async def scenario() -> None:
        async with opened(make) as here, opened(make) as there:
            async with here.subscribe(name) as own, there.subscribe(name) as other:
                heard = await here.publish_to_others(name, "for the others")
                if isinstance(here, RedisPubSub):
                    assert heard == 1
                    assert await receive(other) == "for the others"
                else:
                    assert heard == 0
                await here.publish(name, "for everyone")
                assert await receive(own) == "for everyone"

    run(scenario)


def test_iterating_ends_when_the_pubsub_closes(make: Factory, channel: Callable[[str], str]) -> None:
    async def scenario() -> None:
        pubsub = make()
        subscription = pubsub.subscribe(channel("game"))
        await subscription.open()
        waiting = asyncio.create_task(anext(subscription))
        await asyncio.sleep(0)
        await pubsub.aclose()
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(waiting, TIMEOUT)
        await subscription.close()
        with pytest.raises(RuntimeError, match="closed"):
            pubsub.subscribe(channel("game"))

    run(scenario)


def test_closing_while_a_subscription_opens(make: Factory, channel: Callable[[str], str]) -> None:
    """Shutting down never leaves an opening subscription waiting (with Redis, for a confirmation)."""

    async def scenario() -> None:
        pubsub = make()
        subscription = pubsub.subscribe(channel("game"))
        opening = asyncio.create_task(subscription.open())
        await asyncio.sleep(0)
        loop = asyncio.get_running_loop()
        started = loop.time()
        await pubsub.aclose()
        assert loop.time() - started < TIMEOUT, "closing waited for the reading task to notice"
        try:
            await asyncio.wait_for(opening, TIMEOUT)
        except RuntimeError as error:
            assert "closed" in str(error)
        with pytest.raises(StopAsyncIteration):
            await asyncio.wait_for(anext(subscription), TIMEOUT)

    run(scenario)


def test_async_for_opens_the_subscription(make: Factory, channel: Callable[[str], str]) -> None:
    async def scenario() -> None:
        async with opened(make) as pubsub:
            subscription = pubsub.subscribe(channel("game"))
            received: list[str] = []

            async def consume() -> None:
                async for message in subscription:
                    received.append(message)
                    if message == "last":
                        await subscription.close()

            consumer = asyncio.create_task(consume())
            while not subscription.opened:  # counted as a subscriber already, Redis may not have confirmed it
                await asyncio.sleep(0.01)
            await pubsub.publish(channel("game"), "first")
            await pubsub.publish(channel("game"), "last")
            await asyncio.wait_for(consumer, TIMEOUT)
            assert received == ["first", "last"]

    run(scenario)


def test_make_pubsub_chooses_by_url() -> None:
    async def scenario() -> None:
        in_process = make_pubsub(None)
        assert isinstance(in_process, InProcessPubSub)
        await in_process.aclose()
        remote = make_pubsub(REDIS_URL)
        assert isinstance(remote, RedisPubSub)
        await remote.aclose()

    run(scenario)


@pytest.mark.usefixtures("redis_available")
def test_two_processes_see_each_others_messages(channel: Callable[[str], str]) -> None:
    """Two RedisPubSub objects stand for two server processes sharing one Redis."""

    async def scenario() -> None:
        async with opened(lambda: RedisPubSub(REDIS_URL)) as first, opened(lambda: RedisPubSub(REDIS_URL)) as second:
            async with first.subscribe(channel("game")) as on_first, second.subscribe(channel("game")) as on_second:
                await first.publish(channel("game"), "from the first")
                await second.publish(channel("game"), "from the second")
                for subscription in (on_first, on_second):
                    assert {await receive(subscription), await receive(subscription)} == {
                        "from the first",
                        "from the second",
                    }

    run(scenario)


@pytest.mark.usefixtures("redis_available")
def test_a_process_hears_its_own_messages_once_and_before_those_published_after_them(
    channel: Callable[[str], str],
) -> None:
    """Its own come at once and their copies from Redis are skipped; another process's message published
    later reaches it through Redis after those copies, so had one been delivered it would show here."""

    async def scenario() -> None:
        async with opened(lambda: RedisPubSub(REDIS_URL)) as first, opened(lambda: RedisPubSub(REDIS_URL)) as second:
            async with first.subscribe(channel("game")) as mine:
                for n in range(3):
                    await first.publish(channel("game"), f"mine {n}")
                await second.publish(channel("game"), "theirs")
                assert [await receive(mine) for _ in range(4)] == ["mine 0", "mine 1", "mine 2", "theirs"]

    run(scenario)


@pytest.mark.usefixtures("redis_available")
def test_a_process_delivers_its_own_message_without_waiting_for_redis(
    channel: Callable[[str], str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def scenario() -> None:
        async with opened(lambda: RedisPubSub(REDIS_URL)) as pubsub, pubsub.subscribe(channel("game")) as mine:
            assert isinstance(pubsub, RedisPubSub)
            redis_answers = asyncio.Event()
            publish_to_redis = pubsub._publish_many

            async def slow_redis(messages: list[tuple[str, str]]) -> list[int]:
                await redis_answers.wait()
                return await publish_to_redis(messages)

            monkeypatch.setattr(pubsub, "_publish_many", slow_redis)
            publishing = asyncio.create_task(pubsub.publish(channel("game"), "move"))
            assert await receive(mine) == "move"
            assert not publishing.done()
            redis_answers.set()
            await publishing

    run(scenario)


@pytest.mark.usefixtures("redis_available")
def test_one_redis_subscription_per_channel_and_prefixed_names(channel: Callable[[str], str]) -> None:
    """However many local subscribers, Redis sees one subscriber connection on ``nardy:<channel>``."""

    async def scenario() -> None:
        observer = aioredis.Redis.from_url(REDIS_URL, decode_responses=True)
        name = REDIS_PREFIX + channel("game")
        try:
            async with opened(lambda: RedisPubSub(REDIS_URL)) as pubsub:
                async with pubsub.subscribe(channel("game")), pubsub.subscribe(channel("game")):
                    async with pubsub.subscribe(channel("game")):
                        assert await observer.pubsub_numsub(name) == [(name, 1)]
                # the last one out sends UNSUBSCRIBE without waiting for Redis to answer it: another
                # connection may ask before Redis has read it
                await settled(lambda: observer.pubsub_numsub(name), [(name, 0)])
        finally:
            await observer.aclose()

    run(scenario)


@pytest.mark.usefixtures("redis_available")
def test_a_lost_redis_connection_asks_for_a_resync(channel: Callable[[str], str]) -> None:
    """After the subscriber connection is killed, subscribers hear of it and messages flow again."""

    async def scenario() -> None:
        admin = aioredis.Redis.from_url(REDIS_URL, decode_responses=True)
        try:
            before = await subscriber_connections(admin)
            async with opened(lambda: RedisPubSub(REDIS_URL)) as pubsub, pubsub.subscribe(channel("game")) as sub:
                [ours] = await subscriber_connections(admin) - before
                await admin.client_kill_filter(_id=ours)
                with pytest.raises(SubscriptionOverflow):
                    await receive(sub)
                await pubsub.publish(channel("game"), "after the reconnect")
                assert await receive(sub) == "after the reconnect"
        finally:
            await admin.aclose()

    run(scenario)


async def subscriber_connections(admin: aioredis.Redis) -> set[str]:
    """The ids of this process's RedisPubSub subscriber connections, told apart by their client name."""
    name = f"nardy:pubsub:{os.getpid()}"
    return {client["id"] for client in await admin.client_list() if client.get("name") == name}


@pytest.fixture
def link(redis_available: None) -> Iterator[TcpProxy]:
    """A link to the Redis server that the test can cut: one process losing Redis while others keep it."""
    with TcpProxy(("127.0.0.1", 6379)) as proxy:
        yield proxy


async def drained(pubsub: PubSub) -> None:
    async with asyncio.timeout(TIMEOUT):
        while pubsub.backlog:
            await asyncio.sleep(0.02)


@pytest.mark.parametrize("noticed", [True, False], ids=["after-the-break-is-noticed", "before-it-is-noticed"])
def test_a_subscription_ended_while_cut_off_from_redis_is_unsubscribed_once_redis_is_back(
    channel: Callable[[str], str], link: TcpProxy, noticed: bool,
) -> None:
    """Ending it raises nothing (it used to race the reading task's reconnection on the socket), and Redis
    stops delivering the channel once the subscriber connection is back.

    Ended at once after the cut, before anything noticed it, the UNSUBSCRIBE is written to a socket that still
    looks connected and is lost; redis-py subscribes again, on reconnecting, every channel it had not heard
    leave (once in CI the ping below let that happen too)."""

    async def scenario() -> None:
        observer = aioredis.Redis.from_url(REDIS_URL, decode_responses=True)
        game, other = REDIS_PREFIX + channel("game"), REDIS_PREFIX + channel("other")
        try:
            async with opened(lambda: RedisPubSub(f"redis://{link.url_host}/0")) as cut_off:
                async with cut_off.subscribe(channel("other")), AsyncExitStack() as ending:
                    await ending.enter_async_context(cut_off.subscribe(channel("game")))
                    assert await observer.pubsub_numsub(game) == [(game, 1)]
                    link.cut()
                    if noticed:
                        with pytest.raises((redis.RedisError, OSError)):
                            await cut_off.ping()
                    await ending.aclose()
                    link.restore()
                    await settled(lambda: observer.pubsub_numsub(other), [(other, 1)], timeout=4 * TIMEOUT)
                    await settled(lambda: observer.pubsub_numsub(game), [(game, 0)])
        finally:
            await observer.aclose()

    run(scenario)


def test_a_subscription_made_while_the_connection_is_down_leaves_reconnecting_to_the_reading_task(
    channel: Callable[[str], str], link: TcpProxy,
) -> None:
    """Subscribing from the opening task would connect it while the reading task reconnects (two readers of one
    socket); once Redis is back the reading task subscribes the channel, and the subscription resyncs."""

    async def scenario() -> None:
        cut_url = f"redis://{link.url_host}/0"
        async with opened(lambda: RedisPubSub(cut_url)) as cut_off, opened(lambda: RedisPubSub(REDIS_URL)) as other:
            assert isinstance(cut_off, RedisPubSub)
            redis_pubsub = cut_off._redis_pubsub
            subscribe = redis_pubsub.subscribe
            while_down: list[str] = []

            def connected() -> bool:
                return redis_pubsub.connection is not None and redis_pubsub.connection.is_connected

            async def watched_subscribe(*names: str) -> None:
                if not connected():
                    while_down.append(asyncio.current_task().get_name())  # type: ignore[union-attr]
                await subscribe(*names)

            async with cut_off.subscribe(channel("other")):
                redis_pubsub.subscribe = watched_subscribe  # type: ignore[method-assign]
                link.cut()
                async with asyncio.timeout(TIMEOUT):
                    while connected():
                        await asyncio.sleep(0.01)
                async with cut_off.subscribe(channel("game")) as mine:
                    link.restore()
                    with pytest.raises(SubscriptionOverflow):
                        await receive(mine)
                    await other.publish(channel("game"), "from the other")
                    assert await receive(mine) == "from the other"
            assert set(while_down) <= {"nardy-redis-pubsub"}

    run(scenario)


def test_cut_off_from_redis_a_process_keeps_its_messages_and_sends_them_in_order(
    channel: Callable[[str], str], link: TcpProxy,
) -> None:
    """Publishing never fails: local subscribers get the messages at once, the others once Redis is back."""

    async def scenario() -> None:
        cut_url = f"redis://{link.url_host}/0"
        async with opened(lambda: RedisPubSub(cut_url)) as cut_off, opened(lambda: RedisPubSub(REDIS_URL)) as other:
            async with cut_off.subscribe(channel("game")) as mine, other.subscribe(channel("game")) as theirs:
                await cut_off.ping()
                link.cut()
                with pytest.raises((redis.RedisError, OSError)):
                    await cut_off.ping()
                for n in range(3):
                    await cut_off.publish(channel("game"), f"move {n}")
                assert [await receive(mine) for _ in range(3)] == ["move 0", "move 1", "move 2"]
                assert cut_off.backlog >= 3  # with the announcement of its subscription, if still on its way at the cut
                link.restore()
                assert [await receive(theirs) for _ in range(3)] == ["move 0", "move 1", "move 2"]
                await drained(cut_off)
                await cut_off.ping()

    run(scenario)


def test_a_full_outbox_drops_its_oldest_messages(channel: Callable[[str], str], link: TcpProxy) -> None:
    """The newest messages reach Redis once it is back. The oldest may too: one the outbox was already trying to
    send when it was dropped cannot be called back."""

    async def scenario() -> None:
        cut_url = f"redis://{link.url_host}/0"
        async with opened(lambda: RedisPubSub(cut_url, outbox_size=2)) as cut_off, \
                opened(lambda: RedisPubSub(REDIS_URL)) as other, other.subscribe(channel("game")) as theirs:
            link.cut()
            for n in range(3):
                await cut_off.publish(channel("game"), f"move {n}")
            assert cut_off.backlog == 2
            link.restore()
            received = [await receive(theirs)]
            while received[-1] != "move 2":
                received.append(await receive(theirs))
            assert received in (["move 1", "move 2"], ["move 0", "move 1", "move 2"])

    run(scenario)


def test_a_subscription_made_while_redis_is_away_hears_of_it_once_redis_is_back(
    channel: Callable[[str], str], link: TcpProxy,
) -> None:
    """It opens at once and gets this process's messages; once subscribed in Redis it must resync, then
    it gets the other processes' messages too."""

    async def scenario() -> None:
        cut_url = f"redis://{link.url_host}/0"
        link.cut()
        async with opened(lambda: RedisPubSub(cut_url)) as cut_off, opened(lambda: RedisPubSub(REDIS_URL)) as other:
            async with cut_off.subscribe(channel("game")) as mine:
                await cut_off.publish(channel("game"), "local")
                assert await receive(mine) == "local"
                link.restore()
                with pytest.raises(SubscriptionOverflow):
                    await receive(mine)
                await other.publish(channel("game"), "from the other")
                assert await receive(mine) == "from the other"

    run(scenario)


class RedisPublishes:
    """The Redis channel names a RedisPubSub hands messages to, in order (its outbox's too)."""

    def __init__(self, pubsub: PubSub, monkeypatch: pytest.MonkeyPatch) -> None:
        assert isinstance(pubsub, RedisPubSub)
        self.names: list[str] = []
        self.round_trips = 0
        publish_to_redis = pubsub._publish_many

        async def counted(messages: list[tuple[str, str]]) -> list[int]:
            self.names.extend(name for name, _ in messages)
            self.round_trips += 1
            return await publish_to_redis(messages)

        monkeypatch.setattr(pubsub, "_publish_many", counted)


async def made_lone(pubsub: PubSub, sent: RedisPublishes, channel: str) -> list[str]:
    """Publish versioned messages on ``channel`` until one stays off Redis (no other process listens); what was
    published."""
    published: list[str] = []
    async with asyncio.timeout(TIMEOUT):
        while True:
            before = len(sent.names)
            published.append(f"learning {len(published)}")
            await pubsub.publish(channel, published[-1], versioned=True)
            if len(sent.names) == before:
                return published
            await asyncio.sleep(0.01)


@pytest.mark.usefixtures("redis_available")
def test_a_channel_no_other_process_listens_to_keeps_its_versioned_messages_off_redis(
    channel: Callable[[str], str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its listeners here get every message; Redis is asked to carry no versioned one once it answered that nobody
    else hears, and still every other one (a chat line carries no version by which a listener could tell it
    missed one)."""

    async def scenario() -> None:
        async with opened(lambda: RedisPubSub(REDIS_URL)) as pubsub, pubsub.subscribe(channel("game")) as mine:
            sent = RedisPublishes(pubsub, monkeypatch)
            published = await made_lone(pubsub, sent, channel("game"))
            carried = len(sent.names)
            for n in range(5):
                published.append(f"kept {n}")
                await pubsub.publish(channel("game"), published[-1], versioned=True)
            assert len(sent.names) == carried
            published.append("a chat line")
            await pubsub.publish(channel("game"), published[-1])
            assert len(sent.names) == carried + 1
            assert [await receive(mine) for _ in published] == published

    run(scenario)


@pytest.mark.usefixtures("redis_available")
def test_a_process_that_starts_listening_gets_the_last_message_kept_back_and_then_every_message(
    channel: Callable[[str], str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The publisher may have kept messages back after the other process subscribed and before its announcement
    came: it sends the last of them, from which the new listener tells whether it missed any (docs/protocol.md)."""

    async def scenario() -> None:
        async with opened(lambda: RedisPubSub(REDIS_URL)) as owner, opened(lambda: RedisPubSub(REDIS_URL)) as other:
            async with owner.subscribe(channel("game")):
                sent = RedisPublishes(owner, monkeypatch)
                await made_lone(owner, sent, channel("game"))
                await owner.publish(channel("game"), "version 7", versioned=True)
                async with other.subscribe(channel("game")) as watching:
                    assert await receive(watching) == "version 7"
                    await owner.publish(channel("game"), "version 8", versioned=True)
                    assert await receive(watching) == "version 8"

    run(scenario)


@pytest.mark.usefixtures("redis_available")
def test_a_process_that_cannot_hear_announcements_sends_the_last_message_kept_back_and_then_every_message(
    channel: Callable[[str], str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its subscriber connection broke, so an announcement may have been lost meanwhile: a listener elsewhere (here
    a plain Redis client, which announces nothing) gets the last message kept back, and then every message until
    the process hears announcements again."""

    async def scenario() -> None:
        admin = aioredis.Redis.from_url(REDIS_URL, decode_responses=True)
        observer = admin.pubsub()
        try:
            before = await subscriber_connections(admin)
            async with opened(lambda: RedisPubSub(REDIS_URL)) as pubsub, pubsub.subscribe(channel("game")):
                sent = RedisPublishes(pubsub, monkeypatch)
                await made_lone(pubsub, sent, channel("game"))
                await observer.subscribe(REDIS_PREFIX + channel("game"))
                await pubsub.publish(channel("game"), "version 7", versioned=True)
                [ours] = await subscriber_connections(admin) - before
                await admin.client_kill_filter(_id=ours)
                assert (await observed(observer)).endswith(" version 7")
                await pubsub.publish(channel("game"), "version 8", versioned=True)
                assert (await observed(observer)).endswith(" version 8")
                await observer.unsubscribe(REDIS_PREFIX + channel("game"))
                await made_lone(pubsub, sent, channel("game"))  # it hears announcements again
        finally:
            await observer.aclose()
            await admin.aclose()

    run(scenario)


async def observed(observer: aioredis.client.PubSub) -> str:
    """The next message a plain Redis subscriber gets (skipping its subscription's confirmation)."""
    async with asyncio.timeout(TIMEOUT):
        while True:
            message = await observer.get_message(ignore_subscribe_messages=True, timeout=TIMEOUT)
            if message is not None:
                return str(message["data"])


@pytest.mark.usefixtures("redis_available")
def test_publishes_made_together_share_one_round_trip_to_redis_and_keep_their_order(
    channel: Callable[[str], str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A burst of publishes (many tables' first moves at once) waits for one answer of Redis, not one each; each
    publish still returns once Redis has its message, and another process gets them in the order published."""

    async def scenario() -> None:
        async with opened(lambda: RedisPubSub(REDIS_URL)) as pubsub, opened(lambda: RedisPubSub(REDIS_URL)) as other:
            async with other.subscribe(channel("game")) as theirs:
                sent = RedisPublishes(pubsub, monkeypatch)
                burst = [f"move {n}" for n in range(200)]
                await asyncio.gather(*(pubsub.publish(channel("game"), move) for move in burst))
                assert sent.names == [REDIS_PREFIX + channel("game")] * len(burst)
                assert sent.round_trips == 1
                assert [await receive(theirs) for _ in burst] == burst

    run(scenario)
