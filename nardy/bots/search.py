"""Expectimax over the 21 rolls, for any :class:`~nardy.bots.evaluator.Evaluator`.

Plies count rolls looked ahead, as in GNU Backgammon: a play rated at 0-ply
is the evaluator's verdict on the position it leaves; at 1-ply it is the
average, over the opponent's 21 rolls (doubles weigh 1/36, others 2/36), of
the position after the opponent's best reply (chosen at 0-ply); at 2-ply each
of those positions is itself rated at 1-ply, over our 21 rolls; and so on.

Candidate plays are pruned on the way down like gnubg's move filters: the
plays within 0.16 equity of the best at 0-ply (at most 8) are rated at 1-ply,
of those the plays within 0.04 of the best (at most 2) at 2-ply. A search
given a :class:`Deadline` stops when time runs out and keeps the ratings of
the deepest level it completed.

>>> from nardy.rules import Position
>>> from nardy.bots.neural import default_evaluator
>>> position = Position.start("long-traditional")
>>> for dice in [(6, 5), (4, 2), (5, 3), (6, 1)]:
...     position = position.legal_plays(dice)[0].position.turned()
>>> plays = position.legal_plays((5, 2))
>>> choice = choose(default_evaluator("long-traditional"), [p.position for p in plays], plies=1)
>>> len(plays), choice.depth
(8, 1)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

from nardy.bots.evaluator import (
    OUTPUTS,
    Evaluator,
    after_play_probabilities,
    after_play_row_probabilities,
    equity,
    invert,
    terminal_probabilities,
)
from nardy.rules import DICE_ROLLS, Position, Variant
from nardy.rules.position import Row

FloatArray = npt.NDArray[np.float64]

ROLL_WEIGHTS: Final = np.array([(1.0 if high == low else 2.0) / 36.0 for high, low in DICE_ROLLS])
"""The probability of each of :data:`nardy.rules.DICE_ROLLS`."""


@dataclass(frozen=True)
class MoveFilter:
    """Keep at most ``keep`` candidates, and only those within ``within`` equity of the best."""

    keep: int
    within: float


DEFAULT_FILTERS: Final = (MoveFilter(8, 0.16), MoveFilter(2, 0.04), MoveFilter(2, 0.02))
"""The filter applied before searching at 1, 2 and 3 plies."""


RATING_CHUNK: Final = 4096
"""Replies rated in one batch when a search has a deadline (large enough that batching stays efficient)."""


class OutOfTime(Exception):
    """Raised inside a search when its deadline has passed."""


class Deadline:
    """A point in time after which a search gives up its current depth."""

    def __init__(self, seconds: float, *, clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        self._end = clock() + seconds

    def check(self) -> None:
        """Raise :class:`OutOfTime` when the deadline has passed."""
        if self._clock() > self._end:
            raise OutOfTime


def after_values(
    evaluator: Evaluator, positions: Sequence[Position], depth: int, deadline: Deadline | None = None
) -> FloatArray:
    """Probabilities for the player who just moved into each of ``positions``, ``depth`` rolls ahead.

    ``positions`` are seen from that player (``play.position``); the opponent
    is to roll. Shape ``(len(positions), 5)``.
    """
    if depth <= 0 or not positions:
        return after_play_probabilities(evaluator, positions)
    result = np.zeros((len(positions), OUTPUTS))
    live: list[int] = []
    for index, position in enumerate(positions):
        exact = terminal_probabilities(position)
        if exact is not None:
            result[index] = exact
        else:
            live.append(index)
    if not live:
        return result
    variant = positions[0].variant
    replies: list[Row] = []
    spans: list[tuple[int, int]] = []
    for index in live:
        turned = positions[index].turned()
        for roll in DICE_ROLLS:
            if deadline is not None:
                deadline.check()
            reached = turned.legal_rows(roll)
            start = len(replies)
            if reached:
                replies.extend(reached)
            else:
                replies.append(turned.row())  # a pass: the turn comes straight back
            spans.append((start, len(replies)))
    reply_probabilities = _rate_replies(evaluator, variant, replies, deadline)
    scores = equity(reply_probabilities)
    best = [start + int(np.argmax(scores[start:end])) for start, end in spans]
    if depth == 1:
        theirs = reply_probabilities[best]
    else:
        theirs = after_values(evaluator, [Position.from_row(variant, replies[i]) for i in best], depth - 1, deadline)
    mine = invert(theirs).reshape(len(live), len(DICE_ROLLS), OUTPUTS)
    result[live] = np.einsum("r,nrk->nk", ROLL_WEIGHTS, mine)
    return result


def _rate_replies(evaluator: Evaluator, variant: Variant, replies: list[Row], deadline: Deadline | None) -> FloatArray:
    """The replies' probabilities, rated in chunks of :data:`RATING_CHUNK` with the deadline checked between them.

    A deep search rates tens of thousands of replies at once; rated in one
    batch, that would overrun a time budget by the batch's whole time.
    """
    if deadline is None or len(replies) <= RATING_CHUNK:
        return after_play_row_probabilities(evaluator, variant, replies)
    parts = []
    for start in range(0, len(replies), RATING_CHUNK):
        deadline.check()
        parts.append(after_play_row_probabilities(evaluator, variant, replies[start:start + RATING_CHUNK]))
    rated: FloatArray = np.concatenate(parts)
    return rated


@dataclass(frozen=True)
class Choice:
    """The outcome of a search: the index of the chosen candidate, the ratings and the depth reached."""

    index: int
    equities: FloatArray
    """Per candidate, its equity at the deepest depth it was rated (noise included); -inf if pruned."""
    depth: int


def choose(
    evaluator: Evaluator,
    positions: Sequence[Position],
    *,
    plies: int = 0,
    noise: FloatArray | None = None,
    filters: Sequence[MoveFilter] = DEFAULT_FILTERS,
    deadline: Deadline | None = None,
) -> Choice:
    """Pick among candidate plays, given as the positions they leave (seen from the mover).

    ``noise`` (one value per candidate) is added to every rating, which is how
    the weaker levels err. At most ``len(filters)`` plies are searched.
    """
    if not positions:
        raise ValueError("choose needs at least one candidate")
    extra = np.zeros(len(positions)) if noise is None else noise
    values = equity(after_play_probabilities(evaluator, positions)) + extra
    candidates = np.arange(len(positions))
    depth_done = 0
    for depth in range(1, min(plies, len(filters)) + 1):
        move_filter = filters[depth - 1]
        ordered = candidates[np.argsort(-values[candidates], kind="stable")]
        best = values[ordered[0]]
        kept = np.array([i for i in ordered[: move_filter.keep] if values[i] >= best - move_filter.within])
        if len(kept) <= 1:
            candidates = kept
            break
        try:
            deeper = equity(after_values(evaluator, [positions[i] for i in kept], depth, deadline)) + extra[kept]
        except OutOfTime:
            break
        values = np.full(len(positions), -np.inf)
        values[kept] = deeper
        candidates = kept
        depth_done = depth
    index = int(candidates[np.argmax(values[candidates])])
    return Choice(index, values, depth_done)
