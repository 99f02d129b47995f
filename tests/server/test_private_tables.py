"""Private tables are token-only (002: play with a friend by an invite link), and the lobby has room for all.

A private match or chouette is joined only with its invite token, never
with its id alone, and no public list shows it: not the lobby, not a
player's history. A player holds at most ``max_waiting_tables`` tables
waiting for players, so one account cannot fill the lobby.
"""

from __future__ import annotations

from typing import Any


def _private_table(server: Any, owner: Any) -> tuple[str, str]:
    response = owner.post("/api/tables", {"variant": "georgian", "match_length": 1, "private": True})
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["invite"], "a private table gets an invite token"
    return body["table"]["table"], body["invite"]


def test_a_private_table_is_joined_with_its_invite_only(game_server: Any) -> None:
    alice, bob = game_server.player(), game_server.player()
    table, invite = _private_table(game_server, alice)
    record = f"/api/tables/{table}/record"  # a private table's record is its players' (and invite holders')
    before = alice.client.get(record).json()["events"]
    for body in ({}, {"invite": "not-the-token"}, {"invite": invite[:-1]}):
        refused = bob.post(f"/api/tables/{table}/join", body)
        assert refused.status_code == 403, refused.text
        assert "invite" in refused.json()["detail"]
    assert alice.client.get(record).json()["events"] == before, "a refused join changed the table"
    assert alice.client.get(f"/api/tables/{table}").json()["seats"][1] is None

    assert game_server.client.get(f"/api/invites/{invite}").json() == {"table": table, "kind": "match"}
    game_server.push((3, 1))
    joined = bob.post(f"/api/tables/{table}/join", {"invite": invite})
    assert joined.status_code == 200, joined.text
    assert joined.json()["status"] == "playing"


def test_a_public_table_needs_no_invite(game_server: Any) -> None:
    alice, bob = game_server.player(), game_server.player()
    table = game_server.create(alice, "georgian")["table"]
    game_server.push((3, 1))
    assert bob.post(f"/api/tables/{table}/join").status_code == 200


def test_finished_private_tables_stay_out_of_public_history(game_server: Any) -> None:
    alice, bob, carol = game_server.player(), game_server.player(), game_server.player()
    private, _ = game_server.match("georgian", 1, opening=[(3, 1)], players=[alice, bob], private=True)
    alice.ok("resign", private)
    public, _ = game_server.match("georgian", 1, opening=[(4, 2)], players=[alice, bob])
    alice.ok("resign", public)

    def history(viewer: Any) -> set[str]:
        reply = viewer.client.get(f"/api/users/{alice.name}/games")
        assert reply.status_code == 200, reply.text
        return {row["table"] for row in reply.json()["tables"]}

    assert history(carol) == {public}
    assert history(bob) == {public}
    assert game_server.client.get(f"/api/users/{alice.name}/games").json()["tables"][0]["table"] == public
    assert history(alice) == {public, private}, "a player sees their own private games"
    lobby = game_server.client.get("/api/lobby").json()
    assert private not in {row["table"] for key in ("waiting", "playing") for row in lobby[key]}


def test_a_private_chouette_is_joined_with_its_invite_only(game_server: Any) -> None:
    alice, bob = game_server.player(), game_server.player()
    created = alice.post("/api/chouettes", {"private": True})
    assert created.status_code == 201, created.text
    table, invite = created.json()["table"], created.json()["invite"]
    assert invite
    refused = bob.post(f"/api/chouettes/{table}/join")
    assert refused.status_code == 403, refused.text
    assert len(alice.client.get(f"/api/chouettes/{table}").json()["players"]) == 1
    assert game_server.client.get(f"/api/invites/{invite}").json() == {"table": table, "kind": "chouette"}
    joined = bob.post(f"/api/chouettes/{table}/join", {"invite": invite})
    assert joined.status_code == 200, joined.text
    assert len(joined.json()["players"]) == 2
    public = alice.post("/api/chouettes", {})
    assert public.json()["invite"] is None


def test_one_player_cannot_fill_the_lobby(make_game_server: Any) -> None:
    server = make_game_server(max_waiting_tables=2)
    alice, bob = server.player(), server.player()
    first = server.create(alice, "georgian")["table"]
    server.create(alice, "backgammon")
    lobby_before = server.client.get("/api/lobby").json()["waiting"]
    refused = alice.post("/api/tables", {"variant": "georgian", "match_length": 1})
    assert refused.status_code == 409, refused.text
    assert "2 tables waiting" in refused.json()["detail"]
    assert alice.post("/api/chouettes", {}).status_code == 409
    assert server.client.get("/api/lobby").json()["waiting"] == lobby_before, "a refused table was created"

    server.top_up()
    computer = alice.post("/api/tables", {"variant": "georgian", "opponent": "computer", "bot_level": "random"})
    assert computer.status_code == 201, "games against the computer wait for nobody"
    server.push((3, 1))
    server.join(bob, first)
    assert alice.post("/api/tables", {"variant": "georgian", "match_length": 1}).status_code == 201
