"""Long nardy in its three regulations (seeds 001 and 004, docs/rules.md §6).

``long-traditional`` and ``long-tournament`` follow 004, ``long-bolshie``
follows 001. Tests run on all three where the seeds agree and name the
regulations where they differ. The side to move's head is point 24, the
opponent's head is our point 12, and the opponent travels our 12 → 1, then
our 24 → 13 (its home is our 13..18).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nardy.rules import DICE_ROLLS, GameOptions, InvalidPositionError, Position, Step, WinKind, find_variant
from tests.rules.positions import apply, expect, key_of, make, outcomes, steps_text

TRADITIONAL = "long-traditional"
TOURNAMENT = "long-tournament"
BOLSHIE = "long-bolshie"
ALL = (TRADITIONAL, TOURNAMENT, BOLSHIE)
REGULATIONS_004 = (TRADITIONAL, TOURNAMENT)

all_regulations = pytest.mark.parametrize("variant", ALL)
regulations_004 = pytest.mark.parametrize("variant", REGULATIONS_004)


# ----- setup


@all_regulations
def test_everything_starts_on_the_heads(variant: str) -> None:
    """004: «У каждого игрока 15 шашек, и все они начинают с одного пункта — «головы».»"""
    start = Position.start(variant)
    assert start == make(variant, {24: 15}, {12: 15})
    assert start.pip_counts() == (360, 360)
    assert start.turned() == start


# ----- no hitting


@all_regulations
def test_a_single_opposing_checker_closes_a_point(variant: str) -> None:
    """004: «Нельзя остановиться на пункте, где стоят шашки соперника, — даже одна.»"""
    pos = make(variant, {20: 1}, {15: 1})
    # 20/15 is closed by one checker, so the 8 is played only via 17.
    assert outcomes(pos, (5, 3)) == expect(pos, "20/17/12")
    assert pos.next_steps((5, 3)) == [Step(20, 17, 3)]


@all_regulations
def test_no_intermediate_stop_on_an_opposing_checker(variant: str) -> None:
    """001: «Если в лунке стоит шашка соперника, то в эту лунку ставить свою шашку категорически нельзя.»"""
    pos = make(variant, {20: 1}, {15: 1, 17: 1})
    assert pos.legal_plays((5, 3)) == []


@all_regulations
def test_there_is_no_hitting_and_no_bar(variant: str) -> None:
    """004: «Нет ни взятия, ни бара: соперник никогда не выводит шашки из игры.»"""
    with pytest.raises(InvalidPositionError):
        make(variant, {24: 14}, {12: 15}, bar=(1, 0))
    with pytest.raises(InvalidPositionError):
        make(variant, {24: 15}, {12: 14}, bar=(0, 1))
    pos = make(variant, {20: 1, 19: 1}, {12: 14, 14: 1}, off=(13, 0))
    for dice in DICE_ROLLS:
        for play in pos.legal_plays(dice):
            assert not any(s.hit for s in play.steps)
            assert play.position.bar == (0, 0)


# ----- moving


@all_regulations
def test_either_die_may_be_played_first(variant: str) -> None:
    """001: «Какой ход первым делать, большее выпавшее число или меньшее, не имеет значения.»"""
    pos = make(variant, {20: 1, 1: 14})
    assert {steps_text(s) for s in pos.legal_sequences((5, 3))} == {"20/15 15/12", "20/17 17/12"}


@all_regulations
def test_one_checker_may_play_both_dice(variant: str) -> None:
    """001: «Вместо ходов двумя разными шашками, игрок имеет право сделать два хода одной шашкой.»"""
    pos = make(variant, {20: 1, 16: 1, 1: 13})
    assert outcomes(pos, (5, 3)) == expect(pos, "20/12", "20/15 16/13", "20/17 16/11", "16/8")


@all_regulations
def test_a_double_is_four_moves_spread_as_the_player_likes(variant: str) -> None:
    """001: «Игрок может выполнить ход четырьмя разными шашками походив каждой на две лунки. Либо ... двумя шашками походив на четыре лунки каждой, либо одной шашкой на 8 лунок»."""
    pos = make(variant, {20: 1, 18: 1, 16: 1, 14: 1, 1: 11})
    plays = outcomes(pos, (2, 2))
    assert expect(pos, "20/18 18/16 16/14 14/12", "20/16 18/14", "20/12") <= plays
    assert {len(p.steps) for p in pos.legal_plays((2, 2))} == {4}


@all_regulations
def test_checkers_move_exactly_the_dice_and_only_forward(variant: str) -> None:
    """001: «Ходить надо строго на то число очков, которое выпало на зарах.»; 004: «Шашки ходят только вперёд, никогда назад.»"""
    pos = make(variant, {24: 10, 20: 2, 15: 1, 9: 1, 3: 1}, {12: 12, 7: 2, 18: 1})
    for dice in DICE_ROLLS:
        for sequence in pos.legal_sequences(dice):
            for step in sequence:
                assert step.die in dice
                assert step.target == step.source - step.die


# ----- maximum-dice rule


@all_regulations
def test_both_dice_must_be_played_even_against_ones_interest(variant: str) -> None:
    """001: «если возможность хода имеется, то игрок обязан, даже в ущерб себе, использовать все выпавшие на зарах очки.»"""
    pos = make(variant, {13: 1, 9: 1, 1: 13}, {7: 1, 2: 1})
    # 9/4 would leave no 6 to play; 13/8 9/3 plays both.
    assert outcomes(pos, (6, 5)) == expect(pos, "13/8 9/3")


@all_regulations
def test_larger_die_when_only_one_can_be_played(variant: str) -> None:
    """001: «игрок может совершить только один ход (например 3 или 6), то в этой ситуации игрок должен совершить ход с перемещением шашки на большее количество лунок (т.е на 6).»"""
    pos = make(variant, {13: 1, 1: 14}, {4: 1})
    assert outcomes(pos, (6, 3)) == expect(pos, "13/7")
    assert outcomes(pos, (3, 6)) == expect(pos, "13/7")


@all_regulations
def test_only_the_possible_die_is_played_and_the_other_is_lost(variant: str) -> None:
    """001: «В ситуации когда можно сделать ход на количество лунок, которое выпало на одном из заров, и нельзя переместить шашку на число лунок выпавшее на другом заре, выполняется только возможный ход, а очки второго теряются.»"""
    pos = make(variant, {13: 1, 1: 14}, {7: 1, 2: 1})
    assert outcomes(pos, (6, 5)) == expect(pos, "13/8")


@all_regulations
def test_the_larger_die_bears_off_the_last_checker(variant: str) -> None:
    """001: «игрок должен совершить ход с перемещением шашки на большее количество лунок (т.е на 6).»"""
    pos = make(variant, {1: 1}, {15: 5}, off=(14, 10))
    [play] = pos.legal_plays((6, 3))
    assert play.steps == (Step(1, 0, 6),)
    assert pos.play((6, 3), play.steps) == play.position


@all_regulations
def test_a_double_is_played_as_far_as_possible(variant: str) -> None:
    """001: «Данное правило распространяется и на выпавшие дубли, даже если ход игроку не выгоден.»"""
    pos = make(variant, {13: 1, 1: 14}, {5: 1})
    assert outcomes(pos, (4, 4)) == expect(pos, "13/9")


@all_regulations
def test_no_possible_move_is_a_pass(variant: str) -> None:
    """001: «все очки пропадают и игрок пропускает ход.»"""
    pos = make(variant, {13: 1, 1: 14}, {8: 1, 7: 1})
    assert pos.legal_plays((6, 5)) == []
    assert pos.play((6, 5), ()) == pos


# ----- the head rule


@all_regulations
def test_one_checker_from_the_head_per_turn(variant: str) -> None:
    """004: «С головы можно снять только одну шашку за ход.»"""
    pos = make(variant, {24: 14, 19: 1}, {12: 15})
    # 24/21 24/19 would take two from the head.
    assert outcomes(pos, (5, 3)) == expect(pos, "24/16", "24/21 19/14", "19/11")


@all_regulations
def test_one_checker_from_the_head_with_a_double_too(variant: str) -> None:
    """001: «За один ход с головы ... можно взять только одну шашку, вне зависимости выпал дубль или нет!»"""
    pos = make(variant, {24: 14, 19: 1}, {12: 15})
    # The head checker can go three threes at most (our 12 is the opponent's head).
    assert outcomes(pos, (3, 3)) == expect(
        pos, "19/16/13/10/7", "24/21 19/16/13/10", "24/21/18 19/16/13", "24/21/18/15 19/16"
    )


@regulations_004
def test_first_roll_6_6_takes_two_from_the_head_and_plays_only_two_sixes(variant: str) -> None:
    """004: «При 6-6 на первом броске играются только два хода (две шашки встают на пункт 18): следующий шаг на 6 пришёлся бы на голову соперника.»"""
    start = Position.start(variant)
    assert outcomes(start, (6, 6)) == expect(start, "24/18(2)")
    assert [len(p.steps) for p in start.legal_plays((6, 6))] == [2]


@regulations_004
def test_first_roll_4_4_and_3_3_take_two_from_the_head(variant: str) -> None:
    """004: «при первом броске каждого игрока в партии, если выпало 6-6, 4-4 или 3-3, можно снять с головы две шашки»."""
    start = Position.start(variant)
    assert outcomes(start, (4, 4)) == expect(start, "24/20/16(2)")
    assert outcomes(start, (3, 3)) == expect(start, "24/21/18/15 24/21", "24/21/18(2)")


@regulations_004
def test_the_exception_is_the_second_players_too(variant: str) -> None:
    """004: «при первом броске каждого игрока в партии»."""
    # The opponent opened 6-5 with one checker to its 13 (our 1).
    pos = make(variant, {24: 15}, {12: 14, 1: 1})
    assert outcomes(pos, (6, 6)) == expect(pos, "24/18(2)")
    assert outcomes(pos, (4, 4)) == expect(pos, "24/16(2)")
    assert outcomes(pos, (3, 3)) == expect(pos, "24/15 24/21", "24/18(2)")


@regulations_004
def test_the_exception_is_only_for_the_first_roll(variant: str) -> None:
    """004: «Исключение: при первом броске каждого игрока в партии»."""
    pos = make(variant, {24: 14, 18: 1}, {12: 14, 1: 1})
    # One from the head to 18; nothing goes on past the opponent's head.
    assert outcomes(pos, (6, 6)) == expect(pos, "24/18")


@all_regulations
@pytest.mark.parametrize(("dice", "play"), [((5, 5), "24/4"), ((2, 2), "24/16"), ((1, 1), "24/20")])
def test_other_first_roll_doubles_take_one_from_the_head(variant: str, dice: tuple[int, int], play: str) -> None:
    """004: «если выпало 6-6, 4-4 или 3-3, можно снять с головы две шашки» (only these doubles)."""
    start = Position.start(variant)
    assert outcomes(start, dice) == expect(start, play)


@pytest.mark.parametrize(("dice", "play"), [((6, 6), "24/18"), ((4, 4), "24/16"), ((3, 3), "24/15")])
def test_bolshie_has_no_first_roll_exception(dice: tuple[int, int], play: str) -> None:
    """001: «При выполнении дубля игрок имеет право снять с «головы» только одну шашку!»"""
    start = Position.start(BOLSHIE)
    assert outcomes(start, dice) == expect(start, play)


# ----- the six-point block


# Our 11, 10, 9, 8 and 6 are held and 13 can fill the gap on 7 with a six.
# The opponent's 15 checkers are all on its head (our 12), behind the block.
BLOCK_OURS = {24: 9, 13: 1, 11: 1, 10: 1, 9: 1, 8: 1, 6: 1}


def _every_6_1_play(pos: Position) -> set[str]:
    """All plays of 6-1 from the BLOCK_OURS position, before any block ban (worked out by hand)."""
    sixes = ["24/18", "13/7", "11/5", "10/4", "9/3", "8/2"]  # 6/off: not all home
    ones = ["24/23", "11/10", "10/9", "9/8", "8/7", "6/5"]  # 13/12: the opponent's head
    # Two different checkers (two from the head is the head rule's business) ...
    pairs = {f"{a} {b}" for a in sixes for b in ones if a.split("/")[0] != b.split("/")[0]}
    # ... or one checker playing both dice.
    chains = {"24/18/17", "13/7/6", "11/5/4", "10/4/3", "9/3/2", "8/2/1"}
    return expect(pos, *pairs, *chains)


@all_regulations
def test_hand_count_of_the_block_position(variant: str) -> None:
    """004: «Блоки из пяти пунктов и короче разрешены всегда.»"""
    pos = make(variant, BLOCK_OURS, {12: 15})
    assert len(_every_6_1_play(pos)) == 34  # 31 pairs + 6 chains, 3 pairs equal to chains
    assert expect(pos, "13/7 11/10", "13/7 6/5", "13/7 8/7") <= outcomes(pos, (6, 1))


@pytest.mark.parametrize("variant", [TRADITIONAL, BOLSHIE])
def test_a_six_block_at_the_end_of_the_turn_is_forbidden(variant: str) -> None:
    """004: «Запрещено строить блок из шести пунктов подряд, занятых вашими шашками, если перед ним нет ни одной шашки соперника»; 001: «Запрещено выставлять блок из шести шашек!»"""
    pos = make(variant, BLOCK_OURS, {12: 15})
    # Only 13/7 24/23 ends with 11..6 all held; 13/7/6 held the block only mid-turn.
    assert outcomes(pos, (6, 1)) == _every_6_1_play(pos) - expect(pos, "13/7 24/23")
    assert expect(pos, "13/7/6") <= outcomes(pos, (6, 1))


def test_tournament_forbids_the_block_even_mid_turn() -> None:
    """004: «в турнирном регламенте блок не может возникнуть даже временно, посреди хода.»"""
    pos = make(TOURNAMENT, BLOCK_OURS, {12: 15})
    # 13/7/6 must pass through 7 and make the block there: illegal. 13/7 11/10 is fine in the order 11/10, 13/7.
    assert outcomes(pos, (6, 1)) == _every_6_1_play(pos) - expect(pos, "13/7 24/23", "13/7/6")
    assert [steps_text(s) for s in pos.legal_sequences((6, 1)) if steps_text(s) in ("13/7 11/10", "11/10 13/7")] == [
        "11/10 13/7"
    ]


@regulations_004
def test_a_block_is_allowed_once_an_opposing_checker_is_past_it(variant: str) -> None:
    """004: «Блок из шести разрешён, если хотя бы одна шашка соперника уже прошла его.»"""
    # One opposing checker has already reached our 3 (its 15), past our 11..6.
    pos = make(variant, BLOCK_OURS, {12: 14, 3: 1})
    assert expect(pos, "13/7 24/23", "13/7/6") <= outcomes(pos, (6, 1))


def test_bolshie_forbids_the_block_while_an_opposing_checker_is_behind_it() -> None:
    """001 §1.12: «создавать такую ситуацию «запирания» своему сопернику при которой заняты все шесть лунок, следующих за его шашкой»

    The 14 opposing checkers on the head are behind our 11..6; the one that
    has passed it (on our 3) does not lift 001's ban, as it does 004's.
    """
    pos = make(BOLSHIE, BLOCK_OURS, {12: 14, 3: 1})
    plays = outcomes(pos, (6, 1))
    assert not expect(pos, "13/7 24/23") & plays
    assert expect(pos, "13/7/6", "13/7 11/10") <= plays


@all_regulations
def test_a_block_is_allowed_once_all_opposing_checkers_are_home(variant: str) -> None:
    """001: «...до тех пор, пока его соперник не переведет все свои шашки в свой «дом»»."""
    # The opponent's home is our 13..18.
    pos = make(variant, BLOCK_OURS, {18: 5, 17: 5, 16: 5})
    assert expect(pos, "13/7 24/23", "13/7/6") <= outcomes(pos, (6, 1))


# Our 2, 1, 24, 23 and 22 follow each other along the opponent's route
# (its 14, 13, 12, 11, 10); 24/21 makes the sixth.
WRAP_OURS = {24: 10, 23: 1, 22: 1, 2: 1, 1: 1, 5: 1}


@all_regulations
def test_a_block_runs_across_our_point_1_to_24(variant: str) -> None:
    """docs/rules.md §6: «six consecutive points held by one side, counted along the opponent's route (so the run may pass from point 1 to point 24 of the side that built it)»; 001: «заняты все шесть лунок, следующих за его шашкой»."""
    pos = make(variant, WRAP_OURS, {12: 15})
    plays = outcomes(pos, (3, 1))
    # 2, 1, 24, 23, 22, 21 all held: banned (no opposing checker is past our 21).
    assert not expect(pos, "24/21 5/4") & plays
    assert expect(pos, "24/21/20", "24/21 2/1", "24/21 22/21", "24/21 23/22") <= plays


@all_regulations
def test_without_our_1_point_the_same_play_is_no_block(variant: str) -> None:
    """004: «Блоки из пяти пунктов и короче разрешены всегда.»"""
    ours = {**WRAP_OURS, 3: 1}
    del ours[1]
    pos = make(variant, ours, {12: 15})
    assert expect(pos, "24/21 5/4") <= outcomes(pos, (3, 1))


@all_regulations
def test_points_13_and_12_are_not_consecutive_for_the_opponent(variant: str) -> None:
    """004: «Запрещено строить блок из шести пунктов подряд ... если перед ним нет ни одной шашки соперника» (our 13 is the end of its route, our 12 its head)."""
    # The opponent has left its head; our 15..10 touch on the board but not along its route.
    pos = make(variant, {24: 9, 16: 1, 15: 1, 14: 1, 13: 1, 12: 1, 11: 1}, {9: 5, 8: 5, 7: 5})
    assert expect(pos, "16/10 24/23") <= outcomes(pos, (6, 1))


# Only the checker on 17 can move (the others are home and cannot bear off
# while it is out); with both dice it would close our 6..1.
STUCK_OURS = {17: 1, 5: 3, 4: 3, 3: 3, 2: 3, 1: 2}


@all_regulations
def test_maximum_dice_rule_after_removing_block_plays(variant: str) -> None:
    """docs/rules.md §6: «A play that breaks the ban is illegal; the maximum-dice rule is applied to the plays that remain.»"""
    pos = make(variant, STUCK_OURS, {10: 4, 9: 4, 8: 4, 7: 3})
    # 17/11/6 and 17/12/6 make the block; of the single dice the larger (6) must be played.
    assert outcomes(pos, (6, 5)) == expect(pos, "17/11")


@regulations_004
def test_with_a_checker_past_it_the_same_block_may_be_made(variant: str) -> None:
    """004: «Блок из шести разрешён, если хотя бы одна шашка соперника уже прошла его.»"""
    # The opponent's checker on our 20 (its 8) is past our 6..1 (its 18..13).
    pos = make(variant, STUCK_OURS, {10: 4, 9: 4, 8: 4, 7: 2, 20: 1})
    assert outcomes(pos, (6, 5)) == expect(pos, "17/11/6")


def test_bolshie_still_forbids_that_block() -> None:
    """001 §1.12: «заняты все шесть лунок, следующих за его шашкой» — the opposing checkers on our 10..7 are behind our 6..1."""
    pos = make(BOLSHIE, STUCK_OURS, {10: 4, 9: 4, 8: 4, 7: 2, 20: 1})
    assert outcomes(pos, (6, 5)) == expect(pos, "17/11")


# The example of the 2026-12-02 decision on 001 §1.12: our 11..7 held, a spare on
# 13, and no opposing checker behind them (its checkers on our 3, 20 and 22, its
# 15, 8 and 10, have all passed our 12..1).
PASSED = [0, 0, -5, 0, 0, 0, 2, 2, 2, 2, 2, 0, 1, 0, 0, 0, 0, 0, 0, -5, 0, -5, 0, 4]
"""Canonical ``points`` (docs/formats.md) of the long-bolshie example position."""


def test_bolshie_allows_a_block_no_opposing_checker_is_behind() -> None:
    """001 §1.12: «Т.е создавать такую ситуацию «запирания» своему сопернику при которой заняты все шесть лунок, следующих за его шашкой.»

    A block is a lock only in front of an opposing checker: with 6-1, 13/7/6
    makes 11..6 and 13/12 7/1 makes 12..7, and neither has an opposing checker
    behind it, so both are legal. 004's regulations allow them as well (an
    opposing checker has passed each block), so all three agree here.
    """
    pos = Position(BOLSHIE, PASSED)
    plays = outcomes(pos, (6, 1))
    assert expect(pos, "13/7/6", "13/12 7/1", "13/12/6") <= plays
    for variant in REGULATIONS_004:
        assert outcomes(Position(variant, PASSED), (6, 1)) == plays


def test_bolshie_forbids_the_same_block_once_an_opposing_checker_is_behind_it() -> None:
    """001 §1.12: «Игрок, не имеет права, своему сопернику полностью закрывать своими шашками все шесть лунок на всех игральных половинах доски, до тех пор, пока его соперник не переведет все свои шашки в свой «дом»»

    One opposing checker back on its head (our 12) is behind our 11..6: the
    block is banned in long-bolshie, while 004 still allows it (others have passed it).
    """
    points = list(PASSED)
    points[19], points[11] = -4, -1
    pos = Position(BOLSHIE, points)
    plays = outcomes(pos, (6, 1))
    assert not expect(pos, "13/7/6") & plays
    assert expect(pos, "13/7 24/23", "13/7 11/10") <= plays
    assert expect(pos, "13/7/6") <= outcomes(Position(TRADITIONAL, points), (6, 1))


# ----- bearing off


@all_regulations
def test_bear_off_only_with_all_fifteen_home(variant: str) -> None:
    """001: «Игрок не имеет права «выбрасывать» «шашки-нарды» не заведя их полностью, в полном составе (в количестве 15 штук) в свой дом.»"""
    pos = make(variant, {7: 1, 6: 14})
    assert outcomes(pos, (6, 5)) == expect(pos, "7/1 6/1", "7/2 6/off")


@all_regulations
def test_6_4_bears_off_from_6_and_4(variant: str) -> None:
    """001 §2.4: «на зарах выпало 6х4, следовательно, удаляем с игрового поля (с лунок дома) две шашки, одну с 6-й лунки, а другую соответственно с 4-й лунки.»"""
    pos = make(variant, {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2})
    assert outcomes(pos, (6, 4)) == expect(pos, "6/off 4/off", "6/off 6/2", "6/off 5/1")


@all_regulations
def test_6_3_the_three_from_3_or_played_from_6_5_or_4(variant: str) -> None:
    """001 §2.5: «если выпало 6-3, то, игрок может вывести с доски одну шашку с 6-й лунки и одну шашку с 3- й лунки (три можно сыграть с 6, 5 или 4 лунки).»"""
    pos = make(variant, {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2})
    assert outcomes(pos, (6, 3)) == expect(pos, "6/off 3/off", "6/off 6/3", "6/off 5/2", "6/off 4/1")


@all_regulations
def test_6_2_with_the_2_point_empty_moves_the_2_inside(variant: str) -> None:
    """001 §2.6: «выпало 6х2, на 6-й лунке есть нарды и мы соответственно выбрасываем одну шашку, а вот вторая лунка пустая и выбрасывать нечего, в этом случае игрок может любой шашкой совершить ход (походить) на две лунки»."""
    pos = make(variant, {6: 3, 5: 3, 4: 3, 3: 3, 1: 3})
    assert outcomes(pos, (6, 2)) == expect(pos, "6/off 6/4", "6/off 5/3", "6/off 4/2", "6/off 3/1")


@all_regulations
def test_a_die_may_move_inside_instead_of_bearing_off(variant: str) -> None:
    """001 §2.7: «Он может сыграть шашкой в доме или «выбросить» ее.»"""
    pos = make(variant, {5: 1, 2: 1})
    assert outcomes(pos, (5, 2)) == expect(pos, "5/off 2/off", "5/3/off")


@all_regulations
def test_6_5_with_6_and_5_empty_bears_off_from_the_highest(variant: str) -> None:
    """001 §2.8: «если у игрока на зарах выпало 6 -5, а на лунках 6 и 5 нет шашек, то игрок может вывести из дома две шашки со следующей по порядку четвертой лунки, если же и там нет шашек, то тогда с третьей лунки»."""
    pos = make(variant, {4: 3, 3: 3, 2: 3, 1: 3})
    assert outcomes(pos, (6, 5)) == expect(pos, "4/off(2)")
    pos = make(variant, {3: 2, 1: 1})
    assert outcomes(pos, (6, 5)) == expect(pos, "3/off(2)")


@all_regulations
def test_a_higher_point_forces_the_die_inside(variant: str) -> None:
    """004: «Кость можно использовать и для хода внутри дома; правило обязательного использования костей продолжает действовать.»"""
    pos = make(variant, {6: 1, 4: 1})
    # The 5 cannot bear off the 4 while the 6 is there.
    assert outcomes(pos, (5, 1)) == expect(pos, "6/1 4/3", "6/1/off")


@all_regulations
def test_six_bears_off_the_four_when_five_and_six_are_empty(variant: str) -> None:
    """004: «при 6 выбрасываете шашку с пункта 4, если на 5 и 6 у вас шашек нет.»"""
    pos = make(variant, {4: 2, 2: 1})
    assert outcomes(pos, (6, 1)) == expect(pos, "4/off 4/3", "4/off 2/1")


# ----- game end and scoring


def _won(variant: str, theirs: dict[int, int], *, off: int = 0) -> Position:
    return make(variant, {}, theirs, off=(15, off))


@all_regulations
def test_the_game_ends_with_the_last_checker_borne_off(variant: str) -> None:
    """004: «Партия заканчивается в тот момент, когда игрок выбрасывает свою последнюю шашку.»"""
    pos = make(variant, {2: 1, 1: 1}, {15: 5, 14: 5}, off=(13, 5))
    [play] = pos.legal_plays((3, 2))
    assert play.position.off == (15, 5)
    assert play.position.is_game_over() and play.position.winner_is_mover()
    assert play.position.win_kind() == WinKind.OIN


@all_regulations
def test_oin_when_the_loser_bore_off_at_least_one(variant: str) -> None:
    """001 §3.2: Оин — «положение при котором проигравший игрок сумел выкинуть хотя бы одну шашку (0-1)»."""
    assert _won(variant, {18: 14}, off=1).win_kind() == WinKind.OIN
    assert _won(variant, {18: 14}, off=1).turned().win_kind() == WinKind.OIN


@all_regulations
@pytest.mark.parametrize(
    "theirs",
    [{18: 15}, {12: 15}, {12: 10, 3: 5}, {1: 15}],
    ids=["all-home", "all-on-its-head", "some-in-our-home", "all-in-our-home"],
)
def test_mars_when_the_loser_bore_off_none_and_never_koks(variant: str, theirs: dict[int, int]) -> None:
    """001 §3.5: «В проекте «Большие нарды», нет других результатов кроме «йон» (одно очко) и «марс» (два очка).»; 004 (table): «Марс» — «Соперник не выбросил ни одной шашки.» — «2»."""
    won = _won(variant, theirs)
    assert won.win_kind() == WinKind.MARS
    assert won.turned().win_kind() == WinKind.MARS


@all_regulations
def test_points_for_oin_and_mars(variant: str) -> None:
    """004: «Обычная победа (ойн) ... 1 ... Марс ... 2»."""
    rules = find_variant(variant)
    options = rules.default_options()
    assert rules.win_points(WinKind.OIN, options) == 1
    assert rules.win_points(WinKind.MARS, options) == 2
    assert not options.cube and options == GameOptions()


# ----- invariants over random games

ROUTE = [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13]
"""Our points in the order the opponent travels them (docs/rules.md §2)."""


def _forbidden_block(variant: str, points: list[int], opponent_off: int) -> bool:
    """docs/rules.md §6 and its decision on 001 §1.12, written independently of the engine: is there a banned six-block of ours?"""
    held = [points[p - 1] > 0 for p in ROUTE]
    theirs = [j for j, p in enumerate(ROUTE) if points[p - 1] < 0]
    if variant == BOLSHIE:
        if all(j >= 18 for j in theirs):  # our 18..13: the opponent's home
            return False
        return any(all(held[j : j + 6]) and any(k < j for k in theirs) for j in range(len(ROUTE) - 5))
    if opponent_off:
        return False
    for start in range(len(ROUTE) - 5):
        if all(held[start : start + 6]):
            end = start + 5
            if not any(j > end for j in theirs):
                return True
    return False


def _check_play(pos: Position, dice: tuple[int, int], steps: tuple[Step, ...]) -> None:
    variant = pos.variant.name
    points = list(pos.points)
    off = pos.off[0]
    first_roll = points[23] == 15
    from_head = 0
    for step in steps:
        assert step.target == max(step.source - step.die, 0)
        if step.target == 0:
            assert all(c <= 0 for c in points[6:]), "bear off only with all 15 home"
            off += 1
        else:
            assert points[step.target - 1] >= 0, "never onto an opposing checker"
            points[step.target - 1] += 1
        points[step.source - 1] -= 1
        from_head += step.source == 24
        if variant == TOURNAMENT:
            assert not _forbidden_block(variant, points, pos.off[1]), f"block mid-turn: {steps_text(steps)}"
    exception = variant != BOLSHIE and first_roll and dice[0] == dice[1] and dice[0] in (3, 4, 6)
    assert from_head <= (2 if exception else 1), steps_text(steps)
    assert not _forbidden_block(variant, points, pos.off[1]), f"block at the end: {steps_text(steps)}"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(ALL), st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=1, max_size=80), st.data())
def test_random_games_keep_the_rules(variant: str, rolls: list[tuple[int, int]], data: st.DataObject) -> None:
    """004: «Нужно сыграть как можно больше костей.» — and every other rule above, on random games."""
    pos = Position.start(variant)
    for dice in rolls:
        plays = pos.legal_plays(dice)
        assert len({len(p.steps) for p in plays}) <= 1, "all legal plays use the maximum number of dice"
        for play in plays:
            _check_play(pos, dice, play.steps)
            assert apply(pos, steps_text(play)) == key_of(play.position)
        if plays:
            chosen = data.draw(st.sampled_from(plays))
            assert pos.play(dice, chosen.steps) == chosen.position, "a legal play's own steps replay"
            pos = chosen.position
            if pos.is_game_over():
                return
        pos = pos.turned()
