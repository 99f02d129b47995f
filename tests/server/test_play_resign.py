"""Resignation through the real app.

Backgammon resigns by offer (single, gammon or backgammon) that the opponent
accepts or declines, and so does dave (oin, mars or koks: 003 names no rule of
its own for resigning); Georgian and long nardy end the game at once, scored
from the position as it stands (docs/rules.md §6, ``Game.resign``). The view says
what each seat's resignation would cost, as the rules score it.
"""

from __future__ import annotations

import pytest

OPENING_MOVE = [
    {"source": 8, "target": 5, "die": 3, "hit": False},
    {"source": 6, "target": 5, "die": 1, "hit": False},
]


def test_backgammon_offer_declined_then_gammon_accepted(game_server):
    table, (alice, bob) = game_server.match("backgammon", 5, opening=[(3, 1)])
    moving = alice.state()

    alice.ok("resign")  # a single by default
    offered = alice.state()
    assert offered["game"]["phase"] == "resignation"
    assert offered["game"]["resignation"] == {"seat": 0, "kind": "single"}
    assert offered["actor"] == 1
    assert alice.refused("accept_resignation")["code"] == "illegal"  # not one's own offer
    assert alice.refused("move", steps=OPENING_MOVE)["code"] == "not_your_turn"
    assert alice.refused("resign")["code"] == "illegal"  # one offer at a time

    bob.catch_up(alice.version())
    bob.ok("decline_resignation")
    resumed = bob.state()
    assert resumed["game"]["phase"] == "moving"
    assert resumed["actor"] == 0
    assert resumed["game"]["dice"] == [3, 1]
    assert resumed["game"]["resignation"] is None
    assert resumed["game"]["boards"] == moving["game"]["boards"]
    assert resumed["game"]["legal"] == moving["game"]["legal"]
    assert [e["kind"] for e in bob.events[table]] == ["resigned", "resignation_declined"]
    assert bob.refused("accept_resignation")["code"] == "illegal"  # nothing offered now

    alice.catch_up(bob.version())
    alice.ok("resign", kind="gammon")
    assert alice.state()["game"]["resignation"] == {"seat": 0, "kind": "gammon"}
    bob.catch_up(alice.version())
    game_server.push((1, 3))  # the next game's opening
    bob.ok("accept_resignation")
    after = bob.state()
    assert after["last_result"] == {"winner": 1, "kind": "gammon", "points": 2, "reason": "resigned"}
    assert after["match"]["score"] == [0, 2]
    assert after["status"] == "playing"
    assert after["game_number"] == 2
    ended = [e for e in bob.events[table] if e["kind"] == "game_ended"]
    assert ended[-1]["payload"]["result"] == after["last_result"]
    assert ended[-1]["payload"]["number"] == 1


def test_backgammon_resignation_during_the_opponents_turn_and_by_backgammon(game_server):
    table, (alice, bob) = game_server.match("backgammon", 3, opening=[(3, 1)])
    # Bob may resign while alice is to move; alice answers.
    bob.ok("resign", kind="backgammon")
    alice.catch_up(bob.version())
    assert alice.state()["actor"] == 0 and alice.state()["game"]["phase"] == "resignation"
    game_server.push((3, 1))
    alice.ok("accept_resignation")
    final = alice.state()
    assert final["last_result"] == {"winner": 0, "kind": "backgammon", "points": 3, "reason": "resigned"}
    assert final["status"] == "finished"
    assert final["match"]["winner"] == 0 and final["match"]["ended_by"] == "score"
    assert final["actor"] is None
    assert alice.refused("resign")["code"] == "not_playing"


def test_georgian_resignation_ends_the_game_at_once_scored_from_the_position(game_server):
    table, (alice, bob) = game_server.match("georgian", 5, opening=[(3, 1)])
    refused = alice.refused("resign", kind="single")
    assert refused["code"] == "illegal" and "scored from the position" in refused["message"]
    assert alice.refused("resign", kind="oin")["code"] == "illegal"  # no kind is offered in Georgian
    # Nothing borne off and checkers still in the winner's home: koks, 3 points (002).
    game_server.push((3, 1))
    alice.ok("resign")
    after = alice.state()
    assert after["last_result"] == {"winner": 1, "kind": "koks", "points": 3, "reason": "resigned"}
    assert after["match"]["score"] == [0, 3]
    assert after["status"] == "playing"
    assert after["game_number"] == 2
    assert [e["kind"] for e in alice.events[table]] == [
        "resigned", "game_ended", "game_started", "seed_committed", "opening_rolled",
    ]
    bob.catch_up(alice.version())
    assert bob.state() == after | {"server_time": bob.state()["server_time"]}


def test_dave_resigns_by_an_offer_of_oin_mars_or_koks(game_server):
    """003 scores oin, mars and koks «multiplied by the current value of the doubling cube» and says
    nothing of resigning: dave keeps backgammon's offer, of its own kinds."""
    table, (alice, bob) = game_server.match("dave", 3, opening=[(3, 1)])
    resign = alice.state()["game"]["resign"]
    assert resign == {"offers": True, "choices": [[{"kind": "oin", "points": 1}, {"kind": "mars", "points": 2},
                                                   {"kind": "koks", "points": 3}]] * 2}
    assert alice.refused("resign", kind="gammon")["code"] == "illegal"
    alice.ok("resign", kind="mars")
    assert alice.state()["game"]["resignation"] == {"seat": 0, "kind": "mars"}
    assert alice.state()["game"]["resign"] is None, "one offer at a time"
    bob.catch_up(alice.version())
    game_server.push((1, 3))  # the next game's opening
    bob.ok("accept_resignation")
    assert bob.state()["last_result"] == {"winner": 1, "kind": "mars", "points": 2, "reason": "resigned"}


def test_the_computer_accepts_a_dave_offer(game_server):
    guest = game_server.guest()
    game_server.push((3, 1))
    game_server.top_up()
    table = game_server.create(guest, "dave", 3, opponent="computer")["table"]
    guest.subscribe(table)
    guest.ok("resign", kind="koks")
    after = guest.wait(lambda s: s["last_result"] is not None)
    assert after["last_result"] == {"winner": 1, "kind": "koks", "points": 3, "reason": "resigned"}


@pytest.mark.parametrize(
    ("variant", "choices"),
    [
        # at the start each side's back checkers stand in the other's home: a koks (002)
        ("georgian", [[{"kind": "koks", "points": 3}]] * 2),
        # nothing borne off: a mars, 2 points, at move 0 as later (001 «Марс»)
        ("long-traditional", [[{"kind": "mars", "points": 2}]] * 2),
        ("backgammon", [[{"kind": "single", "points": 1}, {"kind": "gammon", "points": 2},
                         {"kind": "backgammon", "points": 3}]] * 2),
    ],
)
def test_the_view_says_what_resigning_costs(game_server, variant, choices):
    """The client shows the cost before the player confirms, and decides none of it."""
    table, (alice, bob) = game_server.match(variant, 1, opening=[(6, 2)])
    resign = alice.state()["game"]["resign"]
    assert resign == {"offers": variant == "backgammon", "choices": choices}
    bob.catch_up(alice.version())
    assert bob.state()["game"]["resign"] == resign, "one view for both seats and watchers"


def test_long_nardy_resignation_is_a_mars_and_the_winner_starts_the_next_game(game_server):
    table, (alice, bob) = game_server.match("long-traditional", 3, opening=[(6, 2)])
    state = alice.state()
    assert state["actor"] == 0 and state["game"]["phase"] == "rolling"  # white rolls both dice
    bob.ok("resign")
    alice.catch_up(bob.version())
    after = alice.state()
    assert after["last_result"] == {"winner": 0, "kind": "mars", "points": 2, "reason": "resigned"}
    assert after["match"]["score"] == [2, 0]
    # 004: in a match the winner of the previous game starts the next one, with no opening roll.
    assert after["game_number"] == 2
    assert after["game"]["phase"] == "rolling"
    assert after["game"]["turn"] == 0 and after["game"]["white"] == 0 and after["actor"] == 0
    assert [e["kind"] for e in alice.events[table]] == ["resigned", "game_ended", "game_started", "seed_committed"]


def test_leaving_a_match_in_play_forfeits_it(game_server):
    table, (alice, bob) = game_server.match("georgian", 3, opening=[(3, 1)])
    bob.ok("leave")
    alice.catch_up(bob.version())
    final = alice.state()
    assert final["status"] == "finished"
    assert final["match"]["winner"] == 0 and final["match"]["ended_by"] == "forfeit"
    assert [e["kind"] for e in alice.events[table]] == ["forfeited", "match_ended"]
    assert alice.refused("leave")["code"] == "illegal"  # nothing left to leave
    assert alice.refused("move", steps=OPENING_MOVE)["code"] == "not_playing"
