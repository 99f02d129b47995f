"""The one place where positions become arrays: the network's inputs per variant family.

A *family* is a board geometry (:class:`~nardy.rules.variant.Topology`): the
short family (backgammon, dave, Georgian nardy) and the long family (the three
long-nardy regulations). Every encoding is from the side to move's
perspective and describes both sides the same way, each in its own numbering,
so that ``encode([p])`` and ``encode([p.turned()])`` hold the same numbers with
the two halves swapped.

Positions first become *raw boards*: ``(n, 28)`` integer rows of the 24
signed point counts, the two bar counts and the two borne-off counts, exactly
the canonical position. Turning a raw board over and encoding it are numpy
operations on the whole batch, so the candidate plays of a roll are encoded
together.

>>> from nardy.rules import Position
>>> encode([Position.start("backgammon")]).shape
(1, 208)
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

from nardy.bots.features import COUNT as FEATURES
from nardy.bots.features import longest_run, short_features
from nardy.rules import CHECKERS, NUM_POINTS, Position, Variant
from nardy.rules.position import ROW_LENGTH, Row
from nardy.rules.variant import LongTopology, ShortTopology, Topology

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
    earlier: dict[int, IntArray] = field(default_factory=dict, repr=False)
    """Earlier encodings of this family by width: where each of their inputs sits in this one
    (a network trained on one of them can be grown into this encoding)."""

    def encode(self, raw: IntArray) -> FloatArray:
        """The network inputs of raw boards, shape ``(n, inputs)``."""
        return self.encoder(self, raw)


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
    return family_of(positions[0].variant).encode(raw_boards(positions))


def family_of(variant: Variant) -> Family:
    """The family whose geometry ``variant`` uses."""
    return _FAMILIES[type(variant.topology)]


def _unit_table(scale: float) -> FloatArray:
    """Row ``n``: the four units of a point holding ``n`` checkers (0..15)."""
    counts = np.arange(CHECKERS + 1)
    return np.stack([counts >= 1, counts >= 2, counts >= 3, np.maximum(counts - 3, 0) / scale], axis=1).astype(float)


_UNIT_TABLES: Final = {scale: _unit_table(scale) for scale in (2.0, 12.0)}


def _units(out: FloatArray, counts: IntArray, scale: float) -> None:
    """Truncated unary per point into ``out`` ``(n, 4 * points)``: (>=1, >=2, >=3, (n-3)/scale) point by point."""
    # take (counts are 0..15) into a fresh array, then one 2-D copy: several times quicker than
    # indexing the table straight into the strided ``out`` (the search encodes ~10,000 rows a call)
    units = np.take(_UNIT_TABLES[scale], counts, axis=0, mode="clip")
    out[...] = units.reshape(out.shape)


def _sides(family: Family, raw: IntArray) -> tuple[IntArray, IntArray]:
    """Checker counts per point of each side, each in its own numbering (index 0 = its point 1)."""
    points = raw[:, :NUM_POINTS]
    mine = np.maximum(points, 0)
    theirs = np.maximum(-points, 0)[:, family.source]
    return mine, theirs


_PIP_WEIGHTS: Final = np.arange(1, NUM_POINTS + 1, dtype=np.int64)
_UNITS: Final = 4 * NUM_POINTS


def _encode_short(family: Family, raw: IntArray) -> FloatArray:
    """Tesauro/gnubg style: per side 24 x 4 units, bar n/2, off n/15, the pip count / 167, then the
    hand-made :mod:`~nardy.bots.features`."""
    mine, theirs = _sides(family, raw)
    out = np.empty((raw.shape[0], family.inputs))
    half = family.inputs // 2
    features = short_features(mine, theirs, raw[:, _BAR : _BAR + 2])
    for counts, index in ((mine, 0), (theirs, 1)):
        side = out[:, index * half : (index + 1) * half]
        bar = raw[:, _BAR + index]
        _units(side[:, :_UNITS], counts, 2.0)
        side[:, _UNITS] = bar / 2.0
        side[:, _UNITS + 1] = raw[:, _OFF + index] / CHECKERS
        side[:, _UNITS + 2] = (counts @ _PIP_WEIGHTS + 25 * bar) / 167.0
        side[:, _UNITS + 3 :] = features[index]
    return out


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
        _units(side[:, :_UNITS], counts, 12.0)
        side[:, _UNITS] = counts[:, NUM_POINTS - 1] / CHECKERS
        side[:, _UNITS + 1] = counts[:, :6].sum(axis=1) / CHECKERS
        side[:, _UNITS + 2] = raw[:, _OFF + index] / CHECKERS
        side[:, _UNITS + 3] = runs[index] / 6.0
        side[:, _UNITS + 4] = (counts @ _PIP_WEIGHTS) / 360.0
    return out


def _source(topology: Topology) -> IntArray:
    source = np.empty(NUM_POINTS, dtype=np.int64)
    for index in range(NUM_POINTS):
        source[topology.opponent_point(index + 1) - 1] = index
    return source


_SHORT_HALF: Final = 4 * NUM_POINTS + 3 + FEATURES
SHORT: Final = Family(
    "short",
    2 * _SHORT_HALF,
    ShortTopology(),
    _encode_short,
    _source(ShortTopology()),
    earlier={198: np.r_[0:99, _SHORT_HALF : _SHORT_HALF + 99]},
)
"""The short family. Until December 2026 it had no hand-made features (198 inputs)."""
LONG: Final = Family("long", 2 * (4 * NUM_POINTS + 5), LongTopology(), _encode_long, _source(LongTopology()))

_FAMILIES: Final[dict[type[Topology], Family]] = {ShortTopology: SHORT, LongTopology: LONG}

FAMILIES: Final[dict[str, Family]] = {family.name: family for family in (SHORT, LONG)}
"""The families by name."""
