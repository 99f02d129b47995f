"""Counting the old generation's cyclic garbage without stopping the server for the walk.

Collecting the old generation of a busy server stops every connection for
as long as the walk over the live games' objects takes (0.3 to 0.4 s at
1,000 games on our machines), and almost always finds next to nothing: its
cyclic garbage stays at a few hundred objects however long the games are
played (benchmarks/RESULTS.md). A forked child holds a copy of the
process's memory, so it can run that very collection on its copy and
report what it found while the server goes on; the process collects for
real only when the garbage is worth the pause (:mod:`nardy.server.runtime.collector`).

The server is not stopped, but not spared either. The fork holds its
interpreter for 5 to 23 ms at 1,000 games, and until the child exits every
first write of the server to a page they share is a fault and a copy
(25,000 to 35,000 of them there); the child runs under ``SCHED_IDLE``, on what the
server leaves of the cores. The round trips under way during a probe at
1,000 games on 2 cores took 42 to 98 ms at their 99th percentile, against
330 to 500 ms during the collection it spares. The child's walk copies the
pages it writes (each object's collector header): some 140 MiB at 1,000
games, for the second it runs.

The child's collection runs the garbage's finalizers, on its copy: before
that it closes every inherited file descriptor but its pipe, points its
standard streams at ``/dev/null`` and silences logging and the hook for
errors in finalizers, so nothing it runs can write to the server's
sockets, files or terminal or report anywhere. A finalizer could still
wait forever on a lock another thread held when the process forked; the
child is then killed after ``timeout`` and the probe reports nothing.
"""

from __future__ import annotations

import gc
import json
import logging
import math
import os
import resource
import select
import signal
import sys
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

PROBE_TIMEOUT = 30.0
"""How long the child may take before it is killed and the probe reports nothing (its walk takes about a
second at 1,000 games on a busy machine)."""

COMMONEST_TYPES = 5
"""How many of the garbage's commonest types the probe names, for finding where a cycle is made."""

_REPORT_LIMIT = 65536
"""The most bytes of report read from the child (a count and a few type names)."""


@dataclass(frozen=True)
class Probe:
    """What a collection of the old generation would find now, and what learning it cost the server."""

    unreachable: int
    """The objects a collection of the young and old generations would find unreachable (frozen ones aside)."""
    commonest: tuple[tuple[str, int], ...]
    """The garbage's commonest types, as ``module.qualified name``, with their counts, most first."""
    stall_seconds: float
    """How long the fork held the interpreter."""
    seconds: float
    """From the fork to the child's report."""
    faults: int
    """The server's page faults meanwhile: each first write to a page the child shares is a fault and a copy."""
    copied_bytes: int | None
    """The memory no longer shared with the server when the child reported (None where Linux does not tell)."""


def probe_old_generation(timeout: float = PROBE_TIMEOUT) -> Probe | None:
    """Fork, let the child collect the old generation on its copy, and return what it found; None where the
    platform cannot fork, the fork failed, or the child did not report within ``timeout`` seconds.

    Blocks until the child reports: an event loop runs it in a thread (``asyncio.to_thread``).
    """
    if not hasattr(os, "fork"):
        return None
    read_end, write_end = os.pipe()
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    started = time.perf_counter()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:
        _collect_in_child(write_end)
    stalled = time.perf_counter() - started
    os.close(write_end)
    try:
        report = _read_report(read_end, started + timeout)
    finally:
        os.close(read_end)
        if report is None:
            _kill(pid)
        _reap(pid)
    if report is None:
        return None
    return Probe(
        unreachable=report["unreachable"], commonest=tuple((name, count) for name, count in report["commonest"]),
        stall_seconds=stalled, seconds=time.perf_counter() - started,
        faults=resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults, copied_bytes=report["copied_bytes"],
    )


def _collect_in_child(write_end: int) -> None:
    """The child's whole life: cut off from what it shares with the server, collect, report, exit."""
    try:
        gc.disable()
        if hasattr(os, "sched_setscheduler"):  # the child runs only on a core the server leaves idle
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, signal.SIG_DFL)
        _isolate(write_end)
        gc.set_debug(gc.DEBUG_SAVEALL)
        found = gc.collect(2)
        commonest = Counter(f"{type(obj).__module__}.{type(obj).__qualname__}" for obj in gc.garbage)
        report = json.dumps({
            "unreachable": found, "commonest": commonest.most_common(COMMONEST_TYPES), "copied_bytes": _private_bytes(),
        })
        data = report.encode()
        while data:
            data = data[os.write(write_end, data):]
    finally:
        os._exit(0)


def _isolate(keep: int) -> None:
    """Close every inherited descriptor but ``keep``, send the standard streams to ``/dev/null``, and keep
    logging and the hook for finalizers' errors from acting (a handler or a hook may send reports)."""
    logging.disable(logging.CRITICAL)
    sys.unraisablehook = _ignore
    devnull = os.open(os.devnull, os.O_RDWR)
    for stream in (0, 1, 2):
        os.dup2(devnull, stream)
    highest = os.sysconf("SC_OPEN_MAX")
    os.closerange(3, keep)
    os.closerange(keep + 1, highest)


def _private_bytes() -> int | None:
    """The memory of this process that no other maps (Linux's ``Private_Dirty``), or None where not told."""
    try:
        with open("/proc/self/smaps_rollup", encoding="ascii") as rollup:
            for line in rollup:
                if line.startswith("Private_Dirty:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def _ignore(_unraisable: object) -> None:
    """An error raised by a finalizer in the child, where reporting it could only be a side effect."""


def _read_report(read_end: int, deadline: float) -> dict[str, Any] | None:
    """The child's report, or None if it exits without one or the deadline passes.

    Waits with ``poll``, not ``select``: a process serving some 500 games holds over 1,024 descriptors, and
    ``select`` refuses one numbered past that.
    """
    chunks: list[bytes] = []
    waiting = select.poll()
    waiting.register(read_end, select.POLLIN)
    while (left := deadline - time.perf_counter()) > 0:
        if not waiting.poll(math.ceil(left * 1e3)):
            return None
        chunk = os.read(read_end, _REPORT_LIMIT)
        if not chunk:
            try:
                report: dict[str, Any] = json.loads(b"".join(chunks))
            except ValueError:
                return None
            return report
        chunks.append(chunk)
    return None


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(pid: int) -> None:
    """Wait for the child, so it leaves no zombie (unless something else of this process reaped it first)."""
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
