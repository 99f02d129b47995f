"""The canonical JSON position of docs/rules.md §2, read strictly and written exactly.

The CLI, the tests and the wire protocol exchange positions as
``{"variant": ..., "points": [24 ints], "bar": [a, b], "off": [c, d]}``,
seen from the side to move. Reading is strict on purpose: an unknown or
missing key, a wrong type or a wrong length is reported by name instead of
being guessed at, and the checker counts are checked by :class:`Position`
itself, so there is one definition of a valid position.

>>> from nardy.rules import Position
>>> text = position_to_json(Position.start("long-bolshie"))
>>> position_from_json(text) == Position.start("long-bolshie")
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Final, NotRequired, TypedDict

from nardy.notation.errors import NotationError
from nardy.rules import NUM_POINTS, Position, find_variant


class PositionDict(TypedDict):
    """The canonical position as plain JSON-ready data."""

    variant: str
    points: list[int]
    bar: list[int]
    off: list[int]
    pinned: NotRequired[list[int]]


KEYS: Final = ("variant", "points", "bar", "off")
"""The keys of the canonical position, in the order they are written."""

PINNED: Final = "pinned"
"""The key of a variant with pins (plakoto): per point, +1 a checker of the side to move pinned under the
opponent's, -1 an opponent's pinned under ours; written after the others, and only for such a variant."""

_LENGTHS: Final = {"points": NUM_POINTS, "bar": 2, "off": 2, PINNED: NUM_POINTS}


def position_to_dict(position: Position) -> PositionDict:
    """The canonical JSON data of ``position`` (docs/rules.md §2), with its pins where the variant has them."""
    data: PositionDict = {
        "variant": position.variant.name,
        "points": list(position.points),
        "bar": list(position.bar),
        "off": list(position.off),
    }
    if position.pinned:
        data[PINNED] = list(position.pinned)
    return data


def position_from_dict(data: object) -> Position:
    """Read a canonical position, requiring exactly the keys variant, points, bar and off.

    Raises :class:`NotationError` for a wrong shape (naming the key),
    :class:`nardy.rules.UnknownVariantError` for an unknown variant and
    :class:`nardy.rules.InvalidPositionError` for impossible checker counts.
    """
    if not isinstance(data, Mapping):
        raise NotationError(f"a position is a JSON object, got {_json_type(data)}")
    unknown = [key for key in data if key not in KEYS and key != PINNED]
    if unknown:
        raise NotationError(f"unknown key(s) in position: {', '.join(map(repr, unknown))}")
    missing = [key for key in KEYS if key not in data]
    if missing:
        raise NotationError(f"missing key(s) in position: {', '.join(map(repr, missing))}")
    variant = data["variant"]
    if not isinstance(variant, str):
        raise NotationError(f"'variant' must be a string, got {_json_type(variant)}")
    points, bar, off = (_int_list(data, key) for key in ("points", "bar", "off"))
    pinned = _int_list(data, PINNED) if PINNED in data else []
    return Position(find_variant(variant), tuple(points), (bar[0], bar[1]), (off[0], off[1]), tuple(pinned))


def position_to_json(position: Position) -> str:
    """The canonical JSON text of ``position``, keys in the order of docs/rules.md §2."""
    return json.dumps(position_to_dict(position))


def position_from_json(text: str) -> Position:
    """Read canonical JSON text; malformed JSON or a repeated key is a :class:`NotationError`."""
    try:
        data: object = json.loads(text, object_pairs_hook=_reject_duplicates)
    except json.JSONDecodeError as error:
        raise NotationError(
            f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        ) from error
    return position_from_dict(data)


def _int_list(data: Mapping[object, object], key: str) -> list[int]:
    value = data[key]
    length = _LENGTHS[key]
    if not isinstance(value, list):
        raise NotationError(f"{key!r} must be a list of {length} integers, got {_json_type(value)}")
    if len(value) != length:
        raise NotationError(f"{key!r} must hold {length} integers, got {len(value)}")
    for index, item in enumerate(value):
        if isinstance(item, bool) or not isinstance(item, int):
            raise NotationError(f"{key!r}[{index}] must be an integer, got {_json_type(item)} {item!r}")
    return value


def _reject_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
    result: dict[str, object] = {}
    for key, value in pairs:
        if key in result:
            raise NotationError(f"duplicate key {key!r} in JSON object")
        result[key] = value
    return result


def _json_type(value: object) -> str:
    """The JSON name of a decoded value's type, for error messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__
