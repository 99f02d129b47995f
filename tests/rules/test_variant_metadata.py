"""What each variant says about itself: its board, family, cube rules and names of wins.

These are what the server's ``GET /api/variants`` hands to clients, so each is
checked against the rule it summarises rather than restated.
"""

from __future__ import annotations

import itertools

import pytest

from nardy.rules import VARIANTS, GameOptions, IllegalActionError, WinKind, find_variant


def _accepts(variant_name: str, options: GameOptions, match_length: int) -> bool:
    try:
        find_variant(variant_name).check_options(options, match_length)
    except IllegalActionError:
        return False
    return True


@pytest.mark.parametrize(
    ("name", "board", "family"),
    [
        ("backgammon", "short", "backgammon"),
        ("dave", "short", "backgammon"),
        ("georgian", "short", "georgian"),
        ("long-traditional", "long", "long"),
        ("long-tournament", "long", "long"),
        ("long-bolshie", "long", "long"),
    ],
)
def test_board_and_family(name: str, board: str, family: str) -> None:
    """003: dave is backgammon "with *dave* (doubling cube)"; long nardy comes in three regulations
    (004's traditional and tournament, 001's), all on the long board."""
    variant = find_variant(name)
    assert (variant.board, variant.family) == (board, family)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_cube_rules_say_what_check_options_accepts(name: str) -> None:
    """Each cube rule a variant reports is exactly what its games accept (000: automatic doubles and the
    Jacoby rule are «в основном правила свободной игры или игры на деньги»)."""
    variant = find_variant(name)
    rules = variant.cube_rules
    lengths = [0, *(variant.match_lengths or (1, 3))]
    for length, cube, jacoby, doubles, beavers in itertools.product(
        lengths, (False, True), (False, True), (0, 1), (False, True),
    ):
        options = GameOptions(cube=cube, jacoby=jacoby, automatic_doubles=doubles, beavers=beavers)
        money = length == 0
        if (money and not variant.money_play) or (not cube and (jacoby or doubles)):
            continue  # money play it refuses by its own rule; Jacoby and doubles without a cube mean nothing
        expected = (
            (not cube or rules.allowed)
            and (cube or not rules.required)
            and (not jacoby or (rules.jacoby and money))
            and doubles <= (rules.automatic_doubles if money else 0)
            and (not beavers or (rules.beavers and cube))
        )
        assert _accepts(name, options, length) == expected, (length, options)


def test_money_play_and_match_lengths_are_what_check_options_accepts() -> None:
    """003: «The match can be defined as a 3, 5, 7, 9, 11, 13, 15, 17, 19 or 21 points match»;
    002: «Матч идёт до 1, 3, 5 или 7 очков»; long nardy takes any length."""
    for variant in VARIANTS.values():
        options = variant.default_options()
        assert _accepts(variant.name, options, 0) == variant.money_play
        for length in range(1, 30):
            allowed = variant.match_lengths is None or length in variant.match_lengths
            assert _accepts(variant.name, options, length) == allowed
    assert find_variant("dave").match_lengths == tuple(range(3, 22, 2))
    assert find_variant("georgian").match_lengths == (1, 3, 5, 7)


def test_names_of_wins_smallest_first() -> None:
    """002: «ойн ... марс ... кокс»; long nardy scores oin and mars only (001: oin = 1 and mars = 2)."""
    assert find_variant("backgammon").win_kinds == (WinKind.SINGLE, WinKind.GAMMON, WinKind.BACKGAMMON)
    assert find_variant("dave").win_kinds == (WinKind.OIN, WinKind.MARS, WinKind.KOKS)
    assert find_variant("long-bolshie").win_kinds == (WinKind.OIN, WinKind.MARS)


def test_a_backgammon_counts_three_or_two_where_there_is_one() -> None:
    """000: «в некоторых странах бэкгаммон считается удвоенным, а не утроенным»."""
    assert find_variant("backgammon").backgammon_values == (3, 2)
    assert all(not v.backgammon_values for v in VARIANTS.values() if WinKind.BACKGAMMON not in v.kinds)


@pytest.mark.parametrize("name", list(VARIANTS))
def test_opponent_numbers_turn_the_board(name: str) -> None:
    """The table of the opponent's numbers is the topology's own: what stands on their point q stands on our
    point ``opponent_numbers()[q]``, the bar and off being each side's own."""
    variant = find_variant(name)
    topology = variant.topology
    numbers = topology.opponent_numbers()
    assert len(numbers) == 26 and numbers[0] == 0 and numbers[25] == 25
    start = variant.start_points()
    turned = topology.flip_points(start)
    for ours in range(1, 25):
        assert turned[numbers[ours] - 1] == -start[ours - 1]
        assert numbers[numbers[ours]] == ours
