"""Chouette (seed 000, docs/chouette.md): forming the table, rotation, joins and leaves,
the team's unanimous double, the members' own answers to the box's double, and settlement.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from nardy.rules import CubeError, GameOptions, IllegalActionError, Phase, Position, WinKind, WrongTurnError, find_variant
from nardy.rules.chouette import (
    BOX_SIDE,
    TEAM_SIDE,
    Chouette,
    ChouetteGame,
    ChouettePhase,
    Formation,
    Lineup,
)
from nardy.rules.errors import InvalidDiceError
from tests.rules.positions import make

BOX, ANN, BOB, CAT = 1, 2, 3, 4
LINEUP = Lineup(BOX, (ANN, BOB, CAT))


# ----- helpers


def rolling(side: int, at: Position | None = None, lineup: Lineup = LINEUP, options: GameOptions | None = None) -> ChouetteGame:
    """A chouette game in the middle, waiting for ``side`` to double or roll."""
    game = ChouetteGame.new(lineup, options)
    board = replace(
        game.board, position=at if at is not None else game.board.position, phase=Phase.ROLLING, turn=side,
        turns_played=10,
    )
    return replace(game, board=board)


def team_bears_off_last(game: ChouetteGame) -> ChouetteGame:
    """The team (on roll, two checkers on its 1-point) rolls 6-6 and bears off its last checkers."""
    captain = game.captain
    assert captain is not None
    game = game.roll(captain, (6, 6))
    return game.move(captain, game.legal_plays()[0].steps)


def box_bears_off_last(game: ChouetteGame) -> ChouetteGame:
    game = game.roll(BOX, (6, 6))
    return game.move(BOX, game.legal_plays()[0].steps)


# Two checkers left on the 1-point of the side to move; the other side has borne off nothing
# and has no checker in the mover's home: bearing off wins a gammon.
GAMMON_NEAR = make("backgammon", {1: 2}, {13: 15})


def formed_session(fifth: int | None = None) -> Chouette:
    """A session formed as BOX, then the team ANN (captain), BOB, CAT and, if given, ``fifth``."""
    players = (BOX, ANN, BOB, CAT) if fifth is None else (BOX, ANN, BOB, CAT, fifth)
    session = Chouette.new()
    for player in players:
        session = session.sit(player)
    dice = dict(zip(players, (6, 5, 4, 3, 2), strict=False))
    return session.begin().formation_rolled(dice)


def box_wins_first_game() -> Chouette:
    """The four-player session after the whole team resigned its first game."""
    session = formed_session()
    game = session.game
    assert game is not None
    for member in (ANN, BOB, CAT):
        game = game.resign(member)
    return session.update(game)


# ----- forming the table


def test_highest_roll_is_the_box_second_the_captain_rest_in_roll_order() -> None:
    """000: "игрок с самым большим значением становится игроком «в коробке»... Игрок со вторым по
    величине значением становится капитаном... Относительный порядок начального броска также
    определяет, в каком порядке игроки команды занимают место рядом с капитаном."
    """
    formation = Formation.of((ANN, BOB, CAT, BOX)).rolled({ANN: 2, BOB: 5, CAT: 3, BOX: 6})
    assert formation.done
    assert formation.lineup == Lineup(BOX, (BOB, CAT, ANN))
    assert formation.lineup.captain == BOB


def test_ties_reroll_among_the_tied_only() -> None:
    """Ties reroll among the tied; the order already fixed by earlier rolls stands."""
    formation = Formation.of((BOX, ANN, BOB, CAT)).rolled({BOX: 4, ANN: 4, BOB: 6, CAT: 1})
    assert not formation.done
    assert formation.to_roll == (BOX, ANN)
    with pytest.raises(IllegalActionError):
        formation.lineup
    with pytest.raises(IllegalActionError):
        formation.rolled({BOX: 1, ANN: 2, BOB: 3})
    formation = formation.rolled({BOX: 2, ANN: 2})
    assert formation.to_roll == (BOX, ANN)
    formation = formation.rolled({BOX: 1, ANN: 5})
    assert formation.lineup == Lineup(BOB, (ANN, BOX, CAT))
    assert len(formation.rolls) == 3


def test_two_separate_ties_roll_in_the_same_round() -> None:
    formation = Formation.of((BOX, ANN, BOB, CAT)).rolled({BOX: 5, ANN: 5, BOB: 2, CAT: 2})
    assert set(formation.to_roll) == {BOX, ANN, BOB, CAT}
    formation = formation.rolled({BOX: 1, ANN: 3, BOB: 6, CAT: 5})
    assert formation.lineup == Lineup(ANN, (BOX, BOB, CAT))


@pytest.mark.parametrize("players", [(BOX, ANN), tuple(range(1, 10)), (BOX, BOX, ANN)])
def test_a_chouette_has_three_to_eight_distinct_players(players: tuple[int, ...]) -> None:
    """000: "Шуэт — это особый вариант, объединяющий 3 и более игроков в одной партии"."""
    with pytest.raises(IllegalActionError):
        Formation.of(players)


@pytest.mark.parametrize("die", [0, 7, True, 2.0])
def test_a_formation_die_is_one_to_six(die: object) -> None:
    with pytest.raises(InvalidDiceError):
        Formation.of((BOX, ANN, BOB)).rolled({BOX: die, ANN: 1, BOB: 2})  # type: ignore[dict-item]


def test_the_session_starts_its_first_game_once_formed() -> None:
    session = Chouette.new()
    for player in (ANN, BOB):
        session = session.sit(player)
    with pytest.raises(IllegalActionError, match="at least 3"):
        session.begin()
    session = session.sit(CAT).begin()
    with pytest.raises(IllegalActionError, match="rolling for places"):
        session.sit(BOX)
    session = session.formation_rolled({ANN: 1, BOB: 2, CAT: 3})
    assert session.lineup == Lineup(CAT, (BOB, ANN))
    assert session.game is not None and session.game.phase is ChouettePhase.OPENING
    assert [stake.member for stake in session.game.stakes] == [BOB, ANN]


# ----- rotation


def test_rotation_when_the_team_loses() -> None:
    """000: "Если команда проигрывает первую партию, капитаном становится второй игрок. Свергнутый
    капитан перемещается в конец команды. Благодаря победе игрок в коробке остаётся в коробке."
    """
    assert LINEUP.rotated(team_won=False) == Lineup(BOX, (BOB, CAT, ANN))


def test_rotation_when_the_team_wins() -> None:
    """000: "если команда побеждает, капитан переходит в коробку, его сменяет второй игрок, а тот,
    кто был в коробке, занимает последнее место в команде."
    """
    assert LINEUP.rotated(team_won=True) == Lineup(ANN, (BOB, CAT, BOX))


def test_rotation_over_several_games_of_a_session() -> None:
    session = box_wins_first_game()
    assert session.lineup == Lineup(BOX, (BOB, CAT, ANN))
    assert session.game is not None and session.game.lineup == session.lineup
    session = session.update(session.game.resign(BOX))
    assert session.lineup == Lineup(BOB, (CAT, ANN, BOX))
    assert session.game is not None
    session = session.update(session.game.resign(BOB))
    assert session.lineup == Lineup(CAT, (ANN, BOX, BOB))
    assert len(session.results) == 3
    assert [r.team_won for r in session.results] == [False, True, True]


def test_a_newcomer_joins_at_the_end_of_the_team_when_the_game_ends() -> None:
    session = formed_session()
    session = session.sit(5)
    assert session.joining == (5,)
    assert session.lineup == Lineup(BOX, (ANN, BOB, CAT))
    assert session.game is not None
    session = session.update(session.game.resign(BOX))
    assert session.lineup == Lineup(ANN, (BOB, CAT, BOX, 5))
    assert session.joining == ()
    assert session.game is not None and [s.member for s in session.game.stakes] == [BOB, CAT, BOX, 5]


def test_a_leaving_member_plays_the_game_out_and_leaves_after_it() -> None:
    session = formed_session().stand(BOB)
    assert session.leaving == (BOB,)
    with pytest.raises(IllegalActionError, match="already"):
        session.stand(BOB)
    assert session.game is not None
    session = session.update(session.game.resign(BOX))
    assert session.lineup == Lineup(ANN, (CAT, BOX))
    assert BOB not in session.players and session.score_of(BOB) == 3  # a backgammon as it stands


def test_a_leaving_box_is_replaced_by_the_captain() -> None:
    session = formed_session(5).stand(BOX)
    game = session.game
    assert game is not None
    for member in (ANN, BOB, CAT, 5):
        game = game.resign(member)
    session = session.update(game)
    # The box won (it stays by rotation) but leaves: the captain of the next game takes the box.
    assert session.lineup == Lineup(BOB, (CAT, 5, ANN))


def test_the_session_pauses_below_three_players_and_resumes_when_one_sits() -> None:
    session = Chouette.new()
    for player in (BOX, ANN, BOB):
        session = session.sit(player)
    session = session.begin().formation_rolled({BOX: 6, ANN: 5, BOB: 4})
    session = session.stand(BOB)
    assert session.game is not None
    session = session.update(session.game.resign(BOX))
    assert session.lineup == Lineup(ANN, (BOX,))
    assert session.game is None
    session = session.sit(CAT)
    assert session.lineup == Lineup(ANN, (BOX, CAT))
    assert session.game is not None and session.game.phase is ChouettePhase.OPENING


def test_between_games_with_nobody_left_on_the_team_the_table_forms_again() -> None:
    session = Chouette.new()
    for player in (BOX, ANN, BOB):
        session = session.sit(player)
    session = session.begin().formation_rolled({BOX: 6, ANN: 5, BOB: 4}).stand(ANN).stand(BOB)
    assert session.game is not None
    session = session.update(session.game.resign(BOX))
    assert session.lineup is None and session.formation is None
    assert session.seated == (BOX,)
    assert session.score_of(ANN) == 3 and session.score_of(BOX) == -6


def test_everyone_leaving_during_a_game_empties_the_table_when_it_ends() -> None:
    session = Chouette.new()
    for player in (BOX, ANN, BOB):
        session = session.sit(player)
    session = session.begin().formation_rolled({BOX: 6, ANN: 5, BOB: 4})
    session = session.stand(BOX).stand(ANN).stand(BOB)
    assert session.game is not None
    session = session.update(session.game.resign(BOX))
    assert session.players == () and session.game is None
    assert sum(points for _, points in session.scores) == 0


def test_sitting_down_again_takes_back_a_leave() -> None:
    session = formed_session().stand(CAT)
    assert session.leaving == (CAT,)
    session = session.sit(CAT)
    assert session.leaving == ()
    assert session.game is not None
    session = session.update(session.game.resign(BOX))
    assert CAT in session.players


def test_at_most_eight_players() -> None:
    session = Chouette.new()
    for player in range(1, 9):
        session = session.sit(player)
    with pytest.raises(IllegalActionError, match="at most 8"):
        session.sit(9)
    with pytest.raises(IllegalActionError, match="already"):
        session.sit(1)


# ----- the board


def test_only_the_captain_moves_the_teams_checkers() -> None:
    """000: "Только капитан двигает шашки команды против игрока в коробке."""
    game = ChouetteGame.new(LINEUP).opening_roll((1, 3))
    assert game.turn_side == TEAM_SIDE and game.awaiting() == (ANN,)
    play = game.legal_plays()[0]
    with pytest.raises(WrongTurnError):
        game.move(BOB, play.steps)
    with pytest.raises(WrongTurnError):
        game.move(BOX, play.steps)
    game = game.move(ANN, play.steps)
    assert game.turn_side == BOX_SIDE and game.awaiting() == (BOX,)


def test_the_box_and_the_captain_roll_the_opening() -> None:
    game = ChouetteGame.new(LINEUP).opening_roll((5, 2))
    assert game.turn_side == BOX_SIDE and game.board.dice == (5, 2)


# ----- the team's double


def test_a_team_double_needs_every_member_and_one_refusal_stops_it() -> None:
    """000: "Решение предложить удвоение игроку в коробке должно быть единогласным в команде."""
    game = rolling(TEAM_SIDE)
    with pytest.raises(CubeError, match="captain"):
        game.propose_double(BOB)
    proposed = game.propose_double(ANN)
    assert proposed.phase is ChouettePhase.TEAM_VOTE
    assert proposed.awaiting() == (BOB, CAT)
    agreed = proposed.vote(BOB, True)
    refused = agreed.vote(CAT, False)
    assert refused.phase is ChouettePhase.ROLLING
    assert all(s.value == 1 and s.owner is None for s in refused.stakes)
    with pytest.raises(WrongTurnError):
        agreed.vote(BOB, True)
    with pytest.raises(WrongTurnError):
        agreed.vote(BOX, True)


def test_a_unanimous_team_double_is_answered_by_the_box_member_by_member() -> None:
    game = rolling(TEAM_SIDE).propose_double(ANN).vote(BOB, True).vote(CAT, True)
    assert game.phase is ChouettePhase.TEAM_DOUBLED and game.awaiting() == (BOX,)
    with pytest.raises(WrongTurnError):
        game.answer_team_double(ANN, [ANN])
    with pytest.raises(IllegalActionError, match="not in this game"):
        game.answer_team_double(BOX, [ANN, 9])
    game = game.answer_team_double(BOX, [ANN, CAT])
    assert game.phase is ChouettePhase.ROLLING
    assert game.stake_of(ANN).value == 2 and game.stake_of(ANN).owner == "box"
    assert game.stake_of(BOB).result == 1 and game.stake_of(BOB).how == "dropped-by-box"
    assert game.in_play == (ANN, CAT)
    assert game.double_refusal(ANN) is not None and "box owns" in str(game.double_refusal(ANN))


def test_a_single_member_left_doubles_alone() -> None:
    game = rolling(TEAM_SIDE)
    game = replace(game, stakes=(game.stakes[0], replace(game.stakes[1], result=-1), replace(game.stakes[2], result=-1)))
    assert game.propose_double(ANN).phase is ChouettePhase.TEAM_DOUBLED


def test_the_box_passing_every_cube_ends_the_game() -> None:
    game = rolling(TEAM_SIDE).propose_double(ANN).vote(BOB, True).vote(CAT, True).answer_team_double(BOX, [])
    assert game.phase is ChouettePhase.FINISHED
    result = game.result()
    assert result is not None and result.team_won and result.kind is None
    assert dict(result.points) == {BOX: -3, ANN: 1, BOB: 1, CAT: 1}


# ----- the box's double


def test_each_member_answers_the_boxs_double_alone() -> None:
    """000: "если игрок в коробке предлагает удвоение, каждый член команды может индивидуально
    решать, принимать или отказываться. Отказавшиеся уступают текущую ставку игроку в коробке и
    выбывают из текущей партии. Принявшие куб продолжают как команда с новой ставкой."
    """
    game = rolling(BOX_SIDE)
    with pytest.raises(CubeError):
        game.box_double(ANN)
    game = game.box_double(BOX)
    assert game.phase is ChouettePhase.BOX_DOUBLED and game.awaiting() == (ANN, BOB, CAT)
    game = game.answer_box_double(BOB, True).answer_box_double(ANN, False)
    with pytest.raises(WrongTurnError):
        game.answer_box_double(BOB, False)
    assert game.awaiting() == (CAT,)
    game = game.answer_box_double(CAT, True)
    assert game.phase is ChouettePhase.ROLLING and game.turn_side == BOX_SIDE
    assert game.stake_of(ANN).result == -1 and game.stake_of(ANN).how == "passed"
    assert game.stake_of(BOB).value == 2 and game.stake_of(BOB).owner == "member"
    assert game.in_play == (BOB, CAT)
    assert game.double_refusal(BOX) is not None


def test_when_the_captain_passes_the_next_member_moves_the_checkers() -> None:
    game = rolling(BOX_SIDE).box_double(BOX)
    game = game.answer_box_double(ANN, False).answer_box_double(BOB, True).answer_box_double(CAT, True)
    game = game.roll(BOX, (3, 1))
    game = game.move(BOX, game.legal_plays()[0].steps)
    assert game.captain == BOB and game.awaiting() == (BOB,)
    with pytest.raises(WrongTurnError):
        game.roll(ANN, (2, 1))
    assert game.propose_double(BOB).phase is ChouettePhase.TEAM_VOTE


def test_everyone_passing_the_boxs_double_ends_the_game_for_the_box() -> None:
    game = rolling(BOX_SIDE).box_double(BOX)
    for member in (ANN, BOB, CAT):
        game = game.answer_box_double(member, False)
    result = game.result()
    assert result is not None and not result.team_won
    assert dict(result.points) == {BOX: 3, ANN: -1, BOB: -1, CAT: -1}


def test_the_cube_stops_at_64() -> None:
    game = rolling(BOX_SIDE)
    game = replace(game, stakes=tuple(replace(s, value=64, owner="box") for s in game.stakes))
    assert "64" in str(game.double_refusal(BOX))


# ----- settlement


def test_settlement_with_mixed_takes_and_passes_and_a_gammon() -> None:
    """000: "Если они побеждают, игрок в коробке платит каждому победителю ставку партии. Если
    проигрывают, каждый из них платит ставку игроку в коробке." Gammons multiply each stake.
    """
    game = rolling(BOX_SIDE, at=make("backgammon", {13: 15}, {24: 2})).box_double(BOX)
    game = game.answer_box_double(ANN, True).answer_box_double(BOB, False).answer_box_double(CAT, True)
    game = game.roll(BOX, (2, 1))
    game = game.move(BOX, game.legal_plays()[0].steps)
    assert game.turn_side == TEAM_SIDE
    game = team_bears_off_last(game)
    result = game.result()
    assert result is not None and result.kind is WinKind.GAMMON and result.team_won
    assert dict(result.points) == {ANN: 4, BOB: -1, CAT: 4, BOX: -7}
    assert sum(points for _, points in result.points) == 0


def test_settlement_when_the_box_wins_a_gammon_with_a_cube_it_owns() -> None:
    game = rolling(TEAM_SIDE, at=GAMMON_NEAR.turned()).propose_double(ANN).vote(BOB, True).vote(CAT, True)
    game = game.answer_team_double(BOX, [ANN, BOB])
    game = game.roll(ANN, (2, 1))
    game = game.move(ANN, game.legal_plays()[0].steps)
    game = box_bears_off_last(game)
    result = game.result()
    assert result is not None and result.kind is WinKind.GAMMON and not result.team_won
    assert dict(result.points) == {ANN: -4, BOB: -4, CAT: 1, BOX: 7}


def test_jacoby_counts_a_gammon_single_for_a_member_whose_cube_was_never_turned() -> None:
    options = GameOptions(cube=True, jacoby=True)
    game = rolling(BOX_SIDE, at=GAMMON_NEAR, options=options)
    game = replace(game, board=replace(game.board, turn=TEAM_SIDE))
    game = replace(game, stakes=(replace(game.stakes[0], value=2, owner="member"), *game.stakes[1:]))
    game = team_bears_off_last(game)
    result = game.result()
    assert result is not None
    assert dict(result.points) == {ANN: 4, BOB: 1, CAT: 1, BOX: -6}


def test_running_scores_add_up_over_games_and_always_sum_to_zero() -> None:
    session = box_wins_first_game()
    assert session.game is not None
    session = session.update(session.game.resign(BOX))
    scores = dict(session.scores)
    assert sum(scores.values()) == 0
    first, second = session.results
    for player in (BOX, ANN, BOB, CAT):
        assert scores[player] == dict(first.points)[player] + dict(second.points)[player]


def test_resignations_are_scored_from_the_position_as_it_stands() -> None:
    game = rolling(TEAM_SIDE)
    gone = game.resign(BOB)
    assert gone.stake_of(BOB).result == -3 and gone.in_play == (ANN, CAT)
    ended = game.resign(BOX).result()
    assert ended is not None and dict(ended.points)[ANN] == 3


def test_a_member_resigning_during_a_vote_may_complete_the_unanimity() -> None:
    game = rolling(TEAM_SIDE).propose_double(ANN).vote(BOB, True)
    game = game.resign(CAT)
    assert game.phase is ChouettePhase.TEAM_DOUBLED


def test_a_member_answers_the_boxs_double_before_resigning() -> None:
    game = rolling(BOX_SIDE).box_double(BOX)
    with pytest.raises(IllegalActionError, match="answer"):
        game.resign(ANN)


def test_refused_actions_change_nothing() -> None:
    game = rolling(TEAM_SIDE)
    for action in (
        lambda: game.box_double(BOX),
        lambda: game.vote(BOB, True),
        lambda: game.answer_box_double(BOB, True),
        lambda: game.answer_team_double(BOX, []),
        lambda: game.roll(BOX, (1, 2)),
        lambda: game.stake_of(BOX),
    ):
        before = game
        with pytest.raises((IllegalActionError, WrongTurnError)):
            action()
        assert game == before


def test_a_chouette_has_no_automatic_doubles_or_beavers() -> None:
    with pytest.raises(IllegalActionError):
        Chouette.new(GameOptions(cube=True, beavers=True))
    with pytest.raises(IllegalActionError):
        ChouetteGame.new(LINEUP, GameOptions(cube=True, automatic_doubles=1))


# ----- the variant


@pytest.mark.parametrize("variant", ["hypergammon", "nackgammon"])
def test_a_chouette_is_played_in_the_variants_with_backgammons_cube_and_money_play(variant: str) -> None:
    """docs/rules.md §8.3: hypergammon "uses all the same rules as backgammon" (the cube, money play); §8.4:
    nackgammon "can be played in Money Game format": each game of the session is a game of that variant."""
    session = Chouette.new(variant=variant)
    for player in (BOX, ANN, BOB, CAT):
        session = session.sit(player)
    session = session.begin().formation_rolled(dict(zip((BOX, ANN, BOB, CAT), (6, 5, 4, 3), strict=True)))
    game = session.game
    assert game is not None and game.board.variant.name == variant
    assert game.board.position == Position.start(find_variant(variant))
    game = game.opening_roll((5, 2))
    assert game.legal_plays() and game.board.variant.name == variant


@pytest.mark.parametrize("variant", ["dave", "long-traditional", "georgian", "tavla", "portes", "plakoto", "fevga", "tavli"])
def test_a_variant_without_the_cube_or_money_play_has_no_chouette(variant: str) -> None:
    """000: in a chouette "каждый член команды может индивидуально решать, принимать или отказываться" the box's
    double: a variant with no cube, or played as a match only (dave), has no chouette."""
    with pytest.raises(IllegalActionError, match="cube|money play"):
        Chouette.new(variant=variant)
    with pytest.raises(IllegalActionError, match="cube|money play"):
        ChouetteGame.new(LINEUP, variant=find_variant(variant))
