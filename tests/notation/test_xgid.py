"""eXtreme Gammon's XGID.

The fixed examples were written by hand from the field layout (the module
docstring) and checked with GNU Backgammon 1.07: ``set xgid`` reads each one
and ``show board`` then prints the Position ID given here (gnubg turns the
board to the player on roll, as our Position IDs do).

``manual_board`` is a second, independent reading of the board field,
written straight from that description, to check every random position.
"""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import nardy.notation.xgid as xgid_module
from nardy.notation import NotationError, position_id
from nardy.notation.xgid import XgidFields, from_xgid, to_xgid
from nardy.rules import Position
from tests.notation.notation_games import LONG_VARIANTS, PINNING_VARIANTS, SHORT_VARIANTS, make, reached

START = "-b----E-C---eE---c-e----B-"


def manual_board(position: Position, player_on_roll: int) -> str:
    """Character 0: the top player's bar; 1..24: the bottom player's points; 25: the bottom player's bar."""
    bottom = position if player_on_roll == 0 else position.turned()

    def char(count: int, upper: bool) -> str:
        return "-" if not count else chr((ord("A") if upper else ord("a")) + count - 1)

    middle = "".join(char(abs(count), count > 0) for count in bottom.points)
    return char(bottom.bar[1], False) + middle + char(bottom.bar[0], True)


# ----- the documented examples


def test_start_position_as_xg_writes_it() -> None:
    position, fields = from_xgid(f"XGID={START}:0:0:1:52:0:0:3:0:10")
    assert position == Position.start("backgammon")
    assert fields == XgidFields(dice=(5, 2), jacoby=True, beavers=True)
    assert to_xgid(position, fields) == f"XGID={START}:0:0:1:52:0:0:3:0:10"


def test_the_board_is_the_bottom_players_whoever_is_on_roll() -> None:
    # The bottom player opened 3-1 with 8/5 6/5; the top player is on roll.
    text = "XGID=-b---BD-B---eE---c-e----B-:0:0:-1:00:0:0:0:0:10"
    position, fields = from_xgid(text)
    assert fields.player_on_roll == 1
    assert position_id(position) == "sGfwATDgc/ABMA"
    assert position.points[5 - 1] == 0 and position.points[25 - 5 - 1] == -2
    assert to_xgid(position, fields) == text


def test_bar_and_borne_off_checkers() -> None:
    # Bottom: 1 on its 1 point, 3 on its 6, 2 on the bar, 9 off; top: 2 on its 1 point, 13 on the bar.
    text = "XGID=mA----C-----------------bB:0:0:1:00:0:0:0:0:10"
    position, fields = from_xgid(text, "dave")
    assert position == make("dave", {6: 3, 1: 1}, {24: 2}, bar=(2, 13))
    assert position.off == (9, 0)
    assert position_id(position) == "AwAA/H/BAQAwAA"
    assert to_xgid(position, fields) == text


def test_cube_owner_double_and_match_score() -> None:
    # A 5-point match at 1-3; the top player owns a 4-cube, is on roll and has redoubled.
    text = "XGID=mA----C-----------------bB:2:-1:-1:D:1:3:0:5:10"
    position, fields = from_xgid(text)
    assert fields == XgidFields(
        cube_value=4, cube_owner="player1", player_on_roll=1, cube_offer="double", score=(1, 3), match_length=5,
    )
    assert position == make("backgammon", {6: 3, 1: 1}, {24: 2}, bar=(2, 13)).turned()
    assert position_id(position) == "wQEAsAEAAP4/AA"
    assert to_xgid(position, fields) == text


def test_money_rules_and_an_owned_cube() -> None:
    text = "XGID=bA----C-----------------bB:3:1:1:31:0:0:3:0:10"
    position, fields = from_xgid(text)
    assert (fields.cube_value, fields.cube_owner, fields.dice, fields.jacoby, fields.beavers) == (
        8, "player0", (3, 1), True, True,
    )
    assert position_id(position) == "AwAALDgAAAYAAA"


@pytest.mark.parametrize(("letter", "offer"), [("D", "double"), ("B", "beaver"), ("R", "raccoon")])
def test_cube_offers_in_the_dice_field(letter: str, offer: str) -> None:
    text = f"XGID={START}:1:0:1:{letter}:0:0:0:0:10"
    position, fields = from_xgid(text)
    assert fields.cube_offer == offer and fields.dice == (0, 0)
    assert to_xgid(position, fields) == text


def test_prefix_is_optional_and_crawford_is_a_match_flag() -> None:
    position, fields = from_xgid(f"{START}:0:0:1:00:4:2:1:5:8")
    assert (fields.crawford, fields.match_length, fields.max_cube, fields.score) == (True, 5, 256, (4, 2))
    assert to_xgid(position, fields).startswith("XGID=")


# ----- random positions and fields

FIELDS = st.one_of(
    st.builds(
        XgidFields,
        cube_value=st.sampled_from([1, 2, 4, 64]),
        cube_owner=st.sampled_from(["centre", "player0", "player1"]),
        player_on_roll=st.sampled_from([0, 1]),
        dice=st.tuples(st.integers(1, 6), st.integers(1, 6)),
        score=st.tuples(st.integers(0, 6), st.integers(0, 6)),
        crawford=st.booleans(),
        match_length=st.just(7),
    ),
    st.builds(
        XgidFields,
        player_on_roll=st.sampled_from([0, 1]),
        cube_offer=st.sampled_from(["none", "double", "beaver", "raccoon"]),
        jacoby=st.booleans(),
        beavers=st.booleans(),
        max_cube=st.sampled_from([64, 1024]),
    ),
)


@settings(max_examples=200, deadline=None)
@given(reached(SHORT_VARIANTS), FIELDS)
def test_round_trip_and_manual_board(position: Position, fields: XgidFields) -> None:
    text = to_xgid(position, fields)
    assert text.split(":")[0] == "XGID=" + manual_board(position, fields.player_on_roll)
    assert from_xgid(text, position.variant) == (position, fields)


@pytest.mark.parametrize("variant", PINNING_VARIANTS)
def test_positions_with_pins_have_no_xgid(variant: str) -> None:
    with pytest.raises(NotationError, match="cannot hold pinned checkers"):
        to_xgid(Position.start(variant), XgidFields())
    with pytest.raises(NotationError, match="cannot hold pinned checkers"):
        from_xgid(START + ":0:0:1:00:0:0:0:0:10", variant)


@pytest.mark.parametrize("variant", LONG_VARIANTS)
def test_long_nardy_has_no_xgid(variant: str) -> None:
    with pytest.raises(NotationError, match=f"{variant} has no XGID"):
        to_xgid(Position.start(variant), XgidFields())
    with pytest.raises(NotationError, match=f"{variant} has no XGID"):
        from_xgid(START + ":0:0:1:00:0:0:0:0:10", variant)


# ----- malformed input


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (f"XGID={START}:0:0:1:52:0:0:0:0", "10 fields"),
        (f"XGID={START}:0:0:1:52:0:0:0:0:10:1", "10 fields"),
        (f"XGID={START[:-1]}:0:0:1:52:0:0:0:0:10", "26 characters, got 25"),
        (f"XGID={START[:5]}*{START[6:]}:0:0:1:52:0:0:0:0:10", "board character 5 is '\\*'"),
        (f"XGID=A{START[1:]}:0:0:1:52:0:0:0:0:10", "character 0 is the top player's bar"),
        (f"XGID={START[:-1]}a:0:0:1:52:0:0:0:0:10", "character 25 is the bottom player's bar"),
        (f"XGID={START[:6]}F{START[7:]}:0:0:1:52:0:0:0:0:10", "gives the bottom player 16 checkers"),
        (f"XGID={START}:x:0:1:52:0:0:0:0:10", "the cube is a whole number"),
        (f"XGID={START}:16:0:1:52:0:0:0:0:10", "the cube is a power of two written 0 to 15"),
        (f"XGID={START}:0:2:1:52:0:0:0:0:10", "cube position is 1, 0 or -1"),
        (f"XGID={START}:0:0:0:52:0:0:0:0:10", "the turn is 1 .* or -1"),
        (f"XGID={START}:0:0:1:72:0:0:0:0:10", "the dice are 00, two dice 1-6, D, B or R"),
        (f"XGID={START}:0:0:1:5:0:0:0:0:10", "the dice are 00"),
        (f"XGID={START}:0:0:1:52:0:0:2:5:10", "in a match the rules field is 1"),
        (f"XGID={START}:0:0:1:52:0:0:4:0:10", "in money play the rules field is 0 to 3"),
        (f"XGID={START}:0:0:1:52:5:0:0:5:10", "each score is 0 to 4 in a 5-point match"),
        (f"XGID={START}:0:0:1:52:0:0:0:-1:10", "the match length is 0"),
        (f"XGID={START}:0:0:1:52:-1:0:0:0:10", "scores are 0 or more"),
    ],
)
def test_malformed_xgids(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        from_xgid(text)


def test_fields_that_contradict_each_other() -> None:
    with pytest.raises(NotationError, match="offered before the roll"):
        XgidFields(cube_offer="double", dice=(3, 1))
    with pytest.raises(NotationError, match="money play has none"):
        XgidFields(crawford=True)
    with pytest.raises(NotationError, match="a match has neither"):
        XgidFields(jacoby=True, match_length=5)
    with pytest.raises(NotationError, match="power of two"):
        XgidFields(cube_value=3)


def test_the_docstring_examples() -> None:
    failures, tried = doctest.testmod(xgid_module)
    assert tried and not failures
