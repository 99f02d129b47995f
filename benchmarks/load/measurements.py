"""What one level measured, and the figures derived from it (rates, costs per action, percentiles).

A level's numbers are gathered by :mod:`benchmarks.load.levels` and printed by
:mod:`benchmarks.load.report`; this module only holds and derives them, so that what a figure means is
written once, for the tables and the JSON alike.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from benchmarks.load.launcher import Census, Pause, Probed
from benchmarks.load.players import ClientResult

P99_TARGET_MS = 100.0
"""The round trip that 99 % of actions must beat for a level to hold."""


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile of ``values`` (nan if there are none)."""
    data = sorted(values)
    if not data:
        return float("nan")
    return data[min(len(data) - 1, max(0, round(q / 100 * len(data) + 0.5) - 1))]


@dataclass(frozen=True)
class AnalysisBacklog:
    """The rated matches played before the window (``--analysis-backlog``) and when their analyses ended."""

    matches: int
    seconds: float
    """How long playing them took."""
    actions: int
    """Rolls and moves sent to play them."""
    queued: int
    """Analyses queued by the server (none where ``NARDY_FAIR_PLAY_ANALYSIS=false``): by the matches played, and
    by any of their tables left unfinished that a player's clock or absence ended since."""
    finished: list[float]
    """When each analysis was stored (epoch seconds), earliest first."""
    failed: int

    def split(self, start: float, end: float) -> tuple[int, int, int]:
        """How many analyses ended before ``start``, in [start, end), and had not ended at ``end``."""
        before = sum(moment < start for moment in self.finished)
        inside = sum(start <= moment < end for moment in self.finished)
        return before, inside, self.queued - before - inside - self.failed

    def seconds_each(self, start: float, end: float) -> float:
        """The median time between two analyses ending in [start, end): what one match cost a busy worker then
        (nan with fewer than two)."""
        inside = [moment for moment in self.finished if start <= moment < end]
        gaps = sorted(b - a for a, b in zip(inside, inside[1:]))
        return percentile(gaps, 50)

    def busy_throughout(self, start: float, end: float) -> bool:
        """Whether the workers had work for the whole window: some of the backlog was still unfinished at its
        end (they take the queue in turn, so they were never without a job before)."""
        return self.split(start, end)[2] > 0


@dataclass
class Level:
    """The measurements of one level of N concurrent games."""

    games: int
    duration: float
    think: float
    computer: float = 0.0
    """The share of the games played against the computer."""
    server: str = ""
    accepted: int = 0
    proxy_cpu_pct: float = 0.0
    throttled: tuple[int, float] | None = None
    """Over the window, summed over the server processes: periods their CPU caps held them back, seconds waited
    (None: uncapped)."""
    services_cpu_pct: dict[str, float] = field(default_factory=dict)
    sleeps_by_thread: dict[str, int] = field(default_factory=dict)
    """Over the window, the servers' threads' sleeps summed by the threads' names (numbers stripped)."""
    latencies_ms: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    proxy_states: Counter[str] = field(default_factory=Counter)
    """How HAProxy's connections ended, by termination state (several processes only)."""
    proxy_lines: list[str] = field(default_factory=list)
    """HAProxy's log lines for the connections the load client saw dropped or that ended abnormally."""
    server_cpu_pct: float = 0.0
    server_cpu_max_1s: float = 0.0
    server_sys_share: float = 0.0
    loop_cpu_share: float = 0.0
    sleeps: tuple[int, int] = (0, 0)
    """(of the event loops' threads, of all threads) voluntary context switches of the servers in the window."""
    rss_start: float = 0.0
    rss_end: float = 0.0
    rss_max: float = 0.0
    rss_series: list[tuple[float, float]] = field(default_factory=list)
    """(seconds into the window, server RSS MiB), every ``--rss-every`` seconds."""
    rss_after_setup: float = 0.0
    client_cpu_pct: list[float] = field(default_factory=list)
    machine_cpu_pct: float = 0.0
    machine_cpus: int = 0
    load: tuple[float, float] = (0.0, 0.0)
    setup_seconds: float = 0.0
    games_finished: int = 0
    http_ms: list[float] = field(default_factory=list)
    server_log_errors: list[str] = field(default_factory=list)
    failed: str | None = None
    messages_in: int = 0
    bytes_in: int = 0
    gc: list[Pause] = field(default_factory=list)
    census: Census | None = None
    sent_at: list[float] = field(default_factory=list)
    """When each of ``latencies_ms`` was sent (epoch seconds)."""
    window_start: float = 0.0
    probes: list[Probed] = field(default_factory=list)
    backlog: AnalysisBacklog | None = None

    def add_client(self, result: ClientResult) -> None:
        """Count one client process's measurements in the level's."""
        self.accepted += result.accepted
        self.latencies_ms.extend(result.latencies_ms)
        self.sent_at.extend(result.sent_at)
        self.errors.update(result.errors)
        self.error_samples.extend(result.error_samples)
        self.client_cpu_pct.append(result.cpu_seconds / self.duration * 100)
        self.games_finished += result.games_finished
        self.http_ms.extend(result.http_ms)
        self.messages_in += result.messages_in
        self.bytes_in += result.bytes_in

    def looks(self) -> list[tuple[float, float]]:
        """(start, end), in epoch seconds, of each collection of the old generation (2) and each probe of it."""
        return sorted([(p.start, p.start + p.seconds) for p in self.gc if p.generation == 2]
                      + [(p.start, p.start + p.seconds) for p in self.probes])

    def caught_latencies(self) -> list[float]:
        """The round trips under way at some moment while the old generation was being collected or probed."""
        looks = self.looks()
        return [ms for ms, sent in zip(self.latencies_ms, self.sent_at)
                if any(sent < end and sent + ms / 1e3 > start for start, end in looks)]

    @property
    def longest_gc_ms(self) -> tuple[float, float]:
        """The longest collection's wall time, and the most CPU time one collection took, in ms."""
        return (max((p.seconds * 1000 for p in self.gc), default=0.0),
                max((p.cpu_seconds * 1000 for p in self.gc), default=0.0))

    @property
    def rate(self) -> float:
        """Accepted actions a second over the window."""
        return self.accepted / self.duration

    @property
    def cpu_ms_per_action(self) -> float:
        """The servers' CPU milliseconds per accepted action in the window."""
        return self.server_cpu_pct * 10 * self.duration / self.accepted if self.accepted else float("nan")

    @property
    def sleeps_per_action(self) -> tuple[float, float]:
        """(the event loop's thread's, all threads') sleeps per accepted action in the window."""
        if not self.accepted:
            return float("nan"), float("nan")
        return self.sleeps[0] / self.accepted, self.sleeps[1] / self.accepted

    @property
    def error_count(self) -> int:
        """Errors of every kind."""
        return sum(self.errors.values())

    def percentile(self, q: float) -> float:
        """The ``q``-th percentile of the round trips timed in the window."""
        return percentile(self.latencies_ms, q)

    @property
    def holds(self) -> bool:
        """Whether the level ran, without an error, with a 99th percentile under :data:`P99_TARGET_MS`."""
        return self.failed is None and self.error_count == 0 and self.percentile(99) < P99_TARGET_MS
