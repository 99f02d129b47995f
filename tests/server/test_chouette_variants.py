"""A chouette in every variant with backgammon's cube and money play (hypergammon, nackgammon), end to end.

The rules decide which variants have a chouette (``nardy.rules.chouette.chouette_refusal``; docs/chouette.md):
the table carries its variant from the create form to the games, the view, the lobby and the replay, and a
variant without the cube (or without money play) is refused with 422, changing nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from nardy.notation import position_to_dict
from nardy.rules import Game
from nardy.rules.chouette import TEAM_SIDE
from tests.server.chouette_driver import Table, make_chouette_game_server


@pytest.fixture
def chouette_game_server(make_game_server: Any) -> Any:
    return make_chouette_game_server(make_game_server)


def _checkers(board: dict[str, Any]) -> tuple[int, int]:
    """Each side's checkers on a canonical board: on the points, on the bar and borne off."""
    mine = sum(n for n in board["points"] if n > 0) + board["bar"][0] + board["off"][0]
    theirs = -sum(n for n in board["points"] if n < 0) + board["bar"][1] + board["off"][1]
    return mine, theirs


def test_a_hypergammon_chouette_is_played_to_the_end_of_a_game_with_three_checkers(chouette_game_server: Any) -> None:
    """docs/rules.md §8.3: hypergammon "uses all the same rules as backgammon" (the cube, money play), three
    checkers a side: a chouette of it plays every game by its rules and says so to every client."""
    server = chouette_game_server
    players = [server.guest() for _ in range(3)]
    created = players[0].post("/api/chouettes", {"variant": "hypergammon", "max_players": 3})
    assert created.status_code == 201, created.text
    assert created.json()["variant"] == "hypergammon"
    table = created.json()["table"]
    for player in players[1:]:
        assert player.post(f"/api/chouettes/{table}/join").status_code == 200
    for player in players:
        player.subscribe(table)
    lobby = server.client.get("/api/lobby", params={"kind": "chouette"}).json()
    assert [(row["table"], row["variant"]) for row in lobby["waiting"]] == [(table, "hypergammon")]

    server.push((6, 5), (4, 1), (6, 1))  # the first seated takes the box, the second is captain; the box opens 6-1
    t = Table(server, players, players[0], table)
    t.ok(players[2], "start")
    game = t.game()
    assert t.state()["variant"] == "hypergammon"
    assert _checkers(game["boards"]["box"]) == _checkers(game["boards"]["team"]) == (3, 3)
    t.move()
    state = t.race_to_the_end(fast="team")
    [result] = state["results"]
    assert result["team_won"] and sum(points for _, points in result["points"]) == 0

    [replayed] = server.client.get(f"/api/chouettes/{table}/replay").json()["games"]
    start = Game.new("hypergammon").board_for(TEAM_SIDE)
    assert replayed["frames"][0]["board"] == position_to_dict(start)
    assert replayed["frames"][-1]["board"]["off"][0] == 3  # the team bore its three checkers off


@pytest.mark.parametrize(("variant", "reason"), [
    ("tavla", "without the doubling cube"), ("dave", "money play"), ("chess", "unknown variant"),
])
def test_a_chouette_of_a_variant_without_the_cube_or_money_play_is_refused(game_server: Any, variant: str, reason: str) -> None:
    """A chouette is money play with one cube per team member (000): 422 naming why, and no table is opened."""
    player = game_server.guest()
    response = player.post("/api/chouettes", {"variant": variant})
    assert response.status_code == 422 and reason in response.text, response.text
    assert game_server.client.get("/api/lobby", params={"kind": "chouette"}).json()["waiting"] == []

