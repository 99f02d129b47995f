"""Perft regression counts from every variant's start (``nardy.rules.perft``).

A ply is a roll and a play: the 21 distinct rolls each once, then one child
per legal play (one per distinct resulting position), the board turned. So
perft(1) is the number of plays summed over the 21 rolls, and perft(2) sums,
over every first play, the second player's plays over the 21 rolls.

Where the numbers come from: the backgammon counts are GNU Backgammon's too
(tests/oracles/gnubg_movegen.py gives the same per-roll opening counts and
202,782 at depth 2); the Georgian and long-nardy counts at every depth below
were recomputed with the independent generator ``reference_plays`` of
test_properties.py; the long-nardy depth-1 counts are worked out by hand
below. If a count changes, compare ``divide`` with the other generator to
find the roll and play that differ.
"""

from __future__ import annotations

import pytest

from nardy.rules import DICE_ROLLS, Position
from nardy.rules.perft import divide, perft

# (depth 1, depth 2[, depth 3]) from the start position.
COUNTS = {
    "backgammon": (447, 202_782),
    "dave": (447, 202_782),
    "georgian": (447, 200_516),
    "long-traditional": (22, 484, 35_387),
    "long-tournament": (22, 484, 35_387),
    "long-bolshie": (21, 441, 29_129),
}

# Distinct plays of each opening roll in backgammon, also gnubg's numbers.
BACKGAMMON_OPENING = {
    (1, 1): 42, (2, 1): 15, (2, 2): 75, (3, 1): 16, (3, 2): 17, (3, 3): 73,
    (4, 1): 14, (4, 2): 18, (4, 3): 17, (4, 4): 52, (5, 1): 8, (5, 2): 8,
    (5, 3): 9, (5, 4): 9, (5, 5): 4, (6, 1): 10, (6, 2): 14, (6, 3): 14,
    (6, 4): 14, (6, 5): 7, (6, 6): 11,
}

# Long nardy from the start, worked out by hand (docs/rules.md §6). All 15 of our
# checkers stand on our head, point 24; the opponent's 15 stand on our 12,
# which is closed to us. Only one checker may leave the head, so a
# non-double moves one checker by both dice: 24 -> 24-a-b through 24-a or
# 24-b, never landing on 12 (that needs a die of 12 or a + b = 12, i.e. 6-6).
# One play each for the 15 non-doubles. Doubles, one checker four times:
# 1-1 to 20, 2-2 to 16, 5-5 to 4 (via 19, 14, 9): one play each. 3-3, 4-4
# and 6-6 would run into 12 (24-21-18-15-12, 24-20-16-12, 24-18-12):
# * traditional/tournament, first-roll exception, two checkers may leave:
#   3-3 gives 21+15 or 18+18 (2 plays), 4-4 gives 16+16, 6-6 gives 18+18
#   (two moves only, as 004 says): 1 + 1 + 1 + 2 + 1 + 1 = 7 double plays,
#   15 + 7 = 22;
# * bolshie, no exception: one checker as far as it gets, 3-3 to 15, 4-4 to
#   16, 6-6 to 18 (fewer dice, the most that can be played): 6 double plays,
#   15 + 6 = 21.
# No six-block can form on the first move. The reply is the opponent's own
# first roll with the same counts per roll: our lone runner can close one of
# its landing points (after our 5-5 it stands on our 4, where the
# opponent's 6-2 would end), but then the opponent plays the larger die
# alone, still one play. Hence 22² = 484 and 21² = 441. Depth 3 (our second
# roll: no exception any more, and the runners interact) has no such
# shortcut; tournament equals traditional there because no block forms yet.
LONG_OPENING = {dice: 1 for dice in DICE_ROLLS}
LONG_OPENING_WITH_EXCEPTION = {**LONG_OPENING, (3, 3): 2}


@pytest.mark.parametrize("variant", sorted(COUNTS))
def test_perft_from_the_start(variant: str) -> None:
    """perft 1 and 2 (and 3 in long nardy) from the start match the recorded counts.

    A change in any count means the move generator changed: find where with
    ``divide`` (see ``test_divide_locates_the_counts``).
    """
    start = Position.start(variant)
    for depth, expected in enumerate(COUNTS[variant], start=1):
        assert perft(start, depth) == expected, f"{variant} perft({depth})"


def test_backgammon_opening_rolls() -> None:
    """Per roll, the backgammon opening counts are GNU Backgammon's (and dave moves like backgammon)."""
    for variant in ("backgammon", "dave"):
        counts = {entry.dice: entry.nodes for entry in divide(Position.start(variant), 1)}
        assert counts == BACKGAMMON_OPENING, variant


@pytest.mark.parametrize(
    ("variant", "expected"),
    [
        ("long-traditional", LONG_OPENING_WITH_EXCEPTION),
        ("long-tournament", LONG_OPENING_WITH_EXCEPTION),
        ("long-bolshie", LONG_OPENING),
    ],
)
def test_long_nardy_opening_rolls(variant: str, expected: dict[tuple[int, int], int]) -> None:
    """Per roll, the long-nardy opening counts are those worked out by hand above."""
    counts = {entry.dice: entry.nodes for entry in divide(Position.start(variant), 1)}
    assert counts == expected


def test_divide_locates_the_counts() -> None:
    """``divide`` lists every (roll, play) once, and its counts add up to ``perft``.

    Depth 2 from the long-nardy start: one line per opening play, each
    naming its roll and play, each counting the 22 replies.
    """
    start = Position.start("long-traditional")
    entries = divide(start, 2)
    assert sum(entry.nodes for entry in entries) == perft(start, 2) == 484
    assert len(entries) == 22
    assert all(entry.play is not None and entry.nodes == 22 for entry in entries)
    assert [entry.dice for entry in entries if entry.dice == (3, 3)] == [(3, 3), (3, 3)]
    plays_by_roll = {dice: start.legal_plays(dice) for dice in DICE_ROLLS}
    assert [entry.play for entry in entries] == [play for dice in DICE_ROLLS for play in plays_by_roll[dice]]


def test_perft_edge_cases() -> None:
    """Depth 0 is one leaf; a pass is one child; a finished game has none; bad depths are refused.

    The pass: our two checkers on the bar against a closed home board enter
    with no roll, so each of the 21 rolls has exactly one child.
    """
    start = Position.start("backgammon")
    assert perft(start, 0) == 1
    points = [0] * 24
    for point in range(19, 25):  # the opponent's home, our 19..24, all closed
        points[point - 1] = -2
    points[0] = 13  # the rest of ours on our 1 point
    shut_out = Position("backgammon", points, (2, 0), (0, 3))
    assert all(not shut_out.legal_plays(dice) for dice in DICE_ROLLS)
    assert perft(shut_out, 1) == 21
    assert [entry.nodes for entry in divide(shut_out, 1)] == [1] * 21
    assert all(entry.play is None for entry in divide(shut_out, 2))
    finished = Position("backgammon", [0] * 23 + [-15], (0, 0), (15, 0))
    assert perft(finished, 0) == 1
    assert perft(finished, 2) == 0
    assert divide(finished, 1) == []
    with pytest.raises(ValueError):
        perft(start, -1)
    with pytest.raises(ValueError):
        divide(start, 0)
