"""A server process and its Redis: it does not start without it, and losing it later loses nothing.

The behaviour (``docs/protocol.md``, *Several server processes*): a process
whose Redis does not answer at start refuses to start; once started, a
process that loses its Redis keeps serving its games (every accepted action
is saved and acked, its own watchers see it at once, its clocks and bots
run), reports 503 on ``/api/health``, and publishes what it kept as soon as
Redis answers again, so the other processes' watchers catch up in order.

Process A reaches Redis through a :class:`~tcp_proxy.TcpProxy` the test
cuts, so A alone loses Redis while B keeps it, as a network fault would.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server.live_server import (
    FAST_CLIENT_ENV,
    REDIS_URL,
    HttpUser,
    LiveServer,
    connected,
    free_port,
    next_action,
    redis_unreachable,
    unique_name,
)
from tests.server.tcp_proxy import TcpProxy


Json = dict[str, Any]
REDIS_DB = REDIS_URL.rsplit("/", 1)[1]


@pytest.fixture
def link() -> Iterator[TcpProxy]:
    reason = redis_unreachable()
    if reason is not None:
        pytest.skip(reason)
    with TcpProxy(("127.0.0.1", 6379)) as proxy:
        yield proxy


def _wait(predicate: Callable[[], Any], timeout: float, what: str) -> Any:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"{what} did not happen within {timeout} s")


def _health(server: LiveServer) -> httpx.Response:
    return httpx.get(f"{server.base_url}/api/health", timeout=5)


def test_a_process_refuses_to_start_without_its_redis(tmp_path: Path) -> None:
    nowhere = f"redis://127.0.0.1:{free_port()}/0"
    server = LiveServer(tmp_path, redis_url=nowhere, env={"NARDY_REDIS_START_TIMEOUT": "1"})
    server.launch()
    assert server.process is not None
    try:
        code = server.process.wait(timeout=30)
    finally:
        server.kill()
    assert code == 3  # uvicorn's exit code for a failed start-up
    assert "refusing to start without it" in server.log_text()


def test_health_says_which_part_answers(tmp_path: Path, link: TcpProxy) -> None:
    with LiveServer(tmp_path, redis_url=f"redis://{link.url_host}/{REDIS_DB}") as server:
        healthy = _health(server)
        assert healthy.status_code == 200
        assert healthy.json() == {"status": "ok", "database": "ok", "redis": "ok", "backlog": 0}
        link.cut()
        sick = _health(server)
        assert sick.status_code == 503
        assert sick.json()["status"] == "unhealthy" and sick.json()["redis"].startswith("unreachable")
        link.restore()
        _wait(lambda: _health(server).status_code == 200, 10, "health again")


@pytest.mark.slow
def test_without_its_redis_a_process_saves_acks_and_later_publishes_every_action(tmp_path: Path, link: TcpProxy) -> None:
    database = f"sqlite:///{tmp_path / 'shared.sqlite3'}"
    a = LiveServer(tmp_path / "a", database_url=database, redis_url=f"redis://{link.url_host}/{REDIS_DB}",
                   env=FAST_CLIENT_ENV)
    b = LiveServer(tmp_path / "b", database_url=database, redis_url=REDIS_URL, env=FAST_CLIENT_ENV)
    a.start()
    b.start()
    try:
        alice, bob, carol = HttpUser(a.base_url), HttpUser(a.base_url), HttpUser(b.base_url)
        for user, name in ((alice, "alice"), (bob, "bob"), (carol, "carol")):
            user.signup(unique_name(name))
        link.cut()
        _wait(lambda: _health(a).status_code == 503, 10, "A reporting its Redis gone")

        created = alice.post("/api/tables", {"variant": "backgammon", "match_length": 3, "move_seconds": 3})
        assert created.status_code == 201, created.text
        table = created.json()["table"]["table"]
        joined = bob.post(f"/api/tables/{table}/join")
        assert joined.status_code == 200, joined.text
        watcher = connected(b, carol)  # B has its Redis: it will hear of A's changes once A can publish
        assert watcher.subscribe(table)["t"] == "sync"

        players = (connected(a, alice), connected(a, bob))
        for client in players:
            assert client.subscribe(table)["t"] == "sync"
        state = players[0].state(table)
        acked = []
        for _ in range(3):
            seat, action = next_action(state)
            fields = {k: v for k, v in action.items() if k != "t"}
            acked.append(players[seat].must(table, action["t"], **fields))  # acked, and A's own watchers see it
            state = players[1 - seat].wait_version(table, acked[-1])

        # A's clock runs without Redis: the player on turn times out on A.
        timed_out = _wait(
            lambda: [e for e in carol.record(table)["events"] if e["kind"] == "timed_out"], 10, "A's timeout",
        )
        final = _wait(lambda: (v := carol.table(table)["version"]) >= timed_out[0]["version"] and v, 5, "the log")
        assert set(acked) <= {e["version"] for e in carol.record(table)["events"]}
        assert _health(a).json()["backlog"] > 0

        link.restore()
        watcher.wait_version(table, final, timeout=15)  # in order: a gap would fail here
        assert set(acked) | {timed_out[0]["version"]} <= set(watcher.feeds[table].events)
        _wait(lambda: _health(a).status_code == 200 and _health(a).json()["backlog"] == 0, 10, "A's outbox emptied")
        for client in (*players, watcher):
            client.close()
    finally:
        a.kill()
        b.kill()
