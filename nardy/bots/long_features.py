"""Hand-made inputs of a long-nardy position: what a strong player looks at, per side, as numbers in [0, 1].

The truncated unary point counts (:func:`nardy.bots.encoding._encode_long`)
say where every checker is; a network has to learn from them alone what a
player sees at a glance: a prime and who is stuck behind it, how many rolls
get the last checker out, whether the head is still loaded, how much time is
left before a block must break, and whether the game is a race. This module
computes those quantities for a batch of boards with numpy, the ones that
take more than a sum each in a function of its own, so that they can be
tested one by one on built positions.

Each side is a :class:`Side`: its checker counts ``(n, 24)`` in its own
numbering (index 0 = its point 1, index 23 = its head), with the bit masks
and sums the features share, computed once. One side's index ``i`` is the
other's ``(i + 12) % 24`` (:data:`ROTATION`). In long nardy any opposing
checker closes a point (no hitting), so a point the other side holds is
closed to a side.

:func:`side_features` gathers the :data:`SIDE_FEATURES` columns of one side;
the encoder (``LONG_FEATURES`` in :mod:`nardy.bots.encoding`) places them for
both sides after the 202 inputs of the long family, so a network of that
family extends the shipped one.

>>> import numpy as np
>>> start = np.zeros((1, 24), dtype=np.int64); start[0, 23] = 15
>>> escape_rolls(Side(start), Side(start)).tolist()  # 12 pips ahead, the opponent's head: only 5-5 jumps past it
[1]
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from nardy.rules import DICE_ROLLS, MAX_CHECKERS, NUM_POINTS

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]

HOME: Final = 6
WINDOW: Final = 12
"""Points ahead of a checker that :func:`escape_rolls` looks at: the farthest one roll (not a double) reaches."""
PRIME: Final = 3
"""A block this long or longer is one that timing (``spare_pips``, :func:`side_features`) is counted against."""

SIDE_FEATURES: Final = (
    "block_front",
    "trapped",
    "escapes",
    "rear",
    "unpassed",
    "home_made",
    "home_gaps",
    "spare_pips",
    "race_lead",
    "crossovers",
    "deep",
    "stacked",
    "in_contact",
    "contact",
)
"""The columns of :func:`side_features`, in order (its docstring says what each measures)."""
CONTACT_COLUMN: Final = SIDE_FEATURES.index("contact")

STACKED_ROWS: Final = 256
"""Batches up to this many rows compute both sides as one stacked batch (a 0-ply decision, a training step:
numpy's per-call cost dominates there, and this halves the calls); larger ones (a search's thousands of
replies) side by side, where copying the stack would cost more (measured: 200 against 300 µs for 20 rows, 2.8
against 1.3 µs a row for 4,096)."""
ROTATION: Final = NUM_POINTS // 2
"""One side's point index ``i`` is the other side's ``(i + 12) % 24`` (:class:`~nardy.rules.variant.LongTopology`)."""
_FULL: Final = (1 << NUM_POINTS) - 1
_BITS: Final = (np.int64(1) << np.arange(NUM_POINTS, dtype=np.int64)).astype(np.float64)
_INDEX: Final = np.arange(NUM_POINTS, dtype=np.int64)
_LINEAR: Final = np.stack(
    [_INDEX + 1, _INDEX, _INDEX // HOME, _INDEX < 3, _INDEX >= WINDOW], axis=1
).astype(np.float64)
"""Per point: its pips, the moves down to point 1, the quarters still to cross, deep (1..3), not past the
opponent's head (13..24); one matrix product gives a side's sums of all five."""
PIPS, MOVES, CROSSOVERS, DEEP, UNPASSED = range(5)


def _escape_table() -> IntArray:
    """``table[mask]``: of the 36 rolls, how many carry a checker past every closed point among the 12 ahead.

    Bit ``d - 1`` of ``mask`` is the point ``d`` pips ahead, closed. A roll carries the checker to a distance
    when every point it lands on is open: each die alone, their sum through either die's point, a double's
    1 to 4 steps in a row. It escapes when it reaches past the farthest closed point of the window; with
    nothing closed every roll does.
    """
    masks = np.arange(1 << WINDOW, dtype=np.int64)

    def open_at(distance: int) -> BoolArray:
        if distance > WINDOW:
            return np.ones(len(masks), dtype=bool)
        is_open: BoolArray = (masks >> (distance - 1)) & 1 == 0
        return is_open

    farthest = np.zeros(len(masks), dtype=np.int64)
    for bit in range(WINDOW):
        farthest = np.where((masks >> bit) & 1 == 1, bit + 1, farthest)
    table = np.zeros(len(masks), dtype=np.int64)
    for high, low in DICE_ROLLS:
        reach = np.zeros(len(masks), dtype=np.int64)
        if high == low:
            going = np.ones(len(masks), dtype=bool)
            for step in range(1, 5):
                going &= open_at(step * high)
                reach = np.where(going, step * high, reach)
        else:
            first, second = open_at(low), open_at(high)
            reach = np.where(first, low, reach)
            reach = np.where(second, high, reach)
            reach = np.where((first | second) & open_at(high + low), high + low, reach)
        table += (reach > farthest) * (1 if high == low else 2)
    return table


def _home_gap_table() -> IntArray:
    """``table[mask]``: the empty points below the highest held one, of a 6-bit mask of held home points."""
    table = np.zeros(1 << HOME, dtype=np.int64)
    for mask in range(1, 1 << HOME):
        top = mask.bit_length() - 1
        table[mask] = sum(1 for bit in range(top) if not mask >> bit & 1)
    return table


ESCAPES: Final = _escape_table()
""":func:`_escape_table`, built once at import (4,096 window masks)."""
HOME_GAPS: Final = _home_gap_table()
POPCOUNT: Final = np.array([bin(mask).count("1") for mask in range(1 << HOME)], dtype=np.int64)


class Side:
    """One side's checkers, in its own numbering, with the sums and bit masks every feature reads."""

    def __init__(self, own: IntArray) -> None:
        self.own = own
        held = (own > 0).astype(np.float64)
        self.held: IntArray = (held @ _BITS).astype(np.int64)
        """Bit ``i``: the side has a checker on index ``i``."""
        self.held_reversed: IntArray = (held @ _BITS[::-1]).astype(np.int64)
        """Bit ``k``: the side has a checker on index ``23 - k``."""
        self.sums: FloatArray = own.astype(np.float64) @ _LINEAR
        """Per row the :data:`_LINEAR` sums (:data:`PIPS`, :data:`MOVES`, ...)."""
        self.prefix: IntArray = np.cumsum(own, axis=1)
        """``prefix[:, i]``: checkers on indices 0 .. i."""

    def halves_swapped(self) -> Side:
        """The same rows with the first and second halves exchanged: for a :class:`Side` of both sides'
        boards stacked (the movers', then the opponents'), the side each row faces."""
        half = len(self.own) // 2
        swapped = Side.__new__(Side)
        for name in ("own", "held", "held_reversed", "sums", "prefix"):
            value = getattr(self, name)
            setattr(swapped, name, np.concatenate([value[half:], value[:half]]))
        return swapped

    @property
    def total(self) -> IntArray:
        """Checkers on the board."""
        result: IntArray = self.prefix[:, -1]
        return result

    def held_by_other_numbering(self) -> IntArray:
        """:attr:`held` in the other side's numbering (bit ``j``: the other side's index ``j`` is ours)."""
        result: IntArray = ((self.held >> ROTATION) | (self.held << ROTATION)) & _FULL
        return result

    def behind(self, index: IntArray) -> IntArray:
        """Checkers on indices above ``index`` (all of them for -1, none for 23)."""
        at = np.take_along_axis(self.prefix, np.clip(index, 0, NUM_POINTS - 1)[:, None], axis=1)[:, 0]
        result: IntArray = self.total - np.where(index < 0, 0, at)
        return result


def lowest_bit(bits: IntArray) -> IntArray:
    """The index of each mask's lowest set bit, -1 for an empty mask."""
    result: IntArray = np.frexp((bits & -bits).astype(np.float64))[1] - 1
    return result


def highest_bit(bits: IntArray) -> IntArray:
    """The index of each mask's highest set bit, -1 for an empty mask."""
    result: IntArray = np.frexp(bits.astype(np.float64))[1] - 1
    return result


def rear_index(side: Side) -> IntArray:
    """The index of the side's rearmost checker on the board (the highest point it holds), -1 when none is."""
    return highest_bit(side.held)


def escape_rolls(side: Side, other: Side) -> IntArray:
    """How many of the 36 rolls carry the side's rearmost checker past the closed points among the 12 ahead of
    it (:data:`ESCAPES`): 36 when none is closed there or no checker is left on the board, 0 behind a prime of
    six. The checkers the other side's blocks trap, and the rolls that free them."""
    rear = rear_index(side)
    # bit k: the side's index 23 - k is closed, the other side's (11 - k) % 24
    turned = other.held_reversed
    reversed_closed = ((turned >> ROTATION) | (turned << ROTATION)) & _FULL
    window = (reversed_closed >> np.clip(NUM_POINTS - rear, 0, 62)) & ((1 << WINDOW) - 1)
    result: IntArray = np.where(rear >= 0, ESCAPES[window], 36)
    return result


def longest_block(held: IntArray) -> tuple[IntArray, IntArray]:
    """The longest run of held points per row and the index of its lowest point (-1 with none held); of several
    runs of that length, the lowest one. ``held`` is a bit mask in the numbering of the side the run blocks."""
    bits = held.copy()
    length = np.zeros(held.shape[0], dtype=np.int64)
    starts = np.zeros(held.shape[0], dtype=np.int64)
    while bits.any():
        nonzero = bits != 0
        length += nonzero
        starts = np.where(nonzero, bits, starts)  # after k steps, bit i: points i .. i + k all held
        bits &= bits >> 1
    return length, lowest_bit(starts)


def kept_moves(length: IntArray, start: IntArray) -> IntArray:
    """The moves to point 1 of one checker on each point of a block, given in the blocked side's numbering
    (``start``, ``length``), counted in the blocking side's numbering (the points are ``(j + 12) % 24``)."""
    end = start + length  # exclusive
    rotated = (start + end - 1 + 2 * ROTATION) * length // 2  # sum of j + 12 over the run
    wrapped = np.maximum(end - np.maximum(start, NUM_POINTS - ROTATION), 0)  # j + 12 >= 24 there
    result: IntArray = np.where(length > 0, rotated - NUM_POINTS * wrapped, 0)
    return result


def checkers_in_contact(side: Side, other: Side) -> IntArray:
    """The side's checkers with an opposing checker still ahead of them on its route (points they must pass)."""
    first = lowest_bit(other.held_by_other_numbering())
    result: IntArray = np.where(first >= 0, side.behind(first), 0)
    return result


def side_features(
    side: Side, other: Side, contact: BoolArray, engaged: IntArray, out: FloatArray | None = None
) -> FloatArray:
    """The :data:`SIDE_FEATURES` of one side, each scaled into [0, 1] (``race_lead`` into [-1, 1]), written
    into ``out`` ``(n, 14)`` when given; ``engaged`` is the side's :func:`checkers_in_contact`.

    * ``block_front``: the side's longest block, counted along the opponent's route, where it begins
      ((lowest index + 1) / 24 in the opponent's numbering; 0 with no checker on the board);
    * ``trapped``: the opponent's checkers behind that block (they still have to pass it) / 15;
    * ``escapes``: :func:`escape_rolls` of the side's rearmost checker / 36;
    * ``rear``: the rearmost checker's point / 24 (how far the last one has to go);
    * ``unpassed``: checkers on points 13..24, not yet past the opponent's head / 15 (the head and the moves
      the start still owes);
    * ``home_made``: home points (1..6) held / 6; ``home_gaps``: empty home points below the highest held
      one / 5 (holes a bear-off wastes pips on);
    * ``spare_pips``: timing, the moves the side can play before it must break its longest block (when it is
      at least :data:`PRIME` long) or bear off, every checker going down to point 1 but one kept on each point
      of the block / 360;
    * ``race_lead``: (opponent's pips - own pips) / both pips, the lead in proportion to the race's length;
    * ``crossovers``: quarter boundaries still to cross to reach home / 45; ``deep``: checkers on points
      1..3 / 15; ``stacked``: home checkers beyond the third on a point / 12 (what a bear-off wastes);
    * ``in_contact``: :func:`checkers_in_contact` / 15; ``contact``: 1 when either side has a checker with an
      opposing one ahead (the same for both sides), 0 in a race.
    """
    length, start = longest_block(side.held_by_other_numbering())
    trapped = np.where(length > 0, other.behind(start + length - 1), 0)
    kept = kept_moves(np.where(length >= PRIME, length, 0), start)
    own_pips, their_pips = side.sums[:, PIPS], other.sums[:, PIPS]
    home = side.held & ((1 << HOME) - 1)
    if out is None:
        out = np.empty((side.own.shape[0], len(SIDE_FEATURES)))
    out[:, 0] = (start + 1) / NUM_POINTS
    out[:, 1] = trapped / MAX_CHECKERS
    out[:, 2] = escape_rolls(side, other) / 36.0
    out[:, 3] = (rear_index(side) + 1) / NUM_POINTS
    out[:, 4] = side.sums[:, UNPASSED] / MAX_CHECKERS
    out[:, 5] = POPCOUNT[home] / HOME
    out[:, 6] = HOME_GAPS[home] / (HOME - 1)
    out[:, 7] = (side.sums[:, MOVES] - kept) / 360.0
    out[:, 8] = (their_pips - own_pips) / np.maximum(own_pips + their_pips, 1.0)
    out[:, 9] = side.sums[:, CROSSOVERS] / 45.0
    out[:, 10] = side.sums[:, DEEP] / MAX_CHECKERS
    out[:, 11] = np.maximum(side.own[:, :HOME] - 3, 0).sum(axis=1) / 12.0
    out[:, 12] = engaged / MAX_CHECKERS
    out[:, 13] = contact
    return out


def long_features(mine: IntArray, theirs: IntArray, out: FloatArray | None = None) -> FloatArray:
    """Both sides' :func:`side_features`, the mover's first: ``(n, 2 * len(SIDE_FEATURES))`` (into ``out``
    when given).

    ``mine`` and ``theirs`` are the mover's and the opponent's checker counts, each in its own numbering.
    """
    rows, width = mine.shape[0], len(SIDE_FEATURES)
    if out is None:
        out = np.empty((rows, 2 * width))
    if rows <= STACKED_ROWS:
        # both sides in one batch (the movers' rows, then the opponents'): half the numpy calls of two
        sides = Side(np.concatenate([mine, theirs]))
        facing = sides.halves_swapped()
        engaged = checkers_in_contact(sides, facing)
        contact = (engaged[:rows] > 0) | (engaged[rows:] > 0)  # either side has a checker with one ahead
        both = side_features(sides, facing, np.concatenate([contact, contact]), engaged)
        out[:, :width] = both[:rows]
        out[:, width:] = both[rows:]
        return out
    mover, opponent = Side(mine), Side(theirs)
    ours, theirs_engaged = checkers_in_contact(mover, opponent), checkers_in_contact(opponent, mover)
    contact = (ours > 0) | (theirs_engaged > 0)
    side_features(mover, opponent, contact, ours, out[:, :width])
    side_features(opponent, mover, contact, theirs_engaged, out[:, width:])
    return out
