"""The beginner bot: a uniformly random legal play, never doubles, always takes."""

from __future__ import annotations

import random

from nardy.rules import Game, Play, Position


class RandomBot:
    """Plays a uniformly random legal play; the baseline every trained bot must beat."""

    name = "random"

    def __init__(self, *, seed: int | None = None) -> None:
        self._random = random.Random(seed)

    def choose_play(self, position: Position, dice: tuple[int, int], game: Game | None = None) -> Play | None:
        plays = position.legal_plays(dice)
        return self._random.choice(plays) if plays else None

    def wants_to_double(self, game: Game, player: int) -> bool:
        return False

    def accepts_double(self, game: Game, player: int) -> bool:
        return True
