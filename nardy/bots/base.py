"""The interface every computer opponent implements, and the levels a table can pick."""

from __future__ import annotations

from typing import Protocol

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


BOT_LEVELS = ("random",)
"""The levels a table may choose; stronger levels are added as they are trained."""


def make_bot(level: str, *, seed: int | None = None) -> Bot:
    """The bot of ``level``; ValueError naming the known levels otherwise."""
    if level == "random":
        return RandomBot(seed=seed)
    raise ValueError(f"unknown bot level {level!r}; known levels: {', '.join(BOT_LEVELS)}")
