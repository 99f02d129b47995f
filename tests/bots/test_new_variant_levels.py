"""Every computer level offered for tavla, portes, hypergammon and nackgammon plays legal moves to a game's end.

The short-board levels rate plays with bgsage, an engine of backgammon's rules and
15 checkers, while :mod:`nardy.rules` decides what is legal (nardy.bots.sage);
hypergammon's with its own network, the cube with bgsage (nardy.bots.engines):
these games check only that each level's choice is one of the rules' legal plays,
and that its cube decisions are ones the game accepts, with no error, in one game
per level per variant (a 5-point match's first game, with the cube where the
variant allows it). To stay quick, the level plays its first ``LEVEL_TURNS``
turns against the beginner, who then plays both sides to the end.
"""

from __future__ import annotations

import random

import pytest

from nardy.bots import levels_for, make_bot
from nardy.rules import Game, GameOptions, MatchContext, Phase, find_variant

NEW_VARIANTS = ("tavla", "portes", "hypergammon", "nackgammon")
MAX_TURNS = 400
LEVEL_TURNS = 3


def play_one_game(variant: str, level: str, seed: int) -> Game:
    """One game of ``level`` against itself, the dice from ``seed``; every play checked against the rules' list."""
    rules = find_variant(variant)
    tested = make_bot(level, variant=variant, seed=seed)
    beginner = make_bot("beginner", variant=variant, seed=seed)
    dice = random.Random(seed)
    game = Game.new(variant, options=GameOptions(cube=rules.cube_allowed), context=MatchContext(length=5))
    game = game.opening_roll((1, 2))
    moves = 0
    for _ in range(MAX_TURNS):
        if game.phase is Phase.FINISHED:
            return game
        bot = tested if moves < 2 * LEVEL_TURNS and game.turn == 0 else beginner
        if game.phase is Phase.ROLLING:
            player = game.turn
            if game.can_double(player) and bot.wants_to_double(game, player):
                game = game.double(player)
            else:
                game = game.roll(player, (dice.randint(1, 6), dice.randint(1, 6)))
        elif game.phase is Phase.DOUBLED:
            taker = 1 - game.turn
            game = game.take(taker) if bot.accepts_double(game, taker) else game.drop(taker)
        else:
            assert game.phase is Phase.MOVING and game.dice is not None
            position = game.board_for(game.turn)
            chosen = bot.choose_play(position, game.dice, game)
            legal = {play.position for play in position.legal_plays(game.dice)}
            assert chosen is not None and chosen.position in legal, (variant, level, position, game.dice)
            game = game.move(game.turn, chosen.steps)
            moves += 1
    raise AssertionError(f"{variant} at {level} did not finish in {MAX_TURNS} actions")


@pytest.mark.slow
@pytest.mark.parametrize("variant", NEW_VARIANTS)
def test_every_level_plays_a_legal_game(variant: str) -> None:
    levels = levels_for(variant)
    assert levels[0] == "random" and ("world-class" in levels) == (variant != "hypergammon")
    for index, level in enumerate(levels):
        game = play_one_game(variant, level, seed=index)
        assert game.phase is Phase.FINISHED
        assert game.result is not None and game.result.kind in find_variant(variant).win_kinds
