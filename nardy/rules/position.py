"""Immutable positions and the plays they allow.

A :class:`Position` is a board seen from the side to move (docs/rules.md §2):
``points[i]`` is point ``i + 1``, positive for the side to move and negative
for the opponent; ``bar`` and ``off`` are ``(side to move, opponent)``.
In a variant with pins (plakoto) ``pinned[i]`` says whether a checker lies
pinned under point ``i + 1``'s checkers: +1 one of the side to move's, -1 one
of the opponent's; ``pinned`` is empty in every other variant.

>>> start = Position.start("backgammon")
>>> len(start.legal_plays((3, 1)))
16
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from nardy.rules import movegen, pinning
from nardy.rules.board import BAR, NUM_POINTS, OFF
from nardy.rules.dice import check_dice
from nardy.rules.errors import IllegalPlayError, IllegalStepError, InvalidPositionError
from nardy.rules.movegen import Step
from nardy.rules.variant import Variant, WinKind
from nardy.rules.variants import find_variant


@dataclass(frozen=True, slots=True)
class Play:
    """A legal play: the steps of one representative order and the position they leave.

    ``position`` is still seen from the player who moved; call
    :meth:`Position.turned` to hand the turn over.
    """

    steps: tuple[Step, ...]
    position: Position

    def __bool__(self) -> bool:
        return bool(self.steps)


Row = tuple[int, ...]
"""A position as numbers only (see :meth:`Position.row`)."""

ROW_LENGTH = NUM_POINTS + 4


@dataclass(frozen=True, slots=True)
class Position:
    """A board from the side to move's perspective; immutable and hashable."""

    variant: Variant
    points: tuple[int, ...]
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)
    pinned: tuple[int, ...] = ()
    _sequences: dict[tuple[int, int], tuple[int, ...]] | None = field(
        default=None, init=False, repr=False, compare=False, hash=False,
    )
    """This position's legal sequences per roll, packed (see :meth:`_sequence_codes`): a memo, not state."""

    def __post_init__(self) -> None:
        if isinstance(self.variant, str):
            object.__setattr__(self, "variant", find_variant(self.variant))
        object.__setattr__(self, "points", tuple(self.points))
        object.__setattr__(self, "bar", tuple(self.bar))
        object.__setattr__(self, "off", tuple(self.off))
        pins = tuple(self.pinned)
        if self.variant.pinning and not pins:
            pins = (0,) * NUM_POINTS
        elif not self.variant.pinning and not any(pins):
            pins = ()
        object.__setattr__(self, "pinned", pins)
        self._validate()

    @classmethod
    def start(cls, variant: Variant | str) -> Position:
        """The starting position of ``variant``, the first player to move."""
        rules = find_variant(variant) if isinstance(variant, str) else variant
        return cls(rules, rules.start_points())

    @classmethod
    def _trusted(
        cls, variant: Variant, board: movegen.Board, opponent_off: int, pinned: tuple[int, ...] = (),
    ) -> Position:
        position = object.__new__(cls)
        object.__setattr__(position, "variant", variant)
        object.__setattr__(position, "points", board[1:BAR])
        object.__setattr__(position, "bar", (board[BAR], board[BAR + 1]))
        object.__setattr__(position, "off", (board[OFF], opponent_off))
        object.__setattr__(position, "pinned", pinned)
        object.__setattr__(position, "_sequences", None)
        return position

    def _validate(self) -> None:
        points, bar, off = self.points, self.bar, self.off
        if len(points) != NUM_POINTS:
            raise InvalidPositionError(f"a position has {NUM_POINTS} points, got {len(points)}")
        for pair, name in ((bar, "bar"), (off, "off")):
            if len(pair) != 2:
                raise InvalidPositionError(f"{name} is a pair [side to move, opponent], got {list(pair)}")
        for value in (*points, *bar, *off):
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidPositionError(f"checker counts are whole numbers, got {value!r}")
        if min(*bar, *off) < 0:
            raise InvalidPositionError("bar and off counts cannot be negative")
        if not self.variant.has_bar and any(bar):
            raise InvalidPositionError(f"{self.variant.name} has no bar: no checker can be hit")
        self._validate_pins()
        own = sum(c for c in points if c > 0) + bar[0] + off[0] + self.pinned.count(1)
        theirs = -sum(c for c in points if c < 0) + bar[1] + off[1] + self.pinned.count(-1)
        checkers = self.variant.checkers
        for count, side in ((own, "the side to move"), (theirs, "the opponent")):
            if count != checkers:
                raise InvalidPositionError(
                    f"{side} has {count} checkers; each side has exactly {checkers} in {self.variant.name}"
                )

    def _validate_pins(self) -> None:
        pinned, points = self.pinned, self.points
        if not pinned:
            return
        if not self.variant.pinning:
            raise InvalidPositionError(f"{self.variant.name} pins no checker: a hit goes to the bar")
        if len(pinned) != NUM_POINTS:
            raise InvalidPositionError(f"pinned has one entry per point ({NUM_POINTS}), got {len(pinned)}")
        for pin, count in zip(pinned, points):
            if isinstance(pin, bool) or pin not in (-1, 0, 1):
                raise InvalidPositionError(f"a pin is -1, 0 or 1, got {pin!r}")
            if pin and not pin * count < 0:
                raise InvalidPositionError("a pinned checker lies under the other side's checkers")

    # ----- plain facts about the position

    def pip_counts(self) -> tuple[int, int]:
        """Pips to bear everything off: (side to move, opponent); a pinned checker counts where it lies."""
        topology = self.variant.topology
        mover, opponent = topology.pip_counts(self.points, self.bar)
        for point, pin in enumerate(self.pinned, start=1):
            if pin > 0:
                mover += point
            elif pin < 0:
                opponent += topology.opponent_point(point)
        return mover, opponent

    def turned(self) -> Position:
        """The same position seen by the opponent, whose turn it becomes."""
        topology = self.variant.topology
        return Position._trusted(
            self.variant,
            (self.off[1], *topology.flip_points(self.points), self.bar[1], self.bar[0]),
            self.off[0],
            topology.flip_points(self.pinned) if self.pinned else (),
        )

    def is_first_roll(self) -> bool:
        """Long nardy: all the mover's checkers still stand on the head (docs/rules.md §2)."""
        return self.points[NUM_POINTS - 1] == self.variant.checkers

    def winner_is_mover(self) -> bool:
        """True when the side to move has borne off all its checkers."""
        return self.off[0] == self.variant.checkers

    def is_game_over(self) -> bool:
        """True when either side has borne off all its checkers."""
        return self.variant.checkers in self.off

    def win_kind(self) -> WinKind:
        """How the side that bore off everything won (single/gammon/..., oin/mars/koks)."""
        checkers = self.variant.checkers
        if self.off[0] == checkers:
            return self.variant.win_kind(self.points, self.bar[1], self.off[1])
        if self.off[1] == checkers:
            turned = self.turned()
            return self.variant.win_kind(turned.points, turned.bar[1], turned.off[1])
        raise InvalidPositionError("the game is not over: nobody has borne off all checkers")

    # ----- legal plays

    def legal_plays(self, dice: Sequence[int]) -> list[Play]:
        """Every legal play of ``dice``, one per distinct resulting position.

        An empty list means the roll cannot be played at all (a pass).
        """
        rolled = check_dice(dice)
        if self.variant.pinning:
            return [
                Play(movegen._steps(steps), Position._trusted(self.variant, board, self.off[1], pins))
                for steps, board, pins in pinning.walk(self.points, self.pinned, self.off, rolled, False)
            ]
        return [
            Play(c.steps, Position._trusted(self.variant, c.board, self.off[1]))
            for c in self._search(rolled, every_sequence=False)
            if c.steps
        ]

    def legal_positions(self, dice: Sequence[int]) -> list[Position]:
        """The positions the legal plays of ``dice`` leave: ``[p.position for p in self.legal_plays(dice)]``.

        Quicker, for callers that need no steps (a bot rating every reply).
        """
        rolled = check_dice(dice)
        variant, opponent_off = self.variant, self.off[1]
        trusted = Position._trusted
        if variant.pinning:
            return [
                trusted(variant, board, opponent_off, pins)
                for _, board, pins in pinning.walk(self.points, self.pinned, self.off, rolled, False)
            ]
        return [
            trusted(variant, board, opponent_off)
            for board in movegen.result_boards(variant, self.points, self.bar, self.off, rolled)
        ]

    def legal_rows(self, dice: Sequence[int]) -> list[Row]:
        """The :meth:`row` of each of :meth:`legal_positions`, without making the positions.

        The quickest answer, for a bot that rates every play of every roll
        as numbers and makes a position of only the few it keeps.
        """
        if self.variant.pinning:
            opponent_off = self.off[1]
            return [
                (*board[1:BAR], board[BAR], board[BAR + 1], board[OFF], opponent_off, *pins)
                for _, board, pins in pinning.walk(self.points, self.pinned, self.off, check_dice(dice), False)
            ]
        return movegen.result_rows(self.variant, self.points, self.bar, self.off, check_dice(dice))

    def row(self) -> Row:
        """The position's numbers in one tuple: ``points + bar + off`` (28 ints, the canonical JSON's order),
        then in a variant with pins the 24 pins."""
        return self.points + self.bar + self.off + self.pinned

    @classmethod
    def from_row(cls, variant: Variant, row: Sequence[int]) -> Position:
        """The position whose :meth:`row` is ``row`` (checked like any new position)."""
        length = ROW_LENGTH + NUM_POINTS if variant.pinning else ROW_LENGTH
        if len(row) != length:
            raise InvalidPositionError(f"a {variant.name} row has {length} numbers, got {len(row)}")
        bar, off = NUM_POINTS, NUM_POINTS + 2
        return cls(
            variant, tuple(row[:bar]), (row[bar], row[bar + 1]), (row[off], row[off + 1]), tuple(row[ROW_LENGTH:]),
        )

    def can_play(self, dice: Sequence[int]) -> bool:
        """True when ``dice`` has a legal play here; False when the roll passes.

        Answered from the legal sequences the position remembers per roll: a
        server asks this of every roll more than once (deciding it, folding
        it) and then offers the roll's first steps, which need the sequences.
        """
        return bool(self._sequence_codes(dice))

    def legal_sequences(self, dice: Sequence[int]) -> list[tuple[Step, ...]]:
        """Every legal order of steps (several may reach one position)."""
        return [_decode(code) for code in self._sequence_codes(dice)]

    def next_steps(self, dice: Sequence[int], made: Iterable[Step] = ()) -> list[Step]:
        """The steps that may follow ``made`` in a legal play of ``dice``.

        This is what a client highlights: the destinations of each checker
        given the steps already made this turn. Empty when the turn is complete.
        Raises :class:`IllegalStepError` if ``made`` does not begin a legal play.
        """
        prefix = tuple(made)
        codes = self._sequence_codes(dice)
        wanted = _encode(prefix)
        if not prefix:
            return [_step(code) for code in dict.fromkeys(code & _STEP_MASK for code in codes if code)]
        shift = _STEP_BITS * len(prefix)
        mask = (1 << shift) - 1
        matching = [] if wanted is None else [code >> shift for code in codes if code & mask == wanted]
        if not matching:
            raise IllegalStepError(f"the steps {_describe(prefix)} do not begin a legal play of {list(dice)}")
        return [_step(code) for code in dict.fromkeys(rest & _STEP_MASK for rest in matching if rest)]

    def destinations(self, dice: Sequence[int], source: int, made: Iterable[Step] = ()) -> list[Step]:
        """The legal next steps of the checker on ``source`` (25 = bar), largest die first."""
        steps = [s for s in self.next_steps(dice, made) if s.source == source]
        return sorted(steps, key=lambda s: -s.die)

    def play(self, dice: Sequence[int], steps: Iterable[Step]) -> Position:
        """The position after ``steps``, which must be a whole legal play of ``dice``.

        A roll with no legal play is played with no steps (a pass).
        """
        wanted = tuple(steps)
        codes = self._sequence_codes(dice)
        legal = _encode(wanted) in codes if codes else not wanted
        if legal:
            return self.after(wanted)
        raise IllegalPlayError(f"{_describe(wanted) or 'pass'} is not a legal play of {list(dice)}")

    def after(self, steps: Iterable[Step]) -> Position:
        """The position after applying ``steps`` as given, without checking legality."""
        if self.variant.pinning:
            raw = [(s.source, s.target, s.die, s.hit) for s in steps]
            points, pins, own_off = pinning.after(self.points, self.pinned, self.off[0], raw)
            return Position._trusted(self.variant, (own_off, *points, 0, 0), self.off[1], pins)
        board = [self.off[0], *self.points, self.bar[0]]
        opponent_bar = self.bar[1]
        for step in steps:
            board[step.source] -= 1
            if step.hit:
                board[step.target] = 1
                opponent_bar += 1
            else:
                board[step.target] += 1
        return Position._trusted(self.variant, (*board, opponent_bar), self.off[1])

    def _search(self, dice: tuple[int, int], *, every_sequence: bool) -> list[movegen.Candidate]:
        return movegen.search(self.variant, self.points, self.bar, self.off, dice, every_sequence=every_sequence)

    def _sequence_codes(self, dice: Sequence[int]) -> tuple[int, ...]:
        """Every legal order of steps of ``dice``, each packed into one int (see :func:`_encode`).

        A turn asks for the same position's sequences several times (the
        highlighted steps of each view, the check of the move, applying it),
        and the search is the costliest thing the rules do; the position
        remembers the answer per roll. The memo holds ints only, so the
        garbage collector does not track it, and it changes no answer.
        """
        rolled = check_dice(dice)
        memo = self._sequences
        if memo is None:
            memo = {}
            object.__setattr__(self, "_sequences", memo)
        codes = memo.get(rolled)
        if codes is None:
            if self.variant.pinning:
                codes = tuple(pinning.sequence_codes(self.points, self.pinned, self.off, rolled))
            else:
                codes = _search_codes(self.variant, self.points, self.bar, self.off, rolled)
            memo[rolled] = codes
        return codes


def _describe(steps: tuple[Step, ...]) -> str:
    return " ".join(
        f"{'bar' if s.source == BAR else s.source}/{'off' if s.target == OFF else s.target}" for s in steps
    )


# ----- legal sequences packed into ints (see Position._sequence_codes)

_STEP_BITS = movegen.STEP_BITS
_STEP_MASK = (1 << _STEP_BITS) - 1


def _step_code(source: int, target: int, die: int, hit: bool) -> int | None:
    """A step packed into :data:`_STEP_BITS` bits (never 0, since a die is at least 1); None if it cannot be."""
    if not (
        type(source) is int and type(target) is int and type(die) is int
        and 0 <= source <= BAR and 0 <= target <= BAR and 1 <= die <= 6 and (hit is True or hit is False)
    ):
        return None
    return movegen.step_code(source, target, die, hit)


def _encode(steps: Iterable[Step]) -> int | None:
    """A sequence packed into one int, first step in the lowest bits; None if a step cannot be packed."""
    code = 0
    for index, step in enumerate(steps):
        packed = _step_code(step.source, step.target, step.die, step.hit)
        if packed is None:
            return None
        code |= packed << (_STEP_BITS * index)
    return code


_STEPS: dict[int, Step] = {
    code: step
    for step in (
        Step(source, max(source - die, OFF), die, hit)
        for source in range(1, BAR + 1)
        for die in range(1, 7)
        for hit in (False, True)
    )
    if (code := _step_code(step.source, step.target, step.die, step.hit)) is not None
}
"""Every step a search can make, by its code (steps are immutable, so one of each is shared)."""


def _step(code: int) -> Step:
    step = _STEPS.get(code)
    if step is None:
        step = Step(code >> 9, (code >> 4) & 31, (code >> 1) & 7, bool(code & 1))
    return step


def _decode(code: int) -> tuple[Step, ...]:
    steps = []
    while code:
        steps.append(_step(code & _STEP_MASK))
        code >>= _STEP_BITS
    return tuple(steps)


def _search_codes(
    variant: Variant, points: tuple[int, ...], bar: tuple[int, int], off: tuple[int, int], dice: tuple[int, int],
) -> tuple[int, ...]:
    return tuple(movegen.sequence_codes(variant, points, bar, off, dice))
