"""The heuristic bots: legal plays always, shot counting by hand, and a clear win over random play."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from nardy.bots import RandomBot
from nardy.bots.heuristic import GeorgianHeuristicBot, LongHeuristicBot, heuristic_bot, shots
from nardy.rules import VARIANTS, GameOptions, Play, Position, find_variant

SHORT = ("georgian", "backgammon", "dave")
LONG = ("long-traditional", "long-tournament", "long-bolshie")


def random_game_positions(variant: str, count: int, seed: int) -> Iterator[tuple[Position, tuple[int, int]]]:
    """(position, roll) pairs met in random games of ``variant``."""
    rng = random.Random(seed)
    position = Position.start(variant)
    for _ in range(count):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        yield position, dice
        plays = position.legal_plays(dice)
        if plays:
            position = rng.choice(plays).position
        position = position.turned()
        if position.is_game_over():
            position = Position.start(variant)


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_always_a_legal_play(variant: str) -> None:
    bot = heuristic_bot(variant)
    for position, dice in random_game_positions(variant, 250, seed=len(variant)):
        plays = position.legal_plays(dice)
        chosen = bot.choose_play(position, dice)
        if plays:
            assert chosen in plays
        else:
            assert chosen is None


def test_bots_refuse_the_other_board() -> None:
    with pytest.raises(ValueError):
        GeorgianHeuristicBot().choose_play(Position.start("long-traditional"), (3, 1))
    with pytest.raises(ValueError):
        LongHeuristicBot().choose_play(Position.start("georgian"), (3, 1))


def test_shot_counts_by_hand() -> None:
    points = [0] * 24
    points[9] = 1  # our blot on 10
    points[8] = -2  # shooters 1 pip away: any roll with a 1
    points[23] = -13
    points[0] = 14
    assert shots(tuple(points), 0, 10) == 11
    points[8], points[3] = 0, -2  # 6 pips away: 11 rolls with a 6, plus 5-1, 4-2 both ways, 3-3, 2-2
    assert shots(tuple(points), 0, 10) == 17
    points[3], points[8], points[7] = 0, -1, -1  # shooters 1 and 2 away: rolls with a 1 or a 2
    assert shots(tuple(points), 0, 10) == 36 - 16
    # A checker on the bar shoots from point 0: a blot on 3 is 3 pips away from it
    # (11 rolls with a 3, 2-1 both ways, 1-1); without it nothing can reach point 3.
    points[8], points[7] = 0, 0
    points[9], points[2] = 0, 1
    points[23] = -14
    assert Position("georgian", points, (0, 1))  # a valid position
    assert shots(tuple(points), 1, 3) == 14
    assert shots(tuple(points), 0, 3) == 0


def test_makes_the_five_point_with_the_opening_three_one() -> None:
    # Opening 3-1 in Georgian: the heuristic makes its 5-point (8/5 6/5), as everybody does.
    start = Position.start("georgian")
    play = GeorgianHeuristicBot().choose_play(start, (3, 1))
    assert play is not None and play.position.points[4] == 2


def play_game(bots: tuple[object, object], variant: str, seed: int) -> tuple[int, int]:
    """One cubeless game, dice from ``seed``: (winner, points). Player 0 is bots[0]."""
    rng = random.Random(seed)
    rules = find_variant(variant)
    first, second = rng.randint(1, 6), rng.randint(1, 6)
    while first == second:
        first, second = rng.randint(1, 6), rng.randint(1, 6)
    turn = 0 if first > second else 1
    if rules.previous_winner_starts:  # long nardy: the winner of the opening roll rolls both dice
        dice = (rng.randint(1, 6), rng.randint(1, 6))
    else:
        dice = (max(first, second), min(first, second))
    position = Position.start(rules)
    for _ in range(5000):
        play: Play | None = bots[turn].choose_play(position, dice)  # type: ignore[attr-defined]
        if play is not None:
            position = play.position
            if position.winner_is_mover():
                return turn, rules.win_points(position.win_kind(), GameOptions())
        position, turn = position.turned(), 1 - turn
        dice = (rng.randint(1, 6), rng.randint(1, 6))
    raise AssertionError("the game did not end")


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "bot"), [("georgian", GeorgianHeuristicBot()), ("long-traditional", LongHeuristicBot())])
def test_beats_random_play(variant: str, bot: object) -> None:
    opponent = RandomBot(seed=3)
    wins = 0
    for game in range(100):
        side = game % 2
        bots = (bot, opponent) if side == 0 else (opponent, bot)
        winner, _ = play_game(bots, variant, seed=game // 2)
        wins += winner == side
    assert wins >= 70
