"""Playing a turn step by step (step, undo, confirm) and a roll with no legal play (a pass).

docs/rules.md §7: the server sends the legal plays, a turn is confirmed explicitly
and undo is allowed until then; §1: a player with no legal play passes,
recorded as ``pass`` (003).
"""

from __future__ import annotations

from datetime import UTC, datetime

from nardy.notation import position_from_dict, position_to_dict
from nardy.rules import Passed, Position, Step
from nardy.server.services.table_state import NewEvent, TableState, apply_event
from nardy.server.services.tables import spec_from_row
from nardy.store import tables_repo


def _step(source: int, target: int, die: int, hit: bool = False) -> dict[str, object]:
    return {"source": source, "target": target, "die": die, "hit": hit}


def test_step_undo_step_confirm(game_server):
    # Opening 5-3: player 0 (the 5) starts and plays 5-3.
    table, (alice, bob) = game_server.match("georgian", 1, opening=[(5, 3)])
    start = alice.state()
    assert start["actor"] == 0
    assert start["game"]["phase"] == "moving"
    assert start["game"]["dice"] == [5, 3]
    assert start["game"]["legal"]["can_confirm"] is False
    assert start["game"]["legal"]["can_undo"] is False
    assert _step(8, 3, 5) in start["game"]["legal"]["steps"]
    opening = Position.start("georgian")
    assert position_from_dict(start["game"]["boards"][0]) == opening

    first = alice.ok("step", source=8, die=5)
    after_first = alice.state()
    assert after_first["version"] == first["version"] == start["version"] + 1
    assert after_first["game"]["pending"] == [_step(8, 3, 5)]
    one_step = opening.after([Step(8, 3, 5)])
    assert after_first["game"]["boards"][0] == position_to_dict(one_step)
    assert after_first["game"]["boards"][1] == position_to_dict(one_step.turned())
    assert after_first["game"]["legal"]["can_undo"] is True
    assert after_first["game"]["legal"]["can_confirm"] is False

    # The watcher sees the same pending step, and cannot act on it.
    bob.catch_up(first["version"])
    assert bob.state()["game"]["pending"] == [_step(8, 3, 5)]
    assert bob.refused("step", source=6, die=3)["code"] == "not_your_turn"
    assert bob.refused("undo")["code"] == "not_your_turn"

    # A confirm with an incomplete play is refused and changes nothing.
    refused = alice.refused("confirm")
    assert refused["code"] == "illegal"
    assert "not complete" in refused["message"]
    assert game_server.view(table)["version"] == first["version"]
    # So is a step the dice do not allow.
    assert alice.refused("step", source=6, die=5)["code"] == "illegal"  # the 5 is played already
    assert alice.refused("step", source=24, die=4)["code"] == "illegal"

    second = alice.ok("step", source=6, die=3)
    both = alice.state()
    assert both["game"]["pending"] == [_step(8, 3, 5), _step(6, 3, 3)]
    two_steps = one_step.after([Step(6, 3, 3)])
    assert both["game"]["boards"][0] == position_to_dict(two_steps)
    assert both["game"]["legal"] == {"steps": [], "can_confirm": True, "can_undo": True, "only_play": None}

    undone = alice.ok("undo")
    assert undone["version"] == second["version"] + 1
    back = alice.state()
    assert back["game"]["pending"] == [_step(8, 3, 5)]
    assert back["game"]["boards"] == after_first["game"]["boards"]
    assert back["game"]["legal"] == after_first["game"]["legal"]

    # Another way to finish the turn, then confirm.
    alice.ok("step", source=13, die=3)
    assert alice.state()["game"]["legal"]["can_confirm"] is True
    confirmed = alice.ok("confirm")
    done = alice.state()
    assert done["version"] == confirmed["version"]
    assert done["actor"] == 1
    assert done["game"]["phase"] == "rolling"
    assert done["game"]["pending"] == []
    assert done["last_move"]["seat"] == 0
    assert done["last_move"]["dice"] == [5, 3]
    assert done["last_move"]["steps"] == [_step(8, 3, 5), _step(13, 10, 3)]
    final_board = opening.after([Step(8, 3, 5), Step(13, 10, 3)])
    assert done["game"]["boards"][0] == position_to_dict(final_board)
    assert done["game"]["boards"][1] == position_to_dict(final_board.turned())

    # The log holds each step, the undo and one "moved" with the whole play.
    kinds = [(e["kind"], e["seat"]) for e in alice.events[table]]
    assert kinds == [("stepped", 0), ("stepped", 0), ("undone", 0), ("stepped", 0), ("moved", 0)]
    assert alice.events[table][-1]["payload"]["steps"] == done["last_move"]["steps"]
    bob.catch_up(done["version"])
    assert bob.events[table] == alice.events[table]


def test_undo_with_nothing_pending_and_confirm_with_nothing_played_are_refused(game_server):
    table, (alice, _bob) = game_server.match("georgian", 1, opening=[(5, 3)])
    version = alice.version()
    assert alice.refused("undo")["code"] == "illegal"
    assert alice.refused("confirm")["code"] == "illegal"
    assert alice.refused("roll")["code"] == "illegal"  # the opening numbers are played, not rolled
    assert game_server.view(table)["version"] == version


def test_a_step_then_a_whole_move_refuses_nothing_it_should_not(game_server):
    """``move`` after a pending step still plays a whole legal play from the turn's start."""
    table, (alice, _bob) = game_server.match("georgian", 1, opening=[(5, 3)])
    alice.ok("step", source=8, die=5)
    # A move that is not a legal play is refused with the pending step kept.
    assert alice.refused("move", steps=[_step(8, 3, 5), _step(3, 0, 3)])["code"] == "illegal"
    assert alice.state()["game"]["pending"] == [_step(8, 3, 5)]
    alice.ok("move", steps=[_step(8, 3, 5), _step(6, 3, 3)])
    state = alice.state()
    assert state["actor"] == 1 and state["game"]["pending"] == []
    assert state["last_move"]["steps"] == [_step(8, 3, 5), _step(6, 3, 3)]


def _fold_record(server, table: str) -> TableState:
    """The table rebuilt from its stored events with the server's own fold."""
    with server.app.state.db() as db:
        row = tables_repo.get_table(db, table)
        spec = spec_from_row(row)
        events = tables_repo.events_after(db, table, 0)
    state = TableState(table, spec)
    for stored in events:
        state = apply_event(state, NewEvent(stored.kind, stored.seat, stored.payload), datetime.now(UTC))
    return state


def test_a_roll_with_no_legal_play_passes(game_server):
    # Opening 6-1 for player 0, who leaves a blot on its 18 point (player 1's 7 point);
    # player 1 rolls 6-1 and hits it, closing its 7 point; player 0 rolls 6-6 on the bar
    # against player 1's closed 6 point: nothing can enter, the turn passes.
    table, (alice, bob) = game_server.match("backgammon", 1, opening=[(6, 1)])
    alice.ok("move", steps=[_step(24, 18, 6), _step(6, 5, 1)])
    game_server.push((6, 1))
    bob.ok("roll")
    hit = bob.ok("move", steps=[_step(13, 7, 6), _step(8, 7, 1)])
    alice.catch_up(hit["version"])
    before = alice.state()
    assert before["actor"] == 0 and before["game"]["phase"] == "rolling"
    assert before["game"]["boards"][0]["bar"] == [1, 0]

    game_server.push((6, 6), (3, 2))
    rolled = alice.ok("roll")
    passed = alice.state()
    assert passed["version"] == rolled["version"] == before["version"] + 2, "the roll, then the pass"
    assert passed["actor"] == 1
    assert passed["game"]["turn"] == 1
    assert passed["game"]["phase"] == "rolling"
    assert passed["game"]["dice"] is None
    assert passed["game"]["boards"][0]["bar"] == [1, 0]  # still on the bar
    assert passed["game"]["boards"][1] == before["game"]["boards"][1]
    assert passed["last_move"] == before["last_move"]  # nothing was moved
    roll, passing = alice.events[table][-2:]
    assert (roll["kind"], roll["seat"], roll["payload"]["dice"]) == ("rolled", 0, [6, 6])
    assert (passing["kind"], passing["seat"], passing["payload"]) == ("passed", 0, {"dice": [6, 6]})

    bob.catch_up(rolled["version"])
    assert bob.refused("move", steps=[_step(6, 3, 3)])["code"] == "illegal"  # roll first
    bob.ok("roll")

    # In the record, the 6-6 roll is followed by its pass, then straight by the opponent's turn.
    events = game_server.record(table)["events"]
    index = next(i for i, e in enumerate(events) if e["kind"] == "rolled" and e["payload"]["dice"] == [6, 6])
    assert events[index]["seat"] == 0
    assert (events[index + 1]["kind"], events[index + 1]["seat"]) == ("passed", 0)
    assert (events[index + 2]["kind"], events[index + 2]["seat"]) == ("rolled", 1)

    # The rules record the pass in the game's history (003: "pass" in the record).
    history = _fold_record(game_server, table).game.history
    assert Passed(0, (6, 6)) in history
    assert history[-2] == Passed(0, (6, 6))
