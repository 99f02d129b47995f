"""The load benchmark's launcher: the server's collections, census and probes read back from what it logs."""

from __future__ import annotations

from pathlib import Path

from benchmarks.load.launcher import Census, Pause, Probed, census_logged, pauses_logged, probes_logged


def test_the_collectors_probe_lines_are_read_from_the_server_log(tmp_path: Path) -> None:
    log_path = tmp_path / "server.log"
    log_path.write_text(
        "INFO:     Started server process\n"
        "1030.500000 old-generation probe: 546 unreachable objects (builtins.dict 89), a stall of 11.3 ms, "
        "500 ms in all, 120 page faults here, 40 MiB copied\n"
        "5000.000000 old-generation probe: 1 unreachable objects (none), a stall of 1.0 ms, 10 ms in all, "
        "1 page faults here, ? MiB copied\n"
    )
    assert probes_logged(log_path, 1000.0, 2000.0) == [Probed(1030.0, 0.5, 11.3)]


def test_the_collections_in_the_window_and_the_last_census_are_read_from_the_gc_log(tmp_path: Path) -> None:
    gc_path = tmp_path / "gc.log"
    gc_path.write_text(
        "999.000000 0.001000 0.001000 0\n"
        "1010.000000 0.300000 0.250000 2\n"
        "objects 1070.000000 19 0 14648 174390 6 3.6 136.0 9.44 173.0 6\n"
        "objects 1080.000000 20 1 14650 174390 7 3.7 137.0 - - -\n"
    )
    assert pauses_logged(gc_path, 1000.0, 1060.0) == [Pause(1010.0, 0.3, 0.25, 2)]
    assert census_logged(gc_path) == Census((20, 1, 14650), 174390, 7, 3.7, 137.0)
    assert census_logged(tmp_path / "missing.log") is None


def test_several_processes_censuses_add_up_and_keep_the_longest_walks() -> None:
    one = Census((1, 2, 3), 10, 1, 5.0, 50.0, 2.0, 100.0, 4)
    other = Census((10, 20, 30), 100, 2, 7.0, 40.0, 1.0, 120.0, 5)
    assert Census.total([one, other]) == Census((11, 22, 33), 110, 3, 7.0, 50.0, 2.0, 120.0, 9)
    assert Census.total([one, other._replace(probe_ms=None, probe_found=None)]).probe_found is None
