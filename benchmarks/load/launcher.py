"""The few lines that start a server under test and log its garbage collector, and the reader of that log.

A server is the checkout's own ``nardy.server`` module, run as ``__main__`` as ``python -m nardy.server``
runs it; the launcher is passed to ``python -c`` in the checkout's directory, so that the checkout under
test (not this one) is imported, and it uses nothing but the standard library and, where that code has
it, ``nardy.server.runtime.garbage_probe`` (``nardy.server.garbage_probe`` in earlier code). What it writes and what this module reads are kept side by side
here, so that the two lines' formats change together.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

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

PROBE_LINE = re.compile(r"^(\d+\.\d+) old-generation probe: .* a stall of ([\d.]+) ms, ([\d.]+) ms in all")
"""The collector's log line for a probe of the old generation (logged at its end), as the launcher formats it."""


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


def _largest(values: Iterable[float | None]) -> float | None:
    """The largest of some processes' figures, None if one has none."""
    known = list(values)
    return None if any(v is None for v in known) else max(v for v in known if v is not None)


def pauses_logged(gc_path: Path, start: float, end: float) -> list[Pause]:
    """The collections in the launcher's file ``gc_path`` that began in [start, end)."""
    with contextlib.suppress(OSError, ValueError):
        rows = [line.split() for line in gc_path.read_text().splitlines()]
        return [Pause(float(t), float(wall), float(cpu), int(g)) for t, wall, cpu, g in (r for r in rows if len(r) == 4)
                if start <= float(t) < end]
    return []


def census_logged(gc_path: Path) -> Census | None:
    """The collector's objects and garbage after the window, as last logged in the launcher's file ``gc_path``."""
    found = None
    with contextlib.suppress(OSError, ValueError):
        for line in gc_path.read_text().splitlines():
            parts = line.split()
            if parts and parts[0] == "objects" and len(parts) == 12:
                gen0, gen1, gen2, frozen, garbage = (int(p) for p in parts[2:7])
                stall, probe, probe_found = (None if p == "-" else p for p in parts[9:12])
                found = Census((gen0, gen1, gen2), frozen, garbage, float(parts[7]), float(parts[8]),
                               None if stall is None else float(stall), None if probe is None else float(probe),
                               None if probe_found is None else int(probe_found))
    return found


def probes_logged(log_path: Path, start: float, end: float) -> list[Probed]:
    """The collector's probes of the old generation, in the server's log ``log_path``, that began in [start, end)."""
    with contextlib.suppress(OSError):
        found = (PROBE_LINE.match(line) for line in log_path.read_text(errors="replace").splitlines())
        probes = (Probed(float(m[1]) - float(m[3]) / 1e3, float(m[3]) / 1e3, float(m[2])) for m in found if m)
        return [probe for probe in probes if start <= probe.start < end]
    return []
