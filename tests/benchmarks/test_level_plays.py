"""benchmarks.level_plays: two levels' plays on the same decisions, judged where they differ."""

from __future__ import annotations

import pytest

from benchmarks.level_plays import Choice, Judged, choose, corpus, summarise


def test_the_corpus_is_decisions_with_a_choice_the_same_for_a_seed() -> None:
    decisions = corpus(12, seed=3)
    assert len(decisions) == 12
    assert all(len(position.legal_plays(dice)) > 1 for position, dice in decisions)
    assert decisions == corpus(12, seed=3)
    assert decisions != corpus(12, seed=4)


def test_a_level_against_itself_never_differs() -> None:
    chosen = choose(("advanced", "advanced"), 6, seed=1, indices=range(6))
    assert [c.index for c in chosen] == list(range(6))
    assert all(c.first == c.second for c in chosen)


def choice(index: int) -> Choice:
    return Choice(index, (3, 1), [0] * 26, [0] * 26, [0] * 26, 0.01, 0.1)


def test_the_gain_is_over_every_decision_with_zero_where_the_plays_agree() -> None:
    choices = [choice(i) for i in range(4)]
    judged = [Judged(0, first=0.100, second=0.104, first_error=0.002, second_error=0.002),
              Judged(2, first=0.500, second=0.498, first_error=0.002, second_error=0.002)]
    report = summarise(("expert", "world-class"), "truncated2", choices, judged)
    assert (report.decisions, report.differing, report.second_better, report.first_better) == (4, 2, 1, 1)
    assert report.gain_mp == pytest.approx((4 - 2) / 4)
    assert report.gain_when_differing_mp == pytest.approx(1.0)
    # gains 4, -2, 0, 0 millipoints: sd = sqrt(((3.5)² + (2.5)² + 2 × 0.5²) / 3) = sqrt(6.33)
    assert report.half_width_mp == pytest.approx(1.96 * (19 / 3) ** 0.5 / 2)
    assert report.median_ms == pytest.approx((10.0, 100.0))
