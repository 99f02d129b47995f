"""The load benchmark's options: which servers run, from where, with which settings, on which tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.load.__main__ import build_parser
from benchmarks.load.options import connection_cap, parse_servers, parse_variants, server_specs
from benchmarks.load.server import ROOT


def test_without_servers_the_benchmark_runs_this_checkout() -> None:
    [spec] = parse_servers([], [])
    assert spec.root == ROOT and spec.env == {}
    assert (ROOT / "benchmarks" / "load" / "__main__.py").exists()


def test_servers_are_compared_in_the_order_given_with_their_own_settings(tmp_path: Path) -> None:
    specs = parse_servers([f"before={tmp_path}", "after=."], ["before:NARDY_GC_YOUNG_ONLY=false"])
    assert [s.label for s in specs] == ["before", "after"]
    assert specs[0].root == tmp_path.resolve() and specs[0].env == {"NARDY_GC_YOUNG_ONLY": "false"}
    assert specs[1].env == {}


def test_the_connection_cap_is_raised_only_where_the_setup_would_meet_it() -> None:
    """2,000 games on two processes met the default 2,048 connections and got 503 at setup."""
    assert connection_cap(400, 1) == {}
    assert connection_cap(1000, 2) == {}
    assert int(connection_cap(2000, 2)["NARDY_MAX_CONNECTIONS"]) >= 2 * 2000 // 2 + 256
    assert int(connection_cap(1000, 1)["NARDY_MAX_CONNECTIONS"]) >= 2 * 1000 + 256


def test_a_setting_for_an_unknown_server_is_refused() -> None:
    with pytest.raises(SystemExit):
        parse_servers(["after=."], ["before:NARDY_X=1"])


def test_variants_take_their_weights_and_an_unknown_one_is_refused() -> None:
    assert parse_variants("backgammon=0.5,georgian") == [("backgammon", 0.5), ("georgian", 1.0)]
    with pytest.raises(SystemExit):
        parse_variants("chess=1")


def test_the_cluster_flags_reach_every_server_beneath_its_own_settings(tmp_path: Path) -> None:
    args = build_parser().parse_args([
        "--games", "2000", "--computer", "0.3", "--think", "1.5", "--processes", "2", "--database", "postgresql",
        "--server", f"before={tmp_path}", "--server", "after=.", "--server-env", "after:NARDY_BOT_DELAY_SECONDS=0",
    ])
    before, after = server_specs(args)
    assert (before.processes, before.database_url) == (2, "postgresql://postgres@127.0.0.1:5432/postgres")
    assert before.env["NARDY_BOT_DELAY_SECONDS"] == "1.5" and "NARDY_MAX_CONNECTIONS" in before.env
    assert after.env["NARDY_BOT_DELAY_SECONDS"] == "0"


def test_a_backlog_lifts_the_message_limits_its_unthinking_players_would_meet_on_every_server() -> None:
    args = build_parser().parse_args(["--analysis-backlog", "busy=60", "--server", "idle=.", "--server", "busy=."])
    idle, busy = server_specs(args)
    assert (idle.analysis_backlog, busy.analysis_backlog) == (0, 60)
    assert idle.env["NARDY_MESSAGES_PER_SECOND"] == busy.env["NARDY_MESSAGES_PER_SECOND"] == "1000"
    assert "NARDY_MESSAGES_PER_SECOND" not in server_specs(build_parser().parse_args([]))[0].env
    with pytest.raises(SystemExit):
        parse_servers(["busy=."], [], ["idle=60"])
