"""The network inputs of long nardy (nardy.bots.encoding): shapes, ranges, and the two sides encoded alike."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.bots.encoding import FAMILIES, LONG, encode, network_family, longest_run, raw_boards, turn_raw
from nardy.rules import VARIANTS, Position, find_variant
from tests.bots.bot_positions import game_positions

LONG_VARIANTS = [name for name in VARIANTS if name.startswith("long-")]


@pytest.mark.parametrize("variant", LONG_VARIANTS)
def test_shape_and_range(variant: str) -> None:
    positions = game_positions(variant, seed=1, count=60)
    family = network_family(find_variant(variant))
    x = encode(positions)
    assert x.shape == (60, family.inputs)
    assert x.dtype == np.float64
    assert np.all(x >= 0.0) and np.all(x <= 4.0)
    # the first three units of each point are 0/1 (truncated unary), and never out of order
    per_side = 4 * 24
    for side in (0, 1):
        start = side * (family.inputs // 2)
        units = x[:, start : start + per_side].reshape(60, 24, 4)
        assert set(np.unique(units[..., :3])) <= {0.0, 1.0}
        assert np.all(units[..., 0] >= units[..., 1]) and np.all(units[..., 1] >= units[..., 2])
        assert np.all(units[..., 3][units[..., 2] == 0] == 0)


def test_family_sizes() -> None:
    assert LONG.inputs == 202
    assert {network_family(find_variant(v)).name for v in LONG_VARIANTS} == set(FAMILIES) == {"long"}
    with pytest.raises(ValueError, match="bgsage"):
        network_family(find_variant("georgian"))


@pytest.mark.parametrize("variant", LONG_VARIANTS)
def test_start_encodes_both_sides_alike(variant: str) -> None:
    """At the start both sides stand alike, so the two halves of the encoding are equal."""
    x = encode([Position.start(variant)])[0]
    half = len(x) // 2
    assert np.array_equal(x[:half], x[half:])


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(LONG_VARIANTS), seed=st.integers(0, 10**6))
def test_turning_over_swaps_the_halves(variant: str, seed: int) -> None:
    """encode(p.turned()) is encode(p) with the mover's and the opponent's halves swapped."""
    positions = game_positions(variant, seed=seed, count=8)
    x = encode(positions)
    turned = encode([p.turned() for p in positions])
    half = x.shape[1] // 2
    assert np.allclose(turned[:, :half], x[:, half:]) and np.allclose(turned[:, half:], x[:, :half])


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(LONG_VARIANTS), seed=st.integers(0, 10**6))
def test_turn_raw_is_position_turned(variant: str, seed: int) -> None:
    positions = game_positions(variant, seed=seed, count=8)
    family = network_family(find_variant(variant))
    assert np.array_equal(turn_raw(raw_boards(positions), family), raw_boards([p.turned() for p in positions]))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.booleans(), min_size=24, max_size=24), min_size=1, max_size=5))
def test_longest_run(rows: list[list[bool]]) -> None:
    def reference(row: list[bool]) -> int:
        best = current = 0
        for held in row:
            current = current + 1 if held else 0
            best = max(best, current)
        return best

    assert longest_run(np.array(rows)).tolist() == [reference(row) for row in rows]


def test_long_block_is_counted_along_the_opponents_route() -> None:
    """Our points 1 and 24 are neighbours on the opponent's route: a block across them counts as one run."""
    points = [0] * 24
    for point in (3, 2, 1, 24, 23):  # 24 is our head, holding the rest
        points[point - 1] = 1
    points[23] = 11
    points[11] = -15
    position = Position(find_variant("long-traditional"), tuple(points))
    x = encode([position])[0]
    run_column = 4 * 24 + 3  # after the point units: head, home, off, then the block
    assert x[run_column] == pytest.approx(5 / 6)
