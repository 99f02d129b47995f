"""A block holds wherever two players meet (``docs/moderation.md``, *What players do*).

«Block a player: no chat from them, no invitations, matchmaking never pairs
the two, their tables hidden from the blocker's lobby.» Whichever of the two
blocked, the two are kept apart: no rematch between them (neither offered nor
accepted), no seat at a chouette where the other sits, and no team message
between them at a chouette they already share. A tournament is the exception
the page decides: it pairs them as its format says (a block cannot choose
one's opponents), and their table's chat stays closed between them.
"""

from __future__ import annotations

from typing import Any

from tests.server.chouette_driver import make_chouette_game_server

OPENING = [(3, 1)]
ROUND = {"match_length": 1, "delay_seconds": 30, "bank_seconds_per_point": 60}


def block(blocker: Any, name: str) -> None:
    assert blocker.post("/api/me/blocks", {"username": name}).status_code == 200


def unblock(blocker: Any, name: str) -> None:
    assert blocker.client.delete(f"/api/me/blocks/{name}", headers=blocker.csrf()).status_code == 200


def lobby_of(player: Any) -> set[str]:
    """The tables and chouettes waiting in ``player``'s lobby."""
    return {t["table"] for t in player.client.get("/api/lobby").json()["waiting"]}


def finish_by_resignation(loser: Any, winner: Any, table: str) -> None:
    """Georgian to 1: a resignation at the start is a koks, which ends the match."""
    loser.ok("resign", table)
    winner.catch_up(loser.version(table), table)
    assert winner.state(table)["status"] == "finished"


def test_neither_offers_nor_accepts_a_rematch_with_a_player_kept_apart(game_server: Any) -> None:
    alice, bob = game_server.player(), game_server.player()
    table, _ = game_server.match("georgian", 1, opening=OPENING, players=[alice, bob])
    finish_by_resignation(alice, bob, table)
    other_table, _ = game_server.match("georgian", 1, opening=OPENING, players=[alice, bob])
    finish_by_resignation(bob, alice, other_table)
    bob.ok("rematch", table)
    alice.catch_up(bob.version(table), table)

    block(bob, alice.name)
    refused = alice.refused("rematch", table)
    assert refused["code"] == "blocked" and "cannot play with this player" in refused["message"]
    assert alice.state(table)["rematch"] == {"offers": [1], "table": None}, "the refused answer changes nothing"
    assert bob.refused("rematch", other_table)["code"] == "blocked", "the blocker cannot offer one either"

    unblock(bob, alice.name)
    game_server.push((4, 2))
    alice.ok("rematch", table)
    done = alice.wait(lambda s: s["rematch"]["table"] is not None, table)
    assert done["rematch"]["offers"] == [0, 1]


def test_no_seat_at_a_chouette_where_a_player_kept_apart_sits(make_game_server: Any) -> None:
    server = make_chouette_game_server(make_game_server)
    ann, bob, cat = (server.player(connect=False) for _ in range(3))
    block(ann, bob.name)
    table = ann.post("/api/chouettes", {"max_players": 4}).json()["table"]
    refused = bob.post(f"/api/chouettes/{table}/join")
    assert refused.status_code == 403 and "cannot play with this player" in refused.json()["detail"]
    assert bob.user["id"] not in [p["user_id"] for p in server.view_chouette(table)["players"]]
    assert cat.post(f"/api/chouettes/{table}/join").status_code == 200

    theirs = bob.post("/api/chouettes", {"max_players": 4}).json()["table"]
    assert ann.post(f"/api/chouettes/{theirs}/join").status_code == 403, "nor the blocker at the blocked one's"
    assert theirs not in lobby_of(ann) and table not in lobby_of(bob), "each one's chouettes leave the other's lobby"
    assert theirs in lobby_of(cat)
    cats = cat.post("/api/chouettes", {"max_players": 4}).json()["table"]
    assert bob.post(f"/api/chouettes/{cats}/join").status_code == 200
    assert cats not in lobby_of(ann) and cats in lobby_of(bob), "nor one where the other only sits"

    unblock(ann, bob.name)
    assert bob.post(f"/api/chouettes/{table}/join").status_code == 200


def test_a_team_message_does_not_pass_between_two_members_kept_apart(make_game_server: Any) -> None:
    server = make_chouette_game_server(make_game_server)
    players = [server.player() for _ in range(4)]
    table = players[0].post("/api/chouettes", {"max_players": 4}).json()["table"]
    for player in players[1:]:
        assert player.post(f"/api/chouettes/{table}/join").status_code == 200
    for player in players:
        player.subscribe(table)
    players[0].ok("start", table)
    state = players[0].wait(lambda s: s["status"] == "playing", table)
    roles = {p["user_id"]: p["role"] for p in state["players"]}
    writer, kept_apart, member = (p for p in players if roles[p.user["id"]] != "box")
    block(kept_apart, writer.name)

    def heard(player: Any) -> list[str]:
        player.drain()
        said = [m["text"] for m in player.other if m.get("t") == "team"]
        player.other.clear()
        return said

    for player in players:
        heard(player)
    writer.ok("team_say", table, text="double now?")
    assert heard(member) == ["double now?"] and heard(writer) == ["double now?"]
    assert heard(kept_apart) == [], "hidden from the member who blocked the writer"
    kept_apart.ok("team_say", table, text="no")
    assert heard(member) == ["no"] and heard(writer) == [], "and the other way"


def test_a_tournament_pairs_two_players_kept_apart_and_their_chat_stays_closed(make_game_server: Any) -> None:
    server = make_game_server(tournament_sweep_seconds=0.05)
    alice, bob = server.player(), server.player()
    block(alice, bob.name)
    created = alice.post("/api/tournaments", {
        "name": "Cup", "season": "2027", "format": "knockout", "variant": "long-bolshie", "round": ROUND,
        "max_players": 2,
    })
    assert created.status_code == 201, created.text
    tournament = created.json()["id"]
    server.top_up()
    for person in (alice, bob):
        assert person.post(f"/api/tournaments/{tournament}/register").status_code == 200, "a block bars no entry"
    running = server.client.get(f"/api/tournaments/{tournament}").json()
    (pairing,) = running["rounds_played"][0]["pairings"]
    assert {pairing["a"]["name"], pairing["b"]["name"]} == {alice.name, bob.name}
    table = pairing["table"]
    assert table, "the pair has its table"
    for person in (alice, bob):
        assert person.subscribe(table)["t"] == "sync"
    assert bob.refused("say", table, text="good luck")["code"] == "blocked"
    assert alice.refused("say", table, text="good luck")["code"] == "blocked"
