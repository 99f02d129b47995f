"""What a game receives, and the one fold of it into a match: scalachess's ``Replay`` for nardy.

Every input a match can be given is a typed value here: the opening roll,
a roll, the pass the rules find in a roll, a checker step and its undo, a
whole move, the cube's double, take, beaver and drop, a resignation and its
answer, a timeout and a forfeit. :meth:`Replay.apply` gives each to the
rules (:class:`~nardy.rules.match.Match`, :class:`~nardy.rules.game.Game`,
:class:`~nardy.rules.turn.Turn`), which refuse an illegal one with a
:class:`~nardy.rules.errors.RulesError`; folding a game's inputs in order is
the only way from a log, a record or a match file to the game it describes.
The server's log, records, transcripts, replays and the analysis all fold
through it.

>>> from nardy.rules.match import Match
>>> play = Replay.new(Match.new("backgammon", length=1))
>>> play = play.apply(OpeningRoll((3, 1))).apply(TakeStep(0, Step(8, 5, 3)))
>>> [(step.source, step.target) for step in play.turn.made]
[(8, 5)]
>>> play = play.apply(UndoStep(0)).apply(Move(0, (Step(8, 5, 3), Step(6, 5, 1))))
>>> play.game.turn, play.turn.made
(1, ())
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from nardy.rules.errors import IllegalActionError, WrongTurnError
from nardy.rules.events import Passed
from nardy.rules.game import Game
from nardy.rules.match import Match
from nardy.rules.movegen import Step
from nardy.rules.turn import Turn
from nardy.rules.variant import WinKind


@dataclass(frozen=True, slots=True)
class OpeningRoll:
    """Each player rolls one die: ``dice[p]`` is player p's."""

    dice: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Roll:
    """``player`` rolls ``dice`` at the start of their turn."""

    player: int
    dice: tuple[int, int]


@dataclass(frozen=True, slots=True)
class Pass:
    """``player``'s roll of ``dice`` has no legal play (003: «Такой ход обозначен как "pass" в записи игры»).

    The rules pass such a roll as they take it; this input only records the
    pass, and the fold checks that the rules did pass it.
    """

    player: int
    dice: tuple[int, int]


@dataclass(frozen=True, slots=True)
class TakeStep:
    """``player`` moves one checker from ``step.source`` by ``step.die``: a step of the turn in progress."""

    player: int
    step: Step


@dataclass(frozen=True, slots=True)
class UndoStep:
    """``player`` takes back the last step of the turn in progress."""

    player: int


@dataclass(frozen=True, slots=True)
class Move:
    """``player`` plays ``steps``, a whole legal play of the dice (the turn in progress confirmed, or sent whole)."""

    player: int
    steps: tuple[Step, ...]


@dataclass(frozen=True, slots=True)
class Double:
    """``player`` offers to double before rolling."""

    player: int


@dataclass(frozen=True, slots=True)
class Take:
    """``player`` accepts the double offered to them."""

    player: int


@dataclass(frozen=True, slots=True)
class Beaver:
    """``player`` accepts the double and redoubles at once, keeping the cube."""

    player: int


@dataclass(frozen=True, slots=True)
class Drop:
    """``player`` refuses the double offered to them, and loses the game at the cube's value before it."""

    player: int


@dataclass(frozen=True, slots=True)
class Resign:
    """``player`` resigns for ``kind`` (``None``: as the position stands, or single where offers are made)."""

    player: int
    kind: WinKind | None = None


@dataclass(frozen=True, slots=True)
class AcceptResignation:
    """``player`` accepts the resignation offered to them."""

    player: int


@dataclass(frozen=True, slots=True)
class DeclineResignation:
    """``player`` declines the resignation offered to them."""

    player: int


@dataclass(frozen=True, slots=True)
class Timeout:
    """``player``'s time for a decision ran out: the match counts it (004); what is played for them follows."""

    player: int


@dataclass(frozen=True, slots=True)
class Forfeit:
    """``player`` abandons the match: the opponent wins it."""

    player: int


GameInput = (
    OpeningRoll | Roll | Pass | TakeStep | UndoStep | Move | Double | Take | Beaver | Drop | Resign
    | AcceptResignation | DeclineResignation | Timeout | Forfeit
)
"""Everything a match of two players can be given."""


@dataclass(frozen=True, slots=True)
class Replay:
    """A match being played: the match, and the turn in progress of its game.

    ``finished`` is the game the last input finished, as it ended (the match
    has begun the next one by then), or ``None`` when that input ended no game.
    """

    match: Match
    turn: Turn
    finished: Game | None = None

    @classmethod
    def new(cls, match: Match, *, final: bool = False) -> Replay:
        """The match before any input; ``final``: moves are final (004), so no step is taken back."""
        return cls(match, Turn(match.game, final=final))

    @property
    def game(self) -> Game:
        """The game in play (the finished last one, once the match is over)."""
        return self.match.game

    @property
    def left(self) -> Game:
        """The game as the last input left it: the one it finished, else the game in play."""
        return self.finished if self.finished is not None else self.match.game

    def apply(self, given: GameInput) -> Replay:
        """The replay after ``given``; a :class:`~nardy.rules.errors.RulesError` when the rules refuse it."""
        match, game = self.match, self.match.game
        if isinstance(given, (TakeStep, UndoStep)):
            if given.player != game.turn:
                raise WrongTurnError(f"it is player {game.turn}'s turn, not {given.player}'s")
            return replace(self, turn=turn_after(self.turn, given), finished=None)
        if isinstance(given, Pass):
            if game.last_pass != Passed(given.player, given.dice):
                raise IllegalActionError(f"the rules passed no roll of {given.dice} by player {given.player} here")
            return replace(self, finished=None)
        if isinstance(given, Timeout):
            return replace(self, match=match.timeout(given.player), finished=None)
        if isinstance(given, Forfeit):
            return self._next(match.forfeit(given.player), None)
        after = _game_after(game, given)
        updated = match.update(after)
        if after.result is not None:
            return self._next(updated, after)
        if isinstance(given, (OpeningRoll, Roll, Move)):
            return self._next(updated, None)
        return replace(self, match=updated, turn=replace(self.turn, game=after), finished=None)

    def _next(self, match: Match, finished: Game | None) -> Replay:
        """The replay with a fresh turn of ``match``'s game (no step made yet)."""
        return Replay(match, Turn(match.game, final=self.turn.final), finished)


def turn_after(turn: Turn, given: TakeStep | UndoStep) -> Turn:
    """The turn in progress after a step or an undo (the rules' :meth:`Turn.push` and :meth:`Turn.pop`).

    Whose step it is, is the caller's to check: a two-player match's seat
    (:meth:`Replay.apply`), or a chouette's box or acting captain.
    """
    if isinstance(given, TakeStep):
        return turn.push(given.step.source, given.step.die)
    return turn.pop()


def _game_after(game: Game, given: GameInput) -> Game:
    """The game after one of its own inputs (everything but steps, passes, timeouts and forfeits)."""
    if isinstance(given, OpeningRoll):
        return game.opening_roll(given.dice)
    if isinstance(given, Roll):
        return game.roll(given.player, given.dice)
    if isinstance(given, Move):
        return game.move(given.player, given.steps)
    if isinstance(given, Double):
        return game.double(given.player)
    if isinstance(given, Take):
        return game.take(given.player)
    if isinstance(given, Beaver):
        return game.beaver(given.player)
    if isinstance(given, Drop):
        return game.drop(given.player)
    if isinstance(given, Resign):
        return game.resign(given.player, given.kind)
    if isinstance(given, AcceptResignation):
        return game.accept_resignation(given.player)
    assert isinstance(given, DeclineResignation), given
    return game.decline_resignation(given.player)

