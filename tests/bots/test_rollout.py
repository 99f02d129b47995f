"""Rollouts (nardy.bots.rollout): reproducible, unbiased with and without the luck correction, the same in parallel."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from nardy.bots.bearoff import default_bearoff
from nardy.bots.evaluator import WIN, invert
from nardy.bots.neural import default_evaluator
from nardy.bots.race import RaceEvaluator
from nardy.bots.rollout import OUTCOMES, play_trial, rollout, rollout_plays, trial_dice
from nardy.bots.search import choose
from nardy.rules import Position


def race(mine: tuple[int, ...], theirs: tuple[int, ...], variant: str = "long-traditional") -> Position:
    """A position with both sides all home: ``mine`` on our points 1..6, ``theirs`` on their 1..6 (our 13..18)."""
    points = list(mine) + [0] * 6 + [-count for count in theirs] + [0] * 6
    return Position(variant, tuple(points), (0, 0), (15 - sum(mine), 15 - sum(theirs)))


def midgame(variant: str = "long-traditional") -> Position:
    position = Position.start(variant)
    for dice in [(6, 5), (4, 2), (5, 3), (6, 1), (3, 3), (5, 2)]:
        position = position.legal_plays(dice)[0].position.turned()
    return position


def test_the_first_two_rolls_are_stratified_and_the_rest_reproducible() -> None:
    firsts = [next(trial_dice(7, trial)) for trial in range(OUTCOMES)]
    assert sorted(firsts) == sorted(itertools.product(range(1, 7), repeat=2))
    pairs = {tuple(itertools.islice(trial_dice(7, trial), 2)) for trial in range(OUTCOMES**2)}
    assert len(pairs) == OUTCOMES**2
    assert list(itertools.islice(trial_dice(7, 3), 50)) == list(itertools.islice(trial_dice(7, 3), 50))
    assert list(itertools.islice(trial_dice(7, 3), 50)) != list(itertools.islice(trial_dice(8, 3), 50))


def test_each_trials_first_two_rolls_are_independent_over_seeds() -> None:
    # the stratification must not tie a trial's second roll to its first: over seeds, trial 0's
    # two rolls agree as often as two independent rolls do (1 in 36)
    same = sum(len(set(itertools.islice(trial_dice(seed, 0), 2))) == 1 for seed in range(1800))
    assert 20 <= same <= 90


@pytest.mark.parametrize("variance_reduction", [False, True])
def test_a_seeded_rollout_is_reproducible(variance_reduction: bool) -> None:
    evaluator = default_evaluator("long-tournament")
    position = midgame("long-tournament")
    first = rollout(evaluator, [position], trials=6, truncate=3, seed=5, variance_reduction=variance_reduction)
    again = rollout(evaluator, [position], trials=6, truncate=3, seed=5, variance_reduction=variance_reduction)
    other = rollout(evaluator, [position], trials=6, truncate=3, seed=6, variance_reduction=variance_reduction)
    assert np.array_equal(first[0].probabilities, again[0].probabilities)
    assert not np.array_equal(first[0].probabilities, other[0].probabilities)


def test_workers_and_chunks_do_not_change_the_result() -> None:
    evaluator = default_evaluator("long-bolshie")
    position = midgame("long-bolshie")
    one = rollout(evaluator, [position], trials=8, truncate=2, seed=3)
    chunked = rollout(evaluator, [position], trials=8, truncate=2, seed=3, chunk=3)
    parallel = rollout(evaluator, [position], trials=8, truncate=2, seed=3, chunk=4, workers=2)
    assert np.array_equal(one[0].probabilities, chunked[0].probabilities)
    assert np.array_equal(one[0].probabilities, parallel[0].probabilities)


def test_one_checker_each_matches_the_exact_value_with_and_without_luck_correction() -> None:
    # one checker each on point 6: the roller fails only with the 9 rolls of 36 that move fewer than 6 pips,
    # and the other side then fails with 9 too: P(win) = 1 - 9/36 * 27/36
    exact = 1 - 9 / 36 * 27 / 36
    position = race((0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, 1))
    assert default_bearoff().race((0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, 1))[WIN] == pytest.approx(exact)
    for variance_reduction in (False, True):
        result = rollout(default_evaluator("long-traditional"), [position], trials=432, seed=2,
                         variance_reduction=variance_reduction)[0]
        assert abs(result.probabilities[WIN] - exact) <= 3 * result.standard_errors[WIN] + 1e-9


def test_luck_correction_keeps_the_mean_and_takes_out_the_dice_noise() -> None:
    # a small race, rolled out to the end with the race evaluator: corrected by its exact ratings,
    # every trial says nearly the same thing, and both means estimate the same value
    position = race((1, 1, 0, 1, 0, 0), (0, 2, 0, 0, 1, 0))
    evaluator = RaceEvaluator(default_evaluator("long-traditional"))
    plain = rollout(evaluator, [position], trials=360, seed=4, variance_reduction=False)[0]
    reduced = rollout(evaluator, [position], trials=360, seed=4, variance_reduction=True)[0]
    assert reduced.equity_error < plain.equity_error / 5
    assert abs(plain.equity - reduced.equity) <= 3 * np.hypot(plain.equity_error, reduced.equity_error)
    exact = default_bearoff().race((1, 1, 0, 1, 0, 0), (0, 2, 0, 0, 1, 0))
    assert reduced.probabilities[WIN] == pytest.approx(exact[WIN], abs=0.01)


def test_candidate_plays_are_rated_for_the_mover_and_a_winning_play_exactly() -> None:
    position = race((2, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 15))
    plays = position.legal_plays((2, 1))
    results = rollout_plays(default_evaluator("long-traditional"), plays, trials=4, seed=1)
    assert [r.equity for r in results] == [2.0]  # both checkers off: a mars, nothing left to chance
    middle = midgame()
    plays = middle.legal_plays((4, 1))[:3]
    results = rollout_plays(default_evaluator("long-traditional"), plays, trials=4, truncate=0, seed=1)
    expected = default_evaluator("long-traditional").probabilities_after([p.position for p in plays])
    assert np.allclose([r.probabilities for r in results], expected)


def test_a_searching_player_makes_the_searchs_move() -> None:
    # an early position where the shipped network's 1-ply and 0-ply choose differently with 2-1, the first roll
    # of trial 0 under seed 1
    points = (0, 0, -1, 0, 0, -2, 0, 0, -1, 1, 0, -11, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 13)
    start = Position("long-traditional", points, (0, 0), (0, 0))
    evaluator = default_evaluator("long-traditional")
    plays = start.legal_plays(next(trial_dice(1, 0)))
    searched = choose(evaluator, [play.position for play in plays], plies=1).index
    assert searched != choose(evaluator, [play.position for play in plays], plies=0).index
    expected = invert(evaluator.probabilities([plays[searched].position.turned()])[0])
    trial = play_trial(evaluator, start, trial_dice(1, 0), truncate=1, variance_reduction=False, player_plies=1)
    assert np.allclose(trial, expected)


def test_a_searching_player_is_reproducible_on_any_workers_and_its_luck_correction_unbiased() -> None:
    evaluator = default_evaluator("long-bolshie")
    position = midgame("long-bolshie")
    one = rollout(evaluator, [position], trials=4, truncate=2, seed=3, player_plies=1)
    parallel = rollout(evaluator, [position], trials=4, truncate=2, seed=3, player_plies=1, chunk=2, workers=2)
    assert np.array_equal(one[0].probabilities, parallel[0].probabilities)
    small = race((1, 1, 0, 1, 0, 0), (0, 2, 0, 0, 1, 0))
    rater = RaceEvaluator(default_evaluator("long-traditional"))
    reduced = rollout(rater, [small], trials=144, seed=4, variance_reduction=True, player_plies=1)[0]
    exact = default_bearoff().race((1, 1, 0, 1, 0, 0), (0, 2, 0, 0, 1, 0))
    assert reduced.probabilities[WIN] == pytest.approx(exact[WIN], abs=0.01)
