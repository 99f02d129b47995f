"""An evaluator that answers bear-off races from the database and asks another evaluator the rest.

Once both sides have every checker home in long nardy there is no contact,
and :meth:`nardy.bots.bearoff.Bearoff.race` gives the outcome probabilities
from the two one-sided roll distributions. :class:`RaceEvaluator` wraps any
:class:`~nardy.bots.evaluator.Evaluator` (normally our network) and replaces
its answer for exactly those positions; everything else is passed through.
Long nardy's bots, hints and analysis all rate with :func:`long_evaluator`
(the shipped network so wrapped; :func:`network_evaluator` picks the
evaluator of any variant our networks play), and rollouts use it so that a
truncated trial that ends in such a race is scored exactly.

>>> from nardy.bots.neural import default_evaluator
>>> from nardy.rules import Position
>>> race = RaceEvaluator(default_evaluator("long-traditional"))
>>> points = [1] + [0] * 11 + [-15] + [0] * 11  # our last checker on point 1, the opponent all home
>>> float(race.probabilities([Position("long-traditional", tuple(points), (0, 0), (14, 0))])[0, 0])
1.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from nardy.bots.bearoff import HOME_POINTS, Bearoff, default_bearoff
from nardy.bots.encoding import IntArray, raw_boards, raw_rows
from nardy.bots.evaluator import (
    Evaluator,
    FloatArray,
    after_play_probabilities,
    after_play_row_probabilities,
    invert,
)
from nardy.bots.neural import default_evaluator
from nardy.rules import MAX_CHECKERS, NUM_POINTS, Position, Variant, find_variant
from nardy.rules.position import Row

_THEIR_HOME: Final = slice(12, 18)
"""Our points 13..18: the opponent's 1..6."""
_OFF: Final = NUM_POINTS + 2


def race_rows(raw: IntArray) -> npt.NDArray[np.bool_]:
    """Which raw boards (side to move first) are races the database answers: both sides all home, neither finished."""
    mine = raw[:, :HOME_POINTS]
    theirs = -raw[:, _THEIR_HOME]
    mine_count, their_count = mine.sum(axis=1), theirs.sum(axis=1)
    mask: npt.NDArray[np.bool_] = (
        (mine >= 0).all(axis=1)
        & (theirs >= 0).all(axis=1)
        & (mine_count + raw[:, _OFF] == MAX_CHECKERS)
        & (their_count + raw[:, _OFF + 1] == MAX_CHECKERS)
        & (mine_count > 0)
        & (their_count > 0)
    )
    return mask


def long_evaluator(variant: str) -> RaceEvaluator:
    """What long nardy is rated with everywhere: the variant's shipped network, and the database in bear-off races."""
    return RaceEvaluator(default_evaluator(variant))


def network_evaluator(variant: str) -> Evaluator:
    """What a variant our networks play is rated with everywhere (its bots, hints and analysis): on long nardy's
    board :func:`long_evaluator`, elsewhere (plakoto, hypergammon) the shipped network alone, as the database's
    races are long nardy's."""
    if find_variant(variant).board == "long":
        return long_evaluator(variant)
    return default_evaluator(variant)


class RaceEvaluator:
    """``inner``'s probabilities, except the bear-off races, which come from ``database``."""

    def __init__(self, inner: Evaluator, database: Bearoff | None = None) -> None:
        self.inner = inner
        self.database = database if database is not None else default_bearoff()

    def probabilities(self, positions: Sequence[Position]) -> FloatArray:
        """The outcome probabilities for each side to move, shape ``(n, 5)``."""
        result = self.inner.probabilities(positions)
        if positions:
            self._exact(raw_boards(positions), result, after=False)
        return result

    def probabilities_after(self, positions: Sequence[Position]) -> FloatArray:
        """For ``play.position`` values: the probabilities of the player who just moved."""
        result = after_play_probabilities(self.inner, positions)
        if positions:
            self._exact(raw_boards(positions), result, after=True)
        return result

    def probabilities_after_rows(self, variant: Variant, rows: Sequence[Row]) -> FloatArray:
        """:meth:`probabilities_after` of positions given as rows (their raw boards made once, for both answers)."""
        if not rows:
            return after_play_row_probabilities(self.inner, variant, rows)
        raw = raw_rows(rows)
        rate_raw = getattr(self.inner, "probabilities_after_raw", None)
        if rate_raw is not None:
            result: FloatArray = rate_raw(variant, raw, rows)
        else:
            result = after_play_row_probabilities(self.inner, variant, rows)
        self._exact(raw, result, after=True)
        return result

    def _exact(self, raw: IntArray, result: FloatArray, *, after: bool) -> None:
        """Overwrite ``result``'s race rows; ``after``: the opponent of the row's first side rolls next."""
        rows = np.flatnonzero(race_rows(raw))
        if not len(rows):
            return
        mine, theirs = raw[rows, :HOME_POINTS], -raw[rows][:, _THEIR_HOME]
        if after:
            result[rows] = invert(self.database.races(theirs, mine))
        else:
            result[rows] = self.database.races(mine, theirs)
