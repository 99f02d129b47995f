"""A plain-text board diagram, from the side to move's view, for terminals and logs.

The side to move is ``X`` and the opponent ``O``. Points 13..24 run along
the top and 12..1 along the bottom, the side to move's home (1..6) at the
bottom right, as docs/rules.md §2 numbers them in every variant; in long nardy
the opponent's checkers simply stand where its route passes on our numbers.
A stack shows up to five checkers; a taller one shows four and then its
count. Short variants draw the bar between the halves (the opponent's bar
checkers above, ours below); every board ends with bar, off and pip counts.

>>> from nardy.rules import Position
>>> print(render(Position.start("long-traditional")).splitlines()[0])
Long nardy (traditional) [long-traditional]: X to move
"""

from __future__ import annotations

from typing import Final

from nardy.rules import Position

MOVER: Final = "X"
OPPONENT: Final = "O"
ROWS: Final = 5
"""Rows per half; a taller stack shows its count in the last row."""

_CELL: Final = 3
_TOP_LEFT: Final = range(13, 19)
_TOP_RIGHT: Final = range(19, 25)
_BOTTOM_LEFT: Final = range(12, 6, -1)
_BOTTOM_RIGHT: Final = range(6, 0, -1)


def render(position: Position) -> str:
    """The diagram of ``position`` as lines of text (no trailing newline)."""
    has_bar = position.variant.has_bar
    middle = "BAR" if has_bar else "   "
    lines = [
        f"{position.variant.title} [{position.variant.name}]: {MOVER} to move",
        _labels(_TOP_LEFT, _TOP_RIGHT),
        _border(),
    ]
    for row in range(ROWS):
        lines.append(_row(position, _TOP_LEFT, _TOP_RIGHT, row, -position.bar[1]))
    lines.append(f"|{' ' * (6 * _CELL)} |{middle}|{' ' * (6 * _CELL)} |")
    for row in reversed(range(ROWS)):
        lines.append(_row(position, _BOTTOM_LEFT, _BOTTOM_RIGHT, row, position.bar[0]))
    lines.append(_border())
    lines.append(_labels(_BOTTOM_LEFT, _BOTTOM_RIGHT))
    mover_pips, opponent_pips = position.pip_counts()
    for mark, side, pips, note in ((MOVER, 0, mover_pips, " (to move)"), (OPPONENT, 1, opponent_pips, "")):
        bar = f"  bar {position.bar[side]:>2}" if has_bar else ""
        lines.append(f"{mark}{note:<10}{bar}  off {position.off[side]:>2}  pips {pips:>3}")
    return "\n".join(lines)


def _labels(left: range, right: range) -> str:
    numbers = "".join(f"{point:>{_CELL}}" for point in left)
    others = "".join(f"{point:>{_CELL}}" for point in right)
    return f" {numbers}      {others}"


def _border() -> str:
    half = "-" * (6 * _CELL + 1)
    return f"+{half}+---+{half}+"


def _row(position: Position, left: range, right: range, row: int, bar_count: int) -> str:
    cells = "".join(f"{_mark(position.points[point - 1], row):>{_CELL}}" for point in left)
    others = "".join(f"{_mark(position.points[point - 1], row):>{_CELL}}" for point in right)
    return f"|{cells} |{_mark(bar_count, row):^{_CELL}}|{others} |"


def _mark(count: int, row: int) -> str:
    """What row ``row`` (0 nearest the edge) of a stack of ``count`` checkers shows, signed as in a position."""
    height = abs(count)
    if height > ROWS and row == ROWS - 1:
        return str(height)
    if row < min(height, ROWS):
        return MOVER if count > 0 else OPPONENT
    return ""


__all__ = ["MOVER", "OPPONENT", "ROWS", "render"]
