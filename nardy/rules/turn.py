"""The turn in progress: the steps a player has made of a roll and not yet confirmed.

A :class:`Turn` is an immutable value, in the spirit of python-chess's
``push``/``pop``: :meth:`Turn.push` makes one checker step (the rules choose
its target and whether it hits) and gives the next turn value;
:meth:`Turn.pop` takes the last step back. When the steps made are a whole
legal play the turn :attr:`~Turn.is_complete`, and the play is confirmed as
one :meth:`~nardy.rules.game.Game.move`. Where moves are final (004:
«Ходы окончательны: сделанный ход нельзя отменить. После последнего
обязательного хода очередь автоматически переходит к сопернику») no step is
taken back, and the step that completes a play ends the turn by itself
(:attr:`~Turn.ends_itself`).

>>> from nardy.rules.game import Game
>>> turn = Turn(Game.new("backgammon").opening_roll((3, 1)))
>>> turn = turn.push(8, 3).push(6, 1)
>>> [(step.source, step.target) for step in turn.made], turn.is_complete
([(8, 5), (6, 5)], True)
>>> turn.pop().made
(Step(source=8, target=5, die=3, hit=False),)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from nardy.rules.errors import IllegalActionError, IllegalPlayError, IllegalStepError
from nardy.rules.game import Game, Phase
from nardy.rules.movegen import Step
from nardy.rules.position import Position

NOT_MOVING = "there is nothing to move now: roll first"
INCOMPLETE = "the play is not complete: every die that can be played must be played"
NOT_A_PLAY = "that is not a legal play of the dice"
FINAL = "moves are final at this table: a step cannot be taken back (004)"
NOTHING_TO_UNDO = "there is no step to undo"

T = TypeVar("T")


class Chooser(Protocol):
    """What picks the timeout play: a seeded ``random.Random`` passed in (the rules roll nothing themselves)."""

    def choice(self, seq: Sequence[T], /) -> T: ...


@dataclass(frozen=True, slots=True)
class Turn:
    """The player on turn's steps so far (``made``) in ``game``, which waits for their move.

    ``final``: moves are final (004), so no step is taken back and the step
    completing a play ends the turn.
    """

    game: Game
    final: bool = False
    made: tuple[Step, ...] = ()
    _next: list[Step] | None = field(default=None, init=False, repr=False, compare=False, hash=False)
    """:attr:`next_steps`, once asked (a view asks for them, whether the play is complete, and whether
    it may be confirmed): a memo, not state."""

    @property
    def next_steps(self) -> list[Step]:
        """The steps that may follow :attr:`made`: those that begin a legal play with it (000: every die
        that can be played must be played, so a step that would cost a die is not offered)."""
        if self._next is None:
            object.__setattr__(self, "_next", self.game.next_steps(self.made))
        assert self._next is not None
        return list(self._next)

    @property
    def is_complete(self) -> bool:
        """True when the steps made are a whole legal play: no step may follow them."""
        return bool(self.made) and not self.next_steps

    @property
    def can_confirm(self) -> bool:
        """True when the play may be confirmed now (it is complete)."""
        return self.is_complete

    @property
    def can_undo(self) -> bool:
        """True when a step was made and moves are not final."""
        return bool(self.made) and not self.final

    @property
    def ends_itself(self) -> bool:
        """True when moves are final and the play is complete: 004's «После последнего обязательного хода
        очередь автоматически переходит к сопернику», the last step ends the turn without a confirm."""
        return self.final and self.is_complete

    def position(self) -> Position:
        """The mover's position with the steps made applied."""
        return self.game.position.after(self.made) if self.made else self.game.position

    def board_for(self, player: int) -> Position:
        """The position with the steps made applied, seen from ``player``'s side."""
        shown = self.position()
        return shown if player == self.game.turn else shown.turned()

    def push(self, source: int, die: int) -> Turn:
        """The turn after the step from ``source`` by ``die``; its target and whether it hits are the rules'.

        Raises :class:`IllegalActionError` when the game waits for no move and
        :class:`IllegalStepError` when no legal play continues with that step.
        """
        self._expect_moving()
        for step in self.next_steps:
            if step.source == source and step.die == die:
                return Turn(self.game, self.final, (*self.made, step))
        raise IllegalStepError(f"no legal step from {source} with a {die} now")

    def pop(self) -> Turn:
        """The turn with its last step taken back; refused where moves are final (004) or nothing was made."""
        self._expect_moving()
        if self.final:
            raise IllegalActionError(FINAL)
        if not self.made:
            raise IllegalActionError(NOTHING_TO_UNDO)
        return Turn(self.game, self.final, self.made[:-1])

    def play(self) -> tuple[Step, ...]:
        """The play to confirm: the steps made, once they are a whole legal play; else IllegalPlayError."""
        self._expect_moving()
        if not self.is_complete:
            raise IllegalPlayError(INCOMPLETE)
        return self.made

    def timeout_play(self, pick: Chooser) -> tuple[Step, ...]:
        """The play made for a player whose time ran out (004: «Если время истекает, сервер
        автоматически играет разрешённый ход»): a legal play beginning with the steps made,
        uniform over the distinct positions it can lead to, in a fixed order so a seeded
        ``pick`` repeats."""
        self._expect_moving()
        dice = self.game.dice
        assert dice is not None
        position = self.game.position
        depth = len(self.made)
        ways: dict[Position, tuple[Step, ...]] = {}
        for sequence in position.legal_sequences(dice):
            if sequence[:depth] == self.made:
                ways.setdefault(position.after(sequence), sequence)
        return pick.choice(sorted(ways.values(), key=lambda s: [(x.source, x.target, x.die) for x in s]))

    def _expect_moving(self) -> None:
        if self.game.phase is not Phase.MOVING:
            raise IllegalActionError(NOT_MOVING)


def whole_play(game: Game, wanted: Iterable[tuple[int, int, int]]) -> tuple[Step, ...]:
    """The legal play of ``game``'s dice whose steps go ``(source, target, die)`` as ``wanted`` says
    (whether each hits is the rules'), or :class:`IllegalPlayError`.

    Found step by step among the turn's next steps, the same answers a player
    stepping would get, rather than by turning every legal sequence into steps.

    >>> game = Game.new("backgammon").opening_roll((3, 1))
    >>> [(s.source, s.target) for s in whole_play(game, [(8, 5, 3), (6, 5, 1)])]
    [(8, 5), (6, 5)]
    """
    turn = Turn(game)
    turn._expect_moving()
    for source, target, die in wanted:
        found = [step for step in turn.next_steps if (step.source, step.target, step.die) == (source, target, die)]
        if not found:
            raise IllegalPlayError(NOT_A_PLAY)
        turn = Turn(game, turn.final, (*turn.made, found[0]))
    if not turn.is_complete:
        raise IllegalPlayError(NOT_A_PLAY)
    return turn.made
