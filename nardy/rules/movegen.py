"""Legal plays of a roll: every variant's movement rules and the maximum-dice rule.

The search walks every order in which the dice can be played, one checker
step at a time, on a mutable working board (index 0 = our borne-off checkers,
1..24 = points, 25 = our bar); with a double, where the order of the steps
cannot matter, it takes the checkers in one order only. A memo keyed on the
board skips what it has already walked. Every node of the walk is a candidate play that
used as many dice as its depth; the legal plays are then the candidates that
pass the end-of-turn checks and use the most dice (docs/rules.md §1), with the
larger die preferred when only one die can be played.

Georgian's "hit in your home, stay there" (002) is a rule of single steps:
a step that would leave empty a home point where we hit this turn is made
only when its die has no other legal step at that moment («если кубик иначе
никак не сыграть, шашка может уйти»), so the walk tries such steps last, and
only for a die that nothing else can play.

Fevga's "first checker away" (docs/rules.md §10) is a rule of single steps
that the compiled walk does not know: while it is in force (no checker of the
side to move has yet passed the opponent's starting point) the Python walk
searches, and no second checker leaves the starting point until one has.
A variant's :meth:`~nardy.rules.variant.Variant.closed_sixes` are end-of-turn
block bans like the six-block rule; its
:meth:`~nardy.rules.variant.Variant.yielding_sixes` are too, unless no play
the other rules allow can obey them, and then the search runs again without.

The rules of a search are decided here (:func:`_parameters`); the walk
itself runs compiled (``_movegen.c``, built on install) when it is there,
and otherwise in Python (:func:`_walk_python`), which is the reference: both
answer the same plays in the same order, and the tests compare them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from nardy.rules.board import BAR, NUM_POINTS, OFF
from nardy.rules.dice import moves_of
from nardy.rules.variant import Variant

try:
    from nardy.rules import _movegen as _compiled
except ImportError:  # a source tree that was never built: the Python walk gives the same answers, slower
    _compiled = None  # type: ignore[assignment]

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
    """A sequence of steps and the board it leaves."""

    steps: tuple[Step, ...]
    board: Board


# Our points in the order the opponent travels them in long nardy: its head
# (our 12) first, its last point (our 13) last.
_LONG_ROUTE = tuple(((24 - j + 11) % NUM_POINTS) + 1 for j in range(NUM_POINTS))

_ALL_ROUTE = (1 << NUM_POINTS) - 1
_ROUTE_BIT = tuple(1 << _LONG_ROUTE.index(i) if 1 <= i <= NUM_POINTS else 0 for i in range(BAR + 1))
"""Per board index, its bit in an occupancy mask ordered along :data:`_LONG_ROUTE` (0 for off and bar)."""
_ROUTE_POSITIONS = bytes(_LONG_ROUTE.index(i) if 1 <= i <= NUM_POINTS else 255 for i in range(BAR + 2))
""":data:`_ROUTE_BIT` as the compiled walk takes it: per working-board index, its bit's number (255: none)."""

_SEQUENCES, _BOARDS, _ROWS, _CODES = 0, 1, 2, 3
"""What the compiled walk answers: :func:`_walk`'s triples, :func:`result_boards`, :func:`result_rows` or
:func:`sequence_codes`."""


_OPPONENT_BAR = BAR + 1
_CODE_UNIT = tuple(1 << 5 * index for index in range(_OPPONENT_BAR + 1))
"""Per working-board index, one checker's worth in :func:`_board_code`."""


def _board_code(board: list[int], opponent_bar: int) -> int:
    """The working board as one int, five bits per index (counts -15..15 offset by 16).

    A step changes it by a few additions of :data:`_CODE_UNIT`, so the walk
    keeps it up to date for nothing and hashes an int instead of a tuple.
    """
    return sum((count + 16) * unit for count, unit in zip((*board, opponent_bar), _CODE_UNIT))


def _occupancy(board: list[int]) -> int:
    """The mask of the points we hold, bit ``j`` for the ``j``-th point of the opponent's route."""
    mask = 0
    for point in range(1, NUM_POINTS + 1):
        if board[point] > 0:
            mask |= _ROUTE_BIT[point]
    return mask


def _banned_ends(variant: Variant, points: tuple[int, ...], opponent_off: int) -> int:
    """The route positions at which the last point of a six-point block of ours is forbidden, as a mask.

    0 when no block can be forbidden (the variant has no ban, or no opponent
    checker can be left behind one).
    """
    rule = variant.block_rule
    if rule is None:
        return 0
    topology = variant.topology
    opponent_steps = [topology.opponent_point(p + 1) for p, c in enumerate(points) if c < 0]
    if rule == "behind":
        # The block ending at route position j begins on the opponent's point 29 - j; an
        # opposing checker is behind it when it stands on a higher number, so the block is
        # forbidden when the rearmost one stands on 30 - j or higher. A checker with six
        # points of its route still ahead of it is outside its home, so "until the opponent
        # has brought all its checkers home" (001 §1.12) needs no check of its own.
        rearmost = max(opponent_steps, default=0)
        return _ALL_ROUTE & ~((1 << 30 - rearmost) - 1)
    most_advanced = 0 if opponent_off else min(opponent_steps, default=0)
    # The block ending at route position j ends on the opponent's point 24 - j; an opposing
    # checker is ahead of it when it stands on a lower number, so the block is forbidden
    # when the most advanced one stands on 24 - j or higher.
    return _ALL_ROUTE & ~((1 << max(NUM_POINTS - most_advanced, 0)) - 1)


def _six_ends(sixes: tuple[tuple[int, ...], ...]) -> int:
    """The route positions at which the given runs of six points end, as a mask for :func:`_blocks`."""
    mask = 0
    for run in sixes:
        mask |= _ROUTE_BIT[run[-1]]
    return mask


def _start_point_to_pass(variant: Variant, points: tuple[int, ...], off: tuple[int, int]) -> int:
    """Fevga's "first checker away": the opponent's starting point (our number) while no checker of ours has
    passed it, else 0 (also for every variant without the rule)."""
    if not variant.first_checker_away or off[0]:
        return 0
    start = variant.topology.opponent_point(NUM_POINTS)
    return 0 if any(count > 0 for count in points[:start - 1]) else start


def _blocks(occupied: int, banned_ends: int) -> int:
    """Nonzero when ``occupied`` holds six consecutive route points ending where ``banned_ends`` forbids."""
    return occupied & occupied << 1 & occupied << 2 & occupied << 3 & occupied << 4 & occupied << 5 & banned_ends


RawStep = tuple[int, int, int, bool]
"""A step during the walk, as (source, target, die, hit): cheaper to make than a :class:`Step`."""

_STEPS: dict[RawStep, Step] = {
    (source, max(source - die, OFF), die, hit): Step(source, max(source - die, OFF), die, hit)
    for source in range(1, BAR + 1)
    for die in range(1, 7)
    for hit in (False, True)
}
"""Every step a walk can make, shared (steps are immutable)."""


def _steps(raw: tuple[RawStep, ...]) -> tuple[Step, ...]:
    return tuple(map(_STEPS.__getitem__, raw))


def _preferred(steps: tuple[RawStep, ...], known_steps: tuple[RawStep, ...]) -> bool:
    """Whether ``steps`` rather than ``known_steps`` (both reaching one board) represents it.

    For a single step the larger die wins, so the larger-die filter applied
    later cannot drop a board that the larger die also reaches.
    """
    return len(steps) == 1 and steps[0][2] > known_steps[0][2]


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
    return [
        Candidate(_steps(steps), board)
        for steps, board in _walk(variant, points, bar, off, dice, every_sequence)
    ]


def step_sequences(
    variant: Variant, points: tuple[int, ...], bar: tuple[int, int], off: tuple[int, int], dice: tuple[int, int],
) -> list[tuple[RawStep, ...]]:
    """Every legal order of steps of ``dice`` (:func:`search` with ``every_sequence``) as raw steps only.

    What a turn's highlighting and move checks need, without a candidate
    object per sequence: a double in backgammon has hundreds of orders.
    """
    return [steps for steps, _ in _walk(variant, points, bar, off, dice, True)]


STEP_BITS = 14
"""The bits of one step in a packed sequence (:func:`step_code`)."""


def step_code(source: int, target: int, die: int, hit: bool) -> int:
    """A step packed into :data:`STEP_BITS` bits: never 0, since a die is at least 1."""
    return ((source << 5 | target) << 3 | die) << 1 | hit


def sequence_code(steps: tuple[RawStep, ...]) -> int:
    """A sequence of steps packed into one int, the first step in the lowest bits."""
    code = 0
    for index, (source, target, die, hit) in enumerate(steps):
        code |= step_code(source, target, die, hit) << (STEP_BITS * index)
    return code


def sequence_codes(
    variant: Variant, points: tuple[int, ...], bar: tuple[int, int], off: tuple[int, int], dice: tuple[int, int],
) -> list[int]:
    """Every legal order of steps of ``dice`` (:func:`step_sequences`), each packed by :func:`sequence_code`;
    empty when the roll cannot be played.

    What a turn's highlighting and move checks keep: a double has hundreds of
    orders, and the compiled walk packs them without making a tuple of each.
    """
    return _answer(variant, points, bar, off, dice, True, _CODES)


def result_boards(
    variant: Variant, points: tuple[int, ...], bar: tuple[int, int], off: tuple[int, int], dice: tuple[int, int],
) -> list[Board]:
    """The boards the legal plays of ``dice`` leave, in :func:`search`'s order, without their steps.

    Empty when the roll cannot be played. A bot rating every play of every
    roll needs only these, not the steps of each.
    """
    return _answer(variant, points, bar, off, dice, False, _BOARDS)


def result_rows(
    variant: Variant, points: tuple[int, ...], bar: tuple[int, int], off: tuple[int, int], dice: tuple[int, int],
) -> list[tuple[int, ...]]:
    """:func:`result_boards` as position rows: points 1..24, bar (ours, theirs), off (ours, theirs)."""
    return _answer(variant, points, bar, off, dice, False, _ROWS)


Parameters = tuple[tuple[int, ...], bool, int, int, int, bool, bool, bool]
"""What the walk needs to know of the rules for one search (see :func:`_parameters`)."""


def _parameters(
    variant: Variant, points: tuple[int, ...], off: tuple[int, int], dice: tuple[int, int], every_sequence: bool,
    *, start_to_pass: int = 0, yielding: int = 0,
) -> Parameters:
    """The rules of one search as plain values, for either walk.

    (sorted moves, hitting, head limit or -1, six-block ban mask after every
    step, six-block ban mask at the end, stay rule, every sequence, descending).
    The mask at the end takes in the variant's :meth:`~Variant.closed_sixes`
    and ``yielding`` (the ends of its yielding sixes, while they bind);
    ``start_to_pass`` is :func:`_start_point_to_pass`'s answer.
    """
    moves = moves_of(dice)
    double = len(moves) == 4
    head_limit = variant.head_limit
    if (
        head_limit is not None
        and double
        and moves[0] in variant.head_exception_doubles
        and points[NUM_POINTS - 1] == variant.checkers
    ):
        head_limit = 2
    banned_ends = _banned_ends(variant, points, off[1])
    ban_each_step = banned_ends if variant.block_each_step else 0
    ban_at_end = 0 if variant.block_each_step else banned_ends
    if not variant.plain_search:
        ban_at_end |= _six_ends(variant.closed_sixes(points)) | yielding
    stay_rule = variant.hit_home_stay
    # With four equal dice, which checker moves first changes no board, and where no
    # rule depends on the order of the steps, moving higher checkers first never makes
    # a later step illegal (it empties the bar, brings checkers home and clears the
    # points above a checker bearing off): the walk may then take sources in
    # descending order only, which visits each set of steps once instead of in every order.
    # Fevga's first checker away is such a rule: a second checker leaves the start only after the first passed.
    descending = double and not every_sequence and not ban_each_step and not stay_rule and not start_to_pass
    return (
        tuple(sorted(moves)), variant.hitting, -1 if head_limit is None else head_limit,
        ban_each_step, ban_at_end, stay_rule, every_sequence, descending,
    )


Walked = list[tuple[tuple[RawStep, ...], Board]]
"""(steps, board) per legal play or sequence."""


def _walk(
    variant: Variant,
    points: tuple[int, ...],
    bar: tuple[int, int],
    off: tuple[int, int],
    dice: tuple[int, int],
    every_sequence: bool,
) -> Walked:
    """The search, compiled when :mod:`nardy.rules._movegen` was built, else :func:`_walk_python`."""
    return _answer(variant, points, bar, off, dice, every_sequence, _SEQUENCES)


def _answer(
    variant: Variant,
    points: tuple[int, ...],
    bar: tuple[int, int],
    off: tuple[int, int],
    dice: tuple[int, int],
    every_sequence: bool,
    answer: int,
) -> list[Any]:
    """The search's ``answer`` (:data:`_SEQUENCES`, :data:`_BOARDS`, :data:`_ROWS` or :data:`_CODES`).

    The variant's yielding sixes bind unless no play obeys them with every
    other rule: the search finds nothing, while the empty play is not legal
    either (when it is, a board answer, which leaves it out, is empty too).
    """
    if variant.plain_search:
        parameters = _parameters(variant, points, off, dice, every_sequence)
        if _compiled is not None:
            return _compiled.walk((off[0], *points, *bar), *parameters, _ROUTE_POSITIONS, answer, off[1])
        return _run(points, bar, off, parameters, 0, answer)
    start_to_pass = _start_point_to_pass(variant, points, off)
    yielding = _six_ends(variant.yielding_sixes(points))
    parameters = _parameters(
        variant, points, off, dice, every_sequence, start_to_pass=start_to_pass, yielding=yielding,
    )
    found = _run(points, bar, off, parameters, start_to_pass, answer)
    if found or not yielding:
        return found
    if not _blocks(_occupancy([off[0], *points]), parameters[4]):
        return found
    released = _parameters(variant, points, off, dice, every_sequence, start_to_pass=start_to_pass)
    return _run(points, bar, off, released, start_to_pass, answer)


def _run(
    points: tuple[int, ...], bar: tuple[int, int], off: tuple[int, int], parameters: Parameters,
    start_to_pass: int, answer: int,
) -> list[Any]:
    """One walk's ``answer``: compiled when it is built and fevga's first-checker rule is not in force."""
    start = (off[0], *points, *bar)
    if _compiled is not None and not start_to_pass:
        return _compiled.walk(start, *parameters, _ROUTE_POSITIONS, answer, off[1])
    walked = _walk_python(start, parameters, start_to_pass=start_to_pass)
    if answer == _SEQUENCES:
        return walked
    if answer == _CODES:
        return [sequence_code(steps) for steps, _ in walked if steps]
    if answer == _BOARDS:
        return [board for steps, board in walked if steps]
    return [(*board[1:], board[OFF], off[1]) for steps, board in walked if steps]


def _walk_python(start: Board, parameters: Parameters, *, start_to_pass: int = 0) -> Walked:
    """The search itself, in Python: the reference the compiled walk is tested against.

    ``start_to_pass``: fevga's first checker away is in force, and this is the
    opponent's starting point, which one checker must pass before a second
    leaves our own (point 24) while fewer than all our checkers stand there.
    """
    moves, hitting, head_limit, ban_each_step, ban_at_end, stay_rule, every_sequence, descending = parameters
    double = len(moves) == 4
    board = list(start[:_OPPONENT_BAR])
    opponent_bar = start[_OPPONENT_BAR]
    outside = sum(c for c in board[7:] if c > 0)
    lowest_open = -1 if hitting else 0
    route_bit = _ROUTE_BIT
    passed = 0  # while ``start_to_pass`` is set: our checkers past the opponent's starting point this turn
    ours = sum(c for c in board if c > 0)  # off, on the points and on the bar

    best = 0
    found: dict[int, tuple[tuple[RawStep, ...], Board]] = {}
    sequences: Walked = []
    seen: set[tuple[int, tuple[int, ...], int, int]] = set()
    unit = _CODE_UNIT

    def visit(
        code: int, remaining: tuple[int, ...], steps: tuple[RawStep, ...], occupied: int,
        head_used: int, guarded: int, highest: int,
    ) -> None:
        nonlocal best, found, sequences
        if not every_sequence:
            visited = (code, remaining, head_used, guarded)
            if visited in seen:
                return
            seen.add(visited)
        depth = len(steps)
        if depth >= best and not (ban_at_end and _blocks(occupied, ban_at_end)):
            if depth > best:
                best = depth
                found = {}
                sequences = []
            if every_sequence:
                sequences.append((steps, (*board, opponent_bar)))
            else:
                known = found.get(code)
                if known is None:
                    found[code] = (steps, (*board, opponent_bar))
                elif _preferred(steps, known[0]):
                    found[code] = (steps, known[1])
        if not remaining:
            return
        if board[BAR] > 0:
            sources: Sequence[int] = (BAR,)
        else:
            sources = [p for p in range(min(highest, NUM_POINTS), 0, -1) if board[p] > 0]
        for index, die in enumerate(remaining):
            if index and die == remaining[index - 1]:
                continue
            rest = remaining[:index] + remaining[index + 1:]
            # A step that would empty a guarded point waits: 002's exception lets it go
            # only when no other step can play this die.
            played = False
            leaving: list[int] = []
            for source in sources:
                if guarded >> source & 1 and board[source] == 1:
                    leaving.append(source)
                else:
                    played |= advance(code, source, die, rest, steps, occupied, head_used, guarded)
            if not played:
                for source in leaving:
                    advance(code, source, die, rest, steps, occupied, head_used, guarded)

    def advance(
        code: int, source: int, die: int, rest: tuple[int, ...], steps: tuple[RawStep, ...], occupied: int,
        head_used: int, guarded: int,
    ) -> bool:
        """Walk on from the step of ``die`` from ``source`` if it is legal; whether it was."""
        nonlocal outside, opponent_bar, passed
        target = source - die
        hit = False
        if target > 0:
            occupant = board[target]
            if occupant < lowest_open:
                return False
            hit = hitting and occupant == -1
        else:
            if outside:
                return False
            if target < 0 and any(board[p] > 0 for p in range(source + 1, 7)):
                return False
            target = OFF
        passing = 0
        if start_to_pass:
            if source == NUM_POINTS and not passed and board[NUM_POINTS] < ours:
                return False
            passing = source >= start_to_pass > target
        heads = head_used
        if source == NUM_POINTS and head_limit >= 0:
            if head_used >= head_limit:
                return False
            heads += 1
        board[source] -= 1
        now_code = code - unit[source]
        now_occupied = occupied
        if not board[source]:
            now_occupied ^= route_bit[source]
        if hit:
            board[target] = 1
            opponent_bar += 1
            now_code += 2 * unit[target] + unit[_OPPONENT_BAR]
            now_occupied |= route_bit[target]
        else:
            board[target] += 1
            now_code += unit[target]
            if board[target] == 1:
                now_occupied |= route_bit[target]
        left_outside = source >= 7 > target
        if left_outside:
            outside -= 1
        passed += passing
        legal = not (ban_each_step and _blocks(now_occupied, ban_each_step))
        if legal:
            now_guarded = guarded | 1 << target if stay_rule and hit and target <= 6 else guarded
            visit(
                now_code, rest, (*steps, (source, target, die, hit)), now_occupied, heads, now_guarded,
                source if descending else BAR,
            )
        passed -= passing
        if left_outside:
            outside += 1
        if hit:
            board[target] = -1
            opponent_bar -= 1
        else:
            board[target] -= 1
        board[source] += 1
        return legal

    occupied = _occupancy(board) if ban_each_step or ban_at_end else 0  # only the six-block ban reads it
    visit(_board_code(board, opponent_bar), moves, (), occupied, 0, 0, BAR)

    results = sequences if every_sequence else list(found.values())
    if best == 1 and not double:
        larger = max(moves)
        if any(steps[0][2] == larger for steps, _ in results):
            results = [result for result in results if result[0][0][2] == larger]
    return results
