"""Replay data of a finished match (004: any finished game can be replayed move by move)."""

from __future__ import annotations


def test_replay_frames_step_through_a_finished_match(game_server):
    table, players = game_server.match("georgian", 1)
    game_server.play_out(table, players, choose=game_server.racing)
    replay = game_server.client.get(f"/api/tables/{table}/replay").json()
    frames = replay["frames"]
    record = game_server.record(table)
    moves = [e for e in record["events"] if e["kind"] == "moved"]
    moved_frames = [f for f in frames if f["kind"] == "moved"]
    assert len(moved_frames) == len(moves)
    for frame in moved_frames:
        assert frame["dice"] and frame["text"], frame
        assert sum(frame["pips"]) > 0 or frame is moved_frames[-1]
    versions = [f["version"] for f in frames]
    assert versions == sorted(versions)
    last = frames[-1]
    assert last["score"] != [0, 0]
    ended = next(f for f in frames if f["kind"] == "game_ended")
    assert ended["result"]["winner"] in (0, 1)
    assert ended["white"] in (0, 1)
    final_board = moved_frames[-1]["board"]
    assert 15 in final_board["off"], "the last move's frame shows the finished position"


def test_replay_shows_a_tied_opening_and_the_steps_of_each_move(game_server):
    """A tied opening roll is a frame of its own, then the roll that decided (docs/rules.md §1: «ties
    are rerolled»); a move's frame carries its steps, in the mover's numbering, for its arrows."""
    table, (alice, bob) = game_server.match("georgian", 1, opening=[(3, 3), (6, 1)])
    alice.ok("resign")
    frames = game_server.client.get(f"/api/tables/{table}/replay").json()["frames"]
    openings = [f["dice"] for f in frames if f["kind"] == "opening_rolled"]
    assert openings == [[3, 3], [6, 1]]

    table, players = game_server.match("georgian", 1)
    game_server.play_out(table, players, choose=game_server.racing)
    record = game_server.record(table)
    moves = [e["payload"]["steps"] for e in record["events"] if e["kind"] == "moved"]
    frames = game_server.client.get(f"/api/tables/{table}/replay").json()["frames"]
    assert [f["steps"] for f in frames if f["kind"] == "moved"] == moves
    assert all(f["steps"] is None for f in frames if f["kind"] != "moved")
