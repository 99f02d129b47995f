"""Which engine plays each variant, its levels, and the pin game's heuristic bot (its measured rival)."""

from __future__ import annotations

import dataclasses
import random

import pytest

from nardy.bots import level_offered, levels_for, make_bot
from nardy.bots.base import BOT_LEVELS, CubeByBot
from nardy.bots.encoding import network_family
from nardy.bots.engines import ENGINES, EngineChoice, engine_for
from nardy.bots.hints import AnalysisOffer, analysis_offer, gives_hints
from nardy.bots.neural import LEVELS, WEIGHTS, NeuralBot
from nardy.bots.pin_heuristic import PinHeuristicBot, pin_score
from nardy.bots.sage import SAGE_LEVELS, SageBot, board_of
from nardy.rules import VARIANTS, Game, GameOptions, Phase, Position, find_variant


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
            assert network_family(variant).topology.name == variant.board, name  # a family of its board encodes it
        if kind == "bgsage":
            assert variant.board == "short" and variant.hitting, name


def test_bgsage_refuses_a_board_with_pins() -> None:
    with pytest.raises(ValueError, match="pins"):
        board_of(Position.start("plakoto"))


def test_levels_are_distinct_settings_of_the_variants_engine() -> None:
    assert levels_for("tavla") == BOT_LEVELS
    assert levels_for("fevga") == ("random", *LEVELS)
    assert levels_for("plakoto") == ("random", *LEVELS)
    assert levels_for("hypergammon") == ("random", *LEVELS)


def test_plakoto_and_fevga_are_played_by_their_own_networks() -> None:
    bot = make_bot("expert", variant="plakoto", seed=1)
    assert isinstance(bot, NeuralBot) and bot.name == "expert" and (bot.plies, bot.noise) == (1, 0.0)
    assert bot.evaluator.family.name == "plakoto"  # type: ignore[attr-defined]
    assert make_bot("beginner", variant="plakoto", seed=1).noise == LEVELS["beginner"].noise  # type: ignore[attr-defined]
    assert engine_for("plakoto").stand_in is None
    assert engine_for("fevga").kind == "network"  # tests/bots/test_neural.py builds its every level
    with pytest.raises(ValueError, match="known levels"):
        make_bot("world-class", variant="plakoto")
    assert engine_for("fevga").stand_in is None and WEIGHTS["fevga"] == "fevga"  # trained on fevga's games


def test_hypergammon_plays_its_network_and_leaves_the_cube_to_bgsage() -> None:
    """Our networks are cubeless; hypergammon keeps backgammon's cube (docs/rules.md §8.3), so its bots' cube
    decisions, and the analysis of them, are bgsage's at the same level."""
    from nardy.bots.analysis import judge_for
    from nardy.bots.judge_sage import SageJudge

    choice = engine_for("hypergammon")
    assert (choice.kind, choice.cube, choice.stand_in) == ("network", "bgsage", None)
    assert WEIGHTS["hypergammon"] == "hypergammon"
    bot = make_bot("expert", variant="hypergammon", seed=1)
    assert isinstance(bot, CubeByBot) and bot.name == "expert"
    assert isinstance(bot.checkers, NeuralBot)
    assert bot.checkers.evaluator.family.name == "hypergammon"  # type: ignore[attr-defined]
    assert isinstance(bot.cube, SageBot) and bot.cube.level == SAGE_LEVELS["expert"]
    assert isinstance(make_bot("beginner", variant="plakoto"), NeuralBot)  # no cube, no bgsage
    # a race of 12 pips each, ours on roll: a double and a take for bgsage; our network never doubles
    game = _hyper_race((3, 4, 5), (20, 21, 22))
    assert game.can_double(0)
    assert bot.wants_to_double(game, 0) and not bot.checkers.wants_to_double(game, 0)
    assert bot.accepts_double(game.double(0), 1)
    assert not bot.wants_to_double(_hyper_race((6, 6, 6), (21, 22, 23)), 0)  # 18 pips against 9: no double
    judge = judge_for("hypergammon", "advanced")
    assert judge.plies == 0 and isinstance(judge.cube_judge, SageJudge)  # type: ignore[attr-defined]
    cube = judge.cube(game)
    assert cube.double_pass == pytest.approx(1.0) and cube.no_double < cube.double_take < cube.double_pass


def test_a_table_keeps_playing_at_the_strongest_level_its_variant_still_offers() -> None:
    """A hypergammon table that chose bgsage's world-class before the network (which has no such level) took over
    plays on at expert; an offered level stays as it is, and a level no variant has is refused."""
    assert "world-class" not in levels_for("hypergammon")
    assert level_offered("world-class", variant="hypergammon") == "expert"
    assert level_offered("world-class", variant="backgammon") == "world-class"
    assert all(level_offered(level, variant=variant) == level for variant in VARIANTS for level in levels_for(variant))
    assert make_bot(level_offered("world-class", variant="hypergammon"), variant="hypergammon").name == "expert"
    with pytest.raises(ValueError, match="unknown bot level"):
        level_offered("grandmaster", variant="backgammon")


def _hyper_race(ours: tuple[int, ...], theirs: tuple[int, ...]) -> Game:
    """A money game of hypergammon with the cube in the centre, player 0 to roll, its checkers on ``ours`` and the
    opponent's on ``theirs`` (player 0's numbering)."""
    points = [0] * 24
    for point in ours:
        points[point - 1] += 1
    for point in theirs:
        points[point - 1] -= 1
    opening = Game.new("hypergammon", options=GameOptions(cube=True), first_player=0)
    position = Position(find_variant("hypergammon"), tuple(points))
    return dataclasses.replace(opening, position=position, phase=Phase.ROLLING, turns_played=6)


def test_hints_and_the_analysis_board_follow_the_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every analysis level where the engine rates equities (world-class is 2-ply with our networks); none where
    it rates no equities (a hand-written score), in that variant and in a match whose games include it (tavli):
    an engine change changes the offer with nothing else to edit."""
    every_level = AnalysisOffer(("advanced", "expert", "world-class"))
    for variant in ("backgammon", "fevga", "long-traditional", "plakoto", "tavli", "hypergammon"):
        assert analysis_offer(variant) == every_level and gives_hints(variant), variant
    assert analysis_offer("plakoto").default_level == "expert"
    monkeypatch.setitem(ENGINES, "plakoto", EngineChoice("heuristic"))
    assert analysis_offer("plakoto") == analysis_offer("tavli") == AnalysisOffer((), "no_equities")
    assert analysis_offer("plakoto").default_level is None and not gives_hints("plakoto")


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


def test_hints_and_analysis_wherever_an_engine_rates_equities() -> None:
    """Only a hand-written score rates no equities; plakoto is rated by its network (hints, analysis)."""
    from nardy.bots.analysis import judge_for
    from nardy.bots.hints import top_plays

    assert all(gives_hints(name) == (engine_for(name).kind != "heuristic") for name in ENGINES)
    start = Position.start("plakoto")
    hints = top_plays(start, (6, 5), level="advanced")
    assert hints and {hint.play.position for hint in hints} <= {play.position for play in start.legal_plays((6, 5))}
    assert [hint.equity for hint in hints] == sorted((hint.equity for hint in hints), reverse=True)
    assert judge_for("plakoto", "expert").plies == 1  # type: ignore[attr-defined]
