"""The load benchmark's levels: the same games dealt the same way each run, among the client processes."""

from __future__ import annotations

from benchmarks.load.levels import LevelOptions, client_configs, pick_opponents, pick_variants


def test_the_computer_plays_its_share_of_the_games_the_same_ones_each_run() -> None:
    opponents = pick_opponents(10, 0.3, "intermediate", seed=1)
    assert opponents.count("intermediate") == 3 and opponents.count(None) == 7
    assert pick_opponents(10, 0.3, "intermediate", seed=1) == opponents
    assert pick_opponents(4, 0.0, "expert", seed=1) == [None] * 4


def test_the_variants_keep_their_shares_the_same_ones_each_run() -> None:
    weights = [("backgammon", 0.5), ("georgian", 0.2), ("long-traditional", 0.3)]
    variants = pick_variants(weights, 10, seed=1)
    assert sorted(variants) == ["backgammon"] * 5 + ["georgian"] * 2 + ["long-traditional"] * 3
    assert pick_variants(weights, 10, seed=1) == variants


def test_every_game_goes_to_exactly_one_client_process() -> None:
    options = LevelOptions(weights=[("backgammon", 1.0), ("georgian", 1.0)], think=2.0, warmup=1.0, duration=3.0,
                           clients=3, seed=1, compression=True, computer=0.5, computer_level="expert", rss_every=60.0)
    configs = client_configs(10, options, "http://127.0.0.1:1")
    assert [config.index for config in configs] == [0, 1, 2]
    assert sorted(v for config in configs for v in config.variants) == sorted(pick_variants(options.weights, 10, 1))
    assert sum(len(config.opponents) for config in configs) == 10
    assert sum(o == "expert" for config in configs for o in config.opponents) == 5
