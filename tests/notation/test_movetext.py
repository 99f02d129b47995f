"""Standard move text: writing plays gnubg's way and reading them back to legal plays."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from nardy.notation import NotationError, format_steps, parse_play
from nardy.rules import BAR, OFF, IllegalPlayError, InvalidDiceError, Position, Step
from tests.notation.notation_games import VARIANT_NAMES, make, reached_with_roll


def texts(position: Position, dice: tuple[int, int]) -> set[str]:
    return {format_steps(play.steps) for play in position.legal_plays(dice)}


def raw(steps: tuple[Step, ...]) -> str:
    """Steps one by one in their own order, unmerged and without hit marks: ``24/18 18/13``."""
    return " ".join(f"{'bar' if s.source == BAR else s.source}/{'off' if s.target == OFF else s.target}" for s in steps)


# ----- writing: single steps


@pytest.mark.parametrize(
    ("steps", "text"),
    [
        ((), "pass"),
        ((Step(13, 11, 2),), "13/11"),
        ((Step(13, 11, 2, hit=True),), "13/11*"),
        ((Step(BAR, 22, 3),), "bar/22"),
        ((Step(6, OFF, 6),), "6/off"),
        ((Step(3, OFF, 5),), "3/off"),
        ((Step(13, 11, 2, True), Step(24, 18, 6)), "24/18 13/11*"),
        ((Step(24, 18, 6), Step(18, 13, 5)), "24/13"),
        ((Step(24, 18, 6, hit=True), Step(18, 13, 5)), "24/18*/13"),
        ((Step(24, 18, 6), Step(18, 13, 5, hit=True)), "24/13*"),
        ((Step(BAR, 22, 3), Step(22, 16, 6)), "bar/16"),
        ((Step(8, 5, 3), Step(8, 5, 3), Step(6, 3, 3), Step(6, 3, 3)), "8/5(2) 6/3(2)"),
        ((Step(6, 2, 4),) * 4, "6/2(4)"),
        ((Step(6, 1, 5, True), Step(6, 1, 5)), "6/1*(2)"),
        ((Step(6, 2, 4, True), Step(8, 2, 6)), "8/2* 6/2"),
        ((Step(8, 2, 6, True), Step(6, 2, 4)), "8/2* 6/2"),
        ((Step(4, OFF, 4), Step(BAR, 21, 4), Step(21, 17, 4), Step(17, 13, 4)), "bar/13 4/off"),
        ((Step(20, 16, 4, True), Step(16, 12, 4), Step(12, 8, 4, True), Step(8, 4, 4)), "20/16*/8*/4"),
        ((Step(6, 4, 2), Step(6, 5, 1)), "6/5 6/4"),
    ],
)
def test_format_steps(steps: tuple[Step, ...], text: str) -> None:
    assert format_steps(steps) == text


# ----- writing: plays from the start


def test_start_3_1_includes_the_point_making_play() -> None:
    all_texts = texts(Position.start("backgammon"), (3, 1))
    assert "8/5 6/5" in all_texts
    assert len(all_texts) == 16


def test_start_6_5_runs_one_checker() -> None:
    assert "24/13" in texts(Position.start("backgammon"), (6, 5))


def test_start_6_6_groups_identical_moves() -> None:
    assert "24/18(2) 13/7(2)" in texts(Position.start("backgammon"), (6, 6))


def test_start_3_3_and_4_4() -> None:
    start = Position.start("backgammon")
    assert "8/5(2) 6/3(2)" in texts(start, (3, 3))
    assert "6/2(4)" in texts(start, (4, 4))


def test_hit_at_the_end() -> None:
    position = make("backgammon", {24: 2, 13: 5, 8: 3, 6: 5}, {11: 1, 1: 2, 12: 4, 17: 3, 19: 5})
    assert "24/18 13/11*" in texts(position, (6, 2))


def test_hit_on_the_way_and_run_past() -> None:
    # Our 18 holds a blot, our 19 is empty: 6-5 can hit on the way or pass by.
    position = make("backgammon", {24: 1, 6: 14}, {18: 1, 1: 14})
    assert {"24/18*/13", "24/13"} <= texts(position, (6, 5))


def test_entering_from_the_bar_comes_first() -> None:
    position = make("backgammon", {13: 5, 6: 5}, {1: 2, 12: 5}, bar=(1, 0))
    assert "bar/22 13/12" not in texts(position, (3, 1))  # our 12 is the opponent's
    assert "bar/22 6/5" in texts(position, (3, 1))
    assert "bar/21" in texts(position, (3, 1))


def test_bearing_off() -> None:
    position = make("backgammon", {6: 2, 5: 1}, {24: 2})
    assert texts(position, (6, 5)) == {"6/off 5/off", "6/1 6/off"}
    assert texts(make("backgammon", {6: 4}, {24: 2}), (4, 4)) == {"6/2(4)"}


def test_long_nardy_start() -> None:
    start = Position.start("long-traditional")
    assert texts(start, (6, 5)) == {"24/13"}
    assert texts(start, (6, 6)) == {"24/18(2)"}
    assert texts(start, (3, 3)) == {"24/18(2)", "24/21 24/15"}
    assert "*" not in " ".join(texts(start, (5, 5)))


def test_paths_are_sorted_from_the_highest_source() -> None:
    position = make("backgammon", {20: 1, 13: 2, 6: 2}, {1: 2}, bar=(1, 0))
    for text in texts(position, (4, 2)):
        sources = [25 if word.startswith("bar") else int(word.split("/")[0]) for word in text.split()]
        assert sources == sorted(sources, reverse=True), text


# ----- reading


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8/5 6/5", "8/5 6/5"),
        ("6/5 8/5", "8/5 6/5"),
        ("8/5* 6/5", "8/5 6/5"),
        ("24/20", "24/20"),
        ("24/23/20", "24/20"),
        ("24/21 21/20", "24/20"),
        ("  13/10   6/5 ", "13/10 6/5"),
    ],
)
def test_parse_start_3_1(text: str, expected: str) -> None:
    play = parse_play(text, Position.start("backgammon"), (3, 1))
    assert format_steps(play.steps) == expected
    assert play in Position.start("backgammon").legal_plays((3, 1))


def test_parse_counts_and_expanded_doubles() -> None:
    start = Position.start("backgammon")
    expected = parse_play("24/18(2) 13/7(2)", start, (6, 6)).position
    assert parse_play("24/18 24/18 13/7 13/7", start, (6, 6)).position == expected
    assert parse_play("13/7(2) 24/18(2)", start, (6, 6)).position == expected


def test_parse_bar_and_off_in_any_case() -> None:
    entering = make("backgammon", {13: 5, 6: 5}, {1: 2, 12: 5}, bar=(1, 0))
    assert format_steps(parse_play("BAR/22 6/5", entering, (3, 1)).steps) == "bar/22 6/5"
    bearing = make("backgammon", {6: 2, 5: 1}, {24: 2})
    assert format_steps(parse_play("6/OFF 5/Off", bearing, (6, 5)).steps) == "6/off 5/off"


def test_parse_hits_with_or_without_star() -> None:
    position = make("backgammon", {24: 1, 6: 14}, {18: 1, 1: 14})
    hit = parse_play("24/18*/13", position, (6, 5))
    assert hit.position.bar == (0, 1)
    assert parse_play("24/18/13", position, (6, 5)) == hit
    assert parse_play("24/18 18/13", position, (6, 5)) == hit
    passing = parse_play("24/13", position, (6, 5))
    assert passing.position.bar == (0, 0)


def test_unnamed_hit_is_found_when_it_is_the_only_way() -> None:
    # Our 19 is closed, so 24/13 must pass through the blot on 18.
    position = make("backgammon", {24: 1, 6: 14}, {18: 1, 19: 2, 1: 12})
    assert parse_play("24/13", position, (6, 5)).position.bar == (0, 1)


def test_unnamed_hit_is_ambiguous_when_two_blots_could_be_hit() -> None:
    position = make("backgammon", {24: 1, 6: 14}, {18: 1, 19: 1, 1: 13})
    with pytest.raises(IllegalPlayError, match="'24/13' is ambiguous"):
        parse_play("24/13", position, (6, 5))
    assert parse_play("24/19*/13", position, (6, 5)).position.points[18] == 0


def test_parse_long_nardy() -> None:
    start = Position.start("long-bolshie")
    assert parse_play("24/18 18/13", start, (6, 5)).position.points[12] == 1


def test_pass() -> None:
    closed = make("backgammon", {6: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2}, bar=(1, 0))
    assert closed.legal_plays((6, 5)) == []
    play = parse_play("pass", closed, (6, 5))
    assert play.steps == () and play.position == closed
    assert parse_play("PASS", closed, (6, 5)) == play
    assert format_steps(play.steps) == "pass"
    with pytest.raises(IllegalPlayError, match="'bar/20': 6-5 cannot be played here"):
        parse_play("bar/20", closed, (6, 5))
    with pytest.raises(IllegalPlayError, match="'pass': 3-1 can be played here"):
        parse_play("pass", Position.start("backgammon"), (3, 1))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty move text"),
        ("24-20", "cannot read '24-20'"),
        ("24/", "cannot read '24/'"),
        ("24/20 x", "cannot read 'x'"),
        ("off/20", "cannot read 'off/20'"),
        ("24/bar", "cannot read '24/bar'"),
        ("bar/bar", "cannot read 'bar/bar'"),
        ("25/21", "25 is not a point"),
        ("24/0", "0 is not a point"),
        ("6/off/2", "borne off cannot move on"),
        ("13/9(0)", "count must be at least 1"),
        ("pass 24/20", "cannot read 'pass'"),
    ],
)
def test_malformed_text(text: str, message: str) -> None:
    with pytest.raises(NotationError, match=message):
        parse_play(text, Position.start("backgammon"), (3, 1))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("24/16", "'24/16' is not a legal play of 3-1"),
        ("13/10 13/10", "'13/10 13/10' is not a legal play of 3-1"),
        ("8/5", "'8/5' is not a legal play of 3-1"),
        ("11/8 6/5", "'11/8 6/5' moves more checkers from 11 than stand there"),
        ("13/12 13/10", "'13/12 13/10' lands on 12, which the opponent holds"),
        ("bar/22 6/5", "moves more checkers from bar than stand there"),
        ("6/5 6/4", "not a legal play"),
        ("8/11 6/5", "not a legal play"),
        ("5/8 6/5", "not a legal play"),
    ],
)
def test_illegal_text_names_the_text(text: str, message: str) -> None:
    with pytest.raises(IllegalPlayError, match=message):
        parse_play(text, Position.start("backgammon"), (3, 1))


def test_long_nardy_cannot_land_on_a_single_opposing_checker() -> None:
    position = make("long-traditional", {24: 14, 20: 1}, {12: 14, 18: 1})
    with pytest.raises(IllegalPlayError, match="lands on 18"):
        parse_play("24/18 20/19", position, (6, 1))


def test_a_pin_freed_in_the_same_turn_reads_back_as_written() -> None:
    """Plakoto: "a checker that moves on in the same turn frees it again" (docs/rules.md §9), so 24/18*/13
    leaves what 24/13 leaves; each text reads back as the steps it names, the pin on the way included."""
    position = make("plakoto", {24: 15}, {18: 1, 1: 14})
    pinned_on_the_way = parse_play("24/18*/13", position, (6, 5))
    assert pinned_on_the_way.steps == (Step(24, 18, 6, True), Step(18, 13, 5, False))
    assert format_steps(pinned_on_the_way.steps) == "24/18*/13"
    straight = parse_play("24/13", position, (6, 5))
    assert format_steps(straight.steps) == "24/13" and straight.position == pinned_on_the_way.position


def test_bad_dice_are_the_engine_error() -> None:
    with pytest.raises(InvalidDiceError):
        parse_play("24/20", Position.start("backgammon"), (3, 7))


# ----- round trips over positions reached by play


@settings(max_examples=150, deadline=None)
@given(reached_with_roll(VARIANT_NAMES))
def test_every_legal_play_reads_back(case: tuple[Position, tuple[int, int]]) -> None:
    position, dice = case
    plays = position.legal_plays(dice)
    for play in plays:
        text = format_steps(play.steps)
        assert parse_play(text, position, dice).position == play.position, text
        assert parse_play(raw(play.steps), position, dice).position == play.position, raw(play.steps)
        if not position.variant.hitting:  # no bar; a pin (plakoto) is marked "*" as a hit is
            assert "bar" not in text and ("*" not in text or position.variant.pinning)
    assert len({format_steps(play.steps) for play in plays}) == len(plays)
    if not plays:
        assert parse_play("pass", position, dice).position == position
