"""TD(λ) self-play training of the evaluation networks, with checkpoints and running benchmarks.

One network plays both sides with 0-ply greedy choices and learns, after
every move, from the difference between its rating of the position before
and after (Tesauro's TD-Gammon), with eligibility traces per output. Each
state is rated from its side to move; the update is made in the first
player's frame, where turning the board over is a fixed linear map of the
five outputs, so this is plain TD(λ). The final update uses the true result
(win kind → outputs).

Runs are reproducible: the weights come from ``numpy.random.default_rng(seed)``
and the dice from ``random.Random(seed)``; both generators' states are saved
in every checkpoint, so a resumed run plays the same games as one that never
stopped.

    nardy train --variant long-traditional --games 20000   # resumes from ~/.cache/nardy/train/long
    nardy train --variant fevga --init nardy/bots/weights/long.npz --alpha 0.03   # fevga from long nardy's
    nardy train --variant hypergammon --games 100000   # its own family: three checkers a side, the bar
    nardy train --variant long-traditional long-tournament long-bolshie --features \
        --init nardy/bots/weights/long.npz --alpha 0.01   # hand-made inputs, contact and race networks

With ``--features`` the positions are encoded with the hand-made inputs (``long-features``,
nardy.bots.long_features) and the run trains a contact and a race network (nardy.bots.phased), both starting
as the ``--init`` network with zero weights on the new inputs (a warm start: the same play until TD moves them).

Long nardy, fevga, plakoto and hypergammon are trained here (their families, nardy.bots.encoding); the rest of
the short board is bgsage's (nardy.bots.sage). A game ends as the rules end it: all borne off, or plakoto's
mother rule, and is scored by the variant's win kinds (hypergammon's gammon 2 and backgammon 3).
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from nardy.bots.bearoff import HOME_POINTS, Bearoff, default_bearoff
from nardy.bots.encoding import FAMILIES, Family, IntArray, network_family, raw_boards, raw_rows, turn_raw
from nardy.bots.engines import engine_for
from nardy.bots.evaluator import WIN, WIN_DOUBLE, WIN_TRIPLE, equity, invert, play_ending, terminal_probabilities
from nardy.bots.network import Network
from nardy.bots.phased import AnyNetwork, PhasedNetwork, load_network
from nardy.bots.neural import WEIGHTS, NeuralBot, NeuralEvaluator, default_network
from nardy.bots.race import race_rows
from nardy.bots.random_bot import RandomBot
from nardy.rules import Play, Position, find_variant

FloatArray = npt.NDArray[np.float64]

PROGRESS_FILE: Final = "progress.json"
PREVIOUS_FILE: Final = "previous.npz"
MAX_TURNS: Final = 2000
"""A self-play game still running after this many turns is abandoned (never seen; a safety net)."""

_THEIR_HOME: Final = slice(12, 18)
"""The mover's points 13..18: the opponent's home in long nardy."""
_TURN_OVER: Final = np.array([0, 3, 4, 1, 2])
_TURN_SIGN: Final = np.array([-1.0, 1.0, 1.0, 1.0, 1.0])


def default_checkpoint_dir(name: str) -> Path:
    """``$XDG_CACHE_HOME/nardy/train/<name>`` (``~/.cache`` by default)."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "nardy" / "train" / name


def weights_name(variant: str) -> str:
    """The weights file a run for ``variant`` makes: the one the variant plays with, unless that is a stand-in
    trained for other rules (a run must neither resume nor overwrite it: the variant's own name then), or a
    contact-and-race pair on hand-made inputs that a plain run cannot make (long nardy's: the family's name
    then, ``long``); for a variant without shipped weights, its family's name."""
    rules = find_variant(variant)
    if engine_for(rules.name).stand_in is not None:
        return rules.name
    shipped = WEIGHTS.get(rules.name)
    if shipped is None or isinstance(default_network(shipped), PhasedNetwork):
        return network_family(rules).name
    return shipped


def run_name(variant: str, family: str | None = None) -> str:
    """The weights file a run for ``variant`` (the first of its variants) makes: :func:`weights_name`, or for a
    run on ``family``'s hand-made inputs (``--features``) the pair the variant plays with where that is one on
    those inputs (``long-features-bolshie`` for "Большие нарды"), else the family's and the variant's names,
    never a file another variant plays with (fevga's run: ``long-features-fevga``)."""
    if family is None:
        return weights_name(variant)
    rules = find_variant(variant)
    shipped = WEIGHTS.get(rules.name)
    if shipped is not None and default_network(shipped).family == family:
        return shipped
    return f"{family}-{rules.name}"


def features_family(variant: str) -> str:
    """The encoding with hand-made inputs and contact and race networks that extends ``variant``'s family
    (``long-features`` for long nardy and fevga); ValueError where there is none."""
    base = network_family(find_variant(variant)).name
    extending = [family.name for family in FAMILIES.values() if family.extends == base and family.selector is not None]
    if not extending:
        raise ValueError(f"no contact-and-race encoding extends the {base} family")
    return extending[0]


def weights_path(name: str) -> Path:
    """The shipped weights file of ``name`` inside the installed package."""
    return Path(__file__).parent / "weights" / f"{name}.npz"


@dataclass(frozen=True)
class TrainConfig:
    """One training run. ``games`` is the total to reach, counting games of earlier runs resumed."""

    variant: str
    checkpoint_dir: Path
    hidden: int = 80
    alpha: float = 0.1
    lambda_: float = 0.7
    games: int = 10_000
    seed: int = 0
    checkpoint_every: int = 1_000
    keep_checkpoints: int = 2
    """The newest checkpoints kept (more to average them afterwards, ``nardy average``)."""
    benchmark_every: int = 5_000
    benchmark_games: int = 200
    mix: tuple[str, ...] = ()
    """Other variants of the same family whose games are interleaved at random (one net for all)."""
    init: Path | None = None
    """Weights to start from instead of random ones (fine-tuning), when no checkpoint exists yet."""
    family: str | None = None
    """An encoding that extends the variants' family (``long-features``): the run trains a contact and a race
    network on it (:class:`~nardy.bots.phased.PhasedNetwork`), both warm-started from ``init`` (or from fresh
    weights of the base family), the new inputs' weights starting at zero."""

    @property
    def variants(self) -> tuple[str, ...]:
        return (self.variant, *(v for v in self.mix if v != self.variant))

    @property
    def weights_name(self) -> str:
        return run_name(self.variant, self.family)


@dataclass
class Benchmark:
    """Results of one benchmark point: 0-ply greedy against the random bot and the previous network."""

    games: int
    vs_random: float
    ppg_random: float
    vs_previous: float | None
    ppg_previous: float | None

    def summary(self) -> str:
        text = f"vs random {self.vs_random:.0%} ({self.ppg_random:+.2f} ppg)"
        if self.vs_previous is not None and self.ppg_previous is not None:
            text += f", vs previous {self.vs_previous:.0%} ({self.ppg_previous:+.2f} ppg)"
        return text


@dataclass
class Progress:
    """What a checkpoint directory's ``progress.json`` records."""

    games: int = 0
    seconds: float = 0.0
    checkpoint: str | None = None
    rng_state: dict[str, Any] | None = None
    dice_state: list[Any] | None = None
    benchmarks: list[dict[str, Any]] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)


class _Traces:
    """The eligibility traces of one network, kept as ``scale * E``: decaying them is one multiplication of
    ``scale``, and the sparse inputs touch only their own rows of ``E``."""

    def __init__(self, network: Network) -> None:
        self.network = network
        inputs, hidden = network.inputs, network.hidden
        self.arrays = (np.zeros((5, inputs, hidden)), np.zeros((5, hidden)), np.zeros((5, hidden, 5)), np.zeros((5, 5)))
        self.scale = 1.0
        self.live = False
        """Whether the traces hold anything this game (a network not yet used in it is left alone)."""
        self.faded = 1.0
        """λ to the number of steps since this network last rated a state (the traces' decay since)."""

    def reset(self) -> None:
        for trace in self.arrays:
            trace.fill(0.0)
        self.scale = 1.0
        self.live = False
        self.faded = 1.0

    def decay(self, lambda_: float) -> None:
        if lambda_ == 0.0:
            self.reset()
            return
        self.scale *= lambda_
        self.faded *= lambda_
        if self.scale < 1e-6:
            for trace in self.arrays:
                trace *= self.scale
            self.scale = 1.0

    def add(self, x: FloatArray, hidden: FloatArray, f1: FloatArray, f2: FloatArray) -> None:
        """Add one row's output gradients (their factors, :meth:`Network.gradient_factors`)."""
        t1, tb1, t2, tb2 = self.arrays
        grow = 1.0 / self.scale
        active = np.flatnonzero(x)
        t1[:, active, :] += (x[active] * grow)[None, :, None] * f1[:, None, :]
        tb1 += f1 * grow
        t2 += (hidden * grow)[None, :, None] * f2[:, None, :]
        tb2 += f2 * grow
        self.live = True
        self.faded = 1.0

    def apply(self, step: FloatArray) -> None:
        """Move the network's weights by ``step`` (per output) times the traces."""
        t1, tb1, t2, tb2 = self.arrays
        step = step * self.scale
        w1, b1, w2, b2 = self.network.parameters()
        w1 += np.tensordot(step, t1, axes=1)
        b1 += step @ tb1
        w2 += np.tensordot(step, t2, axes=1)
        b2 += step @ tb2


RETIRED_TRACE: Final = 1e-4
"""A network's traces that have decayed below this since it last rated a state are dropped: a contact network
after the game has become a race (λ^26 at λ = 0.7), whose further updates would change nothing measurable."""


class TDLearner:
    """Plays self-play games with ``network``, updating it in place after every move.

    ``network`` is a :class:`Network` or a :class:`~nardy.bots.phased.PhasedNetwork` (contact and race):
    each state is rated by one of its :meth:`~Network.parts`, every part keeps its own traces, and every TD
    error moves each part by its traces (TD(λ) over the parts' weights together), so the contact network
    learns from the race its last positions led to. ``family`` encodes the positions (default: the
    variant's own family); ``races``, the bear-off database, rates the races it answers (long nardy).
    """

    def __init__(
        self, network: AnyNetwork, *, alpha: float, lambda_: float, family: Family | None = None,
        races: Bearoff | None = None,
    ) -> None:
        if not 0.0 <= lambda_ <= 1.0:
            raise ValueError(f"lambda is between 0 and 1, got {lambda_}")
        self.network = network
        self.alpha = alpha
        self.lambda_ = lambda_
        self.family = family
        self.races = races
        """Long nardy's bear-off database, or None: where given, a play into a race with every checker home is
        rated by it (as the levels rate it) and the TD target there is exact."""
        self._traces = tuple(_Traces(part) for part in network.parts())

    def update(self, x: FloatArray, hidden: FloatArray, y: FloatArray, target: FloatArray, *, turned: bool) -> None:
        """One TD(λ) step: move the rating of ``x`` (outputs ``y``) towards ``target`` (first player's frame).

        ``turned``: ``x`` is seen from the second player, so its gradients go
        through the same output swap as the outputs themselves.
        """
        current = self._traces[int(self.network.part_of(x[None, :])[0])]
        f1, f2 = current.network.gradient_factors(hidden, y)
        values = y
        if turned:
            f1 = f1[_TURN_OVER] * _TURN_SIGN[:, None]
            f2 = f2[_TURN_OVER] * _TURN_SIGN[:, None]
            values = invert(y)
        step = self.alpha * (target - values)
        for traces in self._traces:
            if traces is current or traces.live:
                traces.decay(self.lambda_)
        current.add(x, hidden, f1, f2)
        for traces in self._traces:
            if traces.live:
                traces.apply(step)
                if traces.faded < RETIRED_TRACE:
                    traces.reset()

    def reset(self) -> None:
        """Clear the traces (a new game)."""
        for traces in self._traces:
            traces.reset()

    def _exact_races(self, raw: IntArray) -> dict[int, FloatArray]:
        """With :attr:`races`: the raw boards (after the mover's play) that are bear-off races, each with the
        database's probabilities for the opponent, who rolls next."""
        if self.races is None:
            return {}
        rows = np.flatnonzero(race_rows(raw))
        if not len(rows):
            return {}
        exact = self.races.races(-raw[rows][:, _THEIR_HOME], raw[rows, :HOME_POINTS])
        return {int(row): exact[index] for index, row in enumerate(rows)}

    def play(self, variant: str, dice: random.Random) -> tuple[int, int] | None:
        """One self-play game with learning: ``(winner, level)``, winner 0 = the first to move; None if it was
        abandoned or ended in a tie (plakoto: both mothers pinned).

        A play that ends the game (all borne off, or the rules' early end: plakoto's mother rule) is rated
        exactly (:func:`~nardy.bots.evaluator.terminal_probabilities`): a winning one is taken, a tie weighed
        against the other plays; the game's last update moves towards that exact outcome.
        """
        network = self.network
        position = Position.start(variant)
        rules = position.variant
        exact_races: dict[int, FloatArray] = {}
        family = self.family or network_family(rules)
        x = family.encode(raw_boards([position]))[0]
        hidden, y = (a[0] for a in network.activations(x[None, :]))
        self.reset()
        for turn in range(MAX_TURNS):
            mover = turn % 2
            roll = (dice.randint(1, 6), dice.randint(1, 6))
            reached = position.legal_rows(roll)
            if not reached:
                position = position.turned()
                nx = family.encode(raw_boards([position]))[0]
                nh, ny = (a[0] for a in network.activations(nx[None, :]))
            else:
                raw = raw_rows(reached)
                inputs = family.encode(turn_raw(raw, family))
                hiddens, outputs = network.activations(inputs)
                values = invert(outputs)
                exact_races = self._exact_races(raw)
                for index, rated in exact_races.items():
                    values[index] = invert(rated)
                ended = {
                    int(i): exact
                    for i in np.flatnonzero(~family.unfinished(raw, rules.checkers))
                    if (exact := terminal_probabilities(Position.from_row(rules, reached[int(i)]))) is not None
                }
                for index, exact in ended.items():
                    values[index] = exact
                wins = [index for index, exact in ended.items() if exact[WIN] == 1.0]
                scores = equity(values)
                # a play that wins the game is always taken, the biggest win first
                best = max(wins, key=lambda i: scores[i]) if wins else int(np.argmax(scores))
                if best in ended:
                    result = ended[best]
                    self.update(x, hidden, y, result if mover == 0 else invert(result), turned=mover == 1)
                    if result[WIN] == 1.0:
                        return mover, int(result[WIN_DOUBLE] + result[WIN_TRIPLE])
                    return None
                position = Position.from_row(rules, reached[best]).turned()
                nx, nh, ny = inputs[best], hiddens[best], outputs[best]
            # the next state is seen by the other player: in the first player's frame its value is
            # the rating when the first player moves next, else inverted (the database's in a bear-off race)
            next_value = exact_races.get(best, ny) if reached else ny
            target = next_value if mover == 1 else invert(next_value)
            self.update(x, hidden, y, target, turned=mover == 1)
            x, hidden, y = nx, nh, ny
        return None


# ----- matches between bots


@dataclass(frozen=True)
class DuelResult:
    """``games`` cubeless games between two bots: the first bot's wins and points (net)."""

    games: int
    wins: int
    points: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def ppg(self) -> float:
        return self.points / self.games if self.games else 0.0


class _Chooser(Protocol):
    def choose_play(self, position: Position, dice: tuple[int, int]) -> Play | None: ...


def duel(first: _Chooser, second: _Chooser, variant: str, games: int, *, seed: int) -> DuelResult:
    """Play ``games`` cubeless games from the start, the bots taking turns to move first."""
    dice = random.Random(seed)
    rules = find_variant(variant)
    options = rules.default_options()
    wins = points = 0
    for game in range(games):
        bots = (first, second) if game % 2 == 0 else (second, first)
        position = Position.start(rules)
        mover = 0
        for _ in range(MAX_TURNS):
            roll = (dice.randint(1, 6), dice.randint(1, 6))
            play = bots[mover].choose_play(position, roll)
            ending = play_ending(play.position) if play is not None else None
            if ending == "tie":
                break
            if ending is not None:
                value = rules.win_points(ending, options)
                first_won = (mover == 0) == (game % 2 == 0)
                wins += first_won
                points += value if first_won else -value
                break
            position = (play.position if play is not None else position).turned()
            mover = 1 - mover
    return DuelResult(games, wins, points)


def benchmark(
    network: AnyNetwork, previous: AnyNetwork | None, variant: str, *, games: int, seed: int,
    family: Family | None = None,
) -> Benchmark:
    """0-ply greedy ``network`` against the random bot and against ``previous`` (both encoded by ``family``,
    by default the variant's)."""
    family = family or network_family(find_variant(variant))
    bot = NeuralBot(NeuralEvaluator(network, family))
    random_result = duel(bot, RandomBot(seed=seed), variant, games, seed=seed)
    vs_previous = ppg_previous = None
    if previous is not None:
        old = NeuralBot(NeuralEvaluator(previous, family))
        previous_result = duel(bot, old, variant, games, seed=seed + 1)
        vs_previous, ppg_previous = previous_result.win_rate, previous_result.ppg
    return Benchmark(0, random_result.win_rate, random_result.ppg, vs_previous, ppg_previous)


# ----- the training loop


Reporter = Callable[[str], None]


class Trainer:
    """Owns one checkpoint directory: loads or starts a run, trains, checkpoints, benchmarks."""

    def __init__(self, config: TrainConfig) -> None:
        self.config = config
        variants = [find_variant(v) for v in config.variants]
        families = {network_family(v).name for v in variants}
        if len(families) != 1:
            raise ValueError("one network trains on variants of one family only")
        self.family = network_family(variants[0])
        if config.family is not None:
            encoding = FAMILIES[config.family]
            if encoding.base != self.family.name or encoding.selector is None:
                raise ValueError(f"{config.family} is no contact-and-race encoding of the {self.family.name} family")
            self.family = encoding
        self.directory = config.checkpoint_dir
        self.progress = Progress()
        self.previous: AnyNetwork | None = None
        self.network: AnyNetwork
        progress_file = self.directory / PROGRESS_FILE
        if progress_file.exists():
            self._resume(progress_file)
        else:
            self._start()
        races = default_bearoff() if config.family is not None and self.family.base == "long" else None
        self.learner = TDLearner(
            self.network, alpha=config.alpha, lambda_=config.lambda_, family=self.family, races=races
        )

    def _start(self) -> None:
        config = self.config
        self.rng = np.random.default_rng(config.seed)
        self.dice = random.Random(config.seed)
        if config.family is not None:
            self.network = self._warm_started()
        elif config.init is not None:
            self.network = self._grown(Network.load(config.init))
            self.network.meta["init"] = f"{config.init.name} ({self.network.meta.get('games', 0)} games)"
            self.network.meta["games"] = 0
        else:
            seed = int(self.rng.integers(2**31))
            self.network = Network.initial(
                inputs=self.family.inputs, hidden=config.hidden, seed=seed, family=self.family.name
            )
        self.network.meta.update(seed=config.seed, variants=list(config.variants), name=config.weights_name)
        self.progress.config = _config_dict(config)

    def _warm_started(self) -> PhasedNetwork:
        """A contact and a race network on the extended inputs, both the ``init`` network (or fresh weights of
        the base family) on the inputs it knows; an ``init`` that already is such a pair goes on as it is."""
        config, family = self.config, self.family
        base = FAMILIES[family.base]
        if config.init is not None:
            loaded = load_network(config.init)
            if isinstance(loaded, PhasedNetwork):
                return self._continued(loaded)
            old = loaded
            if old.inputs != base.inputs:
                raise ValueError(f"{config.init} is not a {base.name}-family network")
        else:
            old = Network.initial(
                inputs=base.inputs, hidden=config.hidden, seed=int(self.rng.integers(2**31)), family=base.name
            )
        assert family.selector is not None
        network = PhasedNetwork.warm_start(old, inputs=family.inputs, selector=family.selector, family=family.name)
        if config.init is not None:
            network.meta["init"] = f"{config.init.name} ({old.meta.get('games', 0)} games)"
        return network

    def _continued(self, network: PhasedNetwork) -> PhasedNetwork:
        """An earlier run's contact and race networks (``init``), trained on from where that run ended: a new
        run at other steps or seeds, its games counted from zero and the file it came from in its metadata."""
        config, family = self.config, self.family
        if network.family != family.name or network.inputs != family.inputs or network.selector != family.selector:
            raise ValueError(f"{config.init} is not a {family.name} contact-and-race network")
        assert config.init is not None
        network.meta["init"] = f"{config.init.name} ({network.meta.get('games', 0)} games)"
        network.meta["games"] = 0
        return network

    def _grown(self, network: Network) -> Network:
        """``network`` with ``config.hidden`` hidden units where it has fewer."""
        config, family = self.config, self.family
        if network.inputs != family.inputs:
            raise ValueError(f"{config.init} is not a {family.name}-family network")
        if config.hidden <= network.hidden:
            return network
        return network.grown(hidden=config.hidden, seed=int(self.rng.integers(2**31)))

    def _resume(self, progress_file: Path) -> None:
        data = json.loads(progress_file.read_text())
        self.progress = Progress(**data)
        if self.progress.checkpoint is None or self.progress.rng_state is None or self.progress.dice_state is None:
            raise ValueError(f"{progress_file} names no checkpoint")
        self.network = load_network(self.directory / self.progress.checkpoint)
        self.rng = np.random.default_rng()
        self.rng.bit_generator.state = self.progress.rng_state
        self.dice = random.Random()
        version, state, gauss = self.progress.dice_state
        self.dice.setstate((version, tuple(state), gauss))
        previous = self.directory / PREVIOUS_FILE
        if previous.exists():
            self.previous = load_network(previous)

    @property
    def games(self) -> int:
        return self.progress.games

    def checkpoint(self) -> Path:
        """Save the network (float64) and the progress; keep the ``keep_checkpoints`` newest checkpoints."""
        self.directory.mkdir(parents=True, exist_ok=True)
        name = f"checkpoint-{self.games:09d}.npz"
        self.network.meta["games"] = self.games
        self.network.save(self.directory / name, exact=True)
        self.progress.checkpoint = name
        self.progress.rng_state = dict(self.rng.bit_generator.state)
        version, state, gauss = self.dice.getstate()
        self.progress.dice_state = [version, list(state), gauss]
        temporary = self.directory / (PROGRESS_FILE + ".tmp")
        temporary.write_text(json.dumps(asdict(self.progress), indent=1))
        temporary.replace(self.directory / PROGRESS_FILE)
        for old in sorted(self.directory.glob("checkpoint-*.npz"))[: -self.config.keep_checkpoints]:
            old.unlink()
        return self.directory / name

    def run_benchmark(self) -> Benchmark:
        seed = int(self.rng.integers(2**31))
        config = self.config
        result = benchmark(
            self.network, self.previous, config.variant, games=config.benchmark_games, seed=seed, family=self.family
        )
        result.games = self.games
        self.progress.benchmarks.append(asdict(result))
        self.previous = self.network.copy()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.previous.save(self.directory / PREVIOUS_FILE, exact=True)
        return result

    def train(self, *, report: Reporter | None = None, on_game: Callable[[int, str], None] | None = None) -> None:
        """Play games until ``config.games`` is reached, checkpointing and benchmarking on the way."""
        config = self.config
        variants = config.variants
        started = time.perf_counter()
        done_before = self.progress.seconds
        while self.games < config.games:
            variant = variants[int(self.rng.integers(len(variants)))] if len(variants) > 1 else variants[0]
            self.learner.play(variant, self.dice)
            self.progress.games += 1
            self.progress.seconds = done_before + time.perf_counter() - started
            summary = ""
            if config.benchmark_every and self.games % config.benchmark_every == 0:
                summary = self.run_benchmark().summary()
                if report is not None:
                    report(f"{self.games} games: {summary}")
            if self.games % config.checkpoint_every == 0 or self.games == config.games:
                path = self.checkpoint()
                if report is not None:
                    rate = self.games / self.progress.seconds if self.progress.seconds else 0.0
                    report(f"{self.games} games, {self.progress.seconds:.0f} s ({rate:.1f} games/s): saved {path.name}")
            if on_game is not None:
                on_game(self.games, summary)

    def export(self, path: Path | None = None) -> Path:
        """Write the current network as the small float32 weights file the package ships."""
        target = path if path is not None else weights_path(self.config.weights_name)
        target.parent.mkdir(parents=True, exist_ok=True)
        exported = self.network.copy()
        exported.meta.update(games=self.games, seconds=round(self.progress.seconds))
        if self.progress.benchmarks:
            exported.meta["benchmark"] = self.progress.benchmarks[-1]
        exported.save(target)
        return target


def _config_dict(config: TrainConfig) -> dict[str, Any]:
    data = asdict(config)
    data["checkpoint_dir"] = str(config.checkpoint_dir)
    data["init"] = str(config.init) if config.init is not None else None
    return data


def train_with_progress_bar(trainer: Trainer) -> None:
    """Train with a rich progress bar (games, games/s, the latest benchmark) and a log line per checkpoint."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress as Bar, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    columns = (
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]:.1f} games/s"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[bench]}"),
    )
    with Bar(*columns, console=console) as bar:
        task = bar.add_task(
            f"train {trainer.config.weights_name}",
            total=trainer.config.games,
            completed=trainer.games,
            rate=0.0,
            bench="",
        )
        first_games, first_time = trainer.games, time.perf_counter()

        def on_game(games: int, summary: str) -> None:
            elapsed = time.perf_counter() - first_time
            rate = (games - first_games) / elapsed if elapsed else 0.0
            fields: dict[str, Any] = {"rate": rate}
            if summary:
                fields["bench"] = summary
            bar.update(task, completed=games, **fields)

        def report(line: str) -> None:
            console.print(f"[dim]{time.strftime('%H:%M:%S')}[/dim] {line}", highlight=False)

        trainer.train(report=report, on_game=on_game)


def resume_config(config: TrainConfig) -> TrainConfig:
    """``config`` with the network size of an existing run in its directory (a resumed run keeps its shape)."""
    progress_file = config.checkpoint_dir / PROGRESS_FILE
    if not progress_file.exists():
        return config
    saved = json.loads(progress_file.read_text()).get("config", {})
    return replace(config, hidden=int(saved.get("hidden", config.hidden)))


def parse_variants(names: Sequence[str]) -> tuple[str, tuple[str, ...]]:
    """The main variant and the mix of a ``--variant A [B ...]`` list."""
    resolved = [find_variant(name).name for name in names]
    return resolved[0], tuple(resolved[1:])
