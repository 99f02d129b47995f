"""The scripted-dice routes of a testing server (nardy/server/api/testing.py): queue rolls, drop what is left, and
refuse where the server rolls real dice or does not test at all."""

from __future__ import annotations

from collections.abc import Callable

from nardy.server.services.dice import ScriptedDice
from tests.server.game_server import GameServer


def test_rolls_are_queued_then_dropped(game_server: GameServer) -> None:
    client = game_server.client
    assert client.post("/api/testing/dice", json={"rolls": [[6, 1], [3, 3]]}).json() == {"queued": 2}
    assert client.delete("/api/testing/dice").json() == {"dropped": 2, "queued": 0}
    assert isinstance(game_server.dice, ScriptedDice) and game_server.dice.remaining == 0
    assert client.delete("/api/testing/dice").json() == {"dropped": 0, "queued": 0}


def test_a_server_with_real_dice_refuses_both(make_game_server: Callable[..., GameServer]) -> None:
    client = make_game_server(dice="fair").client
    for reply in (client.post("/api/testing/dice", json={"rolls": [[6, 1]]}), client.delete("/api/testing/dice")):
        assert reply.status_code == 409
        assert reply.json()["detail"] == "this server rolls real dice"


def test_a_server_not_under_test_has_no_such_route(make_game_server: Callable[..., GameServer]) -> None:
    client = make_game_server(environment="production").client
    # only the static client's mount answers there, and it serves no POST or DELETE
    assert client.delete("/api/testing/dice").status_code == 405
    assert client.post("/api/testing/dice", json={"rolls": [[6, 1]]}).status_code == 405
