"""The doubling cube through the real app: double, take, redouble, drop, beaver, and the
restrictions of backgammon with dave (003) and the Crawford game (000, 003).

docs/rules.md §3: offered only before one's own roll; only the owner may
redouble; pass = lose the value before the double; take = own the cube.
"""

from __future__ import annotations

OPENING_MOVE = [
    {"source": 8, "target": 5, "die": 3, "hit": False},
    {"source": 6, "target": 5, "die": 1, "hit": False},
]
"""3-1 from the start: make the 5 point (for whichever seat won the opening with 3-1)."""

RESPONSE = [
    {"source": 13, "target": 7, "die": 6, "hit": False},
    {"source": 13, "target": 8, "die": 5, "hit": False},
]
"""6-5 from the start: 13/7 13/8 (a legal reply to 3-1 as well)."""


def _cube(player) -> dict[str, object]:
    return player.state()["game"]["cube"]


def _roll_and_answer(server, player, dice=(6, 5), steps=RESPONSE):
    server.push(dice)
    player.ok("roll")
    return player.ok("move", steps=steps)


def test_double_take_redouble_drop(game_server):
    table, (alice, bob) = game_server.match("backgammon", 5, opening=[(3, 1)], options={"cube": True})
    assert alice.state()["options"]["cube"] is True
    # No double while moving: the cube is offered before rolling.
    refused = alice.refused("double")
    assert refused["code"] == "illegal"
    assert "before rolling" in refused["message"]
    alice.ok("move", steps=OPENING_MOVE)

    bob.catch_up(alice.version())
    rolling = bob.state()
    assert rolling["actor"] == 1 and rolling["game"]["phase"] == "rolling"
    assert rolling["game"]["legal"] == {"can_double": True, "double_refusal": None}
    assert alice.refused("double")["code"] == "not_your_turn"

    bob.ok("double")
    doubled = bob.state()
    assert doubled["game"]["phase"] == "doubled"
    assert doubled["actor"] == 0
    assert doubled["game"]["cube"] == {"value": 1, "owner": None}  # offered, not yet taken
    assert doubled["game"]["legal"] == {"can_beaver": False}
    assert bob.refused("take")["code"] == "not_your_turn"
    assert bob.refused("roll")["code"] == "not_your_turn"
    alice.catch_up(bob.version())
    assert alice.refused("roll")["code"] == "illegal"
    beaver = alice.refused("beaver")
    assert beaver["code"] == "illegal" and "beaver" in beaver["message"]

    alice.ok("take")
    taken = alice.state()
    assert taken["game"]["cube"] == {"value": 2, "owner": 0}
    assert taken["game"]["phase"] == "rolling"
    assert taken["actor"] == 1  # the doubler goes on with the turn
    bob.catch_up(alice.version())
    assert bob.state()["game"]["legal"]["can_double"] is False
    assert "owner" in bob.state()["game"]["legal"]["double_refusal"]
    refused = bob.refused("double")
    assert refused["code"] == "illegal" and "owner" in refused["message"]

    _roll_and_answer(game_server, bob)
    alice.catch_up(bob.version())
    assert alice.state()["game"]["legal"] == {"can_double": True, "double_refusal": None}
    alice.ok("double")  # the owner redoubles
    bob.catch_up(alice.version())
    assert bob.state()["actor"] == 1 and bob.state()["game"]["phase"] == "doubled"

    game_server.push((3, 1))  # the next game's opening roll
    dropped = bob.ok("drop")
    after = bob.state()
    assert after["version"] == dropped["version"]
    assert after["last_result"] == {"winner": 0, "kind": "single", "points": 2, "reason": "dropped"}
    assert after["match"]["score"] == [2, 0]
    assert after["match"]["winner"] is None
    assert after["status"] == "playing"
    # The next game begins with a centred cube at 1 and a fresh opening roll.
    assert after["game_number"] == 2
    assert after["game"]["cube"] == {"value": 1, "owner": None}
    assert after["game"]["phase"] == "moving" and after["game"]["dice"] == [3, 1]
    tail = [e["kind"] for e in bob.events[table]][-5:]
    assert tail == ["dropped", "game_ended", "game_started", "seed_committed", "opening_rolled"]


def test_beaver_in_money_play(game_server):
    table, (alice, bob) = game_server.match(
        "backgammon", 0, opening=[(3, 1)], options={"cube": True, "beavers": True}
    )
    assert alice.state()["match_length"] == 0
    alice.ok("move", steps=OPENING_MOVE)
    bob.catch_up(alice.version())
    bob.ok("double")
    alice.catch_up(bob.version())
    assert alice.state()["game"]["legal"] == {"can_beaver": True}
    alice.ok("beaver")
    beavered = alice.state()
    assert beavered["game"]["cube"] == {"value": 4, "owner": 0}
    assert beavered["game"]["phase"] == "rolling"
    assert beavered["actor"] == 1
    assert alice.events[table][-1]["kind"] == "beavered"
    bob.catch_up(alice.version())
    assert bob.refused("double")["code"] == "illegal"  # alice owns the cube now
    _roll_and_answer(game_server, bob)
    alice.catch_up(bob.version())
    assert alice.state()["game"]["legal"]["can_double"] is True


def test_a_table_without_the_cube_refuses_doubles(game_server):
    table, (alice, bob) = game_server.match("backgammon", 1, opening=[(3, 1)])
    assert alice.state()["options"]["cube"] is False
    alice.ok("move", steps=OPENING_MOVE)
    bob.catch_up(alice.version())
    assert bob.state()["game"]["legal"]["can_double"] is False
    refused = bob.refused("double")
    assert refused["code"] == "illegal" and "without the doubling cube" in refused["message"]
    assert game_server.view(table)["version"] == alice.version()


def test_dave_first_turn_cube_restrictions(game_server):
    """003: "A double offer is not an option at the first turn of the game. The player who won
    the initial dice roll makes a normal move, then the opponent would have the first option
    of offering a double"; and no double beyond the value that already wins the match."""
    table, (alice, bob) = game_server.match("dave", 3, opening=[(3, 1)])
    state = alice.state()
    assert state["options"]["cube"] is True  # dave is always played with the cube
    assert state["game"]["phase"] == "moving" and state["actor"] == 0
    # The opening winner plays the opening numbers at once: no double on the first turn.
    refused = alice.refused("double")
    assert refused["code"] == "illegal"
    assert refused["message"] == "a double is offered only before rolling, at the start of one's turn"
    alice.ok("move", steps=OPENING_MOVE)
    bob.catch_up(alice.version())
    assert bob.state()["game"]["legal"] == {"can_double": True, "double_refusal": None}

    # Game 1: bob doubles, alice drops: bob scores the value before the double, a single (oin).
    bob.ok("double")
    game_server.push((1, 3))  # game 2: bob wins the opening with 3-1
    alice.catch_up(bob.version())
    alice.ok("drop")
    after = alice.state()
    assert after["last_result"] == {"winner": 1, "kind": "oin", "points": 1, "reason": "dropped"}
    assert after["match"]["score"] == [0, 1]
    assert after["game"]["turn"] == 1 and after["game"]["dice"] == [3, 1]

    # Game 2: alice doubles at once, bob takes and owns the cube at 2.
    bob.catch_up(alice.version())
    bob.ok("move", steps=OPENING_MOVE)
    alice.catch_up(bob.version())
    assert alice.state()["game"]["legal"]["can_double"] is True
    alice.ok("double")
    bob.catch_up(alice.version())
    bob.ok("take")
    assert _cube(bob) == {"value": 2, "owner": 1}
    alice.catch_up(bob.version())
    _roll_and_answer(game_server, alice)
    # Bob needs 2 points: the cube at 2 already wins him the match, so no redouble.
    bob.catch_up(alice.version())
    legal = bob.state()["game"]["legal"]
    assert legal["can_double"] is False
    assert legal["double_refusal"] == "the cube already wins the match for you: no further double"
    refused = bob.refused("double")
    assert refused["code"] == "illegal"
    assert refused["message"] == "the cube already wins the match for you: no further double"


def test_crawford_game_has_no_cube(game_server):
    """Dave match to 3: two dropped doubles bring bob to 2, one away: the next game is Crawford."""
    table, (alice, bob) = game_server.match("dave", 3, opening=[(3, 1)])
    for game in (1, 2):
        alice.ok("move", steps=OPENING_MOVE)
        bob.catch_up(alice.version())
        assert bob.state()["match"]["crawford"] is False
        bob.ok("double")
        game_server.push((3, 1))
        alice.catch_up(bob.version())
        alice.ok("drop")
        assert alice.state()["match"]["score"] == [0, game]

    crawford = alice.state()
    assert crawford["game_number"] == 3
    assert crawford["match"]["crawford"] is True
    alice.ok("move", steps=OPENING_MOVE)
    bob.catch_up(alice.version())
    legal = bob.state()["game"]["legal"]
    assert legal["can_double"] is False
    assert "Crawford" in legal["double_refusal"]
    refused = bob.refused("double")
    assert refused["code"] == "illegal" and "Crawford" in refused["message"]
    _roll_and_answer(game_server, bob)
    alice.catch_up(bob.version())
    assert alice.state()["game"]["legal"]["can_double"] is False
    assert "Crawford" in alice.refused("double")["message"]
    assert game_server.view(table)["version"] == alice.version()


def test_money_play_automatic_double_and_jacoby(game_server):
    """000: a double on the opening roll doubles the centred cube (at most the agreed number of
    times) and is rerolled; Jacoby: gammons count single while the cube is centred."""
    table, (alice, bob) = game_server.match(
        "backgammon", 0, opening=[(2, 2), (4, 4), (3, 1)],
        options={"cube": True, "jacoby": True, "automatic_doubles": 1},
    )
    state = alice.state()
    assert state["game"]["cube"] == {"value": 2, "owner": None}  # the second tie is only rerolled
    assert state["game"]["dice"] == [3, 1] and state["actor"] == 0
    openings = [e["payload"]["dice"] for e in game_server.record(table)["events"] if e["kind"] == "opening_rolled"]
    assert openings == [[2, 2], [4, 4], [3, 1]]

    alice.ok("resign", kind="gammon")
    bob.catch_up(alice.version())
    game_server.push((5, 2))
    bob.ok("accept_resignation")
    after = bob.state()
    assert after["last_result"] == {"winner": 1, "kind": "gammon", "points": 2, "reason": "resigned"}
    assert after["match"]["score"] == [0, 2]
    assert after["status"] == "playing"  # money play goes on
    assert after["game"]["cube"] == {"value": 1, "owner": None}


def test_matches_refuse_money_play_options(game_server):
    alice = game_server.guest(connect=False)
    for body in (
        {"variant": "backgammon", "match_length": 5, "options": {"cube": True, "jacoby": True}},
        {"variant": "backgammon", "match_length": 4},
        {"variant": "georgian", "match_length": 1, "options": {"cube": True}},
        {"variant": "dave", "match_length": 1},
        {"variant": "backgammon", "match_length": 0, "options": {"beavers": True}},
    ):
        response = alice.post("/api/tables", body)
        assert response.status_code == 422, body
