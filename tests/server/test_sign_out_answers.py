"""A sign-out announcement returns only once every process that heard it has stopped acting for the session.

Two :class:`SignOuts`, each on its own :class:`RedisPubSub`, stand for two
server processes. When A's announcement returns, B's connections of the
session have been told already: an action sent to B at once, after the
logout answered, finds them signed out (tests/server/test_logout_sockets.py
drives the same through two live servers). A listener that never answers
holds the announcement up for ``answer_seconds`` at most, and is logged.
Other test processes may share the Redis server and its channel; they only
add answers.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable

import pytest
import redis.asyncio as aioredis
from sqlalchemy.orm import sessionmaker

from nardy.server.auth.signouts import SIGN_OUT_CHANNEL, SignOuts
from nardy.server.pubsub import REDIS_PREFIX, InProcessPubSub, PubSub, RedisPubSub
from tests.server.live_pair import redis_url  # noqa: F401 - a fixture, used by name

TIMEOUT = 10.0


class Holder:
    """A connection of one session: notes when it is told the session ended."""

    def __init__(self) -> None:
        self.told = False

    def signed_out(self) -> None:
        self.told = True

    def recheck_session(self) -> None:
        """Not asked here."""


def started(pubsub: PubSub) -> SignOuts:
    """Sign-outs of one process; the sweep (which would query the database) does not come due in a test."""
    return SignOuts(pubsub, sessionmaker(), sweep_seconds=3600)


def run(scenario: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(scenario(), TIMEOUT))


def test_the_other_process_has_told_its_connections_when_the_announcement_returns(redis_url: str) -> None:
    async def scenario() -> None:
        pubsubs = RedisPubSub(redis_url), RedisPubSub(redis_url)
        a, b = started(pubsubs[0]), started(pubsubs[1])
        await a.start()
        await b.start()
        try:
            digest = hashlib.sha256(secrets.token_bytes(16)).hexdigest()
            on_a, on_b = Holder(), Holder()
            a.hold(digest, on_a)
            b.hold(digest, on_b)
            await a.announce_digest(digest)
            assert on_a.told and on_b.told
        finally:
            await a.close()
            await b.close()
            for pubsub in pubsubs:
                await pubsub.aclose()

    run(scenario)


def test_a_listener_that_never_answers_holds_the_announcement_up_only_briefly(
    redis_url: str, caplog: pytest.LogCaptureFixture,
) -> None:
    async def scenario() -> None:
        silent = aioredis.Redis.from_url(redis_url).pubsub()
        await silent.subscribe(REDIS_PREFIX + SIGN_OUT_CHANNEL)
        pubsub = RedisPubSub(redis_url)
        a = started(pubsub)
        await a.start()
        try:
            began = time.monotonic()
            with caplog.at_level(logging.WARNING, logger="nardy.server.auth.signouts"):
                await a.announce_digest(hashlib.sha256(b"silent").hexdigest(), answer_seconds=0.3)
            assert 0.3 <= time.monotonic() - began < 3.0
            assert "did not answer a sign-out notice" in caplog.text
        finally:
            await a.close()
            await pubsub.aclose()
            await silent.aclose()

    run(scenario)


def test_one_process_waits_for_nobody() -> None:
    async def scenario() -> None:
        pubsub = InProcessPubSub()
        a = started(pubsub)
        await a.start()
        try:
            holder = Holder()
            digest = hashlib.sha256(b"alone").hexdigest()
            a.hold(digest, holder)
            began = time.monotonic()
            await a.announce_digest(digest, answer_seconds=5.0)
            assert holder.told and time.monotonic() - began < 1.0
        finally:
            await a.close()
            await pubsub.aclose()

    run(scenario)
