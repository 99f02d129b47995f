"""A fixed share of a core for each server process, so that a small machine can measure scale-out.

Whether two server processes serve twice what one does is a question about what they share (the
database, Redis, the proxy), not about the machine's core count; but on a 2-core machine two uncapped
servers, PostgreSQL, Redis, HAProxy and the load client all compete for the same two cores, and the
answer drowns in that. Capping every server process at the same fraction of a core (a Linux cgroup's
CFS bandwidth quota) makes "one process" a fixed amount of CPU, as a core of its own would be, while
the shared parts run uncapped on what is left.

A quota is not a slower core: a process that has used its quota in a period waits for the next one
(at most ``PERIOD_US`` less the quota), so round trips through a saturated process carry those waits.
Short periods keep them small.

Needs root and a writable cgroup file system: cgroup v2 (``cpu.max``) or v1's ``cpu`` controller
(``cpu.cfs_quota_us``).
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import time
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")

PERIOD_US = 10_000
"""The quota's period: a throttled process waits at most this less its quota (6 ms at 0.4 of a core)."""

MIN_QUOTA_US = 1000
"""The least quota Linux accepts: a cap under a tenth of a core lengthens the period instead."""


def quota(cores: float) -> tuple[int, int]:
    """(quota, period) in microseconds for ``cores`` of a core."""
    period = max(PERIOD_US, math.ceil(MIN_QUOTA_US / cores))
    return round(cores * period), period


def describe(cores: float) -> str:
    """The cap in words, for a report."""
    quota_us, period_us = quota(cores)
    return f"{cores:.2f} of a core ({quota_us / 1000:g} ms of CPU per {period_us / 1000:g} ms, a cgroup's quota)"


class CpuCapError(RuntimeError):
    """The machine offers no cgroup this process may create (not root, or no ``cpu`` controller)."""


class CpuCap:
    """One cgroup holding one process at ``cores`` of a core (0.4: 4 ms of every 10 ms)."""

    def __init__(self, cores: float, *, root: Path = CGROUP_ROOT) -> None:
        if not 0 < cores <= (os.cpu_count() or 1):
            raise ValueError(f"a cap of {cores} cores: give a positive share, at most the machine's cores")
        quota_us, period_us = quota(cores)
        unified = (root / "cgroup.controllers").exists()
        parent = root if unified else root / "cpu"
        if unified and "cpu" not in (root / "cgroup.subtree_control").read_text().split():
            raise CpuCapError(f"cgroup v2 at {root} does not delegate the cpu controller to its children")
        if not unified and not (parent / "cpu.cfs_quota_us").exists():
            raise CpuCapError(f"no cgroup cpu controller at {parent}")
        self.unified = unified
        self.path = parent / f"nardy-load-{secrets.token_hex(4)}"
        try:
            self.path.mkdir()
            if unified:
                (self.path / "cpu.max").write_text(f"{quota_us} {period_us}")
            else:
                (self.path / "cpu.cfs_period_us").write_text(str(period_us))
                (self.path / "cpu.cfs_quota_us").write_text(str(quota_us))
        except OSError as error:
            with contextlib.suppress(OSError):
                self.path.rmdir()
            raise CpuCapError(f"cannot make a cgroup at {self.path}: {error}") from error

    def add(self, pid: int) -> None:
        """Move the process ``pid`` (all its threads) into the cap."""
        (self.path / "cgroup.procs").write_text(str(pid))

    def throttled(self) -> tuple[int, float]:
        """(periods in which the cap held the process back, seconds it waited) so far."""
        stats = dict(line.split() for line in (self.path / "cpu.stat").read_text().splitlines() if line.strip())
        if self.unified:
            return int(stats.get("nr_throttled", 0)), int(stats.get("throttled_usec", 0)) / 1e6
        return int(stats.get("nr_throttled", 0)), int(stats.get("throttled_time", 0)) / 1e9

    def remove(self) -> None:
        """Delete the cgroup once its processes have exited (waiting a few seconds for the kernel to see that)."""
        deadline = time.monotonic() + 5
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
