"""A 1-point backgammon match at a table with the cube offers no double (003, docs/rules.md).

003: «If a player is 1 point away from winning the match, he won't be given
an option to offer a double»; in a 1-point match both players are. The
table's view says so, and a double sent anyway is refused with the reason.
"""

from __future__ import annotations

from typing import Any

OPENING_MOVE = [
    {"source": 8, "target": 5, "die": 3, "hit": False},
    {"source": 6, "target": 5, "die": 1, "hit": False},
]
"""3-1 from the start: make the 5 point."""


def test_no_double_is_offered_in_a_one_point_match(game_server: Any) -> None:
    table, (alice, bob) = game_server.match("backgammon", 1, opening=[(3, 1)], options={"cube": True})
    assert alice.state()["options"]["cube"] is True
    alice.ok("move", steps=OPENING_MOVE)
    bob.catch_up(alice.version())
    legal = bob.state()["game"]["legal"]
    assert legal["can_double"] is False
    assert "1-point match" in legal["double_refusal"]
    refused = bob.refused("double")
    assert refused["code"] == "illegal" and "1-point match" in refused["message"]
    assert game_server.view(table)["version"] == alice.version()


def test_a_three_point_match_still_offers_one(game_server: Any) -> None:
    table, (alice, bob) = game_server.match("backgammon", 3, opening=[(3, 1)], options={"cube": True})
    alice.ok("move", steps=OPENING_MOVE)
    bob.catch_up(alice.version())
    assert bob.state()["game"]["legal"] == {"can_double": True, "double_refusal": None}
