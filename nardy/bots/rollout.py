"""Rollouts of long-nardy positions: play the game out many times and average what happens.

A *trial* starts from a position with its side to roll and plays both sides
with the evaluator at 0-ply (the play whose resulting position it rates best)
or, with ``player_plies``, after a search that many rolls deep
(:func:`nardy.bots.search.choose`: stronger play, at 1 ply a trial twenty
to fifty times dearer), until the game ends (a full rollout) or for ``truncate``
rolls, after which the evaluator rates the position reached (a truncated
rollout). The result is
the mean of the trials' outcome probabilities for the starting side, with
standard errors.

Two variance reductions, both unbiased:

* **Duplicate, stratified dice.** Trial ``t``'s dice depend only on the seed
  and ``t``, so every candidate play of a roll is rolled out on the same dice
  sequences and their differences are much surer than their values. The first
  two rolls of the trials are stratified over the 36 outcomes (any 36
  consecutive trials see each first roll once; the first 1,296 every pair of
  first two rolls once), through two independent random relabellings of the
  outcomes drawn from the seed, so that each trial's two first rolls are
  still independent and uniform.
* **Luck correction** (``variance_reduction``, off by default). Before each roll the
  evaluator rates the best play of all 21 rolls; the *luck* of the roll that
  came is its rating minus the average over the 21, and the trial's result is
  its outcome minus the luck of all its rolls. Each luck term has mean zero
  whatever the evaluator, so the mean is unchanged; only the noise the dice
  add, as far as the evaluator sees it, is taken out. Rating all 21 rolls
  makes each roll about 7 times dearer, and on the one position measured
  that was not repaid in variance (docs/strength.md).

Trials are independent of one another and of how they are split, so a
rollout with several worker processes gives exactly the result of one.

>>> from nardy.bots.neural import default_evaluator
>>> from nardy.rules import Position
>>> position = Position.start("long-traditional")
>>> result = rollout(default_evaluator("long-traditional"), [position], trials=4, truncate=2, seed=1)[0]
>>> result.trials, result.probabilities.shape
(4, (5,))
"""

from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from nardy.bots.evaluator import (
    OUTPUTS,
    Evaluator,
    FloatArray,
    after_play_row_probabilities,
    equity,
    invert,
    terminal_probabilities,
)
from nardy.bots.search import choose
from nardy.rules import DICE_ROLLS, Play, Position
from nardy.rules.position import Row

OUTCOMES: Final = 36
"""Ordered outcomes of two dice, the unit of stratification."""
_ROLL_WEIGHTS: Final = np.array([(1.0 if high == low else 2.0) / OUTCOMES for high, low in DICE_ROLLS])
_ROLL_INDEX: Final = {roll: index for index, roll in enumerate(DICE_ROLLS)}
_MAX_PLIES: Final = 10_000

Progress = Callable[[int, int], None]
"""Called with (trials done, trials in all) as chunks of trials finish."""


@dataclass(frozen=True)
class RolloutResult:
    """The mean of a rollout's trials for the side it was asked about, with standard errors."""

    probabilities: FloatArray
    """The five outcome probabilities (:mod:`nardy.bots.evaluator`)."""
    standard_errors: FloatArray
    """The standard error of each of the five means."""
    equity: float
    equity_error: float
    """The standard error of :attr:`equity`."""
    trials: int

    @classmethod
    def of(cls, outcomes: FloatArray) -> RolloutResult:
        """The summary of ``(trials, 5)`` per-trial outcomes (luck-corrected where the rollout corrects)."""
        count = len(outcomes)
        values = equity(outcomes)
        spread = outcomes.std(axis=0, ddof=1) if count > 1 else np.full(OUTPUTS, np.nan)
        value_spread = float(values.std(ddof=1)) if count > 1 else float("nan")
        return cls(
            probabilities=outcomes.mean(axis=0),
            standard_errors=spread / np.sqrt(count),
            equity=float(values.mean()),
            equity_error=value_spread / float(np.sqrt(count)),
            trials=count,
        )


def trial_dice(seed: int, trial: int) -> Iterator[tuple[int, int]]:
    """The dice of trial ``trial`` of a rollout seeded ``seed``: stratified first two rolls, then random."""
    relabel = np.random.default_rng([seed, 0])
    # two independent relabellings: with one, trials 0..35 would give both players the same roll
    first = int(relabel.permutation(OUTCOMES)[trial % OUTCOMES])
    second = int(relabel.permutation(OUTCOMES)[(trial % OUTCOMES + trial // OUTCOMES) % OUTCOMES])
    for outcome in (first, second):
        yield outcome // 6 + 1, outcome % 6 + 1
    rng = np.random.default_rng([seed, 1, trial])
    while True:
        for outcome in rng.integers(0, OUTCOMES, size=32):
            yield int(outcome) // 6 + 1, int(outcome) % 6 + 1


def _played(evaluator: Evaluator, position: Position, rows: list[Row], plies: int) -> int:
    """The index of the play the trial's player makes among ``rows`` (plays of the side to move): the best at
    0-ply, or after a ``plies``-ply search."""
    if len(rows) == 1:
        return 0
    if plies == 0:
        return int(np.argmax(equity(after_play_row_probabilities(evaluator, position.variant, rows))))
    return choose(evaluator, [Position.from_row(position.variant, row) for row in rows], plies=plies).index


def _rows(position: Position, roll: tuple[int, int]) -> list[Row]:
    """The rows a roll can leave; a roll that cannot be played leaves the position as it is (a pass)."""
    return position.legal_rows(roll) or [position.row()]


def play_trial(
    evaluator: Evaluator,
    start: Position,
    dice: Iterator[tuple[int, int]],
    *,
    truncate: int | None,
    variance_reduction: bool,
    player_plies: int = 0,
) -> FloatArray:
    """One trial from ``start`` (its side to roll): the outcome for that side, less the luck of its rolls.

    The luck is rated at 0-ply whatever ``player_plies``: each term has mean
    zero whoever plays, so the correction stays unbiased.
    """
    over = terminal_probabilities(start)
    if over is not None:
        return over
    position = start
    luck = np.zeros(OUTPUTS)
    ours = True
    for ply in range(_MAX_PLIES):
        if truncate is not None and ply >= truncate:
            value = evaluator.probabilities([position])[0]
            return (value if ours else invert(value)) - luck
        roll = next(dice)
        if variance_reduction:
            spans: list[tuple[int, int]] = []
            rows: list[Row] = []
            for each in DICE_ROLLS:
                reached = _rows(position, each)
                spans.append((len(rows), len(rows) + len(reached)))
                rows.extend(reached)
            probabilities = after_play_row_probabilities(evaluator, position.variant, rows)
            values = equity(probabilities)
            best = [start_ + int(np.argmax(values[start_:end])) for start_, end in spans]
            mean = _ROLL_WEIGHTS @ probabilities[best]
            came_index = _ROLL_INDEX[(max(roll), min(roll))]
            chosen = best[came_index]
            came = probabilities[chosen]
            luck += (came - mean) if ours else (invert(came) - invert(mean))
            if player_plies:
                start_, end = spans[came_index]
                row = rows[start_ + _played(evaluator, position, rows[start_:end], player_plies)]
            else:
                row = rows[chosen]
        else:
            rows = _rows(position, roll)
            row = rows[_played(evaluator, position, rows, player_plies)]
        moved = Position.from_row(position.variant, row)
        won = terminal_probabilities(moved)
        if won is not None:
            return (won if ours else invert(won)) - luck
        position = moved.turned()
        ours = not ours
    raise RuntimeError(f"a rollout trial ran past {_MAX_PLIES} plies")


def _chunk(
    evaluator: Evaluator,
    starts: Sequence[Position],
    seed: int,
    trials: range,
    truncate: int | None,
    variance_reduction: bool,
    player_plies: int,
) -> FloatArray:
    """Outcomes ``(len(starts), len(trials), 5)`` of a range of trials for each start, on shared dice."""
    result = np.empty((len(starts), len(trials), OUTPUTS))
    for column, trial in enumerate(trials):
        for row, start in enumerate(starts):
            result[row, column] = play_trial(
                evaluator, start, trial_dice(seed, trial), truncate=truncate, variance_reduction=variance_reduction,
                player_plies=player_plies,
            )
    return result


def _niced() -> None:
    """Worker processes run at the lowest priority: rollouts are background work."""
    try:
        os.nice(19)
    except OSError:
        return


def rollout_outcomes(
    evaluator: Evaluator,
    starts: Sequence[Position],
    *,
    trials: int = 1296,
    truncate: int | None = None,
    seed: int = 0,
    variance_reduction: bool = False,
    player_plies: int = 0,
    workers: int = 1,
    chunk: int = OUTCOMES,
    progress: Progress | None = None,
) -> FloatArray:
    """Every trial's outcome, shape ``(len(starts), trials, 5)``: trial ``t`` of each start on the same dice.

    ``truncate``: rolls played before the evaluator rates the position
    (``None``: to the end of the game). ``player_plies``: how deep the
    player searches each move (0: the evaluator's choice). ``workers`` > 1 runs chunks of
    ``chunk`` trials in that many processes (the evaluator is pickled to
    them); the result does not depend on it. Paired differences between
    starts (duplicate dice) come from these rows.
    """
    if trials < 1:
        raise ValueError(f"a rollout needs at least one trial, got {trials}")
    if truncate is not None and truncate < 0:
        raise ValueError(f"truncate is 0 or more rolls, got {truncate}")
    if player_plies < 0:
        raise ValueError(f"the player searches 0 or more plies, got {player_plies}")
    if not starts:
        return np.zeros((0, trials, OUTPUTS))
    ranges = [range(first, min(first + chunk, trials)) for first in range(0, trials, chunk)]
    parts: list[FloatArray] = []
    done = 0
    if workers <= 1:
        for span in ranges:
            parts.append(_chunk(evaluator, starts, seed, span, truncate, variance_reduction, player_plies))
            done += len(span)
            if progress is not None:
                progress(done, trials)
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=workers, initializer=_niced) as pool:
            futures = [
                pool.submit(_chunk, evaluator, list(starts), seed, span, truncate, variance_reduction, player_plies)
                for span in ranges
            ]
            for future in concurrent.futures.as_completed(futures):
                done += future.result().shape[1]
                if progress is not None:
                    progress(done, trials)
            parts = [future.result() for future in futures]
    return np.concatenate(parts, axis=1)


def rollout(
    evaluator: Evaluator,
    starts: Sequence[Position],
    *,
    trials: int = 1296,
    truncate: int | None = None,
    seed: int = 0,
    variance_reduction: bool = False,
    player_plies: int = 0,
    workers: int = 1,
    chunk: int = OUTCOMES,
    progress: Progress | None = None,
) -> list[RolloutResult]:
    """Roll out each of ``starts`` (each from its side to roll), all on the same dice: :func:`rollout_outcomes` summed up."""
    outcomes = rollout_outcomes(
        evaluator, starts, trials=trials, truncate=truncate, seed=seed,
        variance_reduction=variance_reduction, player_plies=player_plies, workers=workers, chunk=chunk,
        progress=progress,
    )
    return [RolloutResult.of(rows) for rows in outcomes]


def rollout_plays(
    evaluator: Evaluator,
    plays: Sequence[Play],
    *,
    trials: int = 1296,
    truncate: int | None = None,
    seed: int = 0,
    variance_reduction: bool = False,
    player_plies: int = 0,
    workers: int = 1,
    progress: Progress | None = None,
) -> list[RolloutResult]:
    """Roll out the candidate plays of one roll; each result is for the player who makes the play.

    The opponent rolls first after each play, on the same dice for every
    candidate (duplicate dice), so the candidates' differences carry little
    of the dice's noise.
    """
    turned = [play.position.turned() for play in plays]
    results = rollout(
        evaluator, turned, trials=trials, truncate=truncate, seed=seed,
        variance_reduction=variance_reduction, player_plies=player_plies, workers=workers, progress=progress,
    )
    return [_mover(result) for result in results]


def _mover(result: RolloutResult) -> RolloutResult:
    """A result for the opponent of the side to roll: inverted (the errors swap places, the equity changes sign)."""
    swapped = np.array([result.standard_errors[i] for i in (0, 3, 4, 1, 2)])
    return RolloutResult(invert(result.probabilities), swapped, -result.equity, result.equity_error, result.trials)
