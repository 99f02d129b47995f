"""Publish/subscribe between the game tasks and the connections watching them.

A game's task publishes each new event on the game's channel; every WebSocket
connection watching the game holds a :class:`Subscription` to it. With one
server process :class:`InProcessPubSub` is all it takes; with several,
:class:`RedisPubSub` carries the messages between them. Both deliver the
messages of one publisher on one channel in the order they were published.

Each subscription has a bounded queue. When a subscriber falls so far behind
that its queue is full (or, with Redis, when the connection to Redis was lost
and messages may have gone by unseen), the messages it missed are dropped and
its iterator raises :class:`SubscriptionOverflow` once. The subscription stays
open: the consumer resyncs (loads the current state, e.g. the events after the
last version it has) and then goes on iterating; later messages arrive as usual,
and the events are versioned so duplicates are recognised.

>>> import asyncio
>>> async def demo() -> list[str]:
...     pubsub = InProcessPubSub()
...     async with pubsub.subscribe("game:7") as subscription:
...         await pubsub.publish("game:7", "event 1")
...         await pubsub.publish("game:7", "event 2")
...         received = [await anext(subscription), await anext(subscription)]
...     await pubsub.aclose()
...     return received
>>> asyncio.run(demo())
['event 1', 'event 2']
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import Any, Final, Protocol, Self

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import RedisError

from nardy.server.lone_channels import LoneChannels

DEFAULT_QUEUE_SIZE: Final = 1000
"""Messages a subscriber may fall behind before it is told to resync."""

REDIS_PREFIX: Final = "nardy:"
"""Prefix of every Redis channel name, so nardy can share a Redis server."""

REDIS_BACKOFF_MAX_SECONDS: Final = 2.0
"""The longest pause between attempts to reach Redis again (publishing or subscribing)."""

REDIS_TIMEOUT_SECONDS: Final = 2.0
"""How long connecting, a command or a subscription's confirmation may take before Redis counts as away."""

DEFAULT_OUTBOX_SIZE: Final = 100_000
"""Messages a process keeps for Redis while it cannot be reached; past that the oldest are dropped."""

REDIS_INTEREST: Final = "nardy!interest"
"""The Redis channel on which each process announces the channels it listens to (no channel's name)."""

_log = logging.getLogger(__name__)


def _untimed(seconds: float) -> None:
    """Nobody is told how long a publish to Redis took (metrics off)."""


class SubscriptionOverflow(Exception):
    """Messages of this subscription were dropped: load the current state, then keep iterating."""

    def __init__(self, channel: str) -> None:
        super().__init__(f"the subscriber of {channel!r} missed messages and must resync")
        self.channel = channel


class PubSub(Protocol):
    """Channels of text messages, shared by the tasks of one process or, with Redis, of many."""

    async def publish(self, channel: str, message: str, *, versioned: bool = False) -> None:
        """Deliver ``message`` to every open subscription of ``channel``.

        ``versioned``: the message carries the version of the state it leads
        to, so a listener that missed some messages can tell from the next
        one (a table's ``events``). Such a message need not leave this
        process while nobody elsewhere listens to the channel.
        """

    async def publish_to_others(self, channel: str, message: str) -> int | None:
        """Publish ``message`` to the other processes' subscriptions of ``channel`` only (not this process's); how
        many processes have it now, or ``None`` when that is not known (it waits for an unreachable Redis)."""

    def subscribe(self, channel: str) -> Subscription:
        """A subscription to ``channel``; it receives messages once opened (``async with``)."""

    def subscriber_count(self, channel: str) -> int:
        """Open subscriptions to ``channel`` in this process."""

    @property
    def backlog(self) -> int:
        """Messages published here that have not reached the other processes yet."""

    async def ping(self) -> None:
        """Raise unless the messages can reach the other processes now."""

    async def aclose(self) -> None:
        """Shut down: end every subscription and release connections."""


class Subscription:
    """One subscriber's messages from one channel: an async context manager and async iterator.

    ``async with pubsub.subscribe(channel) as subscription`` opens it (with
    Redis, once Redis has confirmed the subscription) and closes it on exit;
    ``async for message in subscription`` then yields the messages published
    after it opened. Iterating ends when the subscription or its pubsub is
    closed; :class:`SubscriptionOverflow` is raised once after messages were
    dropped, as the module docstring explains.
    """

    def __init__(self, channel: str, broker: _FanOut, queue_size: int) -> None:
        self.channel = channel
        self._broker = broker
        self._queue: asyncio.Queue[str | None] = asyncio.Queue(queue_size)
        self._opened = False
        self._closed = False
        self._missed = False

    @property
    def opened(self) -> bool:
        """Whether it receives what is published from now on (with Redis: once Redis confirmed, or gave up)."""
        return self._opened

    async def open(self) -> None:
        """Start receiving; ``async with`` and the first iteration do it, and doing it again is harmless."""
        if self._closed:
            raise RuntimeError(f"the subscription to {self.channel!r} is closed")
        if not self._opened:
            await self._broker._attach(self)
            self._opened = True
            if self._closed:  # closed while Redis was confirming
                await self._broker._detach(self)

    async def close(self) -> None:
        """Stop receiving and end the iteration; closing twice is harmless."""
        if self._closed:
            return
        self._end()
        if self._opened:
            await self._broker._detach(self)

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        await self.close()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> str:
        if not self._opened and not self._closed:
            await self.open()
        while True:
            if self._closed:
                raise StopAsyncIteration
            if self._missed:
                self._missed = False
                while not self._queue.empty():
                    self._queue.get_nowait()
                raise SubscriptionOverflow(self.channel)
            message = await self._queue.get()
            if message is not None:
                return message

    def _deliver(self, message: str) -> None:
        """Queue a message, or note that it was missed when the queue is full."""
        if self._closed or self._missed:
            return
        try:
            self._queue.put_nowait(message)
        except asyncio.QueueFull:
            self._missed = True

    def _lose(self) -> None:
        """Note that messages may have been missed, and wake the reader to say so."""
        self._missed = True
        self._wake()

    def _end(self) -> None:
        """Mark closed and wake the reader; the broker forgets the subscription separately."""
        self._closed = True
        self._wake()

    def _wake(self) -> None:
        try:
            self._queue.put_nowait(None)
        except asyncio.QueueFull:
            pass  # a full queue means the reader is not waiting on it


class _FanOut(ABC):
    """The subscriptions of this process by channel, shared by both implementations.

    An implementation says how a subscription is attached to and detached from
    its message source; delivery to the local queues is the same for both.
    """

    def __init__(self, queue_size: int) -> None:
        if queue_size < 1:
            raise ValueError(f"queue_size is at least 1, got {queue_size}")
        self._queue_size = queue_size
        self._channels: dict[str, set[Subscription]] = {}
        self._closed = False

    def subscribe(self, channel: str) -> Subscription:
        """A new, not yet opened subscription to ``channel``."""
        if self._closed:
            raise RuntimeError("the pubsub is closed")
        if not channel:
            raise ValueError("a channel name is not empty")
        return Subscription(channel, self, self._queue_size)

    def subscriber_count(self, channel: str) -> int:
        """Open subscriptions to ``channel`` in this process."""
        return len(self._channels.get(channel, ()))

    @abstractmethod
    async def _attach(self, subscription: Subscription) -> None:
        """Start delivering the channel's messages to an opening subscription."""

    @abstractmethod
    async def _detach(self, subscription: Subscription) -> None:
        """Stop delivering to a closing subscription."""

    def _add(self, subscription: Subscription) -> bool:
        """Register an opened subscription; true when it is the channel's first."""
        if self._closed:
            raise RuntimeError("the pubsub is closed")
        subscribers = self._channels.setdefault(subscription.channel, set())
        subscribers.add(subscription)
        return len(subscribers) == 1

    def _remove(self, subscription: Subscription) -> bool:
        """Forget a subscription; true when its channel has no subscriber left."""
        subscribers = self._channels.get(subscription.channel)
        if subscribers is None or subscription not in subscribers:
            return False
        subscribers.remove(subscription)
        if subscribers:
            return False
        del self._channels[subscription.channel]
        return True

    def _deliver(self, channel: str, message: str) -> None:
        for subscription in self._channels.get(channel, ()):
            subscription._deliver(message)

    def _end_all(self) -> None:
        """Close the fan-out and end every subscription."""
        self._closed = True
        for subscribers in self._channels.values():
            for subscription in subscribers:
                subscription._end()
        self._channels.clear()


class InProcessPubSub(_FanOut):
    """Publish/subscribe within one process: each message is put straight on the subscribers' queues."""

    def __init__(self, *, queue_size: int = DEFAULT_QUEUE_SIZE) -> None:
        super().__init__(queue_size)

    @property
    def backlog(self) -> int:
        """Nothing waits: there are no other processes."""
        return 0

    async def ping(self) -> None:
        """Always reachable."""

    async def publish(self, channel: str, message: str, *, versioned: bool = False) -> None:
        """Queue ``message`` for every open subscription of ``channel``."""
        self._deliver(channel, message)

    async def publish_to_others(self, channel: str, message: str) -> int | None:
        """Nobody hears it: there is no other process."""
        return 0

    async def _attach(self, subscription: Subscription) -> None:
        self._add(subscription)

    async def _detach(self, subscription: Subscription) -> None:
        self._remove(subscription)

    async def aclose(self) -> None:
        """End every subscription."""
        self._end_all()


class RedisPubSub(_FanOut):
    """Publish/subscribe across server processes through Redis channels named ``nardy:<channel>``.

    Each process holds two connections however many subscribers it has: one
    that publishes (a second one while a ping meets a publish), and one
    subscribed to every channel that has a subscriber here, read by a single
    task that fans messages out to the local queues.
    Nothing connects until the first publish or subscription. The subscriber
    connection is named ``nardy:pubsub:<process id>`` in Redis's CLIENT LIST.

    ``publish`` delivers the message to this process's subscribers at once,
    as one process does, and returns once Redis has it for the others. So
    each process's subscribers get every publisher's messages in the order
    they were published, but two publishers' messages on one channel may
    interleave differently in different processes; a table's events carry
    their versions, by which a watcher puts them right (docs/protocol.md).
    Waiting for its own messages to come back from Redis cost a process
    0.6 more wake-ups of its event loop and 0.04 to 0.06 ms more CPU per
    message (benchmarks/RESULTS.md). The publishes made while Redis answers
    earlier ones go together with the next round trip, in order, as one
    pipeline: sent one by one on one connection, a burst (some hundred tables'
    first moves at once) queued a round trip each, and its actions waited up
    to 15 s for their acks. When Redis does not answer,
    ``publish`` still succeeds: the message goes into an *outbox*, which a
    task sends to Redis in order, retrying with backoff (up to
    :data:`REDIS_BACKOFF_MAX_SECONDS` between tries); later messages queue
    behind it until the outbox is empty. So a change already committed is always published, late if Redis
    is away. The outbox holds at most ``outbox_size`` messages; past that the
    oldest are dropped (a watcher elsewhere then sees a gap in the versions
    and resyncs). Each message starts with this process's random tag and a
    space; the reading task skips this process's own messages.

    A *versioned* message (``publish(..., versioned=True)``) on a channel that
    reaches no other process is not sent to Redis at all while that holds
    (:mod:`nardy.server.lone_channels`): Redis's answer to a publish says how
    many listen, and each process announces on :data:`REDIS_INTEREST` every
    channel Redis confirms it subscribed to. When such a channel had kept
    messages back, the process then sends the last of them through Redis.

    When the subscriber connection breaks, or a channel could not be
    subscribed to, the reading task reconnects with the same backoff and
    subscribes every channel that has a subscriber here; each subscription of
    a channel subscribed again raises :class:`SubscriptionOverflow`, because
    messages may have passed meanwhile. :meth:`ping` says whether Redis
    answers now.
    """

    def __init__(
        self, url: str, *, queue_size: int = DEFAULT_QUEUE_SIZE, outbox_size: int = DEFAULT_OUTBOX_SIZE,
        timed: Callable[[float], None] = _untimed,
    ) -> None:
        super().__init__(queue_size)
        self._timed = timed
        """Told the seconds of each round trip that publishes to Redis (the server's metrics)."""
        self._tag = secrets.token_hex(8)
        timeouts: dict[str, Any] = {"socket_connect_timeout": REDIS_TIMEOUT_SECONDS}
        self._publisher = aioredis.Redis.from_url(
            url, decode_responses=True, retry=Retry(NoBackoff(), 0),
            socket_timeout=REDIS_TIMEOUT_SECONDS, **timeouts,
        )
        # No retries inside redis-py: a broken subscriber connection must reach the
        # reading task, which then knows that messages may have been lost.
        self._subscriber = aioredis.Redis.from_url(
            url, decode_responses=True, retry=Retry(NoBackoff(), 0), client_name=f"nardy:pubsub:{os.getpid()}",
            **timeouts,
        )
        self._redis_pubsub = self._subscriber.pubsub()
        self._lock = asyncio.Lock()
        self._confirmations: dict[str, asyncio.Future[None]] = {}
        self._left_subscribed = False
        """A subscription may have ended without Redis being told (it was away, or the connection broke around
        the UNSUBSCRIBE): the reading task unsubscribes what nobody here wants once Redis is back."""
        self._maybe_unsubscribed = False
        """A channel with a subscriber here may not be subscribed in Redis (a SUBSCRIBE was not sent or failed):
        the reading task looks, which costs a pass over every channel, so it does not look after every message."""
        self._reader: asyncio.Task[None] | None = None
        self._outbox: deque[tuple[str, str]] = deque()
        self._outbox_size = outbox_size
        self._outbox_ready = asyncio.Event()
        self._sender: asyncio.Task[None] | None = None
        self._round: list[tuple[str, str, asyncio.Future[int | None]]] = []
        """Publishes for Redis's next round trip, each with what Redis will answer (how many heard it)."""
        self._flusher: asyncio.Task[None] | None = None
        self._dropped = 0
        self._lone = LoneChannels()
        self._confirmed: set[str] = set()
        """Redis names of the channels Redis confirmed this process subscribed to, and no UNSUBSCRIBE sent since."""
        self._interest_asked = False
        self._notes: deque[tuple[str, str]] = deque()
        """Announcements, and messages kept back that a new listener elsewhere may lack, which the reading task
        sends once it has dispatched what it read."""

    @property
    def backlog(self) -> int:
        """Messages published here that Redis has not taken yet."""
        return len(self._outbox)

    async def ping(self) -> None:
        """Raise :class:`redis.exceptions.RedisError` (or :class:`OSError`) unless Redis answers now."""
        await self._publisher.ping()

    async def publish(self, channel: str, message: str, *, versioned: bool = False) -> None:
        """Deliver ``message`` here now and publish it through Redis; while Redis is away, keep it for Redis.

        A versioned message stays here while no other process listens to the
        channel. Never fails for Redis: see the class docstring.
        """
        if self._closed:
            return
        self._deliver(channel, message)
        if versioned and not self._outbox and self._lone.keeps(channel, message):
            return
        name = REDIS_PREFIX + channel
        since, ours = self._lone.generation, self._ours(name)
        receivers = await self._to_redis(name, f"{self._tag} {message}")
        if receivers is not None:
            self._lone.published(channel, receivers, ours if ours == self._ours(name) else None, since)

    async def publish_to_others(self, channel: str, message: str) -> int | None:
        """Publish ``message`` through Redis (this process's subscribers skip it, as they skip every message of
        this process that comes back); how many other processes' subscriber connections Redis handed it to, or
        ``None`` while it is kept for Redis.

        While this process's own subscription to ``channel`` is being made or ended, it is counted as
        another's: in doubt the count errs high.
        """
        if self._closed:
            return None
        name = REDIS_PREFIX + channel
        ours = self._ours(name)
        receivers = await self._to_redis(name, f"{self._tag} {message}")
        if receivers is None:
            return None
        return max(0, receivers - 1) if ours == 1 and self._ours(name) == 1 else receivers

    async def _to_redis(self, name: str, tagged: str) -> int | None:
        """Publish to Redis with the next round trip if nothing waits before it, else keep it behind what waits
        (and while Redis is away); how many subscriber connections heard it, or ``None`` if it was kept."""
        if self._outbox:
            self._keep(name, tagged)
            return None
        heard: asyncio.Future[int | None] = asyncio.get_running_loop().create_future()
        self._round.append((name, tagged, heard))
        if self._flusher is None:
            self._flusher = asyncio.create_task(self._flush(), name="nardy-redis-publish")
        return await asyncio.shield(heard)

    async def _flush(self) -> None:
        """Hand Redis every publish waiting, in order, one round trip for all those that came meanwhile; while
        Redis does not answer, move them and every later one to the outbox."""
        batch: list[tuple[str, str, asyncio.Future[int | None]]] = []
        try:
            while self._round:
                batch, self._round = self._round, []
                try:
                    counts = await self._publish_many([(name, tagged) for name, tagged, _ in batch])
                except (RedisError, OSError) as error:
                    _log.warning("cannot publish to Redis, keeping messages until it answers: %s", error)
                    batch.extend(self._round)
                    self._round = []
                    for name, tagged, heard in batch:
                        self._keep(name, tagged)
                        _settle(heard, None)
                    return
                for (_, _, heard), count in zip(batch, counts, strict=True):
                    _settle(heard, count)
        finally:
            self._flusher = None
            for _, _, heard in batch + self._round:  # cancelled as the pubsub closes: nobody waits for Redis then
                _settle(heard, None)

    async def _publish_many(self, messages: list[tuple[str, str]]) -> list[int]:
        """PUBLISH each ``(name, tagged)`` in order, in one round trip; how many subscriber connections heard each."""
        pipeline = self._publisher.pipeline(transaction=False)
        for name, tagged in messages:
            pipeline.publish(name, tagged)
        began = time.perf_counter()
        counts = await pipeline.execute()
        self._timed(time.perf_counter() - began)
        return [int(count) for count in counts]

    def _ours(self, name: str) -> int | None:
        """1 if Redis counts this process among the listeners of ``name``, 0 if not, ``None`` while that changes."""
        if name in self._confirmed:
            return 1
        pubsub = self._redis_pubsub
        if name in pubsub.channels or name in pubsub.pending_unsubscribe_channels or name in self._confirmations:
            return None
        return 0

    def _keep(self, name: str, tagged: str) -> None:
        """Queue a message for Redis behind those already waiting (see the class docstring)."""
        if len(self._outbox) >= self._outbox_size:
            self._outbox.popleft()
            self._dropped += 1
            if self._dropped == 1:
                _log.warning("Redis outbox full (%d messages): dropping the oldest", self._outbox_size)
        self._outbox.append((name, tagged))
        self._outbox_ready.set()
        if self._sender is None:
            self._sender = asyncio.create_task(self._send(), name="nardy-redis-outbox")

    async def _send(self) -> None:
        """Hand the outbox to Redis in order, waiting out an unreachable Redis with backoff."""
        failures = 0
        while True:
            if not self._outbox:
                self._outbox_ready.clear()
                await self._outbox_ready.wait()
                continue
            item = self._outbox[0]
            try:
                await self._publish_many([item])
            except (RedisError, OSError) as error:
                failures += 1
                if failures == 1:
                    _log.warning("cannot publish to Redis (%d messages kept, retrying): %s", len(self._outbox), error)
                await asyncio.sleep(_backoff(failures))
                continue
            if failures:
                _log.warning("publishing to Redis again after %d failed tries", failures)
                failures = 0
                self._dropped = 0
            if self._outbox and self._outbox[0] is item:  # not dropped from a full outbox meanwhile
                self._outbox.popleft()

    async def _attach(self, subscription: Subscription) -> None:
        async with self._lock:
            if not self._add(subscription):
                return
            name = REDIS_PREFIX + subscription.channel
            if self._reader is not None and not self._connected():
                # Subscribing now would connect from this task while the reading task reconnects: two readers of
                # one socket. The reading task subscribes it once Redis is back; the subscription then must resync.
                _log.warning("cannot subscribe to %s in Redis yet (the connection is down)", subscription.channel)
                self._maybe_unsubscribed = True
                return
            confirmed = asyncio.get_running_loop().create_future()
            self._confirmations[name] = confirmed
            try:
                try:
                    await self._redis_pubsub.subscribe(name)
                finally:
                    if self._reader is None:  # it reads the confirmation, or subscribes once Redis answers
                        self._reader = asyncio.create_task(self._read(), name="nardy-redis-pubsub")
                await asyncio.wait_for(asyncio.shield(confirmed), REDIS_TIMEOUT_SECONDS)
            except (RedisError, OSError, TimeoutError) as error:
                # Local messages flow already; the reading task subscribes the channel once Redis answers,
                # and the subscription then hears that it must resync.
                _log.warning("cannot subscribe to %s in Redis yet (retrying): %s", subscription.channel, error)
                self._maybe_unsubscribed = True
            except BaseException:
                self._remove(subscription)
                raise
            finally:
                self._confirmations.pop(name, None)

    async def _detach(self, subscription: Subscription) -> None:
        async with self._lock:
            if not self._remove(subscription) or self._closed:
                return
            self._confirmed.discard(REDIS_PREFIX + subscription.channel)
            if not self._connected():
                # As in _attach: the reading task unsubscribes it once Redis is back.
                self._left_subscribed = True
                return
            try:
                await self._redis_pubsub.unsubscribe(REDIS_PREFIX + subscription.channel)
            except (RedisError, OSError, RuntimeError) as error:
                # Redis will re-subscribe the channel on reconnecting; the reading task then unsubscribes it.
                # RuntimeError: the connection broke between the check above and the write, and redis-py's retry
                # reconnected from this task while the reading task waits on the socket (asyncio refuses a second
                # reader); the reading task notices the break and reconnects itself.
                self._left_subscribed = True
                _log.warning("could not unsubscribe from %s: %s", subscription.channel, error)

    def _connected(self) -> bool:
        """Whether the subscriber connection is up, so that a command sent on it needs no connecting."""
        connection = self._redis_pubsub.connection
        return connection is not None and connection.is_connected

    def _unwanted(self) -> list[str]:
        """Redis names of the channels Redis delivers to us, and is not asked to stop, with no subscriber here."""
        leaving = self._redis_pubsub.pending_unsubscribe_channels
        return [
            name for name in self._redis_pubsub.channels
            if isinstance(name, str) and name.startswith(REDIS_PREFIX) and name not in leaving
            and name[len(REDIS_PREFIX):] not in self._channels and name not in self._confirmations
        ]

    def _unsubscribed(self) -> list[str]:
        """Redis names of the channels with a subscriber here that Redis does not deliver to us (nor is asked to)."""
        held = {name for name in self._redis_pubsub.channels if isinstance(name, str)}
        return [
            REDIS_PREFIX + channel for channel in self._channels
            if REDIS_PREFIX + channel not in held and REDIS_PREFIX + channel not in self._confirmations
        ]

    async def _read(self) -> None:
        """Fan the messages of the subscriber connection out to the local subscriptions; reconnect when it breaks.

        It ends when the pubsub closes, not only when cancelled: redis-py can lose a cancellation that meets a
        reply (``get_message`` returns the reply), and :meth:`aclose` would then wait for this task forever.
        """
        failures = 0
        while not self._closed:
            try:
                if self._maybe_unsubscribed:
                    self._maybe_unsubscribed = False  # set again if subscribing fails
                    missing = self._unsubscribed()
                    if missing:
                        await self._redis_pubsub.subscribe(*missing)
                if not self._interest_asked:
                    await self._redis_pubsub.subscribe(REDIS_INTEREST)  # and again by redis-py on reconnecting
                    self._interest_asked = True
                if self._redis_pubsub.connection is None:  # no subscription has connected yet
                    raise ConnectionError("not connected to Redis yet")
                if self._left_subscribed and self._connected():
                    unwanted = self._unwanted()
                    if unwanted:
                        self._confirmed.difference_update(unwanted)
                        await self._redis_pubsub.unsubscribe(*unwanted)
                    self._left_subscribed = False
                message: dict[str, Any] | None = await self._redis_pubsub.get_message(timeout=REDIS_TIMEOUT_SECONDS)
            except (RedisError, OSError) as error:
                self._maybe_unsubscribed = True
                self._confirmed.clear()
                for channel, kept in self._lone.deafened():  # a listener elsewhere may have missed it
                    self._keep(REDIS_PREFIX + channel, f"{self._tag} {kept}")
                # An UNSUBSCRIBE written just before the break may be lost, and reconnecting subscribes again every
                # channel redis-py has not heard leave: look for channels nobody here wants once Redis is back.
                self._left_subscribed = True
                failures += 1
                if failures == 1:
                    _log.warning("Redis subscriber connection lost, retrying: %s", error)
                await asyncio.sleep(_backoff(failures))
                continue
            if failures:
                _log.warning("Redis subscriber connection back after %d failed tries", failures)
                failures = 0
            if message is not None:
                self._dispatch(message)
            while self._notes:
                await self._to_redis(*self._notes.popleft())

    def _dispatch(self, message: dict[str, Any]) -> None:
        name = message["channel"]
        if name == REDIS_INTEREST:
            self._dispatch_interest(message)
            return
        if not isinstance(name, str) or not name.startswith(REDIS_PREFIX):
            return
        channel = name[len(REDIS_PREFIX) :]
        if message["type"] == "message":
            tag, _, text = str(message["data"]).partition(" ")
            if tag != self._tag:  # ours reached our subscribers when published
                self._deliver(channel, text)
        elif message["type"] == "subscribe":
            if channel in self._channels:  # not left meanwhile: tell the others it listens
                self._confirmed.add(name)
                self._notes.append((REDIS_INTEREST, f"{self._tag} {channel}"))
            confirmed = self._confirmations.get(name)
            if confirmed is not None and not confirmed.done():
                confirmed.set_result(None)
            else:
                # A subscription made late, or again after a reconnect: messages may have passed unseen.
                for subscription in self._channels.get(channel, ()):
                    subscription._lose()

    def _dispatch_interest(self, message: dict[str, Any]) -> None:
        """Another process's announcement that it listens to a channel, or Redis's confirmation that we hear them."""
        if message["type"] == "subscribe":
            self._lone.listen()
        elif message["type"] == "message":
            tag, _, channel = str(message["data"]).partition(" ")
            if tag != self._tag and (kept := self._lone.heard(channel)) is not None:
                self._notes.append((REDIS_PREFIX + channel, f"{self._tag} {kept}"))

    async def aclose(self) -> None:
        """End every subscription, hand what is left in the outbox to Redis (briefly), and close both connections."""
        self._end_all()
        for confirmed in self._confirmations.values():
            if not confirmed.done():
                confirmed.set_exception(RuntimeError("the pubsub is closed"))
        if self._flusher is not None:
            flusher = self._flusher
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(flusher), REDIS_TIMEOUT_SECONDS)
            flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await flusher
        if self._sender is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._drained(), REDIS_TIMEOUT_SECONDS)
            self._sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sender
        async with self._lock:  # let a subscription being opened finish connecting first
            if self._reader is not None:
                self._reader.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._reader
            await self._redis_pubsub.aclose()
            await self._subscriber.aclose()
            await self._publisher.aclose()

    async def _drained(self) -> None:
        while self._outbox:
            await asyncio.sleep(0.01)


def _settle(heard: asyncio.Future[int | None], count: int | None) -> None:
    if not heard.done():
        heard.set_result(count)


def _backoff(failures: int) -> float:
    """Seconds to wait after ``failures`` failed tries in a row: doubling from 50 ms to the cap."""
    return float(min(REDIS_BACKOFF_MAX_SECONDS, 0.05 * 2 ** min(failures - 1, 10)))


def make_pubsub(redis_url: str | None, *, timed: Callable[[float], None] = _untimed) -> PubSub:
    """Redis publish/subscribe when a URL is configured, in-process otherwise; ``timed`` is told the seconds of
    each round trip that publishes to Redis."""
    if redis_url:
        return RedisPubSub(redis_url, timed=timed)
    return InProcessPubSub()


def publish_from_outside(redis_url: str, channel: str, messages: list[str]) -> bool:
    """Publish ``messages`` on ``channel`` through Redis from a process that serves nothing (``nardy admin``),
    tagged as a :class:`RedisPubSub` tags its own but with a tag no server holds, so that every server delivers
    them; whether Redis took them all."""
    import redis

    tag = secrets.token_hex(8)
    client = redis.Redis.from_url(redis_url, socket_timeout=REDIS_TIMEOUT_SECONDS)
    try:
        for message in messages:
            client.publish(REDIS_PREFIX + channel, f"{tag} {message}")
    except redis.RedisError:
        return False
    finally:
        client.close()
    return True
