"""Hints: the best plays of a roll with their equities, and the cube decision, for any variant an engine rates.

What the hint button of a game against the computer and the analysis board
show, rated by the variant's engine (:mod:`nardy.bots.engines`): bgsage
(:func:`nardy.bots.sage.rank_plays`, cubeful for the game's cube and
score) or our network and search (:func:`nardy.bots.search.choose`); a
variant played by a heuristic has no equities, so no hints (:func:`gives_hints`). The levels are the
analysis's: ``advanced``, ``expert`` and ``world-class`` look 1, 2 and 3 plies ahead with bgsage, 0, 1
and 2 with our networks (long nardy, fevga, plakoto, hypergammon). Equities are the mover's, for a
cube of 1; our networks' are cubeless, and the cube decision is bgsage's wherever there is a cube.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

import numpy as np

from nardy.bots.engines import engine_for
from nardy.bots.evaluator import after_play_probabilities, equity
from nardy.bots.race import network_evaluator
from nardy.bots.sage import CUBELESS, CubeAdvice, CubeContext, board_of, engine, rank_plays
from nardy.bots.search import choose
from nardy.rules import Play, Position, find_variant

SHORT_PLIES: Final[dict[str, int]] = {"advanced": 1, "expert": 2, "world-class": 3}
LONG_PLIES: Final[dict[str, int]] = {"advanced": 0, "expert": 1, "world-class": 2}


@dataclass(frozen=True, slots=True)
class Hint:
    """One legal play and its equity for the mover; ``deep``: rated at the level's full depth.

    ``plies``: how many plies ahead its equity looked (0: the position it leaves, rated as it stands),
    which says how far two equities compare.
    """

    play: Play
    equity: float
    deep: bool
    plies: int


Unavailable = Literal["no_equities"]
"""Why a variant has no hints and no analysis board: ``no_equities``, its computer player (or that of one of
its games) is a hand-written score that rates no equities (no variant's at present: plakoto's was, before
its network)."""


@dataclass(frozen=True, slots=True)
class AnalysisOffer:
    """What hints and the analysis board offer in a variant: its levels, weakest first, or none and why."""

    levels: tuple[str, ...]
    unavailable: Unavailable | None = None

    @property
    def default_level(self) -> str | None:
        """The level a request naming none gets: ``expert`` where offered, else the deepest offered."""
        if "expert" in self.levels:
            return "expert"
        return self.levels[-1] if self.levels else None


def analysis_offer(variant: str) -> AnalysisOffer:
    """The hints and analysis board levels of ``variant`` (a registered name), decided by its engine: none where
    the engine rates no equities (a hand-written score; in a match of games, that of any of its games), else
    every analysis level, each at its engine's depth (:data:`SHORT_PLIES` for bgsage, :data:`LONG_PLIES` for
    our networks).

    >>> analysis_offer("fevga").levels, analysis_offer("plakoto").unavailable
    (('advanced', 'expert', 'world-class'), None)
    """
    games = find_variant(variant).game_variants
    if any(engine_for(game.name).kind == "heuristic" for game in games):
        return AnalysisOffer((), "no_equities")
    return AnalysisOffer(tuple(SHORT_PLIES))


def gives_hints(variant: str) -> bool:
    """Whether hints and the analysis board rate the plays of ``variant`` (:func:`analysis_offer`)."""
    return analysis_offer(variant).unavailable is None


def top_plays(
    position: Position, dice: tuple[int, int], *, context: CubeContext = CUBELESS, level: str = "expert",
    count: int = 5,
) -> list[Hint]:
    """The ``count`` best legal plays of ``dice``, best first (the plays searched deepest rank first).

    ``context`` is what the cube and the score mean to the mover
    (:meth:`CubeContext.of` a game): it makes the short board's ratings cubeful.
    """
    if level not in SHORT_PLIES:
        raise ValueError(f"hint levels are {', '.join(SHORT_PLIES)}, not {level!r}")
    if not gives_hints(position.variant.name):
        raise ValueError(f"no hints in {position.variant.name}: its computer player rates no equities")
    kind = engine_for(position.variant.name).kind
    if kind == "bgsage":
        ranked = rank_plays(position, dice, context, plies=SHORT_PLIES[level])
        deepest = ranked[0].plies if ranked else 0
        return [Hint(r.play, r.equity, r.plies == deepest, r.plies) for r in ranked[:count]]
    plays = position.legal_plays(dice)
    if not plays:
        return []
    evaluator = network_evaluator(position.variant.name)
    shallow = equity(after_play_probabilities(evaluator, [p.position for p in plays]))
    searched = choose(evaluator, [p.position for p in plays], plies=LONG_PLIES[level]).equities
    deep = np.isfinite(searched)
    values = np.where(deep, searched, shallow)
    order = sorted(range(len(plays)), key=lambda i: (not deep[i], -values[i]))
    depth = LONG_PLIES[level]
    return [Hint(plays[i], float(values[i]), bool(deep[i]), depth if deep[i] else 0) for i in order[:count]]


def cube_hint(position: Position, context: CubeContext, *, level: str = "expert") -> CubeAdvice:
    """bgsage's cube decision for the side to move of ``position``, about to roll, in ``context`` (a live cube).

    Ask only where the rules allow a double (``Game.can_double``).
    """
    if position.variant.board != "short":
        raise ValueError(f"{position.variant.name} is played without the doubling cube")
    return engine().cube(board_of(position), context, plies=SHORT_PLIES[level])
