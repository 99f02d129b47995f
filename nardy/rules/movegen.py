"""Legal plays of a roll: every variant's movement rules and the maximum-dice rule.

The search walks every order in which the dice can be played, one checker
step at a time, on a mutable working board (index 0 = our borne-off checkers,
1..24 = points, 25 = our bar). Every node of the walk is a candidate play that
used as many dice as its depth; the legal plays are then the candidates that
pass the end-of-turn checks and use the most dice (RULES.md §1), with the
larger die preferred when only one die can be played, and finally the
Georgian hit-in-home filter, which "never costs a die" (RULES.md §4).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from nardy.rules.board import BAR, CHECKERS, NUM_POINTS, OFF
from nardy.rules.dice import moves_of
from nardy.rules.variant import Variant

Board = tuple[int, ...]
"""A working board as a tuple: off, points 1..24, bar (our side), then the opponent's bar."""


@dataclass(frozen=True, slots=True)
class Step:
    """One checker moved by one die: ``source`` 1..24 or 25 (bar), ``target`` 1..24 or 0 (off)."""

    source: int
    target: int
    die: int
    hit: bool = False


@dataclass(frozen=True, slots=True)
class Candidate:
    """A sequence of steps and the board it leaves; ``keeps_stay_rule`` is Georgian's §4 test."""

    steps: tuple[Step, ...]
    board: Board
    keeps_stay_rule: bool


# Our points in the order the opponent travels them in long nardy: its head
# (our 12) first, its last point (our 13) last.
_LONG_ROUTE = tuple(((24 - j + 11) % NUM_POINTS) + 1 for j in range(NUM_POINTS))


def _block_ban(variant: Variant, points: tuple[int, ...], opponent_off: int) -> Callable[[list[int]], bool] | None:
    """A test telling whether our working board holds a forbidden six-point block."""
    rule = variant.block_rule
    if rule is None:
        return None
    topology = variant.topology
    opponent_steps = [topology.opponent_point(p + 1) for p, c in enumerate(points) if c < 0]
    if rule == "outside-home":
        if all(step <= 6 for step in opponent_steps):
            return None
        most_advanced = CHECKERS + NUM_POINTS  # any block at all is banned
    else:
        most_advanced = 0 if opponent_off else min(opponent_steps, default=0)

    def forbidden(board: list[int]) -> bool:
        run = 0
        for j, point in enumerate(_LONG_ROUTE):
            if board[point] > 0:
                run += 1
                # The block's last point along the opponent's route is their point 24 - j;
                # an opposing checker is "ahead" of it when it stands on a lower number.
                if run >= 6 and most_advanced >= 24 - j:
                    return True
            else:
                run = 0
        return False

    return forbidden


def _preferred(candidate: Candidate, known: Candidate) -> bool:
    """Which of two step orders reaching one board represents it.

    One that keeps Georgian's stay rule beats one that breaks it; for a
    single step, the larger die wins, so the larger-die filter applied later
    cannot drop a board that the larger die also reaches.
    """
    if candidate.keeps_stay_rule != known.keeps_stay_rule:
        return candidate.keeps_stay_rule
    return len(candidate.steps) == 1 and candidate.steps[0].die > known.steps[0].die


def search(
    variant: Variant,
    points: tuple[int, ...],
    bar: tuple[int, int],
    off: tuple[int, int],
    dice: tuple[int, int],
    *,
    every_sequence: bool = False,
) -> list[Candidate]:
    """The legal plays of ``dice``: one candidate per distinct resulting board.

    With ``every_sequence`` every legal step sequence is returned instead
    (several may reach one board), which is what a client needs to offer the
    next step after some steps were made.
    """
    moves = moves_of(dice)
    double = len(moves) == 4
    board = [off[0], *points, bar[0]]
    opponent_bar = bar[1]
    outside = sum(c for c in board[7:] if c > 0)
    lowest_open = -1 if variant.hitting else 0
    hitting = variant.hitting
    head_limit = variant.head_limit
    if (
        head_limit is not None
        and double
        and moves[0] in variant.head_exception_doubles
        and points[NUM_POINTS - 1] == CHECKERS
    ):
        head_limit = 2
    ban = _block_ban(variant, points, off[1])
    ban_each_step = ban if variant.block_each_step else None
    ban_at_end = None if variant.block_each_step else ban
    stay_rule = variant.hit_home_stay

    best = 0
    found: dict[Board, Candidate] = {}
    sequences: list[Candidate] = []
    seen: set[tuple[object, ...]] = set()

    def register(steps: tuple[Step, ...], keeps: bool) -> None:
        nonlocal best, found, sequences
        depth = len(steps)
        if depth < best or (ban_at_end is not None and ban_at_end(board)):
            return
        if depth > best:
            best = depth
            found = {}
            sequences = []
        key = (*board, opponent_bar)
        candidate = Candidate(steps, key, keeps)
        if every_sequence:
            sequences.append(candidate)
            return
        known = found.get(key)
        if known is None or _preferred(candidate, known):
            found[key] = candidate

    def visit(remaining: tuple[int, ...], steps: tuple[Step, ...], head_used: int, guarded: int, keeps: bool) -> None:
        nonlocal outside, opponent_bar
        if not every_sequence:
            key = (*board, opponent_bar, remaining, head_used, guarded, keeps)
            if key in seen:
                return
            seen.add(key)
        register(steps, keeps)
        for index, die in enumerate(remaining):
            if index and die == remaining[index - 1]:
                continue
            rest = remaining[:index] + remaining[index + 1:]
            sources = (BAR,) if board[BAR] > 0 else [p for p in range(NUM_POINTS, 0, -1) if board[p] > 0]
            for source in sources:
                target = source - die
                hit = False
                if target > 0:
                    occupant = board[target]
                    if occupant < lowest_open:
                        continue
                    hit = hitting and occupant == -1
                else:
                    if outside:
                        continue
                    if target < 0 and any(board[p] > 0 for p in range(source + 1, 7)):
                        continue
                    target = OFF
                heads = head_used
                if source == NUM_POINTS and head_limit is not None:
                    if head_used >= head_limit:
                        continue
                    heads += 1
                board[source] -= 1
                if hit:
                    board[target] = 1
                    opponent_bar += 1
                else:
                    board[target] += 1
                left_outside = source >= 7 > target
                if left_outside:
                    outside -= 1
                if ban_each_step is None or not ban_each_step(board):
                    now_guarded, now_keeps = guarded, keeps
                    if stay_rule and keeps:
                        if hit and target <= 6:
                            now_guarded |= 1 << target
                        if (now_guarded >> source) & 1 and board[source] == 0:
                            now_keeps, now_guarded = False, 0
                    visit(rest, (*steps, Step(source, target, die, hit)), heads, now_guarded, now_keeps)
                if left_outside:
                    outside += 1
                if hit:
                    board[target] = -1
                    opponent_bar -= 1
                else:
                    board[target] -= 1
                board[source] += 1

    visit(tuple(sorted(moves)), (), 0, 0, True)

    results = sequences if every_sequence else list(found.values())
    if best == 1 and not double:
        larger = max(moves)
        if any(c.steps[0].die == larger for c in results):
            results = [c for c in results if c.steps[0].die == larger]
    if stay_rule and any(c.keeps_stay_rule for c in results):
        results = [c for c in results if c.keeps_stay_rule]
    return results
