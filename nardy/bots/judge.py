"""What post-game analysis asks of an engine: rate a checker play, a cube decision, every roll.

A :class:`Judge` answers for one variant family at one depth;
:mod:`nardy.bots.judge_sage` is the short board's (bgsage),
:mod:`nardy.bots.judge_neural` long nardy's (our network and expectimax).
:mod:`nardy.bots.analysis` walks a match and asks a judge about each
decision and each roll. Equities are always for the player named (the
mover, the doubler, the roller), normalized to a cube of 1: points per
unit stake for money and cubeless play, bgsage's equivalent-money equity
(EMG) in match play.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Protocol

from nardy.rules import DICE_ROLLS, Game, Play

ROLL_WEIGHT: Final[dict[tuple[int, int], float]] = {
    roll: (1.0 if roll[0] == roll[1] else 2.0) / 36.0 for roll in DICE_ROLLS
}
"""The probability of each of the 21 rolls (larger die first)."""


@dataclass(frozen=True, slots=True)
class PlayVerdict:
    """A checker play judged: the best legal play and the equities of the best and of the one played.

    ``plays`` is how many legal plays there were (1: nothing to decide).
    Both equities come from the same depth, the judge's.
    """

    best: Play
    equity_best: float
    equity_played: float
    plays: int


@dataclass(frozen=True, slots=True)
class CubeEquities:
    """The doubler's equities before its roll: no double, double and take, double and drop.

    ``double_take`` is a plain take (never a beaver): the analysis works
    the beaver out from it, so that the doubler's and the taker's views agree.
    """

    no_double: float
    double_take: float
    double_pass: float


class Judge(Protocol):
    """An engine that rates decisions of one variant family at one depth."""

    def checker_play(self, game: Game, played: Play) -> PlayVerdict:
        """Judge ``played``, one of ``game.legal_plays()`` (the game is in its moving phase)."""

    def cube(self, game: Game) -> CubeEquities:
        """The cube equities of ``game.turn``, about to roll or having just doubled (the cube as before the double)."""

    def roll_equities(self, game: Game, player: int) -> dict[tuple[int, int], float]:
        """For ``player`` about to roll in ``game``: per roll (larger die first), its best play's equity.

        Rated at the luck depth (cheaper than the judge's own, as gnubg's
        luck analysis is); a roll that cannot be played is rated as the
        position it leaves unchanged.
        """


def roll_key(dice: tuple[int, int]) -> tuple[int, int]:
    """The key of ``dice`` in :data:`ROLL_WEIGHT` and :meth:`Judge.roll_equities`: larger die first."""
    return (max(dice), min(dice))

