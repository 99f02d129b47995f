"""The turn in progress (:mod:`nardy.rules.turn`): push, pop, confirm, moves-final and the timeout play.

Hypothesis draws games reached by random play in every variant (the variant,
a seed and a number of plies; the game waits for a move at the end) and
checks the turn against the game's legal plays.
"""

from __future__ import annotations

import doctest
import random
from dataclasses import dataclass, replace
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.rules import (
    VARIANTS, Game, GameOptions, IllegalActionError, IllegalPlayError, IllegalStepError, Phase, find_variant,
)
from nardy.rules import events as events_module
from nardy.rules import game as game_module
from nardy.rules import turn as turn_module
from nardy.rules.cube import Cube, MatchContext
from nardy.rules.events import OpeningRolled, Passed
from nardy.rules.position import Position
from nardy.rules.turn import Turn, whole_play

VARIANT_NAMES = sorted(VARIANTS)


@dataclass(frozen=True)
class Reached:
    """A game of ``variant`` played at random (``seed``) for about ``plies`` plies, then rolled until it moves."""

    variant: str
    seed: int
    plies: int


def moving_game(reached: Reached) -> Game:
    """The game ``reached`` describes, waiting for the player on turn's move (a fresh one if it ended)."""
    rng = random.Random(reached.seed)
    game = Game.new(reached.variant, context=MatchContext(length=3))
    plies = 0
    while True:
        if game.phase is Phase.OPENING:
            game = game.opening_roll((rng.randint(1, 6), rng.randint(1, 6)))
        elif game.phase is Phase.ROLLING:
            game = game.roll(game.turn, (rng.randint(1, 6), rng.randint(1, 6)))
        elif game.phase is Phase.MOVING:
            if plies >= reached.plies:
                return game
            game = game.move(game.turn, rng.choice(game.legal_plays()).steps)
            plies += 1
        else:
            game = Game.new(reached.variant, context=MatchContext(length=3))


games = st.builds(
    Reached, variant=st.sampled_from(VARIANT_NAMES), seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 60),
).map(moving_game)


def opening(dice: tuple[int, int] = (3, 1)) -> Game:
    return Game.new("backgammon").opening_roll(dice)


# ----- examples


def test_a_step_s_target_and_hit_are_the_rules() -> None:
    turn = Turn(opening()).push(8, 3)
    assert turn.made[0].target == 5 and not turn.made[0].hit
    assert not turn.is_complete and not turn.can_confirm and turn.can_undo


def test_a_step_no_play_continues_with_is_refused_naming_it() -> None:
    with pytest.raises(IllegalStepError, match="no legal step from 8 with a 2 now"):
        Turn(opening()).push(8, 2)


def test_nothing_moves_before_the_roll() -> None:
    rolling = Game.new("long-traditional").opening_roll((5, 3))
    assert rolling.phase is Phase.ROLLING
    with pytest.raises(IllegalActionError, match="roll first"):
        Turn(rolling).push(24, 5)


def test_undo_is_refused_with_nothing_made_or_where_moves_are_final() -> None:
    with pytest.raises(IllegalActionError, match="no step to undo"):
        Turn(opening()).pop()
    final = Turn(opening(), final=True).push(8, 3)
    assert not final.can_undo
    with pytest.raises(IllegalActionError, match="moves are final"):
        final.pop()


def test_an_incomplete_play_cannot_be_confirmed() -> None:
    with pytest.raises(IllegalPlayError, match="every die that can be played must be played"):
        Turn(opening()).push(8, 3).play()


def test_moves_final_ends_the_turn_on_the_step_completing_the_play() -> None:
    """004: «После последнего обязательного хода очередь автоматически переходит к сопернику»."""
    half = Turn(opening(), final=True).push(8, 3)
    assert not half.ends_itself
    assert half.push(6, 1).ends_itself
    assert not Turn(opening()).push(8, 3).push(6, 1).ends_itself, "without final moves the player confirms"


def test_whole_play_fills_in_the_hits_and_refuses_a_part_of_a_play() -> None:
    assert [s.target for s in whole_play(opening(), [(8, 5, 3), (6, 5, 1)])] == [5, 5]
    with pytest.raises(IllegalPlayError, match="not a legal play"):
        whole_play(opening(), [(8, 5, 3)])


def test_the_board_shows_the_steps_made_from_either_side() -> None:
    turn = Turn(opening()).push(8, 3)
    assert turn.board_for(0) == opening().position.after(turn.made)
    assert turn.board_for(1) == turn.board_for(0).turned()


def test_whose_decision_it_is() -> None:
    game = Game.new("backgammon", options=GameOptions(cube=True))
    assert game.actor is None, "both players roll the opening"
    game = game.opening_roll((3, 1))
    assert game.actor == 0
    game = game.move(0, game.legal_plays()[0].steps)
    assert game.actor == 1
    assert game.double(1).actor == 0, "the doubled player answers"
    assert game.resign(1).actor == 0, "the resigning player's opponent answers"


def test_beaver_is_open_up_to_the_cube_limit() -> None:
    """docs/rules.md: «a beaver that would pass 64 is refused»."""
    game = Game.new("backgammon", options=GameOptions(cube=True, beavers=True)).opening_roll((3, 1))
    game = game.move(0, game.legal_plays()[0].steps).double(1)
    assert game.cube_actions(0) == ("take", "drop", "beaver") and game.cube_actions(1) == ()
    assert replace(game, cube=Cube(16)).can_beaver(0)
    high = replace(game, cube=Cube(32))
    assert not high.can_beaver(0) and "past 64" in (high.beaver_refusal(0) or "")
    assert Game.new("backgammon", options=GameOptions(cube=True)).opening_roll((3, 1)).beaver_refusal(0) is not None


def test_a_roll_with_no_legal_play_is_a_pass() -> None:
    """003: «Такой ход обозначен как "pass" в записи игры»."""
    closed = Position(find_variant("backgammon"), (0,) * 18 + (-2,) * 6, bar=(1, 0), off=(14, 3))
    game = Game.new("backgammon").opening_roll((3, 1))
    game = replace(game, position=closed, phase=Phase.ROLLING, dice=None)
    passed = game.roll(0, (6, 5))
    assert passed.last_pass == Passed(0, (6, 5)) and passed.turn == 1
    assert game.last_pass is None


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_no_opening_roll_passes(variant: str) -> None:
    """Every opening roll is played from the start, where each roll has a play: the opening never passes."""
    for first in range(1, 7):
        for second in range(1, 7):
            game = Game.new(variant, context=MatchContext(length=3)).opening_roll((first, second))
            assert game.last_pass is None


def test_the_opening_roll_names_who_plays_first() -> None:
    assert OpeningRolled((5, 3)).first == 0 and OpeningRolled((2, 6)).first == 1 and OpeningRolled((4, 4)).first is None


# ----- properties


@settings(max_examples=60, deadline=None)
@given(games, st.integers(0, 2**32 - 1))
def test_pushing_the_steps_of_any_legal_play_completes_the_turn(game: Game, seed: int) -> None:
    play = random.Random(seed).choice(game.legal_plays())
    turn = Turn(game)
    for step in play.steps:
        assert not turn.is_complete
        turn = turn.push(step.source, step.die)
    assert turn.is_complete and turn.play() == play.steps
    assert turn.position() == play.position


@settings(max_examples=60, deadline=None)
@given(games, st.data())
def test_pop_undoes_push(game: Game, data: st.DataObject) -> None:
    turn = Turn(game)
    while turn.next_steps:
        step = data.draw(st.sampled_from(turn.next_steps))
        pushed = turn.push(step.source, step.die)
        assert pushed.pop() == turn
        turn = pushed


@settings(max_examples=60, deadline=None)
@given(games, st.integers(0, 2**32 - 1), st.integers(0, 4))
def test_the_timeout_play_is_a_legal_play_beginning_with_the_steps_made(game: Game, seed: int, depth: int) -> None:
    rng = random.Random(seed)
    turn = Turn(game)
    for _ in range(depth):
        if not turn.next_steps or turn.is_complete:
            break
        step = rng.choice(turn.next_steps)
        turn = turn.push(step.source, step.die)
    chosen = turn.timeout_play(random.Random(seed))
    assert chosen[: len(turn.made)] == turn.made
    assert game.position.after(chosen) in {play.position for play in game.legal_plays()}
    assert turn.timeout_play(random.Random(seed)) == chosen, "a seeded pick repeats"


@settings(max_examples=60, deadline=None)
@given(games, st.data())
def test_moves_final_ends_the_turn_exactly_when_no_step_follows(game: Game, data: st.DataObject) -> None:
    turn = Turn(game, final=True)
    while True:
        step = data.draw(st.sampled_from(turn.next_steps))
        turn = turn.push(step.source, step.die)
        assert turn.ends_itself == (not turn.next_steps)
        if turn.ends_itself:
            break


@pytest.mark.parametrize("module", [turn_module, game_module, events_module])
def test_docstring_examples(module: ModuleType) -> None:
    """The examples in the turn's, the game's and the events' docstrings run and say what they show."""
    failures, _ = doctest.testmod(module)
    assert failures == 0
