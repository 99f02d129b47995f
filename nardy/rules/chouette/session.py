"""A chouette session: forming the table, game after game with rotation, and the running score.

Players join and leave between games (000 leaves this to the table; the
usual practice): a newcomer takes the last place on the team; a leaving box
is replaced by the captain. A join or leave asked for during a game takes
effect when that game ends. The session pauses while fewer than three
players sit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from nardy.rules.chouette.game import ChouetteGame, ChouetteGameResult, chouette_refusal
from nardy.rules.chouette.lineup import MAX_PLAYERS, MIN_PLAYERS, Formation, Lineup, PlayerId
from nardy.rules.errors import IllegalActionError
from nardy.rules.variant import GameOptions, Variant
from nardy.rules.variants import find_variant
from nardy.rules.variants.backgammon import BACKGAMMON


@dataclass(frozen=True, slots=True)
class Chouette:
    """Everything about a chouette session that follows from its actions."""

    options: GameOptions
    variant: Variant = BACKGAMMON
    """The rule set every game of the session is played by (:func:`~nardy.rules.chouette.game.chouette_refusal`)."""
    seated: tuple[PlayerId, ...] = ()
    """Players at the table before it is formed, in the order they sat down."""
    formation: Formation | None = None
    lineup: Lineup | None = None
    game: ChouetteGame | None = None
    joining: tuple[PlayerId, ...] = ()
    leaving: tuple[PlayerId, ...] = ()
    scores: tuple[tuple[PlayerId, int], ...] = ()
    """The running score of everyone who has played, in the order they first sat down."""
    results: tuple[ChouetteGameResult, ...] = ()

    @classmethod
    def new(cls, options: GameOptions | None = None, variant: Variant | str = BACKGAMMON) -> Chouette:
        """An empty table of ``variant`` (backgammon by default; a name or the rule set), ``options`` as for its
        money game (cube, Jacoby, backgammon value); IllegalActionError for a variant a chouette is not played in."""
        rules = find_variant(variant) if isinstance(variant, str) else variant
        refusal = chouette_refusal(rules)
        if refusal is not None:
            raise IllegalActionError(refusal)
        chosen = options if options is not None else GameOptions(cube=True)
        rules.check_options(chosen, 0)
        if chosen.automatic_doubles or chosen.beavers:
            raise IllegalActionError("a chouette is played without automatic doubles and beavers")
        return cls(chosen, rules)

    # ----- queries

    @property
    def players(self) -> tuple[PlayerId, ...]:
        """Everyone sitting at the table now (the box first once formed), newcomers waiting last."""
        base = self.lineup.players if self.lineup is not None else self.seated
        return (*base, *self.joining)

    @property
    def formed(self) -> bool:
        """True once the opening rolls have ordered the table."""
        return self.lineup is not None

    def score_of(self, player: PlayerId) -> int:
        """``player``'s running score in this session (0 before their first game)."""
        return dict(self.scores).get(player, 0)

    # ----- seating

    def sit(self, player: PlayerId) -> Chouette:
        """``player`` sits down: before forming, to roll for a place; later, at the end of the team."""
        if player in self.leaving:
            return replace(self, leaving=tuple(p for p in self.leaving if p != player))
        if player in self.players:
            raise IllegalActionError(f"player {player} already sits at this chouette")
        if len(self.players) >= MAX_PLAYERS:
            raise IllegalActionError(f"a chouette seats at most {MAX_PLAYERS} players")
        if self.formation is not None and self.lineup is None:
            raise IllegalActionError("the table is rolling for places: join when it is formed")
        if self.lineup is None:
            return replace(self, seated=(*self.seated, player), scores=self._scored(player))
        if self.game is not None:
            return replace(self, joining=(*self.joining, player), scores=self._scored(player))
        return replace(self, lineup=self.lineup.joined(player), scores=self._scored(player))._next_game()

    def stand(self, player: PlayerId) -> Chouette:
        """``player`` leaves; during a game they leave when it ends (and still play it out)."""
        if player in self.joining:
            return replace(self, joining=tuple(p for p in self.joining if p != player))
        if player not in self.players:
            raise IllegalActionError(f"player {player} does not sit at this chouette")
        if self.formation is not None and self.lineup is None:
            raise IllegalActionError("the table is rolling for places: leave when it is formed")
        if self.lineup is None:
            return replace(self, seated=tuple(p for p in self.seated if p != player))
        if self.game is not None:
            if player in self.leaving:
                raise IllegalActionError("you already leave when this game ends")
            return replace(self, leaving=(*self.leaving, player))
        return self._without(player)

    # ----- forming the table

    def begin(self) -> Chouette:
        """Start rolling for places once three or more players sit."""
        if self.formation is not None:
            raise IllegalActionError("the table has already started")
        if len(self.seated) < MIN_PLAYERS:
            raise IllegalActionError(f"a chouette needs at least {MIN_PLAYERS} players")
        return replace(self, formation=Formation.of(self.seated))

    def formation_rolled(self, dice: Mapping[PlayerId, int]) -> Chouette:
        """One round of single-die rolls; when every place is decided the first game begins."""
        if self.formation is None or self.lineup is not None:
            raise IllegalActionError("nobody rolls for places now")
        formation = self.formation.rolled(dice)
        if not formation.done:
            return replace(self, formation=formation)
        return replace(self, formation=formation, lineup=formation.lineup, seated=())._next_game()

    # ----- games

    def update(self, game: ChouetteGame) -> Chouette:
        """Take the game after an action; a finished game is settled, the table rotates and the next begins."""
        if self.game is None:
            raise IllegalActionError("no game is in play")
        result = game.result()
        if result is None:
            return replace(self, game=game)
        assert self.lineup is not None
        scores = dict(self.scores)
        for player, points in result.points:
            scores[player] = scores.get(player, 0) + points
        after = replace(
            self,
            game=None,
            lineup=self.lineup.rotated(result.team_won),
            results=(*self.results, result),
            scores=tuple(scores.items()),
        )
        for player in self.leaving:
            after = after._without(player)
        if after.lineup is None:
            after = replace(after, seated=(*after.seated, *self.joining))
        else:
            lineup = after.lineup
            for player in self.joining:
                lineup = lineup.joined(player)
            after = replace(after, lineup=lineup)
        after = replace(after, leaving=(), joining=())
        return after._next_game()

    # ----- internals

    def _scored(self, player: PlayerId) -> tuple[tuple[PlayerId, int], ...]:
        return self.scores if any(p == player for p, _ in self.scores) else (*self.scores, (player, 0))

    def _without(self, player: PlayerId) -> Chouette:
        if self.lineup is None:
            return replace(self, seated=tuple(p for p in self.seated if p != player))
        lineup = self.lineup.without(player)
        if lineup is None:
            remaining = tuple(p for p in self.lineup.players if p != player)
            return replace(self, lineup=None, formation=None, game=None, seated=remaining)
        return replace(self, lineup=lineup)

    def _next_game(self) -> Chouette:
        if self.lineup is None or len(self.lineup.players) < MIN_PLAYERS:
            return self
        return replace(self, game=ChouetteGame.new(self.lineup, self.options, self.variant))
