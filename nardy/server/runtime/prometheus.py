"""The server's figures in Prometheus' terms (prometheus-client), for ``GET /metrics``.

One process keeps its figures in a registry of its own (each app its own,
so that apps built side by side in one interpreter, as tests do, count
apart), with the process's CPU, memory and open files beside them. Several
server processes on one machine may share a directory instead
(``PROMETHEUS_MULTIPROC_DIR``, set before the process starts): each then
writes its figures to files there and any of them answers ``/metrics`` with
the sum over all, so a scrape through the proxy sees the whole machine.
The gauges (sockets, live tables, database connections) count the
processes alive only; counters and histograms keep what a process counted
after it ends, as counters must. A process removes its gauges' files when
it stops, and before it counts anything those of processes that died
without doing so, its own process id's included (a dead process's, reused).
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path

from prometheus_client import (
    CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, ProcessCollector, generate_latest, multiprocess,
)

from nardy.server.runtime.metrics import Metrics

MULTIPROCESS_DIR_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"
"""prometheus-client's own switch to multi-process mode, read when it is imported."""

ACTION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""Seconds: an action normally answers within a few milliseconds, a database under strain in hundreds."""
REDIS_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)
"""Seconds: a local Redis answers a publish in a fraction of a millisecond."""
ANALYSIS_BUCKETS = (1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)
"""Seconds: an analysis takes seconds (1-ply) to many minutes (3-ply, a long match)."""

_LIVE_GAUGE_FILE = re.compile(r"gauge_live\w+?_(\d+)\.db")


class PrometheusMetrics(Metrics):
    """The measuring points of :class:`~nardy.server.runtime.metrics.Metrics`, kept by prometheus-client."""

    enabled = True

    def __init__(self) -> None:
        directory = os.environ.get(MULTIPROCESS_DIR_VARIABLE)
        self._directory = Path(directory) if directory else None
        if self._directory is not None:
            forget_dead_processes(self._directory)  # before this process opens its own files there
        registry = None if self._directory is not None else CollectorRegistry()
        self._registry = registry
        if registry is not None:
            ProcessCollector(registry=registry)
        self._accepted = Counter(
            "nardy_actions_accepted", "Players' actions accepted, by action type", ["action"], registry=registry,
        )
        self._refused = Counter(
            "nardy_actions_refused", "Players' actions refused, by action type and the refusal's code",
            ["action", "reason"], registry=registry,
        )
        self._action_seconds = Histogram(
            "nardy_action_seconds", "Seconds from a player's action reaching the server to its answer",
            buckets=ACTION_BUCKETS, registry=registry,
        )
        self._sockets = Gauge(
            "nardy_websockets_open", "WebSockets open", registry=registry, multiprocess_mode="livesum",
        )
        self._live_tables = Gauge(
            "nardy_live_tables", "Tables held in memory, by kind", ["kind"], registry=registry,
            multiprocess_mode="livesum",
        )
        self._pool_in_use = Gauge(
            "nardy_database_connections_in_use", "Database connections lent out of the pool",
            registry=registry, multiprocess_mode="livesum",
        )
        self._pool_open = Gauge(
            "nardy_database_connections_open", "Database connections the pool holds open, lent or idle",
            registry=registry, multiprocess_mode="livesum",
        )
        self._pool_limit = Gauge(
            "nardy_database_connections_limit", "The most database connections the pool may open",
            registry=registry, multiprocess_mode="livesum",
        )
        self._redis_publish = Histogram(
            "nardy_redis_publish_seconds", "Seconds of one round trip publishing a batch of messages to Redis",
            buckets=REDIS_BUCKETS, registry=registry,
        )
        self._analysis_queue = Gauge(
            "nardy_analysis_queue_depth", "Analyses waiting in the database for a worker",
            registry=registry, multiprocess_mode="livemax",
        )
        self._analysis_seconds = Histogram(
            "nardy_analysis_seconds", "Seconds from claiming an analysis to storing it, by outcome", ["outcome"],
            buckets=ANALYSIS_BUCKETS, registry=registry,
        )
        self._errors = Counter(
            "nardy_errors", "Log records at level ERROR or above, by logger", ["logger"], registry=registry,
        )
        self._error_counter = _ErrorCounter(self._errors)
        # each label set's child, kept: prometheus-client's labels() takes a lock and checks the labels each call,
        # which costs more than the count itself
        self._accepted_by: dict[str, Counter] = {}
        self._refused_by: dict[tuple[str, str], Counter] = {}
        self._live_tables_by: dict[str, Gauge] = {}

    # ----- lifecycle

    def start(self) -> None:
        for name in _ERROR_LOGGERS:
            logging.getLogger(name).addHandler(self._error_counter)

    def stop(self) -> None:
        for name in _ERROR_LOGGERS:
            logging.getLogger(name).removeHandler(self._error_counter)
        if self._directory is not None:
            multiprocess.mark_process_dead(os.getpid(), str(self._directory))  # type: ignore[no-untyped-call]

    # ----- the measuring points

    def action(self, action: str, refusal: str | None, seconds: float) -> None:
        if refusal is None:
            accepted = self._accepted_by.get(action)
            if accepted is None:
                accepted = self._accepted_by[action] = self._accepted.labels(action)
            accepted.inc()
        else:
            refused = self._refused_by.get((action, refusal))
            if refused is None:
                refused = self._refused_by[action, refusal] = self._refused.labels(action, refusal)
            refused.inc()
        self._action_seconds.observe(seconds)

    def socket_opened(self) -> None:
        self._sockets.inc()

    def socket_closed(self) -> None:
        self._sockets.dec()

    def live_tables(self, kind: str, count: int) -> None:
        held = self._live_tables_by.get(kind)
        if held is None:
            held = self._live_tables_by[kind] = self._live_tables.labels(kind)
        held.set(count)

    def pool_use(self, in_use: int, held: int, limit: int) -> None:
        self._pool_in_use.set(in_use)
        self._pool_open.set(held)
        self._pool_limit.set(limit)

    def redis_publish(self, seconds: float) -> None:
        self._redis_publish.observe(seconds)

    def analysis_queue(self, depth: int) -> None:
        self._analysis_queue.set(depth)

    def analysis_done(self, seconds: float, *, failed: bool) -> None:
        self._analysis_seconds.labels("failed" if failed else "stored").observe(seconds)

    def exposition(self) -> tuple[bytes, str]:
        registry = self._registry
        if registry is None:
            registry = CollectorRegistry()
            multiprocess.MultiProcessCollector(registry, path=str(self._directory))  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST


_ERROR_LOGGERS = ("", "uvicorn")
"""Where errors are counted: the root logger, and uvicorn's, which its default configuration keeps from the root."""


class _ErrorCounter(logging.Handler):
    """Counts each log record at ERROR or above once, by its logger's name, whichever handlers it passes."""

    def __init__(self, errors: Counter) -> None:
        super().__init__(level=logging.ERROR)
        self._errors = errors

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(record, "nardy_counted", False):  # seen at uvicorn's logger, now at the root
            return
        record.nardy_counted = True
        self._errors.labels(record.name).inc()


def forget_dead_processes(directory: Path) -> None:
    """Remove the gauge files of processes no longer alive (killed before they could remove their own), and those
    under this process's id, which a dead process left if they exist before this one counted anything."""
    pids = {int(found.group(1)) for path in directory.glob("gauge_live*.db")
            if (found := _LIVE_GAUGE_FILE.fullmatch(path.name))}
    for pid in pids:
        if pid == os.getpid() or not _alive(pid):
            multiprocess.mark_process_dead(pid, str(directory))  # type: ignore[no-untyped-call]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
