"""Positions for the notation tests: built by hand, or reached by random legal play.

Imported as ``from tests.notation.notation_games import ...``. A random game is replayed from
``random.Random(seed)`` so that Hypothesis can shrink a failure to the
shortest game that shows it, and ``walk`` rebuilds any reported example.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from hypothesis import strategies as st

from nardy.rules import VARIANTS, Position, find_variant

VARIANT_NAMES = sorted(VARIANTS)
SHORT_VARIANTS = [name for name in VARIANT_NAMES if VARIANTS[name].board == "short" and not VARIANTS[name].pinning]
"""Backgammon's board with hits: what the gnubg id and XGID hold (pinning variants' positions they cannot)."""
LONG_VARIANTS = [name for name in VARIANT_NAMES if VARIANTS[name].board == "long"]
PINNING_VARIANTS = [name for name in VARIANT_NAMES if VARIANTS[name].pinning]
"""Variants whose positions carry pins (plakoto), which the gnubg id and XGID cannot hold."""


def make(
    variant: str,
    mine: Mapping[int, int] | None = None,
    theirs: Mapping[int, int] | None = None,
    *,
    bar: tuple[int, int] = (0, 0),
) -> Position:
    """A position from ``{point: count}`` maps (both positive); checkers not placed are borne off."""
    mine, theirs = dict(mine or {}), dict(theirs or {})
    points = [0] * 24
    for point, count in mine.items():
        points[point - 1] = count
    for point, count in theirs.items():
        assert points[point - 1] == 0, f"point {point} cannot hold both sides"
        points[point - 1] = -count
    rules = find_variant(variant)
    off = (rules.checkers - sum(mine.values()) - bar[0], rules.checkers - sum(theirs.values()) - bar[1])
    return Position(rules, tuple(points), bar, off)


def walk(variant: str, seed: int, plies: int) -> tuple[Position, random.Random]:
    """The position after ``plies`` random legal plays from the start (fewer if the game ends).

    The generator comes back too, so a test can go on drawing dice from it.
    """
    rng = random.Random(seed)
    position = Position.start(variant)
    for _ in range(plies):
        if position.is_game_over():
            break
        plays = position.legal_plays(roll(rng))
        position = (rng.choice(plays).position if plays else position).turned()
    return position, rng


def roll(rng: random.Random) -> tuple[int, int]:
    return (rng.randint(1, 6), rng.randint(1, 6))


def reached(variants: list[str]) -> st.SearchStrategy[Position]:
    """Positions of ``variants`` reached by random play; games last about 80-110 plies."""
    return st.builds(
        lambda variant, seed, plies: walk(variant, seed, plies)[0],
        st.sampled_from(variants),
        st.integers(min_value=0, max_value=2**32 - 1),
        st.integers(min_value=0, max_value=200),
    )


def reached_with_roll(variants: list[str]) -> st.SearchStrategy[tuple[Position, tuple[int, int]]]:
    """A position reached by random play and the next roll thrown in that game."""

    def build(variant: str, seed: int, plies: int) -> tuple[Position, tuple[int, int]]:
        position, rng = walk(variant, seed, plies)
        return position, roll(rng)

    return st.builds(
        build,
        st.sampled_from(variants),
        st.integers(min_value=0, max_value=2**32 - 1),
        st.integers(min_value=0, max_value=200),
    )
