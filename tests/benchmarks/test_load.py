"""The load benchmark's comparison options: which servers run, from where, with which settings."""

from __future__ import annotations

import ctypes
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from benchmarks.load import (
    ROOT,
    Level,
    Pause,
    Probed,
    Server,
    connection_cap,
    parse_servers,
    pick_opponents,
    rss_trend,
    sleeps,
    sleeps_by_thread_name,
    slept_between,
)
from benchmarks.wakeups import cpu_microseconds


def test_without_servers_the_benchmark_runs_this_checkout() -> None:
    [spec] = parse_servers([], [])
    assert spec.root == ROOT and spec.env == {}


def test_servers_are_compared_in_the_order_given_with_their_own_settings(tmp_path: Path) -> None:
    specs = parse_servers([f"before={tmp_path}", "after=."], ["before:NARDY_GC_YOUNG_ONLY=false"])
    assert [s.label for s in specs] == ["before", "after"]
    assert specs[0].root == tmp_path.resolve() and specs[0].env == {"NARDY_GC_YOUNG_ONLY": "false"}
    assert specs[1].env == {}


def test_the_connection_cap_is_raised_only_where_the_setup_would_meet_it() -> None:
    """2,000 games on two processes met the default 2,048 and got 503 at setup (benchmarks/RESULTS.md, *Two processes behind HAProxy*)."""
    assert connection_cap(400, 1) == {}
    assert connection_cap(1000, 2) == {}
    assert int(connection_cap(2000, 2)["NARDY_MAX_CONNECTIONS"]) >= 2 * 2000 // 2 + 256
    assert int(connection_cap(1000, 1)["NARDY_MAX_CONNECTIONS"]) >= 2 * 1000 + 256


def test_a_setting_for_an_unknown_server_is_refused() -> None:
    with pytest.raises(SystemExit):
        parse_servers(["after=."], ["before:NARDY_X=1"])


def test_the_computer_plays_its_share_of_the_games_the_same_ones_each_run() -> None:
    opponents = pick_opponents(10, 0.3, "intermediate", seed=1)
    assert opponents.count("intermediate") == 3 and opponents.count(None) == 7
    assert pick_opponents(10, 0.3, "intermediate", seed=1) == opponents
    assert pick_opponents(4, 0.0, "expert", seed=1) == [None] * 4


def test_the_memory_trend_leaves_out_the_first_half_of_the_window() -> None:
    growing_then_flat = [(0.0, 100.0), (60.0, 200.0), (120.0, 300.0), (180.0, 300.0), (240.0, 300.0)]
    assert rss_trend(growing_then_flat) == "+0.0 MiB per 10 min (3 samples)"
    leaking = [(60.0 * i, 100.0 + i) for i in range(7)]
    assert rss_trend(leaking) == "+10.0 MiB per 10 min (4 samples)"
    assert rss_trend([(0.0, 1.0), (30.0, 1.0)]).startswith("too few samples")


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


def test_the_wakeup_benchmark_times_its_work_on_the_thread_clock() -> None:
    assert cpu_microseconds(lambda: sum(range(50_000)), pause=0.0, repeats=3) > 0
    assert cpu_microseconds(lambda: None, pause=0.001, repeats=3) >= 0


def test_the_round_trips_under_way_while_the_old_generation_is_collected_or_probed_are_told_apart() -> None:
    level = Level(games=2, duration=60.0, think=2.0)
    level.window_start = 1000.0
    level.gc = [Pause(1010.0, 0.3, 0.3, 2), Pause(1020.0, 0.002, 0.002, 1)]
    level.probes = [Probed(1030.0, 0.5, 8.0)]
    level.latencies_ms = [350.0, 2.0, 3.0, 40.0, 1.0]
    level.sent_at = [1009.9, 1020.0, 1009.0, 1030.4, 1031.0]
    assert level.looks() == [(1010.0, 1010.3), (1030.0, 1030.5)]
    assert sorted(level.caught_latencies()) == [40.0, 350.0]  # a young collection is no look
    assert level.slowest_summary().startswith("350 @ 9.9, 40 @ 30.4")
    assert level.looks_summary() == "10.0: collected, 300, 30.0: probed, 500; 8.0"


def test_the_collectors_probe_lines_are_read_from_the_server_log(tmp_path: Path) -> None:
    server = Server.__new__(Server)
    server.log_path = tmp_path / "server.log"
    server.log_path.write_text(
        "INFO:     Started server process\n"
        "1030.500000 old-generation probe: 546 unreachable objects (builtins.dict 89), a stall of 11.3 ms, "
        "500 ms in all, 120 page faults here, 40 MiB copied\n"
        "5000.000000 old-generation probe: 1 unreachable objects (none), a stall of 1.0 ms, 10 ms in all, "
        "1 page faults here, ? MiB copied\n"
    )
    assert server.probes(1000.0, 2000.0) == [Probed(1030.0, 0.5, 11.3)]


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
