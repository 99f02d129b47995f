"""The ASCII board: read back from the diagram, every point, bar and off count must match.

``read_point`` finds a point's column from the number labels and counts the
stack in its half of the board, so the tests check what a reader sees.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings

from nardy.notation import render
from nardy.notation.ascii_board import ROWS
from nardy.rules import Position
from tests.notation.notation_games import LONG_VARIANTS, SHORT_VARIANTS, VARIANT_NAMES, make, reached

TOP_LABELS = 1
TOP_ROWS = range(3, 3 + ROWS)
BOTTOM_ROWS = range(4 + ROWS, 4 + 2 * ROWS)
BOTTOM_LABELS = 5 + 2 * ROWS


def read_point(diagram: str, point: int) -> int:
    """The signed count of ``point`` as drawn: X positive, O negative."""
    lines = diagram.splitlines()
    top = point >= 13
    labels = lines[TOP_LABELS if top else BOTTOM_LABELS]
    match = re.search(rf"(?<!\d){point}(?!\d)", labels)
    assert match, f"no label for point {point}"
    end = match.end()
    column = [lines[row][end - 3:end].strip() for row in (TOP_ROWS if top else BOTTOM_ROWS)]
    return _stack(column)


def read_bar(diagram: str) -> tuple[int, int]:
    """(X, O) checkers drawn in the bar column: O in the top half, X in the bottom half."""
    lines = diagram.splitlines()
    start = lines[2].index("+---+") + 1
    top = [lines[row][start:start + 3].strip() for row in TOP_ROWS]
    bottom = [lines[row][start:start + 3].strip() for row in BOTTOM_ROWS]
    return _stack(bottom), -_stack(top)


def _stack(cells: list[str]) -> int:
    marks = [cell for cell in cells if cell]
    if not marks:
        return 0
    sign = 1 if "X" in marks else -1
    numbers = [int(cell) for cell in marks if cell.isdigit()]
    return sign * (numbers[0] if numbers else len(marks))


def summary(diagram: str, mark: str) -> dict[str, int]:
    line = next(line for line in diagram.splitlines() if line.startswith(mark))
    return {name: int(value) for name, value in re.findall(r"(bar|off|pips)\s+(\d+)", line)}


def test_backgammon_start() -> None:
    diagram = render(Position.start("backgammon"))
    expected = {24: 2, 13: 5, 8: 3, 6: 5, 1: -2, 12: -5, 17: -3, 19: -5}
    for point in range(1, 25):
        assert read_point(diagram, point) == expected.get(point, 0), point
    assert summary(diagram, "X") == {"bar": 0, "off": 0, "pips": 167}
    assert summary(diagram, "O") == {"bar": 0, "off": 0, "pips": 167}


@pytest.mark.parametrize("variant", LONG_VARIANTS)
def test_long_nardy_start(variant: str) -> None:
    diagram = render(Position.start(variant))
    assert read_point(diagram, 24) == 15
    assert read_point(diagram, 12) == -15
    assert all(read_point(diagram, point) == 0 for point in range(1, 25) if point not in (12, 24))
    assert summary(diagram, "X") == {"off": 0, "pips": 360}
    assert "bar" not in diagram.lower()


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_header_names_the_variant_and_the_side_to_move(variant: str) -> None:
    first = render(Position.start(variant)).splitlines()[0]
    assert variant in first
    assert "X to move" in first


def test_labels_run_13_to_24_on_top_and_12_to_1_below() -> None:
    lines = render(Position.start("backgammon")).splitlines()
    assert [int(n) for n in lines[TOP_LABELS].split()] == list(range(13, 25))
    assert [int(n) for n in lines[BOTTOM_LABELS].split()] == list(range(12, 0, -1))


def test_tall_stacks_show_their_count() -> None:
    position = make("georgian", {6: 9, 1: 6}, {19: 7, 24: 5}, bar=(0, 3))
    diagram = render(position)
    assert read_point(diagram, 6) == 9
    assert read_point(diagram, 1) == 6
    assert read_point(diagram, 19) == -7
    assert read_point(diagram, 24) == -5
    assert read_bar(diagram) == (0, 3)
    assert summary(diagram, "O")["bar"] == 3


def test_bar_and_off() -> None:
    position = make("backgammon", {6: 10}, {24: 10, 23: 1}, bar=(2, 1))
    diagram = render(position)
    assert read_bar(diagram) == (2, 1)
    assert summary(diagram, "X") == {"bar": 2, "off": 3, "pips": 110}
    assert summary(diagram, "O")["off"] == 3


def test_board_lines_have_one_width() -> None:
    lines = render(Position.start("backgammon")).splitlines()
    board = lines[2:BOTTOM_LABELS]
    assert len({len(line) for line in board}) == 1


@settings(max_examples=100, deadline=None)
@given(reached(VARIANT_NAMES))
def test_diagram_shows_every_count(position: Position) -> None:
    diagram = render(position)
    for point in range(1, 25):
        assert read_point(diagram, point) == position.points[point - 1], point
    mover, opponent = summary(diagram, "X"), summary(diagram, "O")
    assert (mover["off"], opponent["off"]) == position.off
    assert (mover["pips"], opponent["pips"]) == position.pip_counts()
    if position.variant.name in SHORT_VARIANTS:
        assert read_bar(diagram) == position.bar
        assert (mover["bar"], opponent["bar"]) == position.bar
