"""The chouette table's pure fold, decisions, timeouts and view (``nardy.server.services.chouette_state``).

Events are written by hand here, as the service would append them; the
rules themselves are tested in ``tests/rules``.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from nardy.rules import GameOptions
from nardy.server.services.chouette_state import (
    ChouetteSpec,
    ChouetteTableState,
    apply_event,
    decide,
    fold,
    forced_events,
    initial_state,
    sit_events,
    team_message,
    view,
)
from nardy.server.services.publisher import TeamSaid
from nardy.server.services.table_state import ActionError, NewEvent

NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
HASH = "ab" * 32

ANN, BOB, CAT, DAN = 1, 2, 3, 4


def no_dice(number: int) -> tuple[int, int]:
    raise AssertionError("no dice expected")


def dice(*rolls: tuple[int, int]):
    queue = list(rolls)

    def roll(number: int) -> tuple[int, int]:
        return queue.pop(0)

    return roll


def apply(state: ChouetteTableState, *events: NewEvent, at: datetime = NOW) -> ChouetteTableState:
    for event in events:
        state = apply_event(state, event, at)
    return state


def act(state: ChouetteTableState, user: int, t: str, roller=no_dice, **fields: Any) -> ChouetteTableState:
    """Decide ``user``'s action and apply its events."""
    return apply(state, *decide(state, user, {"t": t, **fields}, roller))


def refused(state: ChouetteTableState, user: int, t: str, code: str, **fields: Any) -> str:
    with pytest.raises(ActionError) as caught:
        decide(state, user, {"t": t, **fields}, no_dice)
    assert caught.value.code == code, caught.value
    return str(caught.value)


def seated(*players: int, seconds: int | None = None, max_players: int = 8) -> ChouetteTableState:
    spec = ChouetteSpec(GameOptions(cube=True), max_players=max_players, move_seconds=seconds)
    state = initial_state("t1", spec)
    for player in players:
        state = apply(state, *sit_events(state, player, f"p{player}", f"seed{player}"))
        if state.next_commitment is None:
            state = apply(state, NewEvent("seed_committed", None, {"number": 0, "commitment": HASH}))
    return state


def formed(*players: int, seconds: int | None = None, opening: tuple[int, int] = (1, 6)) -> ChouetteTableState:
    """Seated, started, formed in the order given (the first is the box), game 1 started and its opening
    rolled (by default the captain wins it and plays 6-1)."""
    state = act(seated(*players, seconds=seconds), players[0], "start")
    state = apply(state, NewEvent("seed_committed", None, {"number": 1, "commitment": HASH}))
    faces = [6, 5, 4, 3, 2, 1][: len(players)]
    rolls = [faces[i:i + 2] + [1] * (2 - len(faces[i:i + 2])) for i in range(0, len(faces), 2)]
    state = apply(state, NewEvent("formation_rolled", None, {
        "number": 0, "rolls": rolls, "dice": [[p, faces[i]] for i, p in enumerate(players)],
    }))
    lineup = state.chouette.lineup
    assert lineup is not None and lineup.box == players[0]
    return apply(
        state,
        NewEvent("formed", None, {"number": 0, "seed": None, "commitment": HASH, "client_seeds": [],
                                  "box": lineup.box, "team": list(lineup.team)}),
        NewEvent("game_started", None, {"number": 1, "commitment": HASH, "client_seeds": ["a", "b"],
                                        "box": lineup.box, "team": list(lineup.team)}),
        NewEvent("seed_committed", None, {"number": 2, "commitment": HASH}),
        NewEvent("opening_rolled", None, {"dice": list(opening), "number": 0}),
    )


def first_move(state: ChouetteTableState, user: int) -> ChouetteTableState:
    game = state.game
    assert game is not None
    play = game.legal_plays()[0]
    steps = [{"source": s.source, "target": s.target, "die": s.die, "hit": s.hit} for s in play.steps]
    return act(state, user, "move", steps=steps)


# ----- forming


def test_sitting_starting_and_the_formation_with_a_tie() -> None:
    state = seated(ANN, BOB)
    assert state.status == "waiting"
    assert refused(state, ANN, "start", "illegal")
    state = apply(state, *sit_events(state, CAT, "p3", "seed3"), *sit_events(state, DAN, "p4", "seed4"))
    assert sit_events(state, DAN, "p4", "x") == []  # already seated: nothing to add
    assert refused(state, 99, "start", "not_seated")
    state = act(state, CAT, "start")
    assert state.status == "forming"
    assert state.round_client_seeds == ("seed1", "seed2")
    assert state.formation_open and state.number == 0
    with pytest.raises(ActionError) as caught:
        sit_events(state, 9, "late", "s")
    assert caught.value.code == "not_open"
    # Ann and Bob tie on 6 and roll again among themselves; Cat 3, Dan 2.
    state = apply(state, NewEvent("formation_rolled", None, {
        "number": 0, "rolls": [[6, 6], [3, 2]], "dice": [[ANN, 6], [BOB, 6], [CAT, 3], [DAN, 2]]}))
    assert state.chouette.formation is not None and state.chouette.formation.to_roll == (ANN, BOB)
    assert state.roll_number == 2
    shown = view(state, now=NOW)["formation"]
    assert shown == {"to_roll": [ANN, BOB], "rolls": [[[ANN, 6], [BOB, 6], [CAT, 3], [DAN, 2]]]}
    state = apply(state, NewEvent("formation_rolled", None, {"number": 2, "rolls": [[2, 5]], "dice": [[ANN, 2], [BOB, 5]]}))
    lineup = state.chouette.lineup
    assert lineup is not None and (lineup.box, lineup.team) == (BOB, (ANN, CAT, DAN))
    assert state.chouette.game is not None and state.game is None  # not announced yet
    roles = {p["user_id"]: p["role"] for p in view(state, now=NOW)["players"]}
    assert roles == {BOB: "box", ANN: "captain", CAT: "member", DAN: "member"}


def test_the_table_is_full_at_its_number_of_places() -> None:
    state = seated(ANN, BOB, CAT, seconds=None)
    small = ChouetteTableState(state.id, ChouetteSpec(GameOptions(cube=True), max_players=3), state.chouette)
    with pytest.raises(ActionError) as caught:
        sit_events(small, DAN, "p4", "s")
    assert caught.value.code == "table_full"


# ----- roles and turns


def test_only_the_board_actor_rolls_and_moves() -> None:
    state = formed(ANN, BOB, CAT)  # box Ann, captain Bob; the captain won the opening 6-1
    game = state.game
    assert game is not None and game.awaiting() == (BOB,)
    assert refused(state, ANN, "move", "not_your_turn", steps=[{"source": 13, "target": 7, "die": 6}])
    assert refused(state, CAT, "roll", "not_your_turn")
    assert refused(state, BOB, "roll", "illegal")
    state = first_move(state, BOB)
    assert state.game is not None and state.game.awaiting() == (ANN,)
    state = act(state, ANN, "roll", dice((3, 1)))
    assert state.game is not None and state.game.board.dice == (3, 1)
    step = state.game.next_steps()[0]
    state = act(state, ANN, "step", source=step.source, die=step.die)
    shown = view(state, now=NOW)["game"]
    assert shown["pending"] and shown["legal"]["can_undo"] and shown["turn"] == "box"
    state = act(state, ANN, "undo")
    assert state.pending == ()


def test_a_box_double_answered_member_by_member() -> None:
    state = first_move(formed(ANN, BOB, CAT, DAN), BOB)
    state = act(state, ANN, "double")
    assert refused(state, ANN, "take", "not_your_turn")
    state = act(state, BOB, "take")
    state = act(state, CAT, "drop")
    shown = view(state, now=NOW)["game"]
    assert shown["phase"] == "box_doubled" and shown["awaiting"] == [DAN]
    assert shown["answers"] == [{"member": BOB, "take": True}, {"member": CAT, "take": False}]
    state = act(state, DAN, "take")
    stakes = {s["member"]: s for s in view(state, now=NOW)["game"]["stakes"]}
    assert stakes[BOB] == {"member": BOB, "value": 2, "owner": "member", "result": None, "how": None}
    assert stakes[CAT]["result"] == -1 and stakes[CAT]["how"] == "passed"
    assert state.game is not None and state.game.awaiting() == (ANN,)


def test_team_votes_one_refusal_then_unanimous_and_the_box_answers() -> None:
    state = formed(ANN, BOB, CAT, DAN, opening=(1, 6))  # box Ann; captain Bob won the opening
    state = first_move(state, BOB)
    state = act(state, ANN, "roll", dice((2, 1)))
    state = first_move(state, ANN)
    assert refused(state, CAT, "double", "illegal")  # only the captain proposes
    state = act(state, BOB, "double")
    assert state.game is not None and state.game.awaiting() == (CAT, DAN)
    assert refused(state, ANN, "vote", "not_your_turn", agree=True)  # the box has no vote
    state = act(state, CAT, "vote", agree=True)
    state = act(state, DAN, "vote", agree=False)
    assert view(state, now=NOW)["game"]["phase"] == "rolling"
    state = act(state, BOB, "double")
    state = act(state, CAT, "vote", agree=True)
    state = act(state, DAN, "vote", agree=True)
    shown = view(state, now=NOW)["game"]
    assert shown["phase"] == "team_doubled" and shown["awaiting"] == [ANN]
    assert refused(state, BOB, "box_answer", "not_your_turn", takes=[BOB])
    assert refused(state, ANN, "box_answer", "illegal", takes=[99])
    state = act(state, ANN, "box_answer", takes=[BOB, DAN])
    stakes = {s["member"]: s for s in view(state, now=NOW)["game"]["stakes"]}
    assert (stakes[BOB]["value"], stakes[BOB]["owner"]) == (2, "box")
    assert (stakes[CAT]["result"], stakes[CAT]["how"]) == (1, "dropped-by-box")
    assert (stakes[DAN]["value"], stakes[DAN]["owner"]) == (2, "box")


def test_resignations_settle_and_the_table_rotates() -> None:
    state = formed(ANN, BOB, CAT)
    state = act(state, CAT, "resign")  # a member resigns their own stake
    assert refused(state, CAT, "resign", "illegal")
    assert refused(state, ANN, "resign", "illegal", kind="single")
    state = act(state, ANN, "resign")  # the box resigns to Bob, the last one in
    assert state.game is None and not state.game_open
    result = state.chouette.results[0]
    assert result.team_won and state.result_numbers == (1,)
    points = dict(result.points)
    assert points[CAT] < 0 < points[BOB] and sum(points.values()) == 0
    shown = view(state, now=NOW)
    assert shown["results"][0]["number"] == 1 and shown["results"][0]["team_won"]
    assert {p["user_id"]: p["score"] for p in shown["players"]} == points
    lineup = state.chouette.lineup
    assert lineup is not None and (lineup.box, lineup.team) == (BOB, (CAT, ANN))  # the captain took the box


def test_leaving_and_joining_during_a_game_wait_for_its_end() -> None:
    state = formed(ANN, BOB, CAT)
    state = act(state, CAT, "leave")
    state = apply(state, *sit_events(state, DAN, "p4", "seed4"))
    players = {p["user_id"]: p for p in view(state, now=NOW)["players"]}
    assert players[CAT]["leaving"] and players[DAN]["role"] == "joining"
    assert refused(state, DAN, "roll", "not_your_turn")
    state = act(state, ANN, "resign")
    lineup = state.chouette.lineup
    assert lineup is not None and CAT not in lineup.players and lineup.team[-1] == DAN


# ----- the team channel


def test_team_say_goes_to_the_team_and_is_refused_for_the_box_and_strangers() -> None:
    state = formed(ANN, BOB, CAT, DAN)
    audience, message = team_message(state, CAT, {"t": "team_say", "text": "double?", "suggest": "double"})
    assert audience == (BOB, CAT, DAN)
    assert message == TeamSaid("t1", CAT, "p3", "double?", "double", None)
    with pytest.raises(ActionError) as caught:
        team_message(state, ANN, {"t": "team_say", "text": "hi"})
    assert caught.value.code == "not_on_team"
    with pytest.raises(ActionError) as caught:
        team_message(state, 42, {"t": "team_say", "text": "hi"})
    assert caught.value.code == "not_seated"
    with pytest.raises(ActionError):
        team_message(seated(ANN, BOB, CAT), ANN, {"t": "team_say"})  # no team before forming


# ----- clocks and timeouts


def test_one_deadline_per_decision_and_what_a_timeout_does() -> None:
    state = formed(ANN, BOB, CAT, DAN, seconds=30)
    assert state.deadline == NOW + timedelta(seconds=30)
    pick = random.Random(7)
    # The captain's turn: a random legal play.
    events = forced_events(state, pick, no_dice, NOW)
    assert [e.kind for e in events] == ["timed_out", "moved"] and events[0].payload == {"players": [BOB]}
    later = NOW + timedelta(seconds=31)
    state = apply(state, *events, at=later)
    assert state.deadline == later + timedelta(seconds=30)  # the box's decision has its own clock
    # The box's turn, rolling: roll, then play.
    events = forced_events(state, pick, dice((5, 2)), later)
    assert [e.kind for e in events] == ["timed_out", "rolled", "moved"]
    state = apply(state, *events)
    # The captain proposes; nobody votes: the first silent member refuses.
    state = act(state, BOB, "double")
    events = forced_events(state, pick, no_dice, NOW)
    assert [(e.kind, e.seat, e.payload) for e in events[1:]] == [("voted", CAT, {"agree": False})]
    state = apply(state, *events)
    assert state.game is not None and state.game.awaiting() == (BOB,)
    # Unanimous this time; the box lets its clock run out: it passes every cube.
    state = act(state, BOB, "double")
    state = act(state, CAT, "vote", agree=True)
    state = act(state, DAN, "vote", agree=True)
    events = forced_events(state, pick, no_dice, NOW)
    assert [(e.kind, e.seat, e.payload) for e in events[1:]] == [("box_answered", ANN, {"takes": []})]
    state = apply(state, *events)
    assert state.game is None and state.chouette.results[0].points[0] == (ANN, -3)


def test_members_who_do_not_answer_the_box_double_pass() -> None:
    state = first_move(formed(ANN, BOB, CAT, DAN, seconds=30), BOB)
    state = act(state, ANN, "double")
    deadline = state.deadline
    state = act(state, BOB, "take")
    assert state.deadline == deadline  # one clock for the whole double
    events = forced_events(state, random.Random(1), no_dice, NOW)
    assert [(e.kind, e.seat) for e in events] == [("timed_out", None), ("dropped", CAT), ("dropped", DAN)]
    state = apply(state, *events)
    stakes = {s.member: s for s in state.game.stakes} if state.game else {}
    assert stakes[CAT].how == "passed" and stakes[DAN].how == "passed" and stakes[BOB].value == 2


# ----- the view and the fold


def test_the_view_of_a_game_and_folding_again() -> None:
    state = formed(ANN, BOB, CAT)
    shown = view(state, now=NOW)
    assert shown["kind"] == "chouette" and shown["status"] == "playing" and shown["max_players"] == 8
    assert shown["options"] == {"jacoby": False, "backgammon_value": 3}
    game = shown["game"]
    assert (game["number"], game["box"], game["captain"], game["acting_captain"]) == (1, ANN, BOB, BOB)
    assert game["turn"] == "team" and game["awaiting"] == [BOB] and game["dice"] == [6, 1]
    assert game["pips"] == {"box": 167, "team": 167}
    assert game["boards"]["team"]["points"][23] == 2  # each board seen from its own side
    assert game["legal"]["steps"] and game["legal"]["can_double"] is False
    assert [s["member"] for s in game["stakes"]] == [BOB, CAT]
    assert shown["commitment"] == HASH and shown["next_commitment"] == {"number": 2, "commitment": HASH}
    # The same events fold to the same state.
    spec = state.spec
    log: list[tuple[NewEvent, datetime]] = []
    fresh = initial_state("t1", spec)
    current = fresh
    for player in (ANN, BOB, CAT):
        for event in sit_events(current, player, f"p{player}", f"seed{player}"):
            log.append((event, NOW))
            current = apply(current, event)
    assert fold(fresh, log) == current


def test_a_roll_with_no_legal_play_is_recorded_as_a_pass() -> None:
    """003: «Такой ход обозначен как "pass" в записи игры»: ``passed`` follows the roll, and folds as a no-op."""
    state = formed(ANN, BOB, CAT, opening=(1, 6))  # box Ann; captain Bob opens 6-1 and leaves a blot
    state = act(state, BOB, "move", steps=[{"source": 24, "target": 18, "die": 6}, {"source": 6, "target": 5, "die": 1}])
    state = act(state, ANN, "roll", dice((6, 1)))
    state = act(state, ANN, "move", steps=[{"source": 13, "target": 7, "die": 6}, {"source": 8, "target": 7, "die": 1}])
    events = decide(state, BOB, {"t": "roll"}, dice((6, 6)))
    assert [(e.kind, e.seat, e.payload["dice"]) for e in events] == [("rolled", BOB, [6, 6]), ("passed", BOB, [6, 6])]
    rolled_only = apply(state, events[0])
    after = apply(state, *events)
    assert after.game == rolled_only.game and after.awaiting() == (ANN,)
