"""bgsage as the short board's engine: boards both ways, only our legal plays, cube answers in every cube state."""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Iterator

import pytest
from bgsage import flip_board, possible_moves

from nardy.bots import make_bot
from nardy.bots import sage as sage_module
from nardy.bots.sage import (
    CUBELESS,
    DOUBLING_FAR,
    SAGE_LEVELS,
    CubeAdvice,
    CubeContext,
    SageBot,
    SageUnavailable,
    board_of,
    engine,
    far_from_doubling,
    position_of,
    rank_plays,
)
from nardy.rules import Cube, Game, GameOptions, MatchContext, Phase, Position
from tests.bots.bot_positions import game_positions, random_position

SHORT = ("backgammon", "dave", "georgian")


def _positions(variant: str) -> list[Position]:
    """Positions of random games, with checkers on the bar and borne off among them."""
    return game_positions(variant, seed=7, count=600)


@pytest.mark.parametrize("variant", SHORT)
def test_boards_convert_both_ways_with_bars_and_borne_off_checkers(variant: str) -> None:
    positions = _positions(variant)
    assert any(p.bar[0] for p in positions) and any(p.bar[1] for p in positions)
    assert any(p.off[0] for p in positions) and any(p.off[1] for p in positions)
    for position in positions:
        board = board_of(position)
        assert len(board) == 26 and board[0] == position.bar[1] and board[25] == position.bar[0]
        assert position_of(variant, board) == position
        # bgsage turns a board over exactly as our rules turn a position over
        assert board_of(position.turned()) == list(flip_board(board))


def test_our_backgammon_plays_leave_the_boards_bgsages_generator_finds() -> None:
    """Where the rules are the same (backgammon), the two generators agree: the boards mean the same."""
    for seed in range(150):
        position, dice = random_position("backgammon", seed=seed, turns=seed % 60)
        ours = {tuple(board_of(p.position)) for p in position.legal_plays(dice)}
        theirs = {tuple(b) for b in possible_moves(board_of(position), *dice)} - {tuple(board_of(position))}
        assert ours == theirs, (position, dice)  # bgsage lists the unchanged board for a roll that cannot be played


def test_long_nardy_is_not_bgsages() -> None:
    with pytest.raises(ValueError, match="bgsage plays"):
        board_of(Position.start("long-traditional"))
    with pytest.raises(ValueError, match="26 numbers"):
        position_of("backgammon", [0] * 25)


def _georgian_stay_cases() -> Iterator[tuple[Position, tuple[int, int]]]:
    """Georgian positions where a hit in one's own home happens in some play of the roll."""
    for seed in range(400):
        position, dice = random_position("georgian", seed=seed, turns=8 + seed % 40)
        plays = position.legal_plays(dice)
        if any(step.hit and step.target <= 6 for play in plays for step in play.steps):
            yield position, dice


@pytest.mark.parametrize("level", list(SAGE_LEVELS))
def test_every_level_chooses_one_of_our_legal_plays(level: str) -> None:
    chosen_level = SAGE_LEVELS[level]
    deep = chosen_level.plies >= 3
    if chosen_level.time_budget is not None:  # the same search on a shorter clock: legality, not strength, is tested
        chosen_level = dataclasses.replace(chosen_level, time_budget=0.4)
    bot = SageBot(chosen_level, seed=3, name=level)
    cases = list(_georgian_stay_cases())[: 4 if deep else 25]
    assert cases
    for position, dice in cases:
        assert bot.choose_play(position, dice) in position.legal_plays(dice)
    for variant in ("backgammon", "dave"):
        for seed in range(3 if deep else 12):
            position, dice = random_position(variant, seed=seed, turns=5 + 3 * seed)
            plays = position.legal_plays(dice)
            chosen = bot.choose_play(position, dice)
            assert chosen in plays if plays else chosen is None


def test_bgsage_never_plays_what_georgian_forbids() -> None:
    """Where Georgian's stay rule forbids plays backgammon allows, the best choice is still ours."""
    found = 0
    for position, dice in _georgian_stay_cases():
        ours = {tuple(board_of(p.position)) for p in position.legal_plays(dice)}
        theirs = {tuple(b) for b in possible_moves(board_of(position), *dice)}
        if theirs - ours:
            found += 1
            best = rank_plays(position, dice, plies=2)[0].play
            assert tuple(board_of(best.position)) in ours
    assert found > 0, "no case where the Georgian rules forbid a backgammon play"


def test_ranking_goes_deeper_on_the_best_only() -> None:
    position, dice = Position.start("backgammon"), (6, 4)
    plays = position.legal_plays(dice)
    shallow = rank_plays(position, dice, plies=1)
    assert {r.play for r in shallow} == set(plays)
    assert [r.equity for r in shallow] == sorted((r.equity for r in shallow), reverse=True)
    engine = sage_module.engine()
    before = board_of(position)
    by_play = {r.play: r.equity for r in shallow}
    assert by_play == dict(zip(plays, engine.one_ply(before, [board_of(p.position) for p in plays], CUBELESS)))
    deep = rank_plays(position, dice, plies=3)
    three_ply = engine.deep(before, [board_of(deep[0].play.position)], CUBELESS, plies=3)[0]
    assert deep[0].equity == pytest.approx(three_ply)
    assert rank_plays(position, dice, plies=3, deadline=time.perf_counter() + 60) == deep
    spent = rank_plays(position, dice, plies=3, deadline=0.0)  # no time for any deeper ply: the 1-ply ranking
    assert spent == shallow


def test_world_class_looks_four_plies_ahead_on_the_best_two() -> None:
    position, dice = Position.start("backgammon"), (5, 2)
    deepest = rank_plays(position, dice, plies=4)
    assert [r.plies for r in deepest[:2]] == [4, 4] and all(r.plies < 4 for r in deepest[2:])
    four_ply = sage_module.engine().deep(board_of(position), [board_of(deepest[0].play.position)], CUBELESS, plies=4)
    assert deepest[0].equity == pytest.approx(four_ply[0])
    with pytest.raises(ValueError, match="1 to 4 plies"):
        rank_plays(position, dice, plies=5)


def test_cubeful_rating_follows_the_cube_and_the_score() -> None:
    position = Position.start("backgammon")
    boards = [board_of(p.position) for p in position.legal_plays((3, 1))]
    engine = sage_module.engine()
    before = board_of(position)
    cubeless = engine.one_ply(before, boards, CUBELESS)
    money = engine.one_ply(before, boards, CubeContext(live=True))
    match = engine.one_ply(before, boards, CubeContext(live=True, away=(2, 5)))
    assert cubeless != money != match
    assert max(range(len(boards)), key=cubeless.__getitem__) == max(range(len(boards)), key=money.__getitem__)


def _cube_games() -> Iterator[Game]:
    """Backgammon and dave games in every cube state: centred, owned by either side, money and match scores,
    the Crawford game, dave's first turn, a cube at the 64 cap."""
    position, _ = random_position("backgammon", seed=11, turns=14)
    contexts = [
        MatchContext(),
        MatchContext(length=7, score=(3, 5)),
        MatchContext(length=5, score=(4, 2), crawford=True),
        MatchContext(length=5, score=(4, 3)),
    ]
    for variant in ("backgammon", "dave"):
        dave_position = position if variant == "backgammon" else Position(
            Position.start("dave").variant, position.points, position.bar, position.off,
        )
        for context in contexts:
            options = GameOptions(cube=True, jacoby=context.length == 0, beavers=context.length == 0)
            if variant == "dave":
                options = GameOptions(cube=True)
            try:
                game = Game.new(variant, options=options, context=context, first_player=0)
            except ValueError:
                continue
            for cube in (Cube(), Cube(2, 0), Cube(2, 1), Cube(64, 1)):
                for turns_played in (0, 6):
                    yield dataclasses.replace(
                        game, position=dave_position, cube=cube, turns_played=turns_played, phase=Phase.ROLLING,
                    )


def test_cube_answers_are_legal_in_every_cube_state() -> None:
    bot = make_bot("advanced", variant="backgammon", seed=1)
    games = list(_cube_games())
    assert len(games) > 40
    takes = 0
    for game in games:
        wants = bot.wants_to_double(game, game.turn)
        assert isinstance(wants, bool)
        if not game.can_double(game.turn):
            assert wants is False, game.double_refusal(game.turn)
            continue
        doubled = game.double(game.turn)
        takes += bot.accepts_double(doubled, doubled.opponent)
    assert takes > 0


def test_the_expert_does_not_double_from_the_bar_21_pips_behind() -> None:
    """The case a new user met: our expert doubled while on the bar and 21 pips behind."""
    points = [0] * 24
    for point, count in ((24, 1), (13, 5), (8, 3), (6, 5)):  # mine, one more on the bar
        points[point - 1] = count
    for point, count in ((1, 2), (12, 3), (17, 3), (19, 5), (22, 2)):  # theirs: two moved 13 -> 3
        points[point - 1] = -count
    behind = Position(Position.start("backgammon").variant, tuple(points), (1, 0), (0, 0))
    mine, theirs = behind.pip_counts()
    assert (mine, theirs) == (168, 147)
    game = dataclasses.replace(
        Game.new("backgammon", options=GameOptions(cube=True), first_player=0), position=behind, turns_played=6,
    )
    assert game.can_double(0)
    for level in ("advanced", "expert", "world-class"):  # world-class's cube looks 3 plies ahead, as the expert's
        assert make_bot(level, variant="backgammon").wants_to_double(game, 0) is False


def _advice(no_double: float, double_take: float, double_pass: float = 1.0) -> CubeAdvice:
    doubled = min(double_take, double_pass)
    return CubeAdvice(no_double, double_take, double_pass, doubled > no_double, double_take <= double_pass)


def test_far_from_doubling_is_only_ever_short_of_the_window() -> None:
    assert far_from_doubling(_advice(0.10, -0.20))
    assert not far_from_doubling(_advice(0.45, 0.45 - DOUBLING_FAR + 0.01))
    assert not far_from_doubling(_advice(0.40, 0.60)), "a double"
    assert not far_from_doubling(_advice(1.30, 1.60)), "too good to double: a cash may be near, for the deep look"


class _CountingEngine:
    """bgsage's engine, noting the depth of each cube analysis asked."""

    def __init__(self) -> None:
        self.depths: list[int] = []

    def cube(self, board: list[int], context: CubeContext, *, plies: int) -> CubeAdvice:
        self.depths.append(plies)
        return engine().cube(board, context, plies=plies)


def test_deeper_levels_analyse_the_cube_at_their_depth_only_near_the_window(monkeypatch: pytest.MonkeyPatch) -> None:
    counting = _CountingEngine()
    monkeypatch.setattr(sage_module, "engine", lambda: counting)
    opening = Game.new("backgammon", options=GameOptions(cube=True), first_player=0)
    game = dataclasses.replace(opening, phase=Phase.ROLLING, turns_played=6)
    assert make_bot("expert", variant="backgammon").wants_to_double(game, 0) is False
    assert counting.depths == [1], "the starting position is far from a double: the 1-ply look decides"
    counting.depths.clear()
    assert make_bot("advanced", variant="backgammon").wants_to_double(game, 0) is False
    assert counting.depths == [1]
    near = next(g for g in _money_games() if not far_from_doubling(engine().cube(
        board_of(g.board_for(0)), CubeContext.of(g, 0), plies=1)))
    counting.depths.clear()
    make_bot("expert", variant="backgammon").wants_to_double(near, 0)
    assert counting.depths == [1, 3]


def _money_games() -> Iterator[Game]:
    """Money games with a centred cube in positions of random games, the side to roll allowed to double."""
    start = Game.new("backgammon", options=GameOptions(cube=True, jacoby=True, beavers=True), first_player=0)
    for position in game_positions("backgammon", seed=7, count=600)[::20]:
        game = dataclasses.replace(start, position=position, phase=Phase.ROLLING, turns_played=6)
        if game.can_double(0):
            yield game


FOUND_LATE = (3, 3, 4, -2, 3, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, -2, -2, -2, -2, -2, -3)
"""A position of the advanced level's games (benchmarks/cube_filter.py): a double by the 3-ply analysis that the
1-ply one put 0.12 below holding, the furthest such case the benchmark met."""


def test_the_expert_doubles_where_its_own_cube_analysis_doubles() -> None:
    """Skipping the 3-ply analysis far from the window changes no decision (benchmarks/cube_filter.py measures
    it on thousands of decisions); here on positions of random games, doubles among them, and on the double
    the 1-ply analysis saw worst."""
    late = Position(Position.start("backgammon").variant, FOUND_LATE, (0, 0), (0, 0))
    games = [*_money_games(), dataclasses.replace(next(_money_games()), position=late)]
    expert = make_bot("expert", variant="backgammon")
    decided = [(expert.wants_to_double(game, 0), engine().cube(
        board_of(game.board_for(0)), CubeContext.of(game, 0), plies=3).should_double) for game in games]
    assert [ours for ours, _ in decided] == [deep for _, deep in decided]
    assert decided[-1] == (True, True)
    assert any(deep for _, deep in decided) and not all(deep for _, deep in decided)


def test_a_missing_bgsage_is_reported_when_the_engine_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "bgbot_cpp", None)
    sage_module.engine.cache_clear()
    try:
        with pytest.raises(SageUnavailable, match="bgsage is not installed"):
            make_bot("advanced", variant="backgammon")
    finally:
        monkeypatch.undo()
        sage_module.engine.cache_clear()
    assert isinstance(make_bot("advanced", variant="backgammon"), SageBot)


def test_world_class_is_for_the_short_board() -> None:
    assert make_bot("world-class", variant="dave").name == "world-class"
    with pytest.raises(ValueError, match="known levels"):
        make_bot("world-class", variant="long-traditional")
