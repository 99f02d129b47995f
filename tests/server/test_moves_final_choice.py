"""Who a table is for decides whether moves are final by default (docs/rules.md, decisions of 2026-12-02).

004's «Ходы окончательны: сделанный ход нельзя отменить» is a rule of that
platform's tables between people. Against the computer (004: «тренируйтесь с
компьютером в любое время ... Эти партии не учитываются в рейтинге») the player
may undo before confirming unless they tick the option; rated and tournament
tables keep a variant's final moves, and refuse a creator who unticks them.
"""

from __future__ import annotations

import pytest

BANK_CLOCK = {"delay_seconds": 12, "bank_seconds_per_point": 60}
"""A bank clock, which a rated table needs."""


@pytest.mark.parametrize("variant", ["long-traditional", "long-tournament"])
def test_against_the_computer_a_step_may_be_undone_before_confirming(game_server, variant):
    alice = game_server.guest()
    game_server.push((6, 2), (5, 3))
    game_server.top_up()
    view = game_server.create(alice, variant, 1, opponent="computer", bot_level="random")
    assert view["options"]["moves_final"] is False
    table = view["table"]
    assert alice.subscribe(table)["state"]["actor"] == 0
    alice.ok("roll", table=table)
    alice.ok("step", table=table, source=24, die=5)
    assert alice.state(table)["game"]["legal"]["can_undo"] is True
    alice.ok("undo", table=table)
    alice.ok("step", table=table, source=24, die=5)
    alice.ok("step", table=table, source=19, die=3)
    assert alice.state(table)["actor"] == 0, "the turn waits for the confirm"
    alice.ok("confirm", table=table)
    assert game_server.record(table)["options"]["moves_final"] is False, "kept with the table"


def test_the_player_may_still_make_moves_final_against_the_computer(game_server):
    alice = game_server.guest()
    game_server.top_up()
    view = game_server.create(alice, "long-traditional", 1, opponent="computer", options={"moves_final": True})
    assert view["options"]["moves_final"] is True


def test_between_people_the_variants_default_holds_and_an_unrated_table_may_untick_it(game_server):
    alice = game_server.guest()
    assert game_server.create(alice, "long-traditional", 1)["options"]["moves_final"] is True
    assert game_server.create(alice, "long-traditional", 1, options={"moves_final": False})["options"]["moves_final"] is False


def test_a_rated_table_keeps_moves_final_and_refuses_an_unticked_box(game_server):
    alice = game_server.player()
    rated = game_server.create(alice, "long-traditional", 1, rated=True, **BANK_CLOCK)
    assert rated["options"]["moves_final"] is True
    refused = alice.post("/api/tables", {
        "variant": "long-traditional", "match_length": 1, "rated": True, **BANK_CLOCK,
        "options": {"moves_final": False},
    })
    assert refused.status_code == 422
    assert "moves are final at rated and tournament tables" in refused.json()["detail"]
    # where the variant's default is undo, a rated table may still choose final moves
    chosen = game_server.create(alice, "backgammon", 1, rated=True, options={"moves_final": True}, **BANK_CLOCK)
    assert chosen["options"]["moves_final"] is True


def test_a_tournament_refuses_an_unticked_box_where_moves_are_final(game_server):
    alice = game_server.player()
    settings = {"name": "Cup", "format": "knockout", "variant": "long-traditional", "max_players": 4,
                "round": {"match_length": 1, **BANK_CLOCK}}
    refused = alice.post("/api/tournaments", {**settings, "options": {"moves_final": False}})
    assert refused.status_code == 422
    assert "moves are final at rated and tournament tables" in refused.json()["detail"]
    assert alice.post("/api/tournaments", settings).status_code == 201
