"""The interface every computer opponent implements, the levels a table can pick, and which engine plays them.

The engine of each variant is :data:`nardy.bots.engines.ENGINES`'s: bgsage
(:mod:`nardy.bots.sage`) on the short board where its networks fit the
rules, our own networks (:mod:`nardy.bots.neural`) in long nardy and fevga,
with the bear-off races answered exactly by the one-sided database
(:mod:`nardy.bots.race`), in plakoto, whose pins bgsage cannot see, and in
hypergammon, whose three checkers it reads as fifteen (a network of its own each;
hypergammon's cube decisions stay bgsage's, :class:`CubeByBot`). A hand-written heuristic (:mod:`nardy.bots.heuristic`)
can be a variant's engine where none of these is measured stronger. Each
engine has its own levels (:func:`levels_for`); ``world-class`` exists with bgsage only.
A match whose games rotate through several rule sets (tavli) is played by the bot of each
game's own rule set (:class:`RotationBot`), at the levels they share.
"""

from __future__ import annotations

from typing import Final, Protocol

from nardy.bots.engines import engine_for
from nardy.bots.heuristic import heuristic_bot
from nardy.bots.neural import NeuralBot, levels_of
from nardy.bots.race import network_evaluator
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


HEURISTIC_LEVELS: Final[dict[str, float]] = {"beginner": 1.5, "intermediate": 0.0}
"""The heuristic engine's levels: the noise on its scores (about ten pips of race to the score point)."""


def levels_for(variant: str) -> tuple[str, ...]:
    """The levels of ``variant``, weakest first: ``random`` and its engine's own (one per distinct setting);
    for a rotation of games (tavli), the levels every one of its games offers."""
    games = find_variant(variant).game_variants
    return tuple(level for level in BOT_LEVELS if all(level in _engine_levels(game.name) for game in games))


def _engine_levels(variant: str) -> tuple[str, ...]:
    kind = engine_for(variant).kind
    if kind == "bgsage":
        return BOT_LEVELS
    own = levels_of(find_variant(variant)) if kind == "network" else HEURISTIC_LEVELS
    return tuple(level for level in BOT_LEVELS if level in own or level == "random")


def level_offered(level: str, *, variant: str) -> str:
    """The level a table that chose ``level`` in ``variant`` plays at now: ``level`` while the variant offers it,
    else the strongest level it offers below it.

    A table outlives a change of its variant's engine: hypergammon's tables chose among bgsage's levels, up to
    ``world-class``, before its own network, which has no such level, took over; they play on at ``expert``.
    ValueError for a level no variant has."""
    if level not in BOT_LEVELS:
        raise ValueError(f"unknown bot level {level!r}; the levels are {', '.join(BOT_LEVELS)}")
    offered = levels_for(variant)
    return max((known for known in offered if BOT_LEVELS.index(known) <= BOT_LEVELS.index(level)),
               key=BOT_LEVELS.index)


def make_bot(level: str, *, variant: str, seed: int | None = None) -> Bot:
    """The bot of ``level`` for ``variant``, its engine loaded now; ValueError naming the known levels otherwise."""
    known = levels_for(variant)
    if level not in known:
        raise ValueError(f"unknown bot level {level!r} for {variant}; known levels: {', '.join(known)}")
    if level == "random":
        return RandomBot(seed=seed)
    rules = find_variant(variant)
    if rules.games:
        bots = {game.name: make_bot(level, variant=game.name, seed=seed) for game in rules.game_variants}
        return RotationBot({**bots, rules.name: bots[rules.game_variant(0).name]})
    kind = engine_for(variant).kind
    if kind == "bgsage":
        check_available()
        return SageBot(SAGE_LEVELS[level], seed=seed, name=level)
    if kind == "heuristic":
        return heuristic_bot(variant, noise=HEURISTIC_LEVELS[level], seed=seed, name=level)
    chosen = levels_of(rules)[level]
    bot = NeuralBot(
        network_evaluator(variant),
        plies=chosen.plies,
        noise=chosen.noise,
        time_budget=chosen.time_budget,
        seed=seed,
        name=level,
    )
    if engine_for(variant).cube == "bgsage":
        check_available()
        return CubeByBot(bot, SageBot(SAGE_LEVELS[level], seed=seed, name=level))
    return bot


class CubeByBot:
    """A bot whose checker plays are ``checkers``' (a cubeless network) and whose cube decisions are ``cube``'s
    (bgsage at the same level): a network variant with the cube (hypergammon)."""

    def __init__(self, checkers: Bot, cube: Bot) -> None:
        self.checkers = checkers
        self.cube = cube
        self.name = checkers.name

    def choose_play(self, position: Position, dice: tuple[int, int], game: Game | None = None) -> Play | None:
        return self.checkers.choose_play(position, dice, game)

    def wants_to_double(self, game: Game, player: int) -> bool:
        return self.cube.wants_to_double(game, player)

    def accepts_double(self, game: Game, player: int) -> bool:
        return self.cube.accepts_double(game, player)


class RotationBot:
    """The bot of a match whose games rotate through rule sets (tavli): each decision goes to the bot made
    for the rule set of the game or position it is about (a position of the match's own variant is its first
    game's, as :meth:`~nardy.rules.Game.new` makes it)."""

    def __init__(self, bots: dict[str, Bot]) -> None:
        self.bots = bots
        self.name = next(iter(bots.values())).name

    def choose_play(self, position: Position, dice: tuple[int, int], game: Game | None = None) -> Play | None:
        return self.bots[position.variant.name].choose_play(position, dice, game)

    def wants_to_double(self, game: Game, player: int) -> bool:
        return self.bots[game.variant.name].wants_to_double(game, player)

    def accepts_double(self, game: Game, player: int) -> bool:
        return self.bots[game.variant.name].accepts_double(game, player)
