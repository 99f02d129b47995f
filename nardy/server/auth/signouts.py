"""Sign-out notices: a login session that ends closes its WebSockets at once, in every server process.

``POST /api/logout`` closes the session in the database and then calls
:func:`announce_sign_out`. That tells this process's connections of the
session straight away and publishes the SHA-256 of the session token (the
digest the ``sessions`` table stores; never the token) on the publish/subscribe
channel :data:`SIGN_OUT_CHANNEL`, which every process's :class:`SignOuts`
listens to; each tells its own connections of that session
(:class:`SessionHolder`), which stop acting for it and close with 4001.

Each process answers the notice once its connections stopped acting for the
session, and the announcement waits for every process that heard it to answer
(at most :data:`ANSWER_SECONDS`). So when the logout has answered, no process
applies an action of the session any more, even one sent at once to a
process that the notice had not reached yet when the logout began.

Notices reach other processes late while Redis is unreachable (the
publisher keeps them until it is back; the announcement does not wait for
them then), and a process whose own subscription
to Redis broke may have missed some. Then every connection is
asked to look its session up again (:meth:`SessionHolder.recheck_session`).
And once every :data:`SWEEP_SECONDS` one query looks up every session this
process's connections hold; those that ended (signed out, or expired) are
told so, as by a notice. So a notice that never came delays the end of a
session's rights by a minute at most, for one query a minute per process
rather than one per connection.

The channel carries three kinds of message: ``<digest>`` (a notice that
wants no answer: ``nardy admin ban`` sends those), ``<digest> <request>``
(a notice to answer) and ``heard <request>`` (the answer).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
import secrets
from typing import Final, Protocol

import anyio.from_thread
from sqlalchemy.orm import Session, sessionmaker
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool

from nardy.server.pubsub import PubSub, SubscriptionOverflow, publish_from_outside
from nardy.server.runtime.periodic import Periodic
from nardy.server.services import accounts

SIGN_OUT_CHANNEL: Final = "control:signed-out"
"""Publish/subscribe channel of the notices; table channels are ``table:<id>``, so it cannot clash."""
SWEEP_SECONDS: Final = 60.0
"""How often the sessions that connections hold are looked up, all in one query."""
ANSWER_SECONDS: Final = 2.0
"""How long an announcement waits for the other processes to answer that their connections stopped acting for
the session; one that has not answered by then is left to its sweep."""


log = logging.getLogger(__name__)

_NOTICE = re.compile(r"(?P<digest>[0-9a-f]{64})(?: (?P<request>[0-9a-f]{32}))?")
_ANSWER = re.compile(r"heard (?P<request>[0-9a-f]{32})")


def session_digest(token: str) -> str:
    """The SHA-256 of a session token, as the ``sessions`` table stores it and the notices carry it."""
    return hashlib.sha256(token.encode()).hexdigest()


class SessionHolder(Protocol):
    """A connection opened with a login session."""

    def signed_out(self) -> None:
        """The session has ended: act for it no more, and close."""

    def recheck_session(self) -> None:
        """Notices may have been missed: look the session up again now."""


class SignOuts:
    """This process's connections by session digest, the listener of the sign-out channel, and the sweep of
    their sessions."""

    def __init__(
        self, pubsub: PubSub, sessions: sessionmaker[Session], *, sweep_seconds: float = SWEEP_SECONDS,
    ) -> None:
        self._pubsub = pubsub
        self._sessions = sessions
        self._holders: dict[str, set[SessionHolder]] = {}
        self._listener: asyncio.Task[None] | None = None
        self._awaited: dict[str, _Answers] = {}
        """The answers this process's announcements wait for, by request."""
        self._sweeps = Periodic(self.sweep, sweep_seconds, name="the sweep of the sessions held here")

    def hold(self, digest: str, holder: SessionHolder) -> None:
        """Tell ``holder`` when the session of ``digest`` signs out."""
        self._holders.setdefault(digest, set()).add(holder)

    def release(self, digest: str, holder: SessionHolder) -> None:
        """Forget ``holder`` (its connection closed)."""
        holders = self._holders.get(digest)
        if holders is not None:
            holders.discard(holder)
            if not holders:
                del self._holders[digest]

    async def start(self) -> None:
        """Listen to the channel and sweep; returns once the first subscription was made (or failed, then retried)."""
        ready = asyncio.Event()
        self._listener = asyncio.create_task(self._listen(ready), name="nardy-sign-outs")
        self._sweeps.start()
        await ready.wait()

    async def close(self) -> None:
        """Stop listening and sweeping."""
        await self._sweeps.stop()
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None

    async def sweep(self) -> None:
        """Look up every session held here in one query; tell the holders of those that ended."""
        digests = list(self._holders)
        if not digests:
            return
        live = await run_in_threadpool(self._live, digests)
        for digest in digests:
            if digest not in live:
                self._notify(digest)

    async def announce(self, token: str) -> None:
        """The session of ``token`` has ended: tell this process's connections now, and every other process."""
        await self.announce_digest(session_digest(token))

    async def announce_digest(self, digest: str, *, answer_seconds: float = ANSWER_SECONDS) -> None:
        """The session stored as ``digest`` has ended (another session of its account changed the password or
        deleted the account): as :meth:`announce`.

        Returns once every other process that heard the notice answered, or after ``answer_seconds``.
        """
        self._notify(digest)
        request = secrets.token_hex(16)
        answers = self._awaited[request] = _Answers()
        try:
            heard = await self._pubsub.publish_to_others(SIGN_OUT_CHANNEL, f"{digest} {request}")
            if heard and not await answers.wait_for(heard, answer_seconds):
                log.warning("%d of %d processes did not answer a sign-out notice within %.1f s; their sweeps end "
                            "the session", heard - answers.count, heard, answer_seconds)
        finally:
            del self._awaited[request]

    async def announce_digests(self, digests: list[str]) -> None:
        """:meth:`announce_digest` for each of ``digests``, together: their answers are awaited at once."""
        await asyncio.gather(*(self.announce_digest(digest) for digest in digests))

    def _notify(self, digest: str) -> None:
        for holder in list(self._holders.get(digest, ())):
            holder.signed_out()

    def _live(self, digests: list[str]) -> set[str]:
        with self._sessions() as db:
            return accounts.live_session_digests(db, digests)

    def _recheck_all(self) -> None:
        for holders in list(self._holders.values()):
            for holder in list(holders):
                holder.recheck_session()

    async def _listen(self, ready: asyncio.Event) -> None:
        try:
            async with self._pubsub.subscribe(SIGN_OUT_CHANNEL) as subscription:
                ready.set()
                while True:
                    try:
                        message = await anext(subscription)
                    except SubscriptionOverflow:  # Redis was away: notices may have gone by
                        self._recheck_all()
                        continue
                    except StopAsyncIteration:
                        return
                    await self._heard(message)
        finally:
            ready.set()

    async def _heard(self, message: str) -> None:
        """Act on one message of another process: a notice (answered when it asks), or an answer to an
        announcement of this process."""
        if notice := _NOTICE.fullmatch(message):
            self._notify(notice["digest"])
            if notice["request"] is not None:
                await self._pubsub.publish_to_others(SIGN_OUT_CHANNEL, f"heard {notice['request']}")
        elif (answer := _ANSWER.fullmatch(message)) and (answers := self._awaited.get(answer["request"])):
            answers.add()


class _Answers:
    """How many processes have answered one announcement, and a way to wait for enough of them."""

    def __init__(self) -> None:
        self._count = 0
        self._changed = asyncio.Event()

    @property
    def count(self) -> int:
        """The processes that answered so far."""
        return self._count

    def add(self) -> None:
        """One more process answered."""
        self._count += 1
        self._changed.set()

    async def wait_for(self, count: int, seconds: float) -> bool:
        """Wait until ``count`` processes have answered, at most ``seconds``; whether they did."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                while self._count < count:
                    self._changed.clear()
                    await self._changed.wait()
        return self._count >= count


def announce_sign_out(app: Starlette, token: str) -> None:
    """:meth:`SignOuts.announce` on ``app``'s event loop, from a worker thread (a sync route)."""
    sign_outs: SignOuts = app.state.sign_outs
    anyio.from_thread.run(sign_outs.announce, token)


def announce_sign_outs(app: Starlette, digests: list[str]) -> None:
    """:meth:`SignOuts.announce_digests`, from a worker thread (a sync route)."""
    sign_outs: SignOuts = app.state.sign_outs
    anyio.from_thread.run(sign_outs.announce_digests, digests)


def announce_from_outside(redis_url: str | None, digests: list[str]) -> bool:
    """Tell every server process that the sessions of ``digests`` ended, from a process that serves none (``nardy
    admin ban``); whether they were told now. Otherwise (no Redis, or Redis away) each process's sweep finds the
    sessions gone within :data:`SWEEP_SECONDS`."""
    if not digests:
        return True
    return redis_url is not None and publish_from_outside(redis_url, SIGN_OUT_CHANNEL, digests)
