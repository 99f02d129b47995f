"""A match (or a money session) as a pure state machine around its games.

The match starts each game with the right context: the score, the Crawford
game (000: "the first game after a player reaches N-1 is played without the
cube"), the previous winner as the first player where the game's rules say so
(long nardy, 004; the games of tavli), and the rule set of each game: the
match's variant, or the one its rotation names for that game (tavli's
portes, plakoto, fevga, :meth:`Variant.game_variant`).

>>> match = Match.new("georgian", length=3)
>>> match.game.phase.value
'opening'
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from nardy.rules.cube import MatchContext
from nardy.rules.errors import IllegalActionError
from nardy.rules.events import GameResult
from nardy.rules.game import Game, Phase
from nardy.rules.variant import GameOptions, Variant
from nardy.rules.variants import find_variant

MAX_TIMEOUTS = 3
"""Three timeouts in one match lose it (004)."""

MatchEnd = Literal["score", "timeouts", "forfeit"]


@dataclass(frozen=True, slots=True)
class Match:
    """Score, finished games and the game in play. ``length`` 0 is money play (no end).

    ``variant`` is the match's rules (its length, options and rotation); ``game.variant``
    the rules of the game in play, the same but in a match of a rotation (tavli).
    """

    variant: Variant
    options: GameOptions
    length: int
    game: Game
    score: tuple[int, int] = (0, 0)
    results: tuple[GameResult, ...] = ()
    crawford_played: bool = False
    timeouts: tuple[int, int] = (0, 0)
    winner: int | None = None
    ended_by: MatchEnd | None = None

    @classmethod
    def new(cls, variant: Variant | str, *, length: int, options: GameOptions | None = None) -> Match:
        """A match to ``length`` points (0 for money play) with its first game ready."""
        rules = find_variant(variant) if isinstance(variant, str) else variant
        chosen = options if options is not None else rules.default_options()
        rules.check_options(chosen, length)
        first = Game.new(rules.game_variant(0), options=chosen, context=MatchContext(length=length))
        return cls(rules, chosen, length, first)

    @property
    def is_over(self) -> bool:
        """True once somebody has won the match."""
        return self.winner is not None

    def update(self, game: Game) -> Match:
        """Take the game after an action; a finished game is scored and the next one begins."""
        self._check_open()
        if game.result is None:
            return replace(self, game=game)
        return self._scored(game, game.result)

    def timeout(self, player: int) -> Match:
        """Count a timeout of ``player``; the third in the match loses it (004).

        The caller plays the timed-out turn itself (a random legal play, or a
        pass of a pending cube decision) through the game's own actions.
        """
        self._check_open()
        if player not in (0, 1):
            raise IllegalActionError(f"players are 0 and 1, got {player!r}")
        counts = list(self.timeouts)
        counts[player] += 1
        updated = replace(self, timeouts=(counts[0], counts[1]))
        if counts[player] >= MAX_TIMEOUTS:
            return replace(updated, winner=1 - player, ended_by="timeouts")
        return updated

    def forfeit(self, player: int) -> Match:
        """``player`` abandons the match (leaves the table): the opponent wins it."""
        self._check_open()
        if player not in (0, 1):
            raise IllegalActionError(f"players are 0 and 1, got {player!r}")
        return replace(self, winner=1 - player, ended_by="forfeit")

    def _check_open(self) -> None:
        if self.is_over:
            raise IllegalActionError("the match is over")

    def _scored(self, finished: Game, result: GameResult) -> Match:
        score = list(self.score)
        score[result.winner] += result.points
        new_score = (score[0], score[1])
        results = (*self.results, result)
        if self.length and max(new_score) >= self.length:
            winner = 0 if new_score[0] >= self.length else 1
            return replace(self, score=new_score, results=results, winner=winner, ended_by="score", game=finished)
        crawford = (  # the Crawford game is one without doubling: a match played without the cube has none
            self.options.cube
            and self.length > 0
            and not self.crawford_played
            and self.length - 1 in new_score
        )
        context = MatchContext(length=self.length, score=new_score, crawford=crawford)
        rules = self.variant.game_variant(len(results))
        first = result.winner if rules.previous_winner_starts else None
        next_game = Game.new(rules, options=self.options, context=context, first_player=first)
        return replace(
            self,
            score=new_score,
            results=results,
            game=next_game,
            crawford_played=self.crawford_played or crawford,
        )


__all__ = ["Match", "MAX_TIMEOUTS", "Phase"]
