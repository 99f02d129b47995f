"""A repeated ``action_id`` is applied once: the second reply is an ack naming the version the
action was applied at, and nothing new happens (a client retrying after a lost reply)."""

from __future__ import annotations



def _quiet(player, table):
    """Nothing more arrives for ``table``."""
    stray = [m for m in player.drain() if m["t"] in ("events", "sync") and m.get("table") == table]
    assert stray == []


def test_a_repeated_roll_is_applied_once(game_server):
    table, (alice, bob) = game_server.match("georgian", 1, opening=[(3, 1)])
    alice.ok("move", steps=[{"source": 8, "target": 5, "die": 3}, {"source": 6, "target": 5, "die": 1}])
    bob.catch_up(alice.version())
    game_server.push((6, 5), (2, 2))
    first = bob.ok("roll", action_id="roll-once")
    assert bob.state()["game"]["dice"] == [6, 5]
    again = bob.act("roll", action_id="roll-once")
    assert again == first
    assert game_server.view(table)["version"] == first["version"]
    assert bob.state()["game"]["dice"] == [6, 5]
    assert game_server.dice.remaining == 1  # the second roll was never asked for
    alice.catch_up(first["version"])
    _quiet(bob, table)
    _quiet(alice, table)
    assert [e["kind"] for e in game_server.record(table)["events"]].count("rolled") == 1


def test_a_repeated_step_is_applied_once(game_server):
    table, (alice, bob) = game_server.match("georgian", 1, opening=[(3, 1)])
    first = alice.ok("step", action_id="s-1", source=8, die=3)
    again = alice.act("step", action_id="s-1", source=8, die=3)
    assert again == first
    assert len(alice.state()["game"]["pending"]) == 1
    assert game_server.view(table)["version"] == first["version"]
    _quiet(alice, table)
    # An id once used stays used, even for a different action.
    assert alice.act("undo", action_id="s-1") == first
    assert len(game_server.view(table)["game"]["pending"]) == 1


def test_a_repeated_id_from_a_new_connection_is_still_recognised(game_server):
    table, (alice, bob) = game_server.match("georgian", 1, opening=[(3, 1)])
    steps = [{"source": 8, "target": 5, "die": 3}, {"source": 6, "target": 5, "die": 1}]
    first = alice.ok("move", action_id="move-1", steps=steps)
    alice.close()
    alice.connect()
    alice.subscribe(table)
    assert alice.act("move", action_id="move-1", steps=steps) == first
    assert game_server.view(table)["version"] == first["version"]


def test_a_repeated_game_ending_action_names_the_same_version(game_server):
    table, (alice, bob) = game_server.match("georgian", 5, opening=[(3, 1), (4, 2)])
    first = alice.ok("resign", action_id="resign-1")
    # resigned, game_ended, game_started, seed_committed (game 3), opening_rolled: five events for one action.
    assert [e["kind"] for e in alice.events[table]][-5:] == [
        "resigned", "game_ended", "game_started", "seed_committed", "opening_rolled",
    ]
    again = alice.act("resign", action_id="resign-1")
    assert game_server.view(table)["version"] == first["version"]  # applied once: this part holds
    assert again == first


def test_a_players_action_id_cannot_block_the_computer(game_server):
    guest = game_server.guest()
    game_server.push((3, 1))
    game_server.top_up()
    table = game_server.create(guest, "georgian", 1, opponent="computer")["table"]
    guest.subscribe(table)
    version = guest.version()
    steps = [{"source": 8, "target": 5, "die": 3}, {"source": 6, "target": 5, "die": 1}]
    guest.ok("move", steps=steps, action_id=f"bot-{version + 1}")
    # The computer answers within milliseconds; NoMessage (an AssertionError) if it never does.
    state = guest.wait(lambda s: s["actor"] == 0, timeout=2)
    assert [e["seat"] for e in guest.events[table]][-2:] == [1, 1]


def test_one_players_action_id_does_not_swallow_the_others_action(game_server):
    table, (alice, bob) = game_server.match("georgian", 1, opening=[(3, 1)])
    steps = [{"source": 8, "target": 5, "die": 3}, {"source": 6, "target": 5, "die": 1}]
    alice.ok("move", steps=steps, action_id="1")
    bob.catch_up(alice.version())
    game_server.push((6, 5))
    reply = bob.act("roll", action_id="1")
    assert bob.state()["game"]["dice"] == [6, 5]
    assert reply["t"] == "ack" and reply["version"] == bob.version()
