"""The servers and the machine read during a level's window: counters at its bounds, CPU and memory each second.

The window's figures are differences between two :class:`Snapshot` s, taken at its start and end,
so that setup, warm-up and the census after it cost the window nothing; the peak second's CPU and
the memory over a long window (a soak) come from :func:`watch`, which samples once a second.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from benchmarks.load.cluster import Cluster
from benchmarks.load.measurements import Level
from benchmarks.load.probes import SERVICES, machine_cpu, named_cpu_seconds, sleeps_by_thread_name


@dataclass(frozen=True)
class Snapshot:
    """The counters of a cluster, of the shared services and of the machine at one moment."""

    cpu: tuple[float, float]
    """The servers' (user, system) CPU seconds."""
    proxy_cpu: float
    loop_cpu: float
    """The servers' event-loop threads' CPU seconds."""
    throttled: tuple[int, float]
    sleeps: dict[int, int]
    services: dict[str, float]
    """CPU seconds of each of :data:`~benchmarks.load.probes.SERVICES`."""
    machine: tuple[float, float]
    """(busy, total) jiffies of the machine."""

    @classmethod
    def of(cls, cluster: Cluster) -> Snapshot:
        """Read every counter now."""
        return cls(
            cpu=cluster.cpu_split(), proxy_cpu=cluster.proxy_cpu_seconds(), loop_cpu=cluster.loop_cpu_seconds(),
            throttled=cluster.throttled(), sleeps=cluster.sleeps(),
            services={name: named_cpu_seconds(name) for name in SERVICES}, machine=machine_cpu(),
        )

    @property
    def server_cpu(self) -> float:
        """The servers' user + system CPU seconds."""
        return sum(self.cpu)


def watch(level: Level, cluster: Cluster, start: Snapshot, window_start: float, window_end: float,
          rss_every: float) -> None:
    """Until ``window_end`` (wall clock), once a second: the busiest second's CPU, the largest RSS, and the RSS
    every ``rss_every`` seconds into the window."""
    previous, previous_at = start.server_cpu, time.monotonic()
    while time.time() < window_end:
        time.sleep(min(1.0, max(0.0, window_end - time.time())))
        cpu, at = sum(cluster.cpu_split()), time.monotonic()
        if at - previous_at > 0.5:
            level.server_cpu_max_1s = max(level.server_cpu_max_1s, (cpu - previous) / (at - previous_at) * 100)
        previous, previous_at = cpu, at
        rss = cluster.rss_mib()
        level.rss_max = max(level.rss_max, rss)
        into = time.time() - window_start
        if into >= level.rss_series[-1][0] + rss_every:
            level.rss_series.append((into, rss))


def record_window(level: Level, cluster: Cluster, start: Snapshot, end: Snapshot) -> None:
    """The window's shares of CPU, sleeps and throttling, from its two snapshots, into ``level``."""
    duration = level.duration
    level.sleeps = cluster.slept_between(start.sleeps, end.sleeps)
    level.sleeps_by_thread = sleeps_by_thread_name(start.sleeps, end.sleeps)
    level.proxy_cpu_pct = (end.proxy_cpu - start.proxy_cpu) / duration * 100
    if cluster.capped:
        level.throttled = (end.throttled[0] - start.throttled[0], end.throttled[1] - start.throttled[1])
    level.services_cpu_pct = {name: (end.services[name] - start.services[name]) / duration * 100 for name in SERVICES}
    server_cpu = end.server_cpu - start.server_cpu
    level.server_sys_share = (end.cpu[1] - start.cpu[1]) / max(1e-9, server_cpu) * 100
    level.loop_cpu_share = (end.loop_cpu - start.loop_cpu) / max(1e-9, server_cpu) * 100
    level.server_cpu_pct = server_cpu / duration * 100
    level.machine_cpu_pct = ((end.machine[0] - start.machine[0]) / max(1, end.machine[1] - start.machine[1])
                             * 100 * level.machine_cpus)
