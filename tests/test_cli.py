"""The ``nardy`` command line: the contract of issue 2 for moves, batch, show and perft."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from nardy.cli import main
from nardy.notation import position_from_dict, position_to_dict
from nardy.rules import VARIANTS, Position

START_ID = "4HPwATDgc/ABMA"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_moves_json_lists_one_entry_per_distinct_position(variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Every play of the engine appears once, with its text and the position from the mover's side."""
    code, out, err = run(capsys, "moves", "--variant", variant, "--dice", "6", "4", "start", "--json")
    assert code == 0 and err == ""
    answer = json.loads(out)
    expected = Position.start(variant).legal_plays((6, 4))
    assert len(answer["plays"]) == len(expected)
    positions = [position_from_dict(entry["position"]) for entry in answer["plays"]]
    assert set(positions) == {play.position for play in expected}
    assert all(entry["text"] for entry in answer["plays"])


def test_moves_text_lists_standard_move_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "moves", "--variant", "backgammon", "--dice", "3", "1", "start")
    assert code == 0
    lines = out.splitlines()
    assert "8/5 6/5" in lines and len(lines) == 16


def test_moves_accepts_a_gnubg_position_id(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "moves", "--dice", "6", "5", START_ID)
    assert code == 0 and "24/13" in out.splitlines()


def test_moves_accepts_canonical_json(capsys: pytest.CaptureFixture[str]) -> None:
    text = json.dumps(position_to_dict(Position.start("long-tournament")))
    code, out, _ = run(capsys, "moves", "--dice", "6", "6", text, "--json")
    assert code == 0
    assert [p["text"] for p in json.loads(out)["plays"]] == ["24/18(2)"]


def test_a_roll_with_no_play_gives_an_empty_list(capsys: pytest.CaptureFixture[str]) -> None:
    """docs/rules.md §1: a player with no legal play passes; the CLI answers an empty list."""
    points = [0] * 24
    for point in range(19, 25):
        points[point - 1] = -2
    points[0] = -3
    points[5] = 14
    blocked = {"variant": "backgammon", "points": points, "bar": [1, 0], "off": [0, 0]}
    code, out, _ = run(capsys, "moves", "--dice", "6", "5", json.dumps(blocked), "--json")
    assert code == 0 and json.loads(out) == {"plays": []}


@pytest.mark.parametrize(
    "argv",
    [
        ("moves", "--variant", "backgammon", "--dice", "7", "1", "start"),
        ("moves", "--variant", "backgammon", "--dice", "x", "1", "start"),
        ("moves", "--variant", "chess", "--dice", "3", "1", "start"),
        ("moves", "--dice", "3", "1", "{not json"),
        ("moves", "--dice", "3", "1", '{"variant": "backgammon", "points": [1], "bar": [0, 0], "off": [0, 0]}'),
        ("moves", "--dice", "3", "1", "not-a-position-id"),
        ("moves", "--variant", "georgian", "--dice", "3", "1", json.dumps(position_to_dict(Position.start("dave")))),
        ("moves", "--dice", "3", "1", "start"),
        ("show", "{"),
        ("perft", "--variant", "backgammon", "--depth", "0"),
    ],
)
def test_malformed_input_is_one_line_on_stderr_and_status_2(argv: tuple[str, ...]) -> None:
    """Issue 2: «Malformed input: a one-line error on stderr and exit code 2.»"""
    done = subprocess.run([sys.executable, "-m", "nardy.cli", *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1


def test_batch_answers_every_line_in_order_and_survives_bad_requests() -> None:
    """Issue 2: one answer per request in order; a bad request gets {"error": ...} and the batch goes on."""
    requests = [
        {"variant": "backgammon", "position": "start", "dice": [3, 1]},
        "this is not json",
        {"variant": "georgian", "position": json.dumps(position_to_dict(Position.start("georgian"))), "dice": [5, 3]},
        {"variant": "long-bolshie", "position": position_to_dict(Position.start("long-bolshie")), "dice": [6, 6]},
        {"variant": "backgammon", "position": START_ID, "dice": [9, 1]},
        {"variant": "backgammon", "position": "start"},
        {"variant": "nope", "position": "start", "dice": [1, 2]},
        {"variant": "dave", "position": "start", "dice": [6, 5], "extra": 1},
    ]
    lines = [r if isinstance(r, str) else json.dumps(r) for r in requests]
    done = subprocess.run(
        [sys.executable, "-m", "nardy.cli", "moves", "--batch"],
        input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(requests)
    assert len(answers[0]["plays"]) == 16
    assert "error" in answers[1]
    assert "8/3 6/3" in [p["text"] for p in answers[2]["plays"]]
    assert [p["text"] for p in answers[3]["plays"]] == ["24/18"]
    assert all("error" in answer for answer in answers[4:])


def test_batch_flushes_each_answer_before_reading_on() -> None:
    """A caller can drive whole games through one process: each answer arrives before the next request."""
    process = subprocess.Popen(
        [sys.executable, "-m", "nardy.cli", "moves", "--batch"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        for dice in ([3, 1], [6, 6]):
            process.stdin.write(json.dumps({"variant": "backgammon", "position": "start", "dice": dice}) + "\n")
            process.stdin.flush()
            assert "plays" in json.loads(process.stdout.readline())
    finally:
        process.stdin.close()
        process.wait(timeout=30)


def test_show_draws_the_board(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", "--variant", "backgammon", "start")
    assert code == 0 and "pips 167" in out


def test_perft_prints_divide_lines_and_the_total(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "perft", "--variant", "backgammon", "--depth", "1")
    lines = out.splitlines()
    assert code == 0 and lines[-1] == "total: 447" and len(lines) == 22
    assert "2-1: 15" in lines


def test_perft_depth_two_divides_per_play(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "perft", "--variant", "long-bolshie", "--depth", "2")
    lines = out.splitlines()
    assert code == 0 and lines[-1] == "total: 441"
    assert any(line.startswith("6-6 24/18: ") for line in lines)


def test_play_runs_a_whole_game_in_the_terminal() -> None:
    """``make run``'s terminal game: a player who always picks the first play finishes a game."""
    done = subprocess.run(
        [sys.executable, "-m", "nardy.cli", "play", "--variant", "long-traditional", "--seed", "7"],
        input="1\n" * 400, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0
    assert done.stdout.splitlines()[-1].endswith("point(s).")
