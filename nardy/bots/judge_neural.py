"""The judge of the variants our networks play (long nardy, fevga, plakoto, hypergammon): our network and
expectimax (:mod:`nardy.bots.neural`, :mod:`nardy.bots.search`).

Equity is the network's cubeless equity for the mover, single 1, double 2 and
triple 3 (:func:`nardy.bots.evaluator.equity`; only hypergammon has a triple),
exact in long nardy's bear-off races (the database, as the bots rate them:
:func:`nardy.bots.race.network_evaluator`). A play is rated at ``plies`` rolls ahead (0: the network on the
position it leaves) and pruned on the way down as our bots prune
(:data:`nardy.bots.search.DEFAULT_FILTERS`), except that the play made is
always kept, so that the best play and the one made are compared at the
same depth. Luck uses the network at 0-ply. The networks are cubeless: in a
variant with the cube (hypergammon) the cube decisions are judged by another
judge, bgsage's (:mod:`nardy.bots.judge_sage`), as its bots' cube decisions
are bgsage's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from nardy.bots.evaluator import FloatArray, after_play_probabilities, after_play_row_probabilities, equity
from nardy.bots.judge import CubeEquities, Judge, PlayVerdict
from nardy.bots.race import network_evaluator
from nardy.bots.search import DEFAULT_FILTERS, after_values
from nardy.rules import DICE_ROLLS, Game, Play, Position
from nardy.rules.position import Row


class NeuralJudge:
    """The :class:`~nardy.bots.judge.Judge` of a network variant: its shipped network at ``plies`` (0 to 3), long
    nardy's bear-off races rated exactly by the database (as the bots rate them); ``cube``: the judge of the cube
    decisions, in a variant with the cube."""

    def __init__(self, variant: str, plies: int, *, cube: Judge | None = None) -> None:
        if not 0 <= plies <= len(DEFAULT_FILTERS):
            raise ValueError(f"our search looks 0 to {len(DEFAULT_FILTERS)} plies ahead, not {plies}")
        self.plies = plies
        self.evaluator = network_evaluator(variant)
        self.cube_judge = cube

    def checker_play(self, game: Game, played: Play) -> PlayVerdict:
        """Best and played equities at this judge's depth."""
        plays = game.legal_plays()
        made = [play.position for play in plays].index(played.position)
        values = self._values([play.position for play in plays], made)
        best = int(np.argmax(values))
        return PlayVerdict(plays[best], float(values[best]), float(values[made]), len(plays))

    def _values(self, positions: Sequence[Position], made: int) -> FloatArray:
        """Each candidate's equity at the full depth (-inf where pruned); the play made is never pruned."""
        values = equity(after_play_probabilities(self.evaluator, positions))
        alive = np.arange(len(positions))
        for depth, move_filter in enumerate(DEFAULT_FILTERS[: self.plies], start=1):
            ordered = alive[np.argsort(-values[alive], kind="stable")]
            top = values[ordered[0]]
            kept = [int(i) for i in ordered[: move_filter.keep] if values[i] >= top - move_filter.within]
            if made not in kept:
                kept.append(made)
            deeper = equity(after_values(self.evaluator, [positions[i] for i in kept], depth))
            values = np.full(len(positions), -np.inf)
            values[kept] = deeper
            alive = np.array(kept)
        return values

    def cube(self, game: Game) -> CubeEquities:
        """The cube judge's equities; a variant without one is played without the cube (never asked)."""
        if self.cube_judge is None:
            raise ValueError(f"{game.variant.name} is played without the doubling cube")
        return self.cube_judge.cube(game)

    def roll_equities(self, game: Game, player: int) -> dict[tuple[int, int], float]:
        """Per roll, ``player``'s best play's equity at 0-ply."""
        position = game.board_for(player)
        rows: list[Row] = []
        spans: list[tuple[int, int]] = []
        for roll in DICE_ROLLS:
            start = len(rows)
            rows.extend(position.legal_rows(roll))
            if len(rows) == start:
                rows.append(position.row())
            spans.append((start, len(rows)))
        equities = equity(after_play_row_probabilities(self.evaluator, position.variant, rows))
        return {roll: float(equities[start:end].max()) for roll, (start, end) in zip(DICE_ROLLS, spans)}
