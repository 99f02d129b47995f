"""Cube decisions from cubeless probabilities: Janowski's model, for money and for matches.

An evaluator gives, for the side to move of a position (about to roll), the
five cumulative cubeless probabilities ``[P(win), P(win double), P(win
triple), P(lose double), P(lose triple)]`` (double = gammon / mars, triple =
backgammon / koks; long nardy has no triple). This module turns them into
cubeful equities and double / take decisions.

Money play (Janowski 1993)
--------------------------
R. Janowski, "Take-Points in Money Games" (1993; published at
msoworld.com/mindzine/news/classic/bg/cubeformulae.pdf; summarised in the
bkgm.com glossary as "Janowski's formulas" and "Janowski's takepoint
formula", TP = (2L - 1)/(2W + 2L + x)). With ``p`` = P(win) and the average
value of a win and of a loss,

    W = (P(win) + P(win double) + (b-2)·P(win triple)) / p
    L = (P(lose) + P(lose double) + (b-2)·P(lose triple)) / (1 - p)

(``b`` the value of a triple win, 3; with b = 3 the numerators are simply the
sums of the cumulative outputs), the cubeless ("dead cube") equity is
``E_dead = p·W - (1-p)·L``. With a *fully live* cube (the doubler doubles at
the last moment, the game moves continuously) the equity is piecewise linear
in ``p``, with kinks at the take point and the cash point

    TP = (L - 1/2) / (W + L + 1/2)        (the side to move's take point)
    CP = (L + 1) / (W + L + 1/2)          (its cash point, 1 - the opponent's TP)

* centred cube: (0, -L) → (TP, -1) → (CP, +1) → (1, W)
* cube owned by the side to move: (0, -L) → (CP, +1) → (1, W)
* cube owned by the opponent: (0, -L) → (TP, -1) → (1, W)

The real cube is neither dead nor fully live: Janowski's cube efficiency
``x`` (about 0.68 in contact positions) mixes the two,
``E = x·E_live + (1-x)·E_dead``, everything times the cube value. With no
gammons (W = L = 1) this gives the familiar take point ``(L - 1/2)/(W + L + x/2)``
= 21.4% at x = 0.68, between the dead cube's 25% and the live cube's 20%.

A double is right when both answers beat playing on: ``min(DT, DP) > ND``
with ND the equity now, DT = 2 × the equity with the opponent owning the
doubled cube, DP = +1 (the cube value cashed). A take is right when
``DT <= DP`` seen from the doubler, i.e. the taker's equity after taking is
at least -1. Jacoby (money only): while the cube is centred, gammons count
single, so the dead equity uses singles and the live line ends at ±1.

Match play
----------
The same model with match-winning chances instead of points, as GNU
Backgammon also does: every outcome "win / lose k points at cube C" is given
its match equity from the table (:mod:`nardy.bots.met`, Kazaross-XG2, with
the Crawford and post-Crawford rules of 000). ``W_C`` and ``L_C`` become the
average equity of a win and of a loss at cube C (gammon and triple shares
held fixed), and the kinks come from take points computed from the equities
themselves, recursively up the cube levels:

* my take point when doubled to K is where my line, owning K, reaches the
  equity of passing, ``ME(lose K/2)``; my line runs from ``(0, L_K)`` to my
  cash point ``(opp_take(2K), ME(win K))`` when I can redouble, else straight
  to ``(1, W_K)``: ``my_take(K) = opp_take(2K)·(ME(lose K/2) - L_K)/(ME(win K) - L_K)``;
* the opponent's take point is the mirror image, found on the opponent's line
  ``(0, L_K) → (my_take(2K), ME(lose K)) → (1, W_K)`` at ``ME(win K/2)``.

A cube is dead for a player (no useful redouble) once winning its value
already wins the match (which is also the dave rule "no double past the
match-winning value"), or when doubling would pass 64. So at 2-away/2-away
the 2-cube is dead for both, the take point is
``(ME(lose 1) - ME(lose 2)) / (ME(win 2) - ME(lose 2)) = (0.32264 - 0)/(1 - 0)``
= 32.26% whatever the gammons, and without gammons the doubler gains from
doubling as soon as it is the favourite, the classical result.

Only ``nardy.rules`` decides whether a double is allowed (ownership, the 64
cap, Crawford, dave's three restrictions): :func:`should_double` asks
``game.can_double`` first and never doubles when it refuses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from nardy.bots.evaluator import Evaluator
from nardy.bots.met import match_equity_after
from nardy.rules import MAX_CUBE, Game, Phase

CUBE_EFFICIENCY = 0.68
"""Janowski's cube efficiency x for contact positions (money and match)."""

_EPSILON = 1e-7

Owner = Literal["centred", "me", "opponent"]
"""Who owns the cube, seen from the side whose equity is computed."""

Probabilities = Sequence[float] | npt.NDArray[np.floating[Any]]


@dataclass(frozen=True, slots=True)
class Outcomes:
    """The five cumulative cubeless probabilities, checked and split into exclusive outcomes."""

    win: float
    win_double: float
    win_triple: float
    lose_double: float
    lose_triple: float

    @classmethod
    def of(cls, probs: Probabilities) -> Outcomes:
        values = [float(v) for v in probs]
        if len(values) != 5:
            raise ValueError(f"five probabilities are expected, got {len(values)}")
        win, wd, wt, ld, lt = (min(max(v, 0.0), 1.0) for v in values)
        # Keep the cumulative order even if a network is slightly off.
        wd = min(wd, win)
        wt = min(wt, wd)
        ld = min(ld, 1.0 - win)
        lt = min(lt, ld)
        return cls(win, wd, wt, ld, lt)

    @property
    def lose(self) -> float:
        return 1.0 - self.win

    def exclusive(self) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
        """(single, double, triple) shares of the wins and of the losses, each summing to P(win) / P(lose)."""
        wins = (self.win - self.win_double, self.win_double - self.win_triple, self.win_triple)
        losses = (self.lose - self.lose_double, self.lose_double - self.lose_triple, self.lose_triple)
        return wins, losses

    def flipped(self) -> Outcomes:
        """The same game seen by the other side."""
        return Outcomes(self.lose, self.lose_double, self.lose_triple, self.win_double, self.win_triple)


# ---------------------------------------------------------------- money play


def _money_values(outcomes: Outcomes, backgammon_value: int, *, singles_only: bool) -> tuple[float, float]:
    """Total points won and lost (not yet divided by P(win) / P(lose))."""
    wins, losses = outcomes.exclusive()
    weights = (1.0, 1.0, 1.0) if singles_only else (1.0, 2.0, float(backgammon_value))
    won = sum(share * weight for share, weight in zip(wins, weights, strict=True))
    lost = sum(share * weight for share, weight in zip(losses, weights, strict=True))
    return won, lost


def money_take_point(probs: Probabilities, *, x: float = CUBE_EFFICIENCY, backgammon_value: int = 3) -> float:
    """Janowski's take point ``(L - 1/2)/(W + L + x/2)`` of the side whose probabilities these are."""
    outcomes = Outcomes.of(probs)
    won, lost = _money_values(outcomes, backgammon_value, singles_only=False)
    w = won / outcomes.win if outcomes.win > _EPSILON else 1.0
    l_avg = lost / outcomes.lose if outcomes.lose > _EPSILON else 1.0
    return (l_avg - 0.5) / (w + l_avg + 0.5 * x)


def money_equity_cubeless(probs: Probabilities, *, backgammon_value: int = 3) -> float:
    """Points per unit cube for the side to move, gammons and triples counted."""
    won, lost = _money_values(Outcomes.of(probs), backgammon_value, singles_only=False)
    return won - lost


def money_equity_cubeful(
    probs: Probabilities,
    *,
    cube_value: int = 1,
    owner: Owner = "centred",
    x: float = CUBE_EFFICIENCY,
    jacoby: bool = False,
    backgammon_value: int = 3,
) -> float:
    """Janowski's cubeful money equity of the side to move, in points (times ``cube_value``)."""
    outcomes = Outcomes.of(probs)
    jacoby_now = jacoby and owner == "centred"
    won, lost = _money_values(outcomes, backgammon_value, singles_only=False)
    dead_won, dead_lost = _money_values(outcomes, backgammon_value, singles_only=jacoby_now)
    dead = dead_won - dead_lost
    p = outcomes.win
    if p <= _EPSILON or p >= 1.0 - _EPSILON:
        return cube_value * dead
    w = won / p
    l_avg = lost / (1.0 - p)
    take = (l_avg - 0.5) / (w + l_avg + 0.5)
    cash = (l_avg + 1.0) / (w + l_avg + 0.5)
    low_end, high_end = (-1.0, 1.0) if jacoby_now else (-l_avg, w)
    if owner == "centred":
        live = _piecewise(p, [(0.0, low_end), (take, -1.0), (cash, 1.0), (1.0, high_end)])
    elif owner == "me":
        live = _piecewise(p, [(0.0, -l_avg), (cash, 1.0), (1.0, w)])
    elif owner == "opponent":
        live = _piecewise(p, [(0.0, -l_avg), (take, -1.0), (1.0, w)])
    else:
        raise ValueError(f"owner is 'centred', 'me' or 'opponent', got {owner!r}")
    return cube_value * (x * live + (1.0 - x) * dead)


@dataclass(frozen=True, slots=True)
class CubeDecision:
    """The three equities of a double decision, from the doubler's side, and what follows from them."""

    no_double: float
    double_take: float
    double_pass: float

    @property
    def should_double(self) -> bool:
        """Both answers of the opponent are better for the doubler than playing on."""
        return min(self.double_take, self.double_pass) > self.no_double

    @property
    def should_take(self) -> bool:
        """Taking costs the taker no more than passing."""
        return self.double_take <= self.double_pass


def money_decision(
    probs: Probabilities,
    *,
    cube_value: int = 1,
    owner: Owner = "centred",
    x: float = CUBE_EFFICIENCY,
    jacoby: bool = False,
    backgammon_value: int = 3,
) -> CubeDecision:
    """ND, DT and DP in points for the side to move holding or sharing a cube of ``cube_value``."""
    if owner == "opponent":
        raise ValueError("a player cannot double a cube the opponent owns")
    nd = money_equity_cubeful(
        probs, cube_value=cube_value, owner=owner, x=x, jacoby=jacoby, backgammon_value=backgammon_value
    )
    dt = money_equity_cubeful(
        probs, cube_value=2 * cube_value, owner="opponent", x=x, jacoby=jacoby, backgammon_value=backgammon_value
    )
    return CubeDecision(nd, dt, float(cube_value))


# ---------------------------------------------------------------- match play


@dataclass(frozen=True, slots=True)
class MatchScore:
    """The score as the cube sees it: points away for me and the opponent, and whether this is the Crawford game."""

    away_me: int
    away_opp: int
    crawford_game: bool = False

    def equity(self, points: int) -> float:
        """My match equity after this game ends with ``points`` to me (negative: to the opponent)."""
        return _equity_after(self.away_me, self.away_opp, points, self.crawford_game)

    def can_redouble(self, mine: bool, cube: int) -> bool:
        """Whether a player owning ``cube`` still has a useful double (not dead, not past 64)."""
        away = self.away_me if mine else self.away_opp
        return 2 * cube <= MAX_CUBE and cube < away and not self.crawford_game


@cache
def _equity_after(away_me: int, away_opp: int, points: int, crawford_game: bool) -> float:
    return match_equity_after(away_me, away_opp, points, crawford_game=crawford_game)


class _MatchModel:
    """Average win / loss equities and the recursive take points for one position at one score."""

    def __init__(self, outcomes: Outcomes, score: MatchScore, backgammon_value: int) -> None:
        self.outcomes = outcomes
        self.score = score
        self.backgammon_value = backgammon_value
        self._takes: dict[tuple[bool, int], float] = {}

    def win_loss(self, cube: int) -> tuple[float, float]:
        """(W_C, L_C): my average match equity over my wins and over my losses at ``cube``."""
        wins, losses = self.outcomes.exclusive()
        multipliers = (1, 2, self.backgammon_value)
        me = self.score.equity
        won = sum(share * me(m * cube) for share, m in zip(wins, multipliers, strict=True))
        lost = sum(share * me(-m * cube) for share, m in zip(losses, multipliers, strict=True))
        w = won / self.outcomes.win if self.outcomes.win > _EPSILON else me(cube)
        loss = lost / self.outcomes.lose if self.outcomes.lose > _EPSILON else me(-cube)
        return w, loss

    def dead(self, cube: int) -> float:
        """Cubeless match equity at ``cube``."""
        w, loss = self.win_loss(cube)
        return self.outcomes.win * w + self.outcomes.lose * loss

    def my_take(self, cube: int) -> float:
        """My take point (as my P(win)) when doubled to ``cube``."""
        key = (True, cube)
        if key not in self._takes:
            w, loss = self.win_loss(cube)
            passed = self.score.equity(-(cube // 2))
            if self.score.can_redouble(True, cube):
                cash_at = self.opp_take(2 * cube)
                top = self.score.equity(cube)
                point = cash_at * _ratio(passed - loss, top - loss)
            else:
                point = _ratio(passed - loss, w - loss)
            self._takes[key] = min(max(point, 0.0), 1.0)
        return self._takes[key]

    def opp_take(self, cube: int) -> float:
        """The opponent's take point when doubled to ``cube``, as my P(win): above it the opponent passes."""
        key = (False, cube)
        if key not in self._takes:
            w, loss = self.win_loss(cube)
            passed = self.score.equity(cube // 2)
            if self.score.can_redouble(False, cube):
                cash_at = self.my_take(2 * cube)
                bottom = self.score.equity(-cube)
                point = cash_at + (1.0 - cash_at) * _ratio(passed - bottom, w - bottom)
            else:
                point = _ratio(passed - loss, w - loss)
            self._takes[key] = min(max(point, 0.0), 1.0)
        return self._takes[key]

    def cubeful(self, cube: int, owner: Owner, x: float) -> float:
        """Janowski's mix of the live and dead cube, in match equity."""
        w, loss = self.win_loss(cube)
        p = self.outcomes.win
        dead = p * w + (1.0 - p) * loss
        me_can = owner in ("centred", "me") and self.score.can_redouble(True, cube)
        opp_can = owner in ("centred", "opponent") and self.score.can_redouble(False, cube)
        points = [(0.0, loss)]
        low = self.my_take(2 * cube) if opp_can else None
        high = self.opp_take(2 * cube) if me_can else None
        if low is not None and high is not None and high < low:
            low = high = (low + high) / 2.0
        if low is not None:
            points.append((low, self.score.equity(-cube)))
        if high is not None:
            points.append((high, self.score.equity(cube)))
        points.append((1.0, w))
        live = _piecewise(p, points)
        return x * live + (1.0 - x) * dead


def _ratio(numerator: float, denominator: float) -> float:
    if abs(denominator) < _EPSILON:
        return 0.5
    return numerator / denominator


def match_equity_cubeful(
    probs: Probabilities,
    score: MatchScore,
    *,
    cube_value: int = 1,
    owner: Owner = "centred",
    x: float = CUBE_EFFICIENCY,
    backgammon_value: int = 3,
) -> float:
    """My cubeful match-winning chance (side to move) at ``score`` with the cube at ``cube_value``."""
    return _MatchModel(Outcomes.of(probs), score, backgammon_value).cubeful(cube_value, owner, x)


def match_take_point(probs: Probabilities, score: MatchScore, *, cube_value: int = 2, backgammon_value: int = 3) -> float:
    """My take point (as my P(win), me to move) when doubled to ``cube_value`` (fully live model)."""
    return _MatchModel(Outcomes.of(probs), score, backgammon_value).my_take(cube_value)


def match_decision(
    probs: Probabilities,
    score: MatchScore,
    *,
    cube_value: int = 1,
    owner: Owner = "centred",
    x: float = CUBE_EFFICIENCY,
    backgammon_value: int = 3,
) -> CubeDecision:
    """ND, DT and DP in match equity for the side to move at ``score``."""
    if owner == "opponent":
        raise ValueError("a player cannot double a cube the opponent owns")
    model = _MatchModel(Outcomes.of(probs), score, backgammon_value)
    nd = model.cubeful(cube_value, owner, x)
    dt = model.cubeful(2 * cube_value, "opponent", x)
    dp = score.equity(cube_value)
    return CubeDecision(nd, dt, dp)


# ---------------------------------------------------------------- decisions in a game


def decision_for(
    evaluator: Evaluator, game: Game, doubler: int, *, x: float = CUBE_EFFICIENCY
) -> CubeDecision:
    """ND / DT / DP for ``doubler`` about to roll in ``game``, money or match as the game says."""
    position = game.board_for(doubler)
    probs = np.asarray(evaluator.probabilities([position]), dtype=np.float64).reshape(-1, 5)[0]
    cube = game.cube
    owner: Owner = "centred" if cube.owner is None else ("me" if cube.owner == doubler else "opponent")
    triple = game.variant.win_points(game.variant.kinds[2], game.options)
    context = game.context
    if context.length == 0:
        return money_decision(
            probs, cube_value=cube.value, owner=owner, x=x, jacoby=game.options.jacoby, backgammon_value=triple
        )
    score = MatchScore(context.away(doubler), context.away(1 - doubler), context.crawford)
    return match_decision(probs, score, cube_value=cube.value, owner=owner, x=x, backgammon_value=triple)


def should_double(evaluator: Evaluator, game: Game, player: int, *, x: float = CUBE_EFFICIENCY) -> bool:
    """Whether ``player``, on roll, should offer a double; never when ``nardy.rules`` refuses one."""
    if not game.can_double(player):
        return False
    return decision_for(evaluator, game, player, x=x).should_double


def should_take(evaluator: Evaluator, game: Game, player: int, *, x: float = CUBE_EFFICIENCY) -> bool:
    """Whether ``player`` should take the double its opponent has just offered.

    The position is evaluated from the doubler's side, since the doubler is
    the one about to roll (``game.board_for(doubler)``); the taker's own view
    as side to move would give it a tempo it does not have.
    """
    if game.phase is not Phase.DOUBLED:
        raise ValueError(f"no double is pending: the game is {game.phase.value}")
    doubler = game.turn
    if player == doubler:
        raise ValueError("the doubler does not answer its own double")
    return decision_for(evaluator, game, doubler, x=x).should_take


def _piecewise(p: float, points: Sequence[tuple[float, float]]) -> float:
    """Linear interpolation through ``points`` (sorted by abscissa, first at 0 and last at 1)."""
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if p <= x1:
            if x1 - x0 < _EPSILON:
                return y1
            return y0 + (y1 - y0) * (p - x0) / (x1 - x0)
    return points[-1][1]


__all__ = [
    "CUBE_EFFICIENCY",
    "CubeDecision",
    "Evaluator",
    "MatchScore",
    "Outcomes",
    "Owner",
    "decision_for",
    "match_decision",
    "match_equity_cubeful",
    "match_take_point",
    "money_decision",
    "money_equity_cubeful",
    "money_equity_cubeless",
    "money_take_point",
    "should_double",
    "should_take",
]
