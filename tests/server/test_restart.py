"""A real server process killed with SIGKILL mid-match and started again on the same data.

Each test runs ``python -m nardy.server`` (see :mod:`tests.server.live_server`) with real,
provably fair dice, two signed-up players and their WebSocket clients. After
a kill, a new process on the same database must come back exactly where the
old one stopped: the same version and state, every acknowledged action in the
log, the same move-clock deadline, and clocks that fire, including a deadline
that passed while no server was running. Clients reconnect and subscribe with
``since`` = the last version they saw, and get exactly the events they missed,
or a ``sync`` when they missed nothing.

The database is a SQLite file in the data directory, or a fresh PostgreSQL
database when ``postgresql://postgres@127.0.0.1:5432`` answers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from nardy import cli
from nardy.notation.dice_record import verify_record
from tests.server.live_server import (
    FAST_CLIENT_ENV,
    HttpUser,
    LiveServer,
    WsClient,
    comparable,
    connected,
    first_step,
    fresh_postgres_database,
    next_action,
    postgres_unreachable,
    unique_name,
)

Json = dict[str, Any]

FIRE_WITHIN = 4.0
"""Seconds after a restart by which an overdue deadline must have fired."""

ACTION_EVENT = {
    "roll": "rolled", "move": "moved", "step": "stepped", "confirm": "moved", "undo": "undone",
    "take": "took", "accept_resignation": "resignation_accepted",
}

@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """The database URL for the server: ``None`` (the SQLite file in the data dir) or a fresh PostgreSQL one."""
    if request.param == "sqlite":
        yield None
        return
    reason = postgres_unreachable()
    if reason is not None:
        pytest.skip(reason)
    with fresh_postgres_database() as url:
        yield url


@pytest.fixture
def live_server(tmp_path: Path, database: str | None) -> Iterator[LiveServer]:
    live = LiveServer(tmp_path / "data", database_url=database, env=FAST_CLIENT_ENV)
    live.start()
    try:
        yield live
    finally:
        live.kill()  # a graceful stop only costs time here


def _table_with_two_players(
    server: LiveServer, *, move_seconds: int | None, length: int = 3
) -> tuple[str, HttpUser, HttpUser]:
    alice, bob = HttpUser(server.base_url), HttpUser(server.base_url)
    alice.signup(unique_name("alice"))
    bob.signup(unique_name("bob"))
    body: Json = {"variant": "georgian", "match_length": length, "move_seconds": move_seconds}
    created = alice.post("/api/tables", body)
    assert created.status_code == 201, created.text
    table = created.json()["table"]["table"]
    joined = bob.post(f"/api/tables/{table}/join")
    assert joined.status_code == 200, joined.text
    assert joined.json()["status"] == "playing"
    return table, alice, bob


def _connect_both(server: LiveServer, table: str, users: tuple[HttpUser, HttpUser]) -> tuple[WsClient, WsClient]:
    clients = (connected(server, users[0]), connected(server, users[1]))
    for client, user in zip(clients, users, strict=True):
        assert user.user is not None and client.hello["user"]["id"] == user.user["id"]
        assert client.subscribe(table)["t"] == "sync"
    return clients


def _instant(text: str | None) -> datetime | None:
    """An ISO time as an aware instant; a naive one is read as UTC."""
    if text is None:
        return None
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _assert_same_table(after: Json, before: Json, *, what: str) -> None:
    """Same version and the same state, the deadline's text included."""
    assert after["version"] == before["version"], f"{what}: version {after['version']} != {before['version']}"
    assert after["deadline"] == before["deadline"], f"{what}: the deadline differs"
    assert comparable(after) == comparable(before), f"{what}: the state differs"


def _reconnect(server: LiveServer, table: str, user: HttpUser, since: int) -> tuple[WsClient, Json]:
    client = connected(server, user)
    assert user.user is not None
    assert client.hello["user"] == {"id": user.user["id"], "username": user.user["username"]}
    return client, client.subscribe(table, since=since)


def _assert_closed(client: WsClient) -> None:
    with pytest.raises(Exception) as caught:
        for _ in range(100):
            client.recv(timeout=5)
    assert "timed out" not in str(caught.value), "the connection to the killed server stayed open"


def _check_acks_in_record(
    record: Json, acks: list[tuple[str, int, int, str]], clients: tuple[WsClient, WsClient], table: str, start: int
) -> None:
    """Every acked action is in the log, and sending its action_id again (a sample) changes nothing.

    An action and the server's follow-ups form one batch, acked with the batch's last version;
    so each action's event opens the batch that ends at its ack (``start``: the version before the first).
    """
    events = record["events"]
    by_version = {event["version"]: event for event in events}
    player_events = [e for e in events if e["kind"] in set(ACTION_EVENT.values()) and e["seat"] is not None]
    assert len(player_events) == len(acks), "the log's player actions are not the acked actions"
    ordered = sorted(acks, key=lambda ack: ack[2])
    previous = start
    for _action_id, seat, acked_version, t in ordered:
        event = by_version[previous + 1]
        assert (event["kind"], event["seat"]) == (ACTION_EVENT[t], seat), f"{t} acked at {acked_version}: {event}"
        previous = acked_version
    version = events[-1]["version"]
    for action_id, seat, acked_version, t in acks[::5] + acks[-3:]:
        again = clients[seat].act(table, "roll", action_id=action_id)
        assert again == {"t": "ack", "action_id": action_id, "table": table, "version": acked_version}, (
            f"resending acked {t} {action_id}"
        )
    for client in clients:
        assert client.feeds[table].version == version, "resending acked actions changed the table"


class _Players:
    """The two clients, remembering every acked action as (action_id, seat, version, t)."""

    def __init__(self, table: str, clients: tuple[WsClient, WsClient]) -> None:
        self.table = table
        self.clients = clients
        self.acks: list[tuple[str, int, int, str]] = []

    def act(self, seat: int, action: Json) -> int:
        payload = {k: v for k, v in action.items() if k != "t"}
        client = self.clients[seat]
        reply = client.act(self.table, action["t"], **payload)
        assert reply["t"] == "ack", f"{action} refused: {reply}"
        self.acks.append((client.acked[-1][0], seat, reply["version"], action["t"]))
        client.wait_version(self.table, reply["version"])
        self.clients[1 - seat].wait_version(self.table, reply["version"])
        return int(reply["version"])

    def play(self, actions: int | None = None, *, until: Any = None) -> Json:
        done = 0
        state = self.clients[0].state(self.table)
        while (actions is None or done < actions) and not (until is not None and until(state)):
            chosen = next_action(state)
            if chosen is None:
                break
            self.act(*chosen)
            state = self.clients[0].state(self.table)
            done += 1
        return state


@pytest.mark.slow
def test_sigkill_and_restart_lose_nothing(live_server: LiveServer, tmp_path: Path) -> None:
    table, alice, bob = _table_with_two_players(live_server, move_seconds=30)
    users = (alice, bob)
    players = _Players(table, _connect_both(live_server, table, users))
    start = players.clients[0].state(table)["version"]

    # Some turns, then a crash between turns.
    state = players.play(24)
    assert state["status"] == "playing" and state["deadline"] is not None
    before = alice.table(table)
    live_server.kill()
    for client in players.clients:
        _assert_closed(client)
    live_server.start()

    after = alice.table(table)
    _assert_same_table(after, before, what="GET /api/tables/{id} after the restart")

    # The actor reconnects first and plays on while the other player is away.
    actor = after["actor"]
    mover, reply = _reconnect(live_server, table, users[actor], since=before["version"])
    assert reply["t"] == "sync" and reply["version"] == before["version"]
    _assert_same_table(reply["state"], before, what="sync after the restart")
    away_version = before["version"]
    for _ in range(3):
        chosen = next_action(mover.state(table))
        if chosen is None or chosen[0] != actor:
            break
        action = chosen[1]
        version = mover.must(table, action["t"], **{k: v for k, v in action.items() if k != "t"})
        players.acks.append((mover.acked[-1][0], actor, version, action["t"]))
    missed_to = mover.feeds[table].version
    assert missed_to > away_version

    # The other one comes back with since = the last version it saw: exactly the missed events.
    other, reply = _reconnect(live_server, table, users[1 - actor], since=away_version)
    assert reply["t"] == "events", reply
    assert (reply["from_version"], reply["version"]) == (away_version + 1, missed_to)
    record = alice.record(table)
    logged = [e for e in record["events"] if away_version < e["version"] <= missed_to]
    assert reply["events"] == logged
    assert comparable(reply["state"]) == comparable(mover.state(table))
    players.clients = (mover, other) if actor == 0 else (other, mover)

    # A crash in the middle of a turn, with one step made and not confirmed.
    players.play(until=lambda s: s["game"]["phase"] == "moving" and not s["game"]["pending"])
    seat = players.clients[0].state(table)["actor"]
    players.act(seat, first_step(players.clients[0].state(table)))
    before = alice.table(table)
    assert len(before["game"]["pending"]) == 1 and before["game"]["legal"]["can_undo"]
    live_server.kill()
    live_server.start()
    after = alice.table(table)
    _assert_same_table(after, before, what="after a kill in the middle of a turn")
    reconnected = []
    for user in users:
        client, reply = _reconnect(live_server, table, user, since=before["version"])
        assert reply["t"] == "sync"
        _assert_same_table(reply["state"], before, what="sync after a kill in the middle of a turn")
        reconnected.append(client)
    players.clients = (reconnected[0], reconnected[1])

    # Finish the match: the half-made turn goes on with steps and a confirm.
    final = players.play()
    assert final["status"] == "finished", final
    assert final["match"]["winner"] in (0, 1) and max(final["match"]["score"]) >= 3
    record = alice.record(table)
    assert record["events"][-1]["version"] == final["version"]
    assert [e["version"] for e in record["events"]] == list(range(1, final["version"] + 1))
    _check_acks_in_record(record, players.acks, players.clients, table, start)

    # The dice were provably fair all along, across the restarts.
    assert verify_record(record) == []
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert cli.main(["verify-dice", str(path)]) == 0


@pytest.mark.slow
def test_deadline_that_passed_while_down_fires_after_restart(live_server: LiveServer) -> None:
    table, alice, _bob = _table_with_two_players(live_server, move_seconds=3, length=1)
    before = alice.table(table)
    live_server.kill()
    deadline = _instant(before["deadline"])
    assert deadline is not None
    actor = before["actor"]
    wait = (deadline - datetime.now(UTC)).total_seconds() + 1.0
    assert wait > 0.5, "the clock ran out before the server could be killed"
    time.sleep(wait)

    live_server.start()
    restarted = datetime.now(UTC)
    client, reply = _reconnect(live_server, table, alice, since=before["version"])
    feed = client.feeds[table]

    def timed_out() -> list[Json]:
        return [e for e in feed.events.values() if e["kind"] == "timed_out"]

    end = time.monotonic() + FIRE_WITHIN
    while not timed_out() and time.monotonic() < end:
        try:
            client.recv(timeout=max(0.05, end - time.monotonic()))
        except TimeoutError:
            break
    events = timed_out()
    assert events, f"no timed_out event within {FIRE_WITHIN} s of the restart; server log:\n{live_server.log_tail(20)}"
    first = events[0]
    assert first["seat"] == actor and first["version"] == before["version"] + 1
    fired = _instant(first["at"])
    assert fired is not None and deadline <= fired <= restarted + timedelta(seconds=FIRE_WITHIN)
    assert feed.state is not None and feed.state["match"]["timeouts"][actor] >= 1

