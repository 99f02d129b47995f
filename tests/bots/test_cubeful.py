"""Cube decisions (nardy.bots.cube): Janowski money formulas and MET-based match decisions, checked by hand.

(Named test_cubeful.py: tests/rules/test_cube.py already owns the module name
test_cube, and the test folders are not packages.)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from nardy.bots.cube import (
    CUBE_EFFICIENCY,
    MatchScore,
    match_decision,
    match_equity_cubeful,
    match_take_point,
    money_decision,
    money_equity_cubeful,
    money_equity_cubeless,
    money_take_point,
    should_double,
    should_take,
)
from nardy.bots.evaluator import FloatArray
from nardy.bots.met import match_equity
from nardy.rules import Cube, Game, GameOptions, MatchContext, Phase, Position

X = CUBE_EFFICIENCY


class FixedEvaluator:
    """Answers the same probabilities for every side to move."""

    def __init__(self, probs: Sequence[float]) -> None:
        self.probs = np.array(probs, dtype=np.float64)
        self.seen: list[Position] = []

    def probabilities(self, positions: Sequence[Position]) -> FloatArray:
        self.seen.extend(positions)
        return np.tile(self.probs, (len(positions), 1))


def no_gammons(p: float) -> list[float]:
    return [p, 0.0, 0.0, 0.0, 0.0]


# ---------------------------------------------------------------- money, by hand


def test_money_eighty_percent_no_gammons_is_double_pass() -> None:
    # W = L = 1. Live cube: TP = 0.5/2.5 = 0.2, CP = 2/2.5 = 0.8. Dead equity 0.8 - 0.2 = 0.6.
    # ND, centred at p = CP: live +1 -> 0.68·1 + 0.32·0.6 = 0.872.
    # DT, opponent owns 2: live -1 + 2·(0.8-0.2)/(1-0.2) = 0.5 -> 2·(0.68·0.5 + 0.32·0.6) = 1.064.
    decision = money_decision(no_gammons(0.8))
    assert decision.no_double == pytest.approx(0.872)
    assert decision.double_take == pytest.approx(1.064)
    assert decision.double_pass == 1.0
    assert decision.should_double
    assert not decision.should_take


def test_money_sixty_percent_is_no_double() -> None:
    # ND: live -1 + 2·(0.6-0.2)/0.6 = 1/3 -> 0.68/3 + 0.32·0.2 = 0.290667.
    # DT: live -1 + 2·0.4/0.8 = 0 -> 2·(0.32·0.2) = 0.128.
    decision = money_decision(no_gammons(0.6))
    assert decision.no_double == pytest.approx(0.68 / 3 + 0.064)
    assert decision.double_take == pytest.approx(0.128)
    assert not decision.should_double
    assert decision.should_take


def test_money_take_point_between_dead_and_live_cube() -> None:
    # (L - 1/2)/(W + L + x/2) with W = L = 1: 0.5/2.34 = 21.37%; dead cube 25%, live 20%.
    assert money_take_point(no_gammons(0.5)) == pytest.approx(0.5 / 2.34)
    assert money_take_point(no_gammons(0.5), x=0.0) == pytest.approx(0.25)
    assert money_take_point(no_gammons(0.5), x=1.0) == pytest.approx(0.2)
    # The take decision flips exactly there (seen from the doubler, who has 1 - p).
    point = 0.5 / 2.34
    assert money_decision(no_gammons(1.0 - point + 0.002)).should_take is False
    assert money_decision(no_gammons(1.0 - point - 0.002)).should_take is True


def test_money_take_point_with_gammons() -> None:
    # Taker: P(win) 0.3 with 0.05 gammons; P(lose) 0.7 with 0.2 gammons, 0.01 backgammons.
    # W = (0.3 + 0.05)/0.3, L = (0.7 + 0.2 + 0.01)/0.7; TP = (L - 0.5)/(W + L + 0.34).
    probs = [0.3, 0.05, 0.0, 0.2, 0.01]
    w, loss = 0.35 / 0.3, 0.91 / 0.7
    assert money_take_point(probs) == pytest.approx((loss - 0.5) / (w + loss + 0.34))
    assert money_equity_cubeless(probs) == pytest.approx(0.35 - 0.91)


def test_money_too_good_to_double() -> None:
    # 90% with 60% gammons: cashing 1 point gives away a likely gammon (ND > DP).
    decision = money_decision([0.9, 0.6, 0.0, 0.0, 0.0])
    assert decision.no_double > decision.double_pass
    assert not decision.should_double


def test_money_dead_cube_is_cubeless_and_jacoby_ignores_centred_gammons() -> None:
    probs = [0.6, 0.2, 0.02, 0.1, 0.01]
    assert money_equity_cubeful(probs, x=0.0, cube_value=4) == pytest.approx(4 * money_equity_cubeless(probs))
    # Jacoby, centred cube, dead: 2p - 1 only.
    assert money_equity_cubeful(probs, x=0.0, jacoby=True) == pytest.approx(0.2)
    # Once owned, Jacoby no longer applies.
    assert money_equity_cubeful(probs, x=0.0, jacoby=True, owner="me") == pytest.approx(
        money_equity_cubeless(probs)
    )


def test_money_owning_the_cube_is_worth_something() -> None:
    probs = no_gammons(0.65)
    mine = money_equity_cubeful(probs, owner="me")
    centred = money_equity_cubeful(probs, owner="centred")
    theirs = money_equity_cubeful(probs, owner="opponent")
    assert mine > centred > theirs


# ---------------------------------------------------------------- match play, by hand


def test_two_away_two_away_take_point_is_the_met_entry() -> None:
    # After a double to 2 at 2-away/2-away the cube is dead for both (2 wins the match):
    # TP = (ME(lose 1) - ME(lose 2)) / (ME(win 2) - ME(lose 2)) = (0.32264 - 0)/(1 - 0), gammons or not.
    score = MatchScore(2, 2)
    assert match_take_point(no_gammons(0.3), score) == pytest.approx(0.32264)
    assert match_take_point([0.3, 0.1, 0.0, 0.3, 0.05], score) == pytest.approx(0.32264)
    # The doubler at 0.66 (taker 0.34): take; at 0.69 (taker 0.31): pass.
    assert match_decision(no_gammons(0.66), score).should_take
    assert not match_decision(no_gammons(0.69), score).should_take


def test_two_away_two_away_double_as_soon_as_favourite() -> None:
    # No gammons: DT = p (dead 2-cube) and ND = x·p + (1-x)·(0.32264 + 0.35472·p),
    # so DT - ND = (1-x)·(0.64528·p - 0.32264) > 0 iff p > 0.5.
    score = MatchScore(2, 2)
    for p in (0.52, 0.6):
        decision = match_decision(no_gammons(p), score)
        assert decision.double_take == pytest.approx(p)
        assert decision.no_double == pytest.approx(X * p + (1 - X) * (0.32264 + 0.35472 * p))
        assert decision.should_double
    assert not match_decision(no_gammons(0.48), score).should_double


def test_match_dead_cube_equity_is_the_met_average() -> None:
    # 5-away/5-away, cube 1, x = 0: sum of outcome probabilities times the MET entries.
    probs = [0.6, 0.2, 0.02, 0.1, 0.01]
    expected = (
        0.4 * match_equity(4, 5)
        + 0.18 * match_equity(3, 5)
        + 0.02 * match_equity(2, 5)
        + 0.3 * match_equity(5, 4)
        + 0.09 * match_equity(5, 3)
        + 0.01 * match_equity(5, 2)
    )
    assert match_equity_cubeful(probs, MatchScore(5, 5), x=0.0) == pytest.approx(expected)


def test_post_crawford_trailer_doubles_at_once() -> None:
    # The trailer (4-away, leader 1-away) loses nothing more by losing at 2: doubling costs nothing.
    decision = match_decision(no_gammons(0.45), MatchScore(4, 1))
    assert decision.should_double


# ---------------------------------------------------------------- in a game, with nardy.rules deciding


def money_game_on_roll() -> Game:
    """A backgammon money game with the cube after the opening play: player 1 to roll, the cube centred."""
    game = Game.new("backgammon", options=GameOptions(cube=True)).opening_roll((3, 1))
    return game.move(0, game.legal_plays()[0].steps)


def test_game_money_double_then_pass() -> None:
    game = money_game_on_roll()
    evaluator = FixedEvaluator(no_gammons(0.8))
    assert game.phase is Phase.ROLLING and game.turn == 1
    assert should_double(evaluator, game, 1)
    assert evaluator.seen == [game.position]
    doubled = game.double(1)
    assert not should_take(evaluator, doubled, 0)
    # A 60% position: no double; had it come, the take is right.
    assert not should_double(FixedEvaluator(no_gammons(0.6)), game, 1)
    assert should_take(FixedEvaluator(no_gammons(0.6)), doubled, 0)


def test_game_take_is_judged_from_the_doubler_on_roll() -> None:
    game = money_game_on_roll().double(1)
    evaluator = FixedEvaluator(no_gammons(0.7))
    assert should_take(evaluator, game, 0)
    assert evaluator.seen == [game.board_for(1)]
    with pytest.raises(ValueError):
        should_take(evaluator, game, 1)
    with pytest.raises(ValueError):
        should_take(evaluator, money_game_on_roll(), 0)


def test_game_never_doubles_a_cube_it_does_not_own() -> None:
    game = money_game_on_roll()
    owned_by_opponent = Game(
        game.variant, game.options, game.context, game.position, game.phase, game.turn,
        cube=Cube(value=2, owner=0), turns_played=game.turns_played,
    )
    assert not should_double(FixedEvaluator(no_gammons(0.9)), owned_by_opponent, 1)


def dave_game(context: MatchContext, *, play_first_turn: bool = True) -> Game:
    game = Game.new("dave", context=context).opening_roll((3, 1))
    if play_first_turn:
        game = game.move(0, game.legal_plays()[0].steps)
    return game


def test_crawford_game_never_doubles() -> None:
    game = Game.new("backgammon", options=GameOptions(cube=True), context=MatchContext(5, (4, 2), crawford=True))
    game = game.opening_roll((3, 1))
    game = game.move(0, game.legal_plays()[0].steps)
    assert not game.can_double(1)
    assert not should_double(FixedEvaluator(no_gammons(0.99)), game, 1)


def test_dave_restrictions_are_refused() -> None:
    strong = FixedEvaluator(no_gammons(0.75))
    # A normal dave position: the double is allowed and right (5-away each, 75%).
    game = dave_game(MatchContext(5, (0, 0)))
    assert game.can_double(1) and should_double(strong, game, 1)
    # No double on the game's first turn (the player who won the opening roll, before moving).
    first = Game.new("dave", context=MatchContext(5, (0, 0)), first_player=0)
    assert not first.can_double(0) and not should_double(strong, first, 0)
    # A player one point from the match may not double (post-Crawford, 5-point match at 4-1).
    leader = dave_game(MatchContext(5, (2, 4)))
    assert not should_double(strong, leader, 1)
    # No double past the value that already wins the match: cube at 2, doubler 2-away and owner.
    game = dave_game(MatchContext(5, (0, 3)))
    owned = Game(
        game.variant, game.options, game.context, game.position, game.phase, game.turn,
        cube=Cube(value=2, owner=1), turns_played=game.turns_played,
    )
    assert not owned.can_double(1) and not should_double(strong, owned, 1)
