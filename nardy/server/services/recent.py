"""A value worked out at most once in a while: the site-wide figures that scan the whole event log.

``GET /api/stats/dice`` reads every roll ever made; answered afresh for each
request, a public page would let any visitor make the database scan its
largest table as often as they like. The figures move slowly, so each
process works them out at most once per ``seconds`` and serves that answer
meanwhile.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Recent(Generic[T]):
    """Holds the last answer of a computation and its time; recomputes it once it is ``seconds`` old.

    Thread-safe (the routes that use it run in the request threads): while one
    thread recomputes, the others wait for its answer rather than scan too.
    """

    def __init__(self, seconds: float, *, now: Callable[[], float] = time.monotonic) -> None:
        self._seconds = seconds
        self._now = now
        self._lock = threading.Lock()
        self._value: T | None = None
        self._at: float | None = None

    def get(self, compute: Callable[[], T]) -> T:
        """The held answer while it is recent, else ``compute()``'s, which is then held."""
        with self._lock:
            now = self._now()
            if self._value is None or self._at is None or now - self._at >= self._seconds:
                self._value = compute()
                self._at = now
            return self._value
