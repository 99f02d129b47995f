"""Tavla, portes, hypergammon and nackgammon (docs/rules.md, "Tavla", "Portes", "Hypergammon", "Nackgammon").

Their movement is backgammon's, checked against GNU Backgammon for hypergammon
and nackgammon (tests/oracles/test_gnubg_variations.py); here: their starts,
scoring, cube and match rules, tavla's "no hit-and-run in the home board" and
the opening roll of tavli and tavla.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from nardy.rules import Game, GameOptions, IllegalActionError, MatchContext, Phase, Position, WinKind, find_variant
from tests.rules.positions import make

WIKIPEDIA_TAVLA = "https://en.wikipedia.org/wiki/Tavla"
TAVLI = "https://kefaloniapulse.homeinkefalonia.properties/tavli-a-guide-to-whats-happening-on-the-backgammon-boards-in-the-cafes-of-kefalonia"


def finished(variant: str, opponent: dict[int, int], *, bar: tuple[int, int] = (0, 0)) -> Game:
    """A 5-point match game where player 0, last checker on point 1, rolls 1-1 and bears it off against ``opponent``."""
    game = Game.new(variant, context=MatchContext(length=5))
    at = make(variant, {1: 1}, opponent, bar=bar)
    game = replace(game, position=at, phase=Phase.ROLLING, turn=0, white=0, turns_played=10).roll(0, (1, 1))
    [play] = game.legal_plays()
    return game.move(0, play.steps)


# ----- tavla


def test_tavla_gammon_is_a_mars_worth_two() -> None:
    """Wikipedia, "Tavla": "The winner scores 1 point for a normal win and 2 for a gammon." (In Turkish a gammon is *mars*.)"""
    game = finished("tavla", {20: 15})
    assert game.result is not None and (game.result.kind, game.result.points) == (WinKind.MARS, 2)
    single = finished("tavla", {20: 14})
    assert single.result is not None and (single.result.kind, single.result.points) == (WinKind.SINGLE, 1)


@pytest.mark.parametrize("variant", ["tavla", "portes"])
def test_no_backgammon_a_loser_in_the_winners_home_loses_a_gammon(variant: str) -> None:
    """Wikipedia, "Tavla": "There is no backgammon." Tavli (bkgm.com's rules as quoted by TAVLI): "There is no triple game." """
    for game in (finished(variant, {3: 1, 20: 14}), finished(variant, {20: 14}, bar=(0, 1))):
        assert game.result is not None and game.result.points == 2
        assert game.result.kind == find_variant(variant).kinds[1]
    assert find_variant(variant).backgammon_values == ()


@pytest.mark.parametrize("variant", ["tavla", "portes"])
def test_no_cube_and_matches_of_any_length(variant: str) -> None:
    """Wikipedia, "Tavla": "There is no doubling cube." Tavli: "No doubling cube is used." and "These games are
    played one after another, in matches of three, five, or seven points" (any length here; no money play)."""
    rules = find_variant(variant)
    with pytest.raises(IllegalActionError, match="without the doubling cube"):
        rules.check_options(GameOptions(cube=True), 5)
    for length in (1, 2, 5, 13, 25):
        rules.check_options(GameOptions(), length)
    with pytest.raises(IllegalActionError, match="match"):
        rules.check_options(GameOptions(), 0)


def test_tavla_no_hit_and_run_in_the_home_board() -> None:
    """Wikipedia, "Tavla": "Hit-and-run does not apply in a player's home board." A checker that hits on our 5
    stays there: with 3-2 from the 8, 8/5*/3 is not a play while the 2 can be played elsewhere."""
    def hit_and_ran(variant: str) -> bool:
        at = make(variant, {8: 1, 13: 14}, {5: 1, 20: 14})
        return any(p.position.bar[1] == 1 and p.position.points[2] == 1 for p in at.legal_plays((3, 2)))

    assert not hit_and_ran("tavla")
    assert hit_and_ran("backgammon")


@pytest.mark.parametrize("variant", ["tavla", "portes"])
def test_opening_winner_rolls_again(variant: str) -> None:
    """Wikipedia, "Tavla": "The player who wins the opening roll, re-rolls the dice for the first turn."
    Tavli: "That player then rolls the dice again to begin his first turn." """
    game = Game.new(variant, context=MatchContext(length=5)).opening_roll((2, 5))
    assert game.phase is Phase.ROLLING and game.turn == 1
    assert game.roll(1, (6, 6)).dice == (6, 6)


# ----- hypergammon and nackgammon


def test_hypergammon_starts_with_three_checkers_on_24_23_22() -> None:
    """Wikipedia, "Hypergammon": "each player begins with one piece on each of the three most distant points
    of the board (the 22-point, the 23-point and the 24-point)." """
    start = Position.start("hypergammon")
    assert start == make("hypergammon", {24: 1, 23: 1, 22: 1}, {1: 1, 2: 1, 3: 1})
    assert find_variant("hypergammon").checkers == 3 and start.pip_counts() == (69, 69)


def test_nackgammon_start() -> None:
    """dailygammon, "What is Nackgammon?": "Each player removes a checker from their mid point and six point,
    and places those 2 checkers on their 23 point instead." """
    start = Position.start("nackgammon")
    assert start == make("nackgammon", {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}, {1: 2, 2: 2, 12: 4, 17: 3, 19: 4})


@pytest.mark.parametrize("variant", ["hypergammon", "nackgammon"])
def test_backgammons_cube_scoring_and_money_play(variant: str) -> None:
    """Wikipedia, "Hypergammon": "Hypergammon is often played using the Jacoby Rule"; play65, "How To Play
    Nackgammon": "Nackgammon can be played in Money Game format using the Jacoby Rule and Beavers, or it can
    be played in Match Play format with the Crawford Rule in place." """
    rules = find_variant(variant)
    rules.check_options(GameOptions(cube=True, jacoby=True, beavers=True), 0)
    rules.check_options(GameOptions(cube=True), 7)
    assert rules.win_kinds == (WinKind.SINGLE, WinKind.GAMMON, WinKind.BACKGAMMON)
    game = finished(variant, {3: 1, 20: 2} if variant == "hypergammon" else {3: 1, 20: 14})
    assert game.result is not None and (game.result.kind, game.result.points) == (WinKind.BACKGAMMON, 3)


def test_hypergammon_gammon_and_single() -> None:
    """bkgm.com, "Hypergammon Fun": hypergammon "uses all the same rules as backgammon" with "just 3 checkers
    per side": a loser with none borne off loses a gammon, one with a checker off a single game."""
    game = finished("hypergammon", {20: 3})
    assert game.result is not None and (game.result.kind, game.result.points) == (WinKind.GAMMON, 2)
    game = finished("hypergammon", {20: 2})
    assert game.result is not None and (game.result.kind, game.result.points) == (WinKind.SINGLE, 1)


def test_a_start_names_points_once_and_at_most_fifteen_checkers() -> None:
    """A variant's start is data checked when the variant is made: no shared point, 1 to 15 checkers a side."""
    backgammon = find_variant("backgammon")
    with pytest.raises(ValueError, match="share a point"):
        replace(backgammon, name="x", start_layout=((24, 2), (1, 1)))
    with pytest.raises(ValueError, match="1 to 15"):
        replace(backgammon, name="x", start_layout=((24, 16),))
