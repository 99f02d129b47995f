"""Immutable positions and the plays they allow.

A :class:`Position` is a board seen from the side to move (RULES.md §2):
``points[i]`` is point ``i + 1``, positive for the side to move and negative
for the opponent; ``bar`` and ``off`` are ``(side to move, opponent)``.

>>> start = Position.start("backgammon")
>>> len(start.legal_plays((3, 1)))
16
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from nardy.rules import movegen
from nardy.rules.board import BAR, CHECKERS, NUM_POINTS, OFF
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


@dataclass(frozen=True, slots=True)
class Position:
    """A board from the side to move's perspective; immutable and hashable."""

    variant: Variant
    points: tuple[int, ...]
    bar: tuple[int, int] = (0, 0)
    off: tuple[int, int] = (0, 0)

    def __post_init__(self) -> None:
        if isinstance(self.variant, str):
            object.__setattr__(self, "variant", find_variant(self.variant))
        object.__setattr__(self, "points", tuple(self.points))
        object.__setattr__(self, "bar", tuple(self.bar))
        object.__setattr__(self, "off", tuple(self.off))
        self._validate()

    @classmethod
    def start(cls, variant: Variant | str) -> Position:
        """The starting position of ``variant``, the first player to move."""
        rules = find_variant(variant) if isinstance(variant, str) else variant
        return cls(rules, rules.topology.start_points())

    @classmethod
    def _trusted(cls, variant: Variant, board: movegen.Board, opponent_off: int) -> Position:
        position = object.__new__(cls)
        object.__setattr__(position, "variant", variant)
        object.__setattr__(position, "points", board[1:BAR])
        object.__setattr__(position, "bar", (board[BAR], board[BAR + 1]))
        object.__setattr__(position, "off", (board[OFF], opponent_off))
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
        own = sum(c for c in points if c > 0) + bar[0] + off[0]
        theirs = -sum(c for c in points if c < 0) + bar[1] + off[1]
        for count, side in ((own, "the side to move"), (theirs, "the opponent")):
            if count != CHECKERS:
                raise InvalidPositionError(f"{side} has {count} checkers; each side has exactly {CHECKERS}")

    # ----- plain facts about the position

    def pip_counts(self) -> tuple[int, int]:
        """Pips to bear everything off: (side to move, opponent)."""
        return self.variant.topology.pip_counts(self.points, self.bar)

    def turned(self) -> Position:
        """The same position seen by the opponent, whose turn it becomes."""
        return Position._trusted(
            self.variant,
            (self.off[1], *self.variant.topology.flip_points(self.points), self.bar[1], self.bar[0]),
            self.off[0],
        )

    def is_first_roll(self) -> bool:
        """Long nardy: all 15 of the mover's checkers still stand on the head (RULES.md §2)."""
        return self.points[NUM_POINTS - 1] == CHECKERS

    def winner_is_mover(self) -> bool:
        """True when the side to move has borne off all its checkers."""
        return self.off[0] == CHECKERS

    def is_game_over(self) -> bool:
        """True when either side has borne off all its checkers."""
        return CHECKERS in self.off

    def win_kind(self) -> WinKind:
        """How the side that bore off everything won (single/gammon/..., oin/mars/koks)."""
        if self.off[0] == CHECKERS:
            return self.variant.win_kind(self.points, self.bar[1], self.off[1])
        if self.off[1] == CHECKERS:
            turned = self.turned()
            return self.variant.win_kind(turned.points, turned.bar[1], turned.off[1])
        raise InvalidPositionError("the game is not over: nobody has borne off all checkers")

    # ----- legal plays

    def legal_plays(self, dice: Sequence[int]) -> list[Play]:
        """Every legal play of ``dice``, one per distinct resulting position.

        An empty list means the roll cannot be played at all (a pass).
        """
        rolled = check_dice(dice)
        return [
            Play(c.steps, Position._trusted(self.variant, c.board, self.off[1]))
            for c in self._search(rolled, every_sequence=False)
            if c.steps
        ]

    def legal_sequences(self, dice: Sequence[int]) -> list[tuple[Step, ...]]:
        """Every legal order of steps (several may reach one position)."""
        return [c.steps for c in self._search(check_dice(dice), every_sequence=True) if c.steps]

    def next_steps(self, dice: Sequence[int], made: Iterable[Step] = ()) -> list[Step]:
        """The steps that may follow ``made`` in a legal play of ``dice``.

        This is what a client highlights: the destinations of each checker
        given the steps already made this turn. Empty when the turn is complete.
        Raises :class:`IllegalStepError` if ``made`` does not begin a legal play.
        """
        prefix = tuple(made)
        depth = len(prefix)
        following: dict[Step, None] = {}
        matched = False
        for sequence in self.legal_sequences(dice):
            if sequence[:depth] == prefix:
                matched = True
                if len(sequence) > depth:
                    following[sequence[depth]] = None
        if not matched and prefix:
            raise IllegalStepError(f"the steps {_describe(prefix)} do not begin a legal play of {list(dice)}")
        return list(following)

    def destinations(self, dice: Sequence[int], source: int, made: Iterable[Step] = ()) -> list[Step]:
        """The legal next steps of the checker on ``source`` (25 = bar), largest die first."""
        steps = [s for s in self.next_steps(dice, made) if s.source == source]
        return sorted(steps, key=lambda s: -s.die)

    def play(self, dice: Sequence[int], steps: Iterable[Step]) -> Position:
        """The position after ``steps``, which must be a whole legal play of ``dice``.

        A roll with no legal play is played with no steps (a pass).
        """
        wanted = tuple(steps)
        for sequence in self.legal_sequences(dice) or [()]:
            if sequence == wanted:
                return self.after(wanted)
        raise IllegalPlayError(f"{_describe(wanted) or 'pass'} is not a legal play of {list(dice)}")

    def after(self, steps: Iterable[Step]) -> Position:
        """The position after applying ``steps`` as given, without checking legality."""
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


def _describe(steps: tuple[Step, ...]) -> str:
    return " ".join(
        f"{'bar' if s.source == BAR else s.source}/{'off' if s.target == OFF else s.target}" for s in steps
    )
