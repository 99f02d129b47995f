"""The chat of a two-seat table: its two players write, its readers read (``docs/protocol.md``, *Chat*).

A message is free text (one line, at most ``chat_max_length`` characters)
or a quick phrase, sent as its id so that every reader sees it in their own
language. Messages are stored beside the table's event log
(``chat_messages``), never in it: writing changes no table version, so the
events, acks and resync of the table are exactly as without a chat.

Who reads: the players always; spectators (visitors and signed-in users who
do not sit at the table) at an unrated table, and at a rated one only while
both players allow it, each with the ``chat_spectators`` action, an event of
the table's log (:meth:`~nardy.server.services.table_state.TableState.chat_public`).
A message goes out to the table's watchers like a chouette's team message:
to every watcher when spectators may read it, else to the two players'
connections alone (:meth:`~nardy.server.services.publisher.Publisher.chat_said`).

Each player's messages at a table are limited by a token bucket in the
process that serves the player (``chat_messages_per_minute``, bursts of
``chat_burst``); a message over the limit is refused ``chat_rate_limited``
and neither stored nor sent. A message sent again with the same action id
is acknowledged and neither stored nor sent again.
"""

from __future__ import annotations

import math
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from nardy.server.services import moderation
from nardy.server.services.clock import Clock
from nardy.server.services.database import DatabaseThreads
from nardy.server.services.publisher import Publisher
from nardy.server.services.table_state import ActionError, TableState
from nardy.store import chat_repo
from nardy.store.chat_repo import StoredChat
from nardy.store.models import ChatMessage


@dataclass(frozen=True, slots=True)
class ChatLimits:
    """How long a message may be, how fast a player may write, and how much history a subscriber gets."""

    max_length: int
    per_minute: float
    burst: int
    history: int


class ChatBuckets:
    """A token bucket per (table, user): ``per_minute`` messages a minute, in bursts of up to ``burst``.

    Only a message that is sent spends a token; a refused one costs nothing,
    so a player who waits is never refused. Full buckets are forgotten when
    many are held (a full bucket is what a new one is).
    """

    KEEP = 4096
    """Buckets held before the full ones are forgotten."""

    def __init__(self, per_minute: float, burst: int, now: Callable[[], float] = time.monotonic) -> None:
        self._rate = per_minute / 60.0
        self._burst = float(burst)
        self._now = now
        self._buckets: dict[tuple[str, int], tuple[float, float]] = {}

    def _level(self, key: tuple[str, int], now: float) -> float:
        tokens, last = self._buckets.get(key, (self._burst, now))
        return min(self._burst, tokens + (now - last) * self._rate)

    def wait(self, table_id: str, user_id: int) -> float:
        """Seconds until ``user_id`` may write at ``table_id`` again; 0 when they may now."""
        missing = 1.0 - self._level((table_id, user_id), self._now())
        return max(0.0, missing / self._rate)

    def spend(self, table_id: str, user_id: int) -> None:
        """Take the token of one message sent (after :meth:`wait` said 0)."""
        now = self._now()
        key = (table_id, user_id)
        self._buckets[key] = (self._level(key, now) - 1.0, now)
        if len(self._buckets) > self.KEEP:
            self._buckets = {k: v for k, v in self._buckets.items() if self._level(k, now) < self._burst}


def chat_text(text: str, max_length: int) -> str:
    """The free text of a message, without surrounding blanks; ActionError when it is empty, too long or
    holds line breaks or other control characters."""
    words = text.strip()
    if not words:
        raise ActionError("bad_chat", "a chat message needs some text")
    if len(words) > max_length:
        raise ActionError("chat_too_long", f"a chat message is at most {max_length} characters, not {len(words)}")
    if any(unicodedata.category(c) == "Cc" for c in words):
        raise ActionError("bad_chat", "a chat message is one line without control characters")
    return words


def readers(state: TableState) -> frozenset[int] | None:
    """Who may read the table's chat now: None for everyone, else the user ids of its players."""
    if state.chat_public():
        return None
    return frozenset(seat.user_id for seat in state.seats if seat is not None and seat.user_id is not None)


def may_read(state: TableState, user_id: int | None) -> bool:
    """Whether ``user_id`` (None: a visitor) may read the table's chat now."""
    allowed = readers(state)
    return allowed is None or (user_id is not None and user_id in allowed)


class TableReader(Protocol):
    """Where the chat reads a table's current state (the table service)."""

    async def current(self, table_id: str) -> TableState: ...


def chat_message(stored: StoredChat) -> dict[str, Any]:
    """One message as clients receive it (``text`` or ``phrase``, the other null)."""
    return {
        "id": stored.id,
        "seat": stored.seat,
        "user_id": stored.user_id,
        "name": stored.name,
        "text": stored.text,
        "phrase": stored.phrase,
        "at": stored.at.isoformat(),
    }


class ChatService:
    """Stores and sends the players' messages; answers who may read which."""

    def __init__(
        self,
        *,
        db: DatabaseThreads,
        publisher: Publisher,
        tables: TableReader,
        clock: Clock,
        limits: ChatLimits,
    ) -> None:
        self._db = db
        self._publisher = publisher
        self._tables = tables
        self._clock = clock
        self.limits = limits
        self._buckets = ChatBuckets(limits.per_minute, limits.burst)

    async def say(self, table_id: str, *, user_id: int, action: dict[str, Any], action_id: str) -> int:
        """Store and send ``user_id``'s ``say``; the table's version (unchanged). Raises ActionError.

        Refused: ``not_seated`` (not one of the two players), ``muted`` (by a
        moderator), ``blocked`` (one player blocks the other), ``bad_chat`` or
        ``chat_too_long`` (the text), ``chat_rate_limited``. Nothing is stored
        or sent then. A repeated action id is acknowledged again, whatever the
        message says now, and nothing more.
        """
        state = await self._tables.current(table_id)
        seat = state.seat_of(user_id)
        player = state.seats[seat] if seat is not None else None
        if seat is None or player is None:
            raise ActionError("not_seated", "only the two players of this table can write in its chat")
        key = f"u{user_id}:{action_id}"
        if await self._db.run(lambda db: chat_repo.message_of_action(db, table_id, key)) is not None:
            return state.version
        other = state.seats[1 - seat]
        other_id = None if other is None else other.user_id
        now = self._clock.now()
        refusal = await self._db.run(lambda db: moderation.chat_refusal(db, user_id, other_id, now))
        if refusal is not None:
            raise ActionError(*refusal)
        phrase: str | None = action.get("phrase")
        text = None if phrase is not None else chat_text(action["text"], self.limits.max_length)
        wait = self._buckets.wait(table_id, user_id)
        if wait > 0:
            raise ActionError(
                "chat_rate_limited", f"too many chat messages: wait {math.ceil(wait)} s before the next one",
            )
        self._buckets.spend(table_id, user_id)
        row = ChatMessage(
            table_id=table_id, user_id=user_id, seat=seat, name=player.name, text=text, phrase=phrase,
            action_id=key, created_at=now,
        )
        stored, fresh = await self._db.run(lambda db: chat_repo.add_message(db, row))
        if fresh:
            await self._publisher.chat_said(table_id, stored, readers(state))
        return state.version

    async def history(
        self, table_id: str, user_id: int | None, *, last: int | None = None,
    ) -> list[dict[str, Any]] | None:
        """The table's messages (the ``last`` ones, when given) as ``user_id`` (None: a visitor) may read
        them now; None when they may not."""
        state = await self._tables.current(table_id)
        if not may_read(state, user_id):
            return None
        stored = await self._db.run(lambda db: chat_repo.messages_of(db, table_id, last=last))
        return [chat_message(s) for s in stored]
