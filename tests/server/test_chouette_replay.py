"""Replay of a chouette's finished games (``GET /api/chouettes/{id}/replay``), folded from its event log."""

from __future__ import annotations

from typing import Any

import pytest

from nardy.notation import position_to_dict
from nardy.rules import Game
from nardy.rules.chouette import TEAM_SIDE
from nardy.rules.variants import find_variant
from tests.server.chouette_driver import Table, make_chouette_game_server, three_at_a_chouette

SHOWN = {"game_started", "opening_rolled", "rolled", "passed", "moved", "doubled", "double_proposed", "voted",
         "box_answered", "took", "dropped", "resigned", "timed_out"}


@pytest.fixture
def chouette_game_server(make_game_server):
    return make_chouette_game_server(make_game_server)


def _stake(frame: dict[str, Any], member: int) -> tuple[int, str | None, int | None, str | None]:
    stake = next(s for s in frame["stakes"] if s["member"] == member)
    return stake["value"], stake["owner"], stake["result"], stake["how"]


def test_a_finished_chouette_game_replays_frame_by_frame(chouette_game_server) -> None:
    server = chouette_game_server
    players, table = three_at_a_chouette(server)
    assert server.client.get(f"/api/chouettes/{table}/replay").json() == {"table": table, "games": []}
    server.push((6, 5), (4, 1), (6, 1))  # the first seated takes the box, the second is captain; the box opens 6-1
    t = Table(server, players, players[0], table)
    t.ok(players[2], "start")
    box, captain, member = (p.user["id"] for p in players)
    assert (t.game()["box"], t.game()["captain"], t.game()["turn"]) == (box, captain, "box")
    t.move()

    # the team doubles (the member agrees); the box takes the captain's cube and passes the member's
    t.ok(players[1], "double")
    t.ok(players[2], "vote", agree=True)
    t.ok(players[0], "box_answer", takes=[captain])
    t.roll((2, 1))
    t.move()
    # the box redoubles the captain, who takes
    t.ok(players[0], "double")
    t.ok(players[1], "take")
    state = t.race_to_the_end(fast="team")
    assert len(state["results"]) == 1 and state["game"] is not None  # game 2 is being played: not replayed

    response = server.client.get(f"/api/chouettes/{table}/replay")
    assert response.status_code == 200, response.text
    games = response.json()["games"]
    assert len(games) == 1
    game = games[0]
    assert (game["number"], game["box"], game["team"]) == (1, box, [captain, member])
    result = state["results"][0]
    assert game["result"] == {"team_won": True, "kind": result["kind"], "points": result["points"]}
    points = dict(map(tuple, result["points"]))
    assert points[member] == 1 and points[captain] in (4, 8, 12) and points[box] == -(points[captain] + 1)

    # one frame per shown event of game 1, in order
    record = server.record(table)
    events = record["events"]
    first = next(i for i, e in enumerate(events) if e["kind"] == "game_started")
    last = next(i for i, e in enumerate(events) if e["kind"] == "game_ended")
    shown = [e for e in events[first:last] if e["kind"] in SHOWN]
    frames = game["frames"]
    assert [(f["version"], f["kind"], f["player"]) for f in frames] == [(e["version"], e["kind"], e["seat"]) for e in shown]
    kinds = [f["kind"] for f in frames]
    assert kinds[:3] == ["game_started", "opening_rolled", "moved"]
    assert kinds[3:6] == ["double_proposed", "voted", "box_answered"]
    assert kinds[-1] == "moved"

    # the board, from the team's side: the start, each move's text and dice, and the finished position
    start = Game.new(find_variant("backgammon")).board_for(TEAM_SIDE)
    assert frames[0]["board"] == position_to_dict(start)
    assert frames[0]["turn"] is None and frames[1]["dice"] == [6, 1] and frames[1]["turn"] == "box"
    for frame in frames:
        if frame["kind"] == "moved":
            assert frame["text"] and frame["dice"] and frame["steps"], frame
    final = frames[-1]
    assert final["board"]["off"][0] == 15 and final["pips"]["team"] == 0 and final["phase"] == "finished"

    # the cubes: each member's value, owner and result as each decision left them
    at = {f["kind"]: f for f in frames}
    assert at["voted"]["detail"] == {"agree": True} and at["box_answered"]["detail"] == {"takes": [captain]}
    assert _stake(frames[2], captain) == (1, None, None, None)
    assert _stake(at["box_answered"], captain) == (2, "box", None, None)
    assert _stake(at["box_answered"], member) == (1, None, 1, "dropped-by-box")
    assert _stake(at["doubled"], captain) == (2, "box", None, None) and at["doubled"]["phase"] == "box_doubled"
    assert _stake(at["took"], captain) == (4, "member", None, None)
    assert _stake(final, captain) == (4, "member", points[captain], "bore-off")


def test_the_chouette_replay_is_for_chouettes_only(game_server) -> None:
    ann = game_server.guest()
    match = game_server.create(ann, "backgammon")["table"]
    assert game_server.client.get(f"/api/chouettes/{match}/replay").status_code == 404
    assert game_server.client.get("/api/chouettes/nothing/replay").status_code == 404
