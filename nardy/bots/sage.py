"""bgsage (Open Sage, MPL-2.0) as the engine of the short board: backgammon, dave and Georgian nardy.

bgsage's networks, bear-off database and n-ply search are far stronger than
the networks we trained ourselves on the short board (docs/strength.md), so
the short-board bots use them. What bgsage never does here is decide what
is legal: the candidate plays always come from :mod:`nardy.rules`
(``Position.legal_plays``), which keeps Georgian's "hit in your home — stay
there" rule and every other rule of ours, and bgsage only *rates* the
positions they leave; the cube is only asked about when ``nardy.rules``
allows a double.

Boards. bgsage reads a position from the mover's side as 26 numbers:
``[0]`` the opponent's checkers on the bar, ``[1..24]`` the points (the
mover's home is 1..6, its checkers positive, the opponent's negative),
``[25]`` the mover's checkers on the bar; borne-off checkers are what is
missing from 15. That is exactly our short topology, so :func:`board_of`
and :func:`position_of` only move the bars.

Equity. In a game with the cube, plays and cube actions are rated by
bgsage's cubeful equity (Janowski's model on its probabilities), for money
(with the Jacoby rule and beavers as the game's options say) or for the
match score (away scores, Crawford). Without the cube (Georgian nardy,
tavla, portes, and backgammon or dave played cubeless) plays are rated by
cubeless equity computed here from bgsage's five probabilities with the
variant's own values (:func:`cubeless_equity`, :meth:`CubeContext.cubeless`):
Georgian's oin/mars/koks count 1, 2, 3, but tavla's and portes's triple
counts 2 (a backgammon is only a gammon there), and a backgammon agreed at
2 counts 2. bgsage's n-ply search returns the probabilities too, so every
depth is scored so. Beyond the first ply bgsage searches with backgammon's
rules, the nearest it knows; our rules decide every play actually made.

Search. A play is rated at 1-ply by the network on the position it
leaves, told the position before it (bgsage chooses its networks by the
two); deeper by bgsage's n-ply search (in its cube-aware tree when the cube
is live). The bots filter gnubg-style (:func:`rank_plays`): all candidates
at 1-ply, then each deeper ply rates the best of the ply before it, as
:data:`DEEPER_STAGES` says, unless the time budget is spent. The post-game
analysis rates with the same engine the way bgsage's own analyser does
(:mod:`nardy.bots.judge_sage`).

A missing bgsage is reported by :func:`check_available`, which the server
calls at start-up; nothing here imports it before it is needed.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

import numpy as np

from nardy.rules import MAX_CUBE, NUM_POINTS, Game, GameOptions, Phase, Play, Position, Variant, find_variant

FIRST_WINDOW: Final = 0.08
FIRST_KEEP: Final = 5


@dataclass(frozen=True, slots=True)
class Stage:
    """One deeper ply of :func:`rank_plays`: which plays it rates and what it costs.

    The plays within ``window`` of the best of the stage before (at most
    ``keep``) are rated at ``plies``. ``cost`` is how many times one play's
    rating at the ply before one play's rating here takes (the median over
    backgammon positions from pubeval's games, on our 2 CPUs; the time budget
    uses it to skip a stage that would overrun).
    """

    plies: int
    window: float
    keep: int
    cost: float


DEEPER_STAGES: Final = (
    Stage(plies=2, window=FIRST_WINDOW, keep=FIRST_KEEP, cost=160.0),
    Stage(plies=3, window=0.04, keep=3, cost=9.0),
    Stage(plies=4, window=0.02, keep=2, cost=20.0),
)
"""The filter from 1-ply to the deepest search, gnubg-style (the 4-ply step is bgsage's own 4-ply filter)."""
MAX_PLIES: Final = DEEPER_STAGES[-1].plies
MAX_CUBE_PLIES: Final = 3
"""The deepest cube analysis: one a turn, and bgsage's 3-ply cube matches its truncated rollouts
(its MODEL_BENCHMARKS.md)."""
DOUBLING_FAR: Final = 0.2
"""How much worse than holding (equity for a cube of 1) bgsage's 1-ply must find doubling for a deeper level
to hold without its own cube analysis. Measured on 11,970 decisions (benchmarks/cube_filter.py,
docs/strength.md): where the 3-ply analysis doubled, the 1-ply one put doubling at worst 0.12 below holding
(short of too good), and 0.2 skips about half of the decisions, each some 80 ms of a deeper level's turn."""
SEARCH_THREADS: Final = min(8, os.cpu_count() or 1)
"""Threads rating plays in bgsage's cube-aware tree at once (it releases the GIL there)."""

Owner = Literal["centered", "player", "opponent"]
Values = tuple[int, int, int]
"""The points of a single, double and triple win (a variant's three ``kinds``)."""


class SageUnavailable(RuntimeError):
    """bgsage cannot be imported or its networks cannot be loaded."""


# ---------------------------------------------------------------- boards


def board_of(position: Position) -> list[int]:
    """bgsage's 26 numbers for a short-board position, seen from its side to move.

    A variant with pins (plakoto) is refused: bgsage has no pins, and a pinned
    checker, missing from its board, would read as borne off.
    """
    if position.variant.board != "short" or position.variant.pinning:
        raise ValueError(f"bgsage plays the short board without pins, not {position.variant.name}")
    return [position.bar[1], *position.points, position.bar[0]]


def position_of(variant: Variant | str, board: Sequence[int]) -> Position:
    """The position of bgsage's 26 numbers (borne-off checkers are those missing from the variant's number)."""
    rules = find_variant(variant) if isinstance(variant, str) else variant
    if len(board) != NUM_POINTS + 2:
        raise ValueError(f"a bgsage board has {NUM_POINTS + 2} numbers, got {len(board)}")
    points = tuple(int(n) for n in board[1:25])
    mover = sum(n for n in points if n > 0) + int(board[25])
    opponent = -sum(n for n in points if n < 0) + int(board[0])
    return Position(rules, points, (int(board[25]), int(board[0])), (rules.checkers - mover, rules.checkers - opponent))


# ---------------------------------------------------------------- what the cube and score mean


@dataclass(frozen=True, slots=True)
class CubeContext:
    """What the cube and the match score mean for the equity of one player about to act.

    ``live`` False rates cubeless equity (no cube in the game) with
    ``values``, the points of a single, double and triple win (``None``:
    bgsage's own 1, 2, 3 until :meth:`scored_for` names the variant's).
    ``away`` is (player, opponent) points to go, ``(0, 0)`` for money play.
    """

    live: bool = False
    value: int = 1
    owner: Owner = "centered"
    away: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    values: Values | None = None

    @classmethod
    def of(cls, game: Game, player: int) -> CubeContext:
        """The context of ``player`` in ``game`` (cubeless, with the game's values, when it has no cube)."""
        if not game.options.cube:
            return cls.cubeless(game.variant, game.options)
        cube = game.cube
        owner: Owner = "centered" if cube.owner is None else ("player" if cube.owner == player else "opponent")
        context = game.context
        money = context.length == 0
        return cls(
            live=True,
            value=cube.value,
            owner=owner,
            away=(0, 0) if money else (context.away(player), context.away(1 - player)),
            crawford=context.crawford,
            jacoby=money and game.options.jacoby,
            beaver=money and game.options.beavers,
        )

    @classmethod
    def cubeless(cls, variant: Variant, options: GameOptions | None = None) -> CubeContext:
        """Cubeless rating with ``variant``'s values under ``options`` (its default options if none)."""
        return cls(values=win_values(variant, options))

    def scored_for(self, variant: Variant) -> CubeContext:
        """This context, with ``variant``'s values (default options) where it is cubeless and names none."""
        if self.live or self.values is not None:
            return self
        return replace(self, values=win_values(variant))


CUBELESS: Final = CubeContext()
BGSAGE_VALUES: Final[Values] = (1, 2, 3)
"""What bgsage's own cubeless equity counts a single, gammon and backgammon."""


def win_values(variant: Variant, options: GameOptions | None = None) -> Values:
    """The points of ``variant``'s single, double and triple wins (``variant.kinds``) before the cube.

    >>> from nardy.rules import find_variant
    >>> win_values(find_variant("tavla")), win_values(find_variant("backgammon"))
    ((1, 2, 2), (1, 2, 3))
    """
    chosen = options if options is not None else variant.default_options()
    single, double, triple = (variant.win_points(kind, chosen) for kind in variant.kinds)
    return single, double, triple


def cubeless_equity(probabilities: Sequence[float], values: Values) -> float:
    """The mover's cubeless equity of bgsage's five probabilities, counting wins and losses by ``values``.

    The probabilities are cumulative, in bgsage's order: win, win gammon
    (backgammons included), win backgammon, lose gammon (backgammons
    included), lose backgammon. A single counts ``values[0]``, a gammon
    ``values[1]``, a backgammon ``values[2]``.

    >>> round(cubeless_equity([0.6, 0.2, 0.05, 0.1, 0.02], (1, 2, 3)), 6)  # 2·0.6 - 1 + 0.1 + 0.03
    0.33
    >>> round(cubeless_equity([0.6, 0.2, 0.05, 0.1, 0.02], (1, 2, 2)), 6)  # a backgammon only a gammon
    0.3
    """
    win, win_double, win_triple, lose_double, lose_triple = (float(p) for p in probabilities)
    single, double, triple = values
    won = single * (win - win_double) + double * (win_double - win_triple) + triple * win_triple
    lost = single * (1.0 - win - lose_double) + double * (lose_double - lose_triple) + triple * lose_triple
    return won - lost


@dataclass(frozen=True, slots=True)
class CubeAdvice:
    """bgsage's cube analysis of a player about to roll: equities of no double, double/take, double/pass."""

    no_double: float
    double_take: float
    double_pass: float
    should_double: bool
    should_take: bool


# ---------------------------------------------------------------- the engine


_FLIPPED: Final[dict[Owner, Owner]] = {"centered": "centered", "player": "opponent", "opponent": "player"}


class Engine:
    """bgsage's networks, bear-off database and searches, loaded once per process, and the ratings made of them.

    Every rating is bgsage's own way of rating (its ``BgBotAnalyzer``): the
    network is told the position before the play as well as the one after
    (bgsage picks its networks by the pair of game plans), a cubeful rating
    is Janowski's formula on the probabilities, and with a live cube a
    deeper rating is bgsage's cube-aware n-ply tree.

    Thread-safe: the 1-ply strategy is stateless, each cubeless n-ply search
    holds its strategy's lock (its position cache is emptied after each
    decision), the cube-aware tree keeps no state. bgsage releases the GIL
    while it computes, so a search in a worker thread stalls nothing else.
    """

    def __init__(self) -> None:
        try:
            import bgbot_cpp
            from bgsage.weights import bearoff_db_path, default_weights
        except ImportError as error:
            raise SageUnavailable(f"bgsage is not installed ({error}); install nardy with its dependencies") from error
        self._cpp: Any = bgbot_cpp
        self._weights = default_weights()
        weights = self._weights
        self._bearoff = bgbot_cpp.BearoffDB()
        if not self._bearoff.load(bearoff_db_path()):
            raise SageUnavailable("bgsage's bear-off database did not load")
        base = bgbot_cpp.create_strategy(weights.strategy_type, weights.weight_paths_list, weights.hidden_sizes_list)
        self._one_ply = bgbot_cpp.BearoffStrategy(base, self._bearoff)
        self._deep: dict[int, Any] = {}
        self._locks: dict[int, threading.Lock] = {}
        for plies in range(2, MAX_PLIES + 1):
            strategy = bgbot_cpp.create_multipy(
                weights.strategy_type, weights.weight_paths_list, weights.hidden_sizes_list,
                n_plies=plies, parallel_evaluate=False, parallel_threads=0,
            )
            bgbot_cpp.multipy_set_bearoff_db(strategy, self._bearoff)
            self._deep[plies] = strategy
            self._locks[plies] = threading.Lock()

    def one_ply(self, before: Sequence[int], boards: Sequence[Sequence[int]], context: CubeContext) -> list[float]:
        """The mover's 1-ply equity after each play (bgsage boards; ``before`` is the position before it)."""
        pre = list(before)
        answers = [self._one_ply.evaluate_board(list(board), pre) for board in boards]
        if not context.live:
            values = context.values or BGSAGE_VALUES
            return [cubeless_equity(answer["probs"], values) for answer in answers]
        return [self._janowski(list(board), list(answer["probs"]), context) for board, answer in zip(boards, answers)]

    def deep(
        self, before: Sequence[int], boards: Sequence[Sequence[int]], context: CubeContext, *, plies: int,
    ) -> list[float]:
        """The mover's ``plies``-ply equity after each play: bgsage's search, in its cube-aware tree if the cube is live."""
        pre = list(before)
        if context.live:
            workers = max(1, min(SEARCH_THREADS, len(boards)))
            with ThreadPoolExecutor(max_workers=workers) as pool:
                return list(pool.map(lambda board: self._cube_aware(pre, list(board), context, plies), boards))
        strategy = self._deep[plies]
        values = context.values or BGSAGE_VALUES
        with self._locks[plies]:
            equities = [cubeless_equity(strategy.evaluate_board(list(board), pre)["probs"], values) for board in boards]
            strategy.clear_cache()
        return equities

    def cube(self, board: Sequence[int], context: CubeContext, *, plies: int) -> CubeAdvice:
        """The cube analysis of the side to move of ``board`` (before it rolls) at ``plies``."""
        if not context.live:
            raise ValueError("there is no cube to analyse in a cubeless game")
        if plies <= 1:
            return self._one_ply_cube(list(board), context)
        cpp = self._cpp
        weights = self._weights
        away1, away2 = context.away
        raw = cpp.cube_decision_nply_unified(
            list(board), context.value, self._owner(context.owner), plies, weights.strategy_type,
            weights.weight_paths_list, weights.hidden_sizes_list, n_threads=0, away1=away1, away2=away2,
            is_crawford=context.crawford, jacoby=context.jacoby, beaver=context.beaver, max_cube_value=MAX_CUBE,
            bearoff_db=self._bearoff,
        )
        return CubeAdvice(
            no_double=float(raw["equity_nd"]), double_take=float(raw["equity_dt"]),
            double_pass=float(raw["equity_dp"]), should_double=bool(raw["should_double"]),
            should_take=bool(raw["should_take"]),
        )

    def _one_ply_cube(self, board: list[int], context: CubeContext) -> CubeAdvice:
        """bgsage's 1-ply cube analysis (Janowski on the network's pre-roll probabilities), with the loaded network."""
        cpp = self._cpp
        turned = cpp.flip_board(board)
        theirs = list(self._one_ply.evaluate_board(turned, turned)["probs"])
        mine = [1.0 - theirs[0], theirs[3], theirs[4], theirs[1], theirs[2]]
        efficiency = cpp.cube_efficiency(mine, cpp.is_race(board), *cpp.pip_counts(board))
        away, their_away = context.away
        decision = cpp.cube_decision_1ply(
            mine, context.value, self._owner(context.owner), efficiency, away, their_away, context.crawford,
            jacoby=context.jacoby,
        )
        return CubeAdvice(
            no_double=float(decision.equity_nd), double_take=float(decision.equity_dt),
            double_pass=float(decision.equity_dp), should_double=bool(decision.should_double),
            should_take=bool(decision.should_take),
        )

    def _owner(self, owner: Owner) -> Any:
        owners = self._cpp.CubeOwner
        return {"centered": owners.CENTERED, "player": owners.PLAYER, "opponent": owners.OPPONENT}[owner]

    def _janowski(self, board: list[int], probabilities: list[float], context: CubeContext) -> float:
        cpp = self._cpp
        efficiency = cpp.cube_efficiency(probabilities, cpp.is_race(board), *cpp.pip_counts(board))
        owner = self._owner(context.owner)
        if context.away != (0, 0):
            away, their_away = context.away
            return float(cpp.cl2cf(
                probabilities, context.value, owner, efficiency, away, their_away, context.crawford, jacoby=False,
            ))
        jacoby = context.jacoby and context.owner == "centered"
        return float(cpp.cl2cf_money(probabilities, owner, efficiency, jacoby_active=jacoby))

    def _cube_aware(self, before: list[int], board: list[int], context: CubeContext, plies: int) -> float:
        """The mover's equity after a play: minus the opponent's, about to roll, in bgsage's cube-aware tree."""
        cpp = self._cpp
        away, their_away = context.away
        answer = cpp.cubeful_probs_and_equity_nply(
            cpp.flip_board(board), self._owner(_FLIPPED[context.owner]), self._one_ply, plies,
            n_threads=1, cube_value=context.value, away1=their_away, away2=away, is_crawford=context.crawford,
            jacoby=context.jacoby, beaver=context.beaver, bearoff_db=self._bearoff, root_board=before,
        )
        return -float(answer["equity"])


@functools.cache
def engine() -> Engine:
    """This process's :class:`Engine` (loaded on first use, about 0.5 s)."""
    return Engine()


def check_available() -> None:
    """Load bgsage now, so that a missing or broken install stops a server at start, not mid-game."""
    engine()


# ---------------------------------------------------------------- ranking plays


@dataclass(frozen=True, slots=True)
class RatedPlay:
    """A legal play with its equity for the mover, rated ``plies`` rolls ahead."""

    play: Play
    equity: float
    plies: int


def rank_plays(
    position: Position,
    dice: tuple[int, int],
    context: CubeContext = CUBELESS,
    *,
    plies: int = 1,
    deadline: float | None = None,
) -> list[RatedPlay]:
    """Every legal play of ``dice``, best first, as a bot of ``plies`` rates them.

    The plays come from ``position.legal_plays``. All are rated at 1-ply,
    then each stage of :data:`DEEPER_STAGES` up to ``plies`` rates the best
    of the stage before. A play keeps the rating of the deepest stage it
    reached, and the deeper stages rank first. ``deadline`` (a
    ``time.perf_counter`` value) skips every stage that would likely end
    past it, judged by the time the stage before took.
    """
    if not 1 <= plies <= MAX_PLIES:
        raise ValueError(f"bgsage bots search 1 to {MAX_PLIES} plies, not {plies}")
    context = context.scored_for(position.variant)
    plays = position.legal_plays(dice)
    if not plays:
        return []
    sage = engine()
    before = board_of(position)
    boards = [board_of(play.position) for play in plays]
    stages = [list(range(len(plays)))]
    began = time.perf_counter()
    equities = sage.one_ply(before, boards, context)
    spent_per_play = (time.perf_counter() - began) / len(plays)
    for stage in DEEPER_STAGES[: plies - 1]:
        if len(plays) == 1:
            break
        chosen = _within(equities, stages[-1], stage.window, stage.keep)
        if deadline is not None and time.perf_counter() + stage.cost * spent_per_play * len(chosen) > deadline:
            break
        began = time.perf_counter()
        for index, equity in zip(chosen, sage.deep(before, [boards[i] for i in chosen], context, plies=stage.plies)):
            equities[index] = equity
        spent_per_play = (time.perf_counter() - began) / len(chosen)
        stages.append(chosen)
    depth = {index: stage for stage, members in enumerate(stages) for index in members}
    order = sorted(range(len(plays)), key=lambda i: (-depth[i], -equities[i]))
    return [RatedPlay(plays[i], equities[i], depth[i] + 1) for i in order]


def _within(equities: list[float], among: list[int], window: float, keep: int) -> list[int]:
    """The best of ``among`` by ``equities``: within ``window`` of the best, at most ``keep``."""
    ranked = sorted(among, key=lambda i: -equities[i])
    best = equities[ranked[0]]
    return [i for i in ranked if best - equities[i] <= window][:keep]


# ---------------------------------------------------------------- the bot


@dataclass(frozen=True)
class SageLevel:
    """How strong a bgsage bot plays: depth, Gaussian noise on the 1-ply equities, time per decision."""

    plies: int
    noise: float = 0.0
    time_budget: float | None = None


SAGE_LEVELS: Final[dict[str, SageLevel]] = {
    "beginner": SageLevel(plies=1, noise=0.35),
    "intermediate": SageLevel(plies=1, noise=0.12),
    "advanced": SageLevel(plies=1),
    "expert": SageLevel(plies=3),
    "world-class": SageLevel(plies=4, time_budget=2.0),
}
"""The short-board levels, weakest first (docs/strength.md measures each).

The expert searches 3 plies, not 2: bgsage's 2-ply (gnubg's 1-ply, an odd
ply) measured no better than its 1-ply against gnubg 0-ply, its 3-ply did."""


def doubling_gain(advice: CubeAdvice) -> float:
    """Doubling, met by the opponent's best answer, less holding: negative where holding is better."""
    return min(advice.double_take, advice.double_pass) - advice.no_double


def far_from_doubling(advice: CubeAdvice, *, by: float = DOUBLING_FAR) -> bool:
    """Whether doubling costs more than ``by`` against holding, in a position not too good to double.

    Only a position short of the doubling window is judged this way: one
    too good to double (no double above the pass) has a cash next to it,
    which only the deeper analysis may find.
    """
    return advice.no_double < advice.double_pass and doubling_gain(advice) < -by


class SageBot:
    """A short-board bot: our legal plays, rated by bgsage; bgsage's cube decisions.

    ``noise`` is the standard deviation of the Gaussian noise added to each
    candidate's 1-ply equity (the weaker levels play 1-ply only).
    """

    def __init__(self, level: SageLevel, *, seed: int | None = None, name: str = "sage") -> None:
        if level.noise and level.plies > 1:
            raise ValueError("noise is for 1-ply levels")
        self.name = name
        self.level = level
        self._rng = np.random.default_rng(seed)

    def choose_play(self, position: Position, dice: tuple[int, int], game: Game | None = None) -> Play | None:
        """The play bgsage rates best (cubeful when ``game`` has a cube), or ``None`` when there is none."""
        context = CubeContext.of(game, game.turn) if game is not None else CubeContext.cubeless(position.variant)
        level = self.level
        if level.noise:
            plays = position.legal_plays(dice)
            if len(plays) <= 1:
                return plays[0] if plays else None
            equities = np.array(engine().one_ply(board_of(position), [board_of(p.position) for p in plays], context))
            equities += self._rng.normal(0.0, level.noise, len(plays))
            return plays[int(np.argmax(equities))]
        deadline = time.perf_counter() + level.time_budget if level.time_budget is not None else None
        ranked = rank_plays(position, dice, context, plies=level.plies, deadline=deadline)
        return ranked[0].play if ranked else None

    def cube_advice(self, game: Game, player: int, *, plies: int | None = None) -> CubeAdvice:
        """bgsage's cube analysis for ``player`` about to roll, at most :data:`MAX_CUBE_PLIES` deep
        (``plies``, if given, instead of the level's depth)."""
        depth = min(self.level.plies if plies is None else plies, MAX_CUBE_PLIES)
        return engine().cube(board_of(game.board_for(player)), CubeContext.of(game, player), plies=depth)

    def wants_to_double(self, game: Game, player: int) -> bool:
        """Double when bgsage says so; never when ``nardy.rules`` refuses a double (or the game has no cube).

        A level deeper than 1-ply first asks bgsage's 1-ply analysis, and does not double, without its own,
        when that finds doubling far worse than holding (:func:`far_from_doubling`): most turns of a game.
        """
        if not game.can_double(player):
            return False
        if self.level.plies > 1 and far_from_doubling(self.cube_advice(game, player, plies=1)):
            return False
        return self.cube_advice(game, player).should_double

    def accepts_double(self, game: Game, player: int) -> bool:
        """Take when bgsage, looking from the doubler's side before its roll, says the double is a take."""
        if game.phase is not Phase.DOUBLED:
            raise ValueError(f"no double is pending: the game is {game.phase.value}")
        doubler = game.turn
        if player == doubler:
            raise ValueError("the doubler does not answer its own double")
        return self.cube_advice(game, doubler).should_take
