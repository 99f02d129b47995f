"""The doubling cube: who may double, take, drop, beaver, the 64 cap, and the
match restrictions (seeds 000 and 003, docs/rules.md §3 and §5).

Every refusal raises :class:`CubeError` whose message is the reason that
:meth:`Game.double_refusal` gives, and leaves the game as it was.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from nardy.rules import (
    MAX_CUBE,
    Beavered,
    Cube,
    CubeError,
    Doubled,
    Dropped,
    Game,
    GameOptions,
    IllegalActionError,
    MatchContext,
    Passed,
    Phase,
    Position,
    Took,
    WinKind,
    WrongTurnError,
)
from tests.rules.positions import make

CUBE = GameOptions(cube=True)


# ----- helpers


def rolling(
    variant: str = "backgammon",
    *,
    turn: int = 0,
    cube: Cube = Cube(),
    options: GameOptions = CUBE,
    context: MatchContext = MatchContext(),
    at: Position | None = None,
) -> Game:
    """A game in the middle (turn 10) waiting for ``turn`` to double or roll."""
    game = Game.new(variant, options=options, context=context)
    return replace(
        game,
        position=at if at is not None else game.position,
        phase=Phase.ROLLING,
        turn=turn,
        cube=cube,
        turns_played=10,
    )


def after_opening(variant: str = "backgammon", *, options: GameOptions = CUBE, context: MatchContext = MatchContext()) -> Game:
    """Player 0 wins the opening (3-1) and plays it: player 1 is on roll, turn 1 of the game."""
    game = Game.new(variant, options=options, context=context).opening_roll((3, 1))
    return game.move(0, game.legal_plays()[0].steps)


def refused(game: Game, player: int, fragment: str) -> CubeError:
    """Assert that ``player`` may not double, for the reason containing ``fragment``, and nothing changes."""
    reason = game.double_refusal(player)
    assert reason is not None and fragment in reason
    assert not game.can_double(player)
    before = game
    with pytest.raises(CubeError) as caught:
        game.double(player)
    assert str(caught.value) == reason
    assert game == before and game.phase == before.phase and game.cube == before.cube
    return caught.value


def play_turn(game: Game, dice: tuple[int, int] = (3, 1)) -> Game:
    """The player on turn rolls ``dice`` and plays the first legal play."""
    game = game.roll(game.turn, dice)
    if game.phase is Phase.MOVING:
        game = game.move(game.turn, game.legal_plays()[0].steps)
    return game


# ----- centred cube, ownership, take


def test_centred_cube_either_player_may_double() -> None:
    """000: «Изначально куб в центре — любой игрок может удвоить.»

    Both player 0 and player 1 may double on their own turn while nobody owns the cube.
    """
    for player in (0, 1):
        game = rolling(turn=player)
        assert game.cube == Cube(1, None) and game.cube.centred
        assert game.can_double(player)
        doubled = game.double(player)
        assert doubled.phase is Phase.DOUBLED
        assert doubled.turn == player
        assert doubled.history[-1] == Doubled(player, 2)
        assert doubled.cube == Cube(1, None)  # nothing changes until the answer


def test_first_double_possible_right_after_the_opening_move() -> None:
    """000: «Игрок может удвоить непосредственно перед своим броском.»

    The opening winner plays the opening numbers at once (no roll, so no double);
    the other player may double before its first roll.
    """
    game = Game.new("backgammon", options=CUBE).opening_roll((3, 1))
    assert game.phase is Phase.MOVING
    refused(game, 0, "only before rolling")
    game = game.move(0, game.legal_plays()[0].steps)
    assert game.turn == 1 and game.can_double(1)


def test_take_doubles_the_value_and_gives_the_taker_the_cube() -> None:
    """000: «Принять удвоение (тейк): он физически берёт куб и продолжает игру с удвоенной ставкой.
    Приняв куб, игрок становится его владельцем.»"""
    game = after_opening().double(1).take(0)
    assert game.cube == Cube(2, 0)
    assert game.history[-1] == Took(0, 2)
    # the doubler goes on to roll
    assert game.phase is Phase.ROLLING and game.turn == 1
    rolled = play_turn(game)
    assert rolled.turn == 0 and rolled.cube == Cube(2, 0)


def test_only_the_owner_may_redouble() -> None:
    """000: «Затем удваивать может только владелец куба.»"""
    game = after_opening().double(1).take(0)  # player 0 owns the cube at 2
    refused(game, 1, "only the cube's owner may redouble")
    game = play_turn(game)  # player 1 rolls and plays; now player 0's turn
    assert game.turn == 0 and game.can_double(0)
    game = game.double(0)
    assert game.history[-1] == Doubled(0, 4)
    game = game.take(1)
    assert game.cube == Cube(4, 1)
    # the cube now belongs to player 1; player 0 may no longer double
    game = play_turn(game)
    assert game.turn == 1 and game.can_double(1)
    game = play_turn(game)
    refused(game, 0, "only the cube's owner may redouble")


def test_only_the_doubled_player_answers() -> None:
    """000: «Получив удвоение, игрок может выбрать одно из двух» — the doubled player, not the doubler."""
    game = after_opening().double(1)
    for action in (game.take, game.drop):
        with pytest.raises(WrongTurnError):
            action(1)
    with pytest.raises(IllegalActionError):
        game.roll(1, (3, 1))
    with pytest.raises(CubeError):
        game.double(1)


def test_take_or_drop_without_a_double_is_refused() -> None:
    """000: take/pass are answers to a double; with no double pending they are illegal actions."""
    game = rolling()
    for action in (game.take, game.drop, game.beaver):
        with pytest.raises(IllegalActionError):
            action(1)


# ----- drop


def test_drop_wins_the_value_before_the_double() -> None:
    """000: «Иначе он немедленно выигрывает ставку до удвоения, и партия заканчивается.»"""
    game = rolling(turn=0, cube=Cube(4, 0)).double(0)
    assert game.history[-1] == Doubled(0, 8)
    dropped = game.drop(1)
    assert dropped.phase is Phase.FINISHED
    assert dropped.result is not None
    assert dropped.result.winner == 0
    assert dropped.result.points == 4
    assert dropped.result.kind is WinKind.SINGLE
    assert dropped.result.reason == "dropped"
    assert dropped.history[-1] == Dropped(1)
    assert dropped.cube == Cube(4, 0)


def test_first_double_dropped_is_one_point() -> None:
    """000: «Пас: отказаться от удвоения, немедленно отдав партию сопернику за одно очко.»"""
    dropped = after_opening().double(1).drop(0)
    assert dropped.result is not None
    assert (dropped.result.winner, dropped.result.points, dropped.result.reason) == (1, 1, "dropped")


def test_dave_drop_is_an_oin_even_where_the_position_is_koks() -> None:
    """003: «Марс и Кокс не имеют значения, если дубль отклонен.» (docs/rules.md §5: a declined
    double scores the value before the double.)

    Player 1 has borne off nothing and has checkers in player 0's home (a koks if
    player 0 bore off now), yet a drop scores oin × the cube before the double.
    """
    at = make("dave", {1: 3}, {3: 2, 20: 13})
    context = MatchContext(length=11, score=(0, 0))
    game = rolling("dave", turn=0, cube=Cube(2, 0), options=CUBE, context=context, at=at)
    dropped = game.double(0).drop(1)
    assert dropped.result is not None
    assert dropped.result.kind is WinKind.OIN
    assert dropped.result.points == 2
    assert dropped.result.winner == 0
    assert dropped.result.reason == "dropped"


def test_drop_is_not_reduced_by_jacoby() -> None:
    """000: Jacoby only concerns gammons and backgammons; a pass loses the stake before the double."""
    options = GameOptions(cube=True, jacoby=True)
    dropped = rolling(options=options).double(0).drop(1)
    assert dropped.result is not None and dropped.result.points == 1


# ----- the 64 cap


def test_cube_values_run_up_to_64() -> None:
    """000: «Она представлена значением куба удвоения: 2, 4, 8, 16, 32, 64.»"""
    game = rolling(turn=0)
    values = []
    for _ in range(6):
        player = game.turn
        game = game.double(player).take(1 - player)
        values.append(game.cube.value)
        # the taker becomes the one to decide next: hand it the turn directly
        game = replace(game, turn=1 - player, position=game.position.turned())
    assert values == [2, 4, 8, 16, 32, 64]
    assert game.cube.value == MAX_CUBE == 64


def test_no_double_at_64() -> None:
    """000: values «2, 4, 8, 16, 32, 64» — the owner of a cube on 64 cannot redouble."""
    game = rolling(turn=0, cube=Cube(64, 0))
    refused(game, 0, "maximum of 64")


def test_double_to_64_is_allowed() -> None:
    """000: «2, 4, 8, 16, 32, 64» — the owner of a cube on 32 may double to 64."""
    game = rolling(turn=0, cube=Cube(32, 0)).double(0)
    assert game.history[-1] == Doubled(0, 64)
    assert game.take(1).cube == Cube(64, 1)
    dropped = game.drop(1)
    assert dropped.result is not None and dropped.result.points == 32


# ----- when a double may be offered


def test_player_who_cannot_move_may_still_double() -> None:
    """000: «Заметьте: игрок, заблокированный в ходах, всё ещё может предложить удвоение.»

    Player 0 has a checker on the bar against a closed board: every roll passes,
    but the double before the roll is allowed.
    """
    at = make("backgammon", {6: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3}, bar=(1, 0))
    game = rolling(turn=0, at=at)
    assert all(not at.legal_plays((a, b)) for a in range(1, 7) for b in range(1, 7))
    assert game.can_double(0)
    taken = game.double(0).take(1)
    assert taken.cube == Cube(2, 1)
    passed = taken.roll(0, (6, 5))
    assert passed.history[-1] == Passed(0, (6, 5))
    assert passed.turn == 1 and passed.phase is Phase.ROLLING


@pytest.mark.parametrize("stage", ["moving", "doubled", "finished", "opening"])
def test_double_only_before_the_roll(stage: str) -> None:
    """000: «это нужно сделать перед броском кубиков» — no double while moving, while a
    double is pending, before the opening roll, or after the game."""
    if stage == "opening":
        game = Game.new("backgammon", options=CUBE)
    else:
        game = rolling(turn=0)
        if stage == "moving":
            game = game.roll(0, (3, 1))
            assert game.phase is Phase.MOVING
        elif stage == "doubled":
            game = game.double(0)
        else:
            game = game.double(0).drop(1)
    for player in (0, 1):
        refused(game, player, "only before rolling")


def test_double_only_by_the_player_on_turn() -> None:
    """000: «Игрок может удвоить непосредственно перед своим броском» — his own roll only."""
    game = rolling(turn=0)
    refused(game, 1, "not your turn")


def test_double_by_unknown_player_is_refused() -> None:
    """Players are 0 and 1; anything else is not a player at all."""
    game = rolling(turn=0)
    with pytest.raises(WrongTurnError):
        game.double(2)


# ----- variants without a cube


@pytest.mark.parametrize(
    ("variant", "length"),
    [("georgian", 3), ("long-traditional", 3), ("long-tournament", 1), ("long-bolshie", 5)],
)
def test_no_cube_in_georgian_and_long_nardy(variant: str, length: int) -> None:
    """002: «Кубик удвоения (по-грузински «дави») здесь не используется.»
    001 §3.4–3.5 / 004: long nardy scores oin and mars only, no cube (docs/rules.md §4, §6).
    """
    context = MatchContext(length=length)
    with pytest.raises(IllegalActionError, match=variant):
        Game.new(variant, options=GameOptions(cube=True), context=context)
    game = rolling(variant, turn=0, options=GameOptions(), context=context)
    error = refused(game, 0, "without the doubling cube")
    assert variant in str(error)


def test_backgammon_without_the_cube_option_cannot_double() -> None:
    """000: the cube is part of the game; with the cube option off, nobody doubles."""
    game = rolling(turn=0, options=GameOptions())
    refused(game, 0, "without the doubling cube")


def test_dave_always_has_the_cube() -> None:
    """003: «Даве показано на правом краю игровой доски и его начальное значение 1» — dave is
    played with the cube; it cannot be switched off."""
    context = MatchContext(length=5)
    assert Game.new("dave", context=context).options.cube
    with pytest.raises(IllegalActionError, match="dave"):
        Game.new("dave", options=GameOptions(cube=False), context=context)


# ----- Crawford


@pytest.mark.parametrize("variant", ["backgammon", "dave"])
def test_crawford_game_has_no_cube(variant: str) -> None:
    """000: «куб удвоения убирается из игры в следующей партии (удваивание запрещено)»;
    003: «In a Crawford round, the double cube is not used.»"""
    context = MatchContext(length=5, score=(4, 1), crawford=True)
    game = rolling(variant, turn=1, context=context)
    refused(game, 1, "Crawford")
    refused(replace(game, turn=0), 0, "Crawford")


def test_post_crawford_cube_is_back() -> None:
    """000: «Это применяется только для одной партии — если матч продолжается, куб возвращается.»
    003: «the doubling cube can be used in all following games of the match.»"""
    context = MatchContext(length=5, score=(4, 1), crawford=False)
    game = rolling(turn=1, context=context)
    assert game.can_double(1)
    assert game.double(1).take(0).cube == Cube(2, 0)


# ----- dave restrictions (003)


def test_dave_no_double_on_the_first_turn() -> None:
    """003: «A double offer is not an option at the first turn of the game.»

    A game whose first player rolls without an opening (first_player) is on its first
    turn: dave refuses the double there; plain backgammon allows it.
    """
    context = MatchContext(length=5)
    dave = Game.new("dave", context=context, first_player=0)
    assert dave.phase is Phase.ROLLING and dave.turn == 0
    refused(dave, 0, "first turn")
    plain = Game.new("backgammon", options=CUBE, context=context, first_player=0)
    assert plain.can_double(0)


def test_dave_opponent_of_the_opening_winner_may_double_first() -> None:
    """003: «The player who won the initial dice roll makes a normal move, then the opponent
    would have the first option of offering a double.»"""
    game = after_opening("dave", context=MatchContext(length=5))
    assert game.turn == 1
    assert game.can_double(1)
    assert game.double(1).take(0).cube == Cube(2, 0)


def test_dave_no_double_one_point_from_winning() -> None:
    """003: «If a player is 1 point away from winning the match, he won't be given an option
    to offer a double because the reject would always won the match for him.»

    Post-Crawford, 4-2 in a match to 5: the leader may not double, the trailer may;
    plain backgammon has no such restriction.
    """
    context = MatchContext(length=5, score=(4, 2), crawford=False)
    refused(rolling("dave", turn=0, context=context), 0, "one point from winning")
    assert rolling("dave", turn=1, context=context).can_double(1)
    assert rolling("backgammon", turn=0, context=context).can_double(0)


def test_dave_no_double_past_the_match_winning_value() -> None:
    """003: «When a doubling cube value reaches the point where it would win the match for the
    player, the system won't show more options to double the cube value.»

    Match to 7, player 1 has 4 (needs 3): owning the cube on 4 it may not redouble
    (a single game already wins the match); on 2 it still may.
    """
    context = MatchContext(length=7, score=(0, 4))
    refused(rolling("dave", turn=1, cube=Cube(4, 1), context=context), 1, "already wins the match")
    assert rolling("dave", turn=1, cube=Cube(2, 1), context=context).can_double(1)
    # exactly the points needed is already enough
    exact = MatchContext(length=7, score=(0, 5))
    refused(rolling("dave", turn=1, cube=Cube(2, 1), context=exact), 1, "already wins the match")
    # plain backgammon: no restriction
    assert rolling("backgammon", turn=1, cube=Cube(4, 1), context=context).can_double(1)


# ----- beavers


def test_beavers_are_off_by_default() -> None:
    """docs/rules.md §3 lists no beaver: the default game refuses one with CubeError."""
    game = after_opening().double(1)
    before = game
    with pytest.raises(CubeError, match="beaver"):
        game.beaver(0)
    assert game == before and game.phase is Phase.DOUBLED


def test_beaver_when_enabled_quadruples_and_keeps_the_cube() -> None:
    """Beavers (GameOptions.beavers): the taker at once redoubles and keeps the cube."""
    options = GameOptions(cube=True, beavers=True)
    game = after_opening(options=options).double(1)
    beavered = game.beaver(0)
    assert beavered.cube == Cube(4, 0)
    assert beavered.history[-1] == Beavered(0, 4)
    assert beavered.phase is Phase.ROLLING and beavered.turn == 1
    # the beaverer owns the cube: the doubler may not redouble
    refused(beavered, 1, "only the cube's owner may redouble")
    # only the doubled player may beaver
    with pytest.raises(WrongTurnError):
        game.beaver(1)


def test_beaver_past_64_is_refused() -> None:
    """000: the cube stops at 64; a beaver of a double to 64 would pass it."""
    options = GameOptions(cube=True, beavers=True)
    game = rolling(turn=0, cube=Cube(32, 0), options=options).double(0)
    with pytest.raises(CubeError, match="64"):
        game.beaver(1)
    ok = rolling(turn=0, cube=Cube(16, 0), options=options).double(0).beaver(1)
    assert ok.cube == Cube(64, 1)


def test_beavers_need_the_cube() -> None:
    """A beaver is a cube action: the option without the cube is rejected."""
    with pytest.raises(IllegalActionError, match="beaver"):
        Game.new("backgammon", options=GameOptions(cube=False, beavers=True))


# ----- all refusals together


REFUSALS = [
    ("not on turn", lambda: rolling(turn=0), 1, "not your turn"),
    ("not owner", lambda: rolling(turn=0, cube=Cube(2, 1)), 0, "owner"),
    ("cap", lambda: rolling(turn=0, cube=Cube(64, 0)), 0, "64"),
    ("moving", lambda: rolling(turn=0).roll(0, (4, 2)), 0, "before rolling"),
    ("no cube", lambda: rolling(turn=0, options=GameOptions()), 0, "without the doubling cube"),
    (
        "georgian",
        lambda: rolling("georgian", turn=0, options=GameOptions(), context=MatchContext(length=5)),
        0,
        "georgian",
    ),
    ("crawford", lambda: rolling(turn=0, context=MatchContext(5, (4, 0), True)), 0, "Crawford"),
    ("dave first turn", lambda: Game.new("dave", context=MatchContext(length=3), first_player=1), 1, "first turn"),
    ("dave one away", lambda: rolling("dave", turn=0, context=MatchContext(3, (2, 0))), 0, "one point"),
    ("dave enough", lambda: rolling("dave", turn=0, cube=Cube(2, 0), context=MatchContext(5, (3, 0))), 0, "wins the match"),
]


@pytest.mark.parametrize(("name", "make", "player", "fragment"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_every_refusal_is_a_cube_error_naming_the_reason(name: str, make, player: int, fragment: str) -> None:  # type: ignore[no-untyped-def]
    """docs/rules.md §3 (000/003): a double that is not allowed raises CubeError (an
    IllegalActionError and a ValueError) whose message names the reason; the game is unchanged."""
    game = make()
    error = refused(game, player, fragment)
    assert isinstance(error, IllegalActionError) and isinstance(error, ValueError)
