"""The interface every computer opponent implements, the levels a table can pick, and which engine plays them.

The short board (backgammon, dave, Georgian nardy) is played by bgsage
(:mod:`nardy.bots.sage`); long nardy by our own networks
(:mod:`nardy.bots.neural`), which are the only long-nardy networks there
are, with the bear-off races answered exactly by the one-sided database
(:mod:`nardy.bots.race`). ``world-class`` exists on the short board only.
"""

from __future__ import annotations

from typing import Final, Protocol

from nardy.bots.neural import LEVELS, NeuralBot
from nardy.bots.race import long_evaluator
from nardy.bots.random_bot import RandomBot
from nardy.bots.sage import SAGE_LEVELS, SageBot, check_available
from nardy.rules import Game, Play, Position, find_variant


class Bot(Protocol):
    """A computer player: it chooses plays and answers cube questions, asking ``nardy.rules`` for legality."""

    name: str

    def choose_play(self, position: Position, dice: tuple[int, int], game: Game | None = None) -> Play | None:
        """One of ``position.legal_plays(dice)``, or ``None`` when there is none.

        ``game``, when given, is the game the play is made in (the cube and the
        score, for bots that rate plays by them); ``position`` is its mover's.
        """

    def wants_to_double(self, game: Game, player: int) -> bool:
        """Whether to offer a double now (only asked when the rules allow one)."""

    def accepts_double(self, game: Game, player: int) -> bool:
        """Whether to take the double just offered to ``player``."""


BOT_LEVELS: Final = ("random", "beginner", "intermediate", "advanced", "expert", "world-class")
"""Every level a table may choose, weakest first; :func:`levels_for` says which a variant offers."""


def levels_for(variant: str) -> tuple[str, ...]:
    """The levels of ``variant``: all of :data:`BOT_LEVELS` on the short board, all but world-class in long nardy."""
    if find_variant(variant).board == "short":
        return BOT_LEVELS
    return tuple(level for level in BOT_LEVELS if level in LEVELS or level == "random")


def make_bot(level: str, *, variant: str, seed: int | None = None) -> Bot:
    """The bot of ``level`` for ``variant``, its engine loaded now; ValueError naming the known levels otherwise."""
    known = levels_for(variant)
    if level not in known:
        raise ValueError(f"unknown bot level {level!r} for {variant}; known levels: {', '.join(known)}")
    if level == "random":
        return RandomBot(seed=seed)
    if find_variant(variant).board == "short":
        check_available()
        return SageBot(SAGE_LEVELS[level], seed=seed, name=level)
    chosen = LEVELS[level]
    return NeuralBot(
        long_evaluator(variant),
        plies=chosen.plies,
        noise=chosen.noise,
        time_budget=chosen.time_budget,
        seed=seed,
        name=level,
    )
