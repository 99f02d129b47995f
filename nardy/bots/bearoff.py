"""Long nardy's one-sided bear-off database: how many rolls a side needs to bear off from its home.

A *home* is the checker count on one side's points 1..6 (in its own
numbering), at most 15 checkers: C(21, 6) = 54,264 homes. For each home and
each of the 21 rolls the database keeps the play that minimises the expected
number of rolls to bear everything off (its *successor*), found by dynamic
programming in order of pip count, every play given by the rules package
(:meth:`nardy.rules.Position.legal_rows`) on a board where the opponent is
out of the way. From the successors follow, exactly, the distribution of the
number of rolls each home needs under that policy, and for the 15-checker
homes the distribution of rolls until the first checker is off under the
policy that minimises that (what a side threatened by mars plays).

When both sides have all their checkers home there is no contact and each
side's future depends only on its own home and dice, so the two one-sided
distributions give the race's outcome probabilities (:meth:`Bearoff.race`):
the winning chances are exact for two players who both bear off by the
database's policy, and the mars chances are exact for a winner who plays that
policy and a loser who plays to get one checker off. A two-sided database
could play each race for its own odds; the difference is a small fraction of
a percent in backgammon's studies of one-sided databases.

The six-point block rule cannot forbid a bear-off play here: with no contact
every opposing checker is already past our home (docs/rules.md §6), in all three
regulations, so one table serves them all (the tests check it).

The successors ship in ``nardy/bots/weights/long_bearoff.npz`` (1.4 MB),
built by ``python -m nardy.bots.bearoff`` in about 30 seconds; the distributions are computed from them at load time (a fraction of a second).

>>> database = default_bearoff()
>>> database.expected_rolls((0, 0, 0, 0, 0, 1))  # one checker on point 6: 9 rolls in 36 move it < 6 pips
1.25
"""

from __future__ import annotations

import argparse
import functools
import itertools
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import IO, Final

import numpy as np
import numpy.typing as npt

from nardy.bots.evaluator import LOSE_DOUBLE, OUTPUTS, WIN, WIN_DOUBLE
from nardy.rules import MAX_CHECKERS, DICE_ROLLS, NUM_POINTS, Position, Variant, find_variant
from nardy.rules.position import Row

FloatArray = npt.NDArray[np.float64]
IndexArray = npt.NDArray[np.int64]

HOME_POINTS: Final = 6
ROLL_WEIGHTS: Final = np.array([(1.0 if high == low else 2.0) / 36.0 for high, low in DICE_ROLLS])
OFF_REACHED: Final = -1
"""A first-off successor meaning "this roll bears a checker off"."""

_OPPONENT_HOME: Final = slice(12, 18)
"""Our points 13..18 are the opponent's 1..6 (``LongTopology.opponent_point``)."""
_FILE: Final = "long_bearoff.npz"
_KEY_WEIGHTS: Final = np.array([16**point for point in range(HOME_POINTS)], dtype=np.int64)
"""A home's key for the vectorised lookup: its counts (at most 15 each) as base-16 digits."""

Home = tuple[int, ...]


def homes(max_checkers: int = MAX_CHECKERS) -> list[Home]:
    """Every home of at most ``max_checkers`` checkers: by checker count, then in a fixed order.

    The order makes the homes of at most ``n`` checkers a prefix, so a small
    database is the beginning of the full one.
    """
    result: list[Home] = []
    for count in range(max_checkers + 1):
        for points in itertools.combinations_with_replacement(range(HOME_POINTS), count):
            home = [0] * HOME_POINTS
            for point in points:
                home[point] += 1
            result.append(tuple(home))
    return result


def pips(home: Home) -> int:
    """The pips a home needs to bear off: each checker's point number."""
    return sum((point + 1) * count for point, count in enumerate(home))


def bearoff_position(variant: Variant, home: Home) -> Position:
    """A board where the side to move has ``home`` (the rest borne off) and the opponent, all home, is out of reach."""
    points = [0] * NUM_POINTS
    points[:HOME_POINTS] = home
    points[_OPPONENT_HOME.start] = -variant.checkers
    return Position(variant, tuple(points), (0, 0), (variant.checkers - sum(home), 0))


def _reached(variant: Variant, home: Home, roll: tuple[int, int]) -> list[Row]:
    rows = bearoff_position(variant, home).legal_rows(roll)
    if not rows:
        raise AssertionError(f"the rules give no play of {roll} for the home {home}")
    return rows


def build(variant: Variant | str = "long-traditional", *, max_checkers: int = MAX_CHECKERS) -> tuple[IndexArray, IndexArray]:
    """The successor tables by dynamic programming: ``(successors, first_successors)``.

    ``successors[i, r]``: the home the best play of roll ``r`` leaves from home
    ``i`` (``homes(max_checkers)`` order), minimising the expected rolls to
    bear everything off. ``first_successors``: for the homes of exactly
    ``max_checkers`` checkers (the last rows), the home the play minimising
    the expected rolls to the first checker off leaves, or :data:`OFF_REACHED`.
    """
    rules = find_variant(variant) if isinstance(variant, str) else variant
    table = homes(max_checkers)
    index = {home: i for i, home in enumerate(table)}
    order = sorted(range(len(table)), key=lambda i: pips(table[i]))
    successors = np.zeros((len(table), len(DICE_ROLLS)), dtype=np.int64)
    means = np.zeros(len(table))
    full_start = len(table) - _count(max_checkers)
    first_successors = np.full((len(table) - full_start, len(DICE_ROLLS)), OFF_REACHED, dtype=np.int64)
    first_means = np.zeros(len(table) - full_start)
    for i in order:
        home = table[i]
        if not any(home):
            continue
        for r, roll in enumerate(DICE_ROLLS):
            reached = [index[tuple(row[:HOME_POINTS])] for row in _reached(rules, home, roll)]
            successors[i, r] = min(reached, key=lambda j: means[j])
            if i >= full_start:
                full = [j - full_start for j in reached if j >= full_start]
                if len(full) == len(reached):
                    first_successors[i - full_start, r] = min(full, key=lambda j: first_means[j])
        means[i] = 1.0 + ROLL_WEIGHTS @ means[successors[i]]
        if i >= full_start:
            row = first_successors[i - full_start]
            first_means[i - full_start] = 1.0 + ROLL_WEIGHTS @ np.where(row == OFF_REACHED, 0.0, first_means[row])
    return successors, first_successors


def _count(checkers: int) -> int:
    """How many homes hold exactly ``checkers`` checkers."""
    return len(list(itertools.combinations_with_replacement(range(HOME_POINTS), checkers)))


def _distribution(successors: IndexArray, done: npt.NDArray[np.bool_]) -> FloatArray:
    """``P(rolls = k)`` per row, columns ``k = 0, 1, ...`` until no mass is left (exact to rounding).

    ``done[i]``: row ``i`` needs no roll. ``successors`` may hold
    :data:`OFF_REACHED` (done after that roll).
    """
    reached = successors == OFF_REACHED
    safe = np.where(reached, 0, successors)
    columns = [done.astype(float)]
    while True:
        column = np.where(reached, 0.0, columns[-1][safe]) @ ROLL_WEIGHTS
        if len(columns) == 1:
            column += reached @ ROLL_WEIGHTS
        column[done] = 0.0
        if not column.any():
            return np.stack(columns, axis=1)
        columns.append(column)


class Bearoff:
    """The database: per home, the distribution of rolls to bear off; for 15 checkers, to the first off too."""

    def __init__(self, successors: IndexArray, first_successors: IndexArray, *, max_checkers: int = MAX_CHECKERS) -> None:
        self.homes = homes(max_checkers)
        self.max_checkers = max_checkers
        self.successors = successors
        self.first_successors = first_successors
        done = np.array([not any(home) for home in self.homes])
        self.rolls = _distribution(successors, done)
        """``rolls[i, k]``: the probability that home ``i`` needs exactly ``k`` rolls."""
        self.first_rolls = _distribution(first_successors, np.zeros(len(first_successors), dtype=bool))
        """``first_rolls[i, k]`` for the full homes (index ``i - full_start``): rolls until the first checker is off."""
        self.full_start = len(self.homes) - len(first_successors)
        self.means: FloatArray = self.rolls @ np.arange(self.rolls.shape[1])
        keys = np.array(self.homes, dtype=np.int64) @ _KEY_WEIGHTS
        self._key_order = np.argsort(keys)
        self._sorted_keys = keys[self._key_order]

    def index(self, home: Sequence[int]) -> int:
        """The row of ``home`` (checker counts on points 1..6); KeyError when it is not in the database."""
        return int(self.indices(np.array([home]))[0])

    def indices(self, homes: IndexArray) -> IndexArray:
        """The rows of many homes at once (shape ``(n, 6)``); KeyError when one is not in the database."""
        keys = homes.astype(np.int64) @ _KEY_WEIGHTS
        found = np.minimum(np.searchsorted(self._sorted_keys, keys), len(self._sorted_keys) - 1)
        if not np.array_equal(self._sorted_keys[found], keys):
            raise KeyError("a home not in the database")
        rows: IndexArray = self._key_order[found]
        return rows

    def expected_rolls(self, home: Sequence[int]) -> float:
        """The expected number of rolls to bear off every checker of ``home``."""
        return float(self.means[self.index(home)])

    def race(self, roller: Sequence[int], other: Sequence[int]) -> FloatArray:
        """The five outcome probabilities of the side about to roll, both sides' checkers all home.

        ``roller`` and ``other`` are each side's home in its own numbering; a
        side whose home holds all 15 checkers has borne off none and can be
        marsed. The roller wins when it needs no more rolls than the other side.
        """
        result: FloatArray = self.races(np.array([roller]), np.array([other]))[0]
        return result

    def races(self, rollers: IndexArray, others: IndexArray) -> FloatArray:
        """:meth:`race` of many pairs of homes at once (each shape ``(n, 6)``), shape ``(n, 5)``."""
        mine, theirs = self.indices(rollers), self.indices(others)
        mine_rolls, their_rolls = self.rolls[mine], self.rolls[theirs]
        width = self.rolls.shape[1]
        result = np.zeros((len(mine), OUTPUTS))
        their_survival = np.clip(1.0 - np.cumsum(their_rolls, axis=1) + their_rolls, 0.0, 1.0)  # P(rolls >= k)
        result[:, WIN] = np.einsum("ij,ij->i", mine_rolls, their_survival)
        for row in np.flatnonzero(others.sum(axis=1) == MAX_CHECKERS):
            first = self.first_rolls[theirs[row] - self.full_start]
            result[row, WIN_DOUBLE] = min(float(mine_rolls[row] @ _at_least(first, width)), result[row, WIN])
        for row in np.flatnonzero(rollers.sum(axis=1) == MAX_CHECKERS):
            first = self.first_rolls[mine[row] - self.full_start]
            later = _at_least(first, width + 1)[1:]
            result[row, LOSE_DOUBLE] = min(float(their_rolls[row] @ later), 1.0 - result[row, WIN])
        return result

    def save(self, path: Path | str | IO[bytes]) -> None:
        """Write the successor tables (compressed, ``uint16``; the distributions are recomputed on load)."""
        np.savez_compressed(
            path,
            successors=self.successors.astype(np.uint16),
            first_successors=np.where(self.first_successors == OFF_REACHED, 65535, self.first_successors).astype(np.uint16),
            max_checkers=np.array(self.max_checkers),
        )

    @classmethod
    def load(cls, path: Path | str | IO[bytes]) -> Bearoff:
        """A database written by :meth:`save`."""
        with np.load(path) as data:
            first = data["first_successors"].astype(np.int64)
            first[first == 65535] = OFF_REACHED
            return cls(data["successors"].astype(np.int64), first, max_checkers=int(data["max_checkers"]))


def _at_least(distribution: FloatArray, length: int) -> FloatArray:
    """``P(rolls >= k)`` for ``k = 0 .. length - 1``."""
    tail = np.zeros(length)
    survival = 1.0 - np.concatenate(([0.0], np.cumsum(distribution)[:-1]))
    count = min(length, len(survival))
    tail[:count] = survival[:count]
    return np.clip(tail, 0.0, 1.0)


def build_database(variant: Variant | str = "long-traditional", *, max_checkers: int = MAX_CHECKERS) -> Bearoff:
    """A database computed now (:func:`build`): the shipped one for 15 checkers, a prefix of it for fewer."""
    successors, first = build(variant, max_checkers=max_checkers)
    return Bearoff(successors, first, max_checkers=max_checkers)


@functools.cache
def default_bearoff() -> Bearoff:
    """The shipped database (``nardy/bots/weights/long_bearoff.npz``), loaded once."""
    with resources.files("nardy.bots").joinpath("weights", _FILE).open("rb") as source:
        return Bearoff.load(source)


def main(argv: Sequence[str] | None = None) -> None:
    """Build the database and write it (by default over the shipped file)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parent / "weights" / _FILE))
    parser.add_argument("--max-checkers", type=int, default=MAX_CHECKERS)
    args = parser.parse_args(argv)
    build_database(max_checkers=args.max_checkers).save(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
