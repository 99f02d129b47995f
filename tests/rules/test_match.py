"""Matches: the score, the end of a match, the Crawford game, allowed lengths,
who starts the next game, and the three-timeout loss (seeds 000, 002, 003, 004;
docs/rules.md §1, §3–§7).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from nardy.rules import (
    MAX_TIMEOUTS,
    Cube,
    CubeError,
    Game,
    GameOptions,
    IllegalActionError,
    Match,
    MatchContext,
    Phase,
    Position,
    WinKind,
)
from tests.rules.positions import make

CUBE = GameOptions(cube=True)
LONG = ["long-traditional", "long-tournament", "long-bolshie"]


# ----- helpers


def win(game: Game, winner: int, *, kind: str = "single", cube: Cube | None = None) -> Game:
    """``game`` (as the match started it) played out: ``winner`` bears off its last checker.

    ``kind`` "single" (loser bore off one: single/oin, 1 point) or "double" (loser bore
    off none and is home: gammon/mars, 2 points); the points are multiplied by ``cube``.
    """
    short = not game.variant.name.startswith("long")
    loser_home = 20 if short else 15  # the loser's home seen from the winner
    loser = {loser_home: 14} if kind == "single" else {loser_home: 15}
    at = make(game.variant.name, {1: 1}, loser)
    playing = replace(
        game,
        position=at,
        phase=Phase.ROLLING,
        turn=winner,
        dice=None,
        cube=cube if cube is not None else game.cube,
        turns_played=20,
    )
    # a double, so that the play does not depend on which die bears the checker off
    playing = playing.roll(winner, (1, 1))
    finished = playing.move(winner, playing.legal_plays()[0].steps)
    assert finished.result is not None and finished.result.winner == winner
    return finished


def play(match: Match, winner: int, **kwargs: object) -> Match:
    """The match after its current game is won by ``winner``."""
    return match.update(win(match.game, winner, **kwargs))  # type: ignore[arg-type]


# ----- score and end


def test_score_accumulates_and_the_match_ends_at_n() -> None:
    """000: «Нарды обычно играют как матч до X очков, и первый, кто достигнет или превысит этот
    рубеж, выигрывает матч.» 002: «Матч идёт до 1, 3, 5 или 7 очков».
    """
    match = Match.new("georgian", length=5)
    assert match.score == (0, 0) and not match.is_over
    match = play(match, 0)
    assert match.score == (1, 0)
    assert match.game.context == MatchContext(length=5, score=(1, 0), crawford=False)
    match = play(match, 1, kind="double")
    assert match.score == (1, 2)
    match = play(match, 0, kind="double")
    assert match.score == (3, 2)
    assert not match.is_over and match.winner is None and match.ended_by is None
    assert [r.points for r in match.results] == [1, 2, 2]
    assert [r.winner for r in match.results] == [0, 1, 0]
    # 3 + 2 = 5: the match is won, by reaching N exactly
    match = play(match, 0, kind="double")
    assert match.score == (5, 2)
    assert match.is_over and match.winner == 0 and match.ended_by == "score"
    assert len(match.results) == 4


def test_match_won_by_passing_n() -> None:
    """000: «первый, кто достигнет или превысит этот рубеж, выигрывает матч» — passing N wins too."""
    match = Match.new("backgammon", length=3, options=CUBE)
    match = play(match, 1, kind="double", cube=Cube(4, 1))  # 8 points
    assert match.score == (0, 8)
    assert match.winner == 1 and match.ended_by == "score"


def test_no_action_after_the_match_ends() -> None:
    """000: the first to reach N wins the match; no further game is scored and no timeout counts."""
    match = Match.new("georgian", length=1)
    match = play(match, 1)
    assert match.winner == 1 and match.ended_by == "score"
    finished_game = match.game
    with pytest.raises(IllegalActionError):
        match.update(finished_game)
    with pytest.raises(IllegalActionError):
        match.update(Game.new("georgian", context=MatchContext(length=1)))
    with pytest.raises(IllegalActionError):
        match.timeout(0)


def test_update_with_an_unfinished_game_keeps_the_score() -> None:
    """docs/rules.md §7: every action passes through the match; only a finished game changes the score."""
    match = Match.new("backgammon", length=5, options=CUBE)
    opened = match.game.opening_roll((6, 1))
    updated = match.update(opened)
    assert updated.game == opened
    assert updated.score == (0, 0) and updated.results == ()


def test_dropped_double_scores_in_the_match() -> None:
    """000: «Пас: … немедленно отдав партию сопернику»; 003: a declined double scores the value before it."""
    match = Match.new("dave", length=7)
    game = match.game.opening_roll((3, 1))
    game = game.move(0, game.legal_plays()[0].steps)
    game = game.double(1).take(0)  # player 0 owns the cube on 2
    game = game.roll(1, (6, 5))
    game = game.move(1, game.legal_plays()[0].steps)
    game = game.double(0).drop(1)
    match = match.update(game)
    assert match.score == (2, 0)
    assert match.results[-1].reason == "dropped" and match.results[-1].kind is WinKind.OIN


# ----- Crawford


def test_crawford_game_after_first_reaching_n_minus_one() -> None:
    """000: «правило Кроуфорда гласит, что если один игрок достигает счёта ровно на 1 меньше, чем
    цель матча, куб удвоения убирается из игры в следующей партии (удваивание запрещено). Это
    применяется только для одной партии — если матч продолжается, куб возвращается.»"""
    match = Match.new("backgammon", length=5, options=CUBE)
    match = play(match, 0, kind="double")  # 2-0
    assert not match.game.context.crawford and not match.crawford_played
    match = play(match, 0, kind="double")  # 4-0: player 0 is one point away
    assert match.score == (4, 0)
    assert match.game.context.crawford
    assert match.crawford_played
    assert match.game.options.cube  # the option stays; the Crawford context removes the cube
    # the Crawford game: nobody may double
    game = match.game.opening_roll((3, 1))
    game = game.move(0, game.legal_plays()[0].steps)
    assert game.phase is Phase.ROLLING and game.turn == 1
    with pytest.raises(CubeError, match="Crawford"):
        game.double(1)
    match = match.update(game)
    # player 1 wins the Crawford game: post-Crawford, the cube is back
    match = play(match, 1)
    assert match.score == (4, 1)
    assert not match.game.context.crawford
    game = match.game.opening_roll((3, 1))
    game = game.move(0, game.legal_plays()[0].steps)
    assert game.can_double(1)
    assert game.double(1).take(0).cube == Cube(2, 0)


def test_no_crawford_game_in_a_match_without_the_cube() -> None:
    """000: «куб удвоения убирается из игры в следующей партии»: the Crawford rule takes the cube away, so a match
    played without it (tavli: «No doubling cube is used», docs/rules.md §11) has no Crawford game to mark."""
    match = Match.new("tavli", length=3)
    assert not match.options.cube
    match = play(match, 0, kind="double")  # 2-0: one point away, yet nothing to take away
    assert match.score == (2, 0)
    assert not match.game.context.crawford and not match.crawford_played


def test_crawford_only_once() -> None:
    """000: «Это применяется только для одной партии» — the other player reaching N−1 later
    does not bring a second Crawford game."""
    match = Match.new("backgammon", length=3, options=CUBE)
    match = play(match, 0, kind="double")  # 2-0
    assert match.game.context.crawford
    match = play(match, 1)  # 2-1
    assert not match.game.context.crawford
    match = play(match, 1)  # 2-2: player 1 now one away too
    assert match.score == (2, 2)
    assert not match.game.context.crawford
    assert match.crawford_played


def test_crawford_when_the_trailer_reaches_n_minus_one_first() -> None:
    """003: «If a player reaches a score which is only 1 point away from winning the match, the next
    game is played as a Crawford round.» — whichever player gets there first."""
    match = Match.new("dave", length=7)
    match = play(match, 0, kind="double")  # 2-0
    match = play(match, 1, kind="double", cube=Cube(2, 0))  # 2-4 (a mars on a cube of 2)
    assert match.score == (2, 4)
    assert not match.game.context.crawford
    match = play(match, 1, kind="double")  # 2-6
    assert match.game.context.crawford
    with pytest.raises(CubeError, match="Crawford"):
        replace(match.game, phase=Phase.ROLLING, turn=0, turns_played=3).double(0)


def test_post_crawford_dave_leader_may_not_double() -> None:
    """003: «If a player is 1 point away from winning the match, he won't be given an option to offer
    a double»; «If this round is finished and the match is not completed, the doubling cube can be
    used in all following games of the match.»"""
    match = Match.new("dave", length=3)
    match = play(match, 0, kind="double")  # 2-0: Crawford next
    match = play(match, 1)  # 2-1: post-Crawford
    game = replace(match.game, phase=Phase.ROLLING, turn=0, turns_played=3)
    with pytest.raises(CubeError, match="one point"):
        game.double(0)
    game = replace(match.game, phase=Phase.ROLLING, turn=1, turns_played=3)
    assert game.can_double(1)


# ----- money play


def test_money_play_never_ends() -> None:
    """000: «Вот опции, о которых игроки могут договориться в начале свободной партии» — money play
    (length 0) is a session of games with no target; there is no Crawford game."""
    match = Match.new("backgammon", length=0, options=GameOptions(cube=True, jacoby=True, automatic_doubles=1))
    for index in range(12):
        match = play(match, index % 2, kind="double", cube=Cube(8, index % 2))
        assert not match.is_over
        assert not match.game.context.crawford
        assert match.game.context.length == 0
        assert match.game.phase is Phase.OPENING
    assert match.score == (96, 96)
    assert len(match.results) == 12
    assert not match.crawford_played


# ----- allowed lengths


@pytest.mark.parametrize(
    ("variant", "length", "allowed"),
    [
        *[("georgian", n, n in (1, 3, 5, 7)) for n in range(0, 10)],
        *[("dave", n, n % 2 == 1 and 3 <= n <= 21) for n in range(0, 24)],
        *[("backgammon", n, n == 0 or (n % 2 == 1 and n <= 21)) for n in range(0, 24)],
    ],
)
def test_allowed_match_lengths(variant: str, length: int, allowed: bool) -> None:
    """002: «Матч идёт до 1, 3, 5 или 7 очков». 003: «The match can be defined as a 3, 5, 7, 9, 11,
    13, 15, 17, 19 or 21 points match.» 000: «Матч в нардах всегда играется до нечётного числа
    очков» (docs/rules.md §3: 1..21, or money play)."""
    options = CUBE if variant != "georgian" else None
    if allowed:
        match = Match.new(variant, length=length, options=options)
        assert match.length == length and match.game.context.length == length
    else:
        with pytest.raises(IllegalActionError):
            Match.new(variant, length=length, options=options)


def test_negative_length_is_refused() -> None:
    """A match length is a number of points, 0 (money play) or more."""
    with pytest.raises(IllegalActionError):
        Match.new("backgammon", length=-1)


def test_no_cube_option_in_georgian_or_long_matches() -> None:
    """002: «Кубик удвоения … здесь не используется»; long nardy has no cube (001, 004)."""
    for variant in ("georgian", *LONG):
        with pytest.raises(IllegalActionError, match="cube"):
            Match.new(variant, length=3, options=CUBE)


def test_jacoby_and_automatic_doubles_rejected_in_matches() -> None:
    """000: «В матчах … автоматическое удвоение и правило Якоби обычно не применяются.»"""
    for options in (GameOptions(cube=True, jacoby=True), GameOptions(cube=True, automatic_doubles=1)):
        with pytest.raises(IllegalActionError, match="money play"):
            Match.new("backgammon", length=7, options=options)
        Match.new("backgammon", length=0, options=options)


# ----- who starts the next game


@pytest.mark.parametrize("variant", LONG)
@pytest.mark.parametrize("winner", [0, 1])
def test_long_nardy_previous_winner_starts(variant: str, winner: int) -> None:
    """004: «В матче из нескольких партий следующую партию начинает победитель предыдущей.»
    The winner rolls both dice at once (no opening roll) and plays white."""
    match = Match.new(variant, length=5)
    assert match.game.phase is Phase.OPENING
    first = match.game.opening_roll((6, 2) if winner == 1 else (2, 6))  # the other player opens
    assert first.turn == 1 - winner
    match = match.update(first)
    match = play(match, winner)
    game = match.game
    assert game.phase is Phase.ROLLING
    assert game.turn == winner
    assert game.white == winner
    assert game.history == ()
    assert game.position == Position.start(variant)
    assert game.context.score == match.score
    rolled = game.roll(winner, (6, 5))
    assert rolled.phase is Phase.MOVING
    # and again: the winner of the second game starts the third
    match = play(match, 1 - winner)
    assert (match.game.turn, match.game.white, match.game.phase) == (1 - winner, 1 - winner, Phase.ROLLING)


@pytest.mark.parametrize("variant", ["backgammon", "georgian", "dave"])
def test_short_variants_start_each_game_with_an_opening_roll(variant: str) -> None:
    """002: «В матче на несколько очков каждая новая партия снова начинается с броска одного кубика.»
    (docs/rules.md §1: backgammon and Georgian likewise; dave is backgammon.)"""
    options = CUBE if variant == "backgammon" else None
    match = Match.new(variant, length=7, options=options)
    for winner in (1, 0, 1):
        match = play(match, winner)
        assert match.game.phase is Phase.OPENING
        assert match.game.history == ()
        assert match.game.cube == Cube()
        started = match.game.opening_roll((2, 5))
        assert started.turn == 1 and started.dice == (5, 2)


def test_each_game_starts_with_a_fresh_cube() -> None:
    """000: «В начале партии куб удвоения помещается между игроками значением 64 вверх.»"""
    match = Match.new("backgammon", length=15, options=CUBE)
    match = play(match, 0, cube=Cube(4, 1))
    assert match.score == (4, 0)
    assert match.game.cube == Cube(1, None)


# ----- timeouts


def test_three_timeouts_lose_the_match() -> None:
    """004: «после 3 превышений в одном матче матч проигран.»"""
    assert MAX_TIMEOUTS == 3
    match = Match.new("long-traditional", length=5)
    match = match.timeout(0)
    match = match.timeout(0)
    assert not match.is_over and match.timeouts == (2, 0)
    match = match.timeout(0)
    assert match.is_over
    assert match.winner == 1
    assert match.ended_by == "timeouts"


def test_timeouts_count_across_the_games_of_a_match() -> None:
    """004: «после 3 превышений в одном матче» — in the match, not in one game."""
    match = Match.new("georgian", length=7)
    match = match.timeout(1)
    match = play(match, 0)
    match = match.timeout(1)
    match = play(match, 1)
    assert not match.is_over
    match = match.timeout(1)
    assert (match.winner, match.ended_by) == (0, "timeouts")
    assert match.score == (1, 1)


def test_two_timeouts_each_do_not_lose() -> None:
    """004: three timeouts lose; two (by each player) do not."""
    match = Match.new("backgammon", length=5, options=CUBE)
    for player in (0, 1, 1, 0):
        match = match.timeout(player)
    assert match.timeouts == (2, 2)
    assert not match.is_over and match.winner is None and match.ended_by is None
    with pytest.raises(IllegalActionError):
        match.timeout(2)
