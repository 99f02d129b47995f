"""Which channels no other server process listens to, so that their messages need not go through Redis.

With WebSockets sticky by table, a table's players and most of its watchers
are connected to the process that serves it, and nobody elsewhere reads the
message each action publishes. Sending it to Redis anyway cost each of two
processes 0.2 ms of CPU per action, a fifth of the rest (benchmarks/RESULTS.md).

Redis answers a PUBLISH with the number of connections subscribed to the
channel, so a process learns from its own publishes that nobody else listens:
the channel is then *lone*, and its versioned messages stay in the process.
Only those: a table's ``events`` messages carry the table's version, so a
listener that missed some tells from the next one that it did, and resyncs
(docs/protocol.md); a chat line carries nothing of the kind, and always goes
through Redis. A channel stops being lone as soon as another process says it
listens: every process subscribes to one interest channel, and announces
there each channel Redis confirmed it subscribed to. A message kept back
between that subscription and the announcement's arrival would be lost to
the new listener, so when a channel that kept messages back stops being
lone, the process sends the last of them through Redis: the new listener
finds it a repeat of what it loaded, or the gap it must resync
(:class:`~nardy.server.pubsub.RedisPubSub`).

What was learned is forgotten whenever it may be stale: when an announcement
arrived while a publish was on its way (:attr:`LoneChannels.generation`), and
when the process cannot hear announcements (its subscriber connection broke).
Keeping a message back is never assumed: a process that cannot tell sends
everything, as before. A channel idle for :data:`IDLE_SECONDS` is forgotten
too (finished tables' channels would otherwise pile up); only a listener
whose announcement took that long to arrive could then miss the last message
kept back, and learn of the gap only from the channel's next message.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

IDLE_SECONDS: Final = 600.0
"""A lone channel with no message for this long is forgotten (its next message goes to Redis again)."""


@dataclass(slots=True)
class _Lone:
    used_at: float
    last_kept: str | None = None


class LoneChannels:
    """The channels whose last message through Redis reached no other process (the module's docstring)."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic, idle_seconds: float = IDLE_SECONDS) -> None:
        self._clock = clock
        self._idle_seconds = idle_seconds
        self._lone: dict[str, _Lone] = {}
        self._listening = False
        self.generation = 0
        """Changes whenever something learned from a publish under way may have gone stale."""

    def listen(self) -> None:
        """The announcements reach this process from now on."""
        self._listening = True
        self.generation += 1

    def deafened(self) -> list[tuple[str, str]]:
        """The announcements may not reach this process any more: forget every lone channel.

        Returns each channel that kept messages back with the last of them, for its listeners elsewhere (if any)."""
        self._listening = False
        self.generation += 1
        kept = [(channel, lone.last_kept) for channel, lone in self._lone.items() if lone.last_kept is not None]
        self._lone.clear()
        return kept

    def keeps(self, channel: str, message: str) -> bool:
        """Whether ``message``, a versioned message of ``channel``, may stay in this process (it is then kept back)."""
        if not self._listening:
            return False
        lone = self._lone.pop(channel, None)
        if lone is None:
            return False
        now = self._clock()
        if now - lone.used_at >= self._idle_seconds:
            self._forget_idle(now)
            return False
        lone.used_at, lone.last_kept = now, message
        self._lone[channel] = lone  # the most recently used last: the idle ones are at the front
        return True

    def published(self, channel: str, receivers: int, ours: int | None, since: int) -> None:
        """A message of ``channel`` went through Redis and reached ``receivers`` subscriber connections.

        ``ours`` is 1 if this process's own subscriber connection was among
        them both when the message was sent and when Redis answered, 0 if it
        was not, ``None`` if that changed meanwhile; ``since`` is the
        :attr:`generation` when the message was sent."""
        if not self._listening or since != self.generation or ours is None or receivers != ours:
            return
        now = self._clock()
        earlier = self._lone.pop(channel, None)
        self._lone[channel] = _Lone(now, earlier.last_kept if earlier is not None else None)
        self._forget_idle(now)

    def heard(self, channel: str) -> str | None:
        """Another process listens to ``channel`` now; the last message kept back, if any, for its listeners."""
        self.generation += 1
        lone = self._lone.pop(channel, None)
        return lone.last_kept if lone is not None else None

    def _forget_idle(self, now: float) -> None:
        while self._lone:
            channel, lone = next(iter(self._lone.items()))
            if now - lone.used_at < self._idle_seconds:
                return
            del self._lone[channel]
