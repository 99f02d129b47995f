"""Who may act on a table over the WebSocket, and that a refusal changes nothing.

Watching needs nothing; acting needs a valid session (an account or a guest)
seated at the table, and the decision must be one's own. Every refusal here
is checked against the table's version and the watchers' streams: no event
may come of it.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update
from starlette.websockets import WebSocketDisconnect

from nardy.store.models import LoginSession

OPENING_MOVE = [
    {"source": 8, "target": 5, "die": 3, "hit": False},
    {"source": 6, "target": 5, "die": 1, "hit": False},
]

ACTIONS = [
    ("roll", {}),
    ("step", {"source": 8, "die": 3}),
    ("move", {"steps": OPENING_MOVE}),
    ("undo", {}),
    ("confirm", {}),
    ("double", {}),
    ("take", {}),
    ("resign", {}),
    ("leave", {}),
    ("rematch", {}),
]


@pytest.fixture
def seated(game_server):
    """Alice (to move, 3-1) and Bob, guests, playing Georgian; returns (table, alice, bob)."""
    table, (alice, bob) = game_server.match("georgian", 1, opening=[(3, 1)])
    return table, alice, bob


def _nothing_happened(server, table, version, *watchers):
    assert server.view(table)["version"] == version
    for watcher in watchers:
        stray = [m for m in watcher.drain() if m["t"] in ("events", "sync")]
        assert stray == []
        assert watcher.version(table) == version


def test_a_spectator_watches_but_cannot_act(game_server, seated):
    table, alice, bob = seated
    carol = game_server.player("carol")
    sync = carol.subscribe(table)
    assert sync["t"] == "sync" and sync["state"] == alice.state() | {"server_time": sync["state"]["server_time"]}
    version = alice.version()
    for t, fields in ACTIONS:
        refused = carol.refused(t, table, **fields)
        assert refused["code"] == "not_seated", (t, refused)
        assert refused["table"] == table
    _nothing_happened(game_server, table, version, alice, bob, carol)

    # The spectator does see the players' moves.
    moved = alice.ok("move", steps=OPENING_MOVE)
    carol.catch_up(moved["version"])
    assert carol.events[table][-1]["kind"] == "moved"


def test_the_player_not_on_turn_is_refused(game_server, seated):
    table, alice, bob = seated
    version = alice.version()
    for t, fields in ACTIONS[:7]:
        refused = bob.refused(t, **fields)
        assert refused["code"] == "not_your_turn", (t, refused)
    assert bob.refused("rematch")["code"] == "illegal"  # the match is on
    _nothing_happened(game_server, table, version, alice, bob)
    alice.ok("move", steps=OPENING_MOVE)
    # Now the roles are reversed.
    assert alice.refused("roll")["code"] == "not_your_turn"


def test_a_visitor_who_is_not_signed_in_may_watch_but_not_act(game_server, seated):
    table, alice, bob = seated
    stranger = game_server.player(sign_up=False)
    assert stranger.hello["user"] is None
    assert stranger.subscribe(table)["t"] == "sync"
    version = alice.version()
    for t, fields in ACTIONS:
        refused = stranger.refused(t, table, **fields)
        assert refused["code"] == "not_signed_in", (t, refused)
    _nothing_happened(game_server, table, version, alice, bob, stranger)


def test_a_forged_session_cookie_signs_nobody_in(game_server, seated):
    table, alice, bob = seated
    for cookie in ("nardy_session=forged-token", f"nardy_session={'A' * 43}", "nardy_session="):
        forger = game_server.player(sign_up=False, connect=False)
        hello = forger.connect(headers={"cookie": cookie})
        assert hello["user"] is None, cookie
        forger.subscribe(table)
        assert forger.refused("move", table, steps=OPENING_MOVE)["code"] == "not_signed_in"
        assert forger.refused("resign", table)["code"] == "not_signed_in"
    _nothing_happened(game_server, table, alice.version(), alice, bob)


def test_a_logged_out_session_cookie_is_refused_when_replayed(game_server):
    alice, bob = game_server.player("alice"), game_server.player("bob")  # accounts, signed up
    table, _ = game_server.match("georgian", 1, opening=[(3, 1)], players=[alice, bob])
    old_cookie = f"nardy_session={alice.client.cookies['nardy_session']}"
    assert alice.post("/api/logout").status_code == 204
    assert alice.client.get("/api/me").status_code == 401

    replay = game_server.player(sign_up=False, connect=False)
    assert replay.client.get("/api/me", headers={"cookie": old_cookie}).status_code == 401
    hello = replay.connect(headers={"cookie": old_cookie})
    assert hello["user"] is None
    replay.subscribe(table)
    version = replay.version()
    for t, fields in ACTIONS:
        assert replay.refused(t, table, **fields)["code"] == "not_signed_in", t
    _nothing_happened(game_server, table, version, bob, replay)


def test_a_session_of_the_other_player_acts_only_as_that_player(game_server, seated):
    """Bob's cookie on another browser is Bob: it cannot play Alice's turn."""
    table, alice, bob = seated
    twin = game_server.player(sign_up=False, connect=False)
    hello = twin.connect(headers={"cookie": f"nardy_session={bob.client.cookies['nardy_session']}"})
    assert hello["user"] == {"id": bob.user["id"], "username": bob.user["username"]}
    twin.subscribe(table)
    assert twin.refused("move", steps=OPENING_MOVE)["code"] == "not_your_turn"
    _nothing_happened(game_server, table, alice.version(), alice, bob)


def test_unknown_tables_and_malformed_actions(game_server, seated):
    table, alice, bob = seated
    assert alice.refused("roll", "no-such-table")["code"] == "no_such_table"
    reply = alice.subscribe("no-such-table")
    assert reply["t"] == "error" and reply["code"] == "no_such_table"
    alice.send({"t": "move", "table": table, "action_id": "x", "steps": []})
    assert alice.recv()["code"] == "bad_message"
    alice.send({"t": "step", "table": table, "action_id": "y", "source": 8, "die": 7})
    assert alice.recv()["code"] == "bad_message"
    alice.send({"t": "roll", "table": table, "action_id": "z", "extra": 1})
    assert alice.recv()["code"] == "bad_message"
    _nothing_happened(game_server, table, alice.version(), alice, bob)


def test_a_cross_site_websocket_is_closed(game_server, seated):
    client = game_server.new_client()
    with pytest.raises(WebSocketDisconnect) as closed:
        with client.websocket_connect("/ws", headers={"origin": "https://evil.example"}):
            pass
    assert closed.value.code == 1008


def test_a_session_that_expires_stops_acting_at_its_next_action(game_server, seated):
    """The socket knows when its session expires: past that moment its next action looks the session up,
    finds it gone, and is refused; nothing changes."""
    table, alice, bob = seated
    version = alice.version()
    with game_server.client.app.state.db() as db:
        db.execute(update(LoginSession).where(LoginSession.user_id == alice.user["id"])
                   .values(expires_at=datetime.now(UTC) + timedelta(seconds=1)))
        db.commit()
    alice.close()
    alice.connect()  # a socket opened now notes the new expiry
    alice.subscribe(table)
    time.sleep(1.2)
    refused = alice.act("move", table, steps=OPENING_MOVE)
    assert refused["t"] == "error" and refused["code"] == "not_signed_in", refused
    _nothing_happened(game_server, table, version, bob)
