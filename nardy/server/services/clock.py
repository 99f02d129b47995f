"""Time, injected: the server asks a clock for "now" so tests can control it."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    """Tells the current time (timezone-aware, UTC)."""

    def now(self) -> datetime:
        """The current time."""


class SystemClock:
    """The real clock."""

    def now(self) -> datetime:
        return datetime.now(UTC)
