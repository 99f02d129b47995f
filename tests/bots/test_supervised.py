"""Supervised fitting to rollouts of candidate plays (nardy.bots.supervised): gradients, progress, resuming bit for bit."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nardy.bots.encoding import LONG, raw_boards
from nardy.bots.evaluator import equity
from nardy.bots.network import Network
from nardy.bots.supervised import FitConfig, Fitter, Pairs, gradients, loss, predicted_difference, rollout_pairs
from nardy.notation import position_to_dict
from tests.bots.bot_positions import game_positions


def tiny_case(seed: int = 1) -> tuple[Network, Pairs]:
    positions = game_positions("long-traditional", seed=seed, count=24)
    inputs = LONG.encode(raw_boards(positions))
    rng = np.random.default_rng(seed)
    pairs = Pairs(inputs[:12], inputs[12:], rng.uniform(-0.5, 0.5, 12),
                  rng.uniform(0.0, 1.0, (12, 5)), rng.uniform(0.0, 1.0, (12, 5)))
    return Network.initial(inputs=LONG.inputs, hidden=6, seed=seed, family="long"), pairs


def test_the_predicted_difference_is_the_movers_equity_difference() -> None:
    network, pairs = tiny_case()
    first, second = network.forward(pairs.first), network.forward(pairs.second)
    # Each side is the opponent to roll: the mover's equity is minus the opponent's.
    assert predicted_difference(first, second) == pytest.approx(equity(second) - equity(first))


@pytest.mark.parametrize("value_weight", [0.0, 0.1, 1.0])
def test_gradients_match_finite_differences(value_weight: float) -> None:
    network, pairs = tiny_case()
    batch = pairs.rows(slice(0, 5))
    analytic = gradients(network, batch, value_weight)
    for parameter, gradient in zip(network.parameters(), analytic):
        index = tuple(int(i) for i in np.unravel_index(int(np.argmax(np.abs(gradient))), gradient.shape))
        saved = parameter[index]
        parameter[index] = saved + 1e-6
        up = loss(network, batch, value_weight)
        parameter[index] = saved - 1e-6
        down = loss(network, batch, value_weight)
        parameter[index] = saved
        assert (up - down) / 2e-6 == pytest.approx(gradient[index], rel=1e-4, abs=1e-9)


def test_fitting_lowers_the_loss_and_resumes_bit_for_bit(tmp_path: Path) -> None:
    network, pairs = tiny_case()
    straight = Fitter(network, pairs, FitConfig(tmp_path / "straight", epochs=6, batch=4, seed=3))
    before = straight.loss()
    losses = straight.fit()
    assert losses[-1] < before
    first = Fitter(network, pairs, FitConfig(tmp_path / "resumed", epochs=3, batch=4, seed=3))
    first.fit()
    resumed = Fitter(network, pairs, FitConfig(tmp_path / "resumed", epochs=6, batch=4, seed=3))
    assert resumed.epoch == 3
    assert resumed.fit() == losses
    for mine, theirs in zip(resumed.network.parameters(), straight.network.parameters()):
        assert np.array_equal(mine, theirs)


def test_rollout_pairs_join_the_first_candidate_with_each_other_from_the_opponents_view() -> None:
    position = next(p for p in game_positions("long-bolshie", seed=2, count=20) if len(p.legal_plays((5, 2))) >= 3)
    plays = position.legal_plays((5, 2))[:3]
    probabilities = [[0.6, 0.1, 0.0, 0.05, 0.0], [0.5, 0.1, 0.0, 0.1, 0.0], [0.4, 0.0, 0.0, 0.1, 0.0]]
    candidates = [{"position": position_to_dict(play.position), "equity": e, "probabilities": p}
                  for play, e, p in zip(plays, [0.35, 0.15, -0.1], probabilities)]
    pairs = rollout_pairs({"entries": [{"candidates": candidates}]}, "long")
    assert len(pairs) == 2
    assert np.array_equal(pairs.first, LONG.encode(raw_boards([plays[0].position.turned()] * 2)))
    assert np.array_equal(pairs.second, LONG.encode(raw_boards([plays[1].position.turned(), plays[2].position.turned()])))
    assert pairs.difference == pytest.approx([0.2, 0.45])
    assert pairs.first_targets[0].tolist() == [0.4, 0.05, 0.0, 0.1, 0.0]
    assert pairs.second_targets[1].tolist() == [0.6, 0.1, 0.0, 0.0, 0.0]
