"""How far a long-nardy network's race ratings are from the bear-off database, where both apply.

Once both sides have every checker home the database (:mod:`nardy.bots.bearoff`)
gives the exact race; a network of ours (the race network of a contact-and-race
pair, :mod:`nardy.bots.phased`, or a single network) rates the same positions
on its own. This draws seeded positions with both sides all home (each side
1 to 15 checkers left, spread at random over its six points, the rest borne
off), and prints the mean absolute error of the win and mars chances and of the
cubeless equity per weights file::

    python -m benchmarks.long_race_check [--positions 2000] [--seed 0] WEIGHTS.npz ...

The levels never see these errors (they answer such races from the database,
:mod:`nardy.bots.race`); the error measures what the race network learnt of
races, and how it rates the races just before everything is home.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from nardy.bots.bearoff import HOME_POINTS, default_bearoff
from nardy.bots.encoding import raw_boards
from nardy.bots.evaluator import LOSE_DOUBLE, WIN, WIN_DOUBLE, equity
from nardy.bots.neural import NeuralEvaluator, evaluator_for
from nardy.bots.phased import load_network
from nardy.rules import MAX_CHECKERS, NUM_POINTS, Position, find_variant

_THEIR_HOME = 12
"""The opponent's point 1 is the mover's 13 (index 12)."""


def bearoff_races(count: int, *, seed: int, variant: str = "long-traditional") -> list[Position]:
    """``count`` positions with both sides all home and neither finished, reproducible from ``seed``."""
    rng = random.Random(f"long-race-check:{seed}")
    rules = find_variant(variant)
    positions = []
    for _ in range(count):
        points = [0] * NUM_POINTS
        off = []
        for first, sign in ((0, 1), (_THEIR_HOME, -1)):
            left = rng.randint(1, MAX_CHECKERS)
            for _ in range(left):
                points[first + rng.randrange(HOME_POINTS)] += sign
            off.append(MAX_CHECKERS - left)
        positions.append(Position(rules, tuple(points), (0, 0), (off[0], off[1])))
    return positions


@dataclass(frozen=True)
class RaceError:
    """Mean absolute errors against the database: win chance, mars chances (won and lost), equity."""

    positions: int
    win: float
    mars: float
    equity: float


def race_error(evaluator: NeuralEvaluator, positions: Sequence[Position]) -> RaceError:
    """The network's ratings of bear-off races (side to move) against the database's."""
    raw = raw_boards(positions)
    mine, theirs = raw[:, :HOME_POINTS], -raw[:, _THEIR_HOME : _THEIR_HOME + HOME_POINTS]
    exact = default_bearoff().races(mine, theirs)
    rated = evaluator.probabilities(positions)
    mars = np.abs(rated[:, [WIN_DOUBLE, LOSE_DOUBLE]] - exact[:, [WIN_DOUBLE, LOSE_DOUBLE]])
    return RaceError(
        len(positions),
        float(np.mean(np.abs(rated[:, WIN] - exact[:, WIN]))),
        float(np.mean(mars)),
        float(np.mean(np.abs(equity(rated) - equity(exact)))),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.long_race_check", description=__doc__.splitlines()[0])
    parser.add_argument("weights", nargs="+", help="network files (.npz): one network or a contact-and-race pair")
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    positions = bearoff_races(args.positions, seed=args.seed)
    variant = find_variant("long-traditional")
    print(f"{len(positions)} bear-off races, seed {args.seed}; mean absolute error against the database")
    for path in args.weights:
        error = race_error(evaluator_for(load_network(path), variant), positions)
        print(f"{path}: win {error.win:.4f}, mars {error.mars:.4f}, equity {error.equity:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
