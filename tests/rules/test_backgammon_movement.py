"""Classic backgammon movement, bearing off and single-game scoring (seed 000, docs/rules.md §1, §3).

Every test builds a small position from the mover's side (points 24 → 1),
hand-computes the plays the seed allows and compares them with the engine's
legal plays as sets of resulting positions.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nardy.rules import DICE_ROLLS, GameOptions, IllegalPlayError, Position, Step, WinKind, find_variant
from tests.rules.positions import apply, expect, key_of, make, outcomes, steps_text, targets

# Movement is the same in classic backgammon and backgammon with dave (docs/rules.md §5).
VARIANTS = ("backgammon", "dave")


@pytest.fixture(params=VARIANTS)
def variant(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# ----- dice usage


def test_dice_are_two_moves_three_ways(variant: str) -> None:
    """000: «бросок 2 и 4 — это не ход на 6 полей, а ход на 2 и ход на 4. Этот бросок можно сыграть тремя способами»."""
    pos = make(variant, {13: 1, 8: 1})
    assert outcomes(pos, (4, 2)) == expect(
        pos,
        "13/11 8/4",  # one checker 2, another 4
        "13/9 8/6",
        "13/9/7",  # the same checker 4 then 2 (or 2 then 4: same position)
        "8/6/2",
    )


def test_both_orders_of_one_checker_are_offered(variant: str) -> None:
    """000: «Двинуть ту же шашку на 2, затем ещё на 4. Двинуть ту же шашку на 4, затем ещё на 2.»"""
    pos = make(variant, {13: 1})
    sequences = {steps_text(s) for s in pos.legal_sequences((4, 2))}
    assert sequences == {"13/11 11/7", "13/9 9/7"}
    assert outcomes(pos, (4, 2)) == expect(pos, "13/7")


def test_double_is_four_moves(variant: str) -> None:
    """000: «Когда выпадают дубли ... каждый кубик считается за два хода. Получается 4 хода.»"""
    pos = make(variant, {24: 1, 13: 1})
    plays = pos.legal_plays((6, 6))
    assert {len(p.steps) for p in plays} == {4}
    # 24 can go at most three sixes (6 -> off needs all home), 13 at most two.
    assert outcomes(pos, (6, 6)) == expect(pos, "24/18/12/6 13/7", "24/18/12 13/7/1")


def test_one_checker_may_take_all_four_moves_of_a_double(variant: str) -> None:
    """000: «Двинуть одну шашку на 6 четыре раза.»"""
    pos = make(variant, {24: 1, 6: 14})
    # 14 checkers on 6 can bear off only once the 24 is home, so 24/18/12/6 then 6/off.
    assert outcomes(pos, (6, 6)) == expect(pos, "24/18/12/6 6/off")
    lone = make(variant, {24: 1})
    assert outcomes(lone, (6, 6)) == expect(lone, "24/18/12/6/off")


def test_checkers_stack_without_limit(variant: str) -> None:
    """000: «Количество шашек одного цвета на поле не ограничено.»"""
    pos = make(variant, {9: 1, 6: 14})
    assert outcomes(pos, (2, 1)) == expect(pos, "9/6", "9/7 6/5", "9/8 6/4", "6/4 6/5", "6/4/3")
    assert apply(pos, "9/6").startswith("me 6:15 |")


def test_crossing_the_bar_costs_nothing(variant: str) -> None:
    """000: «Бар сам по себе не является полем; его пересечение не стоит очков движения.»"""
    pos = make(variant, {7: 1, 19: 1})
    assert outcomes(pos, (1, 1)) >= expect(pos, "7/6 19/18/17/16")
    assert {(s.source, s.target) for s in pos.next_steps((1, 1))} == {(7, 6), (19, 18)}


def test_checkers_only_move_forward(variant: str) -> None:
    """000: «Шашка, независимо от позиции, движется по этой дорожке всегда вперёд.»"""
    pos = Position.start(variant)
    for dice in DICE_ROLLS:
        for sequence in pos.legal_sequences(dice):
            for step in sequence:
                assert step.target == step.source - step.die


# ----- open and closed points


def test_blocked_stops_cannot_be_used_even_in_passing(variant: str) -> None:
    """000: «Нельзя даже остановиться «по пути» на таком поле при объединении значений двух кубиков.»

    The seed's 5-4 example: the back checker can move neither 4, nor 5, nor 9
    (though the 9th point is free).
    """
    pos = make(variant, {24: 1, 10: 1}, {20: 2, 19: 2})
    assert outcomes(pos, (5, 4)) == expect(pos, "10/5/1")
    assert all(24 not in {s.source for s in seq} for seq in pos.legal_sequences((5, 4)))


def test_nothing_to_play_when_only_blocked_stops(variant: str) -> None:
    """000: «Ход не может закончиться на поле, занятом двумя и более шашками соперника.»"""
    pos = make(variant, {24: 1}, {20: 2, 19: 2})
    assert pos.legal_plays((5, 4)) == []
    assert pos.play((5, 4), ()) == pos


def test_closed_points_can_be_jumped(variant: str) -> None:
    """000: «Однако можно прямо пройти над таким полем.»"""
    pos = make(variant, {13: 1}, {12: 2, 11: 2, 10: 2, 9: 2, 8: 2})
    # 13/8 is closed, 13/7 jumps five closed points; the 5 is then played 7/2.
    assert outcomes(pos, (6, 5)) == expect(pos, "13/7/2")


def test_landing_on_own_checkers_or_an_empty_point(variant: str) -> None:
    """000: «Шашка может встать на любое пустое поле. Также на поле, занятое одной или несколькими своими шашками.»"""
    pos = make(variant, {13: 1, 9: 3})
    # 13/9/8, 13/12/8 and 13/9 9/8 all leave the same position.
    assert outcomes(pos, (4, 1)) == expect(pos, "13/9/8", "13/12 9/5", "9/5 9/8", "9/5/4")


# ----- hitting


def test_landing_on_a_blot_hits_it(variant: str) -> None:
    """000: «Если ход заканчивается на блоте соперника, эта шашка бьётся и отправляется на бар.»"""
    pos = make(variant, {13: 1}, {10: 1})
    assert outcomes(pos, (2, 1)) == expect(pos, "13/10*")
    [play] = pos.legal_plays((2, 1))
    assert play.position.bar == (0, 1)
    assert play.position.points[10 - 1] == 1
    assert play.steps[-1].hit


def test_a_blot_is_hit_at_an_intermediate_stop_too(variant: str) -> None:
    """docs/rules.md §3: «landing on a single opposing checker (a blot) hits it to the bar, also at an intermediate stop»."""
    pos = make(variant, {13: 1}, {10: 1})
    # 13/10*/9 hits on the way, 13/12/9 passes the blot by: two different positions.
    assert outcomes(pos, (3, 1)) == expect(pos, "13/10*/9", "13/12/9")


def test_hitting_is_never_compulsory(variant: str) -> None:
    """000: «Бить никогда не обязательно.»"""
    pos = make(variant, {13: 1, 8: 1}, {10: 1})
    assert outcomes(pos, (3, 2)) == expect(
        pos,
        "13/10* 8/6",
        "13/10*/8",
        "13/11/8",  # the same checker via 11: no hit
        "13/11 8/5",
        "8/5/3",
    )


def test_two_checkers_make_a_point(variant: str) -> None:
    """000: «Две и более шашки на одном пункте контролируют его.»"""
    pos = make(variant, {13: 1}, {10: 2, 9: 1})
    # 13/10 is closed, so the 4 pips are played 13/12/9*, hitting the blot.
    assert outcomes(pos, (3, 1)) == expect(pos, "13/12/9*")


# ----- the bar


def test_bar_checker_enters_before_anything_else(variant: str) -> None:
    """000: «Игрок с шашками на баре должен сначала вернуть их в игру, прежде чем делать любые другие ходы.»"""
    pos = make(variant, {13: 1}, {19: 2}, bar=(1, 0))
    # The 6 (point 19) is closed: enter with the 5 on 20, then play the 6.
    assert outcomes(pos, (6, 5)) == expect(pos, "bar/20/14", "bar/20 13/7")
    assert all(seq[0].source == 25 for seq in pos.legal_sequences((6, 5)))


def test_entry_point_is_25_minus_the_die(variant: str) -> None:
    """000: «Если у чёрных среди двух кубиков есть единица, они могут вернуться на первый пункт внутреннего поля белых»."""
    pos = make(variant, {6: 14}, bar=(1, 0))
    for die in range(1, 7):
        other = 6 if die != 6 else 5
        assert (25, 25 - die) in {(s.source, s.target) for s in pos.next_steps((die, other))}
    assert targets(pos.destinations((1, 2), 25)) == {24, 23}


def test_entry_on_a_blot_hits_it(variant: str) -> None:
    """000: «...при условии, что он пуст, занят чёрными или одной шашкой соперника.»"""
    pos = make(variant, {6: 14}, {24: 1, 23: 2}, bar=(1, 0))
    # The 2 (point 23) is closed: enter with the 1, hitting, then play the 2.
    assert outcomes(pos, (1, 2)) == expect(pos, "bar/24*/22", "bar/24* 6/4")


def test_two_on_the_bar_both_enter_first(variant: str) -> None:
    """000: «Игрок с шашками на баре должен сначала вернуть их в игру»: all of them."""
    pos = make(variant, {13: 1}, bar=(2, 0))
    assert outcomes(pos, (5, 2)) == expect(pos, "bar/20 bar/23")


def test_three_on_the_bar_enter_before_the_fourth_move(variant: str) -> None:
    """000: «Игрок с шашками на баре должен сначала вернуть их в игру»: a double enters them one by one."""
    pos = make(variant, {13: 1}, bar=(3, 0))
    assert outcomes(pos, (4, 4)) == expect(pos, "bar/21(3) 21/17", "bar/21(3) 13/9")


def test_second_bar_checker_blocked_loses_the_other_die(variant: str) -> None:
    """000: «Поскольку он не может двигать другие шашки, пока не вернёт сбитую, соперник сразу берёт инициативу.»"""
    pos = make(variant, {13: 1}, {19: 2}, bar=(2, 0))
    # One checker enters with the 5; the other stays on the bar, so the 6 is lost.
    assert outcomes(pos, (6, 5)) == expect(pos, "bar/20")


def test_dice_are_not_combined_to_enter(variant: str) -> None:
    """000: «комбинировать значения для возврата нельзя.»"""
    pos = make(variant, {13: 1}, {23: 2, 22: 2}, bar=(1, 0))
    # 2 and 3 are closed; 5 (point 20) is open but cannot be reached by adding them.
    assert pos.legal_plays((3, 2)) == []


def test_both_entry_points_closed_is_a_pass(variant: str) -> None:
    """000: «С шашкой на баре, если оба кубика указывают на закрытые пункты, возврат невозможен на этом ходу.»"""
    pos = make(variant, {13: 5, 6: 9}, {24: 2, 19: 2}, bar=(1, 0))
    assert pos.legal_plays((6, 1)) == []
    assert pos.legal_plays((1, 1)) == []
    assert pos.legal_plays((6, 6)) == []
    with pytest.raises(IllegalPlayError):
        pos.play((6, 1), [Step(13, 7, 6), Step(13, 12, 1)])


def test_closed_board_stops_every_roll(variant: str) -> None:
    """000: «Когда внутреннее поле имеет закрытый пункт на каждом из 6 пунктов ... Соперник с шашкой на баре не может ходить»."""
    pos = make(variant, {13: 5, 8: 9}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 3}, bar=(1, 0))
    for dice in DICE_ROLLS:
        assert pos.legal_plays(dice) == [], dice


# ----- the maximum-dice rule


def test_passing_is_not_allowed_when_a_move_exists(variant: str) -> None:
    """000: «Запрещено пропускать ход, пока возможен ход.»"""
    pos = make(variant, {13: 1})
    with pytest.raises(IllegalPlayError):
        pos.play((6, 5), ())


def test_both_dice_must_be_played_when_possible(variant: str) -> None:
    """000: «если есть хотя бы один способ сыграть оба кубика, нельзя играть один так, чтобы для другого не осталось хода.»"""
    pos = make(variant, {13: 1, 9: 1}, {7: 2, 2: 2})
    # 9/4 leaves no 6 (13/7 and 4/-2 impossible), 13/8 leaves 8/2 closed; only 13/8 9/3 plays both.
    assert outcomes(pos, (6, 5)) == expect(pos, "13/8 9/3")
    with pytest.raises(IllegalPlayError):
        pos.play((6, 5), [Step(9, 4, 5)])


def test_both_dice_even_when_only_the_smaller_first_works(variant: str) -> None:
    """000: «если есть хотя бы один способ сыграть оба кубика, нельзя играть один так, чтобы для другого не осталось хода.»"""
    pos = make(variant, {8: 1}, {2: 2})
    # 8/2 is closed, but 8/7 then 7/1 plays both dice.
    assert outcomes(pos, (6, 1)) == expect(pos, "8/7/1")
    assert pos.next_steps((6, 1)) == [Step(8, 7, 1)]


def test_larger_die_when_only_one_can_be_played(variant: str) -> None:
    """000: «Если оба хода невозможны, нужно по возможности сыграть бóльший кубик.»"""
    pos = make(variant, {13: 1}, {2: 2})
    # 13/7 or 13/8 alone; both continue to the closed 2 point.
    assert outcomes(pos, (6, 5)) == expect(pos, "13/7")
    assert outcomes(pos, (5, 6)) == expect(pos, "13/7")


def test_larger_die_is_the_one_used_to_bear_off_the_last_checker(variant: str) -> None:
    """000: «Если оба хода невозможны, нужно по возможности сыграть бóльший кубик.»"""
    pos = make(variant, {1: 1}, {20: 2}, off=(14, 13))
    assert pos.legal_sequences((5, 2)) == [(Step(1, 0, 5),)]
    [play] = pos.legal_plays((5, 2))
    assert play.steps == (Step(1, 0, 5),)
    assert pos.play((5, 2), play.steps) == play.position


def test_smaller_die_when_the_larger_cannot_be_played(variant: str) -> None:
    """000: «Несыгранные кубики теряются.»"""
    pos = make(variant, {13: 1}, {7: 2, 2: 2})
    assert outcomes(pos, (6, 5)) == expect(pos, "13/8")


def test_double_plays_as_many_moves_as_possible(variant: str) -> None:
    """000: «Оба кубика должны быть сыграны, если есть законные ходы.» (a double: as many of the four as possible)"""
    pos = make(variant, {13: 1}, {5: 2})
    assert outcomes(pos, (4, 4)) == expect(pos, "13/9")
    assert [len(p.steps) for p in pos.legal_plays((4, 4))] == [1]


# ----- bearing off


def test_bearing_off_6_4_with_every_point_made(variant: str) -> None:
    """000: «они ОБЯЗАНЫ использовать 6 для вывода с пункта 6. Четвёрку МОЖНО использовать для вывода с пункта 4, но также можно сделать ход на 4 пункта вперёд (с 5 на 1 или с 6 на 2).»"""
    pos = make(variant, {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2})
    assert outcomes(pos, (6, 4)) == expect(pos, "6/off 4/off", "6/off 5/1", "6/off 6/2")


def test_higher_die_bears_off_from_the_highest_point(variant: str) -> None:
    """000: «Если кубик показывает значение строго больше самого высокого занятого пункта, нужно вывести шашку с самого высокого занятого пункта.»"""
    pos = make(variant, {4: 1, 2: 1}, off=(13, 15))
    assert outcomes(pos, (6, 5)) == expect(pos, "4/off 2/off")
    # With 6-1 the 6 bears off the 4 (or the 3 after 4/3); never the 2 while the 4 is there.
    assert outcomes(pos, (6, 1)) == expect(pos, "4/off 2/1", "4/3/off")


def test_higher_die_must_move_inside_when_a_higher_point_is_occupied(variant: str) -> None:
    """000: «Когда возможно, кубик должен быть сыгран на полное значение.» (docs/rules.md §1: the die must be played inside the board)"""
    pos = make(variant, {6: 1, 4: 1}, off=(13, 15))
    # The 5 cannot bear off the 4 while the 6 is occupied: it must play 6/1.
    assert outcomes(pos, (5, 1)) == expect(pos, "6/1 4/3", "6/1/off")


def test_bearing_off_waits_for_a_checker_outside_home(variant: str) -> None:
    """000: «собрать все свои шашки в своём доме (внутреннем поле), а затем вывести их с доски.»"""
    pos = make(variant, {7: 1, 6: 14})
    # 6/off needs the 7 home first: 7/2 then 6/off; 7/1 then the 5 moves 6/1.
    assert outcomes(pos, (6, 5)) == expect(pos, "7/1 6/1", "7/2 6/off")


def test_bearing_off_in_the_turn_the_last_checker_comes_home(variant: str) -> None:
    """000: «Промежуточная цель партии: собрать все шашки в своём внутреннем поле. ... После этого можно начинать выводить шашки»."""
    pos = make(variant, {13: 1, 6: 14})
    assert outcomes(pos, (6, 6)) == expect(pos, "13/7/1 6/off(2)")


def test_a_hit_checker_stops_the_bear_off(variant: str) -> None:
    """000: «Если одну из ваших шашек сбили после начала вывода, вы не можете выводить шашки, пока сбитая не вернётся и не дойдёт обратно до вашего внутреннего поля.»"""
    pos = make(variant, {6: 10}, bar=(1, 0))  # four already borne off
    assert pos.off == (4, 15)
    assert outcomes(pos, (6, 5)) == expect(pos, "bar/20/14", "bar/19 6/1")


def test_borne_off_checkers_stay_off(variant: str) -> None:
    """000: «Выведенная шашка остаётся вне игры до конца партии.»"""
    pos = make(variant, {6: 2, 1: 1}, off=(12, 15))
    for play in pos.legal_plays((6, 1)):
        assert play.position.off[0] >= pos.off[0]
        assert sum(c for c in play.position.points if c > 0) + play.position.off[0] == 15


# ----- game end and scoring


def test_bearing_off_the_last_checker_wins(variant: str) -> None:
    """000: «Первый игрок, выведший все 15 шашек, выигрывает партию.»"""
    pos = make(variant, {2: 1}, {24: 2, 19: 5}, off=(14, 8))
    [play] = pos.legal_plays((3, 1))
    after = play.position
    assert after.off == (15, 8)
    assert after.is_game_over() and after.winner_is_mover()
    assert after.win_kind() == (WinKind.SINGLE if variant == "backgammon" else WinKind.OIN)
    assert after.turned().is_game_over() and not after.turned().winner_is_mover()
    assert after.turned().win_kind() == after.win_kind()


def _won(variant: str, theirs: dict[int, int], *, bar: int = 0, off: int = 0) -> Position:
    return make(variant, {}, theirs, bar=(0, bar), off=(15, off))


def test_single_game_when_the_loser_bore_off() -> None:
    """000: «Это очко получает первый, кто выведет все шашки.»"""
    assert _won("backgammon", {20: 14}, off=1).win_kind() == WinKind.SINGLE
    # A loser that has begun bearing off never loses a gammon, even from the bar.
    assert _won("backgammon", {20: 13}, bar=1, off=1).win_kind() == WinKind.SINGLE


def test_gammon_when_the_loser_bore_off_none() -> None:
    """000: «Гаммон: происходит, когда игрок вывел все свои шашки, а соперник не вывел ни одной.»"""
    assert _won("backgammon", {19: 10, 7: 5}).win_kind() == WinKind.GAMMON


@pytest.mark.parametrize(
    ("theirs", "bar"),
    [({19: 14, 6: 1}, 0), ({19: 14, 1: 1}, 0), ({19: 14}, 1)],
    ids=["on-our-6", "on-our-1", "on-the-bar"],
)
def test_backgammon_when_a_checker_is_in_the_winners_home_or_on_the_bar(theirs: dict[int, int], bar: int) -> None:
    """000: «Бэкгаммон: ... игрок, не начавший вывод, ещё имеет хотя бы одну шашку во внутреннем поле соперника или на баре.»"""
    assert _won("backgammon", theirs, bar=bar).win_kind() == WinKind.BACKGAMMON


def test_win_kind_is_seen_from_either_side() -> None:
    """000: «Победитель гаммона получает удвоенное значение куба.» (the same game, asked by the loser to move)"""
    won = _won("backgammon", {19: 14, 6: 1})
    assert won.turned().win_kind() == WinKind.BACKGAMMON
    assert _won("backgammon", {19: 15}).turned().win_kind() == WinKind.GAMMON


def test_points_for_each_kind_of_win() -> None:
    """000: «Победитель получает утроенное значение куба.» / «в некоторых странах бэкгаммон считается удвоенным»."""
    rules = find_variant("backgammon")
    assert rules.win_points(WinKind.SINGLE, GameOptions()) == 1
    assert rules.win_points(WinKind.GAMMON, GameOptions()) == 2
    assert rules.win_points(WinKind.BACKGAMMON, GameOptions()) == 3
    assert rules.win_points(WinKind.BACKGAMMON, GameOptions(backgammon_value=2)) == 2


# ----- invariants over random games


_ROLLS = st.lists(st.tuples(st.integers(1, 6), st.integers(1, 6)), min_size=1, max_size=60)


def _follow(rolls: list[tuple[int, int]], choices: st.DataObject) -> None:
    pos = Position.start("backgammon")
    for dice in rolls:
        plays = pos.legal_plays(dice)
        if plays:
            counts = {len(p.steps) for p in plays}
            assert len(counts) == 1, "every legal play uses the same (maximum) number of dice"
            for play in plays:
                board = [pos.off[0], *pos.points, pos.bar[0]]
                for step in play.steps:
                    assert step.target == max(step.source - step.die, 0)
                    if board[25] > 0:
                        assert step.source == 25, "bar checkers enter first"
                    if step.target == 0:
                        assert all(c <= 0 for c in board[7:26]), "bear off only with everything home"
                    else:
                        assert board[step.target] >= -1, "never onto a closed point"
                        assert step.hit == (board[step.target] == -1)
                    board[step.source] -= 1
                    board[step.target] = 1 if step.hit else board[step.target] + 1
                assert apply(pos, steps_text(play)) == key_of(play.position)
                used = sorted(s.die for s in play.steps)
                if dice[0] == dice[1]:
                    assert set(used) == {dice[0]}
                elif len(used) == 2:
                    assert used == sorted(dice)
            chosen = choices.draw(st.sampled_from(plays))
            assert pos.play(dice, chosen.steps) == chosen.position, "a legal play's own steps replay"
            pos = chosen.position
        if pos.is_game_over():
            return
        pos = pos.turned()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_ROLLS, st.data())
def test_random_games_keep_the_movement_rules(rolls: list[tuple[int, int]], data: st.DataObject) -> None:
    """000: «Значения кубиков не складываются — это два независимых хода, хотя их можно применить к одной шашке.»"""
    _follow(rolls, data)
