"""Fevga, the third game of Greek tavli (docs/rules.md §10).

Long nardy's board and start: fifteen checkers each on diagonally opposite
corners, both sides travelling the same way; no hitting, a single checker
holds a point. On top of that:

* first checker away: until one checker has passed the opponent's starting
  point, no second checker leaves one's own (``first_checker_away``, read by
  the move generator);
* the side to move may not end its turn holding all six points of its
  starting quarter (:meth:`Fevga.closed_sixes`);
* nor holding the six points directly in front of the one point on which all
  the opponent's checkers stand, unless no play can open one of them
  (:meth:`Fevga.yielding_sixes`).

A win is a single (1) or, when the loser has borne off none, a gammon (2);
there is no triple game and no cube. The winner of a game starts the next.
"""

from __future__ import annotations

from dataclasses import dataclass

from nardy.rules.board import HOME, NUM_POINTS
from nardy.rules.variant import LONG_START, LongTopology, Variant, WinKind

_STARTING_QUARTER = tuple(range(NUM_POINTS, NUM_POINTS - len(HOME), -1))
"""Our points 24..19, the quarter of our starting point, in the order the opponent travels them."""


@dataclass(frozen=True, eq=False)
class Fevga(Variant):
    """The fevga rule set: a :class:`Variant` whose hooks name its two prime bans."""

    def closed_sixes(self, points: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        """Our starting quarter: «you are not allowed to block all six points in your starting table» (bkgm)."""
        return (_STARTING_QUARTER,)

    def yielding_sixes(self, points: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
        """The six points directly in front of the one point holding every opposing checker on the board.

        bkgm: «if your opponent has collected all his checkers onto the one
        point behind your prime, then you must unblock a point in your prime
        to allow him a chance to move». Read as a ban at the end of the turn
        that yields where no play can obey it (docs/rules.md §10).
        """
        held = [point for point, count in enumerate(points, 1) if count < 0]
        if len(held) != 1:
            return ()
        topology = self.topology
        theirs = topology.opponent_point(held[0])
        if theirs <= len(HOME):
            return ()
        return (tuple(topology.opponent_point(theirs - step) for step in range(1, len(HOME) + 1)),)


FEVGA = Fevga(
    name="fevga",
    title="Fevga",
    family="fevga",
    group="greek",
    topology=LongTopology(),
    start_layout=LONG_START,
    hitting=False,
    first_checker_away=True,
    match_lengths=(1, 3, 5, 7),
    previous_winner_starts=True,
    kinds=(WinKind.SINGLE, WinKind.GAMMON, WinKind.GAMMON),
)
