"""The network inputs of long nardy, plakoto and hypergammon (nardy.bots.encoding): shapes, ranges, and the two
sides encoded alike."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.bots.encoding import (
    FAMILIES,
    HYPERGAMMON,
    LONG,
    PLAKOTO,
    encode,
    longest_run,
    network_family,
    raw_boards,
    raw_rows,
    trainable_variants,
    turn_raw,
)
from nardy.rules import VARIANTS, Position, find_variant
from tests.bots.bot_positions import game_positions

LONG_VARIANTS = [name for name in VARIANTS if name.startswith("long-")]
FIFTEEN_CHECKER_VARIANTS = [*LONG_VARIANTS, "plakoto"]
NETWORK_VARIANTS = [*FIFTEEN_CHECKER_VARIANTS, "hypergammon"]


@pytest.mark.parametrize("variant", FIFTEEN_CHECKER_VARIANTS)
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
    assert LONG.inputs == 202 and PLAKOTO.inputs == 256 and HYPERGAMMON.inputs == 164
    assert {network_family(find_variant(v)).name for v in LONG_VARIANTS} == {"long"}
    assert network_family(find_variant("fevga")) is LONG and network_family(find_variant("plakoto")) is PLAKOTO
    assert network_family(find_variant("hypergammon")) is HYPERGAMMON
    assert set(FAMILIES) == {"long", "long-features", "plakoto", "hypergammon"}
    assert FAMILIES["long-features"].inputs == 230 and FAMILIES["long-features"].base == "long"
    assert set(trainable_variants()) == {*LONG_VARIANTS, "fevga", "plakoto", "hypergammon"}
    for played_by_bgsage in ("georgian", "backgammon", "portes", "tavli", "nackgammon"):
        with pytest.raises(ValueError, match="bgsage"):
            network_family(find_variant(played_by_bgsage))


@pytest.mark.parametrize("variant", NETWORK_VARIANTS)
def test_start_encodes_both_sides_alike(variant: str) -> None:
    """At the start both sides stand alike, so the two halves of the encoding are equal."""
    x = encode([Position.start(variant)])[0]
    half = len(x) // 2
    assert np.array_equal(x[:half], x[half:])


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(NETWORK_VARIANTS), seed=st.integers(0, 10**6))
def test_turning_over_swaps_the_halves(variant: str, seed: int) -> None:
    """encode(p.turned()) is encode(p) with the mover's and the opponent's halves swapped."""
    positions = game_positions(variant, seed=seed, count=8)
    x = encode(positions)
    turned = encode([p.turned() for p in positions])
    half = x.shape[1] // 2
    assert np.allclose(turned[:, :half], x[:, half:]) and np.allclose(turned[:, half:], x[:, :half])


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(NETWORK_VARIANTS), seed=st.integers(0, 10**6))
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


def test_raw_boards_carry_the_pins_only_where_the_variant_has_them() -> None:
    assert raw_boards([Position.start("long-bolshie")]).shape == (1, 28)
    assert raw_boards([Position.start("plakoto")]).shape == (1, 52)
    assert raw_rows([]).shape == (0, 28)


def pinned_position() -> Position:
    """Ours: our mother alone on 24, 12 on 6, one on 1 pinning their mother, one pinned on 10.
    Theirs: one on our 10 pinning ours, 13 on our 19 (their 6), their mother pinned on our 1 (their 24)."""
    points = [0] * 24
    pinned = [0] * 24
    points[23], points[5], points[0] = 1, 12, 1
    points[9], pinned[9] = -1, 1
    points[18], pinned[0] = -13, -1
    return Position(find_variant("plakoto"), tuple(points), pinned=tuple(pinned))


def test_plakoto_encodes_pins_mothers_and_pips() -> None:
    """docs/rules.md §9: a checker landing on a lone opposing one pins it; the mother is the last checker on a
    side's start, and a pinned mother can lose the game."""
    x = encode([pinned_position()])[0]
    ours, theirs = x[:128], x[128:]
    extra = 4 * 24 + 24
    assert ours[96:extra].tolist() == [1.0 if p == 10 else 0.0 for p in range(1, 25)]
    assert theirs[96:extra].tolist() == [1.0 if p == 24 else 0.0 for p in range(1, 25)]
    # off, pips, mother alone, open to a pin, pinned, on start, home, block
    assert ours[extra:] == pytest.approx([0, (24 + 12 * 6 + 1 + 10) / 360, 1, 1, 0, 1 / 15, 13 / 15, 1 / 6])
    assert theirs[extra:] == pytest.approx([0, (15 + 13 * 6 + 24) / 360, 0, 0, 1, 0, 13 / 15, 1 / 6])
    # our checker on 6 is free, our pinned one on 10 is not counted among the free
    assert ours[4 * 5 : 4 * 6].tolist() == [1.0, 1.0, 1.0, 9 / 12] and ours[4 * 9] == 0.0


def test_plakoto_unfinished_leaves_pinned_mothers_to_the_rules() -> None:
    positions = [Position.start("plakoto"), pinned_position(), pinned_position().turned()]
    assert PLAKOTO.unfinished(raw_boards(positions), 15).tolist() == [True, False, False]
    assert LONG.unfinished(raw_boards([Position.start("long-bolshie")]), 15).tolist() == [True]


def hyper_position(points: dict[int, int], *, bar: tuple[int, int] = (0, 0), off: tuple[int, int] = (0, 0)) -> Position:
    """A hypergammon position from the mover's point counts (negative: the opponent's, in the mover's numbering)."""
    board = [0] * 24
    for point, count in points.items():
        board[point - 1] = count
    return Position(find_variant("hypergammon"), tuple(board), bar=bar, off=off)


def test_hypergammon_shape_and_range() -> None:
    positions = game_positions("hypergammon", seed=3, count=80)
    x = encode(positions)
    assert x.shape == (80, 164)
    assert np.all(x >= 0.0) and np.all(x <= 1.0)
    for side in (0, 1):
        units = x[:, side * 82 : side * 82 + 72].reshape(80, 24, 3)
        assert set(np.unique(units)) <= {0.0, 1.0}
        assert np.all(units[..., 0] >= units[..., 1]) and np.all(units[..., 1] >= units[..., 2])
        # three checkers a side: on the points, on the bar and off
        counted = units.sum(axis=(1, 2)) + x[:, side * 82 + 72 : side * 82 + 78].sum(axis=1)
        assert np.all(counted == 3)


def test_hypergammon_encodes_points_bar_off_and_pips() -> None:
    """docs/rules.md: backgammon's rules with three checkers a side: a hit checker goes to the bar and enters
    before any other moves; a side bears off once all its checkers are home; a loser with none off loses a
    gammon, a backgammon with a checker still on the bar or in the winner's home."""
    # ours: two on our 5 (a point made), one on the bar; theirs: a blot on our 20 (their 5), one off, one on our 1
    # (their 24, in our home)
    position = hyper_position({5: 2, 20: -1, 1: -1}, bar=(1, 0), off=(0, 1))
    ours, theirs = encode([position])[0].reshape(2, 82)
    assert ours[3 * 4 : 3 * 5].tolist() == [1, 1, 0] and ours[:72].sum() == 2
    assert theirs[3 * 4 : 3 * 5].tolist() == [1, 0, 0] and theirs[3 * 23 : 3 * 24].tolist() == [1, 0, 0]
    assert theirs[:72].sum() == 2
    # bar, off, pips, home, farthest in the opponent's home or on the bar, contact
    assert ours[72:] == pytest.approx([1, 0, 0, 0, 0, 0, (2 * 5 + 25) / 75, 2 / 3, 1, 1])
    assert theirs[72:] == pytest.approx([0, 0, 0, 1, 0, 0, (5 + 24) / 75, 1 / 3, 1, 1])


def test_hypergammon_contact_ends_when_the_sides_have_passed() -> None:
    """Contact lasts while one side's farthest checker is beyond the other's: after that the game is a race."""
    passed = hyper_position({6: 2, 3: 1, 7: -3})  # their farthest on their 18 = our 7, beyond nothing of ours
    meeting = hyper_position({8: 1, 3: 2, 7: -3})  # our 8 is behind their checkers on our 7
    x = encode([passed, meeting])
    assert x[:, 81].tolist() == [0.0, 1.0] and x[:, 163].tolist() == [0.0, 1.0]
    assert x[0, 80] == 0.0 and x[0, 82 + 80] == 0.0


def test_hypergammon_unfinished_knows_three_checkers() -> None:
    running = hyper_position({1: 1, 24: -3}, off=(2, 0))
    finished = hyper_position({24: -3}, off=(3, 0))
    assert HYPERGAMMON.unfinished(raw_boards([running, finished]), 3).tolist() == [True, False]
