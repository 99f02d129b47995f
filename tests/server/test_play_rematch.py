"""Rematch with the same settings (003, 004): offered after the match, created when both agree."""

from __future__ import annotations



def _finish_by_resignation(server, table, loser, winner):
    """Georgian to 1: a resignation at the start is a koks, which ends the match."""
    loser.ok("resign")
    winner.catch_up(loser.version(table), table)
    assert winner.state(table)["status"] == "finished"


def test_both_players_ask_for_a_rematch(game_server):
    alice, bob = game_server.player(), game_server.player()
    table, _ = game_server.match(
        "georgian", 1, opening=[(3, 1)], players=[alice, bob], move_seconds=60, private=True,
    )
    assert alice.refused("rematch")["code"] == "illegal"  # the match is still on
    _finish_by_resignation(game_server, table, alice, bob)
    assert bob.state()["rematch"] == {"offers": [], "table": None}

    bob.ok("rematch")
    assert bob.state()["rematch"] == {"offers": [1], "table": None}
    assert bob.refused("rematch")["code"] == "illegal"  # offered already

    game_server.push((4, 2))  # the new match's opening roll
    alice.catch_up(bob.version())
    alice.ok("rematch")
    done = alice.wait(lambda s: s["rematch"]["table"] is not None)
    new_table = done["rematch"]["table"]
    assert new_table != table
    assert done["rematch"]["offers"] == [0, 1]
    assert alice.events[table][-1]["kind"] == "rematch_created"
    assert alice.refused("rematch")["code"] == "illegal"
    bob.catch_up(alice.version())
    assert bob.state()["rematch"]["table"] == new_table

    old = alice.client.get(f"/api/tables/{table}").json()  # private tables: shown to their players
    new = alice.client.get(f"/api/tables/{new_table}").json()
    for key in ("variant", "match_length", "options", "move_seconds", "rated", "private"):
        assert new[key] == old[key], key
    assert new["move_seconds"] == 60 and new["private"] is True
    assert [seat["user_id"] for seat in new["seats"]] == [alice.user["id"], bob.user["id"]]
    assert new["status"] == "playing"
    assert new["match"]["score"] == [0, 0]
    assert new["game"]["dice"] == [4, 2] and new["actor"] == 0

    # Both can play the new table.
    for player in (alice, bob):
        assert player.subscribe(new_table)["t"] == "sync"
    assert bob.refused("step", new_table, source=8, die=4)["code"] == "not_your_turn"
    alice.ok("move", new_table, steps=[
        {"source": 8, "target": 4, "die": 4}, {"source": 6, "target": 4, "die": 2},
    ])
    assert alice.state(new_table)["actor"] == 1


def test_a_guest_asks_the_computer_for_a_rematch(game_server):
    guest = game_server.guest()
    game_server.push((3, 1))
    game_server.top_up()
    table = game_server.create(guest, "georgian", 1, opponent="computer")["table"]
    guest.subscribe(table)
    guest.ok("resign")
    assert guest.state()["status"] == "finished"
    guest.ok("rematch")
    done = guest.wait(lambda s: s["rematch"]["table"] is not None, timeout=2)
    new = game_server.view(done["rematch"]["table"])
    assert new["seats"][1]["bot"] == "random"
    assert new["status"] == "playing"
