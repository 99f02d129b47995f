"""The interface every computer opponent implements, and the levels a table can pick."""

from __future__ import annotations

from typing import Protocol

from nardy.bots.neural import LEVELS, NeuralBot, ShippedEvaluator, default_evaluator
from nardy.bots.random_bot import RandomBot
from nardy.rules import Game, Play, Position


class Bot(Protocol):
    """A computer player: it chooses plays and answers cube questions, asking ``nardy.rules`` for legality."""

    name: str

    def choose_play(self, position: Position, dice: tuple[int, int]) -> Play | None:
        """One of ``position.legal_plays(dice)``, or ``None`` when there is none."""

    def wants_to_double(self, game: Game, player: int) -> bool:
        """Whether to offer a double now (only asked when the rules allow one)."""

    def accepts_double(self, game: Game, player: int) -> bool:
        """Whether to take the double just offered to ``player``."""


BOT_LEVELS = ("random", "beginner", "intermediate", "advanced", "expert")
"""The levels a table may choose, weakest first: random, then the trained levels of
:data:`nardy.bots.neural.LEVELS` (Gaussian noise on the ratings, then deeper search)."""


def make_bot(level: str, *, variant: str | None = None, seed: int | None = None) -> Bot:
    """The bot of ``level``; ValueError naming the known levels otherwise.

    The trained levels play with the shipped weights of ``variant``, checked
    and loaded now; without a variant, with those of each position's variant.
    """
    if level == "random":
        return RandomBot(seed=seed)
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}; known levels: {', '.join(BOT_LEVELS)}")
    chosen = LEVELS[level]
    return NeuralBot(
        default_evaluator(variant) if variant is not None else ShippedEvaluator(),
        plies=chosen.plies,
        noise=chosen.noise,
        time_budget=chosen.time_budget,
        seed=seed,
        name=level,
    )
