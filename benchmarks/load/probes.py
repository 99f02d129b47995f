"""CPU, memory and sleeps of processes and threads, and the machine's CPU, read from ``/proc``.

The load benchmark measures the servers from outside, as the kernel accounts for them, so that the
figures mean the same for every checkout compared and cost the servers nothing to report.
"""

from __future__ import annotations

import contextlib
import os
from collections import Counter
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")
SERVICES = ("postgres", "redis-server")
"""The shared services whose CPU is measured beside the servers' (by command name)."""


def proc_cpu_split(pid: int, thread: int | None = None) -> tuple[float, float]:
    """(user, system) CPU seconds of process ``pid`` (all its threads), or of its thread ``thread`` alone."""
    text = Path(f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def proc_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads)."""
    return sum(proc_cpu_split(pid))


def event_loop_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid``'s first thread, which runs the server's event loop
    (the rest: the grouped writer, the database threads, the computer players' searches)."""
    return sum(proc_cpu_split(pid, thread=pid))


def proc_rss_mib(pid: int) -> float:
    """Resident memory of process ``pid`` in MiB (``VmRSS``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


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
