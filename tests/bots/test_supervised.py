"""Supervised fitting to rollout targets (nardy.bots.supervised): gradients, progress, resuming bit for bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from bot_positions import game_positions

from nardy.bots.encoding import LONG, raw_boards
from nardy.bots.network import Network
from nardy.bots.supervised import FitConfig, Fitter, cross_entropy, gradients, rollout_examples
from nardy.notation import position_to_dict
from nardy.rules import Position


def tiny_case(seed: int = 1) -> tuple[Network, np.ndarray, np.ndarray]:
    positions = game_positions("long-traditional", seed=seed, count=24)
    inputs = LONG.encode(raw_boards(positions))
    targets = np.random.default_rng(seed).uniform(0.0, 1.0, (len(positions), 5))
    return Network.initial(inputs=LONG.inputs, hidden=6, seed=seed, family="long"), inputs, targets


def test_gradients_match_finite_differences() -> None:
    network, inputs, targets = tiny_case()
    analytic = gradients(network, inputs[:5], targets[:5])
    for parameter, gradient in zip(network.parameters(), analytic):
        index = tuple(int(i) for i in np.unravel_index(int(np.argmax(np.abs(gradient))), gradient.shape))
        saved = parameter[index]
        parameter[index] = saved + 1e-6
        up = cross_entropy(network.forward(inputs[:5]), targets[:5])
        parameter[index] = saved - 1e-6
        down = cross_entropy(network.forward(inputs[:5]), targets[:5])
        parameter[index] = saved
        assert (up - down) / 2e-6 == pytest.approx(gradient[index], rel=1e-4, abs=1e-9)


def test_fitting_lowers_the_loss_and_resumes_bit_for_bit(tmp_path: Path) -> None:
    network, inputs, targets = tiny_case()
    straight = Fitter(network, inputs, targets, FitConfig(tmp_path / "straight", epochs=6, batch=8, seed=3))
    before = straight.loss()
    losses = straight.fit()
    assert losses[-1] < before
    first = Fitter(network, inputs, targets, FitConfig(tmp_path / "resumed", epochs=3, batch=8, seed=3))
    first.fit()
    resumed = Fitter(network, inputs, targets, FitConfig(tmp_path / "resumed", epochs=6, batch=8, seed=3))
    assert resumed.epoch == 3
    assert resumed.fit() == losses
    for mine, theirs in zip(resumed.network.parameters(), straight.network.parameters()):
        assert np.array_equal(mine, theirs)


def test_rollout_examples_are_the_opponents_view_of_each_candidate() -> None:
    start = Position.start("long-bolshie")
    play = start.legal_plays((6, 5))[0]
    document = {"entries": [{"candidates": [{"position": position_to_dict(play.position),
                                             "probabilities": [0.6, 0.1, 0.0, 0.05, 0.0]}]}]}
    raw, targets = rollout_examples(document)
    assert np.array_equal(raw, raw_boards([play.position.turned()]))
    assert targets.tolist() == [[0.4, 0.05, 0.0, 0.1, 0.0]]
