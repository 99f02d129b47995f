"""Private means private: everything of a private table needs a seat at it or its invite token.

Issue 39: «a private table's id alone lets any visitor subscribe and read the
players' chat live, and read the record, chat, replay, export, and (once a
player asked for it) the analysis». The socket's subscribe and every HTTP route
that shows a table ask the same question (``nardy.server.auth.table_access``).
"""

from __future__ import annotations

from typing import Any

MATCH_READS = ("", "/record", "/chat", "/replay", "/export.mat", "/export.sgf")
"""What the HTTP API shows of a match, after ``/api/tables/{id}``."""


def _reads(client: Any, table: str, invite: str | None = None, paths: tuple[str, ...] = MATCH_READS,
           prefix: str = "/api/tables/") -> dict[str, int]:
    query = {} if invite is None else {"invite": invite}
    return {path: client.get(f"{prefix}{table}{path}", params=query).status_code for path in paths}


def _subscribe_with(player: Any, table: str, invite: str) -> dict[str, Any]:
    """``player`` subscribes to ``table`` naming its invite token; the first reply about it."""
    player.send({"t": "subscribe", "table": table, "invite": invite})
    while True:
        reply: dict[str, Any] = player.recv()
        if reply.get("table") == table and reply["t"] in ("sync", "events", "error"):
            return reply


def _chat_lines(player: Any, table: str) -> list[str]:
    """The texts of the chat lines ``player``'s connection received about ``table``."""
    return [line["text"] for message in player.other if message.get("t") == "chat" and message["table"] == table
            for line in message["messages"]]


def _receive_chat(player: Any, table: str, text: str) -> None:
    """Read ``player``'s messages until the chat line ``text`` about ``table`` has come."""
    while text not in _chat_lines(player, table):
        player.recv()


def _round_trip(player: Any) -> None:
    """A ping answered: whatever the server sent ``player`` before has been read."""
    player.send({"t": "ping"})
    while player.recv()["t"] != "pong":
        pass


def test_a_private_match_is_shown_to_its_players_and_invite_holders_only(game_server: Any) -> None:
    alice, bob, carol = game_server.player(), game_server.player(), game_server.player()
    table, _ = game_server.match("georgian", 1, opening=[(3, 1)], players=[alice, bob], private=True)
    invite = game_server.invites[table]
    alice.ok("say", text="our secret plan")

    refused = carol.subscribe(table)
    assert (refused["t"], refused["code"]) == ("error", "private_table"), refused
    assert _subscribe_with(carol, table, "not-the-token")["code"] == "private_table"
    visitor = game_server.guest()
    assert visitor.subscribe(table)["code"] == "private_table", "a visitor's id alone shows nothing"
    alice.ok("say", text="nobody else hears this")
    _receive_chat(bob, table, "nobody else hears this")
    _round_trip(carol)
    _round_trip(visitor)
    assert _chat_lines(carol, table) == _chat_lines(visitor, table) == [], "the chat leaked live"

    anonymous = game_server.new_client()
    for reader in (anonymous, carol.client):
        assert set(_reads(reader, table).values()) == {403}, _reads(reader, table)
        assert set(_reads(reader, table, "not-the-token").values()) == {403}
    for reader in (alice.client, bob.client):
        assert set(_reads(reader, table).values()) == {200}, _reads(reader, table)
    assert set(_reads(anonymous, table, invite).values()) == {200}, "the invite link shows the table"
    watched = _subscribe_with(carol, table, invite)
    assert watched["t"] == "sync", watched
    _receive_chat(carol, table, "nobody else hears this")
    assert _chat_lines(carol, table) == ["our secret plan", "nobody else hears this"]


def test_a_private_match_s_analysis_is_its_players_own(game_server: Any) -> None:
    alice, bob = game_server.player(), game_server.player()
    table, _ = game_server.match("georgian", 1, opening=[(3, 1)], players=[alice, bob], private=True)
    alice.ok("resign", table)
    bob.wait(lambda s: s["status"] == "finished", table)
    assert alice.post(f"/api/tables/{table}/analysis", {"level": "advanced"}).status_code == 202
    anonymous = game_server.new_client()
    assert anonymous.get(f"/api/tables/{table}/analysis").status_code == 403
    assert game_server.player().client.get(f"/api/tables/{table}/analysis").status_code == 403
    assert bob.client.get(f"/api/tables/{table}/analysis").status_code == 200
    assert anonymous.get(f"/api/tables/{table}/analysis", params={"invite": game_server.invites[table]}).status_code == 200


def test_a_private_chouette_is_shown_to_those_who_sat_at_it_and_invite_holders_only(game_server: Any) -> None:
    alice, bob, carol = game_server.player(), game_server.player(), game_server.player()
    created = alice.post("/api/chouettes", {"private": True}).json()
    table, invite = created["table"], created["invite"]
    assert bob.post(f"/api/chouettes/{table}/join", {"invite": invite}).status_code == 200
    reads = ("", "/replay")
    anonymous = game_server.new_client()
    for reader in (anonymous, carol.client):
        assert set(_reads(reader, table, paths=reads, prefix="/api/chouettes/").values()) == {403}
    for reader in (alice.client, bob.client):
        assert set(_reads(reader, table, paths=reads, prefix="/api/chouettes/").values()) == {200}
    assert set(_reads(anonymous, table, invite, paths=reads, prefix="/api/chouettes/").values()) == {200}
    assert carol.subscribe(table)["code"] == "private_table"
    assert bob.subscribe(table)["t"] == "sync"
    assert _subscribe_with(carol, table, invite)["t"] == "sync"


def test_a_public_table_is_shown_to_anyone(game_server: Any) -> None:
    table, _ = game_server.match("georgian", 1, opening=[(3, 1)])
    assert set(_reads(game_server.new_client(), table).values()) == {200}
    assert game_server.guest().subscribe(table)["t"] == "sync"
    assert game_server.new_client().get("/api/tables/nosuchtable/record").status_code == 404, "a missing table is named so"
