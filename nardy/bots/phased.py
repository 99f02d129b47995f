"""Two networks in one file: one rates the positions with contact, the other the races, picked by the position.

gnubg keeps separate networks for contact and race positions: a race is a
different game (pips, wastage, the bear-off) and a network that also has to
know primes spends its hidden units on both. :class:`PhasedNetwork` holds a
contact and a race :class:`~nardy.bots.network.Network` over the same inputs
and rates each row with the one its *selector* column names: an input that is
1 in contact and 0 in a race (``contact``, :mod:`nardy.bots.long_features`).
It offers what the evaluator, the search and TD training ask of a network
(:meth:`forward`, :meth:`activations`, :meth:`parts`, :meth:`part_of`), so it
is a drop-in wherever a ``Network`` is.

In long nardy a race stays a race (checkers only move forward, nothing is
hit), so a game passes from the contact network to the race network once, and
the race network could serve the three regulations: without contact no
opposing checker is behind a block, so neither the six-block rule nor the
head rule can tell them apart (docs/rules.md §6). Each regulation's file
still holds its own, trained with its contact network.

>>> from nardy.bots.network import Network
>>> old = Network.initial(inputs=4, hidden=3, seed=1, family="long")
>>> net = PhasedNetwork.warm_start(old, inputs=6, selector=5, family="long-features")
>>> x = np.array([[1.0, 0.0, 0.5, 0.0, 0.3, 1.0], [0.0, 1.0, 0.0, 0.2, 0.0, 0.0]])
>>> bool(np.allclose(net.forward(x), old.forward(x[:, :4])))  # new inputs start with zero weights
True
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import numpy as np
import numpy.typing as npt

from nardy.bots.network import FORMAT, PARAMETERS, Network

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

PARTS: Final = ("contact", "race")
"""The two networks, in the order of :meth:`PhasedNetwork.parts` (``part_of`` is 0 for contact, 1 for race)."""
KIND: Final = "phased"


@dataclass
class PhasedNetwork:
    """A contact and a race network over the same inputs; input ``selector`` > 0.5 picks the contact one."""

    contact: Network
    race: Network
    selector: int
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.contact.inputs != self.race.inputs or self.contact.hidden != self.race.hidden:
            raise ValueError("the contact and race networks must have the same inputs and hidden units")
        if not 0 <= self.selector < self.contact.inputs:
            raise ValueError(f"selector column {self.selector} outside the {self.contact.inputs} inputs")

    @classmethod
    def warm_start(cls, old: Network, *, inputs: int, selector: int, family: str) -> PhasedNetwork:
        """Both networks start as ``old``, its inputs the first of ``inputs``, the new ones with zero weights:
        the same ratings as ``old`` until training gives the new inputs a use."""
        if inputs < old.inputs:
            raise ValueError("a warm start only adds inputs")
        parts = []
        for _ in PARTS:
            w1 = np.zeros((inputs, old.hidden))
            w1[: old.inputs] = old.w1
            parts.append(Network(w1, old.b1.copy(), old.w2.copy(), old.b2.copy(), {**old.meta, "inputs": inputs}))
        meta = {
            **old.meta,
            "format": FORMAT,
            "kind": KIND,
            "family": family,
            "inputs": inputs,
            "hidden": old.hidden,
            "selector": selector,
            "init": f"{old.family} network ({old.meta.get('games', 0)} games)",
            "games": 0,
        }
        return cls(parts[0], parts[1], selector, meta)

    @property
    def inputs(self) -> int:
        return self.contact.inputs

    @property
    def hidden(self) -> int:
        return self.contact.hidden

    @property
    def family(self) -> str:
        return str(self.meta.get("family", ""))

    def parts(self) -> tuple[Network, Network]:
        """The two networks, contact first (each trained on its own positions)."""
        return self.contact, self.race

    def part_of(self, x: FloatArray) -> IntArray:
        """Per input row, the index into :meth:`parts` of the network that rates it."""
        result: IntArray = (x[:, self.selector] <= 0.5).astype(np.int64)
        return result

    def forward(self, x: FloatArray) -> FloatArray:
        """The outputs for a batch of inputs ``(n, inputs)``, each row from its own network: ``(n, 5)``."""
        return self.activations(x)[1]

    def activations(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The hidden layer and outputs of each row, from the network :meth:`part_of` names."""
        race = self.part_of(x).astype(bool)
        if not race.any():
            return self.contact.activations(x)
        if race.all():
            return self.race.activations(x)
        hidden, outputs = np.empty((len(x), self.hidden)), np.empty((len(x), 5))
        for rows, part in ((~race, self.contact), (race, self.race)):
            hidden[rows], outputs[rows] = part.activations(x[rows])
        return hidden, outputs

    def copy(self) -> PhasedNetwork:
        return PhasedNetwork(self.contact.copy(), self.race.copy(), self.selector, dict(self.meta))

    def save(self, path: Path | str | IO[bytes], *, exact: bool = False) -> None:
        """Both networks' weights (``contact_w1`` ... ``race_b2``, float32 unless ``exact``) and the metadata."""
        meta = {**self.meta, "format": FORMAT, "kind": KIND, "inputs": self.inputs, "hidden": self.hidden,
                "selector": self.selector}
        dtype = np.float64 if exact else np.float32
        arrays = {
            f"{name}_{parameter}": value.astype(dtype)
            for name, part in zip(PARTS, self.parts())
            for parameter, value in zip(PARAMETERS, part.parameters())
        }
        np.savez_compressed(path, meta=np.array(json.dumps(meta, sort_keys=True)), **arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path | str | IO[bytes]) -> PhasedNetwork:
        """Read a file written by :meth:`save`; ValueError when it is not one."""
        with np.load(path, allow_pickle=False) as data:
            wanted = [f"{name}_{parameter}" for name in PARTS for parameter in PARAMETERS]
            missing = [name for name in (*wanted, "meta") if name not in data.files]
            if missing:
                raise ValueError(f"not a contact-and-race network file: missing {', '.join(missing)}")
            meta = json.loads(str(data["meta"]))
            parts = []
            for name in PARTS:
                w1, b1, w2, b2 = (np.asarray(data[f"{name}_{parameter}"], dtype=np.float64) for parameter in PARAMETERS)
                parts.append(Network(w1, b1, w2, b2, meta={**meta, "kind": name}))
        if meta.get("format") != FORMAT or meta.get("kind") != KIND:
            raise ValueError(f"unsupported network file {meta.get('format')!r}, {meta.get('kind')!r}")
        return cls(parts[0], parts[1], int(meta["selector"]), meta)


AnyNetwork = Network | PhasedNetwork
"""What a network file holds: one network, or a contact and a race one."""


def load_network(path: Path | str | IO[bytes]) -> AnyNetwork:
    """The network in ``path``, whichever kind the file holds; ValueError when it holds none."""
    with np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"])) if "meta" in data.files else {}
    if hasattr(path, "seek"):
        path.seek(0)
    if meta.get("kind") == KIND:
        return PhasedNetwork.load(path)
    return Network.load(path)


def average_networks(networks: list[AnyNetwork], sources: list[str]) -> AnyNetwork:
    """The element-wise mean of the weights of ``networks`` (checkpoints of one training run), named by
    ``sources`` in its metadata.

    TD(λ) at a constant step keeps moving the weights around the values it has learnt; the ratings of two
    checkpoints a few thousand games apart differ by as much as the games can measure. Their mean (Polyak
    averaging, or "stochastic weight averaging") keeps what they share and cancels much of that noise. The
    networks must be of one kind, family and shape; ValueError otherwise.
    """
    if not networks or len(networks) != len(sources):
        raise ValueError("average at least one network, each named by its source")
    first = networks[0]
    shapes = {(type(n), n.family, *(p.shape for p in _weights(n))) for n in networks}
    if len(shapes) != 1:
        raise ValueError("only networks of one kind, family and shape can be averaged")
    result = first.copy()
    for index, target in enumerate(_weights(result)):
        target[...] = np.mean([_weights(n)[index] for n in networks], axis=0)
    result.meta.update(averaged=list(sources), games=max(int(n.meta.get("games", 0)) for n in networks))
    return result


def _weights(network: AnyNetwork) -> tuple[FloatArray, ...]:
    """Every weight array of ``network`` (each of its :meth:`parts`'), in a fixed order."""
    return tuple(array for part in network.parts() for array in part.parameters())
