"""The load benchmark's CPU cap: the quota for a share of a core, and a real cgroup that holds a process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.cpu_cap import CGROUP_ROOT, MIN_QUOTA_US, PERIOD_US, CpuCap, CpuCapError, quota


def test_a_share_of_a_core_is_that_share_of_each_period() -> None:
    assert quota(0.4) == (4000, PERIOD_US)
    assert quota(1.5) == (15000, PERIOD_US)


def test_a_share_too_small_for_the_least_quota_lengthens_the_period() -> None:
    quota_us, period_us = quota(0.05)
    assert quota_us == MIN_QUOTA_US and period_us == 20_000


def test_a_cap_of_nothing_or_of_more_than_the_machine_is_refused() -> None:
    for cores in (0.0, -1.0, 10_000.0):
        with pytest.raises(ValueError):
            CpuCap(cores)


def test_a_machine_without_a_cpu_controller_is_told_plainly(tmp_path: Path) -> None:
    with pytest.raises(CpuCapError):
        CpuCap(0.5, root=tmp_path)


def test_a_capped_process_runs_inside_its_cgroup_which_goes_when_it_has_exited() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("cgroups are Linux's")
    try:
        cap = CpuCap(0.25)
    except (CpuCapError, OSError) as refused:
        pytest.skip(f"needs a cgroup this user may create (root): {refused}")
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        cap.add(sleeper.pid)
        assert str(sleeper.pid) in (cap.path / "cgroup.procs").read_text().split()
        assert cap.throttled() == (0, 0.0)  # asleep, it never reached its quota
        limit = (cap.path / "cpu.max").read_text().split() if cap.unified else [
            (cap.path / "cpu.cfs_quota_us").read_text().strip(), (cap.path / "cpu.cfs_period_us").read_text().strip()]
        assert limit == ["2500", str(PERIOD_US)]
    finally:
        sleeper.kill()
        sleeper.wait()
        cap.remove()
    assert not cap.path.exists()
    assert cap.path.parent in (CGROUP_ROOT, CGROUP_ROOT / "cpu")
