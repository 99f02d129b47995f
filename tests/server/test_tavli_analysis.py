"""A finished tavli match through the API: analysed game by game, each by its own game's engine; downloaded as
.mat and read in again as an import, analysed the same; SGF refused, as the long board is not SGF's.

docs/rules.md §11: tavli's games rotate portes, plakoto, fevga, and "the analysis and the computer players (one
per game's variant) read the variant of the game in play". Alice wins each game with a gammon (2 points: big
rolls for her, 1-2 for Bob, who never hits), so a match to 5 points takes exactly the three games.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from nardy.bots.analysis import judge_for
from nardy.notation import position_from_dict, transcript_from_mat
from nardy.notation.transcript import Replayed, replay, transcript_from_record
from nardy.rules import Play, Position
from tests.server.game_server import GameServer, Player, next_action

ROTATION = ("portes", "plakoto", "fevga")
LEVEL = "advanced"
WAIT = 180.0
"""Seconds a worker process may take to start (spawn), load the three games' engines and analyse the match."""
LEADER_ROLLS = ((6, 6), (5, 5), (4, 4), (3, 3), (6, 5))
"""Alice's rolls to choose from: each turn the one whose racing play leaves her the fewest pips."""
TRAILER_ROLL = (1, 2)
"""Bob's every roll: too small to race her."""


def _fewest_pips(plays: list[Play]) -> Play:
    return min(plays, key=lambda play: play.position.pip_counts()[0])


def _leaders_roll(position: Position) -> tuple[int, int]:
    """Of :data:`LEADER_ROLLS`, the one taking Alice furthest (the first, when none can be played: a pass)."""
    playable = [(_fewest_pips(plays).position.pip_counts()[0], roll)
                for roll in LEADER_ROLLS if (plays := position.legal_plays(roll))]
    return min(playable)[1] if playable else LEADER_ROLLS[0]


def _trailers_play(position: Position, dice: tuple[int, int], plays: list[Play]) -> Play:
    """Bob's play: the fewest pips without hitting (or pinning) where he can."""
    return _fewest_pips([play for play in plays if not any(step.hit for step in play.steps)] or plays)


def _leaders_play(position: Position, dice: tuple[int, int], plays: list[Play]) -> Play:
    return _fewest_pips(plays)


def _play_a_tavli_match(server: GameServer) -> tuple[str, list[Player]]:
    """A match to 5 between two signed-up people, Alice (seat 0) winning the opening 6-1 and every game."""
    alice, bob = server.player(), server.player()
    table, players = server.match("tavli", 5, players=[alice, bob], opening=[(6, 1)])
    for _ in range(3000):
        state = max((player.states[table] for player in players), key=lambda s: s["version"])
        if state["status"] == "finished":
            return table, players
        actor = state["actor"]
        mover = players[actor]
        if state["game"]["phase"] == "rolling":
            board = position_from_dict(state["game"]["boards"][actor]) if actor == 0 else None
            server.push(_leaders_roll(board) if board is not None else TRAILER_ROLL)
        kind, fields = next_action(state, _leaders_play if actor == 0 else _trailers_play)
        mover.ok(kind, table, **fields)
        for other in players:
            other.catch_up(mover.version(table), table)
    raise AssertionError("the match did not end")


def _wait_done(player: Player, url: str) -> dict[str, Any]:
    end = time.monotonic() + WAIT
    while time.monotonic() < end:
        answer: dict[str, Any] = player.client.get(url).json()
        if answer["status"] in ("done", "failed"):
            return answer
        time.sleep(0.2)
    raise AssertionError(f"the analysis did not finish within {WAIT} s: {answer}")


def _first_judged_play(steps: list[Replayed]) -> Replayed:
    """The first checker play of a game with more than one legal play: one the judge had to rate."""
    return next(step for step in steps if step.action.kind == "move" and len(step.before.legal_plays()) > 1)


def test_a_tavli_match_is_analysed_exported_and_read_in_again(game_server: GameServer) -> None:
    table, (alice, _bob) = _play_a_tavli_match(game_server)
    record = game_server.record(table)
    ended = [event["payload"]["result"] for event in record["events"] if event["kind"] == "game_ended"]
    assert [(result["winner"], result["points"]) for result in ended] == [(0, 2)] * 3, ended
    transcript = transcript_from_record(record)
    played = list(replay(transcript))
    assert played[-1].match.score == (6, 0)

    # the analysis: three games, each on its own game's board, each play rated by its own game's engine
    assert alice.post(f"/api/tables/{table}/analysis", {"level": LEVEL}).status_code == 202
    analysis = _wait_done(alice, f"/api/tables/{table}/analysis")
    assert analysis["status"] == "done" and analysis["variant"] == "tavli", analysis.get("error")
    assert [game["number"] for game in analysis["games"]] == [1, 2, 3]
    for number, (game, variant) in enumerate(zip(analysis["games"], ROTATION), start=1):
        assert (game["winner"], game["points"]) == (0, 2)
        moves = [d for d in game["decisions"] if d["kind"] == "move"]
        assert moves and {d["position"]["variant"] for d in moves} == {variant}, f"game {number}"
        steps = [step for step in played if step.game_number == number]
        assert len(moves) == sum(step.action.kind == "move" for step in steps)
        step = _first_judged_play(steps)
        assert step.before.variant.name == variant
        action = step.action
        dice = step.before.dice
        assert dice is not None
        verdict = judge_for(variant, LEVEL).checker_play(
            step.before, Play(action.steps, step.before.position.play(dice, action.steps)))
        rated = next(d for d in moves if d["source"] == action.source)
        assert rated["equity_best"] == pytest.approx(verdict.equity_best, abs=1e-6), f"game {number}: not {variant}'s"
        assert rated["equity_played"] == pytest.approx(verdict.equity_played, abs=1e-6)

    # the .mat file names the match and reads back to the same match; SGF cannot hold fevga's long board
    mat = alice.client.get(f"/api/tables/{table}/export.mat")
    assert mat.status_code == 200 and mat.text.startswith('; [Variant "tavli"]'), mat.text[:200]
    back = list(replay(transcript_from_mat(mat.text)))
    assert [(s.game_number, s.before.variant.name) for s in back] == [(s.game_number, s.before.variant.name)
                                                                      for s in played]
    assert back[-1].match.score == (6, 0) and back[-1].match.winner == 0
    sgf = alice.client.get(f"/api/tables/{table}/export.sgf")
    assert sgf.status_code == 422 and "long board" in sgf.json()["detail"], sgf.text

    # read in again: the same three games, analysed the same
    imported = alice.post("/api/imports", {"name": "tavli.mat", "text": mat.text, "level": LEVEL})
    assert imported.status_code == 201, imported.text
    view = imported.json()
    assert (view["variant"], view["match_length"], view["games"]) == ("tavli", 5, 3)
    again = _wait_done(alice, f"/api/imports/{view['id']}/analysis")
    assert again["status"] == "done", again.get("error")
    for first, second in zip(analysis["games"], again["games"], strict=True):
        assert [(d["played"], d["best"]) for d in second["decisions"]] == [(d["played"], d["best"])
                                                                           for d in first["decisions"]]
        assert second["equity"] == pytest.approx(first["equity"], abs=1e-6)
    frames = alice.client.get(f"/api/imports/{view['id']}/replay").json()["frames"]
    assert {(f["game_number"], f["board"]["variant"]) for f in frames if f["kind"] == "moved"} == {
        (number, variant) for number, variant in enumerate(ROTATION, start=1)}
    assert alice.client.get(f"/api/imports/{view['id']}/export.mat").text == mat.text
    assert alice.client.get(f"/api/imports/{view['id']}/export.sgf").status_code == 422
    # an SGF file naming tavli is refused as its writing is, the file's line and the reason said, nothing kept
    sgf_file = "(;FF[4]GM[6]CA[UTF-8]MI[length:5][game:0][ws:0][bs:0]VA[tavli]PW[ann]PB[bob]\n;W[61])"
    refused = alice.post("/api/imports", {"name": "tavli.sgf", "text": sgf_file, "level": LEVEL})
    assert refused.status_code == 422 and "line 1: SGF holds backgammon-board games only" in refused.text
    assert len(alice.client.get("/api/imports").json()["imports"]) == 1
