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
match score (away scores, Crawford). Without the cube (Georgian nardy, and
backgammon or dave played cubeless) plays are rated by cubeless equity,
single 1, double 2, triple 3: Georgian's oin/mars/koks score exactly so.
Beyond the first ply bgsage searches with backgammon's rules, the nearest
it knows; our rules decide every play actually made.

Search. A play is rated at 1-ply (the network on the position it leaves);
deeper, gnubg-style: all candidates at 1-ply, those within
:data:`FIRST_WINDOW` of the best (at most :data:`FIRST_KEEP`) at 2-ply,
and for 3-ply those within :data:`SECOND_WINDOW` of the 2-ply best (at most
:data:`SECOND_KEEP`) at 3-ply, unless the time budget is spent.

A missing bgsage is reported by :func:`check_available`, which the server
calls at start-up; nothing here imports it before it is needed.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import numpy as np

from nardy.rules import CHECKERS, MAX_CUBE, NUM_POINTS, Game, Phase, Play, Position, Variant, find_variant

SHORT_VARIANTS: Final = ("backgammon", "dave", "georgian")
"""The variants bgsage plays (the short board); long nardy keeps our own networks."""

FIRST_WINDOW: Final = 0.08
FIRST_KEEP: Final = 5
SECOND_WINDOW: Final = 0.04
SECOND_KEEP: Final = 3

Owner = Literal["centered", "player", "opponent"]


class SageUnavailable(RuntimeError):
    """bgsage cannot be imported or its networks cannot be loaded."""


# ---------------------------------------------------------------- boards


def board_of(position: Position) -> list[int]:
    """bgsage's 26 numbers for a short-board position, seen from its side to move."""
    if position.variant.name not in SHORT_VARIANTS:
        raise ValueError(f"bgsage plays {', '.join(SHORT_VARIANTS)}, not {position.variant.name}")
    return [position.bar[1], *position.points, position.bar[0]]


def position_of(variant: Variant | str, board: Sequence[int]) -> Position:
    """The position of bgsage's 26 numbers (borne-off checkers are those missing from 15)."""
    rules = find_variant(variant) if isinstance(variant, str) else variant
    if len(board) != NUM_POINTS + 2:
        raise ValueError(f"a bgsage board has {NUM_POINTS + 2} numbers, got {len(board)}")
    points = tuple(int(n) for n in board[1:25])
    mover = sum(n for n in points if n > 0) + int(board[25])
    opponent = -sum(n for n in points if n < 0) + int(board[0])
    return Position(rules, points, (int(board[25]), int(board[0])), (CHECKERS - mover, CHECKERS - opponent))


# ---------------------------------------------------------------- what the cube and score mean


@dataclass(frozen=True, slots=True)
class CubeContext:
    """What the cube and the match score mean for the equity of one player about to act.

    ``live`` False rates cubeless equity (no cube in the game). ``away`` is
    (player, opponent) points to go, ``(0, 0)`` for money play.
    """

    live: bool = False
    value: int = 1
    owner: Owner = "centered"
    away: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False

    @classmethod
    def of(cls, game: Game, player: int) -> CubeContext:
        """The context of ``player`` in ``game`` (cubeless when the game has no cube)."""
        if not game.options.cube:
            return cls()
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


CUBELESS: Final = CubeContext()


@dataclass(frozen=True, slots=True)
class CubeAdvice:
    """bgsage's cube analysis of a player about to roll: equities of no double, double/take, double/pass."""

    no_double: float
    double_take: float
    double_pass: float
    should_double: bool
    should_take: bool


# ---------------------------------------------------------------- the engine


class Engine:
    """bgsage's networks, bear-off database and searches, loaded once per process.

    Rating is thread-safe: 1-ply evaluations share one strategy (stateless),
    each deeper search holds its strategy's lock, since its position cache
    is emptied after every decision. bgsage releases the GIL while it
    computes, so a search in a worker thread stalls nothing else.
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
        for plies in (2, 3):
            strategy = bgbot_cpp.create_multipy(
                weights.strategy_type, weights.weight_paths_list, weights.hidden_sizes_list,
                n_plies=plies, parallel_evaluate=False, parallel_threads=0,
            )
            bgbot_cpp.multipy_set_bearoff_db(strategy, self._bearoff)
            self._deep[plies] = strategy
            self._locks[plies] = threading.Lock()

    def rate(self, boards: Sequence[Sequence[int]], context: CubeContext, *, plies: int) -> list[float]:
        """The equity, for the player who just moved, of each position left by a play (bgsage boards)."""
        if not boards:
            return []
        cpp = self._cpp
        owner = cpp.CubeOwner.CENTERED if not context.live else _OWNERS[context.owner](cpp)
        if context.live and context.away != (0, 0):
            away1, away2 = context.away
            items: list[tuple[Any, ...]] = [
                (list(board), owner, context.value, away1, away2, context.crawford) for board in boards
            ]
        else:
            items = [(list(board), owner) for board in boards]
        if plies <= 1:
            answers = cpp.batch_evaluate_post_move(items, self._one_ply, 1, jacoby=context.jacoby)
        else:
            with self._locks[plies]:
                answers = cpp.batch_evaluate_post_move(items, self._deep[plies], 0, jacoby=context.jacoby)
                self._deep[plies].clear_cache()
        key = "cubeful_equity" if context.live else "cubeless_equity"
        return [float(answer[key]) for answer in answers]

    def probabilities(self, boards: Sequence[Sequence[int]], *, plies: int) -> list[list[float]]:
        """bgsage's cubeless ``[win, win double, win triple, lose double, lose triple]`` after each play."""
        if not boards:
            return []
        cpp = self._cpp
        items = [(list(board), cpp.CubeOwner.CENTERED) for board in boards]
        if plies <= 1:
            answers = cpp.batch_evaluate_post_move(items, self._one_ply, 1, jacoby=False)
        else:
            with self._locks[plies]:
                answers = cpp.batch_evaluate_post_move(items, self._deep[plies], 0, jacoby=False)
                self._deep[plies].clear_cache()
        return [[float(p) for p in answer["probs"]] for answer in answers]

    def cube(self, board: Sequence[int], context: CubeContext, *, plies: int) -> CubeAdvice:
        """The cube analysis of the side to move of ``board`` (before it rolls) at ``plies``."""
        if not context.live:
            raise ValueError("there is no cube to analyse in a cubeless game")
        cpp = self._cpp
        weights = self._weights
        away1, away2 = context.away
        common: dict[str, Any] = {
            "away1": away1, "away2": away2, "is_crawford": context.crawford, "jacoby": context.jacoby,
            "beaver": context.beaver, "max_cube_value": MAX_CUBE, "bearoff_db": self._bearoff,
        }
        owner = _OWNERS[context.owner](cpp)
        if plies <= 1:
            raw = cpp.evaluate_cube_decision_unified(
                list(board), context.value, owner, weights.strategy_type, weights.weight_paths_list,
                weights.hidden_sizes_list, **common,
            )
        else:
            raw = cpp.cube_decision_nply_unified(
                list(board), context.value, owner, plies, weights.strategy_type, weights.weight_paths_list,
                weights.hidden_sizes_list, n_threads=0, **common,
            )
        return CubeAdvice(
            no_double=float(raw["equity_nd"]), double_take=float(raw["equity_dt"]),
            double_pass=float(raw["equity_dp"]), should_double=bool(raw["should_double"]),
            should_take=bool(raw["should_take"]),
        )


_OWNERS: Final[dict[Owner, Any]] = {
    "centered": lambda cpp: cpp.CubeOwner.CENTERED,
    "player": lambda cpp: cpp.CubeOwner.PLAYER,
    "opponent": lambda cpp: cpp.CubeOwner.OPPONENT,
}


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
    """A legal play with its equity for the mover and the depth that equity was computed at."""

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
    """Every legal play of ``dice``, best first, rated as the module docstring says.

    The plays come from ``position.legal_plays``. Candidates the filters
    drop keep their shallower rating, so the list is ranked by depth first
    (deeper ratings ahead), then by equity. ``deadline`` (a
    ``time.perf_counter`` value) skips the 3-ply stage when the 2-ply one
    ended past it, or when the 3-ply stage would likely end past it.
    """
    plays = position.legal_plays(dice)
    if not plays:
        return []
    sage = engine()
    boards = [board_of(play.position) for play in plays]
    rated = [RatedPlay(play, equity, 1) for play, equity in zip(plays, sage.rate(boards, context, plies=1))]
    if plies <= 1 or len(plays) == 1:
        return _best_first(rated)
    began = time.perf_counter()
    rated = _deepen(sage, rated, context, depth=2, window=FIRST_WINDOW, keep=FIRST_KEEP)
    if plies <= 2:
        return rated
    two_ply_seconds = time.perf_counter() - began
    if deadline is not None and time.perf_counter() + 12 * two_ply_seconds > deadline:
        return rated
    return _deepen(sage, rated, context, depth=3, window=SECOND_WINDOW, keep=SECOND_KEEP)


def _deepen(
    sage: Engine, rated: list[RatedPlay], context: CubeContext, *, depth: int, window: float, keep: int,
) -> list[RatedPlay]:
    """Rate again at ``depth`` the best of ``rated`` (within ``window`` of the best, at most ``keep``)."""
    ranked = _best_first(rated)
    best = ranked[0].equity
    chosen = [r for r in ranked if best - r.equity <= window][:keep]
    equities = sage.rate([board_of(r.play.position) for r in chosen], context, plies=depth)
    deeper = {id(r.play): RatedPlay(r.play, equity, depth) for r, equity in zip(chosen, equities)}
    return _best_first([deeper.get(id(r.play), r) for r in ranked])


def _best_first(rated: list[RatedPlay]) -> list[RatedPlay]:
    return sorted(rated, key=lambda r: (-r.plies, -r.equity))


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
    "expert": SageLevel(plies=2),
    "world-class": SageLevel(plies=3, time_budget=2.0),
}
"""The short-board levels, weakest first (docs/strength.md measures each)."""


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
        context = CubeContext.of(game, game.turn) if game is not None else CUBELESS
        level = self.level
        if level.noise:
            plays = position.legal_plays(dice)
            if len(plays) <= 1:
                return plays[0] if plays else None
            equities = np.array(engine().rate([board_of(p.position) for p in plays], context, plies=1))
            equities += self._rng.normal(0.0, level.noise, len(plays))
            return plays[int(np.argmax(equities))]
        deadline = time.perf_counter() + level.time_budget if level.time_budget is not None else None
        ranked = rank_plays(position, dice, context, plies=level.plies, deadline=deadline)
        return ranked[0].play if ranked else None

    def cube_advice(self, game: Game, player: int) -> CubeAdvice:
        """bgsage's cube analysis for ``player`` about to roll (at most 3-ply; cube decisions are one a turn)."""
        return engine().cube(board_of(game.board_for(player)), CubeContext.of(game, player), plies=self.level.plies)

    def wants_to_double(self, game: Game, player: int) -> bool:
        """Double when bgsage says so; never when ``nardy.rules`` refuses a double (or the game has no cube)."""
        if not game.can_double(player):
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
