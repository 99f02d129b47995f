"""Moves are final on 004's platform, a table option, and the forced play the view names.

004: «Ходы окончательны: сделанный ход нельзя отменить. После последнего
обязательного хода очередь автоматически переходит к сопернику». docs/rules.md
(decisions of 2026-12-02): a table option "moves are final", on by default for
long-traditional and long-tournament tables; 002's undo and confirm stay the
default elsewhere.
"""

from __future__ import annotations

import pytest


def _step(source: int, target: int, die: int, hit: bool = False) -> dict[str, object]:
    return {"source": source, "target": target, "die": die, "hit": hit}


@pytest.mark.parametrize(
    ("variant", "length", "final"),
    [("long-traditional", 1, True), ("long-tournament", 1, True), ("long-bolshie", 1, False),
     ("backgammon", 1, False), ("georgian", 1, False), ("dave", 3, False)],
)
def test_moves_are_final_by_default_on_004s_regulations_only(game_server, variant, length, final):
    alice = game_server.guest()
    view = game_server.create(alice, variant, length)
    assert view["options"]["moves_final"] is final
    assert game_server.record(view["table"])["options"]["moves_final"] is final, "kept with the table"


def test_a_step_stands_and_the_last_one_passes_the_turn(game_server):
    """004: «сделанный ход нельзя отменить. После последнего обязательного хода очередь
    автоматически переходит к сопернику»: undo is refused, and the step that completes the play
    ends the turn with no confirm."""
    table, (alice, bob) = game_server.match("long-traditional", 1, opening=[(6, 2), (5, 3)])
    alice.ok("roll")
    moving = alice.state()
    assert moving["options"]["moves_final"] is True
    assert moving["game"]["dice"] == [5, 3]

    first = alice.ok("step", source=24, die=5)
    after = alice.state()
    assert after["game"]["pending"] == [_step(24, 19, 5)]
    assert after["game"]["legal"]["can_undo"] is False
    refused = alice.refused("undo")
    assert refused["code"] == "illegal" and "moves are final" in refused["message"]
    assert game_server.view(table)["version"] == first["version"], "a refused undo changes nothing"

    # the head rule leaves one step for the 3: it ends the turn at once
    alice.ok("step", source=19, die=3)
    passed = alice.state()
    assert [e["kind"] for e in alice.events[table]][-2:] == ["stepped", "moved"]
    assert alice.events[table][-1]["payload"]["steps"] == [_step(24, 19, 5), _step(19, 16, 3)]
    assert passed["actor"] == 1 and passed["game"]["phase"] == "rolling"
    assert passed["last_move"]["text"] == "24/16"
    assert alice.refused("confirm")["code"] == "not_your_turn"


def test_the_creator_chooses_either_way(game_server):
    """The option is the table's: off on a long-traditional table keeps undo and confirm; on at a
    Georgian table takes them away."""
    table, (alice, bob) = game_server.match("long-traditional", 1, opening=[(6, 2), (5, 3)], options={"moves_final": False})
    alice.ok("roll")
    alice.ok("step", source=24, die=5)
    assert alice.state()["game"]["legal"]["can_undo"] is True
    alice.ok("undo")
    alice.ok("step", source=24, die=5)
    alice.ok("step", source=19, die=3)
    assert alice.state()["game"]["legal"]["can_confirm"] is True
    alice.ok("confirm")

    table, (carol, dave) = game_server.match("georgian", 1, opening=[(5, 3)], options={"moves_final": True})
    assert carol.state()["options"]["moves_final"] is True
    carol.ok("step", source=8, die=5, table=table)
    assert carol.refused("undo", table=table)["code"] == "illegal"
    carol.ok("step", source=6, die=3, table=table)
    assert carol.state(table)["actor"] == 1


def test_the_view_names_a_forced_play(game_server):
    """A play is forced when the rules allow exactly one (004: on a player's first roll of 6-6 only
    two checkers leave the head and stop on 18); the view names it as ``legal.only_play``."""
    table, (alice, bob) = game_server.match("long-traditional", 1, opening=[(6, 2), (6, 6), (5, 3), (5, 3)])
    alice.ok("roll")
    legal = alice.state()["game"]["legal"]
    assert legal["only_play"] == [_step(24, 18, 6), _step(24, 18, 6)]
    alice.ok("move", steps=legal["only_play"])
    # one checker from the head and nothing else on the board: 5-3 takes it to 16, either way round
    bob.catch_up(alice.version())
    bob.ok("roll")
    assert bob.state()["game"]["legal"]["only_play"] == [_step(24, 21, 3), _step(21, 16, 5)]
    bob.ok("move", steps=bob.state()["game"]["legal"]["only_play"])
    alice.catch_up(bob.version())
    alice.ok("roll")
    assert alice.state()["game"]["legal"]["only_play"] is None, "with checkers off the head 5-3 plays many ways"
