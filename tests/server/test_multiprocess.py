"""Two server processes sharing one database and one Redis: a match played across them.

Player 0 is connected to process A and player 1 to process B. Every action is
committed by the process that received it, and the other player must see it
live, as an ``events`` message relayed through Redis publish/subscribe, with
no gap and no resync. Both processes must end with the same version and state.

The shared database is a SQLite file in WAL mode, or a fresh PostgreSQL
database (``postgresql+psycopg://postgres@127.0.0.1:5432``, created as
``nardy_<random>`` and dropped afterwards). Redis is ``redis://127.0.0.1:6379``.
A case is skipped, with the reason, when its service does not answer. (One
process on PostgreSQL playing a whole match, with restarts, is in
``test_restart.py``.)
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from nardy.notation.dice_record import verify_record
from tests.server.live_pair import database_url, live_servers, redis_url  # noqa: F401 - fixtures, used by name
from tests.server.live_server import HttpUser, LiveServer, WsClient, comparable, connected, play, unique_name

Json = dict[str, Any]


def _same_time(clients: list[WsClient], messages: list[Json]) -> list[Json]:
    """Send one message on each connection at (nearly) the same moment; the replies naming them."""
    barrier = threading.Barrier(len(clients))
    replies: list[Json | None] = [None] * len(clients)

    def go(index: int) -> None:
        barrier.wait()
        clients[index].send(messages[index])

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(clients))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for index, client in enumerate(clients):
        replies[index] = client.wait_for(_answer_to(messages[index]["action_id"]))
    return [r for r in replies if r is not None]


def _answer_to(action_id: str) -> Callable[[Json], bool]:
    return lambda message: message.get("t") in ("ack", "error") and message.get("action_id") == action_id


@pytest.mark.slow
def test_a_match_across_two_processes(live_servers: tuple[LiveServer, LiveServer]) -> None:
    a, b = live_servers
    alice, bob = HttpUser(a.base_url), HttpUser(b.base_url)
    alice.signup(unique_name("alice"))
    bob.signup(unique_name("bob"))
    created = alice.post("/api/tables", {"variant": "georgian", "match_length": 3})
    assert created.status_code == 201, created.text
    table = created.json()["table"]["table"]
    assert bob.get(f"/api/tables/{table}").json()["status"] == "waiting", "B does not see A's new table"

    ca = connected(a, alice)
    cb = connected(b, bob)
    assert ca.subscribe(table)["t"] == "sync"
    assert cb.subscribe(table)["t"] == "sync"
    subscribed_at = {id(c): c.feeds[table].version for c in (ca, cb)}
    # Bob joins through B over HTTP: Alice, on A, hears of it live.
    joined = bob.post(f"/api/tables/{table}/join")
    assert joined.status_code == 200, joined.text
    start = joined.json()
    assert start["status"] == "playing"
    ca.wait_version(table, start["version"])
    assert comparable(ca.state(table)) == comparable(cb.wait_version(table, start["version"]))

    clients = (ca, cb)
    users = (alice, bob)
    home = (a, b)

    # The same action (same action_id) through both processes at once: applied once, acked twice alike.
    state = play(table, clients, until=lambda s: s["game"]["phase"] == "rolling")
    actor = state["actor"]
    twin = connected(home[1 - actor], users[actor])
    assert twin.subscribe(table)["t"] == "sync"
    same = {"t": "roll", "table": table, "action_id": f"twin-{uuid.uuid4().hex}"}
    replies = _same_time([clients[actor], twin], [same, same])
    assert [r["t"] for r in replies] == ["ack", "ack"], replies
    assert replies[0]["version"] == replies[1]["version"] == state["version"] + 1
    for client in clients:
        client.wait_version(table, state["version"] + 1)
    # Two different rolls of one seat through both processes at once: exactly one is accepted.
    state = play(table, clients, until=lambda s: s["game"]["phase"] == "rolling" and s["actor"] == actor)
    first = {"t": "roll", "table": table, "action_id": f"one-{uuid.uuid4().hex}"}
    second = {"t": "roll", "table": table, "action_id": f"two-{uuid.uuid4().hex}"}
    replies = _same_time([clients[actor], twin], [first, second])
    assert sorted(r["t"] for r in replies) == ["ack", "error"], replies
    refused = next(r for r in replies if r["t"] == "error")
    assert refused["code"] in ("illegal", "not_your_turn"), refused
    assert next(r for r in replies if r["t"] == "ack")["version"] == state["version"] + 1
    twin.close()
    for client in clients:
        client.wait_version(table, state["version"] + 1)

    final = play(table, clients)
    assert final["status"] == "finished" and max(final["match"]["score"]) >= 3

    # Both players saw every event live, in order, without a gap or a resync, and agree on the end.
    for client in clients:
        feed = client.feeds[table]
        assert feed.gaps == [] and feed.syncs == 1
        assert sorted(feed.events) == list(range(subscribed_at[id(client)] + 1, final["version"] + 1))
    assert comparable(ca.state(table)) == comparable(cb.state(table))
    assert ca.state(table)["version"] == cb.state(table)["version"] == final["version"]
    views = [comparable(user.table(table)) for user in users]
    assert views[0] == views[1] == comparable(final)

    record = alice.record(table)
    assert [e["version"] for e in record["events"]] == list(range(1, final["version"] + 1))
    assert record == bob.record(table)
    assert verify_record(record) == []
    stored = {e["version"]: e for e in record["events"]}
    for client in clients:
        for version, event in client.feeds[table].events.items():
            assert event == stored[version], f"event {version} seen live differs from the stored one"
        client.close()


def test_matchmaking_pairs_players_waiting_in_two_processes(live_servers: tuple[LiveServer, LiveServer]) -> None:
    """Alice waits through A, Bob through B: one pool, so they are paired, and either process tells them so."""
    a, b = live_servers
    alice, bob = HttpUser(a.base_url), HttpUser(b.base_url)
    names = unique_name("alice"), unique_name("bob")
    alice.signup(names[0])
    bob.signup(names[1])
    pool = {"variant": "georgian", "match_length": 3}
    assert alice.post("/api/matchmaking/join", pool).json()["status"] == "waiting"
    assert bob.post("/api/matchmaking/join", pool).json()["status"] in ("waiting", "matched")
    alice_on_b, bob_on_a = HttpUser(b.base_url), HttpUser(a.base_url)
    alice_on_b.http.cookies = alice.http.cookies
    bob_on_a.http.cookies = bob.http.cookies
    deadline = time.monotonic() + 20
    while (status := alice_on_b.get("/api/matchmaking/status").json())["status"] != "matched":
        assert status["status"] == "waiting", status
        assert time.monotonic() < deadline, "no pairing within 20 s"
        time.sleep(0.2)
    table = status["table"]
    for user in (alice, bob, bob_on_a):
        assert user.get("/api/matchmaking/status").json() == {"status": "matched", "table": table}
    view = alice.table(table)
    assert view["status"] == "playing" and view["rated"] is True
    assert {seat["name"] for seat in view["seats"]} == set(names)


def _seat_events(user: HttpUser, table: str) -> list[Json]:
    return [e for e in user.record(table)["events"] if e["kind"] in ("seated", "left", "client_seed_set", "forfeited")]


@pytest.mark.slow
def test_a_player_who_left_cannot_act_for_whoever_took_the_seat(live_servers: tuple[LiveServer, LiveServer]) -> None:
    """Process A still holds the table as it was when Alice sat in seat 0; she left through B and Bob took
    the seat. Whatever Alice sends to A is decided as Alice, on the table as it is now: she is not seated."""
    a, b = live_servers
    alice, bob, carol = HttpUser(b.base_url), HttpUser(b.base_url), HttpUser(b.base_url)
    for user, name in ((alice, "alice"), (bob, "bob"), (carol, "carol")):
        user.signup(unique_name(name))
    table = alice.post("/api/tables", {"variant": "backgammon", "match_length": 1}).json()["table"]["table"]
    alice_on_a = WsClient(a.ws_url, alice.cookie_header)
    assert alice_on_a.subscribe(table)["t"] == "sync"  # A loads the table: Alice in seat 0
    alice_on_b = connected(b, alice)
    alice_on_b.subscribe(table)
    assert alice_on_b.act(table, "leave")["t"] == "ack"
    assert bob.post(f"/api/tables/{table}/join").status_code == 200  # Bob takes seat 0

    seed = alice_on_a.act(table, "client_seed", seed="alices-own-seed")
    assert seed["t"] == "error" and seed["code"] == "not_seated", seed
    assert all(e["payload"].get("client_seed") != "alices-own-seed" for e in _seat_events(bob, table))

    assert carol.post(f"/api/tables/{table}/join").status_code == 200  # the match starts
    assert bob.table(table)["status"] == "playing"
    before = bob.record(table)["events"]
    left = alice_on_a.act(table, "leave")
    assert left["t"] == "error" and left["code"] == "not_seated", left
    after = bob.record(table)["events"]
    assert after == before, "a refused action changed the log"
    assert bob.table(table)["status"] == "playing"
    for client in (alice_on_a, alice_on_b):
        client.close()
