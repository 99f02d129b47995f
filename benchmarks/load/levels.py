"""One level of N concurrent games, from a fresh cluster to its measurements; a failure is reported, not raised.

A level starts its servers (:mod:`benchmarks.load.cluster`) and its client processes
(:mod:`benchmarks.load.client_processes`), waits until every player is seated, lets them play through
the warm-up, measures the window (:mod:`benchmarks.load.sampling`), asks the servers for their
collector's census once the window's actions are answered, collects the clients' results, and reads
the servers' logs after stopping them. Each step has a timeout, so a level always ends.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.load.backlog import Seeded, analyses_measured, play_backlog, seed_budget
from benchmarks.load.client import DRAIN_TIMEOUT, ports_named
from benchmarks.load.client_processes import CLIENT_STOP_TIMEOUT, ClientProcesses
from benchmarks.load.cluster import Cluster, ServerSpec
from benchmarks.load.measurements import Level
from benchmarks.load.players import ClientConfig
from benchmarks.load.profiling import finish_recording, print_profile
from benchmarks.load.sampling import Snapshot, record_window, watch
from benchmarks.load.server import SERVER_START_TIMEOUT

CENSUS_GRACE = 0.5
"""Seconds between the window's end and the census, which stops the server for up to a second: the actions
sent at the end of the window are answered first, so their round trips do not include it."""
START_DELAY = 1.0
"""Seconds from the clients' ``go`` to their first action, so that every process starts together."""


@dataclass(frozen=True)
class LevelOptions:
    """How every level of a run is played and measured (the command's flags)."""

    weights: list[tuple[str, float]]
    """The variants of the tables and their shares."""
    think: float
    warmup: float
    duration: float
    clients: int
    seed: int
    compression: bool
    computer: float
    computer_level: str
    rss_every: float
    profile: Path | None = None
    profile_native: bool = False


@dataclass(frozen=True)
class Window:
    """When the clients start playing and the measured window's bounds, in wall-clock (epoch) seconds."""

    go_at: float
    start: float
    end: float

    @classmethod
    def from_now(cls, warmup: float, duration: float) -> Window:
        """A window that opens ``warmup`` seconds after play starts, a moment from now."""
        go_at = time.time() + START_DELAY
        return cls(go_at, go_at + warmup, go_at + warmup + duration)


NO_WINDOW = Window(float("inf"), float("inf"), float("inf"))
"""The window of a level that failed before it opened: no collection or probe falls in it."""


def pick_variants(weights: list[tuple[str, float]], games: int, seed: int) -> list[str]:
    """``games`` variants in the given proportions (rounded), shuffled with a fixed seed."""
    total = sum(w for _, w in weights)
    counts = [round(games * w / total) for _, w in weights]
    counts[0] += games - sum(counts)
    chosen = [name for (name, _), count in zip(weights, counts, strict=True) for _ in range(count)]
    random.Random(f"variants:{seed}:{games}").shuffle(chosen)
    return chosen


def pick_opponents(games: int, share: float, level: str, seed: int) -> list[str | None]:
    """Per game slot, ``level`` for the ``share`` of slots (rounded) that play the computer, else None."""
    chosen = [level if i < round(games * share) else None for i in range(games)]
    random.Random(f"opponents:{seed}:{games}").shuffle(chosen)
    return chosen


def setup_timeout(games: int) -> float:
    """Seconds a client process has to seat its players: two minutes and a fifth of a second per game."""
    return 120 + 0.2 * games


def level_budget(games: int, options: LevelOptions, spec: ServerSpec) -> float:
    """The most seconds a level of ``games`` can take with every step at its timeout (the run's alarm)."""
    return (SERVER_START_TIMEOUT + 150 + 0.2 * games + options.warmup + options.duration
            + DRAIN_TIMEOUT + CLIENT_STOP_TIMEOUT + 100 + seed_budget(spec.analysis_backlog))


def client_configs(games: int, options: LevelOptions, url: str) -> list[ClientConfig]:
    """The games dealt among the client processes, every ``clients``-th slot to each."""
    variants = pick_variants(options.weights, games, options.seed)
    opponents = pick_opponents(games, options.computer, options.computer_level, options.seed)
    return [ClientConfig(index=index, url=url, variants=variants[index:: options.clients],
                         opponents=opponents[index:: options.clients], think=options.think, seed=options.seed,
                         compression=options.compression, setup_timeout=setup_timeout(games))
            for index in range(options.clients)]


def run_level(games: int, options: LevelOptions, spec: ServerSpec) -> Level:
    """Measure ``games`` concurrent games against a fresh cluster of ``spec``; a failure is in ``Level.failed``."""
    level = Level(games=games, duration=options.duration, think=options.think, server=spec.label,
                  computer=options.computer, machine_cpus=os.cpu_count() or 1)
    cluster = Cluster(spec, options.profile, f"{spec.label}-{games}", native=options.profile_native)
    clients = ClientProcesses()
    window = NO_WINDOW
    seeded: Seeded | None = None
    try:
        cluster.start()
        clients.start(client_configs(games, options, cluster.url))
        level.setup_seconds = clients.wait_ready(setup_timeout(games))
        if spec.analysis_backlog:
            seeded = play_backlog(cluster.url, spec.analysis_backlog, options.seed)
        level.rss_after_setup = cluster.rss_mib()
        window = Window.from_now(options.warmup, options.duration)
        clients.go(window.go_at, window.start, window.end)
        measure_window(level, cluster, window, options.rss_every)
        for result in clients.results():
            level.add_client(result)
        if seeded is not None:
            level.backlog = analyses_measured(seeded, cluster.database_url)
    except Exception as error:  # noqa: BLE001 - a failed level is reported, the run goes on
        level.failed = str(error)
    finally:
        clients.stop()
        cluster.stop()
        read_logs(level, cluster, window)
        cluster.cleanup()
    if options.profile is not None and cluster.profile_path is not None and cluster.profile_path.exists():
        print_profile(cluster.profile_path, games)
    return level


def measure_window(level: Level, cluster: Cluster, window: Window, rss_every: float) -> None:
    """Wait for the window, measure it, then take the servers' census once its last actions are answered."""
    time.sleep(max(0.0, window.start - time.time()))
    load_start = os.getloadavg()[0]
    profiler = cluster.start_profile(level.duration)
    start = Snapshot.of(cluster)
    level.rss_start = level.rss_max = cluster.rss_mib()
    level.rss_series.append((0.0, level.rss_start))
    watch(level, cluster, start, window.start, window.end, rss_every)
    record_window(level, cluster, start, Snapshot.of(cluster))
    level.rss_end = cluster.rss_mib()
    level.rss_series.append((level.duration, level.rss_end))
    time.sleep(CENSUS_GRACE)
    cluster.count_objects()  # after the window's actions are answered, so that it costs the window nothing
    level.load = (load_start, os.getloadavg()[0])
    if profiler is not None:
        finish_recording(profiler)


def read_logs(level: Level, cluster: Cluster, window: Window) -> None:
    """What the stopped servers (and HAProxy) logged: the window's collections and probes, the census, errors."""
    level.gc = cluster.gc_pauses(window.start, window.end)
    level.probes = cluster.probes(window.start, window.end)
    level.window_start = window.start
    level.census = cluster.census()
    level.server_log_errors = cluster.errors_logged()
    level.proxy_states, level.proxy_lines = cluster.proxy_endings(
        {port for sample in level.error_samples for port in ports_named(sample)})
    if level.failed is not None:
        level.failed += "\n--- server log tail ---\n" + cluster.log_tail()
