"""bgsage's cubeless ratings count each variant's wins by the variant's own values (a backgammon is 2 in portes)."""

from __future__ import annotations

import pytest

from nardy.bots.sage import (
    BGSAGE_VALUES,
    CubeContext,
    SageBot,
    SageLevel,
    board_of,
    cubeless_equity,
    engine,
    rank_plays,
    win_values,
)
from nardy.rules import Game, GameOptions, MatchContext, find_variant
from tests.bots.bot_positions import random_position


def test_each_variant_counts_its_own_wins() -> None:
    """Tavla and portes: "no backgammon" / "There is no triple game" (docs/rules.md §8.1, §8.2)."""
    assert win_values(find_variant("tavla")) == (1, 2, 2)
    assert win_values(find_variant("portes")) == (1, 2, 2)
    assert win_values(find_variant("georgian")) == (1, 2, 3)
    assert win_values(find_variant("backgammon"), GameOptions(backgammon_value=2)) == (1, 2, 2)


def test_the_formula_by_hand() -> None:
    probabilities = [0.5, 0.2, 0.1, 0.15, 0.05]  # win, win gammon+, win backgammon, lose gammon+, lose backgammon
    # wins: single 0.3, gammon 0.1, backgammon 0.1; losses: single 0.35, gammon 0.1, backgammon 0.05
    assert cubeless_equity(probabilities, (1, 2, 3)) == pytest.approx(0.3 + 0.2 + 0.3 - 0.35 - 0.2 - 0.15)
    assert cubeless_equity(probabilities, (1, 2, 2)) == pytest.approx(0.3 + 0.2 + 0.2 - 0.35 - 0.2 - 0.1)


def test_bgsages_own_equity_is_the_formula_with_one_two_three() -> None:
    """At 1-ply and in the n-ply search, bgsage's equity is its probabilities counted 1, 2, 3."""
    position, dice = random_position("backgammon", seed=1, turns=20)
    before = board_of(position)
    board = board_of(position.legal_plays(dice)[0].position)
    sage = engine()
    for answer in (sage._one_ply.evaluate_board(board, before), sage._deep[2].evaluate_board(board, before)):
        assert cubeless_equity(answer["probs"], BGSAGE_VALUES) == pytest.approx(float(answer["equity"]), abs=1e-9)


def test_a_backgammon_worth_two_changes_the_play() -> None:
    """Portes position (random play, seed 148): with a backgammon counted 3 bgsage hits from 18, counted 2 from 23."""
    position, dice = random_position("portes", seed=148, turns=58)
    assert dice == (3, 1)
    as_portes = rank_plays(position, dice)[0].play
    as_backgammon = rank_plays(position, dice, CubeContext(values=(1, 2, 3)))[0].play
    assert as_portes != as_backgammon
    assert as_portes.steps[0].source == 23 and as_backgammon.steps[0].source == 18
    game = Game.new("portes", context=MatchContext(length=5))
    assert CubeContext.of(game, 0).values == (1, 2, 2)
    assert SageBot(SageLevel(plies=1)).choose_play(position, dice) == as_portes
