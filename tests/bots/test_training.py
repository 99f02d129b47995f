"""TD(λ) training (nardy.bots.training) beside long nardy: fevga warm-started from a long network, plakoto and
hypergammon in their own families, each game ended and scored as the rules end it."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

from nardy.bots.encoding import HYPERGAMMON, LONG, PLAKOTO
from nardy.bots.network import Network
from nardy.bots.training import TDLearner, Trainer, TrainConfig, duel, weights_name
from nardy.rules import Play, Position, WinKind, find_variant


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
    assert weights_name("fevga") == "fevga"
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


def _tiny(directory: Path, games: int, variant: str = "plakoto") -> TrainConfig:
    return TrainConfig(
        variant=variant, checkpoint_dir=directory, hidden=4, games=games, seed=3, checkpoint_every=1,
        benchmark_every=0,
    )


def test_plakoto_trains_its_own_family_and_resumes_exactly(tmp_path: Path) -> None:
    straight = Trainer(_tiny(tmp_path / "a", 2))
    straight.train()
    first = Trainer(_tiny(tmp_path / "b", 1))
    first.train()
    resumed = Trainer(_tiny(tmp_path / "b", 2))
    resumed.train()
    for a, b in zip(straight.network.parameters(), resumed.network.parameters()):
        assert np.array_equal(a, b)
    assert straight.network.family == "plakoto" and straight.network.inputs == PLAKOTO.inputs
    assert weights_name("plakoto") == "plakoto" and weights_name("long-bolshie") == "long"


def test_a_self_play_game_ends_with_a_win_the_rules_know() -> None:
    """Plakoto's wins are single (1) or gammon (2, also the mother rule's); no backgammon (docs/rules.md §9)."""
    network = Network.initial(inputs=PLAKOTO.inputs, hidden=4, seed=1, family="plakoto")
    learner = TDLearner(network, alpha=0.1, lambda_=0.7)
    dice = random.Random(2)
    results = [learner.play("plakoto", dice) for _ in range(2)]
    assert all(result is None or (result[0] in (0, 1) and result[1] in (0, 1)) for result in results)


def test_hypergammon_trains_its_own_family_and_resumes_exactly(tmp_path: Path) -> None:
    straight = Trainer(_tiny(tmp_path / "a", 4, "hypergammon"))
    straight.train()
    first = Trainer(_tiny(tmp_path / "b", 3, "hypergammon"))
    first.train()
    resumed = Trainer(_tiny(tmp_path / "b", 4, "hypergammon"))
    resumed.train()
    for a, b in zip(straight.network.parameters(), resumed.network.parameters()):
        assert np.array_equal(a, b)
    assert straight.network.family == "hypergammon" and straight.network.inputs == HYPERGAMMON.inputs
    exported = Network.load(straight.export(tmp_path / "hypergammon.npz"))
    assert exported.meta["name"] == weights_name("hypergammon") == "hypergammon"
    assert exported.meta["variants"] == ["hypergammon"] and exported.meta["games"] == 4


def test_hypergammon_self_play_scores_gammons_and_backgammons() -> None:
    """docs/rules.md: backgammon's scoring, «single 1, gammon 2, backgammon 3»: with three checkers a side all three
    come up in a few dozen games of an untrained network."""
    assert find_variant("hypergammon").kinds.index(WinKind.BACKGAMMON) == 2
    network = Network.initial(inputs=HYPERGAMMON.inputs, hidden=4, seed=1, family="hypergammon")
    learner = TDLearner(network, alpha=0.1, lambda_=0.7)
    dice = random.Random(7)
    results = [learner.play("hypergammon", dice) for _ in range(60)]
    assert all(result is not None and result[0] in (0, 1) for result in results)
    assert {result[1] for result in results if result is not None} == {0, 1, 2}


class _FirstPlay:
    """Plays the first legal play (a fixed script)."""

    def choose_play(self, position: Position, dice: tuple[int, int]) -> Play | None:
        plays = position.legal_plays(dice)
        return plays[0] if plays else None


def test_duel_scores_the_games_it_plays() -> None:
    result = duel(_FirstPlay(), _FirstPlay(), "plakoto", 2, seed=4)
    assert result.games == 2 and 0 <= result.wins <= 2 and abs(result.points) <= 4
