"""Fevga, the third game of Greek tavli (docs/rules.md §10).

Sources, as docs/rules.md §10 lists them: bkgm (Backgammon Galore's Fevga
page, bkgm.com/variants/Fevga.html), bkgm-tavli (its Tavli page,
bkgm.com/variants/Tavli.html), BrainKing (brainking.com's Fevga rules,
GameRules?tp=111) and Wikipedia ("Fevga"). The side to move starts on point
24, the opponent on our point 12; both travel our 24 → 1 (the opponent our
12 → 1, then 24 → 13, its home is our 13..18).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nardy.rules import DICE_ROLLS, GameOptions, IllegalActionError, InvalidPositionError, Position, WinKind
from nardy.rules import find_variant
from tests.rules.fevga_reference import board_of, legal_results
from tests.rules.positions import apply, expect, make, outcomes

FEVGA = "fevga"


def holds(key: str, points: range) -> bool:
    """Whether the side to move holds every point of ``points`` in the position written as ``key``."""
    mine = key.split("|")[0].split()[1:]
    held = {int(entry.split(":")[0]) for entry in mine}
    return set(points) <= held


# ----- setup and movement


def test_everything_starts_on_two_opposite_corners() -> None:
    """bkgm: «each player starts with fifteen checkers on the rightmost point of the far side of the board, at diagonally opposite corners from each other. they both move in the same direction, counterclockwise, around the board»"""
    start = Position.start(FEVGA)
    assert start == make(FEVGA, {24: 15}, {12: 15})
    assert start.turned() == start
    assert start.pip_counts() == (360, 360)


def test_a_single_checker_holds_a_point() -> None:
    """bkgm: «there is no hitting in this game. one checker always controls a point, and an opposing checker may not land or touch down there»"""
    pos = make(FEVGA, {20: 1}, {15: 1})
    assert outcomes(pos, (5, 3)) == expect(pos, "20/17/12")
    assert not find_variant(FEVGA).has_bar
    with pytest.raises(InvalidPositionError):
        make(FEVGA, {24: 14}, {12: 15}, bar=(1, 0))


def test_no_touching_down_on_an_opposing_checker_on_the_way() -> None:
    """bkgm: «an opposing checker may not land or touch down there»"""
    pos = make(FEVGA, {20: 1}, {15: 1, 17: 1})
    assert pos.legal_plays((5, 3)) == []


# ----- first checker away


def test_the_first_checker_alone_may_move_until_it_has_passed_the_opponents_start() -> None:
    """bkgm: «your first checker must pass the opponent's starting point before you may move any of your other checkers»"""
    pos = make(FEVGA, {24: 14, 15: 1}, {12: 15})
    # 15/13/12 and 15/14/12 land on the opponent's start; 24 may not move: one die only, the larger.
    assert outcomes(pos, (2, 1)) == expect(pos, "15/13")


def test_the_dramatic_six_six() -> None:
    """bkgm: «after White's initial roll of 6-6, s/he moves own first checker forward six spaces, but then s/he is stuck - s/he cannot move the same checker any further because it is blocked, and s/he cannot move any other checker until the first checker is past the opponent's starting point»"""
    pos = Position.start(FEVGA)
    assert outcomes(pos, (6, 6)) == expect(pos, "24/18")


def test_any_checker_may_be_the_first() -> None:
    """Wikipedia: «To begin with each player must advance one man past the opposing start point before moving a second piece.»"""
    pos = Position.start(FEVGA)
    assert outcomes(pos, (3, 1)) == expect(pos, "24/20")
    assert outcomes(pos, (6, 5)) == expect(pos, "24/13")


def test_once_past_other_checkers_may_move_in_the_same_turn() -> None:
    """BrainKing: «A player's first checker must pass the opponent's starting point before he may move any of his other checkers.» (docs/rules.md §10: the rule lifts at the step that passes)"""
    pos = Position.start(FEVGA)
    assert outcomes(pos, (5, 5)) == expect(pos, "24/19/14/9/4", "24/19/14/9 24/19")
    pos = make(FEVGA, {24: 14, 13: 1}, {12: 15})
    assert outcomes(pos, (3, 2)) == expect(pos, "13/8", "13/10 24/22", "13/11 24/21")


def test_landing_on_the_opponents_start_is_not_passing_it() -> None:
    """bkgm: «your first checker must pass the opponent's starting point» (docs/rules.md §10: to pass is to stand beyond our point 12)"""
    pos = make(FEVGA, {24: 14, 14: 1}, {20: 15})
    assert outcomes(pos, (2, 1)) == expect(pos, "14/11")
    pos = make(FEVGA, {24: 14, 12: 1}, {20: 15})
    assert outcomes(pos, (3, 1)) == expect(pos, "12/8", "12/9 24/23", "12/11 24/21")


# ----- the prime bans


def test_the_starting_quarter_may_not_be_filled() -> None:
    """bkgm: «you are not allowed to block all six points in your starting table»"""
    pos = make(FEVGA, {24: 2, 23: 1, 22: 1, 21: 1, 20: 2, 3: 8}, {14: 10, 13: 5})
    plays = outcomes(pos, (4, 1))
    assert apply(pos, "20/19 24/20") not in plays
    assert apply(pos, "20/19 22/18") in plays
    assert not any(holds(key, range(19, 25)) for key in plays)


def test_the_starting_quarter_is_judged_at_the_end_of_the_turn() -> None:
    """BrainKing: «A player is not allowed to occupy all six points of his starting quarter (1-6) at the same time.» (docs/rules.md §10: a touch-down on the way is not holding)"""
    pos = make(FEVGA, {24: 2, 23: 1, 22: 1, 21: 1, 20: 2, 3: 8}, {14: 10, 13: 5})
    assert apply(pos, "20/19/15") in outcomes(pos, (4, 1))


def test_no_prime_in_front_of_all_the_opponents_checkers() -> None:
    """bkgm: «if you have built a prime (six consecutive blocked points), and your opponent has collected all his checkers onto the one point behind your prime, then you must unblock a point in your prime to allow him a chance to move»"""
    pos = make(FEVGA, {11: 1, 10: 1, 9: 1, 8: 1, 7: 1, 13: 1, 24: 9}, {12: 15})
    plays = outcomes(pos, (6, 1))
    assert apply(pos, "13/7/6") not in plays
    assert plays and not any(holds(key, range(6, 12)) for key in plays)


def test_the_prime_is_allowed_while_one_opposing_checker_is_elsewhere() -> None:
    """BrainKing: «It is allowed to build a prime (six consecutive blocked points) anywhere else (not in the player's starting quarter), but if opponent has collected all his checkers onto the one point behind player's prime, the player must unblock a point in his prime»"""
    pos = make(FEVGA, {11: 1, 10: 1, 9: 1, 8: 1, 7: 1, 13: 1, 24: 9}, {12: 14, 14: 1})
    assert apply(pos, "13/7/6") in outcomes(pos, (6, 1))


def test_a_prime_the_opponent_collected_behind_must_be_opened() -> None:
    """bkgm: «then you must unblock a point in your prime to allow him a chance to move»"""
    pos = make(FEVGA, {6: 1, 5: 2, 4: 2, 3: 3, 2: 3, 1: 2, 20: 2}, {7: 15})
    assert outcomes(pos, (6, 5)) == expect(pos, "6/1 20/14")


def test_a_prime_that_no_play_can_open_does_not_stop_the_roll() -> None:
    """bkgm: «you must unblock a point in your prime to allow him a chance to move» (docs/rules.md §10: where no play opens it, the roll is played as usual)"""
    pos = make(FEVGA, {6: 2, 5: 2, 4: 2, 3: 3, 2: 3, 1: 2, 20: 1}, {7: 15})
    # 6/1 leaves a checker on 6, 20/14 and 20/15 open nothing: no play opens the prime.
    assert outcomes(pos, (6, 5)) == expect(pos, "20/9", "20/14 6/1")


# ----- maximum dice, bearing off, scoring


def test_the_larger_die_when_only_one_can_be_played() -> None:
    """bkgm: «if s/he can play one number but not both, s/he must play the higher one»"""
    pos = make(FEVGA, {13: 1, 1: 14}, {4: 1})
    assert outcomes(pos, (6, 3)) == expect(pos, "13/7")


def test_bearing_off_as_in_backgammon() -> None:
    """bkgm: «bearing off is just the same as in backgammon»"""
    pos = make(FEVGA, {5: 2, 2: 1}, {20: 15})
    assert outcomes(pos, (6, 1)) == expect(pos, "5/off 5/4", "5/off 2/1")


def test_bearing_off_waits_until_all_fifteen_are_home() -> None:
    """bkgm: «bearing off is just the same as in backgammon»; Wikipedia: «the aim is to be first to bear off all one's pieces after first having gathered them in the home table»"""
    pos = make(FEVGA, {7: 1, 2: 1}, {20: 15})
    assert outcomes(pos, (6, 2)) == expect(pos, "7/1 2/off", "7/5/off")


def test_a_gammon_counts_two_and_there_is_no_triple() -> None:
    """bkgm-tavli: «The first player to bear off all his checkers gets one point, or, if the winner bears off all his checkers before the loser has borne off any, he gets two points. There is no triple game.»"""
    variant = find_variant(FEVGA)
    gammon = make(FEVGA, {}, {3: 15}, off=(15, 0))
    assert gammon.win_kind() == WinKind.GAMMON
    single = make(FEVGA, {}, {3: 14}, off=(15, 1))
    assert single.win_kind() == WinKind.SINGLE
    assert variant.win_points(WinKind.GAMMON, variant.default_options()) == 2
    assert variant.win_points(WinKind.SINGLE, variant.default_options()) == 1
    assert variant.win_kinds == (WinKind.SINGLE, WinKind.GAMMON)


def test_no_cube_and_the_winner_starts_the_next_game() -> None:
    """bkgm-tavli: «No doubling cube is used.» «After the first game, the winner of the previous game goes first.»"""
    variant = find_variant(FEVGA)
    with pytest.raises(IllegalActionError):
        variant.check_options(GameOptions(cube=True), 3)
    assert variant.previous_winner_starts
    assert variant.match_lengths == (1, 3, 5, 7)


# ----- against the independent generator


def engine_results(pos: Position, dice: tuple[int, int]) -> set[tuple[int, ...]]:
    return {board_of(play.position.points, play.position.off[0]).ours for play in pos.legal_plays(dice)}


@pytest.mark.slow
def test_legal_plays_match_an_independent_generator_over_random_games() -> None:
    """bkgm's rules, as docs/rules.md §10 reads them, written again in tests/rules/fevga_reference.py: 20,000
    positions of random games from the start, random rolls and random plays."""
    rng = random.Random(2026)
    compared = 0
    while compared < 20_000:
        pos = Position.start(FEVGA)
        while not pos.is_game_over() and compared < 20_000:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            after = [play.position for play in pos.legal_plays(dice)]
            engine = {board_of(a.points, a.off[0]).ours for a in after}
            assert engine == legal_results(board_of(pos.points, pos.off[0]), dice), (pos, dice)
            compared += 1
            pos = (rng.choice(after) if after else pos).turned()


def prime_positions(seed: int, count: int) -> list[Position]:
    """Positions with all the opponent's checkers on one point and ours massed in front of it and home."""
    rng = random.Random(seed)
    variant = find_variant(FEVGA)
    made: list[Position] = []
    while len(made) < count:
        theirs = rng.choice([p for p in range(1, 25) if variant.topology.opponent_point(p) >= 7])
        front = [variant.topology.opponent_point(variant.topology.opponent_point(theirs) - k) for k in range(1, 7)]
        points = [0] * 24
        points[theirs - 1] = -15
        for point in rng.sample(front, rng.choice((5, 6))):
            points[point - 1] = rng.randint(1, 2)
        for _ in range(15 - sum(c for c in points if c > 0)):
            choices = [p for p in (*front, *range(19, 25), *range(1, 7)) if points[p - 1] >= 0]
            points[rng.choice(choices) - 1] += 1
        made.append(Position(variant, tuple(points)))
    return made


def test_prime_bans_match_an_independent_generator() -> None:
    """bkgm: «if your opponent has collected all his checkers onto the one point behind your prime, then you must unblock a point in your prime»; «you are not allowed to block all six points in your starting table»"""
    for pos in prime_positions(7, 40):
        for dice in DICE_ROLLS:
            assert engine_results(pos, dice) == legal_results(board_of(pos.points, pos.off[0]), dice), (pos, dice)


# ----- properties


@st.composite
def game_positions(draw: st.DrawFn) -> tuple[Position, tuple[int, int]]:
    seed = draw(st.integers(0, 2**32 - 1))
    plies = draw(st.integers(0, 120))
    rng = random.Random(seed)
    pos = Position.start(FEVGA)
    for _ in range(plies):
        if pos.is_game_over():
            break
        plays = pos.legal_plays((rng.randint(1, 6), rng.randint(1, 6)))
        pos = (rng.choice(plays).position if plays else pos).turned()
    dice = (draw(st.integers(1, 6)), draw(st.integers(1, 6)))
    return pos, dice


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_positions())
def test_fifteen_checkers_a_side_and_pips_only_fall(case: tuple[Position, tuple[int, int]]) -> None:
    """bkgm: «each player starts with fifteen checkers»; checkers move only forward, «there is no hitting in this game»"""
    pos, dice = case
    mover, opponent = pos.pip_counts()
    for play in pos.legal_plays(dice):
        after = play.position
        assert sum(c for c in after.points if c > 0) + after.off[0] == 15
        assert -sum(c for c in after.points if c < 0) + after.off[1] == 15
        assert after.pip_counts()[0] < mover
        assert after.pip_counts()[1] == opponent


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_positions())
def test_every_play_uses_as_many_dice_as_any(case: tuple[Position, tuple[int, int]]) -> None:
    """Wikipedia: «The player must play both numbers of the die roll separately if able.» «A player who can only use one die, must use the higher number.»"""
    pos, dice = case
    plays = pos.legal_plays(dice)
    assert len({len(play.steps) for play in plays}) <= 1
    assert {len(steps) for steps in pos.legal_sequences(dice) if steps} == {len(play.steps) for play in plays}
    singles = [play.steps[0].die for play in plays if len(play.steps) == 1]
    if dice[0] != dice[1] and max(dice) in singles:
        assert set(singles) == {max(dice)}
