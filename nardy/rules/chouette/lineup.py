"""Who sits where in a chouette: forming the table by rolls, and the rotation after each game (seed 000).

000: "Все игроки бросают по одному кубику, и игрок с самым большим значением
становится игроком «в коробке»... Игрок со вторым по величине значением
становится капитаном... Относительный порядок начального броска также
определяет, в каком порядке игроки команды занимают место рядом с капитаном."
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from nardy.rules.errors import IllegalActionError, InvalidDiceError

PlayerId = int
"""A chouette player, as the caller names them (the server uses user ids)."""

MIN_PLAYERS = 3
MAX_PLAYERS = 8


@dataclass(frozen=True, slots=True)
class Lineup:
    """The box and the team in order; ``team[0]`` is the captain."""

    box: PlayerId
    team: tuple[PlayerId, ...]

    @property
    def captain(self) -> PlayerId:
        """The team member who moves the team's checkers."""
        return self.team[0]

    @property
    def players(self) -> tuple[PlayerId, ...]:
        """Everyone at the table: the box, then the team in order."""
        return (self.box, *self.team)

    def rotated(self, team_won: bool) -> Lineup:
        """The lineup for the next game (000).

        Team lost: "капитаном становится второй игрок. Свергнутый капитан
        перемещается в конец команды... игрок в коробке остаётся в коробке."
        Team won: "капитан переходит в коробку, его сменяет второй игрок, а тот,
        кто был в коробке, занимает последнее место в команде."
        """
        captain, rest = self.team[0], self.team[1:]
        if team_won:
            return Lineup(captain, (*rest, self.box))
        return Lineup(self.box, (*rest, captain))

    def joined(self, player: PlayerId) -> Lineup:
        """A newcomer takes the last place on the team."""
        if player in self.players:
            raise IllegalActionError(f"player {player} already sits at this chouette")
        if len(self.players) >= MAX_PLAYERS:
            raise IllegalActionError(f"a chouette seats at most {MAX_PLAYERS} players")
        return replace(self, team=(*self.team, player))

    def without(self, player: PlayerId) -> Lineup | None:
        """The lineup after ``player`` leaves; a leaving box is replaced by the captain.

        ``None`` when nobody would be left on the team.
        """
        if player not in self.players:
            raise IllegalActionError(f"player {player} does not sit at this chouette")
        if player == self.box:
            return Lineup(self.team[0], self.team[1:]) if len(self.team) > 1 else None
        team = tuple(p for p in self.team if p != player)
        return Lineup(self.box, team) if team else None


@dataclass(frozen=True, slots=True)
class Formation:
    """The opening rolls that order the players, best first.

    ``groups`` lists the players from the highest roll down; a group of more
    than one is still tied and rolls again among itself ("ties reroll among
    the tied"), which keeps the order the earlier rolls already fixed.
    """

    groups: tuple[tuple[PlayerId, ...], ...]
    rolls: tuple[tuple[tuple[PlayerId, int], ...], ...] = ()
    """Every round of rolls so far, as (player, die) pairs: the public record of how the table formed."""

    @classmethod
    def of(cls, players: Iterable[PlayerId]) -> Formation:
        """Everyone rolls one die to start."""
        seated = tuple(players)
        if len(set(seated)) != len(seated):
            raise IllegalActionError("a player appears twice")
        if not MIN_PLAYERS <= len(seated) <= MAX_PLAYERS:
            raise IllegalActionError(f"a chouette is played by {MIN_PLAYERS} to {MAX_PLAYERS} players")
        return cls((seated,))

    @property
    def to_roll(self) -> tuple[PlayerId, ...]:
        """The players who roll next: every member of a tied group."""
        return tuple(p for group in self.groups if len(group) > 1 for p in group)

    @property
    def done(self) -> bool:
        """True once every player has a place of their own."""
        return not self.to_roll

    def rolled(self, dice: Mapping[PlayerId, int]) -> Formation:
        """Apply one round: ``dice`` gives one die to each player in :attr:`to_roll`, no more, no less."""
        if self.done:
            raise IllegalActionError("the table is already formed")
        if set(dice) != set(self.to_roll):
            raise IllegalActionError(f"players {sorted(self.to_roll)} roll now, one die each")
        for player, die in dice.items():
            if isinstance(die, bool) or not isinstance(die, int) or not 1 <= die <= 6:
                raise InvalidDiceError(f"player {player}'s die must be 1..6, got {die!r}")
        groups: list[tuple[PlayerId, ...]] = []
        for group in self.groups:
            if len(group) == 1:
                groups.append(group)
                continue
            for face in range(6, 0, -1):
                tied = tuple(p for p in group if dice[p] == face)
                if tied:
                    groups.append(tied)
        record = tuple((p, dice[p]) for p in self.to_roll)
        return Formation(tuple(groups), (*self.rolls, record))

    @property
    def lineup(self) -> Lineup:
        """The box (highest roll), the captain (second) and the team in the order of the rolls."""
        if not self.done:
            raise IllegalActionError("the table is not formed yet: tied players roll again")
        order = tuple(group[0] for group in self.groups)
        return Lineup(order[0], order[1:])
