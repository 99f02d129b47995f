"""The short board's judge: our legal plays rated the way bgsage's own analyser rates them.

bgsage (:mod:`nardy.bots.sage`) rates the plays; :mod:`nardy.rules` says
which plays there are. The rating follows bgsage's ``BgBotAnalyzer``
step by step, so that a loss reported here is the loss bgsage's analysis
reports for the same backgammon position:

* 1-ply: the network on each position a play leaves, told the position
  before the play (bgsage's networks are chosen by the pair of game plans);
  in a game with the cube that rating is made cubeful by Janowski's formula
  with the cube, owner and match score of the mover.
* Deeper, without the cube: the plays within 0.08 of the 1-ply best (at
  most 5), and always the play made, are rated again at the full depth by
  bgsage's n-ply search. Then, as bgsage does, while one of the two leading
  plays still holds a shallower rating it is rated at the full depth too:
  the best play is always a full-depth one, and best and played are
  compared at one depth.
* Deeper, with the cube: every play is rated at 2-ply in bgsage's
  cube-aware tree, as bgsage's analyser rates them (its 1-ply cubeful
  ratings are too rough to filter on). At 3-ply those 2-ply ratings are
  then filtered as above and the survivors rated in the 3-ply tree (bgsage
  would rate every play at 3-ply, which takes seconds a move).

Cube decisions are bgsage's cube analysis (:meth:`nardy.bots.sage.Engine.cube`)
at the judge's depth. Luck uses bgsage's 1-ply rating of every play of all
21 rolls, the depth gnubg's luck analysis uses by default (its "0-ply" is
bgsage's 1-ply). Everything bgsage computes goes through the one adapter,
:mod:`nardy.bots.sage`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from nardy.bots.judge import CubeEquities, PlayVerdict
from nardy.bots.sage import FIRST_KEEP, FIRST_WINDOW, CubeContext, board_of, engine
from nardy.rules import DICE_ROLLS, Game, Play

class SageJudge:
    """The short board's :class:`~nardy.bots.judge.Judge`: bgsage at ``plies`` (1, 2 or 3)."""

    def __init__(self, plies: int) -> None:
        if plies not in (1, 2, 3):
            raise ValueError(f"bgsage analyses at 1, 2 or 3 plies, not {plies}")
        self.plies = plies
        self._engine = engine()

    def checker_play(self, game: Game, played: Play) -> PlayVerdict:
        """Best and played equities at this judge's depth (see the module docstring)."""
        plays = game.legal_plays()
        made = [play.position for play in plays].index(played.position)
        context = CubeContext.of(game, game.turn)
        before = board_of(game.position)
        boards = [board_of(play.position) for play in plays]
        equities = self._equities(before, boards, context, made)
        best = max(range(len(plays)), key=equities.__getitem__)
        return PlayVerdict(plays[best], equities[best], equities[made], len(plays))

    def _equities(self, before: list[int], boards: list[list[int]], context: CubeContext, made: int) -> list[float]:
        """Each play's equity, the best and the one made always at this judge's full depth."""
        if self.plies == 1 or len(boards) == 1:
            return self._engine.one_ply(before, boards, context)
        if not context.live:
            return self._deepen(before, boards, self._engine.one_ply(before, boards, context), context, made)
        equities = self._engine.deep(before, boards, context, plies=2)
        return equities if self.plies == 2 else self._deepen(before, boards, equities, context, made)

    def _deepen(
        self, before: list[int], boards: list[list[int]], equities: list[float], context: CubeContext, made: int,
    ) -> list[float]:
        """``equities`` with the filtered plays, the play made and the two leaders rated at full depth (as bgsage)."""
        order = sorted(range(len(boards)), key=lambda i: -equities[i])
        top = equities[order[0]]
        chosen = [i for i in order if top - equities[i] < FIRST_WINDOW][:FIRST_KEEP]
        if made not in chosen:
            chosen.append(made)
        deep = list(equities)
        done: set[int] = set()
        while chosen:
            rated = self._engine.deep(before, [boards[i] for i in chosen], context, plies=self.plies)
            for index, equity in zip(chosen, rated):
                deep[index] = equity
            done.update(chosen)
            leaders = sorted(range(len(boards)), key=lambda i: -deep[i])[:2]
            chosen = [i for i in leaders if i not in done][:1]
        return deep

    def cube(self, game: Game) -> CubeEquities:
        """bgsage's cube analysis for ``game.turn`` at this judge's depth, a beaver left out."""
        context = replace(CubeContext.of(game, game.turn), beaver=False)
        advice = self._engine.cube(board_of(game.position), context, plies=self.plies)
        return CubeEquities(advice.no_double, advice.double_take, advice.double_pass)

    def roll_equities(self, game: Game, player: int) -> dict[tuple[int, int], float]:
        """Per roll, ``player``'s best play's equity at bgsage's 1-ply (cubeful when the cube is live)."""
        position = game.board_for(player)
        boards: list[list[int]] = []
        spans: list[tuple[int, int]] = []
        for roll in DICE_ROLLS:
            start = len(boards)
            boards.extend(_board_of_row(row) for row in position.legal_rows(roll))
            if len(boards) == start:
                boards.append(board_of(position))
            spans.append((start, len(boards)))
        equities = self._engine.one_ply(board_of(position), boards, CubeContext.of(game, player))
        return {roll: max(equities[start:end]) for roll, (start, end) in zip(DICE_ROLLS, spans)}


def _board_of_row(row: Sequence[int]) -> list[int]:
    """:func:`nardy.bots.sage.board_of` of a position given as its row (points, bar, off)."""
    return [row[25], *row[:24], row[24]]

