"""Move clocks with one-second timers (allowed in the testing environment).

docs/rules.md §7 (004): on timeout the server completes the turn with a random
legal play, a pending cube decision times out as a pass, and three timeouts
in one match lose the match. Waits are bounded: a timeout must arrive within
a couple of seconds of its deadline.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from nardy.notation import position_from_dict

WAIT = 4.0
"""Seconds to wait for a one-second clock to run out and be acted on."""

OPENING_MOVE = [
    {"source": 8, "target": 5, "die": 3, "hit": False},
    {"source": 6, "target": 5, "die": 1, "hit": False},
]


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _timeouts(player, count: int) -> dict:
    """Wait until the table counts ``count`` timeouts for seat 0."""
    return player.wait(lambda s: s["match"]["timeouts"][0] >= count, timeout=WAIT)


def _new_events(player, table, after: int) -> list[dict]:
    return [e for e in player.events[table] if e["version"] > after]


def _check_on_time(deadline: str, event: dict) -> None:
    """The timeout was recorded after the deadline, and not long after it."""
    late = _at(event["at"]) - _at(deadline)
    assert timedelta(0) <= late < timedelta(seconds=2.5), late


def _play_turn(server, player) -> None:
    """Roll and play the first legal play at once (well within the clock)."""
    server.top_up()
    player.ok("roll")
    state = player.state()
    if state["actor"] == state["game"]["turn"] and state["game"]["phase"] == "moving":
        game = state["game"]
        plays = position_from_dict(game["boards"][game["turn"]]).legal_plays(tuple(game["dice"]))
        player.ok("move", steps=[
            {"source": s.source, "target": s.target, "die": s.die, "hit": s.hit} for s in plays[0].steps
        ])


def test_the_server_plays_for_a_player_who_lets_the_clock_run_out(game_server):
    table, (alice, bob) = game_server.match("georgian", 3, opening=[(3, 1)], move_seconds=1)
    start = alice.state()
    assert start["move_seconds"] == 1
    assert start["deadline"] is not None
    assert _at(start["deadline"]) - _at(start["server_time"]) <= timedelta(seconds=1)

    # Timeout 1, in the middle of a turn: the forced play completes the pending step.
    alice.ok("step", source=8, die=3)
    deadline = alice.state()["deadline"]
    assert deadline == start["deadline"]  # a step does not restart the clock
    before = alice.version()
    first = _timeouts(alice, 1)
    timed_out, moved = _new_events(alice, table, before)[:2]
    assert (timed_out["kind"], timed_out["seat"]) == ("timed_out", 0)
    _check_on_time(deadline, timed_out)
    assert (moved["kind"], moved["seat"]) == ("moved", 0)
    assert moved["payload"]["steps"][0] == {"source": 8, "target": 5, "die": 3, "hit": False}
    assert len(moved["payload"]["steps"]) == 2
    assert first["match"]["timeouts"] == [1, 0]
    assert first["actor"] == 1 and first["game"]["phase"] == "rolling"
    assert first["status"] == "playing"

    # Timeout 2, at the start of a turn: the server rolls and plays.
    bob.catch_up(first["version"])
    _play_turn(game_server, bob)
    alice.catch_up(bob.version())
    deadline = alice.state()["deadline"]
    before = alice.version()
    second = _timeouts(alice, 2)
    forced = _new_events(alice, table, before)
    assert [e["kind"] for e in forced][:2] == ["timed_out", "rolled"]
    assert all(e["seat"] == 0 for e in forced)
    assert [e["kind"] for e in forced][2:] in (["moved"], [])  # [] when the roll had no play
    _check_on_time(deadline, forced[0])
    assert second["match"]["timeouts"] == [2, 0]
    assert second["actor"] == 1

    # Timeout 3 loses the match (004), whatever the score.
    bob.catch_up(second["version"])
    _play_turn(game_server, bob)
    alice.catch_up(bob.version())
    before = alice.version()
    third = alice.wait(lambda s: s["status"] == "finished", timeout=WAIT)
    assert [e["kind"] for e in _new_events(alice, table, before)] == ["timed_out", "match_ended"]
    assert third["match"]["timeouts"] == [3, 0]
    assert third["match"]["ended_by"] == "timeouts"
    assert third["match"]["winner"] == 1
    assert third["match"]["score"] == [0, 0]
    assert third["actor"] is None and third["deadline"] is None
    ended = alice.events[table][-1]
    assert ended["payload"] == {"winner": 1, "reason": "timeouts", "score": [0, 0], "rated": False}
    bob.catch_up(third["version"])
    assert bob.state()["status"] == "finished"


def test_a_pending_double_times_out_as_a_pass_and_an_offer_as_declined(game_server):
    table, (alice, bob) = game_server.match(
        "backgammon", 3, opening=[(3, 1), (4, 1)], options={"cube": True}, move_seconds=1,
    )
    alice.ok("move", steps=OPENING_MOVE)
    bob.catch_up(alice.version())
    bob.ok("double")
    alice.catch_up(bob.version())
    deadline = alice.state()["deadline"]
    before = alice.version()
    dropped = _timeouts(alice, 1)
    kinds = [(e["kind"], e["seat"]) for e in _new_events(alice, table, before)]
    assert kinds[:3] == [("timed_out", 0), ("dropped", 0), ("game_ended", None)]
    _check_on_time(deadline, _new_events(alice, table, before)[0])
    assert dropped["last_result"] == {"winner": 1, "kind": "single", "points": 1, "reason": "dropped"}
    assert dropped["match"]["score"] == [0, 1]
    assert dropped["game_number"] == 2 and dropped["game"]["dice"] == [4, 1]

    # Game 2: bob offers a resignation while alice is to move; alice lets her clock run out.
    bob.catch_up(dropped["version"])
    bob.ok("resign")
    alice.catch_up(bob.version())
    before = alice.version()
    declined = _timeouts(alice, 2)
    kinds = [(e["kind"], e["seat"]) for e in _new_events(alice, table, before)]
    assert kinds == [("timed_out", 0), ("resignation_declined", 0)]
    assert declined["game"]["phase"] == "moving" and declined["actor"] == 0
    assert declined["game"]["resignation"] is None

    # Her turn's clock starts again; running out a third time loses the match.
    final = alice.wait(lambda s: s["status"] == "finished", timeout=WAIT)
    assert final["match"]["ended_by"] == "timeouts" and final["match"]["winner"] == 1
    assert final["match"]["timeouts"] == [3, 0]


def test_an_untimed_table_has_no_deadline(game_server):
    table, (alice, _bob) = game_server.match("georgian", 1, opening=[(3, 1)])
    assert alice.state()["move_seconds"] is None
    assert alice.state()["deadline"] is None


def test_move_seconds_outside_testing_must_be_a_listed_choice(make_game_server):
    server = make_game_server(environment="development")
    alice = server.guest(connect=False)
    response = alice.post("/api/tables", {"variant": "georgian", "match_length": 1, "move_seconds": 1})
    assert response.status_code == 422
    assert alice.post("/api/tables", {"variant": "georgian", "move_seconds": 30}).status_code == 201


def test_a_deadline_survives_a_restart(make_game_server):
    """The clock's docstring: "a restarted process re-arms them and a deadline that passed while
    the server was down fires at once"; and clocks of new tables keep working after a restart."""
    first = make_game_server()
    table, _ = first.match("georgian", 1, opening=[(3, 1)], move_seconds=1)
    first.stop()

    second = make_game_server(data_dir=first.data_dir)
    second.top_up()
    try:
        watcher = second.player(sign_up=False)
        watcher.subscribe(table)
        state = watcher.wait(lambda s: s["match"]["timeouts"][0] == 1, timeout=WAIT)
        assert state["actor"] == 1
        assert state["deadline"].endswith("+00:00")

        new_table, (alice, _bob) = second.match("georgian", 1, move_seconds=1)
        assert alice.wait(lambda s: sum(s["match"]["timeouts"]) == 1, timeout=WAIT)
    finally:
        shutdown_error = None
        try:
            second.stop()
        except Exception as error:  # noqa: BLE001 - reported below, after the real assertions
            shutdown_error = error
    assert shutdown_error is None, f"the app failed to shut down: {shutdown_error!r}"
