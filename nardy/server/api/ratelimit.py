"""Rate limits on HTTP routes: moving windows counted in Redis, shared by every server process, or in memory.

A :class:`Limit` names what it counts (``"login-failures"``), its rate in the
notation of the ``limits`` library (``"10 per 15 minutes"``) and the words of
its refusal. The routes count against it per key (a lower-cased username, a
client address) through the app's :class:`RateLimiter`; a refused request
raises :class:`RateLimited`, answered 429 with a ``Retry-After`` header, and
counts nothing.

With a Redis URL the counters live in Redis under ``nardy:limits``, so a limit
holds however many server processes share that Redis. When Redis cannot be
reached the limiter counts in this process's memory instead (and logs a
warning): the limits keep holding, per process, rather than the route failing
or every request going through. Redis is tried again
:data:`REDIS_RETRY_SECONDS` later.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Final, TypeVar

from fastapi import Depends, HTTPException, Request, status
from limits import RateLimitItem, parse
from limits.errors import StorageError
from limits.storage import MemoryStorage, RedisStorage
from limits.strategies import MovingWindowRateLimiter

REDIS_KEY_PREFIX: Final = "nardy:limits"
"""Prefix of the counters' Redis keys, beside the ``nardy:`` publish/subscribe channels."""

REDIS_TIMEOUT_SECONDS: Final = 0.5
"""How long a request waits for Redis before counting in memory."""

REDIS_RETRY_SECONDS: Final = 5.0
"""How long the limiter counts in memory after Redis failed before it asks Redis again."""

_log = logging.getLogger(__name__)
_T = TypeVar("_T")


@dataclass(frozen=True)
class Limit:
    """One rate limit: the name of its counters, its rate and what its refusal says."""

    name: str
    rate: RateLimitItem
    refusal: str

    @classmethod
    def of(cls, name: str, rate: str, refusal: str) -> Limit:
        """The limit ``name`` at ``rate`` (``limits`` notation, checked by the settings)."""
        return cls(name=name, rate=parse(rate), refusal=refusal)


class RateLimited(HTTPException):
    """429: the limit has no room for this request now; ``Retry-After`` says in how many seconds it will."""

    def __init__(self, limit: Limit, retry_after: int) -> None:
        super().__init__(
            status_code=status.HTTP_429_TOO_MANY_REQUESTS,
            detail=f"{limit.refusal}; try again in {retry_after} s",
            headers={"Retry-After": str(retry_after)},
        )


class RateLimiter:
    """Moving-window counters, in Redis when ``redis_url`` is given, else in memory; all off unless ``enabled``."""

    def __init__(self, redis_url: str | None = None, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self._memory = MovingWindowRateLimiter(MemoryStorage())
        self._redis = None if redis_url is None else MovingWindowRateLimiter(
            RedisStorage(
                redis_url,
                key_prefix=REDIS_KEY_PREFIX,
                wrap_exceptions=True,
                socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
                socket_timeout=REDIS_TIMEOUT_SECONDS,
            )
        )
        self._redis_retry_at = 0.0

    def require_room(self, limit: Limit, key: str) -> None:
        """Raise :class:`RateLimited` when ``limit`` has no room left for ``key``; counts nothing."""
        if self.enabled and not self._run(lambda counters: counters.test(limit.rate, limit.name, key)):
            raise self._refusal(limit, key)

    def spend(self, limit: Limit, key: str) -> None:
        """Count one request of ``key`` against ``limit``, or raise :class:`RateLimited` and count nothing."""
        if self.enabled and not self._run(lambda counters: counters.hit(limit.rate, limit.name, key)):
            raise self._refusal(limit, key)

    def forget(self, limit: Limit, key: str) -> None:
        """Start ``key``'s count of ``limit`` afresh (a successful login forgets the failures before it)."""
        if self.enabled:
            self._run(lambda counters: counters.clear(limit.rate, limit.name, key))

    def _refusal(self, limit: Limit, key: str) -> RateLimited:
        stats = self._run(lambda counters: counters.get_window_stats(limit.rate, limit.name, key))
        return RateLimited(limit, retry_after=max(1, math.ceil(stats.reset_time - time.time())))

    def _run(self, action: Callable[[MovingWindowRateLimiter], _T]) -> _T:
        """``action`` on the Redis counters, or on the memory ones without Redis or while it is unreachable."""
        if self._redis is not None and time.monotonic() >= self._redis_retry_at:
            try:
                return action(self._redis)
            except StorageError as error:
                self._redis_retry_at = time.monotonic() + REDIS_RETRY_SECONDS
                _log.warning(
                    "rate limits: Redis unreachable (%s); counting in this process for %.0f s",
                    error, REDIS_RETRY_SECONDS,
                )
        return action(self._memory)


def get_rate_limiter(request: Request) -> RateLimiter:
    """The app's rate limiter (``app.state.rate_limiter``, built by ``create_app``)."""
    limiter: RateLimiter = request.app.state.rate_limiter
    return limiter


def client_address(request: Request) -> str:
    """The address the request came from, as the server saw it (behind a trusted proxy: the client's)."""
    return request.client.host if request.client is not None else ""


RateLimiterDep = Annotated[RateLimiter, Depends(get_rate_limiter)]
