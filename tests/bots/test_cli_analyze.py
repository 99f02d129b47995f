"""``nardy analyze FILE [--json] [--level L]``: a line per decision and the summaries, JSON, and errors as exit 2."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nardy.cli import main
from nardy.notation.match_file import read_match_file
from nardy.notation.transcript import transcript_from_record
from tests.match_records import random_record


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    """A random 3-point backgammon match with the cube, as a table's record."""
    made: dict[str, Any] = random_record("backgammon", 3, length=3)[0]
    return made


@pytest.fixture
def record_file(tmp_path: Path, record: dict[str, Any]) -> Path:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    return path


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_text_has_a_line_per_decision_then_the_summaries(
    record_file: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "analyze", str(record_file), "--level", "advanced")
    assert code == 0 and err == ""
    header, *lines = out.splitlines()
    assert header.split() == ["game", "move", "player", "dice", "played", "best", "loss", "mark", "luck"]
    *decisions, first, second = lines
    moves = sum(event["kind"] == "moved" for event in record["events"])
    assert sum(line.split()[3] != "cube" for line in decisions) == moves
    assert first.startswith("ann: ") and second.startswith("bob: ")
    assert "mEMG per decision" in first and "luck-adjusted" in second


def test_json_rows_and_summaries(record_file: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "analyze", str(record_file), "--json", "--level", "advanced")
    assert code == 0 and err == ""
    answer = json.loads(out)
    assert (answer["variant"], answer["level"], answer["players"]) == ("backgammon", "advanced", ["ann", "bob"])
    rows = answer["decisions"]
    assert {"game", "move", "player", "dice", "played", "best", "equity_loss", "luck"} <= set(rows[0])
    assert sum(row["kind"] == "move" for row in rows) == sum(event["kind"] == "moved" for event in record["events"])
    assert all(row["equity_loss"] >= 0 for row in rows)
    for summary in answer["summaries"]:
        mine = [row for row in rows if row["player"] == summary["player"]]
        assert summary["decisions"] == len(mine)
        assert summary["total_loss"] <= sum(row["equity_loss"] for row in mine) + 1e-9


@pytest.mark.parametrize(("name", "text", "message"), [
    ("broken.json", '{"variant": "backgammon", ', "not valid JSON"),
    ("list.json", "[1, 2]", "a table record is a JSON object"),
    ("nothing.json", '{"variant": "backgammon"}', "not a table record"),
    ("unknown.xyz", "hello", "neither a table record"),
])
def test_a_malformed_file_is_one_line_on_stderr_and_exit_2(
    tmp_path: Path, name: str, text: str, message: str, capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / name
    path.write_text(text)
    code, out, err = run(capsys, "analyze", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_an_illegal_action_in_a_record_is_exit_2(
    tmp_path: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str],
) -> None:
    events = [dict(event) for event in record["events"]]
    moved = next(i for i, event in enumerate(events) if event["kind"] == "moved")
    events[moved] = {**events[moved], "payload": {"steps": [{"source": 1, "target": 24, "die": 1}]}}
    path = tmp_path / "illegal.json"
    path.write_text(json.dumps({**record, "events": events}))
    code, _, err = run(capsys, "analyze", str(path), "--level", "advanced")
    assert code == 2 and err.startswith("nardy: game 1, action") and err.count("\n") == 1


def test_a_missing_file_and_an_unknown_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "analyze", str(tmp_path / "none.json"))
    assert code == 2 and "cannot read" in err
    with pytest.raises(SystemExit) as exit_status:
        main(["analyze", str(tmp_path / "none.json"), "--level", "grandmaster"])
    assert exit_status.value.code == 2 and "invalid choice" in capsys.readouterr().err


def test_the_reader_is_chosen_by_extension_then_content(record: dict[str, Any]) -> None:
    text = json.dumps(record)
    assert read_match_file(text, "match.json") == transcript_from_record(record)
    assert read_match_file(text, "download") == transcript_from_record(record)


def test_mat_and_sgf_files_are_read_by_their_readers(
    tmp_path: Path, record: dict[str, Any], capsys: pytest.CaptureFixture[str],
) -> None:
    """The same match written as .mat, as SGF and as a .mat without its extension: the same analysis."""
    from nardy.notation.matfile import transcript_to_mat
    from nardy.notation.sgf import transcript_to_sgf

    transcript = transcript_from_record(record)
    files = {"match.mat": transcript_to_mat(transcript), "match.sgf": transcript_to_sgf(transcript),
             "match": transcript_to_mat(transcript)}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        assert read_match_file(text, name) == transcript
    code, out, _ = run(capsys, "analyze", str(tmp_path / "match.sgf"), "--json", "--level", "advanced")
    assert code == 0 and len(json.loads(out)["decisions"]) > 0
