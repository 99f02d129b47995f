"""The action-path benchmark plays real actions through this checkout's own decide, fold and view."""

from __future__ import annotations

from benchmarks.action_path import measure


def test_a_short_run_plays_through_the_server_s_own_steps() -> None:
    assert measure(40, seed=3) > 0
