"""One chouette game: a game of backgammon (or of a variant played as it is, with the cube and for money) between
the box and a team, with one cube per team member.

The board is an ordinary :class:`~nardy.rules.game.Game` played without its
own cube: side 0 is the box, side 1 the team, whose checkers the captain
moves (000: "Только капитан двигает шашки команды"). The stakes live here,
one per member, because 000 lets members part ways on the box's double:

- "Решение предложить удвоение игроку в коробке должно быть единогласным в
  команде": the captain proposes, every member still in the game must agree;
  one refusal and no double is offered.
- "если игрок в коробке предлагает удвоение, каждый член команды может
  индивидуально решать, принимать или отказываться. Отказавшиеся уступают
  текущую ставку игроку в коробке и выбывают из текущей партии. Принявшие
  куб продолжают как команда с новой ставкой."

The box answers a team double member by member (it may take some cubes and
pass others, as in the usual practice of one cube per member). A member who
is out of the game has settled; if the captain is out, the first member
still in the game moves the checkers. The game ends when the board game ends
or nobody on the team is left in it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Literal

from nardy.rules.chouette.lineup import Lineup, PlayerId
from nardy.rules.cube import MAX_CUBE
from nardy.rules.errors import CubeError, IllegalActionError, WrongTurnError
from nardy.rules.game import Game, Phase
from nardy.rules.movegen import Step
from nardy.rules.position import Play
from nardy.rules.variant import GameOptions, Variant, WinKind
from nardy.rules.variants.backgammon import BACKGAMMON

BOX_SIDE = 0
TEAM_SIDE = 1


def chouette_refusal(variant: Variant) -> str | None:
    """Why ``variant`` cannot be played as a chouette, or ``None`` where it can.

    A chouette is a money game with one cube per team member (000: the box's
    double is taken or passed by "каждый член команды"), so its variant must
    allow both the doubling cube and money play: backgammon, hypergammon and
    nackgammon do; dave is played as a match only, and the variants without a
    cube (long nardy, Georgian nardy, tavla, the games of tavli) have nothing to
    stake per member.
    """
    if not variant.cube_allowed:
        return f"{variant.name} is played without the doubling cube: a chouette needs one cube per team member"
    if not variant.money_play:
        return f"{variant.name} is played as a match only: a chouette is money play"
    return None


class ChouettePhase(StrEnum):
    """What the chouette game waits for."""

    OPENING = "opening"            # the box and the captain roll one die each
    ROLLING = "rolling"            # the side on turn may double, or rolls
    MOVING = "moving"              # the box or the captain plays the dice
    TEAM_VOTE = "team_vote"        # the captain proposed a double: members agree or refuse
    TEAM_DOUBLED = "team_doubled"  # the box takes or passes each member's cube
    BOX_DOUBLED = "box_doubled"    # each member takes or passes the box's double
    FINISHED = "finished"


CubeOwner = Literal["box", "member"]


@dataclass(frozen=True, slots=True)
class Stake:
    """One member's game against the box: its cube, and its result once settled.

    ``result`` is the points the member won from the box (negative: paid to it).
    """

    member: PlayerId
    value: int = 1
    owner: CubeOwner | None = None
    result: int | None = None
    how: str | None = None
    """How the stake was settled: ``passed``, ``dropped-by-box``, ``resigned``, ``bore-off``, ``box-resigned``."""

    @property
    def in_play(self) -> bool:
        """True while the member is still in this game."""
        return self.result is None


@dataclass(frozen=True, slots=True)
class ChouetteGameResult:
    """How one chouette game ended: the board result (if it was played out) and every player's points."""

    box: PlayerId
    captain: PlayerId
    team_won: bool
    """The captain's own stake was won: the rotation follows it (see :meth:`ChouetteGame.team_won`)."""
    kind: WinKind | None
    points: tuple[tuple[PlayerId, int], ...]
    """Each player's points in this game, the box first; they sum to zero."""


@dataclass(frozen=True, slots=True)
class ChouetteGame:
    """A game in progress; every action returns a new game or raises a :class:`RulesError`."""

    lineup: Lineup
    options: GameOptions
    board: Game
    stakes: tuple[Stake, ...]
    cube_stage: ChouettePhase | None = None
    """TEAM_VOTE, TEAM_DOUBLED or BOX_DOUBLED while a double is being decided."""
    agreed: frozenset[PlayerId] = frozenset()
    """Members who agreed to the team double being proposed."""
    answers: tuple[tuple[PlayerId, bool], ...] = ()
    """Members' answers (True = take) to the box's double so far."""
    turns_played: int = 0

    @classmethod
    def new(cls, lineup: Lineup, options: GameOptions | None = None, variant: Variant = BACKGAMMON) -> ChouetteGame:
        """A game of ``variant`` waiting for the opening roll of the box and the captain."""
        refusal = chouette_refusal(variant)
        if refusal is not None:
            raise IllegalActionError(refusal)
        chosen = options if options is not None else GameOptions(cube=True)
        variant.check_options(chosen, 0)
        if chosen.automatic_doubles or chosen.beavers:
            raise IllegalActionError("a chouette is played without automatic doubles and beavers")
        board = Game.new(variant, options=replace(chosen, cube=False))
        return cls(lineup, chosen, board, tuple(Stake(m) for m in lineup.team))

    # ----- queries

    @property
    def phase(self) -> ChouettePhase:
        """What the game waits for now."""
        if self.board.phase is Phase.FINISHED or not self.in_play:
            return ChouettePhase.FINISHED
        if self.cube_stage is not None:
            return self.cube_stage
        return ChouettePhase(self.board.phase.value)

    @property
    def in_play(self) -> tuple[PlayerId, ...]:
        """Team members still in this game, in team order."""
        return tuple(s.member for s in self.stakes if s.in_play)

    @property
    def captain(self) -> PlayerId | None:
        """Who moves the team's checkers: the captain, or the first member still in if the captain is out."""
        playing = self.in_play
        return playing[0] if playing else None

    @property
    def turn_side(self) -> int:
        """BOX_SIDE or TEAM_SIDE: whose turn it is on the board."""
        return self.board.turn

    def stake_of(self, member: PlayerId) -> Stake:
        """``member``'s stake; a player who is not on the team has none."""
        for stake in self.stakes:
            if stake.member == member:
                return stake
        raise WrongTurnError(f"player {member} is not on the team in this game")

    def awaiting(self) -> tuple[PlayerId, ...]:
        """The players whose decision the game waits for (several at once on a double)."""
        phase = self.phase
        if phase is ChouettePhase.FINISHED:
            return ()
        if phase is ChouettePhase.TEAM_VOTE:
            return tuple(m for m in self.in_play if m not in self.agreed)
        if phase is ChouettePhase.TEAM_DOUBLED:
            return (self.lineup.box,)
        if phase is ChouettePhase.BOX_DOUBLED:
            answered = {m for m, _ in self.answers}
            return tuple(m for m in self.in_play if m not in answered)
        if phase is ChouettePhase.OPENING:
            return ()
        return (self.lineup.box,) if self.turn_side == BOX_SIDE else (self._acting_captain(),)

    def legal_plays(self) -> list[Play]:
        """The plays open to the side on turn (empty unless moving)."""
        return self.board.legal_plays() if self.cube_stage is None else []

    def next_steps(self, made: Iterable[Step] = ()) -> list[Step]:
        """The steps that may follow ``made`` this turn."""
        return self.board.next_steps(made) if self.cube_stage is None else []

    def double_refusal(self, player: PlayerId) -> str | None:
        """Why ``player`` may not double (the box) or propose a team double (the captain) now."""
        if self.phase is not ChouettePhase.ROLLING:
            return "a double is offered only before rolling, at the start of one's turn"
        if not self.options.cube:
            return "this chouette is played without the doubling cube"
        if self.turn_side == BOX_SIDE:
            if player != self.lineup.box:
                return "only the box may double on the box's turn"
            cubes = [self.stake_of(m) for m in self.in_play]
            if any(s.owner == "member" for s in cubes):
                return "the team members own their cubes: only they may redouble"
        else:
            if player != self._acting_captain():
                return "the captain proposes the team's double"
            cubes = [self.stake_of(m) for m in self.in_play]
            if any(s.owner == "box" for s in cubes):
                return "the box owns the cube: only the box may redouble"
        if any(s.value >= MAX_CUBE for s in cubes):
            return f"the cube is already at its maximum of {MAX_CUBE}"
        return None

    def team_won(self) -> bool:
        """Whether the team won, for the rotation: the original captain's own stake was won.

        000 moves the captain into the box when the team wins; a captain who
        passed the box's double has lost to the box, whatever the members who
        took did afterwards.
        """
        captain_stake = self.stakes[0]
        return captain_stake.result is not None and captain_stake.result > 0

    def result(self) -> ChouetteGameResult | None:
        """The game's settlement once it is finished, else ``None``."""
        if self.phase is not ChouettePhase.FINISHED:
            return None
        points = tuple((s.member, s.result or 0) for s in self.stakes)
        box_points = -sum(p for _, p in points)
        kind = self.board.result.kind if self.board.result is not None else None
        return ChouetteGameResult(
            self.lineup.box, self.lineup.captain, self.team_won(), kind, ((self.lineup.box, box_points), *points),
        )

    # ----- the board

    def opening_roll(self, dice: tuple[int, int]) -> ChouetteGame:
        """The box rolls ``dice[0]``, the captain ``dice[1]``; the higher starts (000), ties reroll."""
        return replace(self, board=self.board.opening_roll(dice))

    def roll(self, player: PlayerId, dice: tuple[int, int]) -> ChouetteGame:
        """The box or the (acting) captain rolls at the start of their side's turn."""
        self._expect_board_actor(player, ChouettePhase.ROLLING)
        return self._board_changed(self.board.roll(self.turn_side, dice))

    def move(self, player: PlayerId, steps: Iterable[Step]) -> ChouetteGame:
        """The box or the (acting) captain plays a whole legal play of the dice."""
        self._expect_board_actor(player, ChouettePhase.MOVING)
        return self._board_changed(self.board.move(self.turn_side, steps))

    # ----- the box's double

    def box_double(self, player: PlayerId) -> ChouetteGame:
        """The box doubles every member still in the game; each answers alone."""
        reason = self.double_refusal(player)
        if reason is not None:
            raise CubeError(reason)
        if self.turn_side != BOX_SIDE:
            raise CubeError("the team doubles through the captain's proposal")
        return replace(self, cube_stage=ChouettePhase.BOX_DOUBLED, answers=())

    def answer_box_double(self, member: PlayerId, take: bool) -> ChouetteGame:
        """``member`` takes (plays on at twice the stake, owning the cube) or passes
        (pays the stake before the double and is out of this game)."""
        if self.phase is not ChouettePhase.BOX_DOUBLED:
            raise IllegalActionError("the box has not offered a double")
        if member not in self.awaiting():
            raise WrongTurnError(f"player {member} has no answer to give to this double")
        answers = (*self.answers, (member, take))
        if len(answers) < len(self.in_play):
            return replace(self, answers=answers)
        taken = dict(answers)
        stakes = tuple(
            s if not s.in_play
            else replace(s, value=s.value * 2, owner="member") if taken[s.member]
            else replace(s, result=-s.value, how="passed")
            for s in self.stakes
        )
        return replace(self, stakes=stakes, cube_stage=None, answers=())

    # ----- the team's double

    def propose_double(self, player: PlayerId) -> ChouetteGame:
        """The captain proposes a team double; it is offered once every member still in agrees."""
        reason = self.double_refusal(player)
        if reason is not None:
            raise CubeError(reason)
        if self.turn_side != TEAM_SIDE:
            raise CubeError("the box doubles on its own turn")
        proposed = replace(self, cube_stage=ChouettePhase.TEAM_VOTE, agreed=frozenset({player}))
        return proposed._offered_if_unanimous()

    def vote(self, member: PlayerId, agree: bool) -> ChouetteGame:
        """A member agrees to the proposed double, or refuses it: one refusal and no double is offered."""
        if self.phase is not ChouettePhase.TEAM_VOTE:
            raise IllegalActionError("no team double has been proposed")
        if member not in self.awaiting():
            raise WrongTurnError(f"player {member} has no vote to give on this double")
        if not agree:
            return replace(self, cube_stage=None, agreed=frozenset())
        return replace(self, agreed=self.agreed | {member})._offered_if_unanimous()

    def answer_team_double(self, player: PlayerId, takes: Iterable[PlayerId]) -> ChouetteGame:
        """The box takes the cubes of ``takes`` (twice the stake, the box owns them) and passes the
        rest (it pays each of those members the stake before the double)."""
        if self.phase is not ChouettePhase.TEAM_DOUBLED:
            raise IllegalActionError("the team has not offered a double")
        if player != self.lineup.box:
            raise WrongTurnError("the box answers the team's double")
        taken = frozenset(takes)
        strangers = taken - set(self.in_play)
        if strangers:
            raise IllegalActionError(f"players {sorted(strangers)} are not in this game")
        stakes = tuple(
            s if not s.in_play
            else replace(s, value=s.value * 2, owner="box") if s.member in taken
            else replace(s, result=s.value, how="dropped-by-box")
            for s in self.stakes
        )
        return replace(self, stakes=stakes, cube_stage=None, agreed=frozenset())

    # ----- resigning

    def resign(self, player: PlayerId) -> ChouetteGame:
        """The box resigns to every member still in, or a member resigns its own stake.

        Scored from the position as it stands (a gammon if the resigning side
        has borne off nothing), as the resignation of the variants without
        offers; a resigning member is out of the game.
        """
        if self.phase is ChouettePhase.FINISHED:
            raise IllegalActionError("the game is over")
        if player == self.lineup.box:
            kind = self._kind_as_it_stands(winner=TEAM_SIDE)
            stakes = tuple(
                replace(s, result=self._points(kind, s), how="box-resigned") if s.in_play else s
                for s in self.stakes
            )
            return replace(self, stakes=stakes, cube_stage=None)
        stake = self.stake_of(player)
        if not stake.in_play:
            raise IllegalActionError("you are already out of this game")
        if self.phase is ChouettePhase.BOX_DOUBLED:
            raise IllegalActionError("answer the box's double first: take or pass")
        kind = self._kind_as_it_stands(winner=BOX_SIDE)
        resigned = replace(stake, result=-self._points(kind, stake), how="resigned")
        stakes = tuple(resigned if s.member == player else s for s in self.stakes)
        after = replace(self, stakes=stakes)
        if after.phase is ChouettePhase.TEAM_VOTE:
            after = after._offered_if_unanimous()
        return after

    # ----- internals

    def _acting_captain(self) -> PlayerId:
        captain = self.captain
        assert captain is not None
        return captain

    def _expect_board_actor(self, player: PlayerId, phase: ChouettePhase) -> None:
        if self.phase is not phase:
            raise IllegalActionError(f"the game is {self.phase.value}, not {phase.value}")
        actor = self.awaiting()[0]
        if player != actor:
            role = "the box" if self.turn_side == BOX_SIDE else "the captain"
            raise WrongTurnError(f"it is {role}'s turn: player {actor} acts now")

    def _board_changed(self, board: Game) -> ChouetteGame:
        changed = replace(self, board=board, turns_played=board.turns_played)
        if board.result is None:
            return changed
        winner, kind = board.result.winner, board.result.kind
        sign = 1 if winner == TEAM_SIDE else -1
        stakes = tuple(
            replace(s, result=sign * self._points(kind, s), how="bore-off") if s.in_play else s
            for s in self.stakes
        )
        return replace(changed, stakes=stakes)

    def _offered_if_unanimous(self) -> ChouetteGame:
        if set(self.in_play) <= self.agreed:
            return replace(self, cube_stage=ChouettePhase.TEAM_DOUBLED)
        return self

    def _points(self, kind: WinKind, stake: Stake) -> int:
        """A member's stake for a win of ``kind``: Jacoby counts gammons single while its cube is centred."""
        jacoby = self.options.jacoby and stake.owner is None
        base = 1 if jacoby else self.board.variant.win_points(kind, self.options)
        return base * stake.value

    def _kind_as_it_stands(self, winner: int) -> WinKind:
        view = self.board.board_for(winner)
        return self.board.variant.win_kind(view.points, view.bar[1], view.off[1])
