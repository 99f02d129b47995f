"""Plakoto's tie at a table: both mothers pinned (docs/rules.md §9), the game starts again, and everything that
shows a match says so: the event log (``game_tied``), the replay, and the match files, which import back."""

from __future__ import annotations

from nardy.notation import parse_play, position_from_dict
from nardy.notation.matfile import transcript_from_mat
from nardy.notation.sgf import transcript_from_sgf
from nardy.notation.transcript import transcript_from_record
from nardy.server.services.records import transcript_replay
from tests.notation.format_checks import TIED_PLAKOTO, a_plakoto_tie, course
from tests.server.game_server import GameServer


def test_a_tied_plakoto_game_is_told_replayed_and_exported(game_server: GameServer) -> None:
    """The play that pins the second mother is followed by ``game_tied``, then the same game's opening roll;
    the score stays 0-0 and the game number 1."""
    table, players = game_server.match("plakoto", 3, opening=[(2, 1)])
    for seat, dice, move in TIED_PLAKOTO:
        game_server.push(dice)
        players[seat].ok("roll", table)
        state = players[seat].wait(lambda s: s["game"]["phase"] == "moving", table)
        game = state["game"]
        play = parse_play(move, position_from_dict(game["boards"][seat]), tuple(game["dice"]))
        steps = [{"source": s.source, "target": s.target, "die": s.die, "hit": s.hit} for s in play.steps]
        if (seat, dice, move) == TIED_PLAKOTO[-1]:
            game_server.push((3, 5))  # the opening roll of the game played again: seat 1 starts
        players[seat].ok("move", table, steps=steps)
    state = players[0].wait(lambda s: s["actor"] == 1 and s["game"]["phase"] == "rolling", table)
    assert state["match"]["score"] == [0, 0] and state["game_number"] == 1 and state["status"] == "playing"

    events = game_server.record(table)["events"]
    kinds = [event["kind"] for event in events]
    tied = kinds.index("game_tied")
    assert kinds[tied - 1:tied + 2] == ["moved", "game_tied", "opening_rolled"]
    assert events[tied]["payload"] == {"number": 1} and "game_ended" not in kinds

    frames = game_server.client.get(f"/api/tables/{table}/replay").json()["frames"]
    assert [frame["kind"] for frame in frames].count("game_tied") == 1

    transcript = transcript_from_record(game_server.record(table))
    mat = game_server.client.get(f"/api/tables/{table}/export.mat")
    assert mat.status_code == 200 and "; nardy tie\n; nardy opening 3 5" in mat.text
    assert course(transcript_from_mat(mat.text)) == course(transcript)
    sgf = game_server.client.get(f"/api/tables/{table}/export.sgf")
    assert sgf.status_code == 200 and ";NA[tie]" in sgf.text
    assert course(transcript_from_sgf(sgf.text)) == course(transcript)


def test_a_tie_read_from_a_file_is_a_frame_of_its_replay() -> None:
    """An imported match's replay shows the tie as a table's does: a ``game_tied`` frame after the tying play."""
    frames = transcript_replay(a_plakoto_tie())["frames"]
    kinds = [frame["kind"] for frame in frames]
    tied = kinds.index("game_tied")
    assert kinds.count("game_tied") == 1 and kinds[tied - 1:tied + 2] == ["moved", "game_tied", "opening_rolled"]
    assert frames[tied]["game_number"] == 1 and frames[tied]["seat"] is None
