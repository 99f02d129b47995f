"""Hand-written heuristic bots: the baselines a trained bot must beat by a wide margin.

Both rate every legal play by a score of the position it leaves (seen by the
player who moved) and play the highest; ties go to the first play in
``legal_plays`` order, so they are deterministic. They never double and
always take. The weights are round numbers set by hand, not tuned: these
are yardsticks, not opponents worth studying.

:class:`GeorgianHeuristicBot` plays the short board (Georgian nardy, and
backgammon or dave as well): pip race, blots weighted by the rolls that hit
them and by what a hit costs, made points in the home board and the bar
point, the longest prime in front of the opponent's back checkers, the
opponent's checkers on the bar, back checkers still to escape, and in a race
the checkers borne off, checkers brought home and smooth distribution.
Georgian's "hit in your home, stay there" needs nothing here: the rule is
already in ``legal_plays``.

:class:`LongHeuristicBot` plays long nardy (no hitting; one checker closes a
point): pip count, the longest block of our points along the opponent's
route in front of its rearmost checker, points held in our home, checkers
left on the head, stacking and gaps, and in the race checkers off and home.

>>> from nardy.rules import Position
>>> start = Position.start("georgian")
>>> GeorgianHeuristicBot().choose_play(start, (3, 1)) in start.legal_plays((3, 1))
True
"""

from __future__ import annotations

import random
from typing import Final

from nardy.rules import NUM_POINTS, Game, Play, Position

HOME_POINTS: Final = range(1, 7)


def _hit_masks() -> tuple[int, ...]:
    """For each distance 0..24: the ordered rolls (bit ``6·(d1-1) + d2-1``) that move a checker exactly that far.

    Intermediate landing points are not checked: a rough count of shots, as a
    player would make it over the board.
    """
    masks = [0] * (NUM_POINTS + 1)
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            bit = 1 << (6 * (d1 - 1) + d2 - 1)
            reach = {d1 * k for k in range(1, 5)} if d1 == d2 else {d1, d2, d1 + d2}
            for distance in reach:
                if distance <= NUM_POINTS:
                    masks[distance] |= bit
    return tuple(masks)


HIT_MASKS: Final = _hit_masks()
"""``HIT_MASKS[d]``: rolls that can hit a blot ``d`` pips away (11 of 36 at d = 1, 17 at d = 6)."""


def shots(points: tuple[int, ...], opponent_bar: int, blot: int) -> int:
    """How many of the 36 rolls let some opposing checker reach our point ``blot`` (short board).

    The opponent travels 1 → 24, so its checkers on lower points (and on the
    bar, as point 0) are the shooters.
    """
    mask = HIT_MASKS[blot] if opponent_bar else 0
    for index in range(blot - 1):
        if points[index] < 0:
            mask |= HIT_MASKS[blot - index - 1]
    return mask.bit_count()


def _short_contact(points: tuple[int, ...], bar: tuple[int, int]) -> bool:
    if bar[0] or bar[1]:
        return True
    own = max((i for i, c in enumerate(points, start=1) if c > 0), default=0)
    theirs = min((i for i, c in enumerate(points, start=1) if c < 0), default=NUM_POINTS + 1)
    return own > theirs


def longest_run(flags: list[bool]) -> int:
    best = run = 0
    for flag in flags:
        run = run + 1 if flag else 0
        best = max(best, run)
    return best


def short_score(position: Position) -> float:
    """The Georgian / backgammon heuristic: higher is better for the player who just moved."""
    points, bar, off = position.points, position.bar, position.off
    mine, theirs = position.pip_counts()
    if not _short_contact(points, bar):
        return _short_race_score(position, mine)
    score = 0.1 * (theirs - mine)
    made = [c >= 2 for c in points]
    opponent_made = [c <= -2 for c in points]
    home_made = sum(made[p - 1] for p in HOME_POINTS)
    opponent_home_made = sum(opponent_made[p - 1] for p in range(19, 25))

    # Made points: the home board, the 5- and 4-points above all, the bar point.
    for point, value in ((1, 0.5), (2, 0.7), (3, 0.9), (4, 1.3), (5, 1.5), (6, 1.2), (7, 1.0), (8, 0.5), (9, 0.3)):
        if made[point - 1]:
            score += value
    # An anchor in the opponent's home is a safe landing for our back checkers.
    if any(opponent_home for opponent_home in made[18:]):
        score += 0.6

    # Hits: the opponent's checkers on the bar, worth more against a strong home board.
    score += bar[1] * (1.2 + 0.4 * home_made)

    # Blots: the rolls that hit them, times what a hit would cost.
    for point in range(1, NUM_POINTS + 1):
        if points[point - 1] == 1:
            hits = shots(points, bar[1], point)
            if hits:
                cost = 1.0 + 0.06 * (NUM_POINTS + 1 - point) + 0.35 * opponent_home_made
                score -= cost * hits / 36.0

    # Our prime in front of the opponent's rearmost checker (it travels upwards).
    rearmost = min((i for i, c in enumerate(points, start=1) if c < 0), default=NUM_POINTS + 1)
    if bar[1]:
        rearmost = 0
    prime = longest_run(made[rearmost : NUM_POINTS])
    score += 0.3 * prime * prime

    # Our back checkers: still to escape, worse behind the opponent's prime.
    our_rearmost = max((i for i, c in enumerate(points, start=1) if c > 0), default=0)
    if bar[0]:
        our_rearmost = NUM_POINTS + 1
    back = sum(c for c in points[18:] if c > 0) + bar[0]
    score -= 0.25 * back
    opponent_prime = longest_run(list(reversed(opponent_made[: max(our_rearmost - 1, 0)])))
    score -= 0.25 * opponent_prime * opponent_prime

    # Stacks waste checkers.
    score -= 0.12 * sum(c - 3 for c in points if c > 3)
    score += 0.5 * off[0]
    return score


def _short_race_score(position: Position, pips: int) -> float:
    points, off = position.points, position.off
    outside = sum(c for c in points[6:] if c > 0)
    highest = max((i for i, c in enumerate(points, start=1) if c > 0), default=0)
    gaps = sum(1 for p in range(1, min(highest, 6) + 1) if points[p - 1] <= 0)
    stacked = sum(c - 3 for c in points[:6] if c > 3)
    return 3.0 * off[0] - 0.1 * pips - 0.5 * outside - 0.15 * gaps - 0.1 * stacked


def _long_orders() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Long board, our numbering: the opponent's point number of each of our points, and the inverse."""
    from nardy.rules.variant import LongTopology

    topology = LongTopology()
    theirs = tuple(topology.opponent_point(point) for point in range(1, NUM_POINTS + 1))
    ours = [0] * (NUM_POINTS + 1)
    for point, their_number in enumerate(theirs, start=1):
        ours[their_number] = point
    return theirs, tuple(ours)


_THEIR_NUMBER, _OUR_POINT_OF = _long_orders()
"""``_THEIR_NUMBER[q - 1]``: how the opponent numbers our point q; ``_OUR_POINT_OF[o]``: our point numbered o by them."""


def long_score(position: Position) -> float:
    """The long-nardy heuristic: higher is better for the player who just moved."""
    points, off = position.points, position.off
    mine, theirs = position.pip_counts()
    ours = [i for i, c in enumerate(points, start=1) if c > 0]
    their_numbers = [_THEIR_NUMBER[i - 1] for i, c in enumerate(points, start=1) if c < 0]
    own_rearmost = max(ours, default=0)
    their_ahead_of_us = any(0 < -points[q - 1] for q in range(1, own_rearmost))
    their_rearmost = max(their_numbers, default=0)
    we_block_them = any(_THEIR_NUMBER[q - 1] < their_rearmost for q in ours)
    if not their_ahead_of_us and not we_block_them:
        outside = sum(c for c in points[6:] if c > 0)
        stacked = sum(c - 3 for c in points[:6] if c > 3)
        return 3.0 * off[0] - 0.1 * mine - 0.5 * outside - 0.1 * stacked

    score = 0.1 * (theirs - mine)
    # Our block along the opponent's route, in front of its rearmost checker.
    held = [points[_OUR_POINT_OF[o] - 1] > 0 for o in range(1, their_rearmost)]
    block = longest_run(held)
    score += 0.35 * block * block
    # Points held in our home and in the opponent's home (its last stretch).
    score += 0.5 * sum(1 for p in HOME_POINTS if points[p - 1] > 0)
    score += 0.4 * sum(1 for p in range(13, 19) if points[p - 1] > 0)
    # Development: checkers off the head, spread over distinct points, no towers.
    head = points[NUM_POINTS - 1]
    score -= 0.5 * max(head - 1, 0)
    score += 0.3 * sum(1 for p in range(7, NUM_POINTS) if points[p - 1] > 0)
    score -= 0.2 * sum(c - 3 for c in points[: NUM_POINTS - 1] if c > 3)
    # Gaps: empty points between our checkers outside home make them harder to bring round.
    if ours:
        span = range(max(min(ours), 7), own_rearmost)
        score -= 0.1 * sum(1 for p in span if points[p - 1] <= 0)
    # The opponent's block in front of our rearmost checker.
    their_block = longest_run([points[q - 1] < 0 for q in range(own_rearmost - 1, 0, -1)])
    score -= 0.3 * their_block * their_block
    score += 1.0 * off[0]
    return score


class ScoringBot:
    """Plays the legal play whose resulting position ``score`` rates highest.

    A play that ends the game (bearing off the last checker, or an early end
    such as plakoto's mother rule, a tie included) is played at once.
    ``noise``: the standard deviation of Gaussian noise added to each score
    (a weaker level), drawn from ``seed``.
    """

    name = "heuristic"

    def __init__(self, *, noise: float = 0.0, seed: int | None = None, name: str | None = None) -> None:
        self.noise = noise
        self._random = random.Random(seed)
        if name is not None:
            self.name = name

    def evaluate(self, position: Position) -> float:
        """The score of a position left by a play, for the player who made it."""
        raise NotImplementedError

    def choose_play(self, position: Position, dice: tuple[int, int], game: Game | None = None) -> Play | None:
        self._check(position)
        plays = position.legal_plays(dice)
        if not plays:
            return None
        best = plays[0]
        best_score = float("-inf")
        rate = self.evaluate
        early_end = position.variant.early_end
        noise, gauss = self.noise, self._random.gauss
        for play in plays:
            if play.position.winner_is_mover() or early_end(play.position) is not None:
                return play
            value = rate(play.position)
            if noise:
                value += gauss(0.0, noise)
            if value > best_score:
                best, best_score = play, value
        return best

    def _check(self, position: Position) -> None:
        raise NotImplementedError

    def wants_to_double(self, game: Game, player: int) -> bool:
        return False

    def accepts_double(self, game: Game, player: int) -> bool:
        return True


class GeorgianHeuristicBot(ScoringBot):
    """Short-board heuristic (Georgian nardy; also plays backgammon and dave)."""

    name = "georgian-heuristic"

    def evaluate(self, position: Position) -> float:
        return short_score(position)

    def _check(self, position: Position) -> None:
        if not position.variant.has_bar or position.variant.pinning:
            raise ValueError(f"the short-board heuristic does not play {position.variant.name}")


class LongHeuristicBot(ScoringBot):
    """Long-nardy heuristic (every regulation)."""

    name = "long-heuristic"

    def evaluate(self, position: Position) -> float:
        return long_score(position)

    def _check(self, position: Position) -> None:
        if position.variant.board != "long":
            raise ValueError(f"the long-nardy heuristic does not play {position.variant.name}")


def heuristic_bot(variant: str, *, noise: float = 0.0, seed: int | None = None, name: str | None = None) -> ScoringBot:
    """The heuristic bot for ``variant``: the pin game's with pins, else the short or long board's."""
    from nardy.bots.pin_heuristic import PinHeuristicBot
    from nardy.rules import find_variant

    rules = find_variant(variant)
    kind: type[ScoringBot]
    if rules.pinning:
        kind = PinHeuristicBot
    elif rules.has_bar:
        kind = GeorgianHeuristicBot
    else:
        kind = LongHeuristicBot
    return kind(noise=noise, seed=seed, name=name)


__all__ = [
    "GeorgianHeuristicBot", "HIT_MASKS", "LongHeuristicBot", "ScoringBot", "heuristic_bot", "long_score", "longest_run",
    "short_score", "shots",
]
