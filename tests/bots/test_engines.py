"""Which engine plays each variant, its levels, and the pin game's heuristic bot."""

from __future__ import annotations

import random

import pytest

from nardy.bots import levels_for, make_bot
from nardy.bots.base import BOT_LEVELS, HEURISTIC_LEVELS
from nardy.bots.engines import ENGINES, EngineChoice, engine_for
from nardy.bots.hints import AnalysisOffer, analysis_offer
from nardy.bots.neural import LEVELS, WEIGHTS
from nardy.bots.pin_heuristic import PinHeuristicBot, pin_score
from nardy.bots.sage import board_of
from nardy.rules import VARIANTS, Position, find_variant


def test_every_variant_has_an_engine_that_can_read_its_positions() -> None:
    """A match of rotating games (tavli) has none of its own: each game's rule set has one."""
    single = {name: variant for name, variant in VARIANTS.items() if not variant.games}
    assert set(ENGINES) == set(single)
    assert all(game.name in ENGINES for variant in VARIANTS.values() for game in variant.game_variants)
    for name, variant in single.items():
        kind = engine_for(name).kind
        if variant.pinning:
            assert kind != "bgsage", name  # bgsage has no pins: a pinned checker would read as borne off
        if kind == "network":
            assert variant.board == "long", name  # our networks encode the long board only
        if kind == "bgsage":
            assert variant.board == "short" and variant.hitting, name


def test_bgsage_refuses_a_board_with_pins() -> None:
    with pytest.raises(ValueError, match="pins"):
        board_of(Position.start("plakoto"))


def test_levels_are_distinct_settings_of_the_variants_engine() -> None:
    assert levels_for("tavla") == BOT_LEVELS
    assert levels_for("fevga") == ("random", *LEVELS)
    assert levels_for("plakoto") == ("random", *HEURISTIC_LEVELS)
    assert len(set(HEURISTIC_LEVELS.values())) == len(HEURISTIC_LEVELS)


def test_plakoto_is_played_by_the_pin_heuristic_and_fevga_by_its_own_network() -> None:
    bot = make_bot("intermediate", variant="plakoto", seed=1)
    assert isinstance(bot, PinHeuristicBot) and bot.name == "intermediate" and bot.noise == 0.0
    assert make_bot("beginner", variant="plakoto", seed=1).noise > 0  # type: ignore[attr-defined]
    assert engine_for("fevga").kind == "network"  # tests/bots/test_neural.py builds its every level
    with pytest.raises(ValueError, match="known levels"):
        make_bot("world-class", variant="plakoto")
    assert engine_for("fevga").stand_in is None and WEIGHTS["fevga"] == "fevga"  # trained on fevga's games


def test_hints_and_the_analysis_board_follow_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every analysis level where the engine rates equities (world-class is 2-ply with our network); none where
    the engine rates no equities, in plakoto and in tavli, whose games include it; an engine change (a network
    trained for plakoto) changes the offer with nothing else to edit."""
    every_level = AnalysisOffer(("advanced", "expert", "world-class"))
    assert analysis_offer("backgammon") == analysis_offer("fevga") == analysis_offer("long-traditional") == every_level
    assert analysis_offer("plakoto") == analysis_offer("tavli") == AnalysisOffer((), "no_equities")
    assert analysis_offer("fevga").default_level == "expert" and analysis_offer("plakoto").default_level is None
    monkeypatch.setitem(ENGINES, "plakoto", EngineChoice("network"))
    assert analysis_offer("plakoto") == analysis_offer("tavli") == every_level


def _plakoto(points: dict[int, int], pinned: dict[int, int], off: tuple[int, int] = (0, 0)) -> Position:
    board = [points.get(point, 0) for point in range(1, 25)]
    pins = [pinned.get(point, 0) for point in range(1, 25)]
    return Position(find_variant("plakoto"), tuple(board), (0, 0), off, tuple(pins))


def test_the_pin_heuristic_takes_the_mothers_pin() -> None:
    """Pinning the opponent's last checker on its start, our own start empty, wins the game at once (rules §9)."""
    position = _plakoto({7: 14, 3: 1, 1: -1, 13: -14}, {})
    chosen = PinHeuristicBot().choose_play(position, (6, 2))
    assert chosen is not None and chosen.position.pinned[0] == -1
    assert position.variant.early_end(chosen.position) == "gammon"


def test_the_pin_heuristic_counts_pins_both_ways() -> None:
    """A pin held is worth more than the same checkers without it; a pin suffered costs."""
    free = _plakoto({20: 3, 10: 12, 11: -1, 5: -14}, {})
    holding = _plakoto({20: 3, 10: 11, 11: 1, 5: -14}, {11: -1})
    held = _plakoto({20: 3, 10: 11, 11: -1, 5: -14}, {11: 1})
    assert pin_score(holding) > pin_score(free) > pin_score(held)


def test_the_pin_heuristic_plays_legal_plakoto_against_random() -> None:
    bot, rng = PinHeuristicBot(), random.Random(3)
    position = Position.start("plakoto")
    for _ in range(120):
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = position.legal_plays(dice)
        chosen = bot.choose_play(position, dice)
        assert chosen in plays if plays else chosen is None
        after = chosen.position if chosen is not None else position
        if after.winner_is_mover() or position.variant.early_end(after) is not None:
            break
        position = after.turned()


def test_no_hints_or_analysis_where_no_engine_rates_equities() -> None:
    from nardy.bots.analysis import judge_for
    from nardy.bots.hints import top_plays

    with pytest.raises(ValueError, match="no hints"):
        top_plays(Position.start("plakoto"), (6, 5))
    with pytest.raises(ValueError, match="no analysis"):
        judge_for("plakoto", "expert")
