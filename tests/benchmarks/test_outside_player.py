"""benchmarks.outside_player: a bot in another process, never trusted with legality."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from benchmarks.outside_player import MAX_FAILURES, OutsideBotError, OutsidePlayer, applied, request_for, summary
from benchmarks.strength import make_player
from nardy.rules import Position, find_variant

FAKE = Path(__file__).with_name("fake_outside_bot.py")
START = Position.start("long-traditional")
ONE_OFF_THE_HEAD = Position(find_variant("long-traditional"), (0,) * 11 + (-15,) + (0,) * 6 + (1,) + (0,) * 4 + (14,))
"""Three legal plays of 5-3 (the opening's plays are all one position)."""
DICE = (5, 3)


def fake(mode: str, timeout: float = 10.0) -> OutsidePlayer:
    return OutsidePlayer([sys.executable, str(FAKE), mode], timeout=timeout)


def test_the_request_is_the_movers_board_the_dice_and_every_legal_play() -> None:
    plays = START.legal_plays((6, 6))
    request = request_for(START, (6, 6), plays)
    assert request["variant"] == "long-traditional"
    assert request["points"][23] == 15 and request["points"][11] == -15
    assert request["dice"] == [6, 6] and request["first_roll"] is True
    assert len(request["plays"]) == len(plays)
    first = request["plays"][0]
    assert first["points"] == list(plays[0].position.points)
    assert applied(request["points"], first["steps"]) == first["points"]
    json.dumps(request)


def test_an_index_and_a_play_as_steps_are_both_made() -> None:
    plays = ONE_OFF_THE_HEAD.legal_plays(DICE)
    for mode in ("last", "steps"):
        player = fake(mode)
        assert player.choose_play(ONE_OFF_THE_HEAD, DICE) == plays[-1]
        assert player.outcomes == {"chosen": 1}
        player.close()


def test_a_play_our_rules_refuse_is_never_made_but_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "decisions.jsonl"
    monkeypatch.setenv("NARDY_OUTSIDE_LOG", str(log))
    plays = ONE_OFF_THE_HEAD.legal_plays(DICE)
    player = fake("refused")
    chosen = player.choose_play(ONE_OFF_THE_HEAD, DICE)
    assert chosen in plays
    assert player.outcomes == {"refused": 1}
    out_of_range = fake("out-of-range")
    assert out_of_range.choose_play(ONE_OFF_THE_HEAD, DICE) == plays[0]
    assert out_of_range.outcomes == {"refused": 1}
    player.close()
    out_of_range.close()
    assert summary(log)["refused"] == 2


def test_a_refused_play_falls_back_to_the_nearest_legal_one() -> None:
    plays = ONE_OFF_THE_HEAD.legal_plays(DICE)
    player = fake("refused")
    chosen = player.choose_play(ONE_OFF_THE_HEAD, DICE)  # the fake moves a checker 24 -> 17, by seven
    wanted = applied(ONE_OFF_THE_HEAD.points, [[24, 17, 7]])
    assert wanted is not None
    distances = [sum(abs(a - b) for a, b in zip(play.position.points, wanted)) for play in plays]
    assert chosen == plays[distances.index(min(distances))]
    player.close()


def test_a_process_that_dies_is_a_failure_then_started_again() -> None:
    plays = ONE_OFF_THE_HEAD.legal_plays(DICE)
    player = fake("die-after-one")
    assert player.choose_play(ONE_OFF_THE_HEAD, DICE) == plays[-1]
    assert player.choose_play(ONE_OFF_THE_HEAD, DICE) == plays[0]  # it died: the first legal play, counted
    assert player.outcomes == {"chosen": 1, "failure": 1}
    assert player.choose_play(ONE_OFF_THE_HEAD, DICE) == plays[-1]  # a fresh process answers again
    player.close()


def test_failures_in_a_row_give_the_bot_up() -> None:
    player = fake("garbage")
    for _ in range(MAX_FAILURES - 1):
        assert player.choose_play(ONE_OFF_THE_HEAD, DICE) == ONE_OFF_THE_HEAD.legal_plays(DICE)[0]
    with pytest.raises(OutsideBotError):
        player.choose_play(ONE_OFF_THE_HEAD, DICE)


def test_a_silent_process_times_out_as_a_failure() -> None:
    player = fake("silent", timeout=0.5)
    assert player.choose_play(ONE_OFF_THE_HEAD, DICE) == ONE_OFF_THE_HEAD.legal_plays(DICE)[0]
    assert player.outcomes == {"failure": 1}
    player.close()


def test_a_forced_play_or_a_pass_is_made_without_asking() -> None:
    player = fake("garbage")
    position = Position(find_variant("long-traditional"), (0,) * 11 + (-15,) + (0,) * 11 + (15,))
    assert len(position.legal_plays((6, 6))) == 1
    assert player.choose_play(position, (6, 6)) == position.legal_plays((6, 6))[0]
    assert player.process is None and not player.outcomes


def test_the_strength_benchmark_builds_it_from_a_spec() -> None:
    player = make_player(f"outside:{sys.executable} {FAKE} last", "long-traditional")
    assert isinstance(player, OutsidePlayer)
    assert player.choose_play(ONE_OFF_THE_HEAD, DICE) == ONE_OFF_THE_HEAD.legal_plays(DICE)[-1]
    player.close()
