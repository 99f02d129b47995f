"""TD(λ) training (nardy.bots.training) of a variant beside long nardy: fevga, warm-started from a long network."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from nardy.bots.encoding import LONG
from nardy.bots.network import Network
from nardy.bots.training import TDLearner, TrainConfig, Trainer, trained_name
from nardy.rules import WinKind, find_variant


def _fevga_run(directory: Path, init: Path) -> Trainer:
    config = TrainConfig(
        variant="fevga", checkpoint_dir=directory, hidden=6, games=2, seed=5,
        checkpoint_every=2, benchmark_every=0, init=init,
    )
    return Trainer(config)


def test_a_fevga_run_starts_from_long_weights_and_trains_its_own(tmp_path: Path) -> None:
    """Same seed, same games: the same weights; the run is fevga's, never long nardy's file."""
    Network.initial(inputs=LONG.inputs, hidden=6, seed=3, family="long").save(tmp_path / "long.npz", exact=True)
    runs = [_fevga_run(tmp_path / name, tmp_path / "long.npz") for name in ("a", "b")]
    for run in runs:
        run.train()
    for a, b in zip(runs[0].network.parameters(), runs[1].network.parameters()):
        assert np.array_equal(a, b)
    assert trained_name("fevga") == "fevga"
    exported = Network.load(runs[0].export(tmp_path / "fevga.npz"))
    assert exported.meta["name"] == "fevga" and exported.meta["variants"] == ["fevga"]
    assert exported.meta["games"] == 2 and exported.meta["init"].startswith("long.npz")


def test_a_fevga_game_ends_as_the_rules_score_it() -> None:
    """docs/rules.md §10: «Scoring: single 1, gammon 2 (the loser bore off none); no triple»: result level 0 or 1."""
    assert find_variant("fevga").kinds.index(WinKind.GAMMON) == 1
    learner = TDLearner(Network.initial(inputs=LONG.inputs, hidden=6, seed=3, family="long"), alpha=0.1, lambda_=0.7)
    result = learner.play("fevga", random.Random(2))
    assert result is not None
    winner, level = result
    assert winner in (0, 1) and level in (0, 1)
