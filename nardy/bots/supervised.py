"""Supervised training: fit a network to rollout results, by minibatch gradient descent, resumable.

TD(λ) self-play (:mod:`nardy.bots.training`) learns from the network's own
next rating; rollouts (:mod:`nardy.bots.rollout`) give better targets for
chosen positions, and fitting the network to them is how the strongest
backgammon networks were refined. Each example is a position seen from its
side to move and the five outcome probabilities a rollout found for that
side; the loss is the cross-entropy of each sigmoid output against its
target (its gradient at the output layer is just ``y - target``).

Runs are reproducible from ``seed`` (the shuffling of each epoch) and
resumable: after every epoch the weights (float64), the momentum and the
generator's state are written to the checkpoint directory, and a run that
finds them there continues where it stopped, bit for bit.

    python -m nardy.bots.supervised --data benchmarks/data/long-positions.json --init nardy/bots/weights/long.npz \\
        --epochs 20 --out /tmp/fit-long
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from nardy.bots.encoding import FAMILIES, IntArray, raw_boards
from nardy.bots.evaluator import FloatArray, invert
from nardy.bots.network import Network
from nardy.notation import position_from_dict

STATE_FILE: Final = "fit.json"
NETWORK_FILE: Final = "network.npz"
MOMENTUM_FILE: Final = "momentum.npz"
_EPSILON: Final = 1e-12


@dataclass(frozen=True)
class FitConfig:
    """How to fit: epochs in all (resumed runs count), batch size, step size, momentum, seed."""

    checkpoint_dir: Path
    epochs: int = 20
    batch: int = 64
    alpha: float = 0.05
    momentum: float = 0.9
    seed: int = 0


def cross_entropy(y: FloatArray, target: FloatArray) -> float:
    """Mean over rows of the summed binary cross-entropy of the five outputs."""
    clipped = np.clip(y, _EPSILON, 1.0 - _EPSILON)
    loss = -(target * np.log(clipped) + (1.0 - target) * np.log(1.0 - clipped))
    return float(loss.sum(axis=1).mean())


def gradients(network: Network, x: FloatArray, target: FloatArray) -> tuple[FloatArray, ...]:
    """The mean cross-entropy's gradient for each parameter, in :meth:`Network.parameters` order."""
    hidden, y = network.activations(x)
    out_delta = (y - target) / len(x)
    hidden_delta = (out_delta @ network.w2.T) * hidden * (1.0 - hidden)
    return x.T @ hidden_delta, hidden_delta.sum(axis=0), hidden.T @ out_delta, out_delta.sum(axis=0)


class Fitter:
    """One fitting run over fixed examples, checkpointed after every epoch."""

    def __init__(self, network: Network, inputs: FloatArray, targets: FloatArray, config: FitConfig) -> None:
        if inputs.shape != (len(targets), network.inputs) or targets.shape[1:] != (5,):
            raise ValueError(f"inputs {inputs.shape} and targets {targets.shape} do not fit a {network.inputs}-input network")
        self.config = config
        self.inputs = inputs
        self.targets = targets
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
        self.losses = [float(loss) for loss in state["losses"]]

    def checkpoint(self) -> None:
        """Write the weights, the momentum and the generator's state (what a resumed run needs)."""
        directory = self.config.checkpoint_dir
        directory.mkdir(parents=True, exist_ok=True)
        self.network.save(directory / NETWORK_FILE, exact=True)
        np.savez(directory / MOMENTUM_FILE, **{f"v{i}": v for i, v in enumerate(self.velocity)})  # type: ignore[arg-type]
        state: dict[str, Any] = {"epoch": self.epoch, "rng": self.rng.bit_generator.state, "losses": self.losses}
        (directory / STATE_FILE).write_text(json.dumps(state), encoding="utf-8")

    def loss(self) -> float:
        """The current mean cross-entropy over all examples."""
        return cross_entropy(self.network.forward(self.inputs), self.targets)

    def fit(self, *, report: Callable[[int, float], None] | None = None) -> list[float]:
        """Train until ``config.epochs`` epochs are done; the loss after each epoch (all epochs, resumed ones too)."""
        config = self.config
        while self.epoch < config.epochs:
            order = self.rng.permutation(len(self.inputs))
            for start in range(0, len(order), config.batch):
                rows = order[start : start + config.batch]
                grads = gradients(self.network, self.inputs[rows], self.targets[rows])
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


def rollout_examples(document: dict[str, Any]) -> tuple[IntArray, FloatArray]:
    """Raw boards and targets from a labelled benchmark file (:mod:`benchmarks.long_positions`).

    Each rolled-out candidate play gives one example: the position it leaves,
    turned to the opponent who rolls next, with the rollout's probabilities
    for that opponent.
    """
    positions = []
    targets = []
    for entry in document["entries"]:
        for candidate in entry["candidates"]:
            positions.append(position_from_dict(candidate["position"]).turned())
            targets.append(invert(np.asarray(candidate["probabilities"], dtype=float)))
    return raw_boards(positions), np.clip(np.array(targets), 0.0, 1.0)


def main(argv: Sequence[str] | None = None) -> None:
    """Fit a network to the rollouts of a labelled file and report the loss epoch by epoch."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a file written by benchmarks.long_positions")
    parser.add_argument("--init", type=Path, required=True, help="the network to start from (.npz)")
    parser.add_argument("--out", type=Path, required=True, help="checkpoint directory (resumed when present)")
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    network = Network.load(args.init)
    raw, targets = rollout_examples(json.loads(args.data.read_text(encoding="utf-8")))
    inputs = FAMILIES[network.family].encode(raw)
    config = FitConfig(args.out, epochs=args.epochs, batch=args.batch, alpha=args.alpha, seed=args.seed)
    fitter = Fitter(network, inputs, targets, config)
    print(f"{len(targets)} examples; loss before: {fitter.loss():.5f}", flush=True)
    fitter.fit(report=lambda epoch, loss: print(f"epoch {epoch}: loss {loss:.5f}", flush=True))


if __name__ == "__main__":
    main()
