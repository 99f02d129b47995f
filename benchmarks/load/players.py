"""The simulated people of a client process, their game slots, and what the process is told and reports.

:class:`ClientConfig` and :class:`ClientResult` cross the pipe between the benchmark and a client
process (so they are plain, picklable data); :class:`Player` and :class:`Slot` live inside the process.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ClientConfig:
    """What one client process plays: its share of the games and the timing."""

    index: int
    url: str
    variants: list[str]
    opponents: list[str | None]
    """Per game slot: the computer's level when the slot plays the computer, else None (two simulated people)."""
    think: float
    seed: int
    compression: bool
    setup_timeout: float
    rated: bool = False
    """Accounts instead of guests, at rated tables with a bank clock long enough never to run out: every match
    that ends queues the server's background fair-play analysis (:mod:`benchmarks.load.backlog`)."""


@dataclass
class ClientResult:
    """What one client process measured."""

    latencies_ms: list[float] = field(default_factory=list)
    accepted: int = 0
    accepted_total: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    cpu_seconds: float = 0.0
    games_finished: int = 0
    tables_opened: int = 0
    http_ms: list[float] = field(default_factory=list)
    setup_seconds: float = 0.0
    messages_in: int = 0
    bytes_in: int = 0
    sent_at: list[float] = field(default_factory=list)
    """When each of ``latencies_ms`` was sent (epoch seconds)."""


class Player:
    """One guest with one WebSocket connection."""

    def __init__(self, slot: Slot, index: int, cookie: str, csrf: str) -> None:
        self.slot = slot
        self.index = index
        self.cookie = cookie
        self.csrf = csrf
        self.ws: Any = None
        self.seat = index
        self.state: dict[str, Any] | None = None
        self.version = -1
        self.acted_version = -1
        self.changed = asyncio.Event()
        self.synced = asyncio.Event()
        self.errors = 0
        self.closing = False
        self.changed_at = 0.0
        """When the table last changed for this player (``time.perf_counter``)."""


class Slot:
    """One game slot: two players, or one against the computer at level ``computer``, and their table now."""

    def __init__(self, index: int, variant: str, computer: str | None = None) -> None:
        self.index = index
        self.variant = variant
        self.computer = computer
        self.table_id = ""
        self.players: list[Player] = []
        self.finished_tables: set[str] = set()
