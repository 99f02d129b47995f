"""What any evaluator offers the search and the cube code: outcome probabilities for the side to move.

An evaluator answers, for each position, five cumulative probabilities for
the side to move (columns :data:`WIN` .. :data:`LOSE_TRIPLE`):

``[P(win), P(win double), P(win triple), P(lose double), P(lose triple)]``

"double" is a gammon or mars, "triple" a backgammon or koks (long nardy has
no triple: its triple columns stay 0). Win double is included in win, triple
in double; ``P(lose) = 1 - P(win)``.

To rate a play, evaluate ``play.position.turned()`` (the opponent to move)
and :func:`invert` the answer; :func:`after_play_probabilities` does exactly
that, in one batch for all candidate plays of a roll.

>>> import numpy as np
>>> float(equity(np.array([[0.5, 0.1, 0.0, 0.1, 0.0]]))[0])
0.0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol

import numpy as np
import numpy.typing as npt

from nardy.rules import Position, Variant
from nardy.rules.position import Row
from nardy.rules.variant import EarlyEnd

FloatArray = npt.NDArray[np.float64]

WIN: Final = 0
WIN_DOUBLE: Final = 1
WIN_TRIPLE: Final = 2
LOSE_DOUBLE: Final = 3
LOSE_TRIPLE: Final = 4
OUTPUTS: Final = 5

_INVERSE: Final = np.array([0, 3, 4, 1, 2])


class Evaluator(Protocol):
    """Anything that rates positions for the side to move (a network, a heuristic, pubeval)."""

    def probabilities(self, positions: Sequence[Position]) -> FloatArray:
        """Shape ``(len(positions), 5)``, float64: the outcome probabilities for each side to move."""


def invert(probabilities: FloatArray) -> FloatArray:
    """The same outcomes seen by the other side: win and lose parts swapped."""
    swapped = probabilities[..., _INVERSE].copy()
    swapped[..., WIN] = 1.0 - probabilities[..., WIN]
    return swapped


def equity(probabilities: FloatArray, *, triple_value: float = 3.0) -> FloatArray:
    """Cubeless money equity per row: single 1, double 2, triple ``triple_value`` points.

    ``p_win - p_lose + p_wd - p_ld + (triple_value - 2) * (p_wt - p_lt)``.
    """
    p = probabilities
    result: FloatArray = (
        2.0 * p[..., WIN] - 1.0
        + p[..., WIN_DOUBLE] - p[..., LOSE_DOUBLE]
        + (triple_value - 2.0) * (p[..., WIN_TRIPLE] - p[..., LOSE_TRIPLE])
    )
    return result


def outcome(level: int, *, won: bool) -> FloatArray:
    """The probabilities of a decided game: won or lost single (0), double (1) or triple (2)."""
    result = np.zeros(OUTPUTS)
    if won:
        result[WIN] = 1.0
        result[WIN_DOUBLE] = level >= 1
        result[WIN_TRIPLE] = level >= 2
    else:
        result[LOSE_DOUBLE] = level >= 1
        result[LOSE_TRIPLE] = level >= 2
    return result


TIE: Final = np.array([0.5, 0.0, 0.0, 0.0, 0.0])
"""A game ended in a tie (plakoto, both mothers pinned): it starts again, which is worth nothing to either
side (cubeless, the two sides alike); the gammon chances of the new game are not counted."""


def play_ending(position: Position) -> EarlyEnd | None:
    """How the play that left ``position`` (seen from its mover) ended the game, by the rules: the mover's
    win kind (all borne off, or an early end such as plakoto's mother rule), ``"tie"``, or ``None``."""
    if position.winner_is_mover():
        return position.win_kind()
    return position.variant.early_end(position)


def terminal_probabilities(position: Position) -> FloatArray | None:
    """The exact outcome for the side to move when the game is over, else ``None``.

    Either side may have ended it: all its checkers borne off, or a play of the rules' early end (plakoto's
    mother rule) judged from the side that made it; a tie is :data:`TIE`.
    """
    variant = position.variant
    if position.is_game_over():
        kind = position.win_kind()
        return outcome(variant.kinds.index(kind), won=position.winner_is_mover())
    for ending, won in ((variant.early_end(position), True), (variant.early_end(position.turned()), False)):
        if ending == "tie":
            return TIE.copy()
        if ending is not None:
            return outcome(variant.kinds.index(ending), won=won)
    return None


def after_play_probabilities(evaluator: Evaluator, positions: Sequence[Position]) -> FloatArray:
    """Probabilities for the player who just moved, of positions still seen from that player.

    ``positions`` are ``play.position`` values. Evaluators that can do this
    without building turned positions (see :class:`nardy.bots.neural.NeuralEvaluator`)
    offer ``probabilities_after``; any other is asked about the turned positions.
    """
    fast = getattr(evaluator, "probabilities_after", None)
    if fast is not None:
        answer: FloatArray = fast(positions)
        return answer
    return invert(evaluator.probabilities([p.turned() for p in positions]))


def after_play_row_probabilities(evaluator: Evaluator, variant: Variant, rows: Sequence[Row]) -> FloatArray:
    """:func:`after_play_probabilities` of positions given as rows (:meth:`Position.legal_rows`).

    Evaluators that can rate rows without making positions (see
    :class:`nardy.bots.neural.NeuralEvaluator`) offer ``probabilities_after_rows``.
    """
    fast = getattr(evaluator, "probabilities_after_rows", None)
    if fast is not None:
        answer: FloatArray = fast(variant, rows)
        return answer
    return after_play_probabilities(evaluator, [Position.from_row(variant, row) for row in rows])
