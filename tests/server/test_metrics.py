"""``GET /metrics`` (docs/operations.md, *Metrics*): the figures move with play, and only the configured reader
gets them.

The issue: «`GET /metrics` in Prometheus' text format [...]: actions accepted and refused by kind, action latency
histogram, WebSockets open, live tables, analysis queue depth and time, database pool use, Redis publish latency,
errors. Off or token-protected by configuration.»
"""

from __future__ import annotations

import logging
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from pydantic import ValidationError

from nardy.server.runtime.prometheus import forget_dead_processes
from nardy.server.settings import Settings
from tests.server.game_server import GameServer
from tests.server.live_server import (
    REDIS_URL, HttpUser, LiveServer, connected, redis_unreachable, running_together, unique_name,
)

TOKEN = "s3cret-metrics-token-0123"

OPENING_MOVE = [
    {"source": 8, "target": 5, "die": 3, "hit": False},
    {"source": 6, "target": 5, "die": 1, "hit": False},
]
"""Backgammon's 3-1 opening, seat 0's (it rolled the 3)."""


def samples(text: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of a scrape by its name and labels."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text) for sample in family.samples
    }


def value(text: str, name: str, **labels: str) -> float:
    """One sample's value; 0 when the scrape has none (a labelled counter before its first count)."""
    return samples(text).get((name, frozenset(labels.items())), 0.0)


def scrape(server: GameServer, token: str | None = None) -> str:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    response = server.client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain")
    return response.text


def test_actions_sockets_tables_pool_and_errors_are_counted(make_game_server: Callable[..., GameServer]) -> None:
    server = make_game_server(metrics="open")
    before = scrape(server)
    assert value(before, "nardy_action_seconds_count") == 0
    table, (alice, bob) = server.match("backgammon", 1, opening=[(3, 1)])
    alice.ok("move", steps=OPENING_MOVE)
    refusal = bob.refused("move", steps=OPENING_MOVE)
    alice.refused("roll", table="no-such-table")
    logging.getLogger("nardy.tests.metrics").error("an error the operator should see counted")

    after = scrape(server)
    assert value(after, "nardy_actions_accepted_total", action="move") == 1
    assert value(after, "nardy_actions_refused_total", action="move", reason=refusal["code"]) == 1
    assert value(after, "nardy_actions_refused_total", action="roll", reason="no_such_table") == 1
    assert value(after, "nardy_action_seconds_count") == 3
    assert value(after, "nardy_action_seconds_sum") > 0
    assert value(after, "nardy_websockets_open") == 2
    assert value(after, "nardy_live_tables", kind="match") >= 1
    assert value(after, "nardy_database_connections_limit") == Settings().database_pool_size + \
        Settings().database_pool_overflow
    assert value(after, "nardy_database_connections_open") >= 1
    assert value(after, "nardy_errors_total", logger="nardy.tests.metrics") == 1
    for family in ("nardy_analysis_queue_depth", "nardy_analysis_seconds", "nardy_redis_publish_seconds"):
        assert f"# TYPE {family} " in after, family
    assert "process_cpu_seconds_total" in after

    alice.close()
    assert value(scrape(server), "nardy_websockets_open") == 1


def test_redis_publishes_are_timed(make_game_server: Callable[..., GameServer]) -> None:
    reason = redis_unreachable()
    if reason is not None:
        pytest.skip(reason)
    server = make_game_server(metrics="open", redis_url=REDIS_URL)
    table, (alice, _) = server.match("backgammon", 1, opening=[(3, 1)])
    alice.ok("move", steps=OPENING_MOVE)
    assert value(scrape(server), "nardy_redis_publish_seconds_count") >= 1


def test_processes_sharing_a_metrics_directory_answer_for_all(tmp_path: Path) -> None:
    """With ``PROMETHEUS_MULTIPROC_DIR``, either process's /metrics counts both; a process that stops leaves its
    counts behind but no longer its open sockets."""
    shared = tmp_path / "metrics"
    shared.mkdir()
    env = {"NARDY_METRICS": "open", "PROMETHEUS_MULTIPROC_DIR": str(shared)}
    first, second = (LiveServer(tmp_path / name, env=env) for name in ("first", "second"))
    with running_together([first, second]):
        user = HttpUser(first.base_url)
        user.signup(unique_name("metrics"))
        socket = connected(first, user)
        assert socket.act("no-such-table", "roll")["code"] == "no_such_table"
        seen = httpx.get(f"{second.base_url}/metrics").text
        assert value(seen, "nardy_actions_refused_total", action="roll", reason="no_such_table") == 1
        assert value(seen, "nardy_websockets_open") == 1
        socket.close()
        user.close()
        first.stop()
        seen = httpx.get(f"{second.base_url}/metrics").text
        assert value(seen, "nardy_actions_refused_total", action="roll", reason="no_such_table") == 1
        assert value(seen, "nardy_websockets_open") == 0


def test_the_token_is_asked_for_and_checked(make_game_server: Callable[..., GameServer]) -> None:
    server = make_game_server(metrics=f"token:{TOKEN}")
    for headers in ({}, {"Authorization": "Bearer wrong-token-of-enough-length"}, {"Authorization": TOKEN}):
        refused = server.client.get("/metrics", headers=headers)
        assert refused.status_code == 401, headers
        assert refused.headers["www-authenticate"] == "Bearer"
        assert "nardy_" not in refused.text
    assert "nardy_action_seconds" in scrape(server, TOKEN)


def test_off_serves_no_metrics(game_server: GameServer) -> None:
    """Off is the default: the route does not exist."""
    assert game_server.client.get("/metrics").status_code == 404


@pytest.mark.parametrize("setting", ["on", "token:", "token:short", "Open"])
def test_a_mistyped_setting_stops_the_start(setting: str) -> None:
    with pytest.raises(ValidationError):
        Settings(metrics=setting)


def test_the_gauges_of_dead_processes_are_forgotten(tmp_path: Path) -> None:
    """A killed process could not remove its gauges' files: the next process removes them before it counts, and
    those under its own id too (a dead process's, whose id it was given), but a live process's stay."""
    dead = subprocess.Popen(["true"])
    dead.wait()
    alive = os.getppid()
    for pid in (dead.pid, os.getpid(), alive):
        (tmp_path / f"gauge_livesum_{pid}.db").write_bytes(b"")
    (tmp_path / f"counter_{dead.pid}.db").write_bytes(b"")
    forget_dead_processes(tmp_path)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        [f"gauge_livesum_{alive}.db", f"counter_{dead.pid}.db"])
