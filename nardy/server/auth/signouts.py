"""Sign-out notices: a login session that ends closes its WebSockets at once, in every server process.

``POST /api/logout`` closes the session in the database and then calls
:func:`announce_sign_out`. That tells this process's connections of the
session straight away and publishes the SHA-256 of the session token (the
digest the ``sessions`` table stores; never the token) on the publish/subscribe
channel :data:`SIGN_OUT_CHANNEL`, which every process's :class:`SignOuts`
listens to; each tells its own connections of that session
(:class:`SessionHolder`), which stop acting for it and close with 4001.

Notices reach other processes late while Redis is unreachable (the
publisher keeps them until it is back), and a process whose own subscription
to Redis broke may have missed some. Then every connection is
asked to look its session up again (:meth:`SessionHolder.recheck_session`).
And once every :data:`SWEEP_SECONDS` one query looks up every session this
process's connections hold; those that ended (signed out, or expired) are
told so, as by a notice. So a notice that never came delays the end of a
session's rights by a minute at most, for one query a minute per process
rather than one per connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
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


_DIGEST = re.compile(r"[0-9a-f]{64}")


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

    async def announce_digest(self, digest: str) -> None:
        """The session stored as ``digest`` has ended (another session of its account changed the password or
        deleted the account): as :meth:`announce`."""
        self._notify(digest)
        await self._pubsub.publish(SIGN_OUT_CHANNEL, digest)

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
                    if _DIGEST.fullmatch(message):
                        self._notify(message)
        finally:
            ready.set()


def announce_sign_out(app: Starlette, token: str) -> None:
    """:meth:`SignOuts.announce` on ``app``'s event loop, from a worker thread (a sync route)."""
    sign_outs: SignOuts = app.state.sign_outs
    anyio.from_thread.run(sign_outs.announce, token)


def announce_sign_outs(app: Starlette, digests: list[str]) -> None:
    """:meth:`SignOuts.announce_digest` for each of ``digests``, from a worker thread (a sync route)."""
    sign_outs: SignOuts = app.state.sign_outs
    for digest in digests:
        anyio.from_thread.run(sign_outs.announce_digest, digest)


def announce_from_outside(redis_url: str | None, digests: list[str]) -> bool:
    """Tell every server process that the sessions of ``digests`` ended, from a process that serves none (``nardy
    admin ban``); whether they were told now. Otherwise (no Redis, or Redis away) each process's sweep finds the
    sessions gone within :data:`SWEEP_SECONDS`."""
    if not digests:
        return True
    return redis_url is not None and publish_from_outside(redis_url, SIGN_OUT_CHANNEL, digests)
