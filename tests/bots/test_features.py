"""The hand-made short-family inputs (nardy.bots.features), checked against counts any player knows."""

from __future__ import annotations

import numpy as np
import pytest
from bot_positions import game_positions

from nardy.bots.encoding import SHORT, encode, raw_boards
from nardy.bots.features import COUNT
from nardy.rules import DICE_ROLLS, Position, find_variant

HALF = SHORT.inputs // 2
FEATURES = slice(HALF - COUNT, HALF)
SHOTS, ESCAPE, PRIME, DANCE, CONTACT = range(COUNT)


def theirs(position: Position) -> np.ndarray:
    """The opponent's features in ``position``'s encoding (the side to move's are the first half)."""
    return encode([position])[0][HALF:][FEATURES]


def mine(position: Position) -> np.ndarray:
    return encode([position])[0][:HALF][FEATURES]


def board(mover: dict[int, int], opponent: dict[int, int], bar: tuple[int, int] = (0, 0)) -> Position:
    """A backgammon position from the mover's numbering; the rest of each side's 15 is borne off."""
    points = [0] * 24
    for point, count in mover.items():
        points[point - 1] = count
    for point, count in opponent.items():
        points[point - 1] = -count
    off = (15 - sum(mover.values()) - bar[0], 15 - sum(opponent.values()) - bar[1])
    return Position(find_variant("backgammon"), tuple(points), bar, off)


@pytest.mark.parametrize(("distance", "rolls"), [(1, 11), (2, 12), (3, 14), (4, 15), (5, 15), (6, 17),
                                                 (7, 6), (8, 6), (9, 5), (10, 3), (11, 2), (12, 3),
                                                 (15, 1), (16, 1), (18, 1), (20, 1)])
def test_shots_at_a_lone_blot_are_the_textbook_counts(distance: int, rolls: int) -> None:
    """The classic table of direct and indirect shots at a blot ``distance`` pips away, nothing in between."""
    position = board({24: 1}, {24 - distance: 1})
    assert theirs(position)[SHOTS] == pytest.approx(rolls / 36)


def test_made_points_in_between_block_indirect_shots() -> None:
    """Eight pips away with two points made in between: 6-2, 5-3 through open points; 4-4 and 2-2 blocked."""
    position = board({24: 1}, {16: 1, 20: 2, 18: 2})
    # 6-2: 24->18 blocked, 24->22->16 open; 5-3: 24->19->16 / 24->21->16 open; 4-4: 24->20 blocked; 2-2: 22, 20 blocked
    assert theirs(position)[SHOTS] == pytest.approx(4 / 36)


def test_checkers_on_the_bar_enter_before_hitting() -> None:
    """A blot one pip in front of our checkers: 11 shots plus 1-1, 2-2... fewer once we have to enter first."""
    free = board({6: 14, 24: 1}, {5: 1})
    assert theirs(free)[SHOTS] == pytest.approx(11 / 36)
    # one on the bar: enter with one die (onto our 19..24, all open) and hit with a 1 from the 6-point, or 5-5
    # from the bar (25 -> 20 -> 15 -> 10 -> 5), or 1-1 entering on 24 then playing 6 -> 5
    one = board({6: 14}, {5: 1}, bar=(1, 0))
    assert theirs(one)[SHOTS] == pytest.approx(12 / 36)
    # two on the bar: a non-double only enters; 1-1 enters both and hits with the other two ones
    two = board({6: 13}, {5: 1}, bar=(2, 0))
    assert theirs(two)[SHOTS] == pytest.approx(1 / 36)
    # their home board closed but for its 1 point (our 24): one on the bar enters only with a 1
    closed = board({6: 14}, {5: 1, 19: 2, 20: 2, 21: 2, 22: 2, 23: 2}, bar=(1, 0))
    # entering needs a 1 (onto our 24); then a 1 from the 6-point hits: 1-1 only
    assert theirs(closed)[SHOTS] == pytest.approx(1 / 36)


def test_escape_in_front_of_a_full_prime() -> None:
    """A back checker on 24 facing a prime on 18..13 moves its whole roll only with 1-1, 1-2, 1-3, 1-4 and 2-3."""
    position = board({24: 1, 6: 14}, {point: 2 for point in range(13, 19)})
    assert mine(position)[ESCAPE] == pytest.approx(9 / 36)
    assert theirs(position)[PRIME] == pytest.approx(1.0)


def test_dance_and_contact() -> None:
    """On the bar against a four-point board: 16 of the 36 rolls fail to enter. A pure race has no contact."""
    closed = board({6: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 1: 7}, bar=(1, 0))
    assert mine(closed)[DANCE] == pytest.approx(16 / 36)
    assert mine(closed)[CONTACT] == theirs(closed)[CONTACT] == 1.0
    race = board({6: 5, 5: 5}, {20: 5, 19: 5})
    assert mine(race)[CONTACT] == 0.0 and mine(race)[ESCAPE] == 1.0 and mine(race)[DANCE] == 0.0


def test_shots_agree_with_the_rules_engine() -> None:
    """In positions from real games (nobody on the bar), the rolls with a legal hitting play are the shots.

    The features ignore what the rest of the roll must do (the maximum-dice rule, bearing off), so a
    few positions may differ; nearly all agree exactly.
    """
    positions = [p for p in game_positions("backgammon", seed=5, count=600) if p.bar == (0, 0)]
    features = encode(positions)[:, HALF:][:, FEATURES][:, SHOTS]
    agree = 0
    for position, shots in zip(positions, features):
        hitting = sum(
            1 if roll[0] == roll[1] else 2
            for roll in DICE_ROLLS
            if any(step.hit for play in position.legal_plays(roll) for step in play.steps)
        )
        agree += hitting == round(shots * 36)
    assert agree >= 0.98 * len(positions)


def test_features_are_read_off_raw_boards_in_one_batch() -> None:
    positions = game_positions("georgian", seed=2, count=50)
    together = SHORT.encode(raw_boards(positions))
    one_by_one = np.vstack([SHORT.encode(raw_boards([p])) for p in positions])
    assert np.array_equal(together, one_by_one)
