"""The canonical JSON position (docs/rules.md §2): exact output, strict input, round trips."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from nardy.notation import (
    NotationError,
    position_from_dict,
    position_from_json,
    position_to_dict,
    position_to_json,
)
from nardy.rules import InvalidPositionError, Position, UnknownVariantError
from tests.notation.notation_games import VARIANT_NAMES, make, reached

START_POINTS = [-2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2]


def valid() -> dict[str, object]:
    return {"variant": "backgammon", "points": list(START_POINTS), "bar": [0, 0], "off": [0, 0]}


def test_start_position_as_dict() -> None:
    assert position_to_dict(Position.start("backgammon")) == valid()


def test_json_text_is_exactly_the_documented_form() -> None:
    text = position_to_json(Position.start("long-tournament"))
    points = ", ".join(["0"] * 11 + ["-15"] + ["0"] * 11 + ["15"])
    assert text == f'{{"variant": "long-tournament", "points": [{points}], "bar": [0, 0], "off": [0, 0]}}'


def test_keys_come_in_the_order_of_rules_md() -> None:
    assert list(json.loads(position_to_json(Position.start("dave")))) == ["variant", "points", "bar", "off"]


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_start_positions_round_trip(variant: str) -> None:
    start = Position.start(variant)
    assert position_from_dict(position_to_dict(start)) == start
    assert position_from_json(position_to_json(start)) == start


def test_bar_and_off_are_kept() -> None:
    position = make("georgian", {6: 10, 1: 1}, {24: 3, 20: 2}, bar=(2, 1))
    data = position_to_dict(position)
    assert data["bar"] == [2, 1]
    assert data["off"] == [2, 9]
    assert position_from_json(position_to_json(position)) == position


@settings(max_examples=150, deadline=None)
@given(reached(VARIANT_NAMES))
def test_round_trip_of_positions_reached_by_play(position: Position) -> None:
    assert position_from_dict(position_to_dict(position)) == position
    assert position_from_json(position_to_json(position)) == position
    assert position_to_json(position_from_json(position_to_json(position))) == position_to_json(position)


def test_dict_is_plain_data_detached_from_the_position() -> None:
    data = position_to_dict(Position.start("backgammon"))
    data["points"][0] = 99
    assert Position.start("backgammon").points[0] == -2


# ----- strict reading


@pytest.mark.parametrize("data", [[1, 2], "backgammon", 3, None])
def test_not_an_object(data: object) -> None:
    with pytest.raises(NotationError, match="a position is a JSON object"):
        position_from_dict(data)


def test_unknown_key_is_named() -> None:
    data = valid() | {"cube": 2}
    with pytest.raises(NotationError, match="unknown key.*'cube'"):
        position_from_dict(data)


@pytest.mark.parametrize("key", ["variant", "points", "bar", "off"])
def test_missing_key_is_named(key: str) -> None:
    data = valid()
    del data[key]
    with pytest.raises(NotationError, match=f"missing key.*'{key}'"):
        position_from_dict(data)


def test_variant_must_be_a_string() -> None:
    with pytest.raises(NotationError, match="'variant' must be a string, got a number"):
        position_from_dict(valid() | {"variant": 1})


def test_unknown_variant_lists_the_known_ones() -> None:
    with pytest.raises(UnknownVariantError, match="'chess'.*backgammon"):
        position_from_dict(valid() | {"variant": "chess"})


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("points", {"1": 2}, "'points' must be a list of 24 integers, got an object"),
        ("points", START_POINTS[:23], "'points' must hold 24 integers, got 23"),
        ("points", [*START_POINTS, 0], "'points' must hold 24 integers, got 25"),
        ("points", [2.0, *START_POINTS[1:]], r"'points'\[0\] must be an integer, got a number 2.0"),
        ("points", [*START_POINTS[:5], "5", *START_POINTS[6:]], r"'points'\[5\] must be an integer, got a string"),
        ("bar", [0], "'bar' must hold 2 integers, got 1"),
        ("bar", "00", "'bar' must be a list of 2 integers, got a string"),
        ("off", [0, 0, 0], "'off' must hold 2 integers, got 3"),
        ("off", [False, 0], r"'off'\[0\] must be an integer, got a boolean"),
        ("off", None, "'off' must be a list of 2 integers, got null"),
    ],
)
def test_wrong_type_or_length_is_named(key: str, value: object, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        position_from_dict(valid() | {key: value})


def test_checker_counts_are_checked_by_the_position() -> None:
    points = list(START_POINTS)
    points[5] = 4
    with pytest.raises(InvalidPositionError, match="the side to move has 14 checkers"):
        position_from_dict(valid() | {"points": points})
    with pytest.raises(InvalidPositionError, match="cannot be negative"):
        position_from_dict(valid() | {"bar": [0, -1], "off": [0, 1]})


def test_long_nardy_has_no_bar() -> None:
    data = position_to_dict(Position.start("long-bolshie"))
    data["points"][23] = 14
    data["bar"] = [1, 0]
    with pytest.raises(InvalidPositionError, match="has no bar"):
        position_from_dict(data)


@pytest.mark.parametrize("text", ["", "{", '{"variant": "backgammon",}', "nan nan"])
def test_bad_json_is_a_clear_error(text: str) -> None:
    with pytest.raises(NotationError, match=r"not valid JSON: .*line 1, column"):
        position_from_json(text)


def test_repeated_key_is_refused() -> None:
    text = position_to_json(Position.start("backgammon"))[:-1] + ', "off": [0, 0]}'
    with pytest.raises(NotationError, match="duplicate key 'off'"):
        position_from_json(text)


def test_json_errors_are_value_errors() -> None:
    with pytest.raises(ValueError):
        position_from_json("[]")
