"""Finished games rated exactly (nardy.bots.evaluator): a bear-off, and plakoto's mother rule with its tie."""

from __future__ import annotations

from nardy.bots.evaluator import TIE, play_ending, terminal_probabilities
from nardy.rules import Position, WinKind, find_variant


def plakoto(points: dict[int, int], pinned: dict[int, int], off: tuple[int, int] = (0, 0)) -> Position:
    return Position(
        find_variant("plakoto"),
        tuple(points.get(p, 0) for p in range(1, 25)),
        off=off,
        pinned=tuple(pinned.get(p, 0) for p in range(1, 25)),
    )


def test_a_pinned_mother_ends_the_game_once_the_pinner_has_left_its_start() -> None:
    """docs/rules.md §9: pinning the opponent's mother wins double once no checker of ours is left on our start."""
    won = plakoto({1: 1, 6: 14, 19: -14}, {1: -1})
    assert play_ending(won) == WinKind.GAMMON
    assert terminal_probabilities(won).tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert terminal_probabilities(won.turned()).tolist() == [0.0, 0.0, 0.0, 1.0, 0.0]


def test_a_pinned_mother_with_ours_still_on_our_start_goes_on() -> None:
    going = plakoto({1: 1, 6: 13, 24: 1, 19: -14}, {1: -1})
    assert play_ending(going) is None
    assert terminal_probabilities(going) is None and terminal_probabilities(going.turned()) is None


def test_both_mothers_pinned_is_a_tie_worth_nothing() -> None:
    """docs/rules.md §9: with both mothers pinned the game is a tie (it starts again)."""
    tie = plakoto({1: 1, 6: 13, 24: -1, 19: -13}, {1: -1, 24: 1})
    assert play_ending(tie) == "tie"
    assert terminal_probabilities(tie).tolist() == TIE.tolist()
    assert terminal_probabilities(tie.turned()).tolist() == TIE.tolist()


def test_bearing_off_the_last_checker_wins_as_before() -> None:
    done = plakoto({19: -15}, {}, off=(15, 0))
    assert play_ending(done) == WinKind.GAMMON
    assert terminal_probabilities(done).tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]
