"""The MLP (nardy.bots.network) and the TD(λ) learner (nardy.bots.training.TDLearner)."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest

from nardy.bots.evaluator import invert
from nardy.bots.network import Network
from nardy.bots.training import TDLearner


def test_save_load_round_trip(tmp_path: object) -> None:
    net = Network.initial(inputs=7, hidden=5, seed=3, family="long")
    net.meta["games"] = 123
    exact = io.BytesIO()
    net.save(exact, exact=True)
    exact.seek(0)
    back = Network.load(exact)
    for a, b in zip(net.parameters(), back.parameters()):
        assert np.array_equal(a, b)
    assert back.meta["games"] == 123 and back.meta["family"] == "long" and back.meta["seed"] == 3
    assert back.meta["inputs"] == 7 and back.meta["hidden"] == 5
    small = io.BytesIO()
    net.save(small)
    small.seek(0)
    assert np.allclose(Network.load(small).forward(np.ones((1, 7))), net.forward(np.ones((1, 7))), atol=1e-6)


def test_load_refuses_other_files() -> None:
    buffer = io.BytesIO()
    np.savez(buffer, w1=np.zeros((2, 2)))
    buffer.seek(0)
    with pytest.raises(ValueError, match="not a nardy network"):
        Network.load(buffer)


def test_a_grown_network_computes_the_same_function() -> None:
    """New hidden units change nothing until training uses them; then they do learn."""
    net = Network.initial(inputs=6, hidden=4, seed=5, family="long")
    grown = net.grown(hidden=7, seed=1)
    assert grown.inputs == 6 and grown.hidden == 7 and grown.meta["hidden"] == 7
    x = np.random.default_rng(2).random((5, 6))
    assert np.allclose(grown.forward(x), net.forward(x), atol=1e-12)
    learner = TDLearner(grown, alpha=0.5, lambda_=0.0)
    hidden, y = (a[0] for a in grown.activations(x[:1]))
    learner.update(x[0], hidden, y, np.full(5, 0.9), turned=False)
    assert np.any(grown.w2[4:] != 0.0)
    with pytest.raises(ValueError, match="grows"):
        net.grown(hidden=3, seed=1)


def test_gradients_match_finite_differences() -> None:
    net = Network.initial(inputs=6, hidden=4, seed=5, family="long")
    x = np.random.default_rng(1).random(6)
    hidden, y = (a[0] for a in net.activations(x[None, :]))
    gradients = net.gradients(x, hidden, y)
    epsilon = 1e-6
    for parameter, gradient in zip(net.parameters(), gradients):
        flat = parameter.reshape(-1)
        for index in range(0, flat.size, 3):
            saved = flat[index]
            flat[index] = saved + epsilon
            up = net.forward(x[None, :])[0]
            flat[index] = saved - epsilon
            down = net.forward(x[None, :])[0]
            flat[index] = saved
            numeric = (up - down) / (2 * epsilon)
            analytic = gradient.reshape(5, -1)[:, index]
            assert np.allclose(numeric, analytic, atol=1e-7)


@pytest.mark.parametrize("turned", [False, True])
@pytest.mark.parametrize("lambda_", [0.0, 0.7])
def test_td_update_reduces_the_error_on_a_toy_target(turned: bool, lambda_: float) -> None:
    """Repeated TD steps towards a fixed target move the outputs there (in the frame of the target)."""
    net = Network.initial(inputs=10, hidden=8, seed=2, family="long")
    learner = TDLearner(net, alpha=0.5, lambda_=lambda_)
    rng = np.random.default_rng(0)
    inputs = (rng.random((3, 10)) < 0.4).astype(np.float64)
    target = np.array([0.8, 0.3, 0.1, 0.05, 0.0])

    def error() -> float:
        y = net.forward(inputs)
        seen = invert(y) if turned else y
        return float(np.abs(seen - target).sum())

    before = error()
    for _ in range(300):
        for x in inputs:
            hidden, y = (a[0] for a in net.activations(x[None, :]))
            learner.update(x, hidden, y, target, turned=turned)
        learner.reset()
    assert error() < 0.2 * before


def test_traces_equal_the_textbook_sum() -> None:
    """With scaled traces, an update is still alpha * delta . sum_k lambda^(t-k) grad_k."""
    net = Network.initial(inputs=5, hidden=3, seed=9, family="long")
    reference = net.copy()
    learner = TDLearner(net, alpha=0.1, lambda_=0.5)
    rng = random.Random(4)
    xs = [np.array([rng.random() for _ in range(5)]) for _ in range(4)]
    traces = [np.zeros((5, *p.shape)) for p in reference.parameters()]
    for step, x in enumerate(xs):
        hidden, y = (a[0] for a in reference.activations(x[None, :]))
        gradients = reference.gradients(x, hidden, y)
        target = np.full(5, 0.5)
        delta = target - y
        for trace, gradient, parameter in zip(traces, gradients, reference.parameters()):
            trace *= 0.5
            trace += gradient
            parameter += 0.1 * np.tensordot(delta, trace, axes=1)
        hidden2, y2 = (a[0] for a in net.activations(x[None, :]))
        learner.update(x, hidden2, y2, target, turned=False)
        for a, b in zip(net.parameters(), reference.parameters()):
            assert np.allclose(a, b, atol=1e-12), step
