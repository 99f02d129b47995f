"""The load benchmark's measurements: the round trips that the old generation's collections and probes overlap."""

from __future__ import annotations

from benchmarks.load.launcher import Pause, Probed
from benchmarks.load.measurements import AnalysisBacklog, Level, percentile
from benchmarks.load.players import ClientResult


def test_the_round_trips_under_way_while_the_old_generation_is_collected_or_probed_are_told_apart() -> None:
    level = Level(games=2, duration=60.0, think=2.0)
    level.gc = [Pause(1010.0, 0.3, 0.3, 2), Pause(1020.0, 0.002, 0.002, 1)]
    level.probes = [Probed(1030.0, 0.5, 8.0)]
    level.latencies_ms = [350.0, 2.0, 3.0, 40.0, 1.0]
    level.sent_at = [1009.9, 1020.0, 1009.0, 1030.4, 1031.0]
    assert level.looks() == [(1010.0, 1010.3), (1030.0, 1030.5)]
    assert sorted(level.caught_latencies()) == [40.0, 350.0]  # a young collection is no look


def test_the_percentile_is_the_nearest_rank() -> None:
    assert percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50) == 3.0
    assert percentile([7.0], 99) == 7.0
    assert percentile([], 50) != percentile([], 50)  # nan


def test_every_client_process_counts_in_the_level() -> None:
    level = Level(games=4, duration=10.0, think=2.0)
    for accepted in (30, 50):
        result = ClientResult(latencies_ms=[1.0] * accepted, accepted=accepted, cpu_seconds=2.0)
        result.errors["stalled"] = 1
        level.add_client(result)
    assert (level.accepted, level.rate, level.error_count) == (80, 8.0, 2)
    assert level.client_cpu_pct == [20.0, 20.0]
    assert not level.holds


def test_the_backlog_tells_the_analyses_ended_in_the_window_and_whether_the_workers_were_busy_throughout() -> None:
    backlog = AnalysisBacklog(matches=6, seconds=5.0, actions=1500, queued=6, finished=[95.0, 101.0, 104.0, 110.0],
                              failed=0)
    assert backlog.split(100.0, 130.0) == (1, 3, 2)
    assert backlog.seconds_each(100.0, 130.0) == 6.0  # gaps 3 and 6: the nearest-rank median
    assert backlog.busy_throughout(100.0, 130.0), "two were still to end when the window closed"
    drained = AnalysisBacklog(matches=2, seconds=2.0, actions=500, queued=2, finished=[95.0, 120.0], failed=0)
    assert drained.split(100.0, 130.0) == (1, 1, 0) and not drained.busy_throughout(100.0, 130.0)
    idle = AnalysisBacklog(matches=6, seconds=5.0, actions=1500, queued=0, finished=[], failed=0)
    assert idle.split(100.0, 130.0) == (0, 0, 0) and not idle.busy_throughout(100.0, 130.0)
