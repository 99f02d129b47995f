"""The wake-up benchmark: its work timed on the thread's CPU clock."""

from __future__ import annotations

from benchmarks.wakeups import cpu_microseconds


def test_the_wakeup_benchmark_times_its_work_on_the_thread_clock() -> None:
    assert cpu_microseconds(lambda: sum(range(50_000)), pause=0.0, repeats=3) > 0
    assert cpu_microseconds(lambda: None, pause=0.001, repeats=3) >= 0
