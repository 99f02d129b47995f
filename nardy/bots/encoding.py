"""The one place where positions become arrays: the network's inputs per variant family.

A *family* is a board geometry (:class:`~nardy.rules.variant.Topology`)
with what its games need said about it. Our own networks play three: the long
family (the three long-nardy regulations, and fevga on their board), the
plakoto family (the short board with pins) and the hypergammon family
(backgammon's movement with three checkers a side). The rest of the short board is
bgsage's (:mod:`nardy.bots.sage`). The encoding is from the side to move's
perspective and describes both sides the same way, each in its own
numbering, so that ``encode([p])`` and ``encode([p.turned()])`` hold the
same numbers with the two halves swapped.

Positions first become *raw boards*: integer rows of the 24 signed point
counts, the two bar counts and the two borne-off counts, exactly the
canonical position's :meth:`~nardy.rules.position.Position.row` (``(n, 28)``),
followed in a variant with pins by the 24 pins (``(n, 52)``). Turning a raw
board over and encoding it are numpy operations on the whole batch, so the
candidate plays of a roll are encoded together.

>>> from nardy.rules import Position
>>> encode([Position.start("long-bolshie")]).shape
(1, 202)
>>> encode([Position.start("plakoto")]).shape
(1, 256)
>>> encode([Position.start("hypergammon")]).shape
(1, 164)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

import numpy as np
import numpy.typing as npt

from nardy.bots.long_features import CONTACT_COLUMN, SIDE_FEATURES, long_features
from nardy.rules import MAX_CHECKERS, NUM_POINTS, VARIANTS, Position, Variant
from nardy.rules.position import ROW_LENGTH, Row
from nardy.rules.variant import LongTopology, ShortTopology, Topology

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

RAW_WIDTH: Final = ROW_LENGTH
"""Columns of a raw board: 24 points, bar (mover, opponent), off (mover, opponent): a position's row."""
PINNED_WIDTH: Final = ROW_LENGTH + NUM_POINTS
"""Columns of a raw board with pins: a position's row, its 24 pins last (+1 ours pinned, -1 theirs)."""
_BAR: Final = NUM_POINTS
_OFF: Final = NUM_POINTS + 2
_PINS: Final = ROW_LENGTH


@dataclass(frozen=True)
class Family:
    """One board geometry: its name, its input width and how its boards turn over."""

    name: str
    inputs: int
    topology: Topology = field(repr=False)
    encoder: Callable[[Family, IntArray], FloatArray] = field(repr=False)
    source: IntArray = field(repr=False)
    """``source[j]``: the mover's point index that the opponent calls index ``j``."""
    mothers: bool = False
    """Whether the family's game has the mother rule (plakoto): a game may end on a pin, not only a bear-off."""
    extends: str | None = None
    """The family whose inputs this one's begin with and whose games it encodes (``long-features`` extends
    ``long``), so that a network of it can be warm-started from one of that family; ``None`` for a base family."""

    selector: int | None = None
    """The input that is 1 in contact and 0 in a race, where the family's networks are a contact and a race
    one (:class:`~nardy.bots.phased.PhasedNetwork`)."""

    @property
    def base(self) -> str:
        """The family whose variants this one encodes: :attr:`extends`, else its own name."""
        return self.extends or self.name

    def encode(self, raw: IntArray) -> FloatArray:
        """The network inputs of raw boards, shape ``(n, inputs)``."""
        return self.encoder(self, raw)

    def unfinished(self, raw: IntArray, checkers: int) -> npt.NDArray[np.bool_]:
        """Which raw boards the game surely goes on from: neither side has borne everything off and, where the
        mother rule holds, no mother (a checker on its own start) is pinned. The rest are for the rules to
        judge (:func:`nardy.bots.evaluator.terminal_probabilities`)."""
        going: npt.NDArray[np.bool_] = (raw[:, _OFF] != checkers) & (raw[:, _OFF + 1] != checkers)
        if self.mothers:
            ours, theirs = _PINS + NUM_POINTS - 1, _PINS + int(self.source[NUM_POINTS - 1])
            going &= (raw[:, ours] <= 0) & (raw[:, theirs] >= 0)
        return going

    def __reduce__(self) -> tuple[Callable[[str], Family], tuple[str]]:
        """Pickled by name, so that an evaluator sent to a worker process still knows its family (``is``)."""
        return family_named, (self.name,)


def raw_boards(positions: Sequence[Position]) -> IntArray:
    """The raw boards of ``positions`` (all of one variant), each from its side to move."""
    return raw_rows([p.row() for p in positions])


def raw_rows(rows: Sequence[Row]) -> IntArray:
    """The raw boards of positions (all of one variant) given as :meth:`Position.row` tuples: ``(n, 28)``,
    or ``(n, 52)`` with pins."""
    width = len(rows[0]) if rows else RAW_WIDTH
    values = itertools.chain.from_iterable(rows)
    return np.fromiter(values, dtype=np.int64, count=width * len(rows)).reshape(-1, width)


def turn_raw(raw: IntArray, family: Family) -> IntArray:
    """The raw boards seen by the opponent (like :meth:`Position.turned`, for a batch), pins and all."""
    turned = np.empty_like(raw)
    turned[:, :NUM_POINTS] = -raw[:, family.source]
    turned[:, _BAR] = raw[:, _BAR + 1]
    turned[:, _BAR + 1] = raw[:, _BAR]
    turned[:, _OFF] = raw[:, _OFF + 1]
    turned[:, _OFF + 1] = raw[:, _OFF]
    if raw.shape[1] > RAW_WIDTH:
        turned[:, _PINS:] = -raw[:, _PINS + family.source]
    return turned


def encode(positions: Sequence[Position]) -> FloatArray:
    """The network inputs of ``positions`` (all of one family), from each side to move."""
    if not positions:
        raise ValueError("encode needs at least one position")
    return network_family(positions[0].variant).encode(raw_boards(positions))


def network_family(variant: Variant) -> Family:
    """The family of ``variant``: its game's own (plakoto's, hypergammon's), else its board's (long nardy's,
    fevga's); ValueError for the rest of the short board, which bgsage plays."""
    family = _family_of(variant)
    if family is None:
        raise ValueError(
            f"our networks play long nardy, plakoto and hypergammon; {variant.name} is played by bgsage"
            " (nardy.bots.sage)"
        )
    return family


def _family_of(variant: Variant) -> Family | None:
    return FAMILIES.get(variant.family) or FAMILIES.get(variant.board)


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
LONG_INPUTS: Final = 2 * (_UNITS + 5)
"""The long family's inputs: per side the 96 point units and five features."""


def _encode_long(family: Family, raw: IntArray) -> FloatArray:
    """Per side: 24 x (1, 2, 3+, (n-3)/12), head, home, off, longest block, pip count.

    A side's block is counted along the route of the side it blocks: the
    mover's held points in the opponent's numbering, the opponent's in ours.
    """
    out = np.empty((raw.shape[0], family.inputs))
    _long_inputs(family, raw, *_sides(family, raw), out)
    return out


def _long_inputs(family: Family, raw: IntArray, mine: IntArray, theirs: IntArray, out: FloatArray) -> None:
    """:func:`_encode_long` into ``out`` ``(n, 202)``, from the two sides' counts (:func:`_sides`)."""
    runs = (longest_run(mine[:, family.source] > 0), longest_run(theirs[:, family.source] > 0))
    half = LONG_INPUTS // 2
    for counts, index in ((mine, 0), (theirs, 1)):
        side = out[:, index * half : (index + 1) * half]
        _units(side[:, :_UNITS], counts)
        side[:, _UNITS] = counts[:, NUM_POINTS - 1] / MAX_CHECKERS
        side[:, _UNITS + 1] = counts[:, :6].sum(axis=1) / MAX_CHECKERS
        side[:, _UNITS + 2] = raw[:, _OFF + index] / MAX_CHECKERS
        side[:, _UNITS + 3] = runs[index] / 6.0
        side[:, _UNITS + 4] = (counts @ _PIP_WEIGHTS) / 360.0


def _encode_long_features(family: Family, raw: IntArray) -> FloatArray:
    """The long family's 202 inputs, then both sides' hand-made features (:mod:`nardy.bots.long_features`),
    the mover's first."""
    out = np.empty((raw.shape[0], family.inputs))
    mine, theirs = _sides(family, raw)
    _long_inputs(family, raw, mine, theirs, out[:, :LONG_INPUTS])
    long_features(mine, theirs, out[:, LONG_INPUTS:])
    return out


def _encode_plakoto(family: Family, raw: IntArray) -> FloatArray:
    """Per side: 24 x (1, 2, 3+, (n-3)/12) of its free checkers, 24 x its checker pinned there; off, pip
    count; its start point holding one free checker of its own (its mother, the last one there), that one open
    to a pin (no opposing checker pinned under it), its mother pinned; checkers on its start, in its home; its
    longest block.

    A point a side holds blocks the other: two or more of its checkers, or one on top of a pinned opposing
    checker. The pip count counts a pinned checker where it lies, as :meth:`Position.pip_counts` does.
    """
    mine, theirs = _sides(family, raw)
    pins = raw[:, _PINS:]
    mine_pinned = (pins > 0).astype(np.int64)
    theirs_pinned = (pins < 0).astype(np.int64)
    # per side, in its own numbering: its pinned checkers, and the opposing ones pinned under its checkers
    sides = (
        (mine, mine_pinned, theirs_pinned),
        (theirs, theirs_pinned[:, family.source], mine_pinned[:, family.source]),
    )
    out = np.empty((raw.shape[0], family.inputs))
    half = family.inputs // 2
    start = NUM_POINTS - 1
    extra = _UNITS + NUM_POINTS
    for index, (counts, pinned, under) in enumerate(sides):
        side = out[:, index * half : (index + 1) * half]
        _units(side[:, :_UNITS], counts)
        side[:, _UNITS:extra] = pinned
        alone = counts[:, start] == 1
        side[:, extra] = raw[:, _OFF + index] / MAX_CHECKERS
        side[:, extra + 1] = ((counts + pinned) @ _PIP_WEIGHTS) / 360.0
        side[:, extra + 2] = alone
        side[:, extra + 3] = alone & (under[:, start] == 0)
        side[:, extra + 4] = pinned[:, start]
        side[:, extra + 5] = counts[:, start] / MAX_CHECKERS
        side[:, extra + 6] = counts[:, :6].sum(axis=1) / MAX_CHECKERS
        side[:, extra + 7] = longest_run((counts >= 2) | ((counts == 1) & (under > 0))) / 6.0
    return out


HYPER_CHECKERS: Final = 3
"""Checkers a side in hypergammon: the truncated unary counts stop there, and nothing is scaled past it."""
_HYPER_UNITS: Final = HYPER_CHECKERS * NUM_POINTS
_HYPER_PIPS: Final = float(HYPER_CHECKERS * (NUM_POINTS + 1))
"""The most pips a hypergammon side can have: three checkers on the bar (25 each)."""
_HYPER_BAR_PIPS: Final = NUM_POINTS + 1
_HYPER_TABLE: Final = (np.arange(HYPER_CHECKERS + 1)[:, None] > np.arange(HYPER_CHECKERS)).astype(float)
"""Row ``n``: the truncated unary units (>=1, >=2, >=3) of ``n`` checkers (0..3)."""


def _encode_hyper(family: Family, raw: IntArray) -> FloatArray:
    """Per side, in its own numbering (82 inputs, 164 in all):

    - ``0..71``: 24 x (>=1, >=2, >=3) checkers on the point (truncated unary; three is all a side has),
      so a blot (1, 0, 0) and a made point (1, 1, 0) are each one pattern the network sees directly;
    - ``72..74``: (>=1, >=2, >=3) checkers on the bar: each must enter before anything else moves;
    - ``75..77``: (>=1, >=2, >=3) checkers borne off: none off is what a gammon needs;
    - ``78``: the pip count (a checker on the bar counts 25) / 75, the race;
    - ``79``: checkers in its home board (points 1..6) / 3: bearing off waits for all three;
    - ``80``: whether its farthest checker is inside the opponent's home board or on the bar (points 19..25),
      where a backgammon is lost if the opponent bears everything off;

    and last in both halves alike, so that turning the board over only swaps them:

    - ``81``: contact, whether the two sides can still meet (the farthest checker of one, bar 25, plus that of the
      other exceeds 25); without it the game is a pure race, where hitting and blocking no longer count.
    """
    mine, theirs = _sides(family, raw)
    rows = raw.shape[0]
    out = np.empty((rows, family.inputs))
    half = family.inputs // 2
    farthest: list[IntArray] = []
    for index, counts in enumerate((mine, theirs)):
        bar = raw[:, _BAR + index]
        reach = np.where(bar > 0, _HYPER_BAR_PIPS, (_PIP_WEIGHTS * (counts > 0)).max(axis=1))
        farthest.append(reach)
        start = index * half
        # one table look-up for the points, the bar and off together (as _units does for the long family)
        counted = np.concatenate((counts, raw[:, _BAR + index, None], raw[:, _OFF + index, None]), axis=1)
        out[:, start : start + _HYPER_UNITS + 2 * HYPER_CHECKERS] = np.take(
            _HYPER_TABLE, counted, axis=0, mode="clip"
        ).reshape(rows, -1)
        extra = start + _HYPER_UNITS + 2 * HYPER_CHECKERS
        out[:, extra] = (counts @ _PIP_WEIGHTS + _HYPER_BAR_PIPS * bar) / _HYPER_PIPS
        out[:, extra + 1] = counts[:, :6].sum(axis=1) / HYPER_CHECKERS
        out[:, extra + 2] = reach > NUM_POINTS - 6
    contact = (farthest[0] + farthest[1]) > _HYPER_BAR_PIPS
    out[:, half - 1] = contact
    out[:, -1] = contact
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


LONG: Final = Family("long", LONG_INPUTS, LongTopology(), _encode_long, _source(LongTopology()))
LONG_FEATURES: Final = Family(
    "long-features",
    LONG_INPUTS + 2 * len(SIDE_FEATURES),
    LongTopology(),
    _encode_long_features,
    _source(LongTopology()),
    extends="long",
    selector=LONG_INPUTS + CONTACT_COLUMN,
)
"""Long nardy with the hand-made inputs: the long family's 202, then :data:`SIDE_FEATURES` per side (230)."""
PLAKOTO: Final = Family(
    "plakoto", 2 * (5 * NUM_POINTS + 8), ShortTopology(), _encode_plakoto, _source(ShortTopology()), mothers=True
)
HYPERGAMMON: Final = Family(
    "hypergammon", 2 * (HYPER_CHECKERS * NUM_POINTS + 2 * HYPER_CHECKERS + 4), ShortTopology(), _encode_hyper,
    _source(ShortTopology()),
)

FAMILIES: Final[dict[str, Family]] = {
    family.name: family for family in (LONG, LONG_FEATURES, PLAKOTO, HYPERGAMMON)
}
"""The families by name: the name of their board (``Variant.board``), or of the one game they are for
(``Variant.family``), and the encodings that extend one of them (``long-features``)."""


def trainable_variants() -> tuple[str, ...]:
    """The registered variants a network of ours can play (those of a family here), by name."""
    return tuple(name for name, variant in VARIANTS.items() if _family_of(variant) is not None)


def family_named(name: str) -> Family:
    """The family called ``name`` (how a pickled :class:`Family` comes back)."""
    return FAMILIES[name]
