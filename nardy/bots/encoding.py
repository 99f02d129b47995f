"""The one place where positions become arrays: the network's inputs per variant family.

A *family* is a board geometry (:class:`~nardy.rules.variant.Topology`). Our
own networks play the long family (the three long-nardy regulations) only:
the short board is bgsage's (:mod:`nardy.bots.sage`). The encoding is from
the side to move's perspective and describes both sides the same way, each
in its own numbering, so that ``encode([p])`` and ``encode([p.turned()])``
hold the same numbers with the two halves swapped.

Positions first become *raw boards*: ``(n, 28)`` integer rows of the 24
signed point counts, the two bar counts and the two borne-off counts, exactly
the canonical position. Turning a raw board over and encoding it are numpy
operations on the whole batch, so the candidate plays of a roll are encoded
together.

>>> from nardy.rules import Position
>>> encode([Position.start("long-bolshie")]).shape
(1, 202)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt

from nardy.rules import MAX_CHECKERS, NUM_POINTS, Position, Variant
from nardy.rules.position import ROW_LENGTH, Row
from nardy.rules.variant import LongTopology, Topology

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

RAW_WIDTH: Final = ROW_LENGTH
"""Columns of a raw board: 24 points, bar (mover, opponent), off (mover, opponent): a position's row."""
_BAR: Final = NUM_POINTS
_OFF: Final = NUM_POINTS + 2


@dataclass(frozen=True)
class Family:
    """One board geometry: its name, its input width and how its boards turn over."""

    name: str
    inputs: int
    topology: Topology = field(repr=False)
    encoder: Callable[[Family, IntArray], FloatArray] = field(repr=False)
    source: IntArray = field(repr=False)
    """``source[j]``: the mover's point index that the opponent calls index ``j``."""

    def encode(self, raw: IntArray) -> FloatArray:
        """The network inputs of raw boards, shape ``(n, inputs)``."""
        return self.encoder(self, raw)

    def __reduce__(self) -> tuple[Callable[[str], Family], tuple[str]]:
        """Pickled by name, so that an evaluator sent to a worker process still knows its family (``is``)."""
        return family_named, (self.name,)


def raw_boards(positions: Sequence[Position]) -> IntArray:
    """The ``(n, 28)`` raw boards of ``positions``, each from its side to move."""
    return raw_rows([p.row() for p in positions])


def raw_rows(rows: Sequence[Row]) -> IntArray:
    """The ``(n, 28)`` raw boards of positions given as :meth:`Position.row` tuples."""
    values = itertools.chain.from_iterable(rows)
    return np.fromiter(values, dtype=np.int64, count=RAW_WIDTH * len(rows)).reshape(-1, RAW_WIDTH)


def turn_raw(raw: IntArray, family: Family) -> IntArray:
    """The raw boards seen by the opponent (like :meth:`Position.turned`, for a batch)."""
    turned = np.empty_like(raw)
    turned[:, :NUM_POINTS] = -raw[:, family.source]
    turned[:, _BAR] = raw[:, _BAR + 1]
    turned[:, _BAR + 1] = raw[:, _BAR]
    turned[:, _OFF] = raw[:, _OFF + 1]
    turned[:, _OFF + 1] = raw[:, _OFF]
    return turned


def encode(positions: Sequence[Position]) -> FloatArray:
    """The network inputs of ``positions`` (all of one family), from each side to move."""
    if not positions:
        raise ValueError("encode needs at least one position")
    return network_family(positions[0].variant).encode(raw_boards(positions))


def network_family(variant: Variant) -> Family:
    """The family whose geometry ``variant`` uses; ValueError for the short board, which bgsage plays."""
    family = FAMILIES.get(variant.board)
    if family is None:
        raise ValueError(f"our networks play long nardy; {variant.name} is played by bgsage (nardy.bots.sage)")
    return family


def _unit_table(scale: float) -> FloatArray:
    """Row ``n``: the four units of a point holding ``n`` checkers (0..15)."""
    counts = np.arange(MAX_CHECKERS + 1)
    return np.stack([counts >= 1, counts >= 2, counts >= 3, np.maximum(counts - 3, 0) / scale], axis=1).astype(float)


_UNIT_TABLE: Final = _unit_table(12.0)


def _units(out: FloatArray, counts: IntArray) -> None:
    """Truncated unary per point into ``out`` ``(n, 4 * points)``: (>=1, >=2, >=3, (n-3)/12) point by point."""
    # take (counts are 0..15) into a fresh array, then one 2-D copy: several times quicker than
    # indexing the table straight into the strided ``out`` (the search encodes ~10,000 rows a call)
    units = np.take(_UNIT_TABLE, counts, axis=0, mode="clip")
    out[...] = units.reshape(out.shape)


def _sides(family: Family, raw: IntArray) -> tuple[IntArray, IntArray]:
    """Checker counts per point of each side, each in its own numbering (index 0 = its point 1)."""
    points = raw[:, :NUM_POINTS]
    mine = np.maximum(points, 0)
    theirs = np.maximum(-points, 0)[:, family.source]
    return mine, theirs


_PIP_WEIGHTS: Final = np.arange(1, NUM_POINTS + 1, dtype=np.int64)
_UNITS: Final = 4 * NUM_POINTS


def _encode_long(family: Family, raw: IntArray) -> FloatArray:
    """Per side: 24 x (1, 2, 3+, (n-3)/12), head, home, off, longest block, pip count.

    A side's block is counted along the route of the side it blocks: the
    mover's held points in the opponent's numbering, the opponent's in ours.
    """
    mine, theirs = _sides(family, raw)
    runs = (longest_run(mine[:, family.source] > 0), longest_run(theirs[:, family.source] > 0))
    out = np.empty((raw.shape[0], family.inputs))
    half = family.inputs // 2
    for counts, index in ((mine, 0), (theirs, 1)):
        side = out[:, index * half : (index + 1) * half]
        _units(side[:, :_UNITS], counts)
        side[:, _UNITS] = counts[:, NUM_POINTS - 1] / MAX_CHECKERS
        side[:, _UNITS + 1] = counts[:, :6].sum(axis=1) / MAX_CHECKERS
        side[:, _UNITS + 2] = raw[:, _OFF + index] / MAX_CHECKERS
        side[:, _UNITS + 3] = runs[index] / 6.0
        side[:, _UNITS + 4] = (counts @ _PIP_WEIGHTS) / 360.0
    return out


def longest_run(held: npt.NDArray[np.bool_]) -> IntArray:
    """The longest run of consecutive ``True`` columns per row (a batch of 24-column masks)."""
    bits = held.astype(np.int64) @ (np.int64(1) << np.arange(held.shape[1], dtype=np.int64))
    run = np.zeros(held.shape[0], dtype=np.int64)
    while bits.any():
        run += bits != 0
        bits &= bits >> 1
    return run


def _source(topology: Topology) -> IntArray:
    source = np.empty(NUM_POINTS, dtype=np.int64)
    for index in range(NUM_POINTS):
        source[topology.opponent_point(index + 1) - 1] = index
    return source


LONG: Final = Family("long", 2 * (4 * NUM_POINTS + 5), LongTopology(), _encode_long, _source(LongTopology()))

FAMILIES: Final[dict[str, Family]] = {family.name: family for family in (LONG,)}
"""The families by name, which is the name of their board (``Variant.board``)."""


def family_named(name: str) -> Family:
    """The family called ``name`` (how a pickled :class:`Family` comes back)."""
    return FAMILIES[name]
