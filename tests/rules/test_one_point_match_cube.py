"""No double in a 1-point match (seed 003, docs/rules.md).

003: «If a player is 1 point away from winning the match, he won't be given
an option to offer a double because the reject would always won the match
for him.» In a 1-point match both players are one point from winning, so
neither is offered a double there, even at a table that plays with the
cube. Backgammon is played to 1 point; dave is not (its matches are 3 to 21
points), so the rule holds there by its match lengths.
"""

from __future__ import annotations

import pytest

from nardy.rules import CubeError, Game, GameOptions, IllegalActionError, Match, MatchContext, Phase

CUBE = GameOptions(cube=True)


def second_turn(match: Match) -> Game:
    """The match's game after a 3-1 opening played by player 0: player 1 is to roll, or to double."""
    game = match.game.opening_roll((3, 1))
    game = game.move(0, game.legal_plays()[0].steps)
    assert game.phase is Phase.ROLLING and game.turn == 1
    return game


def test_neither_player_may_double_in_a_one_point_backgammon_match() -> None:
    game = second_turn(Match.new("backgammon", length=1, options=CUBE))
    reason = game.double_refusal(1)
    assert reason is not None and "1-point match" in reason
    assert not game.can_double(1)
    with pytest.raises(CubeError, match="1-point match"):
        game.double(1)
    played = game.roll(1, (6, 5))
    played = played.move(1, played.legal_plays()[0].steps)
    assert played.turn == 0 and played.phase is Phase.ROLLING
    assert "1-point match" in (played.double_refusal(0) or "")


@pytest.mark.parametrize(("variant", "length"), [("backgammon", 0), ("backgammon", 3), ("dave", 3)])
def test_a_longer_match_and_money_play_keep_the_cube(variant: str, length: int) -> None:
    assert second_turn(Match.new(variant, length=length, options=CUBE)).can_double(1)


def test_backgammon_keeps_the_cube_at_one_away_in_a_longer_match() -> None:
    """Only the 1-point match loses the cube in backgammon: post-Crawford at 4-4 of 5 a double stands."""
    context = MatchContext(length=5, score=(4, 4), crawford=False)
    game = Game.new("backgammon", options=CUBE, context=context).opening_roll((3, 1))
    game = game.move(0, game.legal_plays()[0].steps)
    assert game.can_double(1)


def test_dave_is_not_played_to_one_point() -> None:
    with pytest.raises(IllegalActionError, match="dave matches are played to 3"):
        Match.new("dave", length=1, options=CUBE)
