"""The one fold of a match's inputs (``nardy.rules.replay``): what a game receives, folded through the rules.

Each input is given to the rules, which refuse an illegal one; the turn in
progress lives in the fold, so steps and undos are inputs like the others.
"""

from __future__ import annotations

import doctest

import pytest

import nardy.rules.replay as module
from nardy.rules import (
    GameOptions,
    IllegalActionError,
    IllegalStepError,
    Match,
    RulesError,
    Step,
    WinKind,
    WrongTurnError,
)
from nardy.rules.replay import (
    AcceptResignation,
    Double,
    Drop,
    Forfeit,
    Move,
    OpeningRoll,
    Pass,
    Replay,
    Resign,
    Roll,
    TakeStep,
    Timeout,
    UndoStep,
)

OPENING_61 = Move(0, (Step(24, 18, 6), Step(6, 5, 1)))
"""Player 0 opens 6-1 leaving a blot on its 18 point."""
HIT_61 = Move(1, (Step(13, 7, 6, hit=True), Step(8, 7, 1)))
"""Player 1 answers 6-1, hitting the blot and closing its 7 point, so 6-6 cannot enter."""


def opened(final: bool = False, length: int = 1, cube: bool = False) -> Replay:
    """A backgammon match whose opening roll 6-1 was player 0's."""
    match = Match.new("backgammon", length=length, options=GameOptions(cube=cube))
    return Replay.new(match, final=final).apply(OpeningRoll((6, 1)))


def test_the_examples_hold() -> None:
    failures, _ = doctest.testmod(module)
    assert failures == 0


def test_steps_and_undos_are_the_turn_in_progress_and_a_move_ends_it() -> None:
    play = opened().apply(TakeStep(0, Step(24, 18, 6)))
    assert play.turn.made == (Step(24, 18, 6),)
    assert play.apply(UndoStep(0)).turn.made == ()
    moved = play.apply(OPENING_61)
    assert (moved.game.turn, moved.turn.made, moved.finished) == (1, (), None)


def test_a_step_the_rules_do_not_allow_or_of_the_wrong_player_is_refused() -> None:
    with pytest.raises(IllegalStepError):
        opened().apply(TakeStep(0, Step(24, 19, 5)))
    with pytest.raises(WrongTurnError):
        opened().apply(TakeStep(1, Step(24, 18, 6)))


def test_no_undo_where_moves_are_final() -> None:
    """004: «Ходы окончательны: сделанный ход нельзя отменить»."""
    with pytest.raises(IllegalActionError):
        opened(final=True).apply(TakeStep(0, Step(24, 18, 6))).apply(UndoStep(0))


def test_a_pass_is_recorded_only_where_the_rules_passed_the_roll() -> None:
    """003: «Такой ход обозначен как "pass" в записи игры»: the roll passes; the pass input changes nothing."""
    play = opened().apply(OPENING_61).apply(Roll(1, (6, 1))).apply(HIT_61).apply(Roll(0, (6, 6)))
    assert play.game.turn == 1, "the rules passed the roll and handed the turn over"
    assert play.apply(Pass(0, (6, 6))).match == play.match
    with pytest.raises(IllegalActionError):
        play.apply(Pass(0, (5, 5)))
    with pytest.raises(IllegalActionError):
        opened().apply(OPENING_61).apply(Roll(1, (6, 1))).apply(Pass(1, (6, 1)))


def test_a_timeout_keeps_the_steps_made_and_a_forfeit_ends_the_match() -> None:
    play = opened().apply(TakeStep(0, Step(24, 18, 6)))
    timed = play.apply(Timeout(0))
    assert (timed.match.timeouts, timed.turn.made) == ((1, 0), (Step(24, 18, 6),))
    forfeited = play.apply(Forfeit(0))
    assert (forfeited.match.winner, forfeited.turn.made, forfeited.finished) == (1, (), None)


def test_a_resignation_offer_keeps_the_turn_and_its_acceptance_finishes_the_game() -> None:
    play = opened().apply(TakeStep(0, Step(24, 18, 6))).apply(Resign(0, WinKind.SINGLE))
    assert play.turn.made == (Step(24, 18, 6),) and play.turn.game is play.game
    ended = play.apply(AcceptResignation(1))
    assert ended.finished is not None and ended.finished.result is not None
    assert (ended.finished.result.winner, ended.match.winner, ended.left) == (1, 1, ended.finished)


def test_a_drop_finishes_the_game_and_the_next_one_begins() -> None:
    play = opened(length=5, cube=True).apply(OPENING_61).apply(Double(1))
    dropped = play.apply(Drop(0))
    assert dropped.finished is not None and dropped.match.score == (0, 1)
    assert dropped.game is not dropped.finished and not dropped.game.history


def test_an_illegal_input_leaves_nothing_changed() -> None:
    play = opened()
    with pytest.raises(RulesError):
        play.apply(Roll(0, (3, 3)))
    assert play.turn.made == () and play.game.dice == (6, 1)
