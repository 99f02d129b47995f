"""An independent plakoto move generator, written from the rules texts and sharing no code with nardy.rules.

The board is 24 stacks, each a string read bottom to top: ``"m"`` a checker
of the player to move, ``"o"`` one of the opponent's. ``"om"`` is an opposing
checker pinned under one of ours. The player to move travels from point 24
to point 1 and bears off below 1. Sources (docs/rules.md §9):

- Wikipedia, "Plakoto": "a piece can only be moved to an open point. An open
  point is the one that is not occupied by two or more of the opponent's pieces";
- bkgm.com, "Plakoto"/"The Pin Game": "if you land on a point occupied by a
  single opposing checker, the opponent's checker is trapped until you remove
  your checker. Two of your checkers on a point, or one of your checkers
  pinning the opponent's checker creates a block which the opponent cannot
  land or touch down on";
- The Board (fibs.com), "Rules for Plakoto": "In order to be allowed to bear
  off, all checkers must be in the opponent's home board and they must also be free";
- backgammon's maximum-dice rule: play both dice (all four of a double) if
  possible; if only one can be played, the higher one when it can be.
"""

from __future__ import annotations

Stacks = tuple[str, ...]
State = tuple[Stacks, int]
"""24 stacks (index 0 is point 1) and the mover's borne-off count."""


def _can_bear_off(stacks: Stacks) -> bool:
    for index, stack in enumerate(stacks):
        if "m" in stack:
            if index >= 6:
                return False
            if stack[-1] != "m":  # covered: pinned
                return False
    return True


def _single_moves(state: State, die: int) -> list[State]:
    """Every state one checker moved by ``die`` can reach."""
    stacks, off = state
    found = []
    for index in range(24):
        stack = stacks[index]
        if not stack or stack[-1] != "m":
            continue
        point = index + 1
        goal = point - die
        lifted = list(stacks)
        lifted[index] = stack[:-1]
        if goal >= 1:
            there = stacks[goal - 1]
            if there and there[-1] == "o" and len(there) >= 2:
                continue
            lifted[goal - 1] = there + "m"
            found.append((tuple(lifted), off))
            continue
        if not _can_bear_off(stacks):
            continue
        if goal < 0 and any("m" in stacks[higher] for higher in range(point, 6)):
            continue
        found.append((tuple(lifted), off + 1))
    return found


def reference_results(state: State, dice: tuple[int, int]) -> set[State]:
    """The distinct states the legal plays of ``dice`` leave; empty when the roll cannot be played."""
    first, second = dice
    if first == second:
        level = {state}
        reached: set[State] = set()
        for _ in range(4):
            level = {after for before in level for after in _single_moves(before, first)}
            if not level:
                break
            reached = level
        return reached
    both: set[State] = set()
    singles: dict[int, set[State]] = {}
    for one, two in ((first, second), (second, first)):
        after_one = set(_single_moves(state, one))
        singles[one] = after_one
        for middle in after_one:
            both.update(_single_moves(middle, two))
    if both:
        return both
    larger, smaller = max(dice), min(dice)
    return singles[larger] or singles[smaller]
