"""Plakoto, the Greek game of pins, second of tavli (docs/rules.md §9).

Backgammon's board and directions with every checker starting on the
opponent's ace point (the side to move's 24), no hitting: a checker landing
on a lone opposing checker pins it there (``pinning``, the search of
:mod:`nardy.rules.pinning`). No cube; single 1, gammon 2, no backgammon.
The mother rule (:meth:`Plakoto.early_end`) ends a game before any bear-off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from nardy.rules.board import NUM_POINTS
from nardy.rules.variant import EarlyEnd, ShortTopology, Variant, WinKind

if TYPE_CHECKING:
    from nardy.rules.position import Position

START = NUM_POINTS
"""The side to move's starting point; the opponent's is our point 1."""


class Plakoto(Variant):
    """Plakoto's rules: pins instead of hits, and the mother rule."""

    def early_end(self, position: Position) -> EarlyEnd | None:
        """The mother rule, judged on the position a play leaves (docs/rules.md §9).

        The opponent's mother is its checker pinned on its own starting point
        (our point 1): a pinned checker there is the last one, since a point
        holding two is closed. Pinning it wins a gammon's two points once the
        mover has no checker left on its own starting point, whose mother the
        opponent could still pin; with both mothers pinned the game is a tie.
        """
        theirs_pinned = position.pinned[0] < 0
        if not theirs_pinned:
            return None
        ours_pinned = position.pinned[START - 1] > 0
        if ours_pinned:
            return "tie"
        if position.points[START - 1] > 0:
            return None
        return self.kinds[1]


PLAKOTO = Plakoto(
    name="plakoto",
    title="Plakoto",
    family="plakoto",
    group="greek",
    topology=ShortTopology(),
    start_layout=((START, 15),),
    hitting=False,
    pinning=True,
    match_lengths=(1, 3, 5, 7),
    previous_winner_starts=True,
    kinds=(WinKind.SINGLE, WinKind.GAMMON, WinKind.GAMMON),
)
