"""Hand-made inputs of the short family: what a raw board encodes only through many hidden units.

A network fed the truncated-unary board alone has to learn from scratch that
a blot six pips in front of an enemy checker is in danger, or that a back
checker behind a five-point prime is trapped. GNU Backgammon's networks get
such quantities as inputs (its "shots", "escapes" and "containment"
features); these are our own small set, computed for a whole batch of raw
boards with bit operations, one bit per point:

- ``shots``: the share of the 36 rolls with which the other side can hit at
  least one of this side's blots, moving through open points (checkers on
  the bar enter first);
- ``escape``: the share of rolls with which this side's rearmost checker can
  move the whole roll (both dice, or four times a double), every landing
  point open: a prime in front of it leaves few;
- ``prime``: this side's longest run of made points, over 6;
- ``dance``: with checkers on the bar, the chance of not entering at all
  (made points in the other side's home board, squared, over 36);
- ``contact``: 1 while the two sides can still hit each other.

Each side's values are from its own point of view, so the two halves of an
encoding swap when the board is turned over, as the rest of the encoding does.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

COUNT: Final = 5
"""Features per side."""

_ROLLS: Final = [(a, b) for a in range(1, 7) for b in range(a, 7)]
_MIXED: Final = [(a, b) for a, b in _ROLLS if a != b]
_DIE_A: Final = np.array([a for a, _ in _MIXED], dtype=np.int64)
_DIE_B: Final = np.array([b for _, b in _MIXED], dtype=np.int64)
_DOUBLE: Final = np.arange(1, 7, dtype=np.int64)
_BITS: Final = np.int64(1) << np.arange(1, 25, dtype=np.int64)
"""Bit ``p`` stands for point ``p`` (1..24) in the numbering of the side the features describe."""
_BAR_BIT: Final = np.int64(1) << 25


def short_features(mine: IntArray, theirs: IntArray, bars: IntArray) -> tuple[FloatArray, FloatArray]:
    """The ``(n, COUNT)`` features of the side to move and of its opponent.

    ``mine`` and ``theirs`` are the ``(n, 24)`` checker counts of each side in
    its own numbering (index 0 = its point 1); ``bars`` the ``(n, 2)`` bar
    counts (side to move first). In the short family the other side's point
    ``p`` is our point ``25 - p``, so a side's view of the other is the
    reversed row.
    """
    both = _side(
        np.vstack((mine, theirs)),
        np.vstack((theirs[:, ::-1], mine[:, ::-1])),
        np.concatenate((bars[:, 0], bars[:, 1])),
        np.concatenate((bars[:, 1], bars[:, 0])),
    )
    rows = mine.shape[0]
    return both[:rows], both[rows:]


def _mask(held: npt.NDArray[np.bool_]) -> IntArray:
    """Bit masks of a ``(n, 24)`` boolean array of points."""
    masks: IntArray = held.astype(np.int64) @ _BITS
    return masks


def _side(counts: IntArray, facing: IntArray, bar: IntArray, facing_bar: IntArray) -> FloatArray:
    """Features of the side owning ``counts``; ``facing``: the other side's counts in this side's numbering."""
    out = np.zeros((counts.shape[0], COUNT))
    blots = _mask(counts == 1)
    made = _mask(counts >= 2)
    blocked = _mask(facing >= 2)
    # The other side moves up our numbering, entering from its bar (our point 0).
    out[:, 0] = _rolls_hitting(_mask(facing > 0), facing_bar, ~made, blots) / 36.0
    occupied = _mask(counts > 0) | np.where(bar > 0, _BAR_BIT, np.int64(0))
    rearmost_point = _highest_bit(occupied)
    rearmost = np.where(occupied > 0, np.int64(1) << rearmost_point, np.int64(0))
    full_roll = _rolls_moving_whole(rearmost, ~blocked)
    contact = rearmost_point > np.where(facing_bar > 0, 0, _lowest_point(facing))
    out[:, 1] = np.where(contact, full_roll / 36.0, 1.0)
    out[:, 2] = longest_run(counts >= 2) / 6.0
    home_blocks = (facing[:, 18:] >= 2).sum(axis=1)
    out[:, 3] = np.where(bar > 0, (home_blocks / 6.0) ** 2, 0.0)
    out[:, 4] = contact
    return out


def longest_run(held: npt.NDArray[np.bool_]) -> IntArray:
    """The longest run of consecutive ``True`` columns per row (a batch of 24-column masks)."""
    bits = held.astype(np.int64) @ (np.int64(1) << np.arange(held.shape[1], dtype=np.int64))
    run = np.zeros(held.shape[0], dtype=np.int64)
    while bits.any():
        run += bits != 0
        bits &= bits >> 1
    return run


def _highest_bit(masks: IntArray) -> IntArray:
    """The highest set bit of each mask (0 when none)."""
    result = np.zeros(masks.shape, dtype=np.int64)
    positive = masks > 0
    result[positive] = np.floor(np.log2(masks[positive].astype(np.float64))).astype(np.int64)
    return result


def _lowest_point(counts: IntArray) -> IntArray:
    """The lowest point (1..24) holding a checker; 25 when none."""
    present = counts > 0
    return np.where(present.any(axis=1), present.argmax(axis=1) + 1, 25)


def _rolls_hitting(board: IntArray, bar: IntArray, open_points: IntArray, targets: IntArray) -> IntArray:
    """How many of the 36 rolls let a side hit one of ``targets``, moving up the numbering through ``open_points``.

    ``board``: the masks of its checkers on points; ``bar``: how many it has
    on the bar (our point 0), which enter first: with one there, the other
    die (or the rest of a double) may then hit with any checker; with more,
    fewer or no moves are left for the rest.
    """
    src, free, hit, waiting = board[:, None], open_points[:, None], targets[:, None], bar[:, None]
    entry_a, entry_b = np.int64(1) << _DIE_A, np.int64(1) << _DIE_B
    from_a, from_b = src << _DIE_A, src << _DIE_B
    free_board = ((from_a | from_b) & hit) | (((from_a & free) << _DIE_B) & hit) | (((from_b & free) << _DIE_A) & hit)
    one_waiting = (((entry_a & free) != 0) & (((entry_a | ((src | entry_a) << _DIE_B)) & hit) != 0)) | (
        ((entry_b & free) != 0) & (((entry_b | ((src | entry_b) << _DIE_A)) & hit) != 0)
    )
    more_waiting = ((entry_a | entry_b) & hit) != 0
    mixed = np.where(waiting == 0, free_board != 0, np.where(waiting == 1, one_waiting, more_waiting))

    entry = np.int64(1) << _DOUBLE
    entered = (waiting == 0) | ((entry & free) != 0)
    steps_left = np.where(waiting == 0, 4, 4 - waiting)
    step = np.where(waiting == 0, src, src | entry)
    reached = np.where(waiting == 0, np.int64(0), entry & hit)
    for count in range(1, 5):
        step = (step if count == 1 else step & free) << _DOUBLE
        reached |= np.where(count <= steps_left, step & hit, np.int64(0))
    doubles = entered & (reached != 0)
    result: IntArray = mixed.sum(axis=1) * 2 + doubles.sum(axis=1)
    return result


def _rolls_moving_whole(sources: IntArray, open_points: IntArray) -> IntArray:
    """How many of the 36 rolls move one checker from ``sources`` by the whole roll, down the numbering."""
    src = sources[:, None]
    free = open_points[:, None] | 1
    first_a, first_b = (src >> _DIE_A) & free, (src >> _DIE_B) & free
    mixed = ((first_a >> _DIE_B) & free) | ((first_b >> _DIE_A) & free)
    moves = (mixed != 0).sum(axis=1) * 2
    step = src
    for _ in range(4):
        step = (step >> _DOUBLE) & free
    moves += (step != 0).sum(axis=1)
    result: IntArray = moves
    return result
