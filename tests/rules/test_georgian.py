"""Georgian short nardy (seed 002, docs/rules.md §4).

The worked examples of 002 as concrete positions, the "hit in your home, stay
there" rule and its exceptions, bearing off and oin/mars/koks.
"""

from __future__ import annotations

import pytest

from nardy.rules import DICE_ROLLS, GameOptions, Position, Step, WinKind, find_variant
from tests.rules.positions import expect, make, outcomes, steps_text, targets

G = "georgian"

START_THEIRS = {1: 2, 12: 5, 17: 3, 19: 5}
"""The opponent's starting checkers in our numbering."""


# ----- board and setup


def test_setup_is_backgammons() -> None:
    """002: «Две шашки — на 24-м пункте ... Пять шашек — на 13-м ... Три шашки — на 8-м ... Пять шашек — на 6-м пункте»."""
    start = Position.start(G)
    assert start == make(G, {24: 2, 13: 5, 8: 3, 6: 5}, START_THEIRS)
    assert start.points == Position.start("backgammon").points


def test_each_side_starts_with_167_pips() -> None:
    """002: «В начале партии каждому нужно пройти 167 шагов»."""
    assert Position.start(G).pip_counts() == (167, 167)


# ----- the worked examples


def test_opening_5_3() -> None:
    """002: «5-3 на первом ходу. Классический ответ: одна шашка с восьмого пункта пятёркой на третий, другая с шестого тройкой тоже на третий.»"""
    start = Position.start(G)
    assert outcomes(start, (5, 3)) == expect(
        start,
        "8/3 6/3",
        "8/3 8/5",
        "8/3 13/10",
        "8/3 24/21",
        "13/8 6/3",
        "13/8 13/10",
        "13/8/5",
        "13/8 24/21",
        "24/21/16",
    )


def test_after_8_3_6_3_a_hit_checker_cannot_enter_on_3_or_6() -> None:
    """002: «На третьем пункте две шашки — он закрыт, и в доме у тебя уже два закрытых пункта, шестой и третий. Побитая шашка соперника на них не войдёт.»"""
    ours = {24: 2, 13: 5, 8: 2, 6: 4, 3: 2}
    opponent = make(G, ours, {1: 2, 12: 5, 17: 3, 19: 4}, bar=(0, 1)).turned()
    # The opponent's 6 enters on its 19 = our 6, its 3 on its 22 = our 3.
    assert opponent.legal_plays((6, 3)) == []
    assert targets(opponent.destinations((6, 4), 25)) == {21}


def test_6_6_on_the_first_own_roll() -> None:
    """002: «Часто играют так: две задние шашки с 24 на 18, две шашки с 13 на 7.»"""
    start = Position.start(G)
    assert expect(start, "24/18(2) 13/7(2)") <= outcomes(start, (6, 6))


def test_6_6_when_the_opponent_closed_our_18() -> None:
    """002: «Если первый ход соперника уже закрыл один из этих пунктов, такой вариант не играется, и нужно искать другой.»"""
    # The opponent opened 6-1 with 13/7 8/7: its 7 is our 18.
    pos = make(G, {24: 2, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 4, 17: 2, 18: 2, 19: 5})
    # Only 13/7 and 8/2 move a six (7/1 and 24/18 are closed).
    assert outcomes(pos, (6, 6)) == expect(
        pos, "13/7(4)", "13/7(3) 8/2", "13/7(2) 8/2(2)", "13/7 8/2(3)"
    )


def test_6_6_when_the_opponent_closed_our_7() -> None:
    """002: «Если первый ход соперника уже закрыл один из этих пунктов, такой вариант не играется»."""
    pos = make(G, {24: 2, 13: 5, 8: 3, 6: 5}, {7: 2, 12: 5, 17: 3, 19: 5})
    # 13/7 is closed and 18/12 too, so the back checkers stop on 18.
    assert outcomes(pos, (6, 6)) == expect(pos, "24/18(2) 8/2(2)", "24/18 8/2(3)")


def test_entering_with_5_2() -> None:
    """002: «Пятёрка вводит шашку на 20-й пункт дома соперника, двойка — на 23-й. Если оба пункта открыты, выбираешь один для входа, а второй кубик играешь другой шашкой или той же.»"""
    pos = make(G, {24: 1, 13: 5, 8: 3, 6: 5}, START_THEIRS, bar=(1, 0))
    assert targets(pos.destinations((5, 2), 25)) == {20, 23}
    assert {steps_text(s[:1]) for s in pos.legal_sequences((5, 2))} == {"bar/20", "bar/23"}
    assert expect(pos, "bar/20 13/11", "bar/20 8/6", "bar/23 13/8", "bar/23 8/3", "bar/20/18") <= outcomes(pos, (5, 2))


def test_entering_with_5_2_when_20_is_closed() -> None:
    """002: «На закрытый пункт шашка не входит»."""
    pos = make(G, {24: 1, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 3, 20: 2}, bar=(1, 0))
    assert targets(pos.destinations((5, 2), 25)) == {23}
    assert all(s[0] == Step(25, 23, 2) for s in pos.legal_sequences((5, 2)))


def test_hit_with_4_on_4_the_2_must_be_played_by_another_checker() -> None:
    """002: «выпало 4-2, ты с восьмого пункта четвёркой пришёл на четвёртый и побил стоявшую там шашку. Двойкой эту шашку дальше на второй пункт уже не повести — двойку нужно сыграть другой шашкой.»"""
    pos = make(G, {13: 1, 8: 1}, {4: 1})
    assert outcomes(pos, (4, 2)) == expect(pos, "8/4* 13/11", "8/6/2", "8/6 13/9", "13/9/7")
    hit = Step(8, 4, 4, hit=True)
    assert pos.next_steps((4, 2), [hit]) == [Step(13, 11, 2)]
    assert pos.destinations((4, 2), 4, [hit]) == []


def test_the_same_4_2_in_backgammon_lets_the_hitter_go_on() -> None:
    """002: «Грузинские нарды отличаются ... местными правилами — например, тем, что шашка, побившая в своём доме, остаётся на месте.»"""
    georgian = make(G, {13: 1, 8: 1}, {4: 1})
    backgammon = make("backgammon", {13: 1, 8: 1}, {4: 1})
    assert outcomes(backgammon, (4, 2)) == outcomes(georgian, (4, 2)) | expect(backgammon, "8/4*/2")


def test_a_second_checker_may_come_to_the_point_of_the_hit() -> None:
    """002: «Можно привести на тот же пункт вторую шашку»."""
    pos = make(G, {8: 1, 6: 1}, {4: 1})
    assert outcomes(pos, (4, 2)) == expect(pos, "8/4* 6/4", "8/6/2")


def test_with_two_there_one_may_leave() -> None:
    """002: «или, если там стоят две твои, увести одну: главное, чтобы пункт не опустел.»"""
    pos = make(G, {8: 1, 6: 1}, {4: 1})
    plays = outcomes(pos, (2, 2))
    assert expect(pos, "8/6/4* 6/4 4/2") <= plays
    # After 8/6 6/4* the hitter may not go on yet: first the second checker comes to 4.
    assert pos.next_steps((2, 2), [Step(8, 6, 2), Step(6, 4, 2, hit=True)]) == [Step(6, 4, 2)]
    # Leaving the point empty is not allowed, whatever the order (the other checker stays on 6).
    assert not expect(pos, "8/6/4*/2/off") & plays
    backgammon = make("backgammon", {8: 1, 6: 1}, {4: 1})
    assert expect(backgammon, "8/6/4*/2/off") <= outcomes(backgammon, (2, 2))


def test_3_1_the_hitter_stays_and_4_3_covers() -> None:
    """002: «3-1: с шестого пункта тройкой на третий — побил шашку соперника. Единицей эту шашку на второй не повести — она остаётся на третьем. Зато если на четвёртом пункте у тебя есть шашка, единицей приведи её на третий»."""
    pos = make(G, {6: 1, 4: 1}, {3: 1})
    # Not allowed: 6/3*/2, and 4/3*/off (the hitter borne off leaves the point empty).
    assert outcomes(pos, (3, 1)) == expect(pos, "6/3* 4/3", "6/5/2", "6/5 4/1", "4/1/off")
    assert pos.next_steps((3, 1), [Step(6, 3, 3, hit=True)]) == [Step(4, 3, 1)]


def test_a_hit_at_an_intermediate_stop_in_home_counts() -> None:
    """002: «Если на неё встанет шашка соперника — в конце хода или на промежуточной остановке, неважно, — твоя шашка считается побитой»; docs/rules.md §4: «A hit at an intermediate stop counts.»"""
    pos = make(G, {13: 1, 7: 1}, {4: 1})
    # 7/4*/2 hits on 4 and leaves it empty; 7/5/2 passes by without a hit.
    assert outcomes(pos, (3, 2)) == expect(pos, "7/4* 13/11", "7/5/2", "7/5 13/10", "13/10/8")


def test_a_hit_outside_home_leaves_the_hitter_free() -> None:
    """002: «если твоя шашка бьёт шашку соперника в своём доме, она остаётся на этом пункте до конца хода.» (only in one's home)"""
    pos = make(G, {13: 1, 8: 1}, {9: 1})
    assert outcomes(pos, (4, 2)) == expect(pos, "13/9*/7", "13/9* 8/6", "13/11 8/4", "8/4/2", "13/11/7")


def test_a_hit_when_entering_from_the_bar_is_exempt() -> None:
    """002: «На удар при вводе с бара правило не распространяется: он происходит в доме соперника, а не в твоём.»"""
    pos = make(G, {13: 1}, {20: 1}, bar=(1, 0))
    assert outcomes(pos, (5, 3)) == expect(pos, "bar/20*/17", "bar/20* 13/10", "bar/22/17", "bar/22 13/8")


def test_the_rule_never_costs_a_die() -> None:
    """002: «Исключение одно: если кубик иначе никак не сыграть, шашка может уйти, потому что это правило никогда не лишает тебя хода.»"""
    pos = make(G, {8: 1}, {6: 2, 4: 1})
    # 8/6 is closed: both dice are played only by 8/4*/2, so the hitter leaves.
    assert outcomes(pos, (4, 2)) == expect(pos, "8/4*/2")


def test_the_rule_never_costs_a_die_with_other_checkers_blocked() -> None:
    """002: «если кубик иначе никак не сыграть, шашка может уйти»."""
    pos = make(G, {13: 1, 8: 1}, {11: 2, 9: 2, 6: 2, 4: 1})
    assert outcomes(pos, (4, 2)) == expect(pos, "8/4*/2")


# The 4-2 example of 002 where the 2 has nowhere else to go: our 14 on 24 face
# closed points on 22 and 20, so after 8/4* only the hitter can play the 2.
STUCK_BEHIND = [0, 0, 0, -1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, -8, 0, -2, 0, -2, 0, -2, 0, 14]
"""Canonical ``points`` (docs/formats.md): our 8 and 24 (14), the opponent's blot on 4 and points on 16, 18, 20, 22."""


def test_the_hitter_goes_on_when_the_die_cannot_be_played_otherwise() -> None:
    """002: «Исключение одно: если кубик иначе никак не сыграть, шашка может уйти, потому что это правило никогда не лишает тебя хода.»

    Judged per die, when the die is played (docs/rules.md, decisions of
    2026-12-02): after 8/4* with the 4, no other checker can play the 2
    (24/22 is closed), so the hitter moves on to 2. 8/6/2, which hits
    nothing, stays legal too.
    """
    pos = Position(G, STUCK_BEHIND)
    assert outcomes(pos, (4, 2)) == expect(pos, "8/4*/2", "8/6/2")
    assert pos.next_steps((4, 2), [Step(8, 4, 4, hit=True)]) == [Step(4, 2, 2)]
    assert pos.play((4, 2), [Step(8, 4, 4, hit=True), Step(4, 2, 2)]) == pos.after(
        [Step(8, 4, 4, hit=True), Step(4, 2, 2)]
    )


def test_the_hitter_stays_when_another_checker_can_play_the_die() -> None:
    """002: «Двойкой эту шашку дальше на второй пункт уже не повести — двойку нужно сыграть другой шашкой.»

    The same position with 22 open: 24/22 plays the 2, so after 8/4* the
    hitter must stay.
    """
    points = list(STUCK_BEHIND)
    points[21], points[15] = 0, -10
    pos = Position(G, points)
    assert outcomes(pos, (4, 2)) == expect(pos, "8/4* 24/22", "8/6/2")
    assert pos.next_steps((4, 2), [Step(8, 4, 4, hit=True)]) == [Step(24, 22, 2)]


def test_a_hit_with_the_smaller_die_the_larger_may_go_on() -> None:
    """002: «если кубик иначе никак не сыграть, шашка может уйти» — whichever die made the hit.

    The blot stands on 6 instead: 8/6* hits with the 2, and the 4 has no other
    checker to play it (24/20 is closed), so the hitter goes on to 2.
    """
    points = list(STUCK_BEHIND)
    points[3], points[5] = 0, -1
    pos = Position(G, points)
    assert outcomes(pos, (4, 2)) == expect(pos, "8/6*/2", "8/4/2")
    assert pos.next_steps((4, 2), [Step(8, 6, 2, hit=True)]) == [Step(6, 2, 4)]


def test_the_exception_is_judged_when_each_die_is_played() -> None:
    """002: «если кубик иначе никак не сыграть, шашка может уйти» — per die, at the moment it is played.

    2-2 after 8/6*: the second 2 can be played by 13/11, so the hitter stays;
    the third cannot be played by anything else (11/9 is closed), so then the
    hitter goes on. Every legal play ends the same way, but only the orders
    that keep the hitter on 6 while 13/11 is possible are legal sequences.
    """
    pos = make(G, {13: 1, 8: 1}, {9: 2, 6: 1})
    assert outcomes(pos, (2, 2)) == expect(pos, "8/6*/4/2 13/11")
    assert pos.next_steps((2, 2), [Step(8, 6, 2, hit=True)]) == [Step(13, 11, 2)]
    assert pos.next_steps((2, 2), [Step(8, 6, 2, hit=True), Step(13, 11, 2)]) == [Step(6, 4, 2)]
    assert {steps_text(s) for s in pos.legal_sequences((2, 2))} == {"8/6* 13/11 6/4 4/2", "13/11 8/6* 6/4 4/2"}


def test_the_hit_point_must_stay_held_for_the_rest_of_the_turn() -> None:
    """002: «она остаётся на этом пункте до конца хода.»"""
    pos = make(G, {13: 1, 8: 1}, {6: 1})
    plays = outcomes(pos, (2, 2))
    assert expect(pos, "8/6* 13/7") <= plays
    # Hitting first and leaving with the last of the four twos is still leaving.
    assert not expect(pos, "8/6*/4 13/9") & plays
    assert not expect(pos, "8/6*/4/2 13/11") & plays


# ----- movement shared with backgammon


def test_a_closed_point_can_be_jumped_but_not_landed_on() -> None:
    """002: «Пункт, где стоят две или больше шашек соперника, закрыт: встать на него нельзя, но перепрыгнуть через него можно.»"""
    pos = make(G, {13: 1}, {12: 2, 11: 2, 10: 2, 9: 2, 8: 2})
    assert outcomes(pos, (6, 5)) == expect(pos, "13/7/2")


def test_the_intermediate_stop_must_be_open() -> None:
    """002: «Когда одна шашка играет оба кубика, промежуточная остановка тоже должна быть открыта»."""
    pos = make(G, {13: 1}, {8: 2})
    # 13/8 is closed, so 13/5 only via 10.
    assert outcomes(pos, (5, 3)) == expect(pos, "13/10/5")
    assert pos.next_steps((5, 3)) == [Step(13, 10, 3)]


def test_both_dice_when_possible_else_the_larger() -> None:
    """002: «если можно сыграть оба кубика, играть нужно оба ... если каждый можно сыграть по отдельности, но не оба вместе — играется большее число.»"""
    pos = make(G, {13: 1}, {2: 2})
    assert outcomes(pos, (6, 5)) == expect(pos, "13/7")
    pos = make(G, {13: 1}, {7: 2, 2: 2})
    assert outcomes(pos, (6, 5)) == expect(pos, "13/8")


def test_the_larger_die_bears_off_the_last_checker() -> None:
    """002: «если каждый можно сыграть по отдельности, но не оба вместе — играется большее число.»"""
    pos = make(G, {1: 1}, {20: 2}, off=(14, 13))
    [play] = pos.legal_plays((5, 2))
    assert play.steps == (Step(1, 0, 5),)
    assert pos.play((5, 2), play.steps) == play.position


def test_a_double_plays_as_many_moves_as_possible() -> None:
    """002: «При дубле делаешь столько ходов из четырёх, сколько возможно.»"""
    pos = make(G, {13: 1}, {5: 2})
    assert outcomes(pos, (4, 4)) == expect(pos, "13/9")
    pos = make(G, {24: 1})
    assert outcomes(pos, (4, 4)) == expect(pos, "24/20/16/12/8")


def test_bar_first_and_both_entries_closed_is_a_pass() -> None:
    """002: «Пока на баре есть хоть одна твоя шашка, другими ходить нельзя ... Если закрыты пункты обоих кубиков, ход переходит»."""
    pos = make(G, {13: 5, 6: 9}, {19: 2, 24: 2}, bar=(1, 0))
    assert pos.legal_plays((6, 1)) == []
    # The 6 (point 19) is closed: enter with the 5; the 6 cannot bear off while 20 is outside.
    assert outcomes(pos, (6, 5)) == expect(pos, "bar/20/14", "bar/20 13/7")


def test_a_closed_home_stops_every_roll() -> None:
    """002: «если соперник закрыл все шесть пунктов своего дома, никакой бросок не поможет, пока он не откроет хотя бы один.»"""
    pos = make(G, {13: 5, 8: 9}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2}, bar=(1, 0))
    for dice in DICE_ROLLS:
        assert pos.legal_plays(dice) == [], dice


# ----- bearing off


def test_bear_off_only_with_everything_home() -> None:
    """002: «Выброс (снятие шашек) начинается, когда все твои оставшиеся на доске шашки стоят в доме и на баре нет ни одной.»"""
    pos = make(G, {7: 1, 6: 14})
    assert outcomes(pos, (6, 5)) == expect(pos, "7/1 6/1", "7/2 6/off")


def test_die_bears_off_from_its_point_or_moves_inside() -> None:
    """002: «Число на кубике выводит шашку с пункта с тем же номером ... Кубиком можно и передвигаться внутри дома, если так удобнее.»"""
    pos = make(G, {5: 1, 2: 1})
    assert outcomes(pos, (5, 2)) == expect(pos, "5/off 2/off", "5/3/off")


def test_higher_checkers_must_move_inside_then_the_farthest_goes_off() -> None:
    """002: «Если на пункте кубика шашки нет, но есть шашки дальше (на пунктах с большим номером), нужно сыграть дальнюю шашку внутри дома.»"""
    pos = make(G, {6: 2, 3: 1})
    # Two fives move 6/1 6/1; then the 3 and the 1 are the farthest and go off.
    assert outcomes(pos, (5, 5)) == expect(pos, "6/1(2) 3/off 1/off")


def test_six_bears_off_from_four_when_five_and_six_are_empty() -> None:
    """002: «Если на пункте кубика шашки нет и дальше тоже ничего не стоит, выходит самая дальняя шашка: шаши выведет шашку с четвёртого пункта, если на пятом и шестом уже ничего нет.»"""
    pos = make(G, {4: 2, 2: 1})
    assert outcomes(pos, (6, 1)) == expect(pos, "4/off 4/3", "4/off 2/1")


def test_a_hit_stops_the_bear_off() -> None:
    """002: «Если во время выброса твою шашку побили, выброс останавливается: сначала её нужно ввести и довести до дома.»"""
    pos = make(G, {6: 10}, bar=(1, 0))
    assert pos.off[0] == 4
    assert outcomes(pos, (6, 5)) == expect(pos, "bar/20/14", "bar/19 6/1")


# ----- oin, mars, koks


def _won(theirs: dict[int, int], *, bar: int = 0, off: int = 0) -> Position:
    return make(G, {}, theirs, bar=(0, bar), off=(15, off))


def test_oin_when_the_loser_bore_off_at_least_one() -> None:
    """002: «ойн (ოინი) — одно очко (проигравший вывел хотя бы одну шашку)»."""
    assert _won({20: 14}, off=1).win_kind() == WinKind.OIN
    assert _won({20: 13, 3: 1}, off=1).win_kind() == WinKind.OIN
    assert _won({20: 13}, bar=1, off=1).win_kind() == WinKind.OIN


def test_mars_when_the_loser_bore_off_none() -> None:
    """002: «марс (მარსი) — два (не вывел ни одной)»."""
    assert _won({19: 10, 7: 5}).win_kind() == WinKind.MARS
    assert _won({24: 15}).win_kind() == WinKind.MARS


@pytest.mark.parametrize(
    ("theirs", "bar"),
    [({19: 14, 6: 1}, 0), ({19: 14, 1: 1}, 0), ({19: 14}, 1)],
    ids=["on-our-6", "on-our-1", "on-the-bar"],
)
def test_koks_when_a_checker_is_on_the_bar_or_in_the_winners_home(theirs: dict[int, int], bar: int) -> None:
    """002: «кокс (კოქსი) — тройная победа, три очка (не вывел ни одной, и его шашка ещё на баре или в доме победителя)»."""
    won = _won(theirs, bar=bar)
    assert won.win_kind() == WinKind.KOKS
    assert won.turned().win_kind() == WinKind.KOKS


def test_points_for_oin_mars_koks() -> None:
    """002: «ойн ... одно очко ... марс ... два ... кокс ... три очка»."""
    rules = find_variant(G)
    options = rules.default_options()
    assert options == GameOptions()
    assert [rules.win_points(k, options) for k in (WinKind.OIN, WinKind.MARS, WinKind.KOKS)] == [1, 2, 3]


def test_the_game_ends_when_the_last_checker_is_borne_off() -> None:
    """002: «Партию выигрывает тот, кто первым выведет все пятнадцать шашек.»

    3/2*/off is legal too: after the hit on 2 with the 1, nothing else can
    play the 3 (1/off waits for the checker on 2), so the hitter goes
    (002: «если кубик иначе никак не сыграть, шашка может уйти»).
    """
    pos = make(G, {3: 1, 1: 1}, {19: 14, 2: 1}, off=(13, 0))
    assert outcomes(pos, (3, 1)) == expect(pos, "3/off 1/off", "3/2*/off")
    [won] = [play.position for play in pos.legal_plays((3, 1)) if play.position.off[0] == 15]
    assert won.win_kind() == WinKind.KOKS
