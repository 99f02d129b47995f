"""An independent generator of fevga's legal plays, written from the rules text (docs/rules.md §10).

It shares no code with :mod:`nardy.rules`: each side's checkers are counted
by how far they have travelled along their own route (0 = their starting
point, 18..23 = their home, 24 = borne off), and the board is one ring of 24
spots on which our route position ``r`` is spot ``r`` and the opponent's
route position ``s`` is spot ``(s + 12) % 24`` (the starting points are
diagonally opposite). Plays are found by trying every order of the dice
one checker step at a time, keeping each distinct board once per depth,
and the rules are applied as the sources state them:

* a checker lands only on a spot no opposing checker stands on;
* until one of our checkers has passed the opponent's starting point (spot
  12), a checker leaves our starting point only while all fifteen are there;
* bearing off once all fifteen are home, as in backgammon;
* a play may not end with all six spots of our starting quarter (0..5) held;
* a play may not end holding the six spots directly in front of the one
  spot on which every opposing checker stands, unless no play avoids it;
* the most dice, and the larger die when only one can be played.

Only :func:`board_of` reads the engine's numbering
(docs/rules.md §2: our point ``p`` is route position ``24 - p``, the
opponent's starting point is our point 12).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SPOTS = 24
OFF = 24
CHECKERS = 15
HOME_FROM = 18
"""Route positions 18..23 are home."""
THEIR_START_SPOT = 12
"""The spot of the opponent's starting point, on our route."""
QUARTER = range(0, 6)
"""Our starting quarter, as route positions."""

Route = tuple[int, ...]
"""Our checkers: counts per route position 0..23, then the count borne off (25 numbers)."""


@dataclass(frozen=True)
class Board:
    """Our checkers along our route and the spots the opponent's checkers stand on (with their counts)."""

    ours: Route
    theirs: tuple[int, ...]
    """Opponent checkers per spot 0..23 of the ring (our route numbering), as positive counts."""

    def their_route(self) -> dict[int, int]:
        """The opponent's checkers by their own route position."""
        return {(spot - 12) % SPOTS: count for spot, count in enumerate(self.theirs) if count}


def board_of(points: Sequence[int], our_off: int) -> Board:
    """The board of the canonical ``points`` (our point p = points[p - 1], theirs negative) and our off count."""
    ours = [0] * (SPOTS + 1)
    theirs = [0] * SPOTS
    for index, count in enumerate(points):
        point = index + 1
        if count > 0:
            ours[SPOTS - point] += count
        elif count < 0:
            theirs[SPOTS - point] = -count
    ours[OFF] = our_off
    return Board(tuple(ours), tuple(theirs))


def _passed(ours: Route) -> bool:
    return any(ours[r] for r in range(THEIR_START_SPOT + 1, SPOTS + 1))


def _steps(ours: Route, theirs: tuple[int, ...], die: int) -> list[Route]:
    """Every board one step of ``die`` leads to."""
    results = []
    all_home = sum(ours[HOME_FROM:]) == CHECKERS
    passed = _passed(ours)
    for r in range(SPOTS):
        if not ours[r]:
            continue
        if r == 0 and not passed and ours[0] < CHECKERS:
            continue
        target = r + die
        if target < SPOTS:
            if theirs[target]:
                continue
        else:
            if not all_home:
                continue
            if target > SPOTS and any(ours[q] for q in range(HOME_FROM, r)):
                continue
            target = OFF
        moved = list(ours)
        moved[r] -= 1
        moved[target] += 1
        results.append(tuple(moved))
    return results


def _holds(ours: Route, spots: Sequence[int]) -> bool:
    return all(ours[s] > 0 for s in spots)


def trapping_spots(board: Board) -> tuple[int, ...] | None:
    """The six spots directly in front of the one spot holding every opposing checker on the board, if any."""
    route = board.their_route()
    if len(route) != 1:
        return None
    [(position, _)] = route.items()
    if position + 6 > SPOTS - 1:  # fewer than six spots of its route lie ahead of it
        return None
    return tuple((position + step + 12) % SPOTS for step in range(1, 7))


def legal_results(board: Board, dice: tuple[int, int]) -> set[Route]:
    """The boards (ours only: the opponent's checkers do not move) left by the legal plays of ``dice``.

    Empty when the roll cannot be played.
    """
    high, low = max(dice), min(dice)
    dice_left = (high,) * 4 if high == low else (high, low)
    # every (board, dice played, larger first) that some order of legal steps reaches
    candidates: dict[tuple[Route, tuple[int, ...]], None] = {(board.ours, ()): None}
    frontier: set[tuple[Route, tuple[int, ...], tuple[int, ...]]] = {(board.ours, dice_left, ())}
    while frontier:
        following: set[tuple[Route, tuple[int, ...], tuple[int, ...]]] = set()
        for ours, remaining, used in frontier:
            for index, die in enumerate(remaining):
                rest = remaining[:index] + remaining[index + 1:]
                for after in _steps(ours, board.theirs, die):
                    played = tuple(sorted((*used, die), reverse=True))
                    following.add((after, rest, played))
                    candidates[(after, played)] = None
        frontier = following
    plays = [(ours, used) for ours, used in candidates if not _holds(ours, QUARTER)]
    trap = trapping_spots(board)
    if trap is not None:
        open_plays = [(ours, used) for ours, used in plays if not _holds(ours, trap)]
        if open_plays:
            plays = open_plays
    most = max((len(used) for _, used in plays), default=0)
    plays = [(ours, used) for ours, used in plays if len(used) == most]
    if most == 1 and high != low and any(used == (high,) for _, used in plays):
        plays = [(ours, used) for ours, used in plays if used == (high,)]
    return {ours for ours, used in plays if used}
