"""The servers of one level, measured as one: a process alone, or several on one database behind HAProxy.

``--processes``, ``--database`` and ``--server`` describe a cluster (:class:`ServerSpec`); a level starts
one afresh from it (with its own PostgreSQL database where asked) and reads it as if it were one server:
CPU and memory summed over the processes, their collections and log lines together.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from benchmarks.load.launcher import Census, Pause, Probed
from benchmarks.load.probes import slept_between
from benchmarks.load.proxy import Proxy
from benchmarks.load.server import Server


@dataclass(frozen=True)
class ServerSpec:
    """Which checkout a level's server runs from, under what name, with which extra settings."""

    label: str
    root: Path
    env: dict[str, str]
    processes: int = 1
    database_url: str | None = None
    """An admin URL of a PostgreSQL server to create each level's database in; None: SQLite."""
    redis_url: str = "redis://127.0.0.1:6379/0"
    cpu_per_process: float | None = None
    """The share of a core each server process is capped at (:mod:`benchmarks.cpu_cap`); None: uncapped."""
    analysis_backlog: int = 0
    """Rated matches played on it before each window, whose analyses keep its workers busy
    (:mod:`benchmarks.load.backlog`)."""


class TemporaryDatabase:
    """A fresh PostgreSQL database for one level, dropped afterwards (the server migrates it at start)."""

    def __init__(self, admin_url: str) -> None:
        self.admin_url = admin_url
        self.name = f"nardy_load_{os.getpid()}_{random.randrange(10**9)}"

    @property
    def url(self) -> str:
        """The SQLAlchemy URL the servers use."""
        base = self.admin_url.rsplit("/", 1)[0]
        return f"{base.replace('postgresql://', 'postgresql+psycopg://', 1)}/{self.name}"

    def _admin(self, statement: str) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as connection:
            connection.execute(statement)

    def create(self) -> None:
        """Create the database (empty: the first server migrates it)."""
        self._admin(f"CREATE DATABASE {self.name}")

    def drop(self) -> None:
        """Drop the database, its servers' connections too; a failure leaves it behind unreported."""
        with contextlib.suppress(Exception):
            self._admin(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")


class Cluster:
    """The servers of one level: one process alone, or several on one database and Redis behind HAProxy.

    Measured as one server: CPU and memory are the sums over the processes,
    garbage collections and log lines those of all of them.
    """

    def __init__(self, spec: ServerSpec, profile: Path | None, label: str, *, native: bool) -> None:
        self.spec = spec
        self.database = TemporaryDatabase(spec.database_url) if spec.database_url else None
        env = dict(spec.env)
        self.shared_dir: Path | None = None
        if self.database is not None:
            env["NARDY_DATABASE_URL"] = self.database.url
        elif spec.processes > 1:  # one SQLite file for all of them
            self.shared_dir = Path(tempfile.mkdtemp(prefix="nardy-load-shared-"))
            env["NARDY_DATABASE_URL"] = f"sqlite:///{self.shared_dir / 'nardy.db'}"
        if spec.processes > 1:
            env["NARDY_REDIS_URL"] = spec.redis_url
        self.servers = [Server(profile if i == 0 else None, label, native=native, root=spec.root, env=env,
                               cpu_cap=spec.cpu_per_process)
                        for i in range(spec.processes)]
        self.proxy = Proxy([s.port for s in self.servers], self.servers[0].data_dir) if spec.processes > 1 else None
        self.profile_path = self.servers[0].profile_path
        self.database_url = env.get("NARDY_DATABASE_URL") or f"sqlite:///{self.servers[0].data_dir / 'nardy.sqlite3'}"
        """The database the servers share (the server's own default where none is set)."""

    @property
    def url(self) -> str:
        """Where the clients connect: the proxy, or the one server."""
        return f"http://127.0.0.1:{self.proxy.port}" if self.proxy is not None else self.servers[0].url

    @property
    def capped(self) -> bool:
        """Whether the server processes run under a CPU cap."""
        return self.spec.cpu_per_process is not None

    def start(self) -> None:
        """Create the database, start the servers one by one (the first migrates), then the proxy."""
        if self.database is not None:
            self.database.create()
        for server in self.servers:
            server.start()
        if self.proxy is not None:
            self.proxy.start()

    def cpu_split(self) -> tuple[float, float]:
        """(user, system) CPU seconds of all the server processes so far."""
        splits = [server.cpu_split() for server in self.servers]
        return sum(u for u, _ in splits), sum(k for _, k in splits)

    def loop_cpu_seconds(self) -> float:
        """CPU seconds of the servers' event-loop threads so far."""
        return sum(server.loop_cpu_seconds() for server in self.servers)

    def sleeps(self) -> dict[int, int]:
        """How many times each thread of every server slept so far, by thread id."""
        return {thread: count for server in self.servers for thread, count in server.sleeps().items()}

    def slept_between(self, before: dict[int, int], after: dict[int, int]) -> tuple[int, int]:
        """(of the event loops' threads, of all threads) sleeps between two counts of :meth:`sleeps`."""
        loops = sum(server.slept_between(before, after)[0] for server in self.servers)
        return loops, slept_between(before, after, loop_thread=0)[1]

    def rss_mib(self) -> float:
        """The servers' resident memory now, summed."""
        return sum(server.rss_mib() for server in self.servers)

    def proxy_cpu_seconds(self) -> float:
        """HAProxy's CPU seconds so far (0 without a proxy)."""
        return self.proxy.cpu_seconds() if self.proxy is not None else 0.0

    def throttled(self) -> tuple[int, float]:
        """(periods, seconds) the CPU caps have held the servers back so far, summed."""
        counts = [server.throttled() for server in self.servers]
        return sum(periods for periods, _ in counts), sum(seconds for _, seconds in counts)

    def start_profile(self, seconds: float) -> subprocess.Popen[bytes] | None:
        """py-spy on the first server for ``seconds``, where ``--profile`` asks for it."""
        return self.servers[0].start_profile(seconds)

    def count_objects(self) -> None:
        """Have every server log its collector's census (:meth:`Server.count_objects`)."""
        for server in self.servers:
            server.count_objects()

    def census(self) -> Census | None:
        """The servers' censuses together, None unless every server logged one."""
        censuses = [server.census() for server in self.servers]
        if not censuses or any(c is None for c in censuses):
            return None
        return Census.total([c for c in censuses if c is not None])

    def probes(self, start: float, end: float) -> list[Probed]:
        """Every server's probes of its old generation that began in [start, end), in order."""
        return sorted(probe for server in self.servers for probe in server.probes(start, end))

    def gc_pauses(self, start: float, end: float) -> list[Pause]:
        """Every server's garbage collections that began in [start, end), in order."""
        return sorted(pause for server in self.servers for pause in server.gc_pauses(start, end))

    def errors_logged(self) -> list[str]:
        """Every server's log lines that report an error or a traceback."""
        return [line for server in self.servers for line in server.errors_logged()]

    def proxy_endings(self, client_ports: set[int]) -> tuple[Counter[str], list[str]]:
        """HAProxy's connection endings and log lines (:meth:`Proxy.endings`); nothing without a proxy."""
        return self.proxy.endings(client_ports) if self.proxy is not None else (Counter(), [])

    def log_tail(self) -> str:
        """The end of every server's log, for a level that failed."""
        return "\n".join(f"[process {i}]\n{server.log_tail()}" for i, server in enumerate(self.servers))

    def stop(self) -> None:
        """Stop the proxy, then the servers, then drop the database."""
        if self.proxy is not None:
            self.proxy.stop()
        for server in self.servers:
            server.stop()
        if self.database is not None:
            self.database.drop()

    def cleanup(self) -> None:
        """Remove the servers' and the shared data directories."""
        for server in self.servers:
            server.cleanup()
        if self.shared_dir is not None:
            shutil.rmtree(self.shared_dir, ignore_errors=True)
