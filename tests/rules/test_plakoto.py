"""Plakoto (docs/rules.md §9): pins instead of hits, the mother rule, scoring.

Each rule test quotes the sentence it enforces. Sources, as docs/rules.md §9
lists them: Wikipedia, "Plakoto" (en.wikipedia.org/wiki/Plakoto); bkgm.com,
"The Pin Game" (bkgm.com/variants/PinGame.html), which gives Plakoto's pins;
backgammon-game.eu, "The Pin game" (its mother rule); The Board's "Rules for
Plakoto" (fibs.com/~cthulhu/boardgame/en/rules_plakoto.html); Ludii's
"Plakoto" (ludii.games/details.php?keyword=Plakoto); MSO's "Backgammon
Plakoto" (msoworld.com/product/backgammon-plakoto/).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.rules import (
    DICE_ROLLS, Game, InvalidPositionError, MatchContext, Phase, Position, Step, WinKind, find_variant,
)
from tests.rules.plakoto_reference import State, reference_results

P = "plakoto"
VARIANT = find_variant(P)
CHECKERS = VARIANT.checkers


def board(
    mine: Mapping[int, int],
    theirs: Mapping[int, int],
    pins: Mapping[int, int] | None = None,
    off: tuple[int, int] | None = None,
) -> Position:
    """A plakoto position seen by the side to move, our numbering throughout.

    ``mine`` and ``theirs`` give the free checkers on top of each point (both
    positive); ``pins`` puts a pinned checker under a point: +1 one of ours
    (under ``theirs``), -1 one of theirs (under ``mine``). Checkers not
    placed are borne off unless ``off`` is given.
    """
    points = [0] * 24
    pinned = [0] * 24
    for point, count in mine.items():
        points[point - 1] += count
    for point, count in theirs.items():
        points[point - 1] -= count
    for point, pin in (pins or {}).items():
        pinned[point - 1] = pin
    if off is None:
        own = sum(mine.values()) + sum(1 for pin in pinned if pin > 0)
        opposing = sum(theirs.values()) + sum(1 for pin in pinned if pin < 0)
        off = (CHECKERS - own, CHECKERS - opposing)
    return Position(VARIANT, tuple(points), (0, 0), off, tuple(pinned))


def reached(position: Position, dice: tuple[int, int]) -> set[Position]:
    return {play.position for play in position.legal_plays(dice)}


def as_state(position: Position) -> State:
    """``position`` in the reference generator's own representation: stacks read bottom to top."""
    stacks = []
    for count, pin in zip(position.points, position.pinned):
        under = "m" if pin > 0 else "o" if pin < 0 else ""
        stacks.append(under + ("m" * count if count > 0 else "o" * -count))
    return tuple(stacks), position.off[0]


def moved(position: Position) -> set[int]:
    """The points any legal step of any roll starts from."""
    return {step.source for dice in DICE_ROLLS for step in position.next_steps(dice)}


# ----- setup


def test_every_checker_starts_on_the_opponents_ace_point() -> None:
    """Wikipedia, "Plakoto": "One player's pieces are placed on the ace-point; the opponent's pieces are placed on
    the 24 point." """
    start = Position.start(P)
    assert start == board({24: 15}, {1: 15})
    assert start.turned() == start
    assert start.pip_counts() == (360, 360)


# ----- pins


def test_landing_on_a_lone_checker_pins_it() -> None:
    """bkgm.com, "The Pin Game": "if you land on a point occupied by a single opposing checker, the opponent's checker
    is trapped until you remove your checker." """
    position = board({24: 14, 10: 1}, {1: 14, 7: 1})
    pinned = position.play((3, 1), [Step(10, 7, 3, True), Step(24, 23, 1)])
    assert pinned == board({24: 13, 23: 1, 7: 1}, {1: 14}, {7: -1})
    assert pinned.pip_counts() == (position.pip_counts()[0] - 4, position.pip_counts()[1])


def test_a_pin_at_an_intermediate_stop_holds_only_while_the_checker_stays() -> None:
    """bkgm.com, "The Pin Game": "the opponent's checker is trapped until you remove your checker." """
    position = board({24: 14, 10: 1}, {1: 14, 7: 1})
    through = position.play((3, 1), [Step(10, 7, 3, True), Step(7, 6, 1)])
    assert through == board({24: 14, 6: 1}, {1: 14, 7: 1})


def test_the_pinned_checker_cannot_move() -> None:
    """The Board: "Captured blots can not be moved until all the capturing checker has move from that point";
    MSO: checkers "remain pinned until the opponents' checker moves"."""
    position = board({24: 14}, {1: 13, 7: 2}, {7: 1})
    assert 7 not in moved(position)
    assert all(play.position.pinned[6] == 1 for play in position.legal_plays((6, 5)))


def test_no_checker_of_ours_lands_on_a_point_where_ours_is_pinned() -> None:
    """bkgm.com, "The Pin Game": "one of your checkers pinning the opponent's checker creates a block which the
    opponent cannot land or touch down on." Ludii: "The player cannot move a piece to a point where the opponent
    has trapped another of the player's pieces." """
    position = board({24: 13, 10: 1}, {1: 14, 7: 1}, {7: 1})
    assert all(step.target != 7 for dice in DICE_ROLLS for step in position.next_steps(dice))
    assert not any(
        step.source == 10 and step.die == 3 for step in position.next_steps((3, 2))
    ), "10/7 would land on the pinned point"


def test_a_freed_checker_moves_again() -> None:
    """bkgm.com, "The Pin Game": "the opponent's checker is trapped until you remove your checker." Once the pinner
    leaves, the pinned checker is free: it moves, and can itself be pinned again."""
    position = board({24: 13}, {1: 14, 7: 1}, {7: 1})
    theirs = position.turned()  # the pinner stands on its own 18
    freed = theirs.play((6, 5), [Step(18, 12, 6), Step(12, 7, 5)]).turned()
    assert freed == board({24: 13, 7: 1}, {1: 14, 18: 1})
    assert 7 in moved(freed)


def test_the_pinner_may_stack_checkers_on_the_pinned_point() -> None:
    """The Board: "The capturing player may, however, stack as many checkers he wants on that point." """
    position = board({24: 13, 10: 1, 7: 1}, {1: 14}, {7: -1})
    stacked = position.play((3, 1), [Step(10, 7, 3), Step(24, 23, 1)])
    assert stacked == board({24: 12, 23: 1, 7: 2}, {1: 14}, {7: -1})


def test_leaving_one_of_two_pinners_keeps_the_pin() -> None:
    """The Board: "Captured blots can not be moved until all the capturing checker has move from that point
    which will free the captured blot." """
    position = board({24: 12, 7: 2}, {1: 14}, {7: -1})
    after = position.play((4, 3), [Step(7, 3, 4), Step(24, 21, 3)])
    assert after == board({24: 11, 21: 1, 7: 1, 3: 1}, {1: 14}, {7: -1})


def test_two_checkers_close_a_point() -> None:
    """Wikipedia, "Plakoto": "a piece can only be moved to an open point. An open point is the one that is not
    occupied by two or more of the opponent's pieces." """
    position = board({24: 14, 10: 1}, {1: 13, 7: 2})
    assert all(not (step.source == 10 and step.die == 3) for step in position.next_steps((3, 1)))


# ----- bearing off


def test_bearing_off_waits_for_a_checker_pinned_outside_home() -> None:
    """bkgm.com, "The Pin Game": "Once you have moved all fifteen of your checkers into your home board, you may begin
    bearing off"; a checker pinned on our 8 is not home."""
    position = board({6: 10, 5: 3}, {8: 1, 1: 14}, {8: 1}, off=(1, 0))
    assert all(step.target != 0 for dice in DICE_ROLLS for step in position.next_steps(dice))


def test_bearing_off_waits_for_a_checker_pinned_in_home() -> None:
    """The Board: "In order to be allowed to bear off, all checkers must be in the opponent's home board and they
    must also be free"; Ludii: "A player cannot bear off when the player has one or more pieces trapped inside
    their home section." (docs/rules.md §9, decision)"""
    position = board({6: 10, 5: 3}, {3: 1, 1: 14}, {3: 1}, off=(1, 0))
    assert all(step.target != 0 for dice in DICE_ROLLS for step in position.next_steps(dice))
    free = board({6: 10, 5: 3, 3: 1}, {1: 14, 20: 1}, off=(1, 0))
    assert any(step.target == 0 for step in free.next_steps((6, 5)))


def test_bearing_off_is_backgammons() -> None:
    """Bearing off as in backgammon (docs/rules.md §1): "if no checker stands on that point or higher, the
    checker on the highest occupied point is borne off"; a die may also move a checker inside the board."""
    position = board({5: 1, 3: 1}, {13: 15}, off=(13, 0))
    assert reached(position, (6, 4)) == {
        board({}, {13: 15}, off=(15, 0)),
        board({1: 1}, {13: 15}, off=(14, 0)),
    }


# ----- the maximum-dice rule


def test_both_dice_must_be_played_when_they_can_be() -> None:
    """bkgm.com, "The Pin Game": "You must use both numbers of a roll if possible, or all four numbers in the case of
    doubles." """
    position = board({24: 14, 12: 1}, {1: 13, 18: 2})
    # 24/18 is closed; the 6 can be played only by 12/6, so the 5 must come with it
    plays = position.legal_plays((6, 5))
    assert plays and all(len(play.steps) == 2 for play in plays)
    assert all(any(step.die == 6 for step in play.steps) for play in plays)


def test_the_larger_die_when_only_one_can_be_played() -> None:
    """bkgm.com, "The Pin Game": "If you can play one number but not both, you must play the
    higher one." """
    # 24/18 and 24/19 are closed; the checker on 8 can play the 6 (8/2) or the 5 (8/3), not both
    position = board({24: 14, 8: 1}, {1: 11, 18: 2, 19: 2})
    plays = position.legal_plays((6, 5))
    assert plays, "a die can be played"
    assert all(len(play.steps) == 1 and play.steps[0].die == 6 for play in plays)


# ----- the mother rule and scoring


def game_at(position: Position, dice: tuple[int, int]) -> Game:
    """A plakoto game with ``position`` on the board, player 0 to play ``dice``."""
    game = Game.new(P, context=MatchContext(length=7)).opening_roll((6, 1)).roll(0, (6, 5))
    return replace(game, position=position, dice=dice, phase=Phase.MOVING)


def test_pinning_the_mother_wins_two_points() -> None:
    """backgammon-game.eu, "The Pin game": "The last checker on your starting point is called the mother. If this
    checker gets pinned by the opponent before it has left the start, the game is over and you lose two points." """
    position = board({7: 1, 6: 14}, {1: 1, 20: 14})
    game = game_at(position, (6, 1)).move(0, [Step(7, 1, 6, True), Step(6, 5, 1)])
    assert game.phase is Phase.FINISHED
    assert game.result is not None
    assert (game.result.winner, game.result.kind, game.result.points, game.result.reason) == (
        0, WinKind.GAMMON, 2, "mother",
    )


def test_the_mother_rule_waits_while_the_pinners_own_mother_can_be_pinned() -> None:
    """backgammon-game.eu, "The Pin game": "The only exception is if the opponent still has checkers on his starting point, since
    in this case his own mother is still threatened." """
    position = board({24: 2, 7: 1, 6: 12}, {1: 1, 20: 14})
    game = game_at(position, (6, 1)).move(0, [Step(7, 1, 6, True), Step(6, 5, 1)])
    assert game.phase is Phase.ROLLING and game.result is None


def test_leaving_ones_own_start_with_the_opposing_mother_pinned_wins() -> None:
    """backgammon-game.eu, "The Pin game": "The only exception is if the opponent still has checkers on his starting point, since
    in this case his own mother is still threatened." The Board: "You win ... [if] you capture your opponent's home
    point while leaving your own home point with all checkers." """
    position = board({24: 1, 6: 12, 1: 1}, {20: 13, 19: 1}, {1: -1})
    game = game_at(position, (6, 5)).move(0, [Step(24, 18, 6), Step(18, 13, 5)])
    assert game.result is not None and (game.result.winner, game.result.points, game.result.reason) == (
        0, 2, "mother",
    )


def test_both_mothers_pinned_is_a_tie_and_the_game_starts_again() -> None:
    """backgammon-game.eu, "The Pin game": "A game in which both mothers are pinned is a tie." A tie scores nothing: the game
    is played again from the opening roll (docs/rules.md §9, decision)."""
    position = board({7: 1, 6: 13}, {1: 1, 20: 13, 24: 1}, {24: 1})
    game = game_at(position, (6, 1)).move(0, [Step(7, 1, 6, True), Step(6, 5, 1)])
    assert game.result is None and game.phase is Phase.OPENING
    assert game.position == Position.start(P)
    assert game.tied and game.ties == 1  # the record says so: the history keeps the tied game and the tie
    again = game.opening_roll((5, 2))
    assert not again.tied and again.ties == 1


def test_a_gammon_counts_two_and_there_is_no_backgammon() -> None:
    """Grokipedia, "Plakoto": "points scored based on whether the loser has borne off any checkers (-1 point if
    they have, -2 if not)"; tavli plays without the backgammon (bkgm.com, "Tavli": "with the exception of the doubling and usually the backgammon
    rule (3 points win)")."""
    position = board({1: 1}, {1: 0, 19: 14, 24: 1}, off=(14, 0))
    game = game_at(position, (6, 5)).move(0, [Step(1, 0, 6)])
    assert game.result is not None
    assert (game.result.kind, game.result.points) == (WinKind.GAMMON, 2)
    single = board({1: 1}, {19: 13, 24: 1}, off=(14, 1))
    game = game_at(single, (6, 5)).move(0, [Step(1, 0, 6)])
    assert game.result is not None and (game.result.kind, game.result.points) == (WinKind.SINGLE, 1)
    assert VARIANT.win_kinds == (WinKind.SINGLE, WinKind.GAMMON) and not VARIANT.cube_allowed


# ----- the representation


def test_pins_are_part_of_the_position_and_turn_with_the_board() -> None:
    """A pinned checker is one of its side's fifteen ("Each player has fifteen pieces", Wikipedia) and lies on
    the same point whichever side looks at the board."""
    position = board({24: 14, 7: 1}, {1: 14}, {7: -1})
    assert position != board({24: 14, 7: 1}, {1: 14, 7: 0}, off=(0, 1))
    turned = position.turned()
    assert turned.pinned[25 - 7 - 1] == 1 and turned.points[25 - 7 - 1] == -1
    assert turned.turned() == position
    assert Position.from_row(VARIANT, position.row()) == position
    with pytest.raises(InvalidPositionError):
        Position(VARIANT, position.points, (0, 0), (0, 0))  # the pinned checker is missing
    with pytest.raises(InvalidPositionError):
        Position(find_variant("backgammon"), Position.start("backgammon").points, pinned=(1,) + (0,) * 23)


# ----- against the independent generator


def random_positions(count: int, seed: int) -> Iterator[tuple[Position, tuple[int, int], list[Position]]]:
    """``count`` positions reached by random play from the start, each with a random roll and the positions
    the engine's legal plays of it leave."""
    rng = random.Random(seed)
    start = Position.start(P)
    position = start
    for _ in range(count):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = position.legal_positions(dice)
        yield position, dice, plays
        if not plays:
            position = position.turned()
            continue
        after = rng.choice(plays)
        over = after.winner_is_mover() or VARIANT.early_end(after) is not None
        position = start if over else after.turned()


@pytest.mark.slow
def test_legal_plays_match_an_independent_generator() -> None:
    """The engine's plays of 20,000 random positions, each with a random roll, are exactly those of the
    generator written from the rules texts (tests/rules/plakoto_reference.py)."""
    for position, dice, plays in random_positions(20_000, seed=2026):
        engine = [as_state(reached_position) for reached_position in plays]
        assert len(engine) == len(set(engine)), "one play per distinct position"
        assert set(engine) == reference_results(as_state(position), dice), (position, dice)


def test_legal_rows_are_the_plays_positions_rows() -> None:
    """The bots' quick path: ``legal_rows`` answers each legal play's position as its row, pins included, in the
    order of ``legal_positions``, and a row makes its position again."""
    for position, dice, _ in random_positions(200, seed=11):
        positions = position.legal_positions(dice)
        assert position.legal_rows(dice) == [p.row() for p in positions]
        assert all(Position.from_row(p.variant, p.row()) == p for p in positions)


def test_sequences_and_plays_agree() -> None:
    """A legal play is a sequence of single steps (docs/rules.md §1): every legal order of steps leads to one of
    the legal plays' positions, and each play's steps lead to its own."""
    for position, dice, _ in random_positions(300, seed=7):
        plays = position.legal_plays(dice)
        assert {position.after(play.steps) for play in plays} == {play.position for play in plays}
        assert {position.after(steps) for steps in position.legal_sequences(dice)} == {p.position for p in plays}


# ----- properties


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 80))
def test_random_play_keeps_fifteen_a_side_and_never_adds_pips(seed: int, turns: int) -> None:
    """Wikipedia: "Each player has fifteen pieces"; every move goes forward, so the mover's pips never grow, and
    backgammon's maximum-dice rule holds: every play uses as many dice as any sequence can."""
    rng = random.Random(seed)
    position = Position.start(P)
    for _ in range(turns):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = position.legal_plays(dice)
        sequences = position.legal_sequences(dice)
        most = max((len(steps) for steps in sequences), default=0)
        assert all(len(play.steps) == most for play in plays)
        if not plays:
            position = position.turned()
            continue
        play = rng.choice(plays)
        after = play.position
        mine = sum(c for c in after.points if c > 0) + after.pinned.count(1) + after.off[0]
        theirs = -sum(c for c in after.points if c < 0) + after.pinned.count(-1) + after.off[1]
        assert mine == theirs == CHECKERS
        assert after.pip_counts()[0] == position.pip_counts()[0] - sum(step.source - step.target for step in play.steps)
        assert after.pip_counts()[1] == position.pip_counts()[1]
        if after.winner_is_mover() or VARIANT.early_end(after) is not None:
            return
        position = after.turned()
