"""Replay data of a finished match (004: any finished game can be replayed move by move)."""

from __future__ import annotations


def test_replay_frames_step_through_a_finished_match(server):
    table, players = server.match("georgian", 1)
    server.play_out(table, players, choose=server.racing)
    replay = server.client.get(f"/api/tables/{table}/replay").json()
    frames = replay["frames"]
    record = server.record(table)
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
