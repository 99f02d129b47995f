"""Analysis lists no cube decision in a 1-point match, where nobody may double (seed 003, docs/rules.md).

003: «If a player is 1 point away from winning the match, he won't be given
an option to offer a double». Analysis asks the rules whether the roller
could double; in a 1-point match neither player can, so it judges no
"no double" either.
"""

from __future__ import annotations

from nardy.bots.analysis import analyse
from nardy.notation.transcript import transcript_from_record
from nardy.rules import GameOptions
from tests.match_records import random_record

CUBE = GameOptions(cube=True)


def cube_decisions(length: int, seed: int) -> list[str]:
    """What was played at each cube decision of the analysis of a random backgammon match with the cube."""
    record, _ = random_record("backgammon", seed, length=length, options=CUBE, money_games=1)
    analysis = analyse(transcript_from_record(record), level="advanced")
    assert any(decision.kind == "move" for decision in analysis.decisions())
    return [decision.played for decision in analysis.decisions() if decision.kind != "move"]


def test_a_one_point_match_has_no_cube_decision() -> None:
    assert cube_decisions(1, seed=11) == []


def test_money_play_with_the_cube_has_them() -> None:
    assert "no double" in cube_decisions(0, seed=11)
