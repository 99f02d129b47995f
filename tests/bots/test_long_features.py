"""Long nardy's hand-made inputs (nardy.bots.long_features) on built positions, against plain references, and
as the ``long-features`` encoding (nardy.bots.encoding.LONG_FEATURES)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.bots.encoding import LONG, LONG_FEATURES, LONG_INPUTS, raw_boards, turn_raw
from nardy.bots.long_features import (
    CONTACT_COLUMN,
    ESCAPES,
    ROTATION,
    SIDE_FEATURES,
    STACKED_ROWS,
    WINDOW,
    Side,
    escape_rolls,
    long_features,
    longest_block,
)
from nardy.rules import DICE_ROLLS, Position
from tests.bots.bot_positions import game_positions

VARIANTS = ["long-traditional", "long-tournament", "long-bolshie"]
WIDTH = len(SIDE_FEATURES)


def board(mover: dict[int, int], opponent: dict[int, int], off: tuple[int, int] = (0, 0)) -> Position:
    """A long-traditional position from the mover's point numbers: ``{point: checkers}`` for each side (the
    opponent's checkers given on the mover's points too)."""
    points = [0] * 24
    for point, count in mover.items():
        points[point - 1] += count
    for point, count in opponent.items():
        points[point - 1] -= count
    return Position("long-traditional", tuple(points), (0, 0), off)


def features(position: Position) -> dict[str, tuple[float, float]]:
    """Each feature's value for the mover and for the opponent."""
    x = LONG_FEATURES.encode(raw_boards([position]))[0, LONG_INPUTS:]
    return {name: (float(x[index]), float(x[WIDTH + index])) for index, name in enumerate(SIDE_FEATURES)}


def test_the_family_extends_the_long_one() -> None:
    """The first 202 inputs are the long family's, so a long network can be warm-started on them."""
    positions = game_positions("long-traditional", seed=3, count=50)
    raw = raw_boards(positions)
    assert LONG_FEATURES.inputs == LONG.inputs + 2 * WIDTH == 230
    assert np.array_equal(LONG_FEATURES.encode(raw)[:, :LONG_INPUTS], LONG.encode(raw))
    assert LONG_FEATURES.selector == LONG_INPUTS + CONTACT_COLUMN
    assert np.array_equal(LONG_FEATURES.source, (np.arange(24) + ROTATION) % 24)


@settings(max_examples=30, deadline=None)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 10**6))
def test_turning_over_swaps_the_sides(variant: str, seed: int) -> None:
    """Both sides are described alike: the opponent's features are the mover's of the turned board."""
    raw = raw_boards(game_positions(variant, seed=seed, count=10))
    x = LONG_FEATURES.encode(raw)[:, LONG_INPUTS:]
    turned = LONG_FEATURES.encode(turn_raw(raw, LONG_FEATURES))[:, LONG_INPUTS:]
    assert np.array_equal(turned[:, :WIDTH], x[:, WIDTH:]) and np.array_equal(turned[:, WIDTH:], x[:, :WIDTH])
    lead = SIDE_FEATURES.index("race_lead")
    assert np.all(np.abs(x) <= 1.0) and np.all(np.delete(x, [lead, WIDTH + lead], axis=1) >= 0.0)


def test_a_prime_traps_the_checkers_behind_it() -> None:
    """The mover's 4-point block on its points 4..7 (the opponent's 16..19): the opponent's 3 checkers on the
    mover's 10 (their 22) are behind it, the 12 on the mover's 2 (their 14) are past it."""
    position = board({4: 2, 5: 2, 6: 2, 7: 2, 24: 7}, {10: 3, 2: 12})
    f = features(position)
    assert f["block_front"][0] == pytest.approx(16 / 24)
    assert f["trapped"][0] == pytest.approx(3 / 15)
    # the opponent's rearmost checker (their 22) faces closed points 3, 4, 5, 6 and 10 pips ahead: no roll
    # carries it past the 10th (6-5 lands on a closed point either way, doubles stop at the block)
    assert f["escapes"][1] == 0.0
    # timing: 197 moves down to point 1, less one checker kept on each of the block's points (3 + 4 + 5 + 6)
    assert f["spare_pips"][0] == pytest.approx((197 - 18) / 360)
    assert f["contact"] == (1.0, 1.0)


def test_escape_table_against_a_plain_walk() -> None:
    """ESCAPES against a direct count: for each roll, every order of its dice walked point by point."""
    def reference(mask: int) -> int:
        closed = {d for d in range(1, WINDOW + 1) if mask >> (d - 1) & 1}
        farthest = max(closed, default=0)
        if not closed:
            return 36
        count = 0
        for high, low in DICE_ROLLS:
            orders = [[high] * 4] if high == low else [[high, low], [low, high]]
            reach = 0
            for order in orders:
                at = 0
                for die in order:
                    if at + die in closed:
                        break
                    at += die
                    reach = max(reach, at)
            count += (reach > farthest) * (1 if high == low else 2)
        return count

    rng = np.random.default_rng(7)
    for mask in [0, 1, 1 << 5, 1 << 11, 0b111111, 0b111111000000, *rng.integers(0, 1 << WINDOW, 300).tolist()]:
        assert ESCAPES[mask] == reference(mask), mask
    assert ESCAPES[1 << 5] == 20  # one point 6 ahead: 18 non-doubles of 7 pips or more, and 4-4, 5-5


def test_escapes_of_the_rearmost_checker() -> None:
    """The mover's last checker on its 24 with the opponent's only point 6 pips ahead (the mover's 18): 20 rolls;
    behind a six-point prime 7..12 pips ahead: none; with nothing ahead and nothing on the board: all 36."""
    one_point = board({24: 1, 1: 14}, {18: 15})
    prime = board({24: 1, 1: 14}, {12: 5, 13: 2, 14: 2, 15: 2, 16: 2, 17: 2})
    raced = board({1: 15}, {18: 15})
    sides = [(Side(np.maximum(r[:, :24], 0)), Side(np.maximum(-r[:, :24], 0)[:, LONG.source]))
             for r in (raw_boards([p]) for p in (one_point, prime, raced))]
    assert [int(escape_rolls(mine, theirs)[0]) for mine, theirs in sides] == [20, 0, 36]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.booleans(), min_size=24, max_size=24), min_size=1, max_size=5))
def test_longest_block_and_where_it_begins(rows: list[list[bool]]) -> None:
    def reference(row: list[bool]) -> tuple[int, int]:
        best, start = 0, -1
        for i in range(24):
            length = 0
            while i + length < 24 and row[i + length]:
                length += 1
            if length > best:
                best, start = length, i
        return best, start

    bits = np.array(rows, dtype=np.int64) @ (np.int64(1) << np.arange(24, dtype=np.int64))
    length, start = longest_block(bits)
    assert list(zip(length.tolist(), start.tolist())) == [reference(row) for row in rows]


def test_home_board_points_and_gaps() -> None:
    """Home points 1, 2, 4 and 6 held: four made, two gaps (3 and 5) below the highest; stacks past three
    count as wastage, checkers on 1..3 as deep."""
    position = board({1: 5, 2: 1, 4: 1, 6: 2, 24: 6}, {12: 15})
    f = features(position)
    assert f["home_made"][0] == pytest.approx(4 / 6)
    assert f["home_gaps"][0] == pytest.approx(2 / 5)
    assert f["stacked"][0] == pytest.approx(2 / 12)
    assert f["deep"][0] == pytest.approx(6 / 15)
    assert f["unpassed"] == (pytest.approx(6 / 15), 1.0)  # the opponent stands on its head (their 24)


def test_contact_and_race() -> None:
    """Contact lasts while either side has a checker with an opposing one ahead of it; the start is contact, two
    sides that have passed each other race. A checker on the mover's 3 is still ahead of the opponent's head
    (their 24 = the mover's 12), so that is contact though no mover's checker has one ahead."""
    start = features(Position.start("long-traditional"))
    home = features(board({1: 15}, {18: 15}))
    passed = features(board({8: 15}, {20: 15}))
    ahead = features(board({3: 15}, {12: 15}))
    assert start["contact"] == (1.0, 1.0) and start["in_contact"] == (1.0, 1.0)
    assert home["contact"] == passed["contact"] == (0.0, 0.0)
    assert ahead["contact"] == (1.0, 1.0) and ahead["in_contact"] == (0.0, 1.0)


def test_race_lead_and_crossovers() -> None:
    """The mover on its 8 (120 pips) against the opponent on their 8 (the mover's 20, 120 pips): no lead; 15
    checkers one quarter from home each."""
    f = features(board({8: 15}, {20: 15}))
    assert f["race_lead"] == (0.0, 0.0)
    assert f["crossovers"] == (pytest.approx(15 / 45), pytest.approx(15 / 45))
    ahead = features(board({8: 14}, {20: 15}, off=(1, 0)))
    assert ahead["race_lead"][0] == pytest.approx((120 - 112) / 232) == -ahead["race_lead"][1]


def test_contact_against_a_pairwise_reference() -> None:
    """The contact flag against the definition, checker by checker: some checker has an opposing one on a point
    it must still pass."""
    positions = game_positions("long-traditional", seed=11, count=400)
    raw = raw_boards(positions)
    mine = np.maximum(raw[:, :24], 0)
    theirs = np.maximum(-raw[:, :24], 0)[:, LONG.source]
    flags = long_features(mine, theirs)[:, CONTACT_COLUMN]

    def ahead(own: np.ndarray, other_here: np.ndarray) -> bool:
        return any(own[i] > 0 and other_here[j] > 0 for i in range(24) for j in range(i))

    expected = [
        ahead(m, np.maximum(-r[:24], 0)) or ahead(t, m[LONG.source]) for m, t, r in zip(mine, theirs, raw)
    ]
    assert flags.tolist() == [float(e) for e in expected]
    assert 0 < sum(expected) < len(expected)  # the games reach races


def test_small_and_large_batches_agree() -> None:
    """Small batches stack both sides into one (STACKED_ROWS), large ones do each side apart: the same numbers."""
    raw = raw_boards(game_positions("long-tournament", seed=5, count=2 * STACKED_ROWS))
    whole = LONG_FEATURES.encode(raw)
    pieces = np.concatenate([LONG_FEATURES.encode(raw[start : start + 37]) for start in range(0, len(raw), 37)])
    assert np.array_equal(whole, pieces)


def test_encoding_speed_is_bounded() -> None:
    """The hand-made inputs cost at most a few times the point units (the search encodes ~35,000 rows a
    decision at 2-ply): under 20 µs of CPU a row in a batch of 4,096 (about 3.5 µs on our machines)."""
    raw = np.concatenate([raw_boards(game_positions("long-traditional", seed=2, count=512))] * 8)
    LONG_FEATURES.encode(raw)
    began = time.process_time()
    LONG_FEATURES.encode(raw)
    assert (time.process_time() - began) / len(raw) < 20e-6
