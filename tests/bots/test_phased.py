"""Contact and race networks in one file (nardy.bots.phased): a warm start that plays as the shipped network,
each row rated by its own network, the file read back, and the race network against the bear-off database."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from benchmarks.long_race_check import bearoff_races, race_error
from nardy.bots.encoding import LONG, LONG_FEATURES, LONG_INPUTS, raw_boards
from nardy.bots.network import Network
from nardy.bots.neural import WEIGHTS, NeuralEvaluator, default_evaluator, default_network, evaluator_for
from nardy.bots.phased import PhasedNetwork, average_networks, load_network
from nardy.rules import find_variant
from tests.bots.bot_positions import game_positions


def _warm(old: Network) -> PhasedNetwork:
    assert LONG_FEATURES.selector is not None
    return PhasedNetwork.warm_start(old, inputs=LONG_FEATURES.inputs, selector=LONG_FEATURES.selector,
                                    family=LONG_FEATURES.name)


def _shipped_long() -> Network:
    network = default_network("long")
    assert isinstance(network, Network)
    return network


@pytest.mark.parametrize("variant", ["long-traditional", "long-tournament", "long-bolshie"])
def test_a_warm_start_rates_as_the_network_it_starts_from(variant: str) -> None:
    """Zero weights on the new inputs: the pair, on the extended encoding, gives the 202-input network's ratings,
    in contact and in races alike."""
    positions = game_positions(variant, seed=4, count=300)
    rules = find_variant(variant)
    warm = evaluator_for(_warm(_shipped_long()), rules)
    assert warm.family is LONG_FEATURES
    assert np.allclose(warm.probabilities(positions), evaluator_for(_shipped_long(), rules).probabilities(positions),
                       atol=1e-12)


def test_long_nardy_plays_with_the_shipped_contact_and_race_pairs() -> None:
    """Each regulation's bots rate positions with its own trained pair on the hand-made inputs, both networks
    of each trained (neither is still the 202-input network it started from)."""
    regulations = ("long-traditional", "long-tournament", "long-bolshie")
    assert len({WEIGHTS[name] for name in regulations}) == 3, "each regulation its own pair"
    for name in regulations:
        network = default_network(WEIGHTS[name])
        assert isinstance(network, PhasedNetwork) and network.family == LONG_FEATURES.name
        for part in network.parts():
            assert np.abs(part.w1[LONG.inputs:]).sum() > 0.0
        assert default_evaluator(name).family is LONG_FEATURES


def test_each_row_is_rated_by_its_own_network() -> None:
    """Rows with contact go to the contact network, races to the race network (selector column 0)."""
    network = _warm(Network.initial(inputs=LONG.inputs, hidden=5, seed=2, family="long"))
    network.race.b2 += 1.0
    raw = raw_boards(game_positions("long-traditional", seed=6, count=400))
    x = LONG_FEATURES.encode(raw)
    race = x[:, LONG_FEATURES.selector] == 0.0
    assert 0 < race.sum() < len(race)
    assert network.part_of(x).tolist() == race.astype(int).tolist()
    y = network.forward(x)
    assert np.array_equal(y[~race], network.contact.forward(x[~race]))
    assert np.array_equal(y[race], network.race.forward(x[race]))
    hidden, outputs = network.activations(x)
    assert np.array_equal(outputs, y) and hidden.shape == (len(x), 5)


def test_the_file_reads_back(tmp_path: Path) -> None:
    network = _warm(Network.initial(inputs=LONG.inputs, hidden=5, seed=2, family="long"))
    network.race.w1[LONG_INPUTS:] = 0.25
    network.save(tmp_path / "pair.npz", exact=True)
    loaded = load_network(tmp_path / "pair.npz")
    assert isinstance(loaded, PhasedNetwork) and loaded.selector == network.selector
    for a, b in zip((*network.contact.parameters(), *network.race.parameters()),
                    (*loaded.contact.parameters(), *loaded.race.parameters())):
        assert np.array_equal(a, b)
    assert loaded.family == "long-features" and loaded.inputs == 230
    buffer = io.BytesIO()
    network.save(buffer)
    buffer.seek(0)
    small = load_network(buffer)
    assert isinstance(small, PhasedNetwork) and np.allclose(small.race.w1, network.race.w1, atol=1e-6)
    single = Network.initial(inputs=LONG.inputs, hidden=5, seed=2, family="long")
    single.save(tmp_path / "single.npz")
    assert isinstance(load_network(tmp_path / "single.npz"), Network)
    with pytest.raises(ValueError, match="contact-and-race"):
        PhasedNetwork.load(tmp_path / "single.npz")


def test_the_pair_needs_matching_networks() -> None:
    a = Network.initial(inputs=10, hidden=4, seed=1, family="long")
    with pytest.raises(ValueError, match="same inputs"):
        PhasedNetwork(a, Network.initial(inputs=10, hidden=5, seed=1, family="long"), selector=3)
    with pytest.raises(ValueError, match="selector"):
        PhasedNetwork(a, a.copy(), selector=10)
    with pytest.raises(ValueError, match="encodes"):
        NeuralEvaluator(a, LONG_FEATURES)


def test_the_race_network_against_the_bear_off_database() -> None:
    """Where both apply (both sides all home), the race network's win chances stay within 0.03 of the
    database's on average and its equity within 0.08 (the shipped network's: 0.021 and 0.051 over 2,000)."""
    network = _warm(_shipped_long())
    positions = bearoff_races(300, seed=1)
    evaluator = evaluator_for(network, find_variant("long-traditional"))
    assert set(network.part_of(LONG_FEATURES.encode(raw_boards(positions))).tolist()) == {1}
    error = race_error(evaluator, positions)
    assert error.win < 0.03 and error.equity < 0.08


def test_averaging_checkpoints_takes_each_weights_mean() -> None:
    """``average_networks``: every weight of both parts is the mean of the checkpoints'; the sources are named;
    networks of another shape or kind are refused."""
    a = _warm(Network.initial(inputs=LONG.inputs, hidden=5, seed=2, family="long"))
    b = _warm(Network.initial(inputs=LONG.inputs, hidden=5, seed=3, family="long"))
    a.meta["games"], b.meta["games"] = 100, 200
    mean = average_networks([a, b], ["a.npz", "b.npz"])
    assert isinstance(mean, PhasedNetwork)
    for part, (left, right) in zip(mean.parts(), zip(a.parts(), b.parts())):
        for value, x, y in zip(part.parameters(), left.parameters(), right.parameters()):
            assert np.allclose(value, (x + y) / 2)
    assert mean.meta["averaged"] == ["a.npz", "b.npz"] and mean.meta["games"] == 200
    assert np.array_equal(a.contact.w1, _warm(Network.initial(inputs=LONG.inputs, hidden=5, seed=2,
                                                             family="long")).contact.w1)
    with pytest.raises(ValueError, match="one kind, family and shape"):
        average_networks([a, _warm(Network.initial(inputs=LONG.inputs, hidden=6, seed=2, family="long"))],
                         ["a.npz", "c.npz"])
    with pytest.raises(ValueError, match="one kind, family and shape"):
        average_networks([a, a.contact], ["a.npz", "contact.npz"])
