"""Reachable positions for the bot tests: random games from the start, reproducible from a seed."""

from __future__ import annotations

import random

from nardy.bots.evaluator import play_ending
from nardy.rules import DICE_ROLLS, Position


def random_position(variant: str, seed: int, turns: int) -> tuple[Position, tuple[int, int]]:
    """The position after up to ``turns`` random plays from the start, and a roll to play there.

    Stops early at a position where the next roll would end the game (a bear-off, or plakoto's mother
    rule), so the result is always a game in progress.
    """
    rng = random.Random(seed)
    position = Position.start(variant)
    for _ in range(turns):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = position.legal_plays(dice)
        play = rng.choice(plays) if plays else None
        after = play.position if play is not None else position
        if play is not None and play_ending(after) is not None:
            break
        position = after.turned()
    return position, DICE_ROLLS[rng.randrange(len(DICE_ROLLS))]


def game_positions(variant: str, seed: int, count: int) -> list[Position]:
    """``count`` positions (side to move) met in random games, each played until the rules end it."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position = Position.start(variant)
        while len(found) < count:
            found.append(position)
            plays = position.legal_plays((rng.randint(1, 6), rng.randint(1, 6)))
            if not plays:
                position = position.turned()
                continue
            after = rng.choice(plays).position
            if play_ending(after) is not None:
                break
            position = after.turned()
    return found
