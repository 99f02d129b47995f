"""GNU Backgammon Position ID and Match ID.

The fixed examples come from the gnubg manual's "A technical description of
the Position ID / Match ID" (the start position ``4HPwATDgc/ABMA`` with its
key ``E0 73 F0 01 30 E0 73 F0 01 30``; the match ``QYkqASAAIAAA``: 9-point
match, score 2-4, player 0 holds a 2-cube, player 1 has rolled 5-2, key
``41 89 2A 01 20 00 20 00 00``). The manual's example position is symmetric,
so it cannot show which side is written first; ``sGfwATDgc/ABMA`` (after the
opening 3-1 played 8/5 6/5, the other side on roll) is what gnubg itself
prints, checked with gnubg's own ``PositionID`` through ``gnubg-nn``.

``manual_key`` below is a second, independent encoder written straight from
the manual's bit-string description, to check every random position against.
"""

from __future__ import annotations

import base64
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.notation import (
    GameState,
    MatchIdFields,
    NotationError,
    Resignation,
    match_from_id,
    match_id,
    position_from_id,
    position_id,
)
from nardy.rules import Position
from tests.notation.notation_games import LONG_VARIANTS, PINNING_VARIANTS, SHORT_VARIANTS, make, reached

START_ID = "4HPwATDgc/ABMA"
MANUAL_MATCH_ID = "QYkqASAAIAAA"
MANUAL_MATCH = MatchIdFields(
    cube_value=2,
    cube_owner="player0",
    player_on_roll=1,
    crawford=False,
    game_state=GameState.PLAYING,
    turn=1,
    doubled=False,
    resigned=Resignation.NONE,
    dice=(5, 2),
    match_length=9,
    score=(2, 4),
)


def key_bytes(identifier: str) -> bytes:
    return base64.b64decode(identifier + "=" * (-len(identifier) % 4))


def manual_key(position: Position) -> bytes:
    """The 80-bit key by the manual's recipe: per side, points 1..24 then the bar, n ones and a zero.

    The side not on roll is written first, as gnubg does.
    """
    mover = [max(count, 0) for count in position.points] + [position.bar[0]]
    opponent = [max(-position.points[24 - point], 0) for point in range(1, 25)] + [position.bar[1]]
    bits = "".join("1" * count + "0" for count in opponent + mover).ljust(80, "0")
    return bytes(int(bits[i:i + 8][::-1], 2) for i in range(0, 80, 8))


# ----- Position ID: the documented examples


GNUBG_START_IDS = {"nackgammon": "4Dl4ADbgOXgANg", "hypergammon": "AACgAgAAKgAAAA"}
"""The Position IDs GNU Backgammon 1.07 shows after ``set variation nackgammon`` (or
``3-chequer-hypergammon``) and ``new session``: its own starts of these variations."""


@pytest.mark.parametrize("variant", SHORT_VARIANTS)
def test_start_position_id(variant: str) -> None:
    start_id = GNUBG_START_IDS.get(variant, START_ID)
    assert position_id(Position.start(variant)) == start_id
    assert position_from_id(start_id, variant) == Position.start(variant)


def test_an_id_with_more_checkers_than_the_variant_has_is_refused() -> None:
    with pytest.raises(NotationError, match="each side has 3 in hypergammon"):
        position_from_id(START_ID, "hypergammon")


def test_start_key_bytes_from_the_manual() -> None:
    assert key_bytes(START_ID) == bytes.fromhex("E073F00130E073F00130")
    assert manual_key(Position.start("backgammon")) == key_bytes(START_ID)


def test_side_not_on_roll_comes_first_as_in_gnubg() -> None:
    start = Position.start("backgammon")
    [play] = [p for p in start.legal_plays((3, 1)) if sorted((s.source, s.target) for s in p.steps) == [(6, 5), (8, 5)]]
    assert position_id(play.position.turned()) == "sGfwATDgc/ABMA"
    assert position_id(play.position) == "4HPwATCwZ/ABMA"
    assert position_from_id("sGfwATDgc/ABMA") == play.position.turned()


def test_default_variant_is_backgammon_and_others_can_be_named() -> None:
    assert position_from_id(START_ID).variant.name == "backgammon"
    assert position_from_id(START_ID, "georgian").variant.name == "georgian"


# ----- Position ID: bar, off and random positions


def test_bar_and_borne_off_checkers() -> None:
    position = make("dave", {6: 3, 1: 1}, {24: 2}, bar=(2, 13))
    assert position.off == (9, 0)
    assert position_id(position) == base64.b64encode(manual_key(position)).decode().rstrip("=")
    assert position_from_id(position_id(position), "dave") == position


def test_everything_borne_off_but_one() -> None:
    position = make("backgammon", {1: 1}, {24: 1})
    assert position_from_id(position_id(position)) == position


@settings(max_examples=200, deadline=None)
@given(reached(SHORT_VARIANTS))
def test_round_trip_and_manual_layout(position: Position) -> None:
    pid = position_id(position)
    assert len(pid) == 14
    assert key_bytes(pid) == manual_key(position)
    assert position_from_id(pid, position.variant) == position


@pytest.mark.parametrize("variant", PINNING_VARIANTS)
def test_positions_with_pins_have_no_position_id(variant: str) -> None:
    with pytest.raises(NotationError, match="cannot hold pinned checkers"):
        position_id(Position.start(variant))
    with pytest.raises(NotationError, match="cannot hold pinned checkers"):
        position_from_id(START_ID, variant)


@pytest.mark.parametrize("variant", LONG_VARIANTS)
def test_long_nardy_has_no_position_id(variant: str) -> None:
    with pytest.raises(NotationError, match=f"{variant} has no gnubg Position ID"):
        position_id(Position.start(variant))
    with pytest.raises(NotationError, match=f"{variant} has no gnubg Position ID"):
        position_from_id(START_ID, variant)


# ----- Position ID: malformed input


@pytest.mark.parametrize(
    ("pid", "message"),
    [
        ("4HPwATDgc/ABM", "14 Base64 characters"),
        ("4HPwATDgc/ABMAA", "14 Base64 characters"),
        ("", "14 Base64 characters"),
        ("4HPwATDgc/AB-A", "contains '-', which is not Base64"),
        ("4HPwATDgc/ABMB", "stray bits"),
        ("//////////////"[:13] + "w", "does not hold two sides"),
    ],
)
def test_malformed_position_ids(pid: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        position_from_id(pid)


def _id_of_bits(bits: str) -> str:
    data = bytes(int(bits.ljust(80, "0")[i:i + 8][::-1], 2) for i in range(0, 80, 8))
    return base64.b64encode(data).decode().rstrip("=")


def test_too_many_checkers_for_one_side() -> None:
    pid = _id_of_bits("0" * 25 + "1" * 16 + "0" * 25)
    with pytest.raises(NotationError, match="gives the player on roll 16 checkers"):
        position_from_id(pid)


def test_both_sides_on_one_point() -> None:
    # The opponent on its 24 point, which is our 1 point, where we stand too.
    pid = _id_of_bits("0" * 23 + "10" + "0" + "10" + "0" * 24)
    with pytest.raises(NotationError, match="both sides on point 1"):
        position_from_id(pid)


# ----- Match ID


def test_match_id_example_from_the_manual() -> None:
    assert key_bytes(MANUAL_MATCH_ID) == bytes.fromhex("41892A012000200000")
    assert match_from_id(MANUAL_MATCH_ID) == MANUAL_MATCH
    assert match_id(MANUAL_MATCH) == MANUAL_MATCH_ID


# Every field zero: player 0 owns a 1-cube, no game started.
ZERO = MatchIdFields(cube_owner="player0", game_state=GameState.NONE)

# The manual's bit numbers (1-based, first bit = least significant) of each field.
FIELD_BITS = [
    (replace(ZERO, cube_value=2**15), 1, 15),
    (replace(ZERO, cube_owner="player1"), 5, 1),
    (replace(ZERO, player_on_roll=1), 7, 1),
    (replace(ZERO, crawford=True), 8, 1),
    (replace(ZERO, game_state=GameState.PLAYING), 9, 1),
    (replace(ZERO, game_state=GameState.DROPPED), 9, 4),
    (replace(ZERO, turn=1), 12, 1),
    (replace(ZERO, doubled=True), 13, 1),
    (replace(ZERO, resigned=Resignation.BACKGAMMON), 14, 3),
    (replace(ZERO, dice=(6, 1)), 16, 6 + (1 << 3)),
    (replace(ZERO, match_length=32767), 22, 32767),
    (replace(ZERO, score=(32767, 0)), 37, 32767),
    (replace(ZERO, score=(0, 32767)), 52, 32767),
    (replace(ZERO, jacoby=False), 67, 1),  # not in the manual: gnubg's matchid.c, and gnubg itself (below)
]


def test_all_zero_fields() -> None:
    assert match_id(ZERO) == "AAAAAAAAAAAA"
    assert match_from_id("AAAAAAAAAAAA") == ZERO


@pytest.mark.parametrize(("fields", "first_bit", "value"), FIELD_BITS)
def test_each_field_sits_where_the_manual_says(fields: MatchIdFields, first_bit: int, value: int) -> None:
    assert int.from_bytes(key_bytes(match_id(fields)), "little") == value << (first_bit - 1)
    assert match_from_id(match_id(fields)) == fields


def test_centred_cube_is_binary_11() -> None:
    key = int.from_bytes(key_bytes(match_id(MatchIdFields(game_state=GameState.NONE))), "little")
    assert key == 0b11 << 4


@pytest.mark.parametrize(("mid", "match_length", "jacoby"), [
    ("cIkJAAAAAAAA", 0, True),  # set jacoby on, new session
    ("cAkTAAAAAAAE", 0, False),  # set jacoby off, new session
    ("cAmzAAAAAAAE", 5, False),  # new match 5: gnubg never applies the Jacoby rule in a match
])
def test_match_ids_gnubg_prints_carry_the_jacoby_bit(mid: str, match_length: int, jacoby: bool) -> None:
    """What GNU Backgammon 1.07 printed (``show matchid``) after the commands beside each."""
    fields = match_from_id(mid)
    assert (fields.match_length, fields.jacoby) == (match_length, jacoby)
    assert match_id(fields) == mid


match_fields = st.builds(
    MatchIdFields,
    cube_value=st.sampled_from([2**n for n in range(16)]),
    cube_owner=st.sampled_from(["centre", "player0", "player1"]),
    player_on_roll=st.integers(0, 1),
    crawford=st.booleans(),
    game_state=st.sampled_from(list(GameState)),
    turn=st.integers(0, 1),
    doubled=st.booleans(),
    resigned=st.sampled_from(list(Resignation)),
    dice=st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6))),
    match_length=st.integers(0, 32767),
    score=st.tuples(st.integers(0, 32767), st.integers(0, 32767)),
    jacoby=st.booleans(),
)


@given(match_fields)
def test_match_id_round_trip(fields: MatchIdFields) -> None:
    mid = match_id(fields)
    assert len(mid) == 12
    assert match_from_id(mid) == fields


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"cube_value": 3}, "power of two"),
        ({"cube_value": 2**16}, "power of two"),
        ({"cube_value": 0}, "power of two"),
        ({"cube_owner": "nobody"}, "cube owner"),
        ({"player_on_roll": 2}, "player_on_roll is player 0 or 1"),
        ({"turn": -1}, "turn is player 0 or 1"),
        ({"dice": (0, 3)}, "dice are"),
        ({"dice": (7, 1)}, "dice are"),
        ({"dice": (1, 2, 3)}, "dice is a pair"),
        ({"match_length": 32768}, "match length"),
        ({"score": (-1, 0)}, "each score"),
        ({"game_state": 5}, "game state"),
        ({"resigned": 4}, "resignation"),
    ],
)
def test_invalid_match_fields(changes: dict[str, object], message: str) -> None:
    with pytest.raises(NotationError, match=message):
        MatchIdFields(**changes)  # type: ignore[arg-type]


def _match_id_of_key(key: int) -> str:
    return base64.b64encode(key.to_bytes(9, "little")).decode()


@pytest.mark.parametrize(
    ("mid", "message"),
    [
        ("QYkqASAAIAA", "12 Base64 characters"),
        ("QYkqASAAIA.A", "not Base64"),
        (_match_id_of_key(0b10 << 4), "cube owner bits 10"),
        (_match_id_of_key(0b101 << 8), "unknown game state 5"),
        (_match_id_of_key(1 << 67), "beyond the 67"),
        (_match_id_of_key(7 << 15), "dice are"),
    ],
)
def test_malformed_match_ids(mid: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        match_from_id(mid)
