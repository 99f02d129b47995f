"""The ``nardy`` command line: the contract of issue 2 for moves, batch, show and perft; every variant on it."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from nardy.cli import main
from nardy.notation import position_from_dict, position_to_dict, transcript_to_mat
from nardy.notation.transcript import transcript_from_record
from nardy.rules import VARIANTS, GameOptions, Position, find_variant
from tests.match_records import random_record

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


# ----- the variants of docs/rules.md §8-§10 on the command line

NEWER_VARIANTS = ["hypergammon", "nackgammon", "portes", "tavla", "plakoto", "fevga"]


@pytest.mark.parametrize(("variant", "total"), [
    ("hypergammon", 195), ("nackgammon", 547),
    ("portes", 447), ("tavla", 447), ("plakoto", 59), ("fevga", 22),
])
def test_perft_depth_one_of_the_newer_variants(variant: str, total: int, capsys: pytest.CaptureFixture[str]) -> None:
    """From each variant's start. Hypergammon and nackgammon: GNU Backgammon's move generator gives the same
    counts (gnubg-nn, tests/oracles/gnubg_movegen.py, under the variation's start). Portes and tavla: backgammon's
    start, movement and opening (no hit can be played from the start), so backgammon's 447. Plakoto: a roll a-b
    plays one checker a+b or two checkers a and b (2 plays, 15 rolls); a double d moves four d-steps among the
    checkers on 24 (the 5 partitions of 4), but 6-6 cannot bear off, so not one checker 24 pips: 15*2 + 5*5 + 4.
    Fevga: the first checker alone moves until it passes our 12, which the opponent holds: 15 rolls one play,
    6-6 24/18 alone (bkgm's example), 4-4 24/16 and 3-3 24/15 stopped before 12, 2-2 and 1-1 one play, 5-5
    24/4 or 24/9 24/19 (docs/rules.md §10): 15 + 5 + 2."""
    code, out, _ = run(capsys, "perft", "--variant", variant, "--depth", "1")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 22 and lines[-1] == f"total: {total}"


@pytest.mark.parametrize(("variant", "total"), [
    ("hypergammon", 38_017), pytest.param("nackgammon", 324_161, marks=pytest.mark.slow),
])
def test_perft_depth_two_of_gnubgs_variations(variant: str, total: int, capsys: pytest.CaptureFixture[str]) -> None:
    """The totals GNU Backgammon's move generator (gnubg-nn) gives two plies deep from the variation's start,
    each roll's plays counted as distinct positions, a pass as one."""
    code, out, _ = run(capsys, "perft", "--variant", variant, "--depth", "2")
    assert code == 0 and out.splitlines()[-1] == f"total: {total}"


@pytest.mark.parametrize("variant", NEWER_VARIANTS)
def test_bot_plays_a_move_of_the_newer_variants(variant: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "bot", "--variant", variant, "--level", "beginner", "--seed", "1",
                         "--dice", "6", "5", "start")
    assert code == 0 and err == ""
    chosen = position_from_dict(json.loads(out)["play"]["position"])
    assert chosen in {play.position for play in Position.start(variant).legal_plays((6, 5))}


@pytest.mark.parametrize("variant", NEWER_VARIANTS)
def test_analyze_reads_a_mat_file_of_the_newer_variants(
    variant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    """The first dozen actions of a random match, written as .mat: a row per move, analysed at the lowest level."""
    record, _ = random_record(variant, 1, length=3, options=GameOptions(cube=find_variant(variant).cube_allowed))
    transcript = transcript_from_record(record)
    first = transcript.games[0]
    opening = replace(transcript, games=(replace(first, actions=first.actions[:12]),))
    path = tmp_path / "match.mat"
    path.write_text(transcript_to_mat(opening), encoding="utf-8")
    code, out, err = run(capsys, "analyze", str(path), "--level", "advanced", "--json")
    assert code == 0 and err == ""
    answer = json.loads(out)
    moves = sum(action.kind == "move" for action in opening.games[0].actions)
    assert answer["variant"] == variant and moves
    assert sum(row["kind"] == "move" for row in answer["decisions"]) == moves
