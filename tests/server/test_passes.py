"""A roll with no legal play is a pass, and the log records it (003: «Такой ход обозначен как "pass"
в записи игры»): ``passed`` right after the ``rolled`` event, decided by the rules, folded as a no-op;
``opening_rolled`` names who plays first. Logs written before ``passed`` existed fold the same.

The table is played through :mod:`nardy.server.services.table_state` alone (the events are appended
by hand, as the service would); the scenario is the one of ``test_play_steps``: player 0 opens 6-1
leaving a blot, player 1 hits it with 6-1 closing its 7 point, and player 0's 6-6 cannot enter.
"""

from __future__ import annotations

from datetime import UTC, datetime

from nardy.rules import GameOptions, Passed
from nardy.server.services.records import replay
from nardy.server.services.table_state import (
    NewEvent,
    Roller,
    TableSpec,
    TableState,
    apply_event,
    decide,
    fold,
    initial_state,
    opening_event,
)
from nardy.store.tables_repo import StoredEvent

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
SPEC = TableSpec("backgammon", 1, GameOptions())


def rolls(*dice: tuple[int, int]) -> Roller:
    queue = list(dice)
    return lambda _number: queue.pop(0)


PRELUDE = (
    *(NewEvent("seated", None, {"seat": s, "user_id": s + 1, "name": f"p{s}", "bot": None, "client_seed": ""})
      for s in (0, 1)),
    NewEvent("match_started", None),
    NewEvent("game_started", None, {"number": 1, "commitment": "c", "client_seeds": ["", ""]}),
)


def fresh() -> TableState:
    """Two seats, the match and game 1 started, waiting for the opening roll."""
    return fold(initial_state("t1", SPEC), [(e, NOW) for e in PRELUDE])


def step(source: int, target: int, die: int) -> dict[str, int]:
    return {"source": source, "target": target, "die": die}


SCENARIO = (
    (0, {"t": "move", "steps": [step(24, 18, 6), step(6, 5, 1)]}, ()),
    (1, {"t": "roll"}, ((6, 1),)),
    (1, {"t": "move", "steps": [step(13, 7, 6), step(8, 7, 1)]}, ()),
    (0, {"t": "roll"}, ((6, 6),)),
)


def to_the_pass() -> list[tuple[TableState, list[NewEvent]]]:
    """Each action of the scenario: the state it was decided in and the events it added (the last: the 6-6)."""
    state = fresh()
    assert state.game is not None
    state = apply_event(state, opening_event(state.game, (6, 1), 0), NOW)
    decided = []
    for seat, action, dice in SCENARIO:
        events = decide(state, seat, action, rolls(*dice))
        decided.append((state, events))
        state = fold(state, [(e, NOW) for e in events])
    return decided


def test_the_opening_roll_names_who_plays_first() -> None:
    game = fresh().game
    assert game is not None
    assert opening_event(game, (3, 5), 1).payload == {"dice": [3, 5], "number": 1, "first": 1}
    assert opening_event(game, (4, 4), 0).payload == {"dice": [4, 4], "number": 0, "first": None}


def test_a_roll_with_no_legal_play_records_a_pass_that_changes_nothing() -> None:
    before, events = to_the_pass()[-1]
    assert [(e.kind, e.seat, e.payload.get("dice")) for e in events] == [("rolled", 0, [6, 6]), ("passed", 0, [6, 6])]
    rolled_only = apply_event(before, events[0], NOW)
    after = fold(before, [(e, NOW) for e in events])
    assert after.game == rolled_only.game and after.actor() == 1, "the roll passed; the pass folds as a no-op"
    assert after.game is not None and after.game.history[-1] == Passed(0, (6, 6))


def test_a_roll_that_can_be_played_records_no_pass() -> None:
    _, events = to_the_pass()[1]
    assert [e.kind for e in events] == ["rolled"]


def test_the_replay_shows_the_pass_and_an_old_log_without_it_folds_the_same() -> None:
    game = fresh().game
    assert game is not None
    log = [*PRELUDE, opening_event(game, (6, 1), 0), *(e for _, events in to_the_pass() for e in events)]
    frames = replay("t1", SPEC, [
        StoredEvent(version, e.kind, e.seat, e.payload, NOW, None) for version, e in enumerate(log, start=1)
    ])
    passing = [f for f in frames if f["kind"] == "passed"]
    assert len(passing) == 1 and (passing[0]["seat"], passing[0]["dice"]) == (0, [6, 6])
    assert passing[0]["turn"] == 1, "the frame shows the turn handed over"
    new, old = log, [e for e in log if e.kind != "passed"]
    assert fold(initial_state("t1", SPEC), [(e, NOW) for e in old]).game == \
        fold(initial_state("t1", SPEC), [(e, NOW) for e in new]).game
