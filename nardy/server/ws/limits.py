"""The WebSocket endpoint's limits on one client: its message rate, and its connections per address.

:class:`TokenBucket` counts every frame a connection sends, dropped ones
included, so that sending faster than the rate never pays: a sender that
keeps going while refused is told to stop (:attr:`Verdict.EXHAUSTED`) and
disconnected. :class:`AddressSlots` counts the connections each client
address holds open in this process, so that one address cannot hold
thousands of sockets.
"""

from __future__ import annotations

import enum
import time


class Verdict(enum.Enum):
    """What to do with one inbound frame."""

    ALLOWED = "allowed"
    """Within the rate: serve it."""
    DROPPED = "dropped"
    """Over the rate: answer ``rate_limited`` and drop it."""
    EXHAUSTED = "exhausted"
    """Over the rate and past the overrun: the sender ignores the refusals, disconnect it."""


class TokenBucket:
    """``rate`` frames a second with bursts of up to ``burst``; a frame beyond costs a token all the same.

    The tokens may run ``overrun`` below zero: a frame that finds less than
    one token is dropped and still spends one, so a sender that goes on
    faster than the rate sinks deeper and, once it is ``overrun`` frames
    below zero (net of the tokens that came back meanwhile), every further
    frame is :attr:`Verdict.EXHAUSTED`. A sender that pauses climbs back at
    ``rate``; one that never exceeds the rate never sees a refusal.
    """

    def __init__(self, rate: float, burst: int, overrun: int) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._floor = -float(overrun)
        self._tokens = float(burst)
        self._last = time.monotonic()

    def take(self) -> Verdict:
        """Spend a token on one frame and say what to do with it."""
        now = time.monotonic()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        allowed = self._tokens >= 1
        self._tokens -= 1
        if allowed:
            return Verdict.ALLOWED
        if self._tokens < self._floor:
            return Verdict.EXHAUSTED
        return Verdict.DROPPED


class AddressSlots:
    """The WebSocket connections each client address holds open in this process, at most ``limit`` each."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._open: dict[str, int] = {}
        self._total = 0

    def take(self, address: str) -> bool:
        """Count one more connection of ``address``; false (and nothing counted) when it holds ``limit``."""
        held = self._open.get(address, 0)
        if held >= self.limit:
            return False
        self._open[address] = held + 1
        self._total += 1
        return True

    def held(self, address: str) -> int:
        """How many connections ``address`` holds open now."""
        return self._open.get(address, 0)

    def total(self) -> int:
        """How many connections all addresses hold open now."""
        return self._total

    def give_back(self, address: str) -> None:
        """A connection of ``address`` that :meth:`take` counted has closed."""
        if address not in self._open:
            return
        self._total -= 1
        held = self._open[address] - 1
        if held > 0:
            self._open[address] = held
        else:
            self._open.pop(address, None)
