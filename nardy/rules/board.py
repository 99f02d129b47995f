"""Board geometry shared by every variant.

Points are numbered 1..24 from the side to move's perspective; the side to
move always travels from 24 towards 1 and bears off past point 1 (docs/rules.md §2).
Inside the engine the bar is point 25 (a checker entering with die n lands on
25 - n) and "off" is point 0, so entering and bearing off are ordinary steps.
"""

from typing import Final

NUM_POINTS: Final = 24
MAX_CHECKERS: Final = 15
"""The most checkers a side may have (a variant says how many it has: ``Variant.checkers``); the move
generator and the position codecs count up to 15 on a point."""
BAR: Final = 25
OFF: Final = 0
HOME: Final = range(1, 7)

DICE_ROLLS: Final[tuple[tuple[int, int], ...]] = tuple(
    (high, low) for high in range(1, 7) for low in range(1, high + 1)
)
"""The 21 distinct rolls, larger die first (doubles once each)."""
