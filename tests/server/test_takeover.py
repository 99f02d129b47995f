"""kill -9 of a server process mid-game: the survivor keeps every clock and every computer player running.

Processes A and B share one database and one Redis. A table's clock and its
bot's turn are served by the process that made its last change; when that
process dies, the other takes the table over within the peer timeout plus a
sweep (``nardy.server.services.peers``), and no acked action is lost.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.live_server import (
    FAST_CLIENT_ENV,
    REDIS_URL,
    HttpUser,
    LiveServer,
    connected,
    fresh_postgres_database,
    next_action,
    postgres_unreachable,
    redis_unreachable,
    unique_name,
)


Json = dict[str, Any]
TAKEOVER_ENV = {**FAST_CLIENT_ENV, "NARDY_HEARTBEAT_SECONDS": "0.5", "NARDY_PEER_TIMEOUT_SECONDS": "2",
                "NARDY_TAKEOVER_SWEEP_SECONDS": "0.5"}
TAKEOVER_SECONDS = 2 + 0.5 + 3.0
"""The peer timeout, one sweep, and room for a loaded machine."""


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    reason = redis_unreachable()
    if reason is not None:
        pytest.skip(reason)
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'shared' / 'nardy.sqlite3'}"
        return
    reason = postgres_unreachable()
    if reason is not None:
        pytest.skip(reason)
    with fresh_postgres_database() as url:
        yield url


def _pair(tmp_path: Path, database_url: str, extra: dict[str, str] | None = None) -> tuple[LiveServer, LiveServer]:
    env = {**TAKEOVER_ENV, **(extra or {})}
    pair = tuple(LiveServer(tmp_path / n, database_url=database_url, redis_url=REDIS_URL, env=env) for n in "ab")
    for server in pair:
        server.launch()
    for server in pair:
        server.wait_ready()
    return pair[0], pair[1]


def _wait(predicate: Any, timeout: float, what: str) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"{what} did not happen within {timeout} s")


@pytest.mark.slow
@pytest.mark.parametrize(("clock", "seconds"), [
    ({"move_seconds": 3}, 3.0),
    ({"delay_seconds": 1, "bank_seconds_per_point": 1}, 4.0),  # a bank clock: 1 s delay + a 3 s bank (3 points)
], ids=["per-move", "bank"])
def test_the_survivor_times_out_a_table_whose_process_was_killed(
    tmp_path: Path, database_url: str, clock: Json, seconds: float,
) -> None:
    """The deadline is in the database (``tables.deadline_at``), so any live process fires it, whichever clock."""
    a, b = _pair(tmp_path, database_url)
    try:
        alice, bob = HttpUser(a.base_url), HttpUser(a.base_url)
        alice.signup(unique_name("alice"))
        bob.signup(unique_name("bob"))
        table = alice.post("/api/tables", {"variant": "georgian", "match_length": 3, **clock}).json()
        table_id = table["table"]["table"]
        assert bob.post(f"/api/tables/{table_id}/join").status_code == 200  # A made the last change
        acked = []
        clients = (connected(a, alice), connected(a, bob))
        for client in clients:
            client.subscribe(table_id)
        state = clients[0].state(table_id)
        for _ in range(2):
            seat, action = next_action(state)
            acked.append(clients[seat].must(table_id, action["t"], **{k: v for k, v in action.items() if k != "t"}))
            state = clients[seat].state(table_id)
        deadline = state["deadline"]
        assert deadline is not None
        a.kill()
        watcher = HttpUser(b.base_url)
        started = time.monotonic()
        timed_out = _wait(
            lambda: [e for e in watcher.record(table_id)["events"] if e["kind"] == "timed_out"],
            seconds + TAKEOVER_SECONDS, "the survivor's timeout",
        )
        assert len(timed_out) == 1, timed_out
        assert time.monotonic() - started <= seconds + TAKEOVER_SECONDS
        versions = [e["version"] for e in watcher.record(table_id)["events"]]
        assert set(acked) <= set(versions), "an acked action was lost with the killed process"
        # Play goes on through B, and B keeps the clock of every decision that follows.
        after = watcher.table(table_id)
        assert after["status"] == "playing" and after["deadline"] not in (None, deadline)
        _wait(lambda: len([e for e in watcher.record(table_id)["events"] if e["kind"] == "timed_out"]) >= 2,
              seconds + 3.0, "B's own next timeout")
    finally:
        a.kill()
        b.kill()


@pytest.mark.slow
def test_the_survivor_plays_the_computer_whose_process_was_killed(tmp_path: Path, database_url: str) -> None:
    a, b = _pair(tmp_path, database_url, {"NARDY_BOT_DELAY_SECONDS": "1.5"})
    try:
        alice = HttpUser(a.base_url)
        alice.signup(unique_name("alice"))
        created = alice.post("/api/tables", {"variant": "georgian", "match_length": 3, "opponent": "computer",
                                             "bot_level": "random"})
        assert created.status_code == 201, created.text
        table_id = created.json()["table"]["table"]
        client = connected(a, alice)
        client.subscribe(table_id)
        state = _wait(lambda: (s := alice.table(table_id))["actor"] == 0 and s, 10, "alice's turn")
        acked = []
        while state["actor"] == 0:
            seat, action = next_action(state)
            acked.append(client.must(table_id, action["t"], **{k: v for k, v in action.items() if k != "t"}))
            state = client.state(table_id)
        assert state["actor"] == 1, "the computer's turn begins with A's commit"
        a.kill()  # within the bot's pause: its move was never made
        watcher = HttpUser(b.base_url)
        version = state["version"]
        moved = _wait(lambda: (s := watcher.table(table_id))["version"] > version and s,
                      TAKEOVER_SECONDS + 1.5, "the computer's move on B")
        kinds = [e["kind"] for e in watcher.record(table_id)["events"] if e["version"] > version]
        assert kinds and all(e["seat"] in (1, None) for e in watcher.record(table_id)["events"]
                             if e["version"] > version), kinds
        assert set(acked) <= {e["version"] for e in watcher.record(table_id)["events"]}
        assert moved["status"] in ("playing", "finished")
    finally:
        a.kill()
        b.kill()
