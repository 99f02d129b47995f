"""Legal plays where a checker pins instead of hitting (plakoto, docs/rules.md §9).

A position of such a variant carries, beside its signed counts, one pin per
point (:attr:`~nardy.rules.position.Position.pinned`): +1 where a checker of
the side to move lies pinned under the opponent's checkers, -1 where an
opposing checker lies pinned under ours. The signed count of a point is then
the count of the side on top, which controls it. A step:

- lands on a point that is empty, ours, or holds one free opposing checker,
  which it pins; a point with two or more opposing checkers, or with one
  opposing checker on top of a pinned checker of ours, is closed;
- never moves a pinned checker (it stands under the opponent's count);
- frees the opposing checker pinned on its source when it takes away our last
  checker there;
- bears off only when all our checkers stand in the home board and none of
  them is pinned.

The maximum-dice and larger-die rules are backgammon's (docs/rules.md §1),
applied as :mod:`nardy.rules.movegen` applies them. This walk is Python only:
the compiled walk and the fast paths of the other variants do not know pins.
"""

from __future__ import annotations

from nardy.rules.board import BAR, NUM_POINTS, OFF
from nardy.rules.dice import moves_of
from nardy.rules.movegen import Board, RawStep, sequence_code

HOME_TOP = 6
"""The highest point of the home board."""

Pins = tuple[int, ...]
"""One pin per point 1..24 (+1: ours pinned under theirs, -1: theirs pinned under ours, 0: none)."""

Walked = list[tuple[tuple[RawStep, ...], Board, Pins]]
"""(steps, board, pins) per legal play or sequence; a board as :data:`nardy.rules.movegen.Board`."""


def walk(
    points: tuple[int, ...], pinned: Pins, off: tuple[int, int], dice: tuple[int, int], every_sequence: bool,
) -> Walked:
    """The legal plays of ``dice`` (one per distinct result), or with ``every_sequence`` every legal order.

    Each result is the steps, the board (our off, points 1..24, both bars,
    always 0) and the pins after them.
    """
    moves = moves_of(dice)
    double = len(moves) == 4
    board = [off[0], *points, 0]
    pins = [0, *pinned, 0]
    ours_pinned = any(pin > 0 for pin in pinned)
    outside = sum(count for count in board[HOME_TOP + 1:BAR] if count > 0)
    outside += sum(1 for pin in pinned[HOME_TOP:] if pin > 0)

    best = 0
    found: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[tuple[RawStep, ...], Board, Pins]] = {}
    sequences: Walked = []
    seen: set[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], int]] = set()

    # With four equal dice and no order asked for, the walk takes sources in descending order only: a
    # step never closes a point above its source, so the higher checkers moved first reach every board.
    descending = double and not every_sequence

    def visit(remaining: tuple[int, ...], steps: tuple[RawStep, ...], highest: int) -> None:
        nonlocal best, found, sequences, outside
        state = (tuple(board), tuple(pins))
        if not every_sequence:
            key = (*state, remaining, highest)
            if key in seen:
                return
            seen.add(key)
        depth = len(steps)
        if depth >= best:
            if depth > best:
                best, found, sequences = depth, {}, []
            result = (steps, (*board, 0), tuple(pins[1:BAR]))
            if every_sequence:
                sequences.append(result)
            else:
                known = found.get(state)
                if known is None or (depth == 1 and steps[0][2] > known[0][0][2]):
                    found[state] = result
        if not remaining:
            return
        for index, die in enumerate(remaining):
            if index and die == remaining[index - 1]:
                continue
            rest = remaining[:index] + remaining[index + 1:]
            for source in range(highest, 0, -1):
                if board[source] <= 0:
                    continue
                target = source - die
                pins_it = False
                if target > 0:
                    occupant = board[target]
                    if occupant < -1 or (occupant == -1 and pins[target] > 0):
                        continue
                    pins_it = occupant == -1
                else:
                    if outside or ours_pinned:
                        continue
                    if target < 0 and any(board[p] > 0 for p in range(source + 1, HOME_TOP + 1)):
                        continue
                    target = OFF
                freed = board[source] == 1 and pins[source] < 0
                board[source] -= 1
                if freed:
                    board[source], pins[source] = -1, 0
                if pins_it:
                    board[target], pins[target] = 1, -1
                else:
                    board[target] += 1
                left_outside = source > HOME_TOP >= target
                if left_outside:
                    outside -= 1
                visit(rest, (*steps, (source, target, die, pins_it)), source if descending else NUM_POINTS)
                if left_outside:
                    outside += 1
                if pins_it:
                    board[target], pins[target] = -1, 0
                else:
                    board[target] -= 1
                if freed:
                    board[source], pins[source] = 0, -1
                board[source] += 1

    visit(tuple(sorted(moves)), (), NUM_POINTS)
    results = sequences if every_sequence else list(found.values())
    if best == 1 and not double:
        larger = max(moves)
        if any(steps[0][2] == larger for steps, _, _ in results):
            results = [result for result in results if result[0][0][2] == larger]
    return results if best else []


def sequence_codes(points: tuple[int, ...], pinned: Pins, off: tuple[int, int], dice: tuple[int, int]) -> list[int]:
    """Every legal order of steps of ``dice``, packed as :func:`nardy.rules.movegen.sequence_code` packs them."""
    return [sequence_code(steps) for steps, _, _ in walk(points, pinned, off, dice, True)]


def after(
    points: tuple[int, ...], pinned: Pins, off: int, steps: list[RawStep],
) -> tuple[tuple[int, ...], Pins, int]:
    """(points, pins, our off) after ``steps`` as given, legal or not: a step onto a lone free opposing
    checker pins it."""
    board = [off, *points]
    pins = [0, *pinned]
    for source, target, _, _ in steps:
        freed = board[source] == 1 and pins[source] < 0
        board[source] -= 1
        if freed:
            board[source], pins[source] = -1, 0
        if target != OFF and board[target] == -1 and pins[target] == 0:
            board[target], pins[target] = 1, -1
        else:
            board[target] += 1
    return tuple(board[1:]), tuple(pins[1:]), board[OFF]
