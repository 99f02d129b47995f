"""Two server processes sharing one database and one Redis: a chouette and its team channel across them.

Every player and a signed-in spectator are connected to both processes, A and
B. Whatever the dice make of the places, the team channel must reach each
member of the team on both processes and nobody else: never the box and never
the spectator, on either. Actions go through one process and every watcher on
the other sees them live, with no gap and no resync (``docs/chouette.md``, *The
team channel*).

The processes, the shared database (SQLite in WAL mode, or a fresh PostgreSQL
database) and the skips when Redis or PostgreSQL do not answer are those of
``test_multiprocess.py``: the fixtures of ``live_pair.py``.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from nardy.notation import position_from_dict
from tests.server.live_pair import database_url, live_servers, redis_url  # noqa: F401 - fixtures, used by name
from tests.server.live_server import HttpUser, LiveServer, WsClient, comparable, connected, unique_name

Json = dict[str, Any]


class Person:
    """One user with a connection to each process, both subscribed to the table."""

    def __init__(self, user: HttpUser, a: LiveServer, b: LiveServer) -> None:
        self.user = user
        self.id: int = user.user["id"] if user.user else 0
        self.on: dict[str, WsClient] = {"A": connected(a, user), "B": connected(b, user)}

    @property
    def connections(self) -> list[WsClient]:
        return list(self.on.values())

    def team_heard(self) -> list[list[Json]]:
        """The team messages each connection received, per connection (A, then B)."""
        return [team_messages(c) for c in self.connections]

    def close(self) -> None:
        for connection in self.connections:
            connection.close()


def team_messages(connection: WsClient) -> list[Json]:
    """The team messages ``connection`` received so far (read while waiting for acks and versions too)."""
    return [m for way, m in connection.log if way == "in" and m.get("t") == "team"]


def player_name(state: Json, user_id: int) -> str:
    """A player's name as the state view gives it."""
    name: str = next(p["name"] for p in state["players"] if p["user_id"] == user_id)
    return name


def _board_play(game: Json) -> list[Json]:
    """The steps of the first legal play for the side on turn, rebuilt from the view."""
    side = "box" if game["turn"] == "box" else "team"
    position = position_from_dict(game["boards"][side])
    plays = position.legal_plays(tuple(game["dice"]))
    assert plays, f"moving with no legal play: {game}"
    return [{"source": s.source, "target": s.target, "die": s.die} for s in plays[0].steps]


@pytest.mark.slow
def test_the_team_channel_and_the_actions_of_a_chouette_across_two_processes(
    live_servers: tuple[LiveServer, LiveServer],
) -> None:
    a, b = live_servers
    users = []
    for index, home in enumerate((a, b, a, b)):
        user = HttpUser(home.base_url)
        user.signup(unique_name("ch" if index < 3 else "watch"))
        users.append(user)
    created = users[0].post("/api/chouettes", {"max_players": 4})
    assert created.status_code == 201, created.text
    table = created.json()["table"]
    for user in users[1:3]:
        joined = user.post(f"/api/chouettes/{table}/join")
        assert joined.status_code == 200, joined.text
    people = [Person(user, a, b) for user in users]
    players, spectator = people[:3], people[3]
    everyone = [c for person in people for c in person.connections]
    for connection in everyone:
        assert connection.subscribe(table)["t"] == "sync"
    subscribed_at = {id(c): c.feeds[table].version for c in everyone}
    assert len({v for v in subscribed_at.values()}) == 1, "A and B disagree on the table's version"

    # ----- Start through A: the places are rolled, the first game opens; B's watchers see it live.
    version = players[0].on["A"].must(table, "start")
    states = [c.wait_version(table, version) for c in everyone]
    state = states[0]
    assert state["status"] == "playing" and state["game"] is not None, state
    assert all(comparable(s) == comparable(state) for s in states), "the watchers of A and B see different states"
    by_id = {p.id: p for p in players}
    game = state["game"]
    box = by_id[game["box"]]
    team = [by_id[p["user_id"]] for p in state["players"] if p["role"] in ("captain", "member")]
    assert len(team) == 2 and box not in team

    # ----- A member speaks through A, the other through B: each reaches the team on both processes.
    said = [
        (team[0], "A", {"text": "run now?", "suggest": "no_double"}),
        (team[1], "B", {"text": "agreed"}),
    ]
    for speaker, way, fields in said:
        reply = speaker.on[way].act(table, "team_say", **fields)
        assert reply["t"] == "ack" and reply["version"] == version, reply  # nothing stored: the version stays
    refused = box.on["B"].act(table, "team_say", text="I am the box")
    assert refused["t"] == "error" and refused["code"] == "not_on_team", refused
    for member in team:
        for connection in member.connections:
            while len(team_messages(connection)) < len(said):
                connection.recv()

    # ----- A marker after them: a client seed set through B, which everyone sees on both processes.
    # Redis keeps the order of a channel's messages, so a team message for the box or the
    # spectator would have reached them before the marker.
    marker = box.on["B"].must(table, "client_seed", seed="after-the-team-talked")
    for connection in everyone:
        connection.wait_version(table, marker)
    expected = [
        {"t": "team", "table": table, "from": s.id, "name": player_name(state, s.id), "text": f["text"],
         "suggest": f.get("suggest"), "steps": None}
        for s, _, f in said
    ]
    for member in team:
        assert member.team_heard() == [expected, expected], "each member hears the team once on each process"
    for outsider in (box, spectator):
        assert outsider.team_heard() == [[], []], "the box or a spectator heard the team channel"

    # ----- The board is played through one process and seen on the other.
    game = box.on["A"].state(table)["game"]
    assert game["phase"] == "moving", game
    actor = by_id[game["awaiting"][0]]
    moved = actor.on["A"].must(table, "move", steps=_board_play(game))
    for connection in everyone:
        connection.wait_version(table, moved)
    seen_on_b = spectator.on["B"].state(table)
    assert seen_on_b["last_move"]["player"] == actor.id
    game = seen_on_b["game"]
    assert game["phase"] == "rolling" and game["turn"] != ("box" if actor is box else "team"), game
    roller = by_id[game["awaiting"][0]]
    rolled = roller.on["B"].must(table, "roll")
    for connection in everyone:
        connection.wait_version(table, rolled)
    assert any(e["kind"] == "rolled" for e in spectator.on["A"].feeds[table].events.values())

    # ----- Everyone saw every event live, in order, once; the log holds none of the team's words.
    for connection in everyone:
        feed = connection.feeds[table]
        assert feed.gaps == [] and feed.syncs == 1
        assert sorted(feed.events) == list(range(subscribed_at[id(connection)] + 1, rolled + 1))
        assert comparable(connection.state(table)) == comparable(spectator.on["A"].state(table))
    record = users[3].record(table)
    assert [e["version"] for e in record["events"]] == list(range(1, rolled + 1))
    assert record == users[0].record(table)
    stored = json.dumps(record)
    assert all(f["text"] not in stored for _, _, f in said), "a team message was stored"
    assert all(e["kind"] != "team_say" for e in record["events"])
    for person in people:
        person.close()
        person.user.close()
