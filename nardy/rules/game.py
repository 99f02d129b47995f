"""One game as a pure state machine: dice come in from outside, nothing is rolled here.

Each action returns a new :class:`Game`; a wrong action raises a
:class:`~nardy.rules.errors.RulesError` naming the problem and changes nothing.

>>> game = Game.new("backgammon").opening_roll((5, 3))
>>> game.turn, game.dice
(0, (5, 3))
>>> plays = game.legal_plays()
>>> game = game.move(0, plays[0].steps)
>>> game.turn, game.phase
(1, <Phase.ROLLING: 'rolling'>)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Literal

from nardy.rules.cube import MAX_CUBE, Cube, MatchContext
from nardy.rules.dice import check_dice
from nardy.rules.errors import CubeError, IllegalActionError, WrongTurnError
from nardy.rules.events import (
    Beavered,
    Doubled,
    Dropped,
    GameEvent,
    GameResult,
    Moved,
    OpeningRolled,
    Passed,
    ResignationDeclined,
    ResignationOffered,
    Resigned,
    Rolled,
    Tied,
    Took,
)
from nardy.rules.movegen import Step
from nardy.rules.position import Play, Position
from nardy.rules.variant import GameOptions, Variant, WinKind
from nardy.rules.variants import find_variant


CubeAction = Literal["double", "take", "drop", "beaver"]


class Phase(StrEnum):
    """Whose decision the game waits for, and of what kind."""

    OPENING = "opening"          # both players roll one die
    ROLLING = "rolling"          # ``turn`` may double (if allowed) or roll
    MOVING = "moving"            # ``turn`` plays ``dice``
    DOUBLED = "doubled"          # the other player takes, beavers or drops
    RESIGNATION = "resignation"  # the other player accepts or declines an offer
    FINISHED = "finished"


def _check_player(player: int) -> None:
    if player not in (0, 1):
        raise WrongTurnError(f"players are 0 and 1, got {player!r}")


@dataclass(frozen=True, slots=True)
class Game:
    """A game in progress. ``position`` is seen from ``turn``, the player whose turn it is."""

    variant: Variant
    options: GameOptions
    context: MatchContext
    position: Position
    phase: Phase
    turn: int = 0
    dice: tuple[int, int] | None = None
    cube: Cube = Cube()
    white: int = 0
    automatic_doubles: int = 0
    turns_played: int = 0
    pending_resignation: tuple[int, WinKind, Phase] | None = None
    """The resigning player, the result offered, and the phase to resume if declined."""
    result: GameResult | None = None
    history: tuple[GameEvent, ...] = field(default=())

    # ----- creation

    @classmethod
    def new(
        cls,
        variant: Variant | str,
        *,
        options: GameOptions | None = None,
        context: MatchContext | None = None,
        first_player: int | None = None,
    ) -> Game:
        """A new game waiting for its opening roll, or, with ``first_player``,
        for that player's first roll (long nardy: the previous winner starts, 004).

        A variant naming a rotation of games (tavli) begins with the first of them:
        a game is always played, and its positions held, by a single game's rules.
        """
        named = find_variant(variant) if isinstance(variant, str) else variant
        rules = named.game_variant(0)
        chosen = options if options is not None else rules.default_options()
        match = context if context is not None else MatchContext()
        rules.check_options(chosen, match.length)
        start = Position.start(rules)
        if first_player is None:
            return cls(rules, chosen, match, start, Phase.OPENING)
        _check_player(first_player)
        return cls(rules, chosen, match, start, Phase.ROLLING, turn=first_player, white=first_player)

    # ----- queries

    @property
    def opponent(self) -> int:
        """The player who is not ``turn``."""
        return 1 - self.turn

    def board_for(self, player: int) -> Position:
        """The position seen from ``player``'s side."""
        _check_player(player)
        return self.position if player == self.turn else self.position.turned()

    def legal_plays(self) -> list[Play]:
        """The plays open to the player on turn (empty unless the game is in :attr:`Phase.MOVING`)."""
        if self.phase is not Phase.MOVING or self.dice is None:
            return []
        return self.position.legal_plays(self.dice)

    def only_play(self) -> Play | None:
        """The turn's play when the rules leave exactly one (a forced play), else ``None``.

        Asked of every view of a turn, and most rolls leave many plays: the
        count comes from the quickest search, which makes no positions.
        """
        if self.phase is not Phase.MOVING or self.dice is None or len(self.position.legal_rows(self.dice)) != 1:
            return None
        return self.position.legal_plays(self.dice)[0]

    def next_steps(self, made: Iterable[Step] = ()) -> list[Step]:
        """The steps that may follow ``made`` this turn (for click-to-highlight and undo)."""
        if self.phase is not Phase.MOVING or self.dice is None:
            return []
        return self.position.next_steps(self.dice, made)

    def double_refusal(self, player: int) -> str | None:
        """Why ``player`` may not double now, or ``None`` when a double is allowed."""
        _check_player(player)
        if self.phase is not Phase.ROLLING:
            return "a double is offered only before rolling, at the start of one's turn"
        if player != self.turn:
            return "it is not your turn"
        if not self.options.cube:
            return f"this {self.variant.name} game is played without the doubling cube"
        return self.cube.refusal(
            player, context=self.context, dave=self.variant.dave_restrictions, first_turn=self.turns_played == 0
        )

    def can_double(self, player: int) -> bool:
        """True when ``player`` may offer a double now."""
        return self.double_refusal(player) is None

    @property
    def actor(self) -> int | None:
        """The player whose decision the game waits for: the player on turn while rolling or
        moving, the doubled player while a double awaits its answer, the resigning player's
        opponent while an offer awaits its answer; ``None`` at the opening roll (both roll,
        000) and once the game is over.

        >>> game = Game.new("backgammon", options=GameOptions(cube=True))
        >>> game.actor is None, game.opening_roll((5, 3)).actor
        (True, 0)
        """
        if self.phase in (Phase.ROLLING, Phase.MOVING):
            return self.turn
        if self.phase is Phase.DOUBLED:
            return self.opponent
        if self.phase is Phase.RESIGNATION and self.pending_resignation is not None:
            return 1 - self.pending_resignation[0]
        return None

    def answer_refusal(self, player: int) -> str | None:
        """Why ``player`` may not take or drop now, or ``None`` when a double awaits their answer (000)."""
        _check_player(player)
        if self.phase is not Phase.DOUBLED:
            return "no double has been offered"
        if player != self.opponent:
            return "the doubled player answers the double"
        return None

    def beaver_refusal(self, player: int) -> str | None:
        """Why ``player`` may not beaver now, or ``None`` when a beaver is allowed: beavers are off
        unless enabled, and a beaver that would take the cube past 64 is refused (docs/rules.md,
        *Beavers*; 000's cube stops at 64)."""
        refusal = self.answer_refusal(player)
        if refusal is not None:
            return refusal
        if not self.options.beavers:
            return "beavers are not allowed in this game"
        if self.cube.value * 4 > MAX_CUBE:
            return f"a beaver would take the cube past {MAX_CUBE}"
        return None

    def can_beaver(self, player: int) -> bool:
        """True when ``player`` may beaver (take and redouble at once) now."""
        return self.beaver_refusal(player) is None

    def cube_actions(self, player: int) -> tuple[CubeAction, ...]:
        """The cube actions open to ``player`` now, in the order ``double``, ``take``, ``drop``, ``beaver``.

        >>> game = Game.new("backgammon", options=GameOptions(cube=True, beavers=True)).opening_roll((5, 3))
        >>> game = game.move(0, game.legal_plays()[0].steps)
        >>> game.cube_actions(1), game.double(1).cube_actions(0)
        (('double',), ('take', 'drop', 'beaver'))
        """
        opened: list[CubeAction] = []
        if self.double_refusal(player) is None:
            opened.append("double")
        if self.answer_refusal(player) is None:
            opened.extend(("take", "drop"))
        if self.beaver_refusal(player) is None:
            opened.append("beaver")
        return tuple(opened)

    @property
    def last_pass(self) -> Passed | None:
        """The pass the latest roll made, when it had no legal play (003: «Такой ход обозначен как
        "pass" в записи игры»), else ``None``."""
        last = self.history[-1] if self.history else None
        return last if isinstance(last, Passed) else None

    @property
    def tied(self) -> bool:
        """Whether the last play tied the game (plakoto: both mothers pinned), which now waits for its opening
        roll again (docs/rules.md §9)."""
        return bool(self.history) and isinstance(self.history[-1], Tied)

    @property
    def ties(self) -> int:
        """How many times this game was tied and started again."""
        return sum(isinstance(event, Tied) for event in self.history)

    # ----- actions

    def opening_roll(self, dice: Sequence[int]) -> Game:
        """Both players roll one die (``dice[p]`` is player p's); ties are rerolled.

        Short variants: the higher die moves first with both numbers. Long
        nardy: the higher die plays white and then rolls both dice (004).
        In money play with automatic doubles, a tie doubles the centred cube (000).
        """
        if self.phase is not Phase.OPENING:
            raise IllegalActionError(f"the game is {self.phase.value}, not opening")
        rolled = check_dice(dice)
        if rolled[0] == rolled[1]:
            automatic = (
                self.options.cube
                and self.context.length == 0
                and self.automatic_doubles < self.options.automatic_doubles
            )
            cube = replace(self.cube, value=self.cube.value * 2) if automatic else self.cube
            return replace(
                self,
                cube=cube,
                automatic_doubles=self.automatic_doubles + automatic,
                history=(*self.history, OpeningRolled(rolled, automatic_double=automatic)),
            )
        first = 0 if rolled[0] > rolled[1] else 1
        history = (*self.history, OpeningRolled(rolled))
        if self.variant.previous_winner_starts:
            return replace(self, phase=Phase.ROLLING, turn=first, white=first, history=history)
        opening = (rolled[first], rolled[1 - first])
        started = replace(self, turn=first, white=first, history=history)
        return started._with_dice(opening)

    def roll(self, player: int, dice: Sequence[int]) -> Game:
        """``player`` rolls ``dice`` at the start of the turn; a roll with no legal play passes."""
        self._expect(Phase.ROLLING, player, self.turn)
        rolled = check_dice(dice)
        return replace(self, history=(*self.history, Rolled(player, rolled)))._with_dice(rolled)

    def move(self, player: int, steps: Iterable[Step]) -> Game:
        """``player`` plays ``steps``, which must be a whole legal play of the dice."""
        self._expect(Phase.MOVING, player, self.turn)
        assert self.dice is not None
        wanted = tuple(steps)
        after = self.position.play(self.dice, wanted)
        history = (*self.history, Moved(player, self.dice, wanted))
        if after.winner_is_mover():
            kind = after.win_kind()
            return self._won(after, history, GameResult(player, kind, self._points(kind), "bore-off"))
        ending = self.variant.early_end(after)
        if ending == "tie":
            # plakoto, both mothers pinned: a tie, which scores nothing; the game starts again (docs/rules.md §9)
            return replace(
                self, position=Position.start(self.variant), phase=Phase.OPENING, turn=0, dice=None,
                turns_played=0, history=(*history, Tied()),
            )
        if ending is not None:
            return self._won(after, history, GameResult(player, ending, self._points(ending), "mother"))
        return replace(self, position=after, history=history)._next_turn()

    def _won(self, after: Position, history: tuple[GameEvent, ...], result: GameResult) -> Game:
        """The game finished by the play that left ``after``, with ``result``."""
        return replace(
            self, position=after, phase=Phase.FINISHED, dice=None, turns_played=self.turns_played + 1,
            history=history, result=result,
        )

    def double(self, player: int) -> Game:
        """``player`` offers to double the stake before rolling."""
        _check_player(player)
        reason = self.double_refusal(player)
        if reason is not None:
            raise CubeError(reason)
        offered = self.cube.value * 2
        return replace(self, phase=Phase.DOUBLED, history=(*self.history, Doubled(player, offered)))

    def take(self, player: int) -> Game:
        """The doubled player accepts: the stake doubles and the taker owns the cube."""
        self._expect(Phase.DOUBLED, player, self.opponent)
        cube = self.cube.taken(player)
        return replace(self, cube=cube, phase=Phase.ROLLING, history=(*self.history, Took(player, cube.value)))

    def beaver(self, player: int) -> Game:
        """The doubled player takes and at once redoubles, keeping the cube (if beavers are on)."""
        self._expect(Phase.DOUBLED, player, self.opponent)
        refusal = self.beaver_refusal(player)
        if refusal is not None:
            raise CubeError(refusal)
        cube = self.cube.taken(player, factor=4)
        return replace(self, cube=cube, phase=Phase.ROLLING, history=(*self.history, Beavered(player, cube.value)))

    def drop(self, player: int) -> Game:
        """The doubled player passes and loses the stake before the double (000, 003)."""
        self._expect(Phase.DOUBLED, player, self.opponent)
        kind = self.variant.kinds[0]
        result = GameResult(self.turn, kind, self.cube.value, "dropped")
        return replace(self, phase=Phase.FINISHED, dice=None, result=result, history=(*self.history, Dropped(player)))

    def resign(self, player: int, kind: WinKind | None = None) -> Game:
        """``player`` resigns.

        Where the variant uses offers (backgammon, dave), ``kind`` (one of the
        variant's ``kinds``; without one, the variant's ``resignation_default``:
        a single in backgammon) is offered and the opponent accepts or declines.
        A resignation offering nothing ends the game at once, scored from the
        position as it stands (docs/rules.md §6): always in Georgian and long nardy,
        and in dave when no kind is named.
        """
        offered = self._offered_kind(player, kind)
        if offered is None:
            return self._resigned(player, self._kind_as_it_stands(player))
        return replace(
            self,
            pending_resignation=(player, offered, self.phase),
            history=(*self.history, ResignationOffered(player, offered)),
            phase=Phase.RESIGNATION,
        )

    def resignation_result(self, player: int, kind: WinKind | None = None) -> GameResult:
        """What ``player`` resigning now would cost: the result of :meth:`resign` (of the offer
        of ``kind``, once accepted, where the variant uses offers), so a player sees it before
        resigning. Raises as :meth:`resign` does.

        >>> Game.new("long-traditional").opening_roll((5, 2)).resignation_result(0)
        GameResult(winner=1, kind=<WinKind.MARS: 'mars'>, points=2, reason='resigned')
        """
        offered = self._offered_kind(player, kind)
        return self._resignation(player, offered if offered is not None else self._kind_as_it_stands(player))

    def resignation_choices(self, player: int) -> list[GameResult]:
        """What ``player`` may resign for now, each as :meth:`resignation_result` scores it: every
        kind the variant lets a player offer, or the one result the position gives."""
        if not self.variant.resignation_offers:
            return [self.resignation_result(player)]
        self._offered_kind(player, None)  # refuses as resign does; each of the variant's kinds is then offerable
        return [self._resignation(player, kind) for kind in dict.fromkeys(self.variant.kinds)]

    def accept_resignation(self, player: int) -> Game:
        """The opponent of the resigning player accepts the offered result."""
        resigner, kind = self._pending_offer(player)
        return self._resigned(resigner, kind)

    def decline_resignation(self, player: int) -> Game:
        """The opponent declines; play goes on where it stopped."""
        self._pending_offer(player)
        assert self.pending_resignation is not None
        return replace(
            self,
            phase=self.pending_resignation[2],
            pending_resignation=None,
            history=(*self.history, ResignationDeclined(player)),
        )

    # ----- internals

    def _expect(self, phase: Phase, player: int, actor: int) -> None:
        """Refuse unless the game is in ``phase`` and ``player`` is ``actor``, the one to act."""
        if self.phase is not phase:
            raise IllegalActionError(f"the game is {self.phase.value}, not {phase.value}")
        _check_player(player)
        if player != actor:
            raise WrongTurnError(f"player {player} cannot act now: it is player {actor}'s decision")

    def _with_dice(self, dice: tuple[int, int]) -> Game:
        # whether the roll can be played at all, from the sequences the position remembers: a server asks
        # it when deciding a roll and again when folding it, and then offers the roll's steps from them
        if self.position.can_play(dice):
            return replace(self, phase=Phase.MOVING, dice=dice)
        passed = replace(self, history=(*self.history, Passed(self.turn, dice)))
        return passed._next_turn()

    def _next_turn(self) -> Game:
        return replace(
            self,
            position=self.position.turned(),
            turn=self.opponent,
            phase=Phase.ROLLING,
            dice=None,
            turns_played=self.turns_played + 1,
        )

    def _points(self, kind: WinKind) -> int:
        jacoby = self.options.jacoby and self.context.length == 0 and self.cube.centred
        base = 1 if jacoby else self.variant.win_points(kind, self.options)
        return base * self.cube.value

    def _kind_as_it_stands(self, resigner: int) -> WinKind:
        winner_view = self.board_for(1 - resigner)
        return self.variant.win_kind(winner_view.points, winner_view.bar[1], winner_view.off[1])

    def _offered_kind(self, player: int, kind: WinKind | None) -> WinKind | None:
        """The kind ``player``'s resignation offers now, or None when it is scored from the position;
        raises when ``player`` may not resign so."""
        _check_player(player)
        if self.phase in (Phase.FINISHED, Phase.RESIGNATION):
            raise IllegalActionError(f"cannot resign while the game is {self.phase.value}")
        if kind is not None and not self.variant.resignation_offers:
            raise IllegalActionError(f"{self.variant.name} resignations are scored from the position")
        offered = kind if kind is not None else self.variant.resignation_default
        if offered is not None and offered not in self.variant.kinds:
            raise IllegalActionError(f"a resignation offers one of {[k.value for k in self.variant.kinds]}")
        return offered

    def _resignation(self, resigner: int, kind: WinKind) -> GameResult:
        """The result of ``resigner`` giving up the game for ``kind``, at the cube as it stands."""
        return GameResult(1 - resigner, kind, self._points(kind), "resigned")

    def _resigned(self, resigner: int, kind: WinKind) -> Game:
        return replace(
            self,
            phase=Phase.FINISHED,
            dice=None,
            pending_resignation=None,
            result=self._resignation(resigner, kind),
            history=(*self.history, Resigned(resigner, kind)),
        )

    def _pending_offer(self, player: int) -> tuple[int, WinKind]:
        _check_player(player)
        if self.phase is not Phase.RESIGNATION or self.pending_resignation is None:
            raise IllegalActionError("no resignation has been offered")
        resigner, kind, _ = self.pending_resignation
        if player == resigner:
            raise WrongTurnError("the resigning player's opponent answers the offer")
        return resigner, kind
