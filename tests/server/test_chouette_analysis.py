"""Chouette games are analysed: each team member's game against the box, with that member's own cube.

Issue 39, item 12: «chouette games cannot be analysed (422): analyse them
(one cube per member, a panel for each member)». A chouette game has one cube
per member (000, docs/chouette.md); each member's game against the box is read
as a money game of its own and analysed as a match is.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from nardy.notation.transcript import replay, transcript_from_record
from nardy.server.services.chouette_analysis import member_games
from nardy.server.services.chouettes import chouette_spec_from_row
from nardy.store import tables_repo
from tests.server.chouette_driver import Table, make_chouette_game_server, three_at_a_chouette

WAIT = 120.0
"""Seconds a worker process may take to start (spawn), load its engines and analyse a short game."""


@pytest.fixture
def chouette_game_server(make_game_server: Any) -> Any:
    return make_chouette_game_server(make_game_server)


def _stored(server: Any, table: str) -> Any:
    with server.app.state.db() as db:
        row = tables_repo.get_table(db, table)
        assert row is not None
        return member_games(table, chouette_spec_from_row(row), tables_repo.events_after(db, table))


def test_each_member_s_game_against_the_box_is_played_with_their_own_cube(chouette_game_server: Any) -> None:
    """Four players: the box doubles (two take, one passes), the team doubles (the box takes one cube and
    passes the other), the team races home. Three games against the box, each as that member played it."""
    server = chouette_game_server
    ann, bob, cat, dan = (server.player(name) for name in ("ann9", "bob9", "cat9", "dan9"))
    table = ann.post("/api/chouettes", {"max_players": 4}).json()["table"]
    for player in (bob, cat, dan):
        assert player.post(f"/api/chouettes/{table}/join").status_code == 200
    for player in (ann, bob, cat, dan):
        player.subscribe(table)
    t = Table(server, [ann, bob, cat, dan], ann, table)
    A, B, C, D = (p.user["id"] for p in (ann, bob, cat, dan))
    server.push((6, 6), (3, 2), (2, 5), (1, 6))  # Bob takes the box, Ann is captain; the opening roll 6-1
    t.ok(cat, "start")
    t.move()
    t.ok(bob, "double")
    t.ok(ann, "take")
    t.ok(cat, "drop")
    t.ok(dan, "take")
    t.roll((2, 1))
    t.move()
    t.ok(ann, "double")
    t.ok(dan, "vote", agree=False)  # refused: no double offered
    t.ok(ann, "double")
    t.ok(dan, "vote", agree=True)
    t.ok(bob, "box_answer", takes=[A])
    state = t.race_to_the_end(fast="team")
    points = dict(map(tuple, state["results"][0]["points"]))

    games = _stored(server, table)
    assert [(g.number, g.box, g.member) for g in games] == [(1, B, A), (1, B, C), (1, B, D)], "game 2 is in play"
    versions = {event["version"] for event in ann.events[table]}
    ends = {}
    for game in games:
        assert [e["payload"]["name"] for e in game.record["events"][:2]] == ["bob9", {A: "ann9", C: "cat9", D: "dan9"}[game.member]]
        assert {e["version"] for e in game.record["events"] if "version" in e} <= versions, "the chouette's events"
        final = list(replay(transcript_from_record(game.record)))[-1].game
        assert final.result is not None, "each member's game is over where their stake was settled"
        ends[game.member] = final
    assert ends[C].result.winner == 0 and ends[C].result.points == 1 == -points[C], "Cat passed the box's double"
    assert ends[D].result.winner == 1 and ends[D].result.points == 2 == points[D], "the box passed Dan's cube"
    assert ends[A].result.winner == 1 and ends[A].result.points == points[A], "Ann played on at 4, the box's cube"
    assert (ends[A].cube.value, ends[A].cube.owner) == (4, 0)
    assert len(ends[A].history) > len(ends[D].history) > len(ends[C].history)


def _wait_done(player: Any, table: str) -> dict[str, Any]:
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        answer: dict[str, Any] = player.client.get(f"/api/tables/{table}/analysis").json()
        if answer["status"] in ("done", "failed"):
            return answer
        time.sleep(0.2)
    raise AssertionError(f"the analysis did not finish within {WAIT} s: {answer}")


def test_a_closed_chouette_is_analysed_member_by_member(make_game_server: Any) -> None:
    server = make_game_server(dice="fair")
    players, table = three_at_a_chouette(server)
    ann = players[0]
    assert ann.post(f"/api/tables/{table}/analysis").status_code == 409, "a chouette in play is not analysed yet"
    ann.ok("start", table)
    state = ann.wait(lambda s: s["status"] == "playing")
    box = next(p for p in players if p.user["id"] == state["game"]["box"])
    team = [p.user["id"] for p in players if p is not box]
    box.ok("resign", table)
    for player in players:
        player.ok("leave", table)
    second = ann.state(table)["game"]["box"]
    next(p for p in players if p.user["id"] == second).ok("resign", table)
    assert ann.wait(lambda s: s["status"] == "closed")

    queued = ann.post(f"/api/tables/{table}/analysis", {"level": "advanced"})
    assert queued.status_code == 202, queued.text
    answer = _wait_done(ann, table)
    assert answer["status"] == "done", answer
    assert answer["kind"] == "chouette"
    first = [m for m in answer["members"] if m["number"] == answer["members"][0]["number"]]
    assert sorted(m["member"] for m in first) == sorted(team), "a panel for each member of the team"
    for member in first:
        assert member["box"] == box.user["id"] and member["length"] == 0
        assert len(member["summaries"]) == 2 and member["games"][0]["winner"] == 1, "the box resigned to each"
