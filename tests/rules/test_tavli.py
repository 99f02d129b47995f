"""Tavli (docs/rules.md §11): a match whose games rotate portes → plakoto → fevga, each by its own rules.

Sources as docs/rules.md names them: Wikipedia, "Tavli"
(en.wikipedia.org/wiki/Tavli); the rules of tavli as bkgm.com gives them, read
in the copy at kefaloniapulse ("Tavli – A guide", docs/rules.md §8) (Tavli).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from nardy.rules import (
    Game, GameOptions, IllegalActionError, Match, MatchContext, Phase, Position, Step, WinKind, find_variant,
)
from nardy.rules.replay import AcceptResignation, GameInput, Move, OpeningRoll, Replay, Resign, Roll

TAVLI = find_variant("tavli")
PORTES, PLAKOTO, FEVGA = (find_variant(name) for name in ("portes", "plakoto", "fevga"))


def single(winner: int) -> list[GameInput]:
    """The loser offers a single and the winner accepts: a portes game worth 1 (a single there is offered)."""
    return [Resign(1 - winner, WinKind.SINGLE), AcceptResignation(winner)]


def gives_up(winner: int) -> list[GameInput]:
    """The loser resigns where resignations offer nothing (plakoto, fevga): scored as the position stands."""
    return [Resign(1 - winner)]


def played(match: Match, *inputs: GameInput) -> Replay:
    replay = Replay.new(match)
    for given in inputs:
        replay = replay.apply(given)
    return replay


def test_the_games_rotate_portes_plakoto_fevga_and_round_again() -> None:
    """Wikipedia, "Tavli": "Tavli is a compendium game for two players which comprises three different variants
    played in succession: Portes, Plakoto and Fevga. These are played in a cycle until one player reaches the
    target score." """
    assert [TAVLI.game_variant(index) for index in range(7)] == [
        PORTES, PLAKOTO, FEVGA, PORTES, PLAKOTO, FEVGA, PORTES,
    ]
    assert TAVLI.game_variants == (PORTES, PLAKOTO, FEVGA)
    assert PORTES.game_variant(5) is PORTES and PORTES.game_variants == (PORTES,)
    match = Match.new("tavli", length=7)
    assert match.variant is TAVLI and match.game.variant is PORTES
    assert match.game.position == Position.start(PORTES)
    assert Game.new("tavli", context=MatchContext(length=5)).variant is PORTES


def test_the_rotation_goes_on_past_three_games() -> None:
    """Wikipedia, "Tavli": "These are Portes, Plakoto and Fevga and they are played in that order until a player
    reaches the agreed target score." """
    replay = played(
        Match.new("tavli", length=7),
        OpeningRoll((6, 1)), *single(0),  # portes: 1-0
        *gives_up(1),                     # plakoto: 1-2
        *gives_up(0),                     # fevga: 3-2
    )
    match = replay.match
    assert match.score == (3, 2) and not match.is_over
    assert [result.points for result in match.results] == [1, 2, 2]
    assert match.game.variant is PORTES and match.game.position == Position.start(PORTES)
    assert played(match, *single(0), *gives_up(0)).match.game.variant is FEVGA


def test_the_winner_of_a_game_starts_the_next() -> None:
    """Tavli: "In the first game, each player rolls one die and the higher number goes first. That player then
    rolls the dice again to begin his first turn." "After the first game, the winner of the previous game goes
    first." """
    replay = played(Match.new("tavli", length=5), OpeningRoll((2, 5)))
    assert replay.game.phase is Phase.ROLLING and replay.game.turn == 1
    replay = played(replay.match, *single(0))
    plakoto = replay.game
    assert plakoto.variant is PLAKOTO and plakoto.phase is Phase.ROLLING
    assert (plakoto.turn, plakoto.white) == (0, 0)
    fevga = played(replay.match, *gives_up(1)).game
    assert fevga.variant is FEVGA and fevga.phase is Phase.ROLLING and (fevga.turn, fevga.white) == (1, 1)


def test_each_game_scores_by_its_own_rules() -> None:
    """Tavli: "The first player to bear off all his checkers gets one point, or, if the winner bears off all his
    checkers before the loser has borne off any, he gets two points. There is no triple game." "No doubling cube
    is used." """
    portes = Match.new("tavli", length=7).game.opening_roll((6, 1))
    with pytest.raises(IllegalActionError):
        portes.resign(1, WinKind.BACKGAMMON)
    gammon = portes.resign(1, WinKind.GAMMON).accept_resignation(0).result
    assert gammon is not None and gammon.points == 2
    with pytest.raises(IllegalActionError):
        Match.new("tavli", length=5, options=GameOptions(cube=True))
    assert not Match.new("tavli", length=5).game.can_double(0)


def test_plakoto_in_tavli_keeps_the_mother_rule() -> None:
    """backgammon-game.eu, "The Pin game" (docs/rules.md §9): "The last checker on your starting point is called
    the mother. If this checker gets pinned by the opponent before it has left the start, the game is over and you
    lose two points." """
    match = played(Match.new("tavli", length=5), OpeningRoll((6, 1)), *single(0)).match
    points = [0] * 24
    points[6], points[5], points[0], points[19] = 1, 14, -1, -14  # ours on 7 and 6; their mother on 1
    position = Position(PLAKOTO, tuple(points), (0, 0), (0, 0), (0,) * 24)
    game = replace(match.game.roll(0, (6, 5)), position=position, dice=(6, 1), phase=Phase.MOVING)
    match = match.update(game.move(0, [Step(7, 1, 6, True), Step(6, 5, 1)]))
    result = match.results[-1]
    assert (result.winner, result.kind, result.points, result.reason) == (0, WinKind.GAMMON, 2, "mother")
    assert match.score == (3, 0) and match.game.variant is FEVGA


def test_the_match_ends_at_its_length() -> None:
    """Tavli: "These games are played one after another, in matches of three, five, or seven points." """
    replay = played(Match.new("tavli", length=3), OpeningRoll((6, 1)), Resign(1, WinKind.GAMMON),
                    AcceptResignation(0), *gives_up(0))
    match = replay.match
    assert match.is_over and (match.winner, match.ended_by, match.score) == (0, "score", (4, 0))
    assert replay.game.variant is PLAKOTO and replay.game.phase is Phase.FINISHED
    with pytest.raises(IllegalActionError):
        match.update(match.game)
    for length in (0, 1, 2, 9):
        with pytest.raises(IllegalActionError):
            Match.new("tavli", length=length)


def test_a_replay_plays_each_game_on_its_own_board() -> None:
    """A tavli match folded from its inputs: moves of portes, plakoto and fevga, each legal by its own game's rules
    (fevga on long nardy's board: Wikipedia, "Tavli": "Movement: Portes and Plakoto: contrary; Fevga: parallel")."""
    replay = played(Match.new("tavli", length=5), OpeningRoll((6, 1)))
    for game_number in range(3):
        game = replay.game
        player = game.turn
        replay = replay.apply(Roll(player, (6, 5)))
        play = replay.game.legal_plays()[0]
        replay = replay.apply(Move(player, play.steps))
        assert replay.game.position.variant is TAVLI.game_variant(game_number)
        for given in gives_up(player) if game_number else single(player):
            replay = replay.apply(given)
        assert replay.finished is not None and replay.finished.variant is TAVLI.game_variant(game_number)
    assert replay.match.score == (5, 0) and replay.match.is_over
    assert [result.points for result in replay.match.results] == [1, 2, 2]
    assert FEVGA.board == "long" and replay.game.variant is FEVGA
