"""benchmarks.strength: the ladder of a variant's levels, each against random, the heuristic and the level below."""

from __future__ import annotations

import pytest

from benchmarks import strength
from benchmarks.strength import ladder_matchups


def pairings(variant: str, level: str) -> list[tuple[str, str]]:
    return [(m.a, m.b) for m in ladder_matchups(variant, level)]


def test_a_level_meets_random_the_heuristic_and_the_level_below() -> None:
    assert pairings("tavla", "world-class") == [
        ("level:world-class", "random"), ("level:world-class", "heuristic"), ("level:world-class", "level:expert"),
    ]
    assert pairings("fevga", "advanced")[-1] == ("level:advanced", "level:intermediate")


def test_beginner_has_random_below_it_so_meets_it_once() -> None:
    assert pairings("portes", "beginner") == [("level:beginner", "random"), ("level:beginner", "heuristic")]


def test_a_level_the_variant_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match="world-class"):
        ladder_matchups("plakoto", "world-class")
    with pytest.raises(ValueError):
        ladder_matchups("tavla", "random")


def test_the_priority_is_lowered_to_the_niceness_not_by_it(monkeypatch: pytest.MonkeyPatch) -> None:
    niceness = [10]  # started under nice -n 10, as the workers inherit it

    def nice(increment: int) -> int:
        niceness[0] += increment
        return niceness[0]

    monkeypatch.setattr("os.nice", nice)
    strength.lower_priority()
    assert niceness == [strength.NICENESS]
    niceness[0] = 0
    strength.lower_priority()
    assert niceness == [strength.NICENESS]


def test_a_progress_line_says_how_far_a_matchup_has_come() -> None:
    matchup = strength.Matchup("fevga", "level:expert", "random", a_name="expert", b_name="random")
    assert strength.progress_line(matchup, 2000, 5.0) == "fevga: expert vs random: 0 of 2000 games in 5 s"
    matchup.pairs = [strength.PairResult(0, 1.0, 2, 0, 3.0), strength.PairResult(1, 2.0, 2, 1, 3.0)]
    assert strength.progress_line(matchup, 2000, 60.0) == (
        "fevga: expert vs random: 4 of 2000 games in 60 s, 15.00 s a game, +1.500 a game"
    )
