"""The bank clock: a delay per decision, then a time bank per match point, folded from the event log.

Each decision first spends the delay; beyond it the deciding player's bank
runs down; the deadline is the delay plus what is left of the bank; when it
passes the player times out as with a per-move limit (004: the server plays a
random legal move, three timeouts lose the match) and the bank is empty from
then on. The clocks are computed from the events' times alone, so every
process folding the log agrees on them.
"""

from __future__ import annotations

import time

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select, update

from nardy.notation import position_from_dict
from nardy.rules import VARIANTS
from nardy.server.services.table_state import NewEvent, TableSpec, TableState, apply_event, step_dict, view
from nardy.store.models import GameTable

T0 = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def _started(length: int = 3, variant: str = "georgian") -> TableState:
    """A table with the standard clock (12 s + 60 s per point), seat 0 to move after a 3-1 opening."""
    spec = TableSpec(variant, length, VARIANTS[variant].default_options(),
                     delay_seconds=12, bank_seconds_per_point=60, rated=True)
    state = TableState("t", spec)
    for event in (
        NewEvent("seated", 0, {"seat": 0, "user_id": 1, "name": "ann", "bot": None, "client_seed": "a"}),
        NewEvent("seated", 1, {"seat": 1, "user_id": 2, "name": "bob", "bot": None, "client_seed": "b"}),
        NewEvent("match_started", None),
        NewEvent("game_started", None, {"number": 1, "commitment": "c", "client_seeds": ["a", "b"]}),
        NewEvent("opening_rolled", None, {"dice": [3, 1], "number": 0}),
    ):
        state = apply_event(state, event, at(0))
    return state


def _move(state: TableState, seconds: float) -> TableState:
    """The actor plays the first legal play of its dice at ``seconds``."""
    assert state.game is not None and state.actor() is not None
    steps = [step_dict(s) for s in state.game.legal_plays()[0].steps]
    return apply_event(state, NewEvent("moved", state.actor(), {"steps": steps}), at(seconds))


def _roll(state: TableState, seconds: float, dice: list[int]) -> TableState:
    return apply_event(state, NewEvent("rolled", state.actor(), {"dice": dice, "number": state.roll_number}), at(seconds))


def test_the_delay_is_free_then_the_bank_runs_down() -> None:
    state = _started()
    assert state.banks == (180.0, 180.0)  # 60 s for each of the 3 points
    assert state.actor() == 0 and state.deadline == at(12 + 180)

    state = _move(state, 20)  # 20 s: the 12 s delay, then 8 s of the bank
    assert state.banks == (172.0, 180.0)
    assert state.actor() == 1 and state.deadline == at(20 + 12 + 180)

    state = _roll(state, 23, [6, 5])  # rolling and moving are one decision: nothing charged yet
    assert state.banks == (172.0, 180.0) and state.deadline == at(20 + 12 + 180)
    state = _move(state, 29)  # 9 s: within the delay, the bank is untouched
    assert state.banks == (172.0, 180.0)
    assert state.actor() == 0 and state.deadline == at(29 + 12 + 172)

    shown = view(state, now=at(30))
    assert (shown["delay_seconds"], shown["bank_seconds_per_point"]) == (12, 60)
    assert shown["banks"] == [172.0, 180.0] and shown["deadline"] == at(29 + 12 + 172).isoformat()


def test_a_timeout_empties_the_bank_and_later_decisions_have_the_delay_alone() -> None:
    state = _started()
    deadline = state.deadline
    assert deadline == at(192)
    state = apply_event(state, NewEvent("timed_out", 0), at(192.4))
    state = _move(state, 192.4)  # what the server plays for the player who timed out
    assert state.banks == (0.0, 180.0) and state.match is not None and state.match.timeouts == (1, 0)
    state = _roll(state, 195, [6, 5])
    state = _move(state, 196)
    assert state.actor() == 0 and state.deadline == at(196 + 12), "an empty bank leaves the delay"


def test_money_play_refills_one_point_of_bank_each_game() -> None:
    state = _started(length=0, variant="backgammon")
    assert state.banks == (60.0, 60.0)
    state = _move(state, 40)
    assert state.banks == (32.0, 60.0)
    state = apply_event(state, NewEvent("game_started", None, {"number": 2, "commitment": "d", "client_seeds": ["a", "b"]}),
                        at(50))
    assert state.banks == (60.0, 60.0)


def test_the_server_times_out_an_empty_bank_and_stores_the_deadline(game_server: Any) -> None:
    """Through the app with a 1 s delay and a 1 s bank (short clocks are allowed in testing): the deadline is
    the delay plus the bank, it is in ``tables.deadline_at`` for any process to fire, and after the timeout the
    player's bank is empty, so their next decision has the delay alone."""
    table, (alice, bob) = game_server.match("georgian", 1, opening=[(3, 1)], delay_seconds=1, bank_seconds_per_point=1)
    start = alice.state()
    assert start["banks"] == [1.0, 1.0] and start["actor"] == 0
    started = datetime.fromisoformat(game_server.record(table)["events"][-1]["at"])
    assert datetime.fromisoformat(start["deadline"]) == started + timedelta(seconds=2)
    with game_server.app.state.db() as db:
        stored = db.scalar(select(GameTable.deadline_at).where(GameTable.id == table))
    assert stored == datetime.fromisoformat(start["deadline"])

    timed = alice.wait(lambda s: s["match"]["timeouts"][0] == 1, timeout=5.0)
    kinds = [e["kind"] for e in alice.events[table] if e["version"] > start["version"]]
    assert kinds[:2] == ["timed_out", "moved"]
    assert timed["banks"] == [0.0, 1.0] and timed["actor"] == 1

    bob.catch_up(timed["version"])
    game_server.top_up()
    bob.ok("roll")
    state = bob.state()
    if state["actor"] == 1:
        game = state["game"]
        plays = position_from_dict(game["boards"][1]).legal_plays(tuple(game["dice"]))
        bob.ok("move", steps=[step_dict(s) for s in plays[0].steps])
    mine = alice.catch_up(bob.version())
    assert mine["actor"] == 0 and mine["banks"][0] == 0.0
    began = datetime.fromisoformat(game_server.record(table)["events"][-1]["at"])
    assert datetime.fromisoformat(mine["deadline"]) == began + timedelta(seconds=1)


def test_a_rematch_of_a_rated_table_opened_without_a_clock_gets_the_standard_one(game_server: Any) -> None:
    """Rated tables opened before rated play needed a clock still load and finish; their rematch, being a new
    rated table, gets the standard bank clock (12 s + 1 min per point)."""
    alice, bob = game_server.player(), game_server.player()
    table, _ = game_server.match("georgian", 1, players=[alice, bob], rated=True, opening=[(3, 1)],
                            delay_seconds=12, bank_seconds_per_point=60)
    with game_server.app.state.db() as db:
        db.execute(update(GameTable).where(GameTable.id == table).values(delay_seconds=None, bank_seconds_per_point=None))
        db.commit()
    service = game_server.app.state.tables
    later = game_server.app.state.clock.now() + timedelta(days=1)
    for _ in range(50):  # a table is not dropped while a task of its own is still in flight
        if table in game_server.client.portal.call(service.evict, later):
            break
        time.sleep(0.05)
    assert not service.is_loaded(table)
    assert game_server.view(table)["delay_seconds"] is None and game_server.view(table)["deadline"] is None
    alice.ok("resign", table)
    game_server.top_up()
    alice.ok("rematch", table)
    bob.ok("rematch", table)
    rematch = alice.wait(lambda s: s["rematch"]["table"] is not None, table)["rematch"]["table"]
    again = game_server.view(rematch)
    assert again["rated"] is True and (again["delay_seconds"], again["bank_seconds_per_point"]) == (12, 60)
