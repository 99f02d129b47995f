"""A hand-written heuristic for the pin game (plakoto): the pins, the mothers and the blots that can be pinned.

bgsage knows no pins (a pinned checker, missing from its board, reads as
borne off), and no network of ours plays the short board, so plakoto's
computer player rates plays by this score of the position a play leaves,
seen by the player who moved (docs/rules.md §9). The mover's checkers
travel 24 → 1 and start on 24; the opponent's travel our 1 → 24 and start
on our 1. The score adds, in points of about one pip race of ten pips:

* the pip race, a pinned checker counted where it lies
  (:meth:`Position.pip_counts`);
* pins made (an opposing checker under ours), worth more the earlier in its
  journey it is held, and pins suffered, worse the farther back;
* the mothers: our last checker alone on our start can be pinned, which loses
  the game double, and the opponent's alone on its start is a target;
* our blots, weighted by the rolls that pin them (:func:`~nardy.bots.heuristic.shots`)
  and by what a pin there costs; the opponent's blots our checkers can reach;
* primes in front of the other side's rearmost checker, both ways; stacks;
* with no contact left, the race: checkers off, pips, checkers still outside.

The weights are round numbers set by hand, not tuned (docs/strength.md
measures the bot). The mother rule's win and tie are taken at once by
:class:`~nardy.bots.heuristic.ScoringBot`.

>>> from nardy.rules import Position
>>> start = Position.start("plakoto")
>>> PinHeuristicBot().choose_play(start, (6, 5)) in start.legal_plays((6, 5))
True
"""

from __future__ import annotations

from typing import Final

from nardy.bots.heuristic import ScoringBot, longest_run, shots
from nardy.rules import NUM_POINTS, Position

START: Final = NUM_POINTS
"""The mover's starting point; the opponent's is our point 1."""
MOTHER_PINNED: Final = 6.0
"""What the loss of a mother costs in score points (a double loss)."""


def _pin_cost(point: int) -> float:
    """What a checker of ours pinned on our ``point`` costs: more the farther back it is held."""
    return 1.0 + 0.08 * point


def _blot_risk(points: tuple[int, ...], pinned: tuple[int, ...]) -> float:
    """Our lone checkers the opponent can land on, weighted by its rolls that reach them and what a pin costs.

    A checker of ours on top of a pinned opposing one is safe: the point is closed to the opponent.
    """
    risk = 0.0
    for point in range(2, NUM_POINTS + 1):
        if points[point - 1] == 1 and pinned[point - 1] == 0:
            hits = shots(points, 0, point)
            if hits:
                cost = MOTHER_PINNED if point == START else _pin_cost(point)
                risk += cost * hits / 36.0
    return risk


def _race_score(position: Position, pips: int) -> float:
    """No contact left: checkers off, then pips, checkers still outside home, stacks."""
    points = position.points
    outside = sum(c for c in points[6:] if c > 0)
    stacked = sum(c - 3 for c in points[:6] if c > 3)
    return 3.0 * position.off[0] - 0.1 * pips - 0.5 * outside - 0.1 * stacked


def pin_score(position: Position) -> float:
    """The pin-game heuristic: higher is better for the player who just moved (``position`` seen by it)."""
    points, pinned = position.points, position.pinned
    mine, theirs = position.pip_counts()
    ours = [p for p in range(1, NUM_POINTS + 1) if points[p - 1] > 0 or pinned[p - 1] > 0]
    their_points = [p for p in range(1, NUM_POINTS + 1) if points[p - 1] < 0 or pinned[p - 1] < 0]
    our_rearmost = max(ours, default=0)
    their_rearmost = min(their_points, default=NUM_POINTS + 1)
    if our_rearmost < their_rearmost:
        return _race_score(position, mine)

    score = 0.1 * (theirs - mine)
    for point in range(1, NUM_POINTS + 1):
        pin = pinned[point - 1]
        if pin < 0:  # an opposing checker held under ours: worth more the earlier in its journey
            score += 1.5 + 0.08 * (NUM_POINTS + 1 - point) + (2.5 if point == 1 else 0.0)
        elif pin > 0:  # ours held under theirs; on our start it is our mother
            score -= MOTHER_PINNED if point == START else _pin_cost(point)

    score -= _blot_risk(points, pinned)
    turned = position.turned()
    opponent_risk = _blot_risk(turned.points, turned.pinned)
    score += 0.5 * opponent_risk

    # Points held (two or more, or one on top of a pin) block the other side.
    made = [c >= 2 or (c == 1 and pin < 0) for c, pin in zip(points, pinned)]
    their_made = [c <= -2 or (c == -1 and pin > 0) for c, pin in zip(points, pinned)]
    prime = longest_run(made[their_rearmost - 1 :])
    score += 0.25 * prime * prime
    their_prime = longest_run(list(reversed(their_made[: our_rearmost - 1])))
    score -= 0.25 * their_prime * their_prime
    score += 0.15 * sum(made[:6])

    # Stacks waste checkers; the start point's stack is left as the game goes on.
    score -= 0.08 * sum(c - 4 for c in points if c > 4)
    score += 0.5 * position.off[0]
    return score


class PinHeuristicBot(ScoringBot):
    """The pin game's heuristic bot (plakoto): :func:`pin_score`."""

    name = "pin-heuristic"

    def evaluate(self, position: Position) -> float:
        return pin_score(position)

    def _check(self, position: Position) -> None:
        if not position.variant.pinning:
            raise ValueError(f"the pin heuristic plays variants with pins, not {position.variant.name}")


__all__ = ["PinHeuristicBot", "pin_score"]
