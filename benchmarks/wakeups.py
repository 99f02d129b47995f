"""What a wake-up costs: the CPU time of one small piece of the server's work, done straight after other
work and done first after a sleep.

The load benchmark's CPU per action differs from machine to machine, and
falls as the load grows (benchmarks/RESULTS.md). One reason: on a virtual
machine a thread that slept (waiting in ``epoll`` for the next message, or
for a queue or the GIL) runs its next work far slower than the same work
done hot, and that shows up in the thread's own CPU time. This
script measures that tax: it times, with the thread's CPU clock, the parse of
an inbound ``step`` message (the first thing the server does with an action)
and a short pure-Python loop, each repeated after sleeps of several lengths.
A server at a few hundred actions a second sleeps for milliseconds between
actions, so what it pays per wake-up is in the last rows.

    python -m benchmarks.wakeups
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from nardy.server.ws.protocol import parse_message

STEP_MESSAGE = b'{"t":"step","table":"AbCdEf0123","action_id":"a1.b2:17","source":13,"die":5}'


def python_loop() -> None:
    """About 200 bytecode-level additions: work that touches no data, only the interpreter."""
    total = 0
    for number in range(200):
        total += number


WORK: dict[str, Callable[[], object]] = {
    "parse a step message": lambda: parse_message(STEP_MESSAGE),
    "a 200-step Python loop": python_loop,
}


def cpu_microseconds(work: Callable[[], object], pause: float, repeats: int) -> float:
    """Median CPU time of ``work`` (µs of this thread's CPU clock) when each run follows a sleep of ``pause``
    seconds (none: straight after the previous run)."""
    times = []
    for _ in range(repeats):
        if pause:
            time.sleep(pause)
        started = time.thread_time_ns()
        work()
        times.append(time.thread_time_ns() - started)
    return statistics.median(times) / 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=400, help="runs of each piece of work per pause")
    parser.add_argument("--pauses-ms", type=float, nargs="+", default=[0, 0.1, 0.5, 1, 5, 20],
                        help="sleeps before each run, milliseconds (0: straight after the previous run)")
    args = parser.parse_args(argv)
    print("| sleep before each run (ms) | " + " | ".join(f"{name} (µs CPU, median)" for name in WORK) + " |")
    print("| ---: | " + " | ".join("---:" for _ in WORK) + " |")
    for pause in args.pauses_ms:
        cells = [f"{cpu_microseconds(work, pause / 1000, args.repeats):.1f}" for work in WORK.values()]
        print(f"| {pause:g} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
