"""Supervised training: fit a network to rollouts of candidate plays, by minibatch gradient descent, resumable.

TD(λ) self-play (:mod:`nardy.bots.training`) learns from the network's own
next rating; rollouts (:mod:`nardy.bots.rollout`) give better targets for
chosen positions, and fitting the network to them is how the strongest
backgammon networks were refined.

A bot chooses between the plays of one roll, so what it must get right is
their *difference*. The labelled files of :mod:`benchmarks.long_positions`
roll out several candidate plays of each position on the same dice, which
makes the difference of two candidates far surer than either value (at 36
trials truncated after 7 rolls, a median standard error of 0.027 against
0.043). Each example is therefore a pair: the first candidate of a position
and another one. The loss per pair is half the squared error of the
network's equity difference against the rollout's, plus ``value_weight``
times the cross-entropy of each side's five outputs against its rollout
probabilities, which keeps the absolute values anchored. Fitting the
values alone did not help (docs/strength.md).

Runs are reproducible from ``seed`` (the shuffling of each epoch) and
resumable: after every epoch the weights (float64), the momentum and the
generator's state are written to the checkpoint directory, and a run that
finds them there continues where it stopped, bit for bit.

    python -m nardy.bots.supervised --data train.json.gz --validation benchmarks/data/long-positions.json.gz \\
        --init nardy/bots/weights/long.npz --epochs 6 --alpha 0.03 --out /tmp/fit-long
"""

from __future__ import annotations

import argparse
import gzip
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, TextIO

import numpy as np

from nardy.bots.encoding import FAMILIES, raw_boards
from nardy.bots.evaluator import OUTPUTS, FloatArray, equity, invert
from nardy.bots.network import Network
from nardy.notation import position_from_dict

STATE_FILE: Final = "fit.json"
NETWORK_FILE: Final = "network.npz"
MOMENTUM_FILE: Final = "momentum.npz"
EQUITY_WEIGHTS: Final = equity(np.eye(OUTPUTS)) - equity(np.zeros(OUTPUTS))
"""What each output adds to :func:`nardy.bots.evaluator.equity`, which is linear in them: its gradient."""
_EPSILON: Final = 1e-12


@dataclass(frozen=True)
class Pairs:
    """Pairs of rolled-out candidate plays of one roll, each position encoded as its opponent, who rolls next, sees it."""

    first: FloatArray
    second: FloatArray
    difference: FloatArray
    """The mover's rollout equity after the first play minus after the second."""
    first_targets: FloatArray
    """The rollout's five probabilities after the first play, for the opponent."""
    second_targets: FloatArray

    def __len__(self) -> int:
        return len(self.difference)

    def rows(self, index: Any) -> Pairs:
        """The pairs at ``index`` (a slice or an array of row numbers)."""
        return Pairs(self.first[index], self.second[index], self.difference[index],
                     self.first_targets[index], self.second_targets[index])

    @classmethod
    def joined(cls, parts: Sequence[Pairs]) -> Pairs:
        return cls(*(np.concatenate([getattr(part, name) for part in parts])
                     for name in ("first", "second", "difference", "first_targets", "second_targets")))


@dataclass(frozen=True)
class FitConfig:
    """How to fit: epochs in all (resumed runs count), batch size, step size, momentum, value weight, seed."""

    checkpoint_dir: Path
    epochs: int = 6
    batch: int = 64
    alpha: float = 0.03
    momentum: float = 0.9
    value_weight: float = 0.1
    seed: int = 0


def cross_entropy(y: FloatArray, target: FloatArray) -> FloatArray:
    """Per row, the summed binary cross-entropy of the five outputs."""
    clipped = np.clip(y, _EPSILON, 1.0 - _EPSILON)
    loss: FloatArray = -(target * np.log(clipped) + (1.0 - target) * np.log(1.0 - clipped)).sum(axis=1)
    return loss


def predicted_difference(first: FloatArray, second: FloatArray) -> FloatArray:
    """The mover's equity after the first play minus after the second, from the opponent's outputs."""
    difference: FloatArray = equity(second) - equity(first)
    return difference


def loss(network: Network, pairs: Pairs, value_weight: float) -> float:
    """Mean over pairs of half the squared difference error plus ``value_weight`` times both cross-entropies."""
    first, second = network.forward(pairs.first), network.forward(pairs.second)
    error = predicted_difference(first, second) - pairs.difference
    values = cross_entropy(first, pairs.first_targets) + cross_entropy(second, pairs.second_targets)
    return float(np.mean(0.5 * error**2 + value_weight * values))


def gradients(network: Network, pairs: Pairs, value_weight: float) -> tuple[FloatArray, ...]:
    """The gradient of :func:`loss` for each parameter, in :meth:`Network.parameters` order."""
    hidden_first, first = network.activations(pairs.first)
    hidden_second, second = network.activations(pairs.second)
    error = (predicted_difference(first, second) - pairs.difference)[:, None] / len(pairs)
    first_delta = -error * EQUITY_WEIGHTS * first * (1.0 - first) + value_weight * (first - pairs.first_targets) / len(pairs)
    second_delta = error * EQUITY_WEIGHTS * second * (1.0 - second) + value_weight * (second - pairs.second_targets) / len(pairs)
    total = [np.zeros_like(parameter) for parameter in network.parameters()]
    for x, hidden, out_delta in ((pairs.first, hidden_first, first_delta), (pairs.second, hidden_second, second_delta)):
        hidden_delta = (out_delta @ network.w2.T) * hidden * (1.0 - hidden)
        for sum_, part in zip(total, (x.T @ hidden_delta, hidden_delta.sum(axis=0), hidden.T @ out_delta, out_delta.sum(axis=0))):
            sum_ += part
    return tuple(total)


class Fitter:
    """One fitting run over fixed pairs, checkpointed after every epoch."""

    def __init__(self, network: Network, pairs: Pairs, config: FitConfig) -> None:
        if pairs.first.shape != (len(pairs), network.inputs) or pairs.first_targets.shape[1:] != (5,):
            raise ValueError(f"pairs of {pairs.first.shape} inputs do not fit a {network.inputs}-input network")
        self.config = config
        self.pairs = pairs
        self.network = network.copy()
        self.velocity = [np.zeros_like(p) for p in self.network.parameters()]
        self.rng = np.random.default_rng(config.seed)
        self.epoch = 0
        self.losses: list[float] = []
        if (config.checkpoint_dir / STATE_FILE).exists():
            self._resume()

    def _resume(self) -> None:
        directory = self.config.checkpoint_dir
        state = json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))
        self.network = Network.load(directory / NETWORK_FILE)
        with np.load(directory / MOMENTUM_FILE) as data:
            self.velocity = [np.asarray(data[f"v{i}"]) for i in range(len(self.velocity))]
        self.rng.bit_generator.state = state["rng"]
        self.epoch = int(state["epoch"])
        self.losses = [float(value) for value in state["losses"]]

    def checkpoint(self) -> None:
        """Write the weights, the momentum and the generator's state (what a resumed run needs)."""
        directory = self.config.checkpoint_dir
        directory.mkdir(parents=True, exist_ok=True)
        self.network.save(directory / NETWORK_FILE, exact=True)
        np.savez(directory / MOMENTUM_FILE, **{f"v{i}": v for i, v in enumerate(self.velocity)})  # type: ignore[arg-type]
        state: dict[str, Any] = {"epoch": self.epoch, "rng": self.rng.bit_generator.state, "losses": self.losses}
        (directory / STATE_FILE).write_text(json.dumps(state), encoding="utf-8")

    def loss(self) -> float:
        """The current loss over all pairs."""
        return loss(self.network, self.pairs, self.config.value_weight)

    def fit(self, *, report: Callable[[int, float], None] | None = None) -> list[float]:
        """Train until ``config.epochs`` epochs are done; the loss after each epoch (all epochs, resumed ones too)."""
        config = self.config
        while self.epoch < config.epochs:
            order = self.rng.permutation(len(self.pairs))
            for start in range(0, len(order), config.batch):
                grads = gradients(self.network, self.pairs.rows(order[start : start + config.batch]), config.value_weight)
                for parameter, velocity, gradient in zip(self.network.parameters(), self.velocity, grads):
                    velocity *= config.momentum
                    velocity -= config.alpha * gradient
                    parameter += velocity
            self.epoch += 1
            self.losses.append(self.loss())
            self.checkpoint()
            if report is not None:
                report(self.epoch, self.losses[-1])
        return list(self.losses)


def rollout_pairs(document: dict[str, Any], family: str) -> Pairs:
    """The pairs of a labelled file (:mod:`benchmarks.long_positions`): each position's first candidate with each other one."""
    first, second, difference, first_targets, second_targets = [], [], [], [], []
    for entry in document["entries"]:
        lead, *others = entry["candidates"]
        lead_position = position_from_dict(lead["position"]).turned()
        lead_targets = invert(np.asarray(lead["probabilities"], dtype=float))
        for other in others:
            first.append(lead_position)
            second.append(position_from_dict(other["position"]).turned())
            difference.append(float(lead["equity"]) - float(other["equity"]))
            first_targets.append(lead_targets)
            second_targets.append(invert(np.asarray(other["probabilities"], dtype=float)))
    encode = FAMILIES[family].encode
    return Pairs(encode(raw_boards(first)), encode(raw_boards(second)), np.array(difference),
                 np.clip(np.array(first_targets), 0.0, 1.0), np.clip(np.array(second_targets), 0.0, 1.0))


def open_labelled(path: Path, mode: Literal["rt", "wt"]) -> TextIO:
    """A labelled file opened as text for ``mode`` (``"rt"`` or ``"wt"``), gzipped when its name ends in ``.gz``."""
    if path.suffix == ".gz":
        return gzip.open(path, mode, encoding="utf-8")
    return open(path, mode, encoding="utf-8")


def read_labelled(path: Path) -> dict[str, Any]:
    """A labelled file of :mod:`benchmarks.long_positions`."""
    with open_labelled(path, "rt") as file:
        document: dict[str, Any] = json.load(file)
    return document


def _pairs_of(paths: Sequence[Path], family: str) -> Pairs:
    return Pairs.joined([rollout_pairs(read_labelled(path), family) for path in paths])


def main(argv: Sequence[str] | None = None) -> None:
    """Fit a network to the rollouts of labelled files and report the loss epoch by epoch."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, action="append", required=True,
                        help="a file written by benchmarks.long_positions (repeatable; .gz allowed)")
    parser.add_argument("--validation", type=Path, action="append", default=[],
                        help="held-out labelled files whose loss is reported after every epoch (repeatable)")
    parser.add_argument("--init", type=Path, required=True, help="the network to start from (.npz)")
    parser.add_argument("--out", type=Path, required=True, help="checkpoint directory (resumed when present)")
    defaults = FitConfig(Path())
    parser.add_argument("--epochs", type=int, default=defaults.epochs)
    parser.add_argument("--batch", type=int, default=defaults.batch)
    parser.add_argument("--alpha", type=float, default=defaults.alpha)
    parser.add_argument("--value-weight", type=float, default=defaults.value_weight)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    args = parser.parse_args(argv)
    network = Network.load(args.init)
    pairs = _pairs_of(args.data, network.family)
    held_out = _pairs_of(args.validation, network.family) if args.validation else None
    config = FitConfig(args.out, epochs=args.epochs, batch=args.batch, alpha=args.alpha,
                       value_weight=args.value_weight, seed=args.seed)
    fitter = Fitter(network, pairs, config)

    def report(epoch: int, value: float) -> None:
        line = f"epoch {epoch}: loss {value:.6f}"
        if held_out is not None:
            line += f", held out {loss(fitter.network, held_out, config.value_weight):.6f}"
        print(line, flush=True)

    print(f"{len(pairs)} pairs" + (f", {len(held_out)} held out" if held_out is not None else ""), flush=True)
    report(fitter.epoch, fitter.loss())
    fitter.fit(report=report)


if __name__ == "__main__":
    main()
