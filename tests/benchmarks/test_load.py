"""The load benchmark's comparison options: which servers run, from where, with which settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.load import ROOT, parse_servers


def test_without_servers_the_benchmark_runs_this_checkout() -> None:
    [spec] = parse_servers([], [])
    assert spec.root == ROOT and spec.env == {}


def test_servers_are_compared_in_the_order_given_with_their_own_settings(tmp_path: Path) -> None:
    specs = parse_servers([f"before={tmp_path}", "after=."], ["before:NARDY_GC_FREEZE_SURVIVORS=false"])
    assert [s.label for s in specs] == ["before", "after"]
    assert specs[0].root == tmp_path.resolve() and specs[0].env == {"NARDY_GC_FREEZE_SURVIVORS": "false"}
    assert specs[1].env == {}


def test_a_setting_for_an_unknown_server_is_refused() -> None:
    with pytest.raises(SystemExit):
        parse_servers(["after=."], ["before:NARDY_X=1"])
