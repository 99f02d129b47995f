"""The order that makes the dice provably fair: each game's seed is committed before its client seeds are fixed."""

from __future__ import annotations


def test_game_one_is_committed_before_the_second_player_sits_down(game_server):
    """The joiner sees the commitment before choosing a client seed, so the server cannot grind against it."""
    alice, bob = game_server.guest(), game_server.guest()
    opened = game_server.create(alice, "georgian", 3)
    assert opened["next_commitment"]["game"] == 1
    committed = opened["next_commitment"]["commitment"]
    game_server.top_up()
    game_server.join(bob, opened["table"])
    kinds = [(e["kind"], e["payload"]) for e in game_server.record(opened["table"])["events"]]
    order = [kind for kind, _ in kinds]
    assert order.index("seed_committed") < [i for i, k in enumerate(order) if k == "seated"][1]
    started = next(payload for kind, payload in kinds if kind == "game_started")
    assert started["number"] == 1 and started["commitment"] == committed


def test_the_next_game_is_committed_when_a_game_starts(game_server):
    table, (alice, _) = game_server.match("georgian", 3)
    state = alice.state(table)
    assert state["game_number"] == 1
    assert state["next_commitment"]["game"] == 2
    assert state["next_commitment"]["commitment"] != state["commitment"]


def test_a_client_seed_set_during_a_game_applies_to_the_next_game(game_server):
    """A fresh client seed chosen after seeing game 2's commitment is the one game 2 uses; game 1 keeps its own."""
    table, (alice, bob) = game_server.match("georgian", 7)
    before = alice.state(table)["client_seeds"]
    alice.ok("client_seed", table, seed="fresh-after-commitment")
    assert alice.state(table)["client_seeds"] == before
    game_server.top_up()
    alice.ok("resign", table)
    events = game_server.record(table)["events"]
    second = [e["payload"] for e in events if e["kind"] == "game_started"][1]
    assert second["client_seeds"][0] == "fresh-after-commitment"
    assert second["client_seeds"][1] == before[1]
    record = game_server.record(table)
    assert record["games"][1]["client_seeds"][0] == "fresh-after-commitment"


def test_a_malformed_client_seed_is_refused_and_changes_nothing(game_server):
    table, (alice, _) = game_server.match("georgian", 3)
    version = alice.version(table)
    reply = alice.refused("client_seed", table, seed="has:colon")
    assert reply["code"] == "bad_client_seed"
    assert game_server.view(table)["version"] == version
