"""The load benchmark's probes of /proc: sleeps per thread, and CPU and memory of a process."""

from __future__ import annotations

import ctypes
import os
import sys
import threading
import time

import pytest

from benchmarks.load.probes import proc_cpu_seconds, proc_rss_mib, sleeps, sleeps_by_thread_name, slept_between


def test_sleeps_are_counted_per_thread_and_the_first_thread_apart() -> None:
    before = sleeps(os.getpid())
    for _ in range(3):
        time.sleep(0.001)
    slept, counted = threading.Event(), threading.Event()

    def sleep_five_times_then_wait() -> None:  # still there when counted: an ended thread is not
        for _ in range(5):
            time.sleep(0.001)
        slept.set()
        counted.wait()

    helper = threading.Thread(target=sleep_five_times_then_wait)
    helper.start()
    slept.wait()
    after = sleeps(os.getpid())
    counted.set()
    helper.join()
    first, every = slept_between(before, after, loop_thread=os.getpid())
    assert first >= 3
    assert every >= first + 5


def test_a_thread_that_ended_is_left_out_and_a_new_one_counted_whole() -> None:
    assert slept_between({1: 10, 2: 50}, {1: 12, 3: 7}, loop_thread=1) == (2, 9)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="thread names in /proc are Linux's")
def test_sleeps_are_summed_by_thread_name_without_the_pool_number() -> None:
    named, done = threading.Event(), threading.Event()

    def worker() -> None:
        ctypes.CDLL(None).prctl(15, b"nardy-db_7", 0, 0, 0)  # PR_SET_NAME, as the server launcher does
        named.set()
        done.wait()

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        named.wait()
        assert thread.native_id is not None
        assert sleeps_by_thread_name({thread.native_id: 2}, {thread.native_id: 5}) == {"nardy-db": 3}
    finally:
        done.set()
        thread.join()


def test_a_process_has_cpu_time_and_resident_memory() -> None:
    assert proc_cpu_seconds(os.getpid()) > 0
    assert proc_rss_mib(os.getpid()) > 1
