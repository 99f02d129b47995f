"""A small multilayer perceptron: inputs, one sigmoid hidden layer, five sigmoid outputs.

The network knows nothing of nardy: it maps encoded positions
(:mod:`nardy.bots.encoding`) to the five outcome probabilities of
:mod:`nardy.bots.evaluator`. It computes in float64, is stored as float32 in
a compressed ``.npz`` with its metadata (family, sizes, games trained, seed),
and gives the per-output gradients that TD(λ) training keeps traces of.

>>> import numpy as np
>>> net = Network.initial(inputs=3, hidden=4, seed=1, family="long")
>>> net.forward(np.zeros((2, 3))).shape
(2, 5)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import numpy as np
import numpy.typing as npt

from nardy.bots.evaluator import OUTPUTS

FloatArray = npt.NDArray[np.float64]

FORMAT: Final = 1
"""Version of the ``.npz`` layout, stored in the metadata."""

PARAMETERS: Final = ("w1", "b1", "w2", "b2")


def sigmoid(x: FloatArray) -> FloatArray:
    """The logistic function, clipped so that it never overflows.

    Computed in one new array, in place step by step: the search rates tens of
    thousands of positions a decision, and temporaries cost more than the math.
    """
    result: FloatArray = np.clip(x, -40.0, 40.0)
    np.negative(result, out=result)
    np.exp(result, out=result)
    result += 1.0
    np.reciprocal(result, out=result)
    return result


@dataclass
class Network:
    """``y = sigmoid(sigmoid(x @ w1 + b1) @ w2 + b2)`` with metadata for the file it lives in."""

    w1: FloatArray
    b1: FloatArray
    w2: FloatArray
    b2: FloatArray
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def initial(cls, *, inputs: int, hidden: int, seed: int, family: str) -> Network:
        """Fresh small random weights, reproducible from ``seed``."""
        rng = np.random.default_rng(seed)
        return cls(
            w1=rng.normal(0.0, 1.0 / np.sqrt(inputs), (inputs, hidden)),
            b1=np.zeros(hidden),
            w2=rng.normal(0.0, 1.0 / np.sqrt(hidden), (hidden, OUTPUTS)),
            b2=np.zeros(OUTPUTS),
            meta={"format": FORMAT, "family": family, "inputs": inputs, "hidden": hidden, "games": 0, "seed": seed},
        )

    @property
    def inputs(self) -> int:
        return int(self.w1.shape[0])

    @property
    def hidden(self) -> int:
        return int(self.w1.shape[1])

    @property
    def family(self) -> str:
        return str(self.meta.get("family", ""))

    def forward(self, x: FloatArray) -> FloatArray:
        """The outputs for a batch of inputs ``(n, inputs)``: shape ``(n, 5)``."""
        return self.activations(x)[1]

    def activations(self, x: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The hidden layer and the outputs of a batch, as training needs both."""
        hidden = sigmoid(x @ self.w1 + self.b1)
        return hidden, sigmoid(hidden @ self.w2 + self.b2)

    def gradient_factors(self, hidden: FloatArray, y: FloatArray) -> tuple[FloatArray, FloatArray]:
        """The two small factors every output gradient of one row is made of.

        For output ``k``: ``d y_k / d w1 = outer(x, f1[k])``, ``d y_k / d b1 = f1[k]``,
        ``d y_k / d w2 = outer(hidden, f2[k])`` and ``d y_k / d b2 = f2[k]``;
        ``f1`` is ``(5, hidden)``, ``f2`` is ``(5, 5)``. Training keeps its traces
        from these without building the full gradients.
        """
        out_slope = y * (1.0 - y)
        f2 = np.diag(out_slope)
        f1 = (self.w2.T * out_slope[:, None]) * (hidden * (1.0 - hidden))
        return f1, f2

    def gradients(self, x: FloatArray, hidden: FloatArray, y: FloatArray) -> tuple[FloatArray, ...]:
        """The gradient of each output with respect to each parameter, for one input row.

        ``x``, ``hidden`` and ``y`` are one row's input, hidden layer and
        outputs (from :meth:`activations`). Returned in the order of
        :data:`PARAMETERS`, each with a leading axis of the 5 outputs:
        ``(5, inputs, hidden)``, ``(5, hidden)``, ``(5, hidden, 5)``, ``(5, 5)``.
        """
        f1, f2 = self.gradient_factors(hidden, y)
        return x[None, :, None] * f1[:, None, :], f1, hidden[None, :, None] * f2[:, None, :], f2

    def grown(self, *, hidden: int, seed: int) -> Network:
        """The same function with ``hidden`` hidden units: the new ones start with small random input
        weights and zero output weights, so every output is unchanged until training gives them a use."""
        if hidden < self.hidden:
            raise ValueError("a network only grows: no hidden unit is dropped")
        rng = np.random.default_rng(seed)
        w1 = np.concatenate([self.w1, rng.normal(0.0, 0.1, (self.inputs, hidden - self.hidden))], axis=1)
        b1 = np.concatenate([self.b1, np.zeros(hidden - self.hidden)])
        w2 = np.concatenate([self.w2, np.zeros((hidden - self.hidden, OUTPUTS))])
        return Network(w1, b1, w2, self.b2.copy(), {**self.meta, "hidden": hidden})

    def parts(self) -> tuple[Network]:
        """The networks a row may be rated by: this one (a :class:`~nardy.bots.phased.PhasedNetwork` has two)."""
        return (self,)

    def part_of(self, x: FloatArray) -> npt.NDArray[np.int64]:
        """Per input row, the index into :meth:`parts` of the network that rates it: always 0."""
        return np.zeros(len(x), dtype=np.int64)

    def parameters(self) -> tuple[FloatArray, ...]:
        """The weight arrays, in the order of :data:`PARAMETERS` (updated in place by training)."""
        return self.w1, self.b1, self.w2, self.b2

    def copy(self) -> Network:
        return Network(self.w1.copy(), self.b1.copy(), self.w2.copy(), self.b2.copy(), dict(self.meta))

    # ----- files

    def save(self, path: Path | str | IO[bytes], *, exact: bool = False) -> None:
        """Write the weights and the metadata (as JSON) into a compressed ``.npz``.

        Weights are stored as float32 (small files to ship) unless ``exact``,
        which keeps float64 so that a training checkpoint resumes bit for bit.
        """
        meta = {**self.meta, "format": FORMAT, "inputs": self.inputs, "hidden": self.hidden}
        dtype = np.float64 if exact else np.float32
        arrays = {name: value.astype(dtype) for name, value in zip(PARAMETERS, self.parameters())}
        np.savez_compressed(path, meta=np.array(json.dumps(meta, sort_keys=True)), **arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path | str | IO[bytes]) -> Network:
        """Read a file written by :meth:`save`; ValueError when it is not one."""
        with np.load(path, allow_pickle=False) as data:
            missing = [name for name in (*PARAMETERS, "meta") if name not in data.files]
            if missing:
                raise ValueError(f"not a nardy network file: missing {', '.join(missing)}")
            meta = json.loads(str(data["meta"]))
            w1, b1, w2, b2 = (np.asarray(data[name], dtype=np.float64) for name in PARAMETERS)
        network = cls(w1, b1, w2, b2, meta=meta)
        inputs, hidden = network.w1.shape
        if network.b1.shape != (hidden,) or network.w2.shape != (hidden, OUTPUTS) or network.b2.shape != (OUTPUTS,):
            raise ValueError("inconsistent network shapes")
        if meta.get("format") != FORMAT:
            raise ValueError(f"unsupported network format {meta.get('format')!r}")
        return network
