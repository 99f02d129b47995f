"""The load benchmark's report: the memory trend, and the slowest round trips and the looks at the old generation."""

from __future__ import annotations

from benchmarks.load.launcher import Census, Pause, Probed
from benchmarks.load.measurements import AnalysisBacklog, Level
from benchmarks.load.report import census_summary, level_json, level_rows, looks_summary, rss_trend, slowest_summary


def test_the_memory_trend_leaves_out_the_first_half_of_the_window() -> None:
    growing_then_flat = [(0.0, 100.0), (60.0, 200.0), (120.0, 300.0), (180.0, 300.0), (240.0, 300.0)]
    assert rss_trend(growing_then_flat) == "+0.0 MiB per 10 min (3 samples)"
    leaking = [(60.0 * i, 100.0 + i) for i in range(7)]
    assert rss_trend(leaking) == "+10.0 MiB per 10 min (4 samples)"
    assert rss_trend([(0.0, 1.0), (30.0, 1.0)]).startswith("too few samples")


def test_the_slowest_round_trips_and_the_looks_are_placed_in_the_window() -> None:
    level = Level(games=2, duration=60.0, think=2.0)
    level.window_start = 1000.0
    level.gc = [Pause(1010.0, 0.3, 0.3, 2), Pause(1020.0, 0.002, 0.002, 1)]
    level.probes = [Probed(1030.0, 0.5, 8.0)]
    level.latencies_ms = [350.0, 2.0, 3.0, 40.0, 1.0]
    level.sent_at = [1009.9, 1020.0, 1009.0, 1030.4, 1031.0]
    assert slowest_summary(level).startswith("350 @ 9.9, 40 @ 30.4")
    assert looks_summary(level) == "10.0: collected, 300, 30.0: probed, 500; 8.0"


def test_a_census_names_its_objects_then_its_walks_then_its_probe() -> None:
    census = Census((19, 0, 14_648), 174_390, 6, 3.6, 136.0, 9.44, 173.0, 6)
    assert census_summary(census) == ("19 / 0 / 14,648 / 174,390 / 6; walks: old generation 3.6 ms, everything "
                                      "136.0 ms; probe: a stall of 9.44 ms, 173 ms in all, 6 found")
    assert census_summary(census._replace(probe_stall_ms=None, probe_ms=None, probe_found=None)).endswith("136.0 ms")


def test_a_level_with_nothing_measured_still_has_every_row_and_its_json() -> None:
    level = Level(games=4, duration=3.0, think=2.0)
    rows = dict(level_rows(level))
    assert rows["errors"] == "0" and rows["HAProxy's connections by termination state"] == "-"
    assert len(rows) == 28
    assert level_json(level)["accepted_per_s"] == 0.0


def test_a_level_with_an_analysis_backlog_says_what_its_workers_did_in_the_window() -> None:
    level = Level(games=4, duration=30.0, think=2.0)
    level.window_start = 100.0
    level.backlog = AnalysisBacklog(matches=5, seconds=4.0, actions=1250, queued=5,
                                    finished=[90.0, 101.0, 103.0, 106.0], failed=0)
    rows = dict(level_rows(level))
    assert rows["their analyses: queued / ended before the window / in it / not by its end / failed"] == (
        "5 / 1 / 3 / 1 / 0")
    assert rows["analysis workers busy for the whole window; median s between two analyses ending in it"] == (
        "yes; 3.0")
    assert level_json(level)["analysis_backlog"]["ended"] == (1, 3, 1)
