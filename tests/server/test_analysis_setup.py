"""The analysis board's set-up (checkers moved one by one, a board cleared) and the depth of each ranked play."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nardy.notation import position_to_dict
from nardy.rules import Position
from tests.server.game_server import GameServer


def test_a_position_is_set_up_checker_by_checker(make_game_server: Callable[..., GameServer]) -> None:
    anyone = make_game_server().player(sign_up=False, connect=False)

    def setup(position: dict[str, Any], **edit: Any) -> Any:
        return anyone.post("/api/analysis/setup", {"variant": "backgammon", "position": position, **edit})

    start = position_to_dict(Position.start("backgammon"))
    moved = setup(start, side=0, source=6, target=5)
    assert moved.status_code == 200, moved.text
    points = moved.json()["position"]["points"]
    assert points[5] == 4 and points[4] == 1, "one of my checkers went from 6 to 5"
    theirs = setup(start, side=1, source=19, target=0).json()["position"]
    assert theirs["points"][18] == -4 and theirs["off"] == [0, 1], "their tray took one from their 6-point (my 19)"
    on_bar = setup(start, side=1, source=1, target=25).json()["position"]
    assert on_bar["bar"] == [0, 1] and on_bar["points"][0] == -1

    refused = setup(start, side=0, source=6, target=1)
    assert refused.status_code == 422 and "other side" in refused.json()["detail"], "point 1 holds their checkers"
    assert setup(start, side=0, source=0, target=5).status_code == 422, "nothing is borne off yet"
    long_start = position_to_dict(Position.start("long-traditional"))
    no_bar = anyone.post("/api/analysis/setup", {"variant": "long-traditional", "position": long_start,
                                                 "side": 0, "source": 24, "target": 25})
    assert no_bar.status_code == 422 and "bar" in no_bar.json()["detail"], "long nardy has no bar"

    cleared = setup(start, edit="clear").json()["position"]
    assert cleared["points"] == [0] * 24 and cleared["off"] == [15, 15]


def test_the_board_names_how_deep_each_play_was_searched(make_game_server: Callable[..., GameServer]) -> None:
    anyone = make_game_server().player(sign_up=False, connect=False)
    for variant, plies in (("backgammon", 1), ("long-traditional", 0)):
        answer = anyone.post("/api/analysis/position", {"variant": variant, "dice": [3, 1], "level": "advanced"})
        assert answer.status_code == 200, answer.text
        plays = answer.json()["plays"]
        assert plays and all(play["plies"] <= plies for play in plays) and plays[0]["plies"] == plies
