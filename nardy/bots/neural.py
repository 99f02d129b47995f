"""Our trained bots, for long nardy, fevga, plakoto and hypergammon: a network as an :class:`~nardy.bots.evaluator.Evaluator`,
and a bot that searches with it.

The weights ship in ``nardy/bots/weights/`` (see :data:`WEIGHTS`) and are
loaded once, on first use. The rest of the short board is bgsage's (:mod:`nardy.bots.sage`).

>>> from nardy.rules import Position
>>> bot = NeuralBot(default_evaluator("long-bolshie"), seed=1)
>>> start = Position.start("long-bolshie")
>>> bot.choose_play(start, (6, 5)) in start.legal_plays((6, 5))
True
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Final

import numpy as np
import numpy.typing as npt

from nardy.bots.encoding import FAMILIES, Family, IntArray, network_family, raw_boards, raw_rows, turn_raw
from nardy.bots.evaluator import (
    LOSE_DOUBLE,
    LOSE_TRIPLE,
    WIN,
    WIN_DOUBLE,
    WIN_TRIPLE,
    Evaluator,
    invert,
    terminal_probabilities,
)
from nardy.bots.phased import AnyNetwork, load_network
from nardy.bots.search import DEFAULT_FILTERS, Deadline, MoveFilter, choose
from nardy.rules import Game, Play, Position, Variant, find_variant
from nardy.rules.position import Row

FloatArray = npt.NDArray[np.float64]

WEIGHTS: Final[dict[str, str]] = {
    "long-traditional": "long-features-traditional",
    "long-tournament": "long-features-tournament",
    "long-bolshie": "long-features-bolshie",
    "fevga": "fevga",
    "plakoto": "plakoto",
    "hypergammon": "hypergammon",
}
"""The shipped weights file (``nardy/bots/weights/<name>.npz``) each variant plays with. Each long-nardy
regulation has its own contact and race network on the hand-made inputs (``long-features``,
:mod:`nardy.bots.long_features`, :mod:`nardy.bots.phased`): a pair trained on the three regulations' games
interleaved, then on its own regulation's alone, which gained each of them more than further training on
all three (docs/strength.md); ``long.npz``, the 202-input network the pairs were warm-started from, stays as
the start of fevga's training and of new runs. Fevga's network is that one
trained on in fevga's own games (the same board, inputs and width); plakoto's has its own family
(pins and mothers, :data:`nardy.bots.encoding.PLAKOTO`), and so has hypergammon's (three checkers a side, the
bar, :data:`nardy.bots.encoding.HYPERGAMMON`). All are trained by :mod:`nardy.bots.training`."""


class NeuralEvaluator:
    """A network rating positions of one family, with exact answers for finished games.

    ``network`` is a :class:`~nardy.bots.network.Network` or a :class:`~nardy.bots.phased.PhasedNetwork`
    (contact and race); ``family`` its encoding, which may extend the variant's own (``long-features``).
    """

    def __init__(self, network: AnyNetwork, family: Family | str) -> None:
        self.network = network
        self.family = FAMILIES[family] if isinstance(family, str) else family
        if network.inputs != self.family.inputs:
            raise ValueError(
                f"the network takes {network.inputs} inputs; the {self.family.name} family encodes {self.family.inputs}"
            )

    def probabilities(self, positions: Sequence[Position]) -> FloatArray:
        """The outcome probabilities for each side to move, shape ``(n, 5)``."""
        if not positions:
            return np.zeros((0, 5))
        variant = positions[0].variant
        raw = raw_boards(positions)
        result = self._rate(raw, variant)
        self._exact(raw, variant, positions.__getitem__, result)
        return result

    def probabilities_after(self, positions: Sequence[Position]) -> FloatArray:
        """For ``play.position`` values: the probabilities of the player who just moved.

        The same as ``invert(probabilities([p.turned() for p in positions]))``,
        with the boards turned over in one numpy operation.
        """
        if not positions:
            return np.zeros((0, 5))
        return self._after(raw_boards(positions), positions[0].variant, positions.__getitem__)

    def probabilities_after_rows(self, variant: Variant, rows: Sequence[Row]) -> FloatArray:
        """:meth:`probabilities_after` of positions given as rows (:meth:`Position.legal_rows`)."""
        if not rows:
            return np.zeros((0, 5))
        return self.probabilities_after_raw(variant, raw_rows(rows), rows)

    def probabilities_after_raw(self, variant: Variant, raw: IntArray, rows: Sequence[Row]) -> FloatArray:
        """:meth:`probabilities_after_rows` for a caller that already holds the rows' raw boards (``raw_rows``)."""
        return self._after(raw, variant, lambda index: Position.from_row(variant, rows[index]))

    def _after(self, raw: IntArray, variant: Variant, position_at: Callable[[int], Position]) -> FloatArray:
        result = invert(self._rate(turn_raw(raw, self.family), variant))
        self._exact(raw, variant, position_at, result)
        return result

    def _exact(
        self, raw: IntArray, variant: Variant, position_at: Callable[[int], Position], result: FloatArray,
    ) -> None:
        """Overwrite ``result``'s finished games (raw boards seen by the side ``result`` rates for) with their
        exact outcome, as the rules judge them."""
        for index in np.flatnonzero(~self.family.unfinished(raw, variant.checkers)):
            exact = terminal_probabilities(position_at(int(index)))
            if exact is not None:
                result[index] = exact

    def _rate(self, raw: IntArray, variant: Variant) -> FloatArray:
        """Network outputs made consistent: triple <= double <= win; no triple where the variant has none."""
        if network_family(variant).name != self.family.base:
            raise ValueError(f"a {self.family.name}-family evaluator cannot rate {variant.name} positions")
        y = self.network.forward(self.family.encode(raw))
        y[:, WIN_DOUBLE] = np.minimum(y[:, WIN_DOUBLE], y[:, WIN])
        y[:, LOSE_DOUBLE] = np.minimum(y[:, LOSE_DOUBLE], 1.0 - y[:, WIN])
        kinds = variant.kinds
        if kinds[2] == kinds[1]:
            y[:, WIN_TRIPLE] = 0.0
            y[:, LOSE_TRIPLE] = 0.0
        else:
            y[:, WIN_TRIPLE] = np.minimum(y[:, WIN_TRIPLE], y[:, WIN_DOUBLE])
            y[:, LOSE_TRIPLE] = np.minimum(y[:, LOSE_TRIPLE], y[:, LOSE_DOUBLE])
        return y


@functools.cache
def default_network(name: str) -> AnyNetwork:
    """The shipped network ``nardy/bots/weights/<name>.npz`` (cached; do not modify it)."""
    resource = resources.files("nardy.bots").joinpath("weights", f"{name}.npz")
    with resource.open("rb") as source:
        return load_network(source)


def evaluator_for(network: AnyNetwork, variant: Variant) -> NeuralEvaluator:
    """``network`` rating ``variant``'s positions, encoded as the network was trained: its own family where
    that one extends the variant's (``long-features``), else the variant's."""
    family = FAMILIES.get(network.family)
    if family is None or family.base != network_family(variant).name:
        family = network_family(variant)
    return NeuralEvaluator(network, family)


@functools.cache
def default_evaluator(variant: str) -> NeuralEvaluator:
    """The evaluator a variant's bots use by default, from the shipped weights (cached)."""
    rules = find_variant(variant)
    return evaluator_for(default_network(WEIGHTS[rules.name]), rules)


@dataclass(frozen=True)
class Level:
    """How strong a bot plays: search depth, noise on the ratings, time per decision."""

    plies: int
    noise: float
    time_budget: float | None


LEVELS: Final[dict[str, Level]] = {
    "beginner": Level(plies=0, noise=0.35, time_budget=None),
    "intermediate": Level(plies=0, noise=0.12, time_budget=None),
    "advanced": Level(plies=1, noise=0.03, time_budget=1.0),
    "expert": Level(plies=2, noise=0.0, time_budget=1.0),
}
"""The trained levels, weakest first; gnubg-style noise added to each candidate's equity."""

FAMILY_LEVELS: Final[dict[str, dict[str, Level]]] = {
    "plakoto": {**LEVELS, "expert": Level(plies=1, noise=0.0, time_budget=None)},
}
"""A family's levels where they differ from :data:`LEVELS`: plakoto's expert looks one roll ahead without
noise, since a 2-ply search walks the pins in Python (:mod:`nardy.rules.pinning`), past the 300 ms a
decision may take (docs/strength.md)."""


def levels_of(variant: Variant) -> dict[str, Level]:
    """The levels our networks play ``variant`` at (by its family)."""
    return FAMILY_LEVELS.get(network_family(variant).name, LEVELS)


class NeuralBot:
    """A bot that rates candidate plays with an evaluator and an n-ply search.

    ``noise`` is the standard deviation of the Gaussian noise added to each
    candidate's equity (the weaker levels); ``time_budget`` (seconds) bounds
    a deep search, which then keeps the deepest depth it completed.
    """

    def __init__(
        self,
        evaluator: Evaluator,
        *,
        plies: int = 0,
        noise: float = 0.0,
        seed: int | None = None,
        time_budget: float | None = None,
        filters: Sequence[MoveFilter] = DEFAULT_FILTERS,
        name: str = "neural",
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if plies < 0 or plies > len(filters):
            raise ValueError(f"plies is 0 to {len(filters)}, got {plies}")
        self.name = name
        self.evaluator = evaluator
        self.plies = plies
        self.noise = noise
        self.time_budget = time_budget
        self.filters = tuple(filters)
        self.last_depth = 0
        """The depth the last decision was searched to (for tests and benchmarks)."""
        self._clock = clock
        self._rng = np.random.default_rng(seed)

    def choose_play(self, position: Position, dice: tuple[int, int], game: Game | None = None) -> Play | None:
        """The best legal play as the search sees it, or ``None`` when the roll cannot be played."""
        plays = position.legal_plays(dice)
        if len(plays) <= 1:
            self.last_depth = 0
            return plays[0] if plays else None
        noise = self._rng.normal(0.0, self.noise, len(plays)) if self.noise > 0 else None
        deadline = Deadline(self.time_budget, clock=self._clock) if self.time_budget is not None else None
        choice = choose(
            self.evaluator,
            [play.position for play in plays],
            plies=self.plies,
            noise=noise,
            filters=self.filters,
            deadline=deadline,
        )
        self.last_depth = choice.depth
        return plays[choice.index]

    def wants_to_double(self, game: Game, player: int) -> bool:
        """Never: our networks are cubeless (a variant of theirs with the cube has another engine answer its cube
        questions, :class:`nardy.bots.base.CubeByBot`)."""
        return False

    def accepts_double(self, game: Game, player: int) -> bool:
        """Always (never asked where another engine answers the cube questions)."""
        return True
