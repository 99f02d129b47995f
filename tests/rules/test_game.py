"""One game as a state machine: the opening roll, turns, passes, wrong actions,
scoring at the end of a game and resignation (seeds 000–004, docs/rules.md §1, §3–§6).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.rules import (
    Cube,
    CubeError,
    Game,
    GameOptions,
    IllegalActionError,
    IllegalPlayError,
    InvalidDiceError,
    Match,
    MatchContext,
    Moved,
    OpeningRolled,
    Passed,
    Phase,
    Position,
    ResignationDeclined,
    ResignationOffered,
    Resigned,
    Rolled,
    Step,
    WinKind,
    WrongTurnError,
    find_variant,
)
from tests.rules.positions import make

SHORT = ["backgammon", "georgian", "dave"]
LONG = ["long-traditional", "long-tournament", "long-bolshie"]
CUBE = GameOptions(cube=True)


# ----- helpers


def context_for(variant: str) -> MatchContext:
    """A context every variant accepts: money play for backgammon, a match otherwise."""
    return MatchContext() if variant == "backgammon" else MatchContext(length=5)


def new(variant: str, **kwargs: object) -> Game:
    kwargs.setdefault("context", context_for(variant))
    return Game.new(variant, **kwargs)  # type: ignore[arg-type]


def rolling_at(
    variant: str,
    at: Position,
    *,
    turn: int = 0,
    cube: Cube = Cube(),
    options: GameOptions | None = None,
    context: MatchContext | None = None,
) -> Game:
    """A game in the middle (turn 10), ``turn`` to roll, in position ``at`` (seen from ``turn``)."""
    game = Game.new(variant, options=options, context=context if context is not None else context_for(variant))
    return replace(game, position=at, phase=Phase.ROLLING, turn=turn, white=0, cube=cube, turns_played=10)


def bear_off_last(game: Game) -> Game:
    """The player on turn, whose last checker stands on point 1, rolls 1-1 and bears it off.

    (A double, so that the play does not depend on which die bears the checker off.)
    """
    game = game.roll(game.turn, (1, 1))
    plays = game.legal_plays()
    assert len(plays) == 1
    return game.move(game.turn, plays[0].steps)


def win_from(variant: str, opponent: dict[int, int], *, bar: tuple[int, int] = (0, 0), **kwargs: object) -> Game:
    """Player 0 (last checker on point 1) bears off against ``opponent`` (player 0's point numbers)."""
    at = make(variant, {1: 1}, opponent, bar=bar)
    return bear_off_last(rolling_at(variant, at, **kwargs))  # type: ignore[arg-type]


# ----- opening roll


@pytest.mark.parametrize("variant", SHORT + LONG)
def test_tied_opening_is_rerolled(variant: str) -> None:
    """000: «При равенстве кубики перебрасываются.» 004: «при равенстве бросают снова.»"""
    game = new(variant)
    tied = game.opening_roll((4, 4))
    assert tied.phase is Phase.OPENING
    assert tied.dice is None
    assert tied.history == (OpeningRolled((4, 4)),)
    again = tied.opening_roll((2, 2)).opening_roll((6, 1))
    assert again.history[:2] == (OpeningRolled((4, 4)), OpeningRolled((2, 2)))
    assert again.phase is not Phase.OPENING


@pytest.mark.parametrize("variant", SHORT)
@pytest.mark.parametrize(("dice", "first", "played"), [((5, 2), 0, (5, 2)), ((2, 5), 1, (5, 2)), ((1, 6), 1, (6, 1))])
def test_short_opening_higher_die_moves_with_both_numbers(
    variant: str, dice: tuple[int, int], first: int, played: tuple[int, int]
) -> None:
    """000: «Игрок с большим значением ходит первым, объединяя свой бросок с броском соперника.»
    002: «У кого выпало больше, тот начинает и первым ходом играет именно эти два кубика — свой и соперника.»
    """
    game = new(variant).opening_roll(dice)
    assert game.phase is Phase.MOVING
    assert game.turn == first
    assert game.white == first
    assert game.dice == played
    assert game.history == (OpeningRolled(dice),)
    assert game.legal_plays() == game.position.legal_plays(played)
    # the opening winner plays at once: no roll of its own
    with pytest.raises(IllegalActionError):
        game.roll(first, (3, 3))


@pytest.mark.parametrize("variant", LONG)
@pytest.mark.parametrize(("dice", "first"), [((5, 2), 0), ((1, 3), 1)])
def test_long_opening_winner_plays_white_and_rolls(variant: str, dice: tuple[int, int], first: int) -> None:
    """004: «Тот, у кого выпало больше, играет белыми и начинает, бросая затем обе кости для первого хода.»"""
    game = new(variant).opening_roll(dice)
    assert game.phase is Phase.ROLLING
    assert game.turn == first
    assert game.white == first
    assert game.dice is None
    rolled = game.roll(first, (6, 5))
    assert rolled.phase is Phase.MOVING and rolled.dice == (6, 5)
    assert rolled.history[-1] == Rolled(first, (6, 5))


@given(st.integers(1, 6), st.integers(1, 6))
@settings(max_examples=60, deadline=None)
def test_opening_roll_any_dice(a: int, b: int) -> None:
    """000: the higher die moves first with both numbers; a tie is rerolled."""
    game = Game.new("backgammon").opening_roll((a, b))
    if a == b:
        assert game.phase is Phase.OPENING
    else:
        winner = 0 if a > b else 1
        assert (game.turn, game.dice) == (winner, (max(a, b), min(a, b)))


def test_opening_roll_only_once() -> None:
    """000: the opening decides the first move once; after it, players roll two dice in turn."""
    game = new("backgammon").opening_roll((5, 2))
    with pytest.raises(IllegalActionError):
        game.opening_roll((6, 1))
    with pytest.raises(IllegalActionError):
        Game.new("backgammon").roll(0, (6, 1))


@pytest.mark.parametrize("dice", [(0, 3), (7, 1), (3,), (1, 2, 3), ("a", 1), (True, 2)])
def test_invalid_dice_are_refused(dice: tuple[object, ...]) -> None:
    """docs/rules.md §1: two dice, each 1..6; anything else is an InvalidDiceError."""
    game = new("backgammon")
    with pytest.raises(InvalidDiceError):
        game.opening_roll(dice)  # type: ignore[arg-type]
    rolling = new("backgammon").opening_roll((3, 1))
    rolling = rolling.move(0, rolling.legal_plays()[0].steps)
    with pytest.raises(InvalidDiceError):
        rolling.roll(1, dice)  # type: ignore[arg-type]


# ----- automatic doubles (money play)


def test_automatic_double_doubles_the_centred_cube_on_a_tied_opening() -> None:
    """000: «Автоматическое удвоение: если самый первый бросок даёт дубль, куб остаётся в центре,
    но его значение автоматически становится 2 (вместо 1). По соглашению допустимо лишь одно
    автоматическое удвоение за партию. Кубики перебрасываются для определения первого хода.»"""
    options = GameOptions(cube=True, automatic_doubles=1)
    game = Game.new("backgammon", options=options).opening_roll((3, 3))
    assert game.phase is Phase.OPENING
    assert game.cube == Cube(2, None)
    assert game.history[-1] == OpeningRolled((3, 3), automatic_double=True)
    # the limit is one: a second tie is simply rerolled
    game = game.opening_roll((5, 5))
    assert game.cube == Cube(2, None)
    assert game.history[-1] == OpeningRolled((5, 5), automatic_double=False)
    # the cube stays centred: either player may double later
    game = game.opening_roll((4, 1))
    game = game.move(0, game.legal_plays()[0].steps)
    assert game.can_double(1)
    assert game.double(1).take(0).cube == Cube(4, 0)


@pytest.mark.parametrize("limit", [2, 3, 6, 8, -1])
def test_only_one_automatic_double_per_game(limit: int) -> None:
    """000: «По соглашению допустимо лишь одно автоматическое удвоение за партию.» — a limit other than 0 or 1 is refused."""
    options = GameOptions(cube=True, automatic_doubles=limit)
    with pytest.raises(IllegalActionError, match="only one automatic double per game"):
        find_variant("backgammon").check_options(options, 0)
    with pytest.raises(IllegalActionError, match="only one automatic double per game"):
        Game.new("backgammon", options=options)
    with pytest.raises(IllegalActionError, match="only one automatic double per game"):
        Match.new("backgammon", length=0, options=options)
    for allowed in (0, 1):
        find_variant("backgammon").check_options(GameOptions(cube=True, automatic_doubles=allowed), 0)


def test_no_automatic_double_without_the_option() -> None:
    """000: automatic doubles are an option players agree on; without it a tie is only rerolled."""
    game = Game.new("backgammon", options=CUBE).opening_roll((6, 6))
    assert game.cube == Cube(1, None)
    assert game.history[-1] == OpeningRolled((6, 6), automatic_double=False)


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("backgammon", GameOptions(cube=True, jacoby=True)),
        ("backgammon", GameOptions(cube=True, automatic_doubles=1)),
        ("dave", GameOptions(cube=True, jacoby=True)),
        ("dave", GameOptions(cube=True, automatic_doubles=1)),
    ],
)
def test_jacoby_and_automatic_doubles_not_in_matches(variant: str, options: GameOptions) -> None:
    """000: «В матчах, где нужно набрать определённое число очков, автоматическое удвоение и правило
    Якоби обычно не применяются. Это в основном правила свободной игры или игры на деньги.»"""
    with pytest.raises(IllegalActionError, match="money play"):
        Game.new(variant, options=options, context=MatchContext(length=5))
    with pytest.raises(IllegalActionError, match="money play"):
        find_variant(variant).check_options(options, 5)
    if variant == "backgammon":
        Game.new(variant, options=options)  # money play accepts them


# ----- turns


def test_turns_alternate() -> None:
    """000: «Все последующие ходы игроки делают по очереди, бросая по два кубика.»"""
    game = new("backgammon").opening_roll((3, 1))
    assert game.turn == 0
    game = game.move(0, game.legal_plays()[0].steps)
    expected = 1
    for dice in ((6, 5), (4, 2), (5, 5), (2, 1), (6, 3), (4, 4)):
        assert game.phase is Phase.ROLLING and game.turn == expected
        game = game.roll(expected, dice)
        assert game.history[-1] == Rolled(expected, dice)
        assert game.phase is Phase.MOVING and game.turn == expected and game.dice == dice
        play = game.legal_plays()[0]
        game = game.move(expected, play.steps)
        assert game.history[-1] == Moved(expected, dice, play.steps)
        expected = 1 - expected
    assert game.turn == expected and game.dice is None


@given(st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=1, max_size=16), st.integers(0, 10**6))
@settings(max_examples=25, deadline=None)
def test_turns_alternate_property(rolls: list[tuple[int, int]], choice: int) -> None:
    """000: players move in turn; every roll (played or passed) hands the turn over."""
    game = new("georgian").opening_roll((2, 6))
    game = game.move(1, game.legal_plays()[choice % len(game.legal_plays())].steps)
    for dice in rolls:
        mover = game.turn
        game = game.roll(mover, dice)
        if game.phase is Phase.MOVING:
            plays = game.legal_plays()
            game = game.move(mover, plays[choice % len(plays)].steps)
        else:
            assert game.history[-1] == Passed(mover, dice)
        assert game.turn == 1 - mover
        assert game.phase is Phase.ROLLING


@pytest.mark.parametrize("variant", ["backgammon", "georgian", "dave"])
def test_roll_with_no_legal_play_is_a_pass(variant: str) -> None:
    """003: «Если игрок не может сделать ход… выполняя "пустой" ход… Такой ход обозначен как "pass"
    в записи игры.» 000: «Игрок пропускает и ждёт следующего хода.»

    Player 0 is on the bar against a closed board.
    """
    at = make(variant, {6: 10, 8: 4}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3}, bar=(1, 0))
    game = rolling_at(variant, at, turn=0, options=CUBE if variant != "georgian" else None)
    passed = game.roll(0, (5, 3))
    assert passed.history[-2:] == (Rolled(0, (5, 3)), Passed(0, (5, 3)))
    assert passed.turn == 1 and passed.phase is Phase.ROLLING and passed.dice is None
    assert passed.turns_played == game.turns_played + 1
    # the board is unchanged, seen now from player 1
    assert passed.board_for(0) == at


def test_long_nardy_pass_when_blocked() -> None:
    """004: «Если возможных ходов нет, очередь переходит к сопернику.»

    Player 0's only checkers outside the head are blocked by opposing checkers.
    """
    # player 0: 14 on its head (24), 1 on 23; opposing checkers on 22, 21, 20 block 3-2
    at = make("long-traditional", {24: 14, 23: 1}, {22: 1, 21: 1, 20: 1, 12: 12})
    game = rolling_at("long-traditional", at, turn=0)
    passed = game.roll(0, (3, 2))
    assert passed.history[-2:] == (Rolled(0, (3, 2)), Passed(0, (3, 2)))
    assert passed.turn == 1


# ----- wrong actions


@pytest.mark.parametrize("variant", ["backgammon", "georgian", "long-traditional"])
def test_roll_by_the_wrong_player_is_refused(variant: str) -> None:
    """000: «Все последующие ходы игроки делают по очереди»; docs/rules.md §7: only the player on turn
    rolls. Anyone else gets WrongTurnError and nothing changes."""
    game = new(variant).opening_roll((5, 2))
    if game.phase is Phase.MOVING:
        game = game.move(0, game.legal_plays()[0].steps)
    on_turn = game.turn
    before = game
    with pytest.raises(WrongTurnError):
        game.roll(1 - on_turn, (6, 5))
    assert game == before


@pytest.mark.parametrize("variant", ["backgammon", "georgian", "dave"])
def test_move_by_the_wrong_player_is_refused(variant: str) -> None:
    """000: «Игрок с большим значением ходит первым»: player 1 may not play player 0's opening
    roll; WrongTurnError and nothing changes."""
    game = new(variant).opening_roll((3, 1))
    before = game
    with pytest.raises(WrongTurnError):
        game.move(1, game.legal_plays()[0].steps)
    assert game == before


def test_wrong_player_answering_a_double_or_unknown_player() -> None:
    """000: «Получив удвоение, игрок может выбрать одно из двух» — only the doubled player answers;
    players are 0 and 1. Anyone else gets WrongTurnError and nothing changes."""
    game = new("backgammon", options=CUBE).opening_roll((3, 1))
    game = game.move(0, game.legal_plays()[0].steps)
    doubled = game.double(1)
    before = doubled
    for action in (doubled.take, doubled.drop):
        with pytest.raises(WrongTurnError):
            action(1)
    assert doubled == before
    for bad in (3, -1):
        with pytest.raises(WrongTurnError):
            game.roll(bad, (6, 5))
        with pytest.raises(WrongTurnError):
            game.double(bad)


def test_illegal_play_is_refused() -> None:
    """000: «Запрещено пропускать ход, пока возможен ход. Оба кубика должны быть сыграны…»
    A play that is not one of the legal plays raises IllegalPlayError and changes nothing."""
    game = new("backgammon").opening_roll((3, 1))
    before = game
    for steps in (
        (Step(8, 5, 3),),  # only one die of two
        (),  # a pass while plays exist
        (Step(8, 5, 3), Step(6, 4, 2)),  # a die that was not rolled
        (Step(13, 10, 3), Step(10, 9, 1), Step(6, 5, 1)),  # too many steps
        (Step(24, 21, 3), Step(1, 0, 1)),  # bearing off from an empty point
    ):
        with pytest.raises(IllegalPlayError):
            game.move(0, steps)
        assert game == before
    # a legal one is accepted
    assert game.move(0, (Step(8, 5, 3), Step(6, 5, 1))).turn == 1


def test_actions_after_the_end_are_refused() -> None:
    """000: «Первый игрок, выведший все 15 шашек, выигрывает партию.» Nothing follows the end."""
    game = win_from("backgammon", {20: 14}, options=CUBE)
    assert game.phase is Phase.FINISHED
    with pytest.raises(IllegalActionError):
        game.roll(1, (3, 1))
    with pytest.raises(CubeError):
        game.double(1)
    with pytest.raises(IllegalActionError):
        game.resign(1)


@pytest.mark.parametrize("variant", ["backgammon", "georgian", "long-traditional"])
def test_every_offered_play_is_accepted_for_the_last_checker(variant: str) -> None:
    """docs/rules.md §1: «If the roll is not a double and only one die can be played … the larger must be
    played»; §7: «The server sends the legal plays». The winning bear-off of the last checker
    with a non-double must be offered with the larger die and accepted by move()."""
    at = make(variant, {1: 1}, {19: 15} if variant != "long-traditional" else {15: 15})
    game = rolling_at(variant, at).roll(0, (6, 5))
    plays = game.legal_plays()
    assert [p.steps for p in plays] == [(Step(1, 0, 6),)]
    finished = game.move(0, plays[0].steps)
    assert finished.phase is Phase.FINISHED


def test_last_checker_with_the_larger_die_finishes() -> None:
    """docs/rules.md §1: only one die can be played (the game is over), the larger one."""
    game = rolling_at("backgammon", make("backgammon", {1: 1}, {19: 15})).roll(0, (6, 5))
    finished = game.move(0, (Step(1, 0, 6),))
    assert finished.result is not None and finished.result.winner == 0


# ----- scoring: backgammon


@pytest.mark.parametrize(
    ("opponent", "bar", "kind", "points"),
    [
        ({20: 14}, (0, 0), WinKind.SINGLE, 1),  # loser bore off one
        ({20: 13}, (0, 1), WinKind.SINGLE, 1),  # bore off one, still on the bar
        ({20: 15}, (0, 0), WinKind.GAMMON, 2),  # none off, all home
        ({10: 15}, (0, 0), WinKind.GAMMON, 2),  # none off, not home, not in the winner's home
        ({20: 14, 3: 1}, (0, 0), WinKind.BACKGAMMON, 3),  # one in the winner's home
        ({20: 14}, (0, 1), WinKind.BACKGAMMON, 3),  # one on the bar
    ],
)
@pytest.mark.parametrize("cube", [Cube(1, None), Cube(4, 1)])
def test_backgammon_scoring_times_the_cube(
    opponent: dict[int, int], bar: tuple[int, int], kind: WinKind, points: int, cube: Cube
) -> None:
    """000: «Победитель получает количество очков, показанное на кубе, кроме случаев гаммона или
    бэкгаммона.» «Гаммон … удвоенное значение куба.» «Бэкгаммон: … ещё имеет хотя бы одну шашку во
    внутреннем поле соперника или на баре. … утроенное значение куба.»"""
    game = win_from("backgammon", opponent, bar=bar, options=CUBE, cube=cube)
    assert game.phase is Phase.FINISHED
    assert game.result is not None
    assert game.result.winner == 0
    assert game.result.kind is kind
    assert game.result.points == points * cube.value
    assert game.result.reason == "bore-off"


def test_backgammon_value_two_option() -> None:
    """000: «Заметьте: в некоторых странах бэкгаммон считается удвоенным, а не утроенным.»"""
    options = GameOptions(cube=True, backgammon_value=2)
    game = win_from("backgammon", {20: 14, 2: 1}, options=options, cube=Cube(2, 0))
    assert game.result is not None
    assert (game.result.kind, game.result.points) == (WinKind.BACKGAMMON, 4)
    with pytest.raises(IllegalActionError):
        Game.new("backgammon", options=GameOptions(backgammon_value=4))


def test_winner_is_the_player_who_bore_off_player_one() -> None:
    """000: «Первый игрок, выведший все 15 шашек, выигрывает партию.» — for either player."""
    at = make("backgammon", {1: 1}, {20: 15})
    game = bear_off_last(rolling_at("backgammon", at, turn=1, options=CUBE))
    assert game.result is not None and game.result.winner == 1
    assert game.result.kind is WinKind.GAMMON


@pytest.mark.parametrize(
    ("opponent", "bar", "cube", "points"),
    [
        ({20: 15}, (0, 0), Cube(1, None), 1),  # gammon, cube centred: counts single
        ({20: 14, 3: 1}, (0, 0), Cube(1, None), 1),  # backgammon, cube centred: single
        ({20: 15}, (0, 0), Cube(2, 1), 4),  # cube turned: gammon counts
        ({20: 14}, (0, 1), Cube(2, 0), 6),  # cube turned: backgammon counts
    ],
)
def test_jacoby_rule(opponent: dict[int, int], bar: tuple[int, int], cube: Cube, points: int) -> None:
    """000: «Правило Якоби: если куб не удваивался во время партии, гаммоны и бэкгаммоны считаются
    как одно очко.»"""
    options = GameOptions(cube=True, jacoby=True)
    game = win_from("backgammon", opponent, bar=bar, options=options, cube=cube)
    assert game.result is not None and game.result.points == points


# ----- scoring: Georgian, dave, long nardy


@pytest.mark.parametrize(
    ("opponent", "bar", "kind", "points"),
    [
        ({20: 14}, (0, 0), WinKind.OIN, 1),
        ({20: 15}, (0, 0), WinKind.MARS, 2),
        ({20: 14, 6: 1}, (0, 0), WinKind.KOKS, 3),
        ({20: 14}, (0, 1), WinKind.KOKS, 3),
        ({20: 13}, (0, 1), WinKind.OIN, 1),
    ],
)
def test_georgian_oin_mars_koks(opponent: dict[int, int], bar: tuple[int, int], kind: WinKind, points: int) -> None:
    """002: «ойн (ოინი) — одно очко (проигравший вывел хотя бы одну шашку), марс (მარსი) — два (не
    вывел ни одной), кокс (კოქსი) — тройная победа, три очка (не вывел ни одной, и его шашка ещё на
    баре или в доме победителя).»"""
    game = win_from("georgian", opponent, bar=bar)
    assert game.result is not None
    assert (game.result.kind, game.result.points) == (kind, points)


@pytest.mark.parametrize(
    ("opponent", "bar", "kind", "points"),
    [
        ({20: 14}, (0, 0), WinKind.OIN, 1),
        ({20: 15}, (0, 0), WinKind.MARS, 2),
        ({20: 14, 4: 1}, (0, 0), WinKind.KOKS, 3),
        ({20: 14}, (0, 1), WinKind.KOKS, 3),
    ],
)
@pytest.mark.parametrize("cube", [Cube(1, None), Cube(2, 0), Cube(8, 1)])
def test_dave_oin_mars_koks_times_the_cube(
    opponent: dict[int, int], bar: tuple[int, int], kind: WinKind, points: int, cube: Cube
) -> None:
    """003: «This number is multiplied by the current value of the doubling cube — for example, if
    the cube shows 4 and the winner scores the backgammon (3 points), he receives 12 points.»"""
    game = win_from("dave", opponent, bar=bar, cube=cube, context=MatchContext(length=21))
    assert game.result is not None
    assert game.result.kind is kind
    assert game.result.points == points * cube.value


def test_dave_loser_who_bore_off_is_single_even_on_the_bar() -> None:
    """003: «If the winner's opponent has borne off at least one piece, the result is always the
    single game (1 point), no matter if some pieces still remain on the bar.»"""
    game = win_from("dave", {3: 2, 20: 10}, bar=(0, 2), cube=Cube(4, 0), context=MatchContext(length=21))
    assert game.result is not None
    assert game.result.kind is WinKind.OIN
    assert game.result.points == 4


@pytest.mark.parametrize("variant", LONG)
@pytest.mark.parametrize(
    ("opponent", "kind", "points"),
    [
        ({15: 14}, WinKind.OIN, 1),
        ({15: 15}, WinKind.MARS, 2),
        ({15: 10, 3: 2, 12: 3}, WinKind.MARS, 2),  # checkers in the winner's home: still no koks
        ({2: 15}, WinKind.MARS, 2),
    ],
)
def test_long_nardy_oin_and_mars_only(variant: str, opponent: dict[int, int], kind: WinKind, points: int) -> None:
    """004: «Обычная победа (ойн) — Соперник выбросил хотя бы одну шашку. 1; Марс — Соперник не
    выбросил ни одной шашки. 2». 001 §3.5: «нет других результатов кроме «йон» (одно очко) и «марс»
    (два очка)» — no koks."""
    game = win_from(variant, opponent)
    assert game.result is not None
    assert (game.result.kind, game.result.points) == (kind, points)
    assert game.result.kind is not WinKind.KOKS


# ----- resignation: backgammon offers


@pytest.mark.parametrize(
    ("kind", "points"), [(None, 1), (WinKind.SINGLE, 1), (WinKind.GAMMON, 2), (WinKind.BACKGAMMON, 3)]
)
@pytest.mark.parametrize("cube", [Cube(1, None), Cube(4, 0)])
def test_backgammon_resignation_accepted(kind: WinKind | None, points: int, cube: Cube) -> None:
    """docs/rules.md §7 «resign» and §3 scoring: an accepted offer ends the game with the offered
    result × the cube (000: «Победитель получает количество очков, показанное на кубе…»)."""
    game = replace(new("backgammon", options=CUBE).opening_roll((4, 2)), cube=cube)
    offered = game.resign(1, kind)
    assert offered.phase is Phase.RESIGNATION
    expected = kind or WinKind.SINGLE
    assert offered.history[-1] == ResignationOffered(1, expected)
    accepted = offered.accept_resignation(0)
    assert accepted.phase is Phase.FINISHED
    assert accepted.result is not None
    assert accepted.result.winner == 0
    assert accepted.result.kind is expected
    assert accepted.result.points == points * cube.value
    assert accepted.result.reason == "resigned"
    assert accepted.history[-1] == Resigned(1, expected)


@pytest.mark.parametrize("stage", ["opening", "rolling", "moving", "doubled"])
def test_backgammon_resignation_declined_resumes(stage: str) -> None:
    """docs/rules.md §6/§7: a declined offer lets play go on exactly where it stopped."""
    game = new("backgammon", options=CUBE)
    if stage != "opening":
        game = game.opening_roll((4, 2))
        if stage in ("rolling", "doubled"):
            game = game.move(0, game.legal_plays()[0].steps)
        if stage == "doubled":
            game = game.double(1)
    offered = game.resign(0, WinKind.GAMMON)
    declined = offered.decline_resignation(1)
    assert declined.phase is game.phase
    assert (declined.turn, declined.dice, declined.cube, declined.position) == (
        game.turn,
        game.dice,
        game.cube,
        game.position,
    )
    assert declined.history == (*game.history, ResignationOffered(0, WinKind.GAMMON), ResignationDeclined(1))
    assert declined.result is None


def test_backgammon_resignation_answered_by_the_opponent_only() -> None:
    """Only the resigning player's opponent accepts or declines; play waits for the answer."""
    game = new("backgammon").opening_roll((4, 2))
    offered = game.resign(0)
    with pytest.raises(WrongTurnError):
        offered.accept_resignation(0)
    with pytest.raises(WrongTurnError):
        offered.decline_resignation(0)
    with pytest.raises(IllegalActionError):
        offered.move(0, game.legal_plays()[0].steps)
    with pytest.raises(IllegalActionError):
        offered.resign(1)
    with pytest.raises(IllegalActionError):
        game.accept_resignation(1)
    with pytest.raises(IllegalActionError):
        game.resign(0, WinKind.MARS)


def test_backgammon_resignation_with_jacoby() -> None:
    """000 Jacoby: with the cube centred a gammon counts one point — an accepted gammon offer too."""
    game = Game.new("backgammon", options=GameOptions(cube=True, jacoby=True)).opening_roll((4, 2))
    accepted = game.resign(1, WinKind.GAMMON).accept_resignation(0)
    assert accepted.result is not None and accepted.result.points == 1


@pytest.mark.parametrize(("kind", "points"), [(WinKind.OIN, 1), (WinKind.MARS, 2), (WinKind.KOKS, 3)])
def test_dave_resignation_offers_oin_mars_or_koks(kind: WinKind, points: int) -> None:
    """003 names no rule for resigning, so dave keeps backgammon's offer, of its own kinds: «Оин
    (1 очко)», «Марс (2 очка)», «Кокс (3 очка)» — "This number is multiplied by the current value
    of the doubling cube". The opponent accepts or declines."""
    game = replace(new("dave").opening_roll((4, 2)), cube=Cube(2, 0))
    offered = game.resign(1, kind)
    assert offered.phase is Phase.RESIGNATION
    assert offered.pending_resignation == (1, kind, Phase.MOVING)
    assert offered.decline_resignation(0).phase is Phase.MOVING
    accepted = offered.accept_resignation(0)
    assert accepted.result is not None
    assert (accepted.result.winner, accepted.result.kind, accepted.result.points) == (0, kind, points * 2)
    assert game.resignation_result(1, kind) == accepted.result
    kinds = (WinKind.OIN, WinKind.MARS, WinKind.KOKS)
    assert game.resignation_choices(1) == [game.resignation_result(1, k) for k in kinds]
    with pytest.raises(IllegalActionError):
        game.resign(1, WinKind.GAMMON)


def test_dave_resignation_naming_no_kind_is_scored_from_the_position() -> None:
    """Naming no kind, a dave player resigns as before dave took offers: at once, scored from the
    position as it stands (docs/rules.md §6), times the cube — so older records replay the same. At the
    start the back checkers stand in the winner's home: a koks (003 «Кокс (3 очка)»)."""
    game = replace(new("dave").opening_roll((4, 2)), cube=Cube(2, 0))
    resigned = game.resign(1)
    assert resigned.phase is Phase.FINISHED
    assert resigned.result is not None
    assert (resigned.result.winner, resigned.result.kind, resigned.result.points) == (0, WinKind.KOKS, 6)
    assert game.resignation_result(1) == resigned.result


@pytest.mark.parametrize(
    ("variant", "resigner", "kind", "points"),
    [("georgian", 1, WinKind.KOKS, 3), ("long-traditional", 0, WinKind.MARS, 2), ("long-bolshie", 1, WinKind.MARS, 2)],
)
def test_resignation_result_says_what_resigning_now_costs(
    variant: str, resigner: int, kind: WinKind, points: int
) -> None:
    """A player sees the cost before resigning: the result :meth:`Game.resign` would give, and the game
    is unchanged (a long nardy resignation at the start is a mars, 2 points: 001 «Марс»)."""
    game = new(variant).opening_roll((6, 1))
    result = game.resignation_result(resigner)
    assert (result.winner, result.kind, result.points, result.reason) == (1 - resigner, kind, points, "resigned")
    assert result == game.resign(resigner).result
    assert game.phase is not Phase.FINISHED
    with pytest.raises(IllegalActionError):
        game.resign(resigner).resignation_result(1 - resigner)


@pytest.mark.parametrize("variant", SHORT + LONG)
def test_resignation_result_is_what_resigning_gives_all_game_long(variant: str) -> None:
    """The cost shown is the result :meth:`Game.resign` (and, for an offer, its acceptance) gives,
    at every decision of a whole game: the view reckons it without playing the resignation out."""
    rng = random.Random(variant)
    options = CUBE if variant in ("backgammon", "dave") else None
    game = new(variant, options=options).opening_roll((6, 1) if variant in SHORT else (6, 2))
    checked = 0
    while game.phase is not Phase.FINISHED:
        for player in (0, 1):
            kinds = game.variant.kinds if game.variant.resignation_offers else (None,)
            for kind in kinds:
                resigned = game.resign(player, kind)
                if resigned.phase is Phase.RESIGNATION:
                    resigned = resigned.accept_resignation(1 - player)
                assert game.resignation_result(player, kind) == resigned.result
                checked += 1
            assert game.resignation_choices(player) == [game.resignation_result(player, k) for k in dict.fromkeys(kinds)]
        if game.phase is Phase.ROLLING:
            if game.turns_played % 7 == 3 and game.can_double(game.turn):
                game = game.double(game.turn).take(1 - game.turn)
            game = game.roll(game.turn, (rng.randint(1, 6), rng.randint(1, 6)))
        else:
            plays = game.legal_plays()
            game = game.move(game.turn, rng.choice(plays).steps if plays else ())
    assert checked > 50


# ----- resignation: Georgian and long nardy, scored from the position


@pytest.mark.parametrize(
    ("resigner", "mover", "opponent", "bar", "kind", "points"),
    [
        # player 1 (opponent of the mover) resigns
        (1, {6: 10}, {20: 15}, (0, 0), WinKind.MARS, 2),
        (1, {6: 10}, {20: 14}, (0, 0), WinKind.OIN, 1),
        (1, {6: 10}, {20: 14, 5: 1}, (0, 0), WinKind.KOKS, 3),
        (1, {6: 10}, {20: 14}, (0, 1), WinKind.KOKS, 3),
        # player 0 (the mover) resigns: the board is read from player 1's side
        (0, {6: 10}, {20: 15}, (0, 0), WinKind.OIN, 1),
        (0, {6: 15}, {20: 15}, (0, 0), WinKind.MARS, 2),
        (0, {22: 1, 6: 14}, {20: 15}, (0, 0), WinKind.KOKS, 3),
        (0, {6: 14}, {20: 15}, (1, 0), WinKind.KOKS, 3),
    ],
)
def test_georgian_resignation_scored_from_the_position(
    resigner: int, mover: dict[int, int], opponent: dict[int, int], bar: tuple[int, int], kind: WinKind, points: int
) -> None:
    """docs/rules.md §6 (004: «Сдавшийся проигрывает партию.»): a resignation ends the game at once,
    scored from the position as it stands (002: ойн / марс / кокс)."""
    at = make("georgian", mover, opponent, bar=bar)
    game = rolling_at("georgian", at, turn=0)
    resigned = game.resign(resigner)
    assert resigned.phase is Phase.FINISHED
    assert resigned.result is not None
    assert resigned.result.winner == 1 - resigner
    assert (resigned.result.kind, resigned.result.points) == (kind, points)
    assert resigned.result.reason == "resigned"
    assert resigned.history[-1] == Resigned(resigner, kind)


def test_georgian_resignation_at_the_start_is_koks() -> None:
    """002 кокс: «не вывел ни одной, и его шашка ещё … в доме победителя» — at the start each side's
    back checkers stand in the other's home, so a resignation there is a koks."""
    game = new("georgian").opening_roll((6, 1))
    resigned = game.resign(1)
    assert resigned.result is not None
    assert (resigned.result.winner, resigned.result.kind, resigned.result.points) == (0, WinKind.KOKS, 3)


def test_georgian_resignation_takes_no_offer() -> None:
    """docs/rules.md §6: where no offer is made the kind is read from the board, not chosen."""
    game = new("georgian").opening_roll((6, 1))
    with pytest.raises(IllegalActionError):
        game.resign(1, WinKind.OIN)


@pytest.mark.parametrize("variant", LONG)
@pytest.mark.parametrize(
    ("resigner", "mover", "opponent", "kind", "points"),
    [
        (1, {3: 10}, {15: 15}, WinKind.MARS, 2),
        (1, {3: 10}, {15: 14}, WinKind.OIN, 1),
        (1, {3: 10}, {15: 13, 4: 2}, WinKind.MARS, 2),  # checkers in the winner's home: no koks
        (0, {3: 10}, {15: 15}, WinKind.OIN, 1),
        (0, {3: 12, 14: 3}, {15: 15}, WinKind.MARS, 2),
    ],
)
def test_long_resignation_scored_from_the_position(
    variant: str, resigner: int, mover: dict[int, int], opponent: dict[int, int], kind: WinKind, points: int
) -> None:
    """004: «Сдавшийся проигрывает партию.» docs/rules.md §6: «scored from the position as it stands
    (mars if the resigner has borne off nothing)»; oin/mars only."""
    at = make(variant, mover, opponent)
    resigned = rolling_at(variant, at).resign(resigner)
    assert resigned.result is not None
    assert resigned.result.winner == 1 - resigner
    assert (resigned.result.kind, resigned.result.points) == (kind, points)
    assert resigned.result.reason == "resigned"


@pytest.mark.parametrize("variant", LONG)
def test_long_resignation_at_the_start_is_mars(variant: str) -> None:
    """001 «Марс»: the loser has borne off nothing — a resignation before bearing off is a mars."""
    game = new(variant).opening_roll((5, 2))
    resigned = game.resign(0)
    assert resigned.result is not None
    assert (resigned.result.winner, resigned.result.kind, resigned.result.points) == (1, WinKind.MARS, 2)


def test_only_play_names_the_forced_play_and_nothing_when_there_is_a_choice() -> None:
    """A roll whose every legal order ends in one position is a forced play (the server may play it
    for the player); the opening position's 6-5 leaves a choice."""
    start = Game.new("backgammon").opening_roll((6, 5))
    assert start.only_play() is None and len(start.legal_plays()) > 1
    points = [0] * 24
    points[0], points[23] = 1, -15
    last_checker = Position(start.position.variant, tuple(points), (0, 0), (14, 0))
    forced = replace(start, position=last_checker)
    assert forced.legal_plays() == [forced.only_play()]
    assert Game.new("backgammon").only_play() is None  # not a moving phase
