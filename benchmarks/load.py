"""Load test of the game server: N concurrent games of simulated players over WebSocket.

Run::

    python -m benchmarks.load [--games 100 500 1000] [--think 2.0] [--duration 60]
                              [--warmup 10] [--clients 1] [--variants ...] [--profile DIR]
                              [--server LABEL=DIR ...] [--server-env LABEL:KEY=VALUE ...] [--rounds R]

Several processes: ``--processes 2 --database postgresql`` starts two servers on
one fresh PostgreSQL database (created on ``--postgres-url``'s server, dropped
after the level) with Redis (``--redis-url``), behind HAProxy (Debian's
``haproxy``, started by the benchmark), which keeps both players' WebSockets of
a table on one process by the ``table`` in their URL and spreads the HTTP
requests. CPU and memory are then the sums over the processes; the CPU of the
machine's PostgreSQL and Redis processes is reported beside them, per action.

Scale-out on a small machine: ``--cpu-per-process 0.4`` caps every server
process at that share of a core (:mod:`benchmarks.cpu_cap`, a cgroup's CPU
quota; needs root), so that one process is a fixed amount of CPU whatever
else runs, and the throughput of one and of two processes at the same tail
can be compared while PostgreSQL, Redis, HAProxy and the client run
uncapped on what is left.

Side by side: ``--server before=/tmp/old-checkout --server after=.`` runs every
level against both servers, one after the other (``--rounds`` times,
interleaved), so that two revisions or two settings are compared in one run
on one machine.

For each N in ``--games`` a fresh server is started as ONE process (the
``nardy.server`` module run as ``__main__``, as ``python -m nardy.server`` does,
behind a few lines that log its garbage collections; ``NARDY_ENVIRONMENT=testing``
so no time controls are forced, a fresh temporary data directory, the default
SQLite database, a free port on 127.0.0.1). The simulated players run in separate client
processes (``--clients``, default 1), each an asyncio event loop with one
``websockets`` connection per player. Only loopback traffic.

Per level:

1. *Setup* (not timed): 2N guest users via ``POST /api/guest``, N tables
   (``POST /api/tables`` by the first player, ``POST /api/tables/{id}/join``
   by the second; match length 1), 2N WebSocket connections, each
   subscribed to its table. The guests are a pool: when a match ends, the
   same two players open and join a new table of the same variant.
2. *Play*: the player whose decision the table waits for (``state.actor``)
   waits an exponential think time with mean ``--think`` seconds, then acts:
   ``roll`` when the phase is rolling, else ``move`` with a uniformly random
   legal play (``Position.legal_plays``, computed in the client process from
   ``state.game.boards[seat]``). Every action, roll or move, gets its own
   think time, so a turn is two actions and the offered load is about
   N / think actions a second. Nobody doubles or resigns.
3. *Measure*: after ``--warmup`` seconds, a window of ``--duration`` seconds:
   accepted actions a second (acks received in the window), the round trip of
   each action sent in the window (send to ``ack``), errors (any ``error``
   message, a dropped connection, an action unanswered at the end, a game
   that did not change during the window, a failed HTTP request; HAProxy's
   log lines for the connections concerned), the server's CPU (utime + stime of the process, all
   threads) and RSS (``VmRSS``), each client process's CPU, and the whole
   machine's CPU (``/proc/stat``), so that other load on the machine shows.
   Also the server's CPU per accepted action (what bounds a single process),
   how often its threads slept per action (each sleep is a wake-up, which on
   a virtual machine runs the next work cold: :func:`sleeps`), in all and by
   thread (the launcher gives each thread its Python name in ``/proc``), its garbage
   collections and its collector's probes in the window, and the round trips
   under way during those. The clients play on, untimed, for a few seconds
   after the window, while the server's collector is asked what it tracks
   (a census that stops the server for up to a second).

Against the computer: ``--computer 0.3`` has that share of the game slots
played by one simulated person against the server's computer player at
``--computer-level`` (``intermediate`` by default); the server then waits the
think time before each computer action, so such a game offers about the same
actions a second, of which only the person's are timed and counted as
accepted. For a soak, a long ``--duration`` with ``--rss-every 60`` reports the
server's RSS every minute and its trend over the window's second half.

Tables: ``--variants``, by default 50 % backgammon, 20 % georgian and 30 %
long-traditional (long nardy), match length 1. The client offers
permessage-deflate, as browsers do (``--no-compression`` to turn it off).

Every phase has a timeout and the run stops itself. ``--profile DIR`` attaches
``py-spy record`` (``pip install py-spy``) to each server for the measured
window and prints the functions where the server spent its time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import gc
import re
import json
import math
import multiprocessing
import multiprocessing.connection
import os
import platform
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any, NamedTuple

from benchmarks.cpu_cap import CpuCap
from benchmarks.cpu_cap import describe as describe_cap
from nardy.server.view_changes import apply_changes

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_VARIANTS = "backgammon=0.5,georgian=0.2,long-traditional=0.3"
CLK_TCK = os.sysconf("SC_CLK_TCK")
SERVICES = ("postgres", "redis-server")
"""The shared services whose CPU is measured beside the servers' (by command name)."""

SERVER_START_TIMEOUT = 60.0
DRAIN_TIMEOUT = 10.0
CLIENT_STOP_TIMEOUT = 30.0
HTTP_TIMEOUT = 30.0
MAX_ERRORS_PER_PLAYER = 20
CENSUS_TIMEOUT = 20.0
CENSUS_GRACE = 0.5
"""Seconds between the window's end and the census, which stops the server for up to a second: the actions
sent at the end of the window are answered first, so their round trips do not include it."""
PLAY_PAST_WINDOW = 5.0
"""Seconds the clients play on after the window, untimed, so that the census finds the games live."""
SLOWEST = 5
"""How many of the slowest round trips a level reports, with when they began."""
PROBE_LINE = re.compile(r"^(\d+\.\d+) old-generation probe: .* a stall of ([\d.]+) ms, ([\d.]+) ms in all")
"""The collector's log line for a probe of the old generation (logged at its end), as the launcher formats it."""


# --------------------------------------------------------------------------- the server process


# Runs the server in this interpreter after installing a gc callback that logs every
# collection (wall-clock start, seconds, the thread's CPU seconds, generation) as a line of
# a file: a pause longer than its CPU time is the collector descheduled on a busy machine (uvicorn
# re-raises SIGTERM after shutting down, so nothing can be written at exit). The collector's own log
# (its probes of the old generation) goes to the server's log. On SIGUSR1 (after the window) it logs
# the objects the collector tracks per generation and frozen; then, where the code has the probe
# (nardy.server.runtime.garbage_probe), how long probing the old generation stopped the server, how long the
# child took and what it found; then it collects the old generation (2) and then, unfrozen,
# everything once, and logs how long each walk stopped the server and how many unreachable objects
# the two found: the cyclic garbage the server was holding, frozen or not yet collected. The server's
# planned collections are one of the two walks (nardy.server.runtime.collector: the old generation; earlier
# code: everything), or none where the probe finds little garbage. Every thread started through
# ``threading`` takes its Python name as its name in /proc (prctl PR_SET_NAME), so that the wake-ups
# can be told apart by thread.
SERVER_LAUNCHER = """
import ctypes, gc, logging, os, runpy, signal, sys, threading, time
_prctl = ctypes.CDLL(None).prctl
_bootstrap_inner = threading.Thread._bootstrap_inner
def _named_bootstrap_inner(self):
    _prctl(15, self.name.encode()[:15], 0, 0, 0)  # PR_SET_NAME: the thread's name in /proc, for the wake-ups by thread
    _bootstrap_inner(self)
threading.Thread._bootstrap_inner = _named_bootstrap_inner
try:
    from nardy.server.runtime.garbage_probe import probe_old_generation
except ImportError:
    try:
        from nardy.server.garbage_probe import probe_old_generation
    except ImportError:
        probe_old_generation = None
for collector_name in ("nardy.server.runtime.collector", "nardy.server.collector"):  # today's module, then earlier code's
    collector_log = logging.getLogger(collector_name)
    collector_log.setLevel(logging.INFO)
    collector_log.addHandler(logging.StreamHandler())
    collector_log.handlers[-1].setFormatter(logging.Formatter("%(created).6f %(message)s"))
out = open(sys.argv[1], "w", buffering=1)
del sys.argv[1:2]
started = {}
collecting = []
def on_gc(phase, info):
    if phase == "start":
        collecting.append(True)
        started["t"], started["c"], started["u"] = time.time(), time.perf_counter(), time.thread_time()
    else:
        collecting.clear()
    if phase == "stop" and "t" in started:
        wall, cpu = time.perf_counter() - started["c"], time.thread_time() - started["u"]
        out.write(f"{started['t']:.6f} {wall:.6f} {cpu:.6f} {info['generation']}\\n")
gc.callbacks.append(on_gc)
def count_objects(signum, _frame):
    if collecting:  # the signal came during this callback, inside a collection, where gc.collect() does nothing
        threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()
        return
    counts = [len(gc.get_objects(generation)) for generation in range(3)]
    frozen = gc.get_freeze_count()
    started.clear()
    probe = probe_old_generation() if probe_old_generation else None
    probed = ("- - -" if probe is None
              else f"{probe.stall_seconds * 1e3:.2f} {probe.seconds * 1e3:.1f} {probe.unreachable}")
    begun = time.perf_counter()
    old = gc.collect(2)
    old_ms = (time.perf_counter() - begun) * 1e3
    begun = time.perf_counter()
    gc.unfreeze()
    rest = gc.collect()
    everything_ms = (time.perf_counter() - begun) * 1e3
    gc.freeze()
    out.write(f"objects {time.time():.6f} {' '.join(map(str, counts))} {frozen} {old + rest} "
              f"{old_ms:.1f} {everything_ms:.1f} {probed}\\n")
signal.signal(signal.SIGUSR1, count_objects)
runpy.run_module("nardy.server", run_name="__main__", alter_sys=True)
"""


class Census(NamedTuple):
    """What a server's collector held after the window, and how long walking it stopped the server."""

    generations: tuple[int, int, int]
    frozen: int
    garbage: int
    """Cyclic garbage found by the two walks together."""
    old_ms: float
    """Collecting the old generation (2) and the young ones."""
    everything_ms: float
    """Then collecting everything, the frozen objects too."""
    probe_stall_ms: float | None = None
    """How long forking the old generation's probe stopped the server (None: code without the probe)."""
    probe_ms: float | None = None
    """From that fork to the child's report."""
    probe_found: int | None = None
    """The unreachable objects the probe's child found."""

    @staticmethod
    def total(censuses: list[Census]) -> Census:
        """Several processes' objects summed, the longest of their walks."""
        return Census(
            (sum(c.generations[0] for c in censuses), sum(c.generations[1] for c in censuses),
             sum(c.generations[2] for c in censuses)),
            sum(c.frozen for c in censuses), sum(c.garbage for c in censuses),
            max(c.old_ms for c in censuses), max(c.everything_ms for c in censuses),
            _largest(c.probe_stall_ms for c in censuses), _largest(c.probe_ms for c in censuses),
            None if any(c.probe_found is None for c in censuses) else sum(c.probe_found or 0 for c in censuses),
        )

    def summary(self) -> str:
        """The objects, then the two walks, for the level's table."""
        return (f"{' / '.join(f'{n:,}' for n in (*self.generations, self.frozen, self.garbage))}; "
                f"walks: old generation {self.old_ms:,.1f} ms, everything {self.everything_ms:,.1f} ms"
                + ("" if self.probe_ms is None else
                   f"; probe: a stall of {self.probe_stall_ms:,.2f} ms, {self.probe_ms:,.0f} ms in all, "
                   f"{self.probe_found:,} found"))


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile of ``values`` (nan if there are none)."""
    data = sorted(values)
    if not data:
        return float("nan")
    return data[min(len(data) - 1, max(0, round(q / 100 * len(data) + 0.5) - 1))]


def _largest(values: Iterable[float | None]) -> float | None:
    """The largest of some processes' figures, None if one has none."""
    known = list(values)
    return None if any(v is None for v in known) else max(v for v in known if v is not None)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def proc_cpu_split(pid: int, thread: int | None = None) -> tuple[float, float]:
    """(user, system) CPU seconds of process ``pid`` (all its threads), or of its thread ``thread`` alone."""
    text = Path(f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def event_loop_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid``'s first thread, which runs the server's event loop
    (the rest: the grouped writer, the database threads, the computer players' searches)."""
    return sum(proc_cpu_split(pid, thread=pid))


def sleeps(pid: int) -> dict[int, int]:
    """How many times each thread of process ``pid`` went to sleep so far, by thread id (voluntary context
    switches: waiting for the network, a lock, the GIL, a queue).

    Each sleep costs a wake-up later, and on a virtual machine a thread woken
    from a long sleep runs its next work far slower than the same work done
    straight after other work (cold caches; ``benchmarks/wakeups.py`` measures
    it), so the sleeps per action are part of what the CPU per action says."""
    counts: dict[int, int] = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError, ValueError):
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    counts[int(task.name)] = int(line.split()[1])
    return counts


def slept_between(before: dict[int, int], after: dict[int, int], loop_thread: int) -> tuple[int, int]:
    """(of the thread ``loop_thread``, of all threads) sleeps from ``before`` to ``after`` (:func:`sleeps`); a
    thread that ended meanwhile is not counted, one that started is counted whole."""
    total = sum(count - before.get(thread, 0) for thread, count in after.items())
    return after.get(loop_thread, 0) - before.get(loop_thread, 0), total


def sleeps_by_thread_name(before: dict[int, int], after: dict[int, int]) -> dict[str, int]:
    """Sleeps from ``before`` to ``after`` (:func:`sleeps`) summed by the threads' names (``/proc``'s ``comm``,
    which the server launcher sets to the Python thread's name)."""
    totals: Counter[str] = Counter()
    for thread, count in after.items():
        with contextlib.suppress(OSError):
            name = Path(f"/proc/{thread}/comm").read_text().strip()
            totals[name.rstrip("0123456789_")] += count - before.get(thread, 0)
    return dict(totals)


def proc_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads)."""
    return sum(proc_cpu_split(pid))


def proc_rss_mib(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB (``VmRSS``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def named_cpu_seconds(name: str) -> float:
    """User + system CPU seconds of every process whose command name is ``name`` (PostgreSQL's backends,
    Redis): what the shared services spend on the servers' behalf, for the costs per action."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError):
            text = stat.read_text()
            if text[text.index("(") + 1 : text.rindex(")")] == name:
                total += sum(proc_cpu_split(int(stat.parent.name)))
    return total


def machine_cpu() -> tuple[float, float]:
    """(busy, total) jiffies of all CPUs together, from ``/proc/stat``."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    total = sum(values[:8])
    return total - idle, total


class Pause(NamedTuple):
    """One garbage collection in the server: when it began (epoch seconds), how long it stopped the
    server, the CPU time it used meanwhile, and the generation collected."""

    start: float
    seconds: float
    cpu_seconds: float
    generation: int


class Probed(NamedTuple):
    """One probe of the old generation by the server's collector (nardy.server.runtime.garbage_probe)."""

    start: float
    """When it forked (epoch seconds)."""
    seconds: float
    """From the fork to the child's report."""
    stall_ms: float
    """How long the fork held the server's interpreter."""


class Server:
    """One ``python -m nardy.server`` process (optionally under py-spy) with a fresh data directory."""

    def __init__(self, profile: Path | None, label: str, *, native: bool = False, root: Path = ROOT,
                 env: dict[str, str] | None = None, cpu_cap: float | None = None) -> None:
        self.native = native
        self.cap_cores = cpu_cap
        self.cap: CpuCap | None = None
        self.root = root
        self.extra_env = env or {}
        self.port = free_port()
        self.data_dir = Path(tempfile.mkdtemp(prefix="nardy-load-"))
        self.gc_path = self.data_dir / "gc.log"
        self.log_path = self.data_dir / "server.log"
        self.profile_path = profile / f"server-{label}.txt" if profile is not None else None
        self.url = f"http://127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None
        self.pid = 0

    def start(self) -> None:
        """Start the process and wait until it listens."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("NARDY_")}
        env.update({
            "NARDY_ENVIRONMENT": "testing",
            "NARDY_DATA_DIR": str(self.data_dir),
            "NARDY_HOST": "127.0.0.1",
            "NARDY_PORT": str(self.port),
            # every simulated player connects from 127.0.0.1: lift the per-address socket cap out of the way
            "NARDY_MAX_SOCKETS_PER_ADDRESS": "1000000",
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        })
        command = [sys.executable, "-c", SERVER_LAUNCHER, str(self.gc_path)]
        log = self.log_path.open("wb")
        self._process = subprocess.Popen(command, cwd=self.root, env=env, stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        if self.cap_cores is not None:  # made here, not earlier, so that cleanup() always follows it
            self.cap = CpuCap(self.cap_cores)
            self.cap.add(self._process.pid)
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"the server exited at start:\n{self.log_tail()}")
            self.pid = self._process.pid
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            time.sleep(0.2)
        raise RuntimeError(f"the server did not listen within {SERVER_START_TIMEOUT:.0f} s:\n{self.log_tail()}")

    def cpu_split(self) -> tuple[float, float]:
        """(user, system) CPU seconds of the server so far."""
        return proc_cpu_split(self.pid)

    def loop_cpu_seconds(self) -> float:
        """CPU seconds of the server's event-loop thread so far."""
        return event_loop_cpu_seconds(self.pid)

    def sleeps(self) -> dict[int, int]:
        """How many times each of the server's threads slept so far, by thread id."""
        return sleeps(self.pid)

    def slept_between(self, before: dict[int, int], after: dict[int, int]) -> tuple[int, int]:
        """(of the event loop's thread, of all threads) sleeps between two counts of :meth:`sleeps`."""
        return slept_between(before, after, self.pid)

    def rss_mib(self) -> float:
        """The server's resident memory now."""
        return proc_rss_mib(self.pid)

    def start_profile(self, seconds: float) -> subprocess.Popen[bytes] | None:
        """Attach ``py-spy record`` to the server for ``seconds`` (the measured window only)."""
        if self.profile_path is None:
            return None
        spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
        command = [spy, "record", "--pid", str(self.pid), "--duration", str(max(1, round(seconds))),
                   "--rate", "200", *(["--native"] if self.native else ["--nonblocking"]),
                   "--format", "raw", "-o", str(self.profile_path)]
        return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)

    def log_tail(self, lines: int = 30) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def errors_logged(self) -> list[str]:
        """Server log lines that report an error or a traceback."""
        with contextlib.suppress(OSError):
            text = self.log_path.read_text(errors="replace")
            lines = text.splitlines()
            return [line for i, line in enumerate(lines)
                    if "ERROR" in line or "Traceback" in line or (i and "Traceback" in lines[i - 1])
                    or (line and not line[0].isspace() and "Error" in line.split(":")[0])]
        return []

    def stop(self) -> None:
        """SIGTERM (uvicorn shuts down cleanly), SIGKILL after 30 s."""
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(OSError):
                process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        self._process = None

    def gc_pauses(self, start: float, end: float) -> list[Pause]:
        """The server's garbage collections that began in [start, end)."""
        with contextlib.suppress(OSError, ValueError):
            rows = [line.split() for line in self.gc_path.read_text().splitlines()]
            return [Pause(float(t), float(wall), float(cpu), int(g)) for t, wall, cpu, g in (r for r in rows if len(r) == 4)
                    if start <= float(t) < end]
        return []

    def count_objects(self) -> None:
        """Ask the server (SIGUSR1) to log how many objects its collector tracks, and wait for the line."""
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGUSR1)
        deadline = time.monotonic() + CENSUS_TIMEOUT
        while self.census() is None and time.monotonic() < deadline:
            time.sleep(0.1)

    def probes(self, start: float, end: float) -> list[Probed]:
        """The collector's probes of the old generation that began in [start, end)."""
        with contextlib.suppress(OSError):
            found = (PROBE_LINE.match(line) for line in self.log_path.read_text(errors="replace").splitlines())
            probes = (Probed(float(m[1]) - float(m[3]) / 1e3, float(m[3]) / 1e3, float(m[2])) for m in found if m)
            return [probe for probe in probes if start <= probe.start < end]
        return []

    def census(self) -> Census | None:
        """The collector's objects and garbage after the window, as last logged."""
        found = None
        with contextlib.suppress(OSError, ValueError):
            for line in self.gc_path.read_text().splitlines():
                parts = line.split()
                if parts and parts[0] == "objects" and len(parts) == 12:
                    gen0, gen1, gen2, frozen, garbage = (int(p) for p in parts[2:7])
                    stall, probe, probe_found = (None if p == "-" else p for p in parts[9:12])
                    found = Census((gen0, gen1, gen2), frozen, garbage, float(parts[7]), float(parts[8]),
                                   None if stall is None else float(stall), None if probe is None else float(probe),
                                   None if probe_found is None else int(probe_found))
        return found

    def throttled(self) -> tuple[int, float]:
        """(periods, seconds) its CPU cap has held the server back so far; (0, 0.0) uncapped."""
        return self.cap.throttled() if self.cap is not None else (0, 0.0)

    def cleanup(self) -> None:
        shutil.rmtree(self.data_dir, ignore_errors=True)
        if self.cap is not None:
            self.cap.remove()


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
        self._admin(f"CREATE DATABASE {self.name}")

    def drop(self) -> None:
        with contextlib.suppress(Exception):
            self._admin(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)")


HAPROXY_CONFIG = """global
    maxconn 8000
    log stdout format raw local0 info
defaults
    mode http
    log global
    log-format "%tr %ci:%cp %s %bi:%bp %ST %tsc %Tt %B %U"
    timeout connect 5s
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h
frontend players
    bind 127.0.0.1:{port}
    default_backend servers
backend servers
    balance url_param table
    hash-type consistent
{servers}
"""


class Proxy:
    """HAProxy in front of the servers: WebSockets sticky by the table in their URL, other requests spread."""

    def __init__(self, ports: list[int], data_dir: Path) -> None:
        self.port = free_port()
        self.config_path = data_dir / "haproxy.cfg"
        self.log_path = data_dir / "haproxy.log"
        self.config_path.write_text(HAPROXY_CONFIG.format(port=self.port, servers="\n".join(
            f"    server s{i} 127.0.0.1:{port}" for i, port in enumerate(ports))))
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        if not Path(binary).exists():
            raise RuntimeError("several processes need HAProxy in front of them: apt-get install haproxy")
        with self.log_path.open("ab") as log:
            self._process = subprocess.Popen([binary, "-f", str(self.config_path), "-db"], stdout=log,
                                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"haproxy exited: {self._process.stderr.read().decode(errors='replace')[-500:]}"
                                   if self._process.stderr else "haproxy exited")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            time.sleep(0.1)
        raise RuntimeError("haproxy did not listen within 10 s")

    def cpu_seconds(self) -> float:
        return proc_cpu_seconds(self._process.pid) if self._process is not None else 0.0

    def endings(self, client_ports: set[int]) -> tuple[Counter[str], list[str]]:
        """How HAProxy's connections ended (termination states, counted), and its log lines for the connections
        from ``client_ports`` (those the load client saw dropped) and those that ended abnormally (all but the
        readiness check's, closed during its request)."""
        states: Counter[str] = Counter()
        lines: list[str] = []
        with contextlib.suppress(OSError):
            for line in self.log_path.read_text(errors="replace").splitlines():
                fields = line.split()  # as HAPROXY_CONFIG's log-format: the client's port second, the state sixth
                if len(fields) < 6:
                    continue
                states[fields[5]] += 1
                port = fields[1].rpartition(":")[2]
                if (port.isdigit() and int(port) in client_ports) or fields[5] not in ("----", "CR--"):
                    lines.append(line)
        return states, lines

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=10)
            if self._process.poll() is None:
                self._process.kill()
        self._process = None


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

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.proxy.port}" if self.proxy is not None else self.servers[0].url

    def start(self) -> None:
        """Create the database, start the servers one by one (the first migrates), then the proxy."""
        if self.database is not None:
            self.database.create()
        for server in self.servers:
            server.start()
        if self.proxy is not None:
            self.proxy.start()

    def cpu_split(self) -> tuple[float, float]:
        splits = [server.cpu_split() for server in self.servers]
        return sum(u for u, _ in splits), sum(k for _, k in splits)

    def loop_cpu_seconds(self) -> float:
        return sum(server.loop_cpu_seconds() for server in self.servers)

    def sleeps(self) -> dict[int, int]:
        return {thread: count for server in self.servers for thread, count in server.sleeps().items()}

    def slept_between(self, before: dict[int, int], after: dict[int, int]) -> tuple[int, int]:
        loops = sum(server.slept_between(before, after)[0] for server in self.servers)
        return loops, slept_between(before, after, loop_thread=0)[1]

    def rss_mib(self) -> float:
        return sum(server.rss_mib() for server in self.servers)

    def proxy_cpu_seconds(self) -> float:
        return self.proxy.cpu_seconds() if self.proxy is not None else 0.0

    def throttled(self) -> tuple[int, float]:
        counts = [server.throttled() for server in self.servers]
        return sum(periods for periods, _ in counts), sum(seconds for _, seconds in counts)

    def start_profile(self, seconds: float) -> subprocess.Popen[bytes] | None:
        return self.servers[0].start_profile(seconds)

    def count_objects(self) -> None:
        for server in self.servers:
            server.count_objects()

    def census(self) -> Census | None:
        censuses = [server.census() for server in self.servers]
        if not censuses or any(c is None for c in censuses):
            return None
        return Census.total([c for c in censuses if c is not None])

    def probes(self, start: float, end: float) -> list[Probed]:
        return sorted(probe for server in self.servers for probe in server.probes(start, end))

    def gc_pauses(self, start: float, end: float) -> list[Pause]:
        return sorted(pause for server in self.servers for pause in server.gc_pauses(start, end))

    def errors_logged(self) -> list[str]:
        return [line for server in self.servers for line in server.errors_logged()]

    def proxy_endings(self, client_ports: set[int]) -> tuple[Counter[str], list[str]]:
        return self.proxy.endings(client_ports) if self.proxy is not None else (Counter(), [])

    def log_tail(self) -> str:
        return "\n".join(f"[process {i}]\n{server.log_tail()}" for i, server in enumerate(self.servers))

    def stop(self) -> None:
        if self.proxy is not None:
            self.proxy.stop()
        for server in self.servers:
            server.stop()
        if self.database is not None:
            self.database.drop()

    def cleanup(self) -> None:
        for server in self.servers:
            server.cleanup()
        if self.shared_dir is not None:
            shutil.rmtree(self.shared_dir, ignore_errors=True)


# --------------------------------------------------------------------------- the client processes


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
        self.renewing = False
        self.finished_tables: set[str] = set()


class Client:
    """All the players of one client process."""

    def __init__(self, config: ClientConfig) -> None:
        self.config = config
        self.rng = random.Random(f"load:{config.seed}:{config.index}")
        self.result = ClientResult()
        self.slots = [Slot(i, v, c) for i, (v, c) in enumerate(zip(config.variants, config.opponents, strict=True))]
        self.pending: dict[str, tuple[float, Player]] = {}
        self.sequence = 0
        self.playing = False
        self.window = (float("inf"), float("inf"))
        self.http: Any = None
        self.tasks: list[asyncio.Task[None]] = []

    # ----- errors

    def error(self, kind: str, detail: str) -> None:
        self.result.errors[kind] += 1
        if sum(sample.startswith(f"{kind}:") for sample in self.result.error_samples) < 10:
            self.result.error_samples.append(f"{kind}: {detail}"[:300])

    # ----- HTTP

    async def post(self, path: str, body: dict[str, Any] | None, player: Player | None) -> tuple[dict[str, Any], Any]:
        headers = {}
        if player is not None:
            headers = {"Cookie": player.cookie, "X-CSRF-Token": player.csrf}
        started = time.perf_counter()
        response = await self.http.post(self.config.url + path, json=body or {}, headers=headers)
        if self.playing:
            self.result.http_ms.append((time.perf_counter() - started) * 1000)
        if response.status_code >= 400:
            raise RuntimeError(f"POST {path}: {response.status_code} {response.text[:200]}")
        data: dict[str, Any] = response.json()
        return data, response

    async def new_guest(self, slot: Slot, index: int) -> Player:
        _, response = await self.post("/api/guest", None, None)
        cookie = SimpleCookie()
        for header in response.headers.get_list("set-cookie"):
            cookie.load(header)
        session, csrf = cookie["nardy_session"].value, cookie["nardy_csrf"].value
        return Player(slot, index, f"nardy_session={session}; nardy_csrf={csrf}", csrf)

    async def open_table(self, slot: Slot) -> str:
        creator = slot.players[0]
        body: dict[str, Any] = {"variant": slot.variant, "match_length": 1, "opponent": "human"}
        if slot.computer is not None:
            body |= {"opponent": "computer", "bot_level": slot.computer}
        data, _ = await self.post("/api/tables", body, creator)
        table_id: str = data["table"]["table"]
        for joiner in slot.players[1:]:
            await self.post(f"/api/tables/{table_id}/join", {}, joiner)
        return table_id

    # ----- WebSocket

    async def connect(self, player: Player) -> None:
        from websockets.asyncio.client import connect

        # the table in the URL lets a reverse proxy keep both players of a table on one process
        uri = self.config.url.replace("http://", "ws://") + f"/ws?table={player.slot.table_id}"
        player.ws = await connect(
            uri, additional_headers={"Cookie": player.cookie}, open_timeout=60, close_timeout=5,
            compression="deflate" if self.config.compression else None, max_size=2**20,
        )
        hello = json.loads(await asyncio.wait_for(player.ws.recv(), 60))
        if hello.get("t") != "hello" or hello.get("user") is None:
            raise RuntimeError(f"unexpected greeting {hello}")
        self.tasks.append(asyncio.create_task(self.read(player)))

    async def send(self, player: Player, message: dict[str, Any]) -> None:
        try:
            await player.ws.send(json.dumps(message))
        except Exception as error:  # noqa: BLE001 - a dropped connection is a measured error
            if not player.closing:
                self.error("send_failed", repr(error))

    async def subscribe(self, player: Player, table_id: str) -> None:
        await self.send(player, {"t": "subscribe", "table": table_id})

    async def read(self, player: Player) -> None:
        from websockets.exceptions import ConnectionClosed

        result = self.result
        try:
            async for raw in player.ws:
                result.messages_in += 1
                result.bytes_in += len(raw)
                self.handle(player, json.loads(raw))
        except ConnectionClosed as closed:
            if not player.closing:
                self.error("connection_dropped", f"player {player.slot.index}/{player.index} at "
                           f"{datetime.datetime.now(datetime.timezone.utc):%H:%M:%S.%f}, port "
                           f"{player.ws.local_address[1]}: {closed!r}")
            return
        if not player.closing:
            self.error("connection_dropped", f"player {player.slot.index}/{player.index}: closed by the server")

    def handle(self, player: Player, message: dict[str, Any]) -> None:
        kind = message.get("t")
        if kind == "ack":
            sent = self.pending.pop(message.get("action_id", ""), None)
            if sent is not None:
                now = time.perf_counter()
                self.result.accepted_total += 1
                if self.window[0] <= sent[0] < self.window[1]:
                    self.result.latencies_ms.append((now - sent[0]) * 1000)
                    self.result.sent_at.append(time.time() - (now - sent[0]))
                if self.window[0] <= now < self.window[1]:
                    self.result.accepted += 1
        elif kind in ("sync", "events"):
            if message.get("table") != player.slot.table_id:
                return
            version = int(message["version"])
            if version <= player.version:
                return
            changes = message.get("changes")
            if changes is not None:
                if message["from_version"] != player.version + 1 or player.state is None:
                    self.error("changes_without_base", json.dumps(message)[:300])
                    return
                player.state = apply_changes(player.state, changes)
            else:
                player.state = message["state"]
            player.version = version
            player.changed_at = time.perf_counter()
            player.synced.set()
            player.changed.set()
        elif kind == "error":
            action_id = message.get("action_id")
            self.pending.pop(action_id or "", None)
            self.error(f"error:{message.get('code')}", json.dumps(message))
            player.errors += 1
            player.acted_version = -1
            player.changed.set()

    # ----- play

    def choose(self, player: Player, state: dict[str, Any]) -> dict[str, Any] | None:
        from nardy.notation import position_from_dict

        game = state.get("game") or {}
        phase = game.get("phase")
        table = player.slot.table_id
        if phase == "rolling":
            return {"t": "roll", "table": table}
        if phase == "moving":
            plays = position_from_dict(game["boards"][player.seat]).legal_plays(game["dice"])
            if not plays:
                return None
            play = self.rng.choice(plays)
            steps = [{"source": s.source, "target": s.target, "die": s.die, "hit": s.hit} for s in play.steps]
            return {"t": "move", "table": table, "steps": steps}
        return None

    async def play(self, player: Player) -> None:
        think = self.config.think
        while self.playing:
            await player.changed.wait()
            player.changed.clear()
            state = player.state
            if state is None or not self.playing:
                continue
            if state.get("status") == "finished":
                if player.index == 0 and state["table"] not in player.slot.finished_tables:
                    player.slot.finished_tables.add(state["table"])
                    await self.renew(player.slot)
                continue
            if state.get("actor") != player.seat or player.acted_version >= player.version:
                continue
            if player.errors > MAX_ERRORS_PER_PLAYER:
                return
            await asyncio.sleep(self.rng.expovariate(1 / think) if think > 0 else 0)
            state = player.state
            if not self.playing or state is None or state.get("actor") != player.seat:
                continue
            if player.acted_version >= player.version:
                continue
            action = self.choose(player, state)
            if action is None:
                continue
            self.sequence += 1
            action_id = f"a{self.config.index}.{self.sequence}"
            action["action_id"] = action_id
            player.acted_version = player.version
            self.pending[action_id] = (time.perf_counter(), player)
            await self.send(player, action)

    async def renew(self, slot: Slot) -> None:
        """The match ended: the same players open (and join) a new table."""
        self.result.games_finished += 1
        try:
            table_id = await self.open_table(slot)
        except Exception as error:  # noqa: BLE001 - measured
            self.error("http_failed", repr(error))
            return
        old = slot.table_id
        slot.table_id = table_id
        self.result.tables_opened += 1
        for player in slot.players:
            player.version = -1
            player.acted_version = -1
            player.state = None
            await self.send(player, {"t": "unsubscribe", "table": old})
            await self.subscribe(player, table_id)

    # ----- phases

    async def setup(self) -> None:
        import httpx
        from http.cookiejar import CookieJar, DefaultCookiePolicy

        started = time.monotonic()
        jar = CookieJar(policy=DefaultCookiePolicy(allowed_domains=[]))  # cookies are sent per player
        self.http = httpx.AsyncClient(cookies=jar, timeout=HTTP_TIMEOUT,
                                      limits=httpx.Limits(max_connections=16, max_keepalive_connections=16))
        limit = asyncio.Semaphore(16)

        async def prepare(slot: Slot) -> None:
            async with limit:
                people = 1 if slot.computer is not None else 2
                slot.players = [await self.new_guest(slot, index) for index in range(people)]
                slot.table_id = await self.open_table(slot)
                for player in slot.players:
                    await self.connect(player)
                    await self.subscribe(player, slot.table_id)

        await asyncio.gather(*(prepare(slot) for slot in self.slots))
        for slot in self.slots:
            for player in slot.players:
                await asyncio.wait_for(player.synced.wait(), max(1.0, self.config.setup_timeout - (time.monotonic() - started)))
        self.result.setup_seconds = time.monotonic() - started

    async def run(self, go_at: float, window_start: float, window_end: float) -> None:
        """Play from ``go_at`` (wall clock) and measure between the window's bounds."""
        loop = asyncio.get_running_loop()
        offset = time.perf_counter() - time.time()
        await asyncio.sleep(max(0.0, go_at - time.time()))
        self.window = (window_start + offset, window_end + offset)
        self.playing = True
        players = [p for slot in self.slots for p in slot.players]
        for player in players:
            player.changed.set()
            self.tasks.append(asyncio.create_task(self.play(player)))
        gc.collect()
        gc.disable()  # a collection of the client's own objects counts in every round trip under way then
        try:
            await asyncio.sleep(max(0.0, window_start - time.time()))
            cpu_start = time.process_time()
            await asyncio.sleep(max(0.0, window_end - time.time()))
            self.result.cpu_seconds = time.process_time() - cpu_start
            self.report_stalled()
            await asyncio.sleep(max(0.0, window_end + PLAY_PAST_WINDOW - time.time()))
            self.playing = False
            for player in players:
                player.changed.set()
            drain_until = loop.time() + DRAIN_TIMEOUT
            while self.pending and loop.time() < drain_until:
                await asyncio.sleep(0.05)
        finally:
            gc.enable()
        for action_id, (_, player) in self.pending.items():
            self.error("unanswered", f"{action_id} of player {player.slot.index}/{player.index}")

    def report_stalled(self) -> None:
        """An error for each game that did not change for any of its players during the window: one that waits
        for a message nobody sends fails no action, and would otherwise only thin the load unseen."""
        for slot in self.slots:
            if slot.players and max(player.changed_at for player in slot.players) < self.window[0]:
                state = slot.players[0].state or {}
                game = state.get("game") or {}
                self.error("stalled", f"table {slot.table_id} ({slot.variant}) at version "
                           f"{[player.version for player in slot.players]}, status {state.get('status')}, actor "
                           f"{state.get('actor')}, phase {game.get('phase')}, ports "
                           f"{[player.ws.local_address[1] for player in slot.players]}")

    async def close(self) -> None:
        players = [p for slot in self.slots for p in slot.players]
        for player in players:
            player.closing = True
        self.playing = False
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

        async def close_one(player: Player) -> None:
            if player.ws is not None:
                with contextlib.suppress(Exception):
                    await player.ws.close()

        await asyncio.wait_for(asyncio.gather(*(close_one(p) for p in players), return_exceptions=True), 20)
        if self.http is not None:
            await self.http.aclose()


def client_main(conn: multiprocessing.connection.Connection, config: ClientConfig) -> None:
    """A client process: set up, report ready, wait for the start time, play, report the results."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()

    async def main() -> None:
        client = Client(config)
        try:
            try:
                await asyncio.wait_for(client.setup(), config.setup_timeout)
            except Exception as error:  # noqa: BLE001 - reported to the parent
                conn.send(("failed", f"setup: {error!r}"))
                return
            conn.send(("ready", client.result.setup_seconds))
            loop = asyncio.get_running_loop()
            ready = asyncio.Event()
            loop.add_reader(conn.fileno(), ready.set)
            await asyncio.wait_for(ready.wait(), 600)
            loop.remove_reader(conn.fileno())
            os.set_blocking(conn.fileno(), True)  # uvloop left it non-blocking: a long run's results outgrow the pipe
            command, go_at, window_start, window_end = conn.recv()
            if command != "go":
                return
            await asyncio.wait_for(client.run(go_at, window_start, window_end),
                                   window_end + PLAY_PAST_WINDOW - time.time() + DRAIN_TIMEOUT + 30)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.close(), CLIENT_STOP_TIMEOUT)
        conn.send(("done", client.result))

    asyncio.run(main())


# --------------------------------------------------------------------------- one level


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

    def looks(self) -> list[tuple[float, float]]:
        """(start, end), in epoch seconds, of each collection of the old generation (2) and each probe of it."""
        return sorted([(p.start, p.start + p.seconds) for p in self.gc if p.generation == 2]
                      + [(p.start, p.start + p.seconds) for p in self.probes])

    def caught_latencies(self) -> list[float]:
        """The round trips under way at some moment while the old generation was being collected or probed."""
        looks = self.looks()
        return [ms for ms, sent in zip(self.latencies_ms, self.sent_at)
                if any(sent < end and sent + ms / 1e3 > start for start, end in looks)]

    def slowest_summary(self) -> str:
        slowest = sorted(zip(self.latencies_ms, self.sent_at), reverse=True)[:SLOWEST]
        return ", ".join(f"{ms:,.0f} @ {sent - self.window_start:.1f}" for ms, sent in slowest) or "-"

    def looks_summary(self) -> str:
        collections = [f"{p.start - self.window_start:.1f}: collected, {p.seconds * 1e3:.0f}"
                       for p in self.gc if p.generation == 2]
        probes = [f"{p.start - self.window_start:.1f}: probed, {p.seconds * 1e3:.0f}; {p.stall_ms:.1f}"
                  for p in self.probes]
        return ", ".join(collections + probes) or "-"

    def caught_summary(self) -> str:
        caught = self.caught_latencies()
        if not caught:
            return "-"
        return f"{len(caught)}, {percentile(caught, 50):,.1f} / {percentile(caught, 99):,.1f} / {max(caught):,.1f}"

    def gc_summary(self) -> str:
        by_generation: dict[int, list[Pause]] = {}
        for pause in self.gc:
            by_generation.setdefault(pause.generation, []).append(pause)
        total = sum(pause.seconds for pause in self.gc) * 1000
        parts = [f"gen{g}: {len(v)} × {statistics.mean(p.seconds for p in v) * 1000:.1f} ms "
                 f"(max {max(p.seconds for p in v) * 1000:.0f}; CPU max {max(p.cpu_seconds for p in v) * 1000:.0f})"
                 for g, v in sorted(by_generation.items())]
        if not parts:
            return "none"
        cpu_per_action = sum(pause.cpu_seconds for pause in self.gc) * 1000 / max(self.accepted, 1)
        return (f"{total / self.duration / 10:.1f} % of the window, "
                f"{cpu_per_action:.3f} ms of CPU per accepted action; " + "; ".join(parts))

    @property
    def longest_gc_ms(self) -> tuple[float, float]:
        """The longest collection's wall time, and the most CPU time one collection took, in ms."""
        return (max((p.seconds * 1000 for p in self.gc), default=0.0),
                max((p.cpu_seconds * 1000 for p in self.gc), default=0.0))

    @property
    def rate(self) -> float:
        return self.accepted / self.duration

    @property
    def cpu_ms_per_action(self) -> float:
        return self.server_cpu_pct * 10 * self.duration / self.accepted if self.accepted else float("nan")

    @property
    def sleeps_per_action(self) -> tuple[float, float]:
        """(the event loop's thread's, all threads') sleeps per accepted action in the window."""
        if not self.accepted:
            return float("nan"), float("nan")
        return self.sleeps[0] / self.accepted, self.sleeps[1] / self.accepted

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    def percentile(self, q: float) -> float:
        return percentile(self.latencies_ms, q)

    @property
    def holds(self) -> bool:
        return self.failed is None and self.error_count == 0 and self.percentile(99) < P99_TARGET_MS


P99_TARGET_MS = 100.0


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


def run_level(games: int, args: argparse.Namespace, weights: list[tuple[str, float]], spec: ServerSpec) -> Level:
    level = Level(games=games, duration=args.duration, think=args.think, server=spec.label, computer=args.computer,
                  machine_cpus=os.cpu_count() or 1)
    server = Cluster(spec, args.profile, f"{spec.label}-{games}", native=args.profile_native)
    contexts: list[tuple[multiprocessing.process.BaseProcess, multiprocessing.connection.Connection]] = []
    context = multiprocessing.get_context("spawn")
    setup_timeout = 120 + 0.2 * games
    window_start = window_end = float("inf")
    try:
        server.start()
        variants = pick_variants(weights, games, args.seed)
        opponents = pick_opponents(games, args.computer, args.computer_level, args.seed)
        for index in range(args.clients):
            parent_end, child_end = context.Pipe()
            config = ClientConfig(index=index, url=server.url, variants=variants[index:: args.clients],
                                  opponents=opponents[index:: args.clients], think=args.think, seed=args.seed,
                                  compression=not args.no_compression, setup_timeout=setup_timeout)
            spawned = context.Process(target=client_main, args=(child_end, config), daemon=True)
            spawned.start()
            child_end.close()
            contexts.append((spawned, parent_end))
        setups = []
        for process, conn in contexts:
            if not conn.poll(setup_timeout + 30):
                raise RuntimeError(f"a client was not ready within {setup_timeout + 30:.0f} s")
            status, value = conn.recv()
            if status != "ready":
                raise RuntimeError(f"a client failed: {value}")
            setups.append(value)
        level.setup_seconds = max(setups)
        level.rss_after_setup = server.rss_mib()
        go_at = time.time() + 1.0
        window_start = go_at + args.warmup
        window_end = window_start + args.duration
        for _, conn in contexts:
            conn.send(("go", go_at, window_start, window_end))
        # sample the server and the machine
        time.sleep(max(0.0, window_start - time.time()))
        load_start = os.getloadavg()[0]
        profiler = server.start_profile(args.duration)
        split0, proxy0, loop0 = server.cpu_split(), server.proxy_cpu_seconds(), server.loop_cpu_seconds()
        throttled0 = server.throttled()
        sleeps0 = server.sleeps()
        services0 = {name: named_cpu_seconds(name) for name in SERVICES}
        cpu0, busy0 = sum(split0), machine_cpu()
        level.rss_start = level.rss_max = server.rss_mib()
        level.rss_series.append((0.0, level.rss_start))
        previous, previous_at = cpu0, time.monotonic()
        while time.time() < window_end:
            time.sleep(min(1.0, max(0.0, window_end - time.time())))
            cpu, at = sum(server.cpu_split()), time.monotonic()
            if at - previous_at > 0.5:
                level.server_cpu_max_1s = max(level.server_cpu_max_1s, (cpu - previous) / (at - previous_at) * 100)
            previous, previous_at = cpu, at
            rss = server.rss_mib()
            level.rss_max = max(level.rss_max, rss)
            into = time.time() - window_start
            if into >= level.rss_series[-1][0] + args.rss_every:
                level.rss_series.append((into, rss))
        split1, loop1 = server.cpu_split(), server.loop_cpu_seconds()
        sleeps1 = server.sleeps()
        level.sleeps = server.slept_between(sleeps0, sleeps1)
        level.sleeps_by_thread = sleeps_by_thread_name(sleeps0, sleeps1)
        level.proxy_cpu_pct = (server.proxy_cpu_seconds() - proxy0) / args.duration * 100
        throttled1 = server.throttled()
        if spec.cpu_per_process is not None:
            level.throttled = (throttled1[0] - throttled0[0], throttled1[1] - throttled0[1])
        level.services_cpu_pct = {name: (named_cpu_seconds(name) - services0[name]) / args.duration * 100
                                  for name in SERVICES}
        cpu1, busy1 = sum(split1), machine_cpu()
        level.server_sys_share = (split1[1] - split0[1]) / max(1e-9, cpu1 - cpu0) * 100
        level.loop_cpu_share = (loop1 - loop0) / max(1e-9, cpu1 - cpu0) * 100
        level.rss_end = server.rss_mib()
        level.rss_series.append((args.duration, level.rss_end))
        time.sleep(CENSUS_GRACE)
        server.count_objects()  # after the window's actions are answered, so that it costs the window nothing
        level.load = (load_start, os.getloadavg()[0])
        level.server_cpu_pct = (cpu1 - cpu0) / args.duration * 100
        level.machine_cpu_pct = (busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1]) * 100 * level.machine_cpus
        if profiler is not None:
            try:
                _, spy_errors = profiler.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                profiler.kill()
                _, spy_errors = profiler.communicate()
            if profiler.returncode:
                print(f"py-spy failed: {spy_errors.decode(errors='replace')[-500:]}")
        for process, conn in contexts:
            if not conn.poll(DRAIN_TIMEOUT + CLIENT_STOP_TIMEOUT + 60):
                raise RuntimeError("a client did not report its results in time")
            status, result = conn.recv()
            if status != "done":
                raise RuntimeError(f"a client failed: {result}")
            level.accepted += result.accepted
            level.latencies_ms.extend(result.latencies_ms)
            level.sent_at.extend(result.sent_at)
            level.errors.update(result.errors)
            level.error_samples.extend(result.error_samples)
            level.client_cpu_pct.append(result.cpu_seconds / args.duration * 100)
            level.games_finished += result.games_finished
            level.http_ms.extend(result.http_ms)
            level.messages_in += result.messages_in
            level.bytes_in += result.bytes_in
            process.join(10)
    except Exception as error:  # noqa: BLE001 - a failed level is reported, the run goes on
        level.failed = str(error)
    finally:
        for process, _ in contexts:
            if process.is_alive():
                process.terminate()
                process.join(5)
            if process.is_alive():
                process.kill()
                process.join(5)
        server.stop()
        level.gc = server.gc_pauses(window_start, window_end)
        level.probes = server.probes(window_start, window_end)
        level.window_start = window_start
        level.census = server.census()
        level.server_log_errors = server.errors_logged()
        level.proxy_states, level.proxy_lines = server.proxy_endings(
            {port for sample in level.error_samples for port in ports_named(sample)})
        if level.failed is not None:
            level.failed += "\n--- server log tail ---\n" + server.log_tail()
        server.cleanup()
    if args.profile is not None and server.profile_path is not None and server.profile_path.exists():
        print_profile(server.profile_path, games)
    return level


# --------------------------------------------------------------------------- reporting


def machine_info() -> list[str]:
    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return [
        f"date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M UTC}",
        f"machine: {cpu}, nproc {os.cpu_count()}, {platform.system()} {platform.release()}",
        f"python: {platform.python_implementation()} {platform.python_version()}",
        f"load average at start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}",
    ]


def rss_trend(series: list[tuple[float, float]]) -> str:
    """The slope of RSS over the second half of the window, in MiB per 10 minutes (start-up growth left out)."""
    half = series[-1][0] / 2 if series else 0.0
    late = [(t, m) for t, m in series if t >= half]
    if len(late) < 3:
        return "too few samples (a longer window, or a smaller --rss-every)"
    slope = statistics.linear_regression([t for t, _ in late], [m for _, m in late]).slope
    return f"{slope * 600:+.1f} MiB per 10 min ({len(late)} samples)"


def ports_named(error_sample: str) -> list[int]:
    """The client ports an error sample names: a dropped connection's, or a stalled game's players'."""
    ports = [int(port) for port in re.findall(r", port (\d+):", error_sample)]
    for listed in re.findall(r"ports \[([\d, ]+)\]", error_sample):
        ports.extend(int(port) for port in listed.split(","))
    return ports


def print_level(level: Level) -> None:
    n = level.games
    print(f"\n### {n} concurrent games\n")
    if level.failed is not None:
        print(f"FAILED: {level.failed}")
        for line in level.server_log_errors[:10]:
            print(f"  server log: {line[:300]}")
        return
    # a game against the computer offers half as many actions to acknowledge: only the person's
    offered = n * (1 - level.computer / 2) / level.think if level.think > 0 else float("nan")
    rows = [
        ("accepted actions/s", f"{level.rate:,.1f} (offered ≈ {offered:,.0f})"),
        ("round trip p50 / p95 / p99 / max (ms)",
         " / ".join(f"{level.percentile(q):,.1f}" for q in (50, 95, 99)) + f" / {max(level.latencies_ms, default=float('nan')):,.1f}"),
        ("actions timed", f"{len(level.latencies_ms):,}"),
        ("errors", f"{level.error_count}" + (f" ({', '.join(f'{k}: {v}' for k, v in level.errors.most_common())})" if level.errors else "")),
        ("server CPU % (window mean / max 1 s)", f"{level.server_cpu_pct:.0f} / {level.server_cpu_max_1s:.0f}"),
        ("server CPU ms per accepted action (of which in the kernel; on the event loop's thread)",
         f"{level.cpu_ms_per_action:.2f} ({level.server_sys_share:.0f} %; {level.loop_cpu_share:.0f} %)"),
        ("server threads' sleeps per accepted action (all threads / the event loop's)",
         f"{level.sleeps_per_action[1]:.2f} / {level.sleeps_per_action[0]:.2f}"),
        ("server threads' sleeps per accepted action, by thread name", ", ".join(
            f"{name} {count / max(level.accepted, 1):.2f}"
            for name, count in sorted(level.sleeps_by_thread.items(), key=lambda item: -item[1]))),
        ("server RSS MiB (after setup / start / end / max)",
         f"{level.rss_after_setup:.0f} / {level.rss_start:.0f} / {level.rss_end:.0f} / {level.rss_max:.0f}"),
        ("server RSS MiB over the window (s: MiB)", ", ".join(f"{t:.0f}: {m:.0f}" for t, m in level.rss_series)),
        ("server RSS trend over the window's second half (least squares)", rss_trend(level.rss_series)),
        ("client CPU % per process", ", ".join(f"{c:.0f}" for c in level.client_cpu_pct)),
        ("proxy CPU %", f"{level.proxy_cpu_pct:.0f}"),
        ("server processes held back by their CPU caps (periods; seconds waited)",
         "-" if level.throttled is None else f"{level.throttled[0]:,}; {level.throttled[1]:.1f}"),
        ("PostgreSQL / Redis CPU % (every process of the machine's services; ms per action)", " / ".join(
            f"{level.services_cpu_pct.get(name, 0.0):.0f} ({level.services_cpu_pct.get(name, 0.0) * 10 / max(level.rate, 1e-9):.2f})"
            for name in SERVICES)),
        ("machine CPU % (all processes, of " + f"{level.machine_cpus * 100})", f"{level.machine_cpu_pct:.0f}"),
        ("load average (1 min) window start / end", f"{level.load[0]:.2f} / {level.load[1]:.2f}"),
        ("messages received by clients", f"{level.messages_in:,} ({level.bytes_in / 1e6:,.1f} MB of JSON)"),
        ("matches finished (new table opened)", f"{level.games_finished}"),
        ("HTTP create+join during play p50 / max (ms)",
         f"{statistics.median(level.http_ms):,.0f} / {max(level.http_ms):,.0f}" if level.http_ms else "-"),
        ("setup (guests, tables, connections) s", f"{level.setup_seconds:.1f}"),
        ("server garbage collections in the window", level.gc_summary()),
        ("the slowest round trips (ms @ s into the window)", level.slowest_summary()),
        ("the old generation collected or probed (s into the window: ms; a probe's stall ms)",
         level.looks_summary()),
        ("round trips under way during those: count, p50 / p99 / max ms", level.caught_summary()),
        ("objects tracked by the server's gc after the window (gen0 / gen1 / gen2 / frozen / cyclic garbage)",
         "-" if level.census is None else level.census.summary()),
        ("server log errors", f"{len(level.server_log_errors)}"),
        ("HAProxy's connections by termination state", ", ".join(
            f"{state}: {count}" for state, count in level.proxy_states.most_common()) or "-"),
    ]
    print(f"| N = {n}, server {level.server} | |\n| --- | --- |")
    for name, value in rows:
        print(f"| {name} | {value} |")
    shown: Counter[str] = Counter()
    for sample in level.error_samples:  # up to five of each kind
        kind = sample.partition(":")[0]
        shown[kind] += 1
        if shown[kind] <= 5:
            print(f"  error sample: {sample}")
    for line in level.server_log_errors[:5]:
        print(f"  server log: {line[:300]}")
    for line in level.proxy_lines[:5]:
        print(f"  HAProxy log, dropped or ended abnormally: {line[:300]}")


def print_summary(levels: list[Level]) -> None:
    print("\n### Summary\n")
    print("| server | games | accepted actions/s | p50 ms | p95 ms | p99 ms | max ms | errors | server CPU % "
          "| server CPU ms/action | of which the loop's thread | sleeps/action (loop's) | longest gc ms (its CPU ms) | server RSS MiB "
          "| client CPU % | machine CPU % |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for level in levels:
        if level.failed is not None:
            print(f"| {level.server} | {level.games} | failed | | | | | | | | | | | | | |")
            continue
        longest, longest_cpu = level.longest_gc_ms
        print(f"| {level.server} | {level.games} | {level.rate:,.1f} | {level.percentile(50):,.1f} | {level.percentile(95):,.1f} | "
              f"{level.percentile(99):,.1f} | {max(level.latencies_ms, default=float('nan')):,.1f} | {level.error_count} | "
              f"{level.server_cpu_pct:.0f} | {level.cpu_ms_per_action:.2f} | "
              f"{level.cpu_ms_per_action * level.loop_cpu_share / 100:.2f} | "
              f"{level.sleeps_per_action[1]:.2f} ({level.sleeps_per_action[0]:.2f}) | {longest:.0f} ({longest_cpu:.0f}) | {level.rss_max:.0f} | "
              f"{', '.join(f'{c:.0f}' for c in level.client_cpu_pct)} | {level.machine_cpu_pct:.0f} |")
    for label in dict.fromkeys(level.server for level in levels):
        mine = [level for level in levels if level.server == label and level.failed is None]
        costs = [level.cpu_ms_per_action for level in mine if level.accepted]
        if costs:
            cost = statistics.median(costs)
            print(f"\n{label}: at the median {cost:.2f} ms of server CPU per action, one fully available core would "
                  f"serve at most {1000 / cost:,.0f} actions/s ≈ {1000 / cost * levels[0].think:,.0f} games at this "
                  "think time, at 100 % utilisation.")
        holding = [level.games for level in mine if level.holds]
        best = max(holding) if holding else None
        print(f"{label}: largest N with p99 < {P99_TARGET_MS:.0f} ms and no errors: "
              f"{best if best is not None else 'none of those tried'}")


def print_profile(path: Path, games: int, top: int = 25) -> None:
    """Self and inclusive time per function from py-spy's raw (collapsed stack) output."""
    own: Counter[str] = Counter()  # with --profile-native, C frames are named too
    inclusive: Counter[str] = Counter()
    total = 0
    for line in path.read_text(errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        frames = [_frame_name(f) for f in stack.split(";") if not f.startswith("process ") and not f.startswith("thread ")]
        if not frames:
            continue
        own[frames[-1]] += count
        for name in set(frames):
            inclusive[name] += count
    if not total:
        return
    print(f"\n#### py-spy profile of the server during the window, {games} games "
          f"({total:,} non-idle samples at 200 Hz, {path})\n")
    print("| own % | function |\n| ---: | --- |")
    for name, count in own.most_common(top):
        print(f"| {count / total * 100:.1f} | `{name}` |")
    print("\n| inclusive % | function |\n| ---: | --- |")
    for name, count in inclusive.most_common(top + 15):
        print(f"| {count / total * 100:.1f} | `{name}` |")


def _frame_name(frame: str) -> str:
    """``function (path/to/file.py:123)`` → ``function (file.py)``, so lines of one function add up."""
    name, _, where = frame.partition(" (")
    where = where.rstrip(")")
    file = where.rsplit(":", 1)[0]
    parts = Path(file).parts
    if "site-packages" in parts:
        file = "/".join(parts[parts.index("site-packages") + 1 :])
    elif "nardy" in parts:
        file = "/".join(parts[parts.index("nardy") :])
    else:
        file = Path(file).name
    return f"{name} ({file})"


def parse_variants(text: str) -> list[tuple[str, float]]:
    from nardy.rules import VARIANTS

    weights = []
    for part in text.split(","):
        name, _, weight = part.partition("=")
        if name not in VARIANTS:
            raise SystemExit(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}")
        weights.append((name, float(weight or 1)))
    return weights


def parse_servers(servers: list[str], envs: list[str]) -> list[ServerSpec]:
    """The servers to compare, from ``LABEL=DIR`` and ``LABEL:KEY=VALUE`` arguments."""
    roots = dict(part.split("=", 1) for part in servers) if servers else {"this": str(ROOT)}
    env: dict[str, dict[str, str]] = {label: {} for label in roots}
    for part in envs:
        label, _, assignment = part.partition(":")
        key, _, value = assignment.partition("=")
        if label not in env or not key:
            raise SystemExit(f"--server-env {part!r}: give LABEL:KEY=VALUE for a LABEL of --server")
        env[label][key] = value
    return [ServerSpec(label, Path(root).resolve(), env[label]) for label, root in roots.items()]


DEFAULT_MAX_CONNECTIONS = 2048
"""The server's own ``NARDY_MAX_CONNECTIONS``: connections per process beyond which HTTP gets 503."""


def connection_cap(games: int, processes: int) -> dict[str, str]:
    """``NARDY_MAX_CONNECTIONS`` for ``games`` games over ``processes`` processes, where the default would refuse
    the setup: two sockets a game, the proxy's spread a quarter uneven, 256 HTTP connections beside them."""
    needed = math.ceil(2 * games / processes * 1.25) + 256
    return {"NARDY_MAX_CONNECTIONS": str(needed)} if needed > DEFAULT_MAX_CONNECTIONS else {}


def commit_of(root: Path) -> str:
    """The checkout's commit, with "+changes" when its working tree differs from it."""
    def git(*command: str) -> str:
        return subprocess.run(["git", "-C", str(root), *command], capture_output=True, text=True).stdout.strip()
    return (git("rev-parse", "--short", "HEAD") or "?") + (" +changes" if git("status", "--porcelain", "nardy") else "")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[100, 500, 1000], help="concurrent games per level")
    parser.add_argument("--think", type=float, default=2.0, help="mean think time before each action, seconds")
    parser.add_argument("--duration", type=float, default=60.0, help="measured window per level, seconds")
    parser.add_argument("--warmup", type=float, default=10.0, help="play before the window, seconds")
    parser.add_argument("--clients", type=int, default=1, help="client processes")
    parser.add_argument("--variants", default=DEFAULT_VARIANTS, help="variant=weight,... of the tables")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-compression", action="store_true", help="do not offer permessage-deflate")
    parser.add_argument("--computer", type=float, default=0.0,
                        help="share of the games played against the computer (0 to 1); the server then waits "
                             "--think seconds before each computer action (NARDY_BOT_DELAY_SECONDS), as people do")
    parser.add_argument("--computer-level", default="intermediate", help="the computer's level in those games")
    parser.add_argument("--rss-every", type=float, default=60.0,
                        help="seconds between the samples of the server's RSS reported over the window (a soak)")
    parser.add_argument("--profile", type=Path, default=None, help="profile the server with py-spy during the window; write to DIR")
    parser.add_argument("--profile-native", action="store_true",
                        help="with --profile: include C frames (py-spy pauses the server for each sample)")
    parser.add_argument("--server", action="append", default=[], metavar="LABEL=DIR",
                        help="run each level against the server of checkout DIR too, named LABEL (repeatable; "
                             "default: this checkout only), one after the other, --rounds times")
    parser.add_argument("--server-env", action="append", default=[], metavar="LABEL:KEY=VALUE",
                        help="an extra environment variable for the server named LABEL (repeatable)")
    parser.add_argument("--rounds", type=int, default=1, help="times each (level, server) pair runs, interleaved")
    parser.add_argument("--processes", type=int, default=1,
                        help="server processes per level: more than one share a database and Redis behind HAProxy "
                             "(apt-get install haproxy), WebSockets sticky by table")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite",
                        help="postgresql: a fresh database per level on --postgres-url's server")
    parser.add_argument("--postgres-url", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        help="an admin connection to the PostgreSQL server (creates and drops the level's database)")
    parser.add_argument("--cpu-per-process", type=float, default=None, metavar="CORES",
                        help="cap every server process at this share of a core (a cgroup's CPU quota; needs root), "
                             "so that one process is a fixed amount of CPU on a small machine")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0", help="the Redis of several processes")
    parser.add_argument("--json", type=Path, default=None, help="also write the results as JSON")
    args = parser.parse_args(argv)
    weights = parse_variants(args.variants)
    if not 0 <= args.computer <= 1:
        parser.error("--computer is a share of the games, from 0 to 1")
    bot_delay = {"NARDY_BOT_DELAY_SECONDS": str(args.think)} if args.computer else {}
    cap = connection_cap(max(args.games), args.processes)
    specs = [replace(spec, processes=args.processes, redis_url=args.redis_url, env={**bot_delay, **cap, **spec.env},
                     cpu_per_process=args.cpu_per_process,
                     database_url=args.postgres_url if args.database == "postgresql" else None)
             for spec in parse_servers(args.server, args.server_env)]
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
    budget = len(specs) * args.rounds * sum(SERVER_START_TIMEOUT + 150 + 0.2 * n + args.warmup + args.duration
                                            + DRAIN_TIMEOUT + CLIENT_STOP_TIMEOUT + 100 for n in args.games)

    def out_of_time(_signum: int, _frame: object) -> None:
        raise TimeoutError(f"the whole run exceeded its {budget:.0f} s budget")

    signal.signal(signal.SIGALRM, out_of_time)
    signal.alarm(int(budget))
    print("command: python -m benchmarks.load " + " ".join(sys.argv[1:] if argv is None else argv))
    for line in machine_info():
        print(line)
    share = ", ".join(f"{name} {w / sum(x for _, x in weights):.0%}" for name, w in weights)
    print(f"tables: {share}; match length 1; think time exponential, mean {args.think} s, before every action; "
          f"warm-up {args.warmup:.0f} s, window {args.duration:.0f} s; {args.clients} client process(es); "
          f"permessage-deflate {'off' if args.no_compression else 'offered'}")
    print(f"server: {args.processes} process(es) on {args.database}"
          + (f" with Redis {args.redis_url} behind HAProxy (WebSockets sticky by table)" if args.processes > 1 else "")
          + (f"; each capped at {describe_cap(args.cpu_per_process)}" if args.cpu_per_process else ""))
    for spec in specs:
        print(f"server {spec.label}: {spec.root} (commit {commit_of(spec.root)})"
              + "".join(f"; {key}={value}" for key, value in spec.env.items()))
    levels: list[Level] = []
    try:
        for games in args.games:
            for _ in range(args.rounds):
                for spec in specs:
                    started = time.monotonic()
                    level = run_level(games, args, weights, spec)
                    levels.append(level)
                    print_level(level)
                    print(f"\n(level took {time.monotonic() - started:.0f} s)", flush=True)
    finally:
        signal.alarm(0)
    print_summary(levels)
    if args.json is not None:
        args.json.write_text(json.dumps([{
            "server": lv.server, "games": lv.games, "failed": lv.failed, "accepted_per_s": lv.rate,
            "p50_ms": lv.percentile(50), "p95_ms": lv.percentile(95), "p99_ms": lv.percentile(99),
            "max_ms": max(lv.latencies_ms, default=None), "errors": dict(lv.errors),
            "server_cpu_pct": lv.server_cpu_pct, "server_cpu_ms_per_action": lv.cpu_ms_per_action,
            "server_sys_share_pct": lv.server_sys_share, "server_loop_share_pct": lv.loop_cpu_share,
            "server_sleeps_per_action": lv.sleeps_per_action[1], "server_loop_sleeps_per_action": lv.sleeps_per_action[0],
            "server_rss_max_mib": lv.rss_max,
            "server_rss_series_mib": lv.rss_series,
            "longest_gc_ms": lv.longest_gc_ms[0], "longest_gc_cpu_ms": lv.longest_gc_ms[1],
            "client_cpu_pct": lv.client_cpu_pct, "machine_cpu_pct": lv.machine_cpu_pct, "load": lv.load,
            "gc_census": None if lv.census is None else lv.census._asdict(),
            "probes": [probe._asdict() for probe in lv.probes],
            "old_generation_looks_s": lv.looks(), "caught_ms": lv.caught_latencies(),
        } for lv in levels], indent=2))
    return 0 if levels and all(level.failed is None for level in levels) else 1


if __name__ == "__main__":
    sys.exit(main())
