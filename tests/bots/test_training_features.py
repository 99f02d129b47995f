"""Warm-started TD(λ) on long nardy's hand-made inputs with a contact and a race network (nardy train
--features): deterministic, resumable, and starting as the network it was warm-started from."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from nardy.bots.bearoff import default_bearoff
from nardy.bots.encoding import LONG, LONG_FEATURES, LONG_INPUTS
from nardy.bots.network import Network
from nardy.bots.phased import PhasedNetwork, load_network
from nardy.bots.neural import WEIGHTS
from nardy.bots.training import (
    RETIRED_TRACE,
    TDLearner,
    Trainer,
    TrainConfig,
    features_family,
    run_name,
    weights_name,
)


def _config(directory: Path, init: Path, games: int) -> TrainConfig:
    return TrainConfig(
        variant="long-traditional", mix=("long-bolshie",), checkpoint_dir=directory, games=games, seed=7,
        checkpoint_every=1, benchmark_every=0, init=init, family="long-features", alpha=0.05,
    )


def _init(directory: Path) -> Path:
    path = directory / "long.npz"
    Network.initial(inputs=LONG.inputs, hidden=6, seed=3, family="long").save(path, exact=True)
    return path


def test_a_features_run_is_deterministic_and_resumes_exactly(tmp_path: Path) -> None:
    init = _init(tmp_path)
    straight = Trainer(_config(tmp_path / "a", init, 2))
    straight.train()
    Trainer(_config(tmp_path / "b", init, 1)).train()
    resumed = Trainer(_config(tmp_path / "b", init, 2))
    assert resumed.games == 1
    resumed.train()
    assert isinstance(straight.network, PhasedNetwork) and isinstance(resumed.network, PhasedNetwork)
    for a, b in zip(straight.network.contact.parameters() + straight.network.race.parameters(),
                    resumed.network.contact.parameters() + resumed.network.race.parameters()):
        assert np.array_equal(a, b)
    exported = load_network(straight.export(tmp_path / "long-features.npz"))
    assert isinstance(exported, PhasedNetwork) and exported.family == "long-features"
    assert exported.meta["games"] == 2 and exported.meta["init"].startswith("long.npz")
    assert straight.config.weights_name == WEIGHTS["long-traditional"]


def test_warm_started_training_moves_both_networks_and_the_new_inputs(tmp_path: Path) -> None:
    """A game goes from contact to a race: both networks learn, the new inputs' weights leave zero, and a race
    the database answers is played and learnt from its exact value."""
    old = Network.load(_init(tmp_path))
    assert LONG_FEATURES.selector is not None
    network = PhasedNetwork.warm_start(old, inputs=LONG_FEATURES.inputs, selector=LONG_FEATURES.selector,
                                       family=LONG_FEATURES.name)
    learner = TDLearner(network, alpha=0.05, lambda_=0.7, family=LONG_FEATURES, races=default_bearoff())
    result = learner.play("long-traditional", random.Random(3))
    assert result is not None and result[0] in (0, 1)
    for part in network.parts():
        assert not np.array_equal(part.w2, old.w2)
        assert np.abs(part.w1[LONG_INPUTS:]).sum() > 0.0
    assert features_family("long-tournament") == "long-features"
    with pytest.raises(ValueError, match="plakoto"):
        features_family("plakoto")


def test_the_contact_network_learns_from_the_race_until_its_traces_fade() -> None:
    """TD(λ) over both networks: the race's first TD errors still move the contact network through its traces,
    until λ^k falls below RETIRED_TRACE (26 steps at λ = 0.7); the race network never moves before the race."""
    old = Network.initial(inputs=4, hidden=3, seed=1, family="long")
    network = PhasedNetwork.warm_start(old, inputs=6, selector=5, family="long-features")
    learner = TDLearner(network, alpha=0.1, lambda_=0.7)
    rng = np.random.default_rng(0)
    contact = [np.append(rng.random(5), 1.0) for _ in range(3)]
    race = [np.append(rng.random(5), 0.0) for _ in range(40)]
    race_before = network.race.w1.copy()

    def step(x: np.ndarray) -> None:
        hidden, y = (a[0] for a in network.activations(x[None, :]))
        learner.update(x, hidden, y, rng.random(5), turned=False)

    for x in contact:
        step(x)
    assert np.array_equal(network.race.w1, race_before)
    moved = []
    for x in race:
        before = network.contact.w2.copy()
        step(x)
        moved.append(not np.array_equal(before, network.contact.w2))
    retired = next(k for k in range(1, 60) if 0.7**k < RETIRED_TRACE)
    assert moved[: retired - 1] == [True] * (retired - 1) and not any(moved[retired:])


def test_a_features_run_goes_on_from_an_earlier_runs_pair(tmp_path: Path) -> None:
    """``--init`` naming a contact-and-race file trains that pair on: its weights, not a fresh warm start, and
    a plain network of another family is refused."""
    first = Trainer(_config(tmp_path / "a", _init(tmp_path), 1))
    first.train()
    earlier = first.export(tmp_path / "earlier.npz")
    second = Trainer(_config(tmp_path / "b", earlier, 1))
    assert isinstance(second.network, PhasedNetwork) and isinstance(first.network, PhasedNetwork)
    assert second.games == 0 and second.network.meta["init"].startswith("earlier.npz (1 games)")
    for a, b in zip(first.network.contact.parameters(), second.network.contact.parameters()):
        assert np.allclose(a, b, atol=1e-6)
    other = tmp_path / "hyper.npz"
    Network.initial(inputs=7, hidden=3, seed=1, family="hypergammon").save(other)
    with pytest.raises(ValueError, match="not a long-family network"):
        Trainer(_config(tmp_path / "c", other, 1))


def test_a_run_keeps_to_its_own_weights_file() -> None:
    """A run on the hand-made inputs trains the pair its regulation plays with; a plain run never takes a pair's
    name, and fevga's run on the new inputs never overwrites long nardy's pair."""
    for variant in ("long-traditional", "long-tournament", "long-bolshie"):
        assert run_name(variant, LONG_FEATURES.name) == WEIGHTS[variant]
        assert run_name(variant) == weights_name(variant) == LONG.name
    assert run_name("fevga", LONG_FEATURES.name) == "long-features-fevga"
    assert run_name("fevga") == WEIGHTS["fevga"]
