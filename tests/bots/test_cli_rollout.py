"""``nardy rollout``: the command-line contract of rollouts."""

from __future__ import annotations

import json

import pytest

from nardy.cli import main
from nardy.notation import position_to_dict
from nardy.rules import Position


def test_rollout_of_each_play_is_reproducible_json_best_first(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["rollout", "--variant", "long-tournament", "--dice", "6", "5", "--trials", "4", "--truncate", "1",
            "--seed", "3", "--json", "start"]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(args) == 0
    assert json.loads(capsys.readouterr().out) == first
    assert first["trials"] == 4 and first["truncate"] == 1 and first["dice"] == [6, 5]
    equities = [row["equity"] for row in first["results"]]
    assert equities == sorted(equities, reverse=True)
    assert [row["play"] for row in first["results"]] == ["24/13"]  # one checker from the head: one play
    assert all(len(row["probabilities"]) == 5 and len(row["standard_errors"]) == 5 for row in first["results"])


def test_rollout_of_plakoto_plays_with_its_network(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["rollout", "--variant", "plakoto", "--dice", "6", "5", "--trials", "2", "--truncate", "2", "--json", "start"]
    assert main(args) == 0
    answer = json.loads(capsys.readouterr().out)
    plays = Position.start("plakoto").legal_plays((6, 5))
    assert len(answer["results"]) == len(plays) and all(row["trials"] == 2 for row in answer["results"])


def test_rollout_with_a_searching_player_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["rollout", "--variant", "long-traditional", "--trials", "2", "--truncate", "1", "--player-plies", "1",
            "--json", "start"]
    assert main(args) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["player_plies"] == 1 and answer["results"][0]["trials"] == 2


def test_rollout_of_a_position_as_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    position = json.dumps(position_to_dict(Position.start("long-bolshie")))
    assert main(["rollout", "--trials", "2", "--truncate", "0", position]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["play", "equity"]
    assert lines[1].startswith("on roll")


@pytest.mark.parametrize(
    "args",
    [
        ["rollout", "--variant", "long-traditional", "--trials", "0", "start"],
        ["rollout", "--variant", "long-traditional", "--truncate", "-1", "start"],
        ["rollout", "--variant", "long-traditional", "--player-plies", "-1", "start"],
        ["rollout", json.dumps(position_to_dict(Position.start("backgammon")))],
    ],
)
def test_rollout_usage_errors(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    assert capsys.readouterr().err.startswith("nardy: ")
