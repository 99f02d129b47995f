"""The compiled walk (``nardy/rules/_movegen.c``) answers exactly what the Python walk answers.

``movegen._walk_python`` is the reference: every property test of
``test_properties.py`` checks the engine as installed (compiled) against an
independent generator, and these tests check, on positions reached by random
play, on long nardy's six-block positions and next to Georgian hits in our
home, every roll and every kind of answer (the plays with their steps, every
sequence, the boards, the rows, the packed sequences) of the compiled walk against the Python one,
in the same order.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nardy.rules import DICE_ROLLS, Position, movegen
from tests.rules.test_properties import LONG_VARIANTS, Walk, block_position, replay, stay_position, walks


@contextmanager
def python_walk() -> Iterator[None]:
    """Run the move generator on its Python walk for the duration."""
    compiled = movegen._compiled
    movegen._compiled = None  # type: ignore[assignment]
    try:
        yield
    finally:
        movegen._compiled = compiled


def answers(position: Position, dice: tuple[int, int]) -> tuple[object, ...]:
    args = (position.variant, position.points, position.bar, position.off, dice)
    return (
        movegen._walk(*args, False),
        movegen._walk(*args, True),
        movegen.result_boards(*args),
        movegen.result_rows(*args),
        movegen.sequence_codes(*args),
    )


def assert_same_answers(position: Position) -> None:
    for dice in DICE_ROLLS:
        compiled = answers(position, dice)
        with python_walk():
            python = answers(position, dice)
        assert compiled == python, (position, dice)


def test_the_compiled_walk_is_installed() -> None:
    """``make`` builds the extension; without it every search would silently run in Python."""
    assert movegen._compiled is not None


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(walks)
def test_compiled_and_python_walks_agree_on_random_games(walk: Walk) -> None:
    positions = [ply.position for ply in replay(walk)]
    for position in positions[-3:]:
        assert_same_answers(position)


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.sampled_from(LONG_VARIANTS), st.integers(0, 2**32 - 1))
def test_compiled_and_python_walks_agree_next_to_six_blocks(variant: str, seed: int) -> None:
    position = block_position(variant, seed)
    assert_same_answers(position)
    assert_same_answers(position.turned())


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_compiled_and_python_walks_agree_next_to_home_hits(seed: int) -> None:
    """Georgian's stay rule and its exception, judged per die (002: «если кубик иначе никак не сыграть, шашка может уйти»)."""
    assert_same_answers(stay_position(seed))


@pytest.mark.parametrize("name", ["backgammon", "georgian", "long-traditional", "long-tournament", "long-bolshie"])
def test_compiled_and_python_walks_agree_at_the_start(name: str) -> None:
    """Includes the first-roll head exceptions of long nardy (6-6, 4-4, 3-3)."""
    assert_same_answers(Position.start(name))


def test_the_compiled_walk_refuses_malformed_arguments() -> None:
    """Its inputs come from movegen, but a wrong call raises instead of reading out of bounds."""
    board = (0,) * 27
    good = ((3, 5), True, -1, 0, 0, False, False, False, movegen._ROUTE_POSITIONS, 0, 0)
    assert movegen._compiled.walk(board, *good) == [((), board)]
    with pytest.raises(TypeError):
        movegen._compiled.walk(board[:26], *good)
    with pytest.raises(ValueError):
        movegen._compiled.walk((99,) + board[1:], *good)
    with pytest.raises(ValueError):
        movegen._compiled.walk(board, (5, 3), *good[1:])
    with pytest.raises(ValueError):
        movegen._compiled.walk(board, (0, 3), *good[1:])
    with pytest.raises(TypeError):
        movegen._compiled.walk(board, (3, 5, 5), *good[1:])
    with pytest.raises(TypeError):
        movegen._compiled.walk(board, *good[:8], b"short", 0, 0)
    with pytest.raises(TypeError):
        movegen._compiled.walk(board, *good[:-1])
