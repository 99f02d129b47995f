"""Perft: count the leaves of the game tree to check the move generator.

Chess engines are checked by counting every position reachable in ``depth``
plies and comparing with published numbers; a wrong count is then split per
first move ("divide") to find the bug. Dice games add chance nodes, so here a
ply is *a roll and then a play*:

* the 21 distinct rolls of :data:`~nardy.rules.board.DICE_ROLLS` are each
  expanded once (unweighted: 6-5 counts once, not twice);
* each legal play of the roll is one child (one per distinct resulting
  position, as :meth:`Position.legal_plays` gives them);
* a roll with no legal play has exactly one child, the pass;
* a finished game has no children, so it adds nothing at a greater depth
  (as a checkmate does in chess perft).

Children are seen from the next player (:meth:`Position.turned`).

>>> from nardy.rules import Position
>>> start = Position.start("backgammon")
>>> perft(start, 1)
447
>>> [(entry.dice, entry.nodes) for entry in divide(start, 1)][:3]
[((1, 1), 42), ((2, 1), 15), ((2, 2), 75)]
"""

from __future__ import annotations

from typing import NamedTuple

from nardy.rules.board import DICE_ROLLS
from nardy.rules.position import Play, Position

__all__ = ["DivideEntry", "divide", "perft"]


class DivideEntry(NamedTuple):
    """One line of :func:`divide`: a roll, a play of it (``None``: the whole roll, or a pass), a count."""

    dice: tuple[int, int]
    play: Play | None
    nodes: int


def perft(position: Position, depth: int) -> int:
    """The number of leaves ``depth`` plies (roll + play) below ``position``.

    ``perft(p, 0)`` is 1. Raises ``ValueError`` for a negative depth.
    The count at depth 1 is taken from the play lists without building the
    children's own trees, so ``perft(p, d)`` costs about as many
    :meth:`Position.legal_plays` calls as there are nodes at depth ``d - 1``
    times 21.
    """
    if depth < 0:
        raise ValueError(f"perft depth must be 0 or more, got {depth}")
    return _count(position, depth)


def divide(position: Position, depth: int) -> list[DivideEntry]:
    """``perft`` split by the first ply, to locate a wrong count.

    At depth 1 there is one entry per roll (``play`` is ``None``, ``nodes``
    the number of legal plays, or 1 for a pass), so the 21 lines can be
    compared with another generator's per-roll counts. At depth 2 or more
    there is one entry per (roll, play), with ``play`` ``None`` for a pass,
    in :data:`DICE_ROLLS` order and then the engine's play order.
    The ``nodes`` sum to ``perft(position, depth)``. Raises ``ValueError``
    for a depth below 1.
    """
    if depth < 1:
        raise ValueError(f"divide needs a depth of 1 or more, got {depth}")
    if position.is_game_over():
        return []
    entries: list[DivideEntry] = []
    for dice in DICE_ROLLS:
        plays = position.legal_plays(dice)
        if depth == 1:
            entries.append(DivideEntry(dice, None, len(plays) or 1))
        elif not plays:
            entries.append(DivideEntry(dice, None, _count(position.turned(), depth - 1)))
        else:
            for play in plays:
                entries.append(DivideEntry(dice, play, _count(play.position.turned(), depth - 1)))
    return entries


def _count(position: Position, depth: int) -> int:
    if depth == 0:
        return 1
    if position.is_game_over():
        return 0
    total = 0
    for dice in DICE_ROLLS:
        plays = position.legal_plays(dice)
        if depth == 1:
            total += len(plays) or 1
        elif not plays:
            total += _count(position.turned(), depth - 1)
        else:
            for play in plays:
                total += _count(play.position.turned(), depth - 1)
    return total
