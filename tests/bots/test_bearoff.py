"""Long nardy's one-sided bear-off database (nardy.bots.bearoff) and the race evaluator (nardy.bots.race)."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.bots.bearoff import HOME_POINTS, Bearoff, bearoff_position, build, build_database, default_bearoff, homes, pips
from nardy.bots import make_bot
from nardy.bots.evaluator import LOSE_DOUBLE, WIN, WIN_DOUBLE, after_play_probabilities, equity, invert
from nardy.bots.hints import top_plays
from nardy.bots.neural import default_evaluator
from nardy.bots.race import RaceEvaluator
from nardy.rules import DICE_ROLLS, Position

Home = tuple[int, ...]


# ----- an independent oracle: bear-off moves enumerated die by die, for tiny homes


def _die_moves(home: Home, die: int) -> list[Home]:
    """Every way to play one die in a bear-off (docs/rules.md §1), written here apart from the rules package."""
    occupied = [point for point in range(1, HOME_POINTS + 1) if home[point - 1]]
    if not occupied:
        return []
    highest = max(occupied)
    results = []
    for point in occupied:
        target = point - die
        if target < 0 and point != highest:
            continue
        after = list(home)
        after[point - 1] -= 1
        if target > 0:
            after[target - 1] += 1
        results.append(tuple(after))
    return results


def _oracle_plays(home: Home, roll: tuple[int, int]) -> set[Home]:
    """The homes a roll can leave: every order of the dice, then the maximum-dice and larger-die rules."""
    high, low = roll
    orders = [(high,) * 4] if high == low else [(high, low), (low, high)]
    reached: dict[Home, int] = {}
    larger_alone: set[Home] = set()
    for order in orders:
        frontier = {home: 0}
        for die in order:
            following: dict[Home, int] = {}
            for state, used in frontier.items():
                moves = _die_moves(state, die)
                if not moves:
                    following[state] = max(following.get(state, -1), used)
                for after in moves:
                    following[after] = max(following.get(after, -1), used + 1)
                    if used == 0 and die == high:
                        larger_alone.add(after)
            frontier = following
        for state, used in frontier.items():
            reached[state] = max(reached.get(state, 0), used)
    most = max(reached.values())
    best = {state for state, used in reached.items() if used == most}
    if most == 1 and high != low:
        best = {state for state in best if state in larger_alone} or best
    return best


@functools.cache
def _oracle_mean(home: Home) -> float:
    if not any(home):
        return 0.0
    total = 1.0
    for (high, low), weight in zip(DICE_ROLLS, _weights()):
        total += weight * min(_oracle_mean(after) for after in _oracle_plays(home, (high, low)))
    return total


def _weights() -> list[float]:
    return [(1.0 if high == low else 2.0) / 36.0 for high, low in DICE_ROLLS]


@functools.cache
def small() -> Bearoff:
    return build_database(max_checkers=3)


def test_homes_are_all_compositions_and_small_tables_are_a_prefix() -> None:
    assert len(homes()) == 54_264
    assert len(set(homes())) == len(homes())
    assert homes(3) == homes()[: len(homes(3))]


def test_the_rules_package_and_the_oracle_agree_on_every_small_bearoff_play() -> None:
    for home in homes(3)[1:]:
        for roll in DICE_ROLLS:
            rules = {tuple(row[:HOME_POINTS]) for row in bearoff_position_rows(home, roll)}
            assert rules == _oracle_plays(home, roll), (home, roll)


def bearoff_position_rows(home: Home, roll: tuple[int, int]) -> list[tuple[int, ...]]:
    return bearoff_position(Position.start("long-traditional").variant, home).legal_rows(roll)


def test_expected_rolls_are_exact_for_up_to_three_checkers() -> None:
    database = small()
    for home in homes(3):
        assert database.expected_rolls(home) == pytest.approx(_oracle_mean(home), abs=1e-12), home


def test_one_checker_distribution_by_hand() -> None:
    database = small()
    # one checker on point 6: off in one roll unless the roll moves fewer than 6 pips
    # (1-1, 2-1, 3-1, 4-1, 3-2: 9 of 36), and then always in the second
    assert database.rolls[database.index((0, 0, 0, 0, 0, 1))][:3] == pytest.approx([0.0, 27 / 36, 9 / 36])
    assert database.expected_rolls((1, 0, 0, 0, 0, 0)) == 1.0


def test_the_shipped_database_is_the_full_build_and_agrees_with_a_fresh_small_build() -> None:
    shipped = default_bearoff()
    assert shipped.successors.shape == (54_264, 21)
    assert shipped.first_successors.shape == (15_504, 21)
    assert np.allclose(shipped.rolls.sum(axis=1), 1.0)
    assert np.allclose(shipped.first_rolls.sum(axis=1), 1.0)
    count = len(homes(3))
    assert np.array_equal(shipped.successors[:count], small().successors)
    assert np.allclose(shipped.means[:count], small().means)


@pytest.mark.parametrize("variant", ["long-tournament", "long-bolshie"])
def test_the_regulations_share_one_table(variant: str) -> None:
    assert np.array_equal(build(variant, max_checkers=4)[0], build("long-traditional", max_checkers=4)[0])


@st.composite
def home_strategy(draw: st.DrawFn, *, most: int = 14) -> Home:
    points = draw(st.lists(st.integers(0, HOME_POINTS - 1), min_size=1, max_size=most))
    return tuple(points.count(point) for point in range(HOME_POINTS))


@settings(max_examples=200, deadline=None)
@given(home_strategy(), st.integers(0, HOME_POINTS - 1))
def test_one_more_checker_never_needs_fewer_rolls(home: Home, point: int) -> None:
    database = default_bearoff()
    more = list(home)
    more[point] += 1
    assert database.expected_rolls(more) >= database.expected_rolls(home) - 1e-12


@settings(max_examples=200, deadline=None)
@given(home_strategy(most=15))
def test_expected_rolls_lie_between_the_bounds_of_the_dice_and_the_worst_home(home: Home) -> None:
    database = default_bearoff()
    count = sum(home)
    # a roll bears off at most four checkers and moves at most 24 pips; all on point 6 is the slowest home
    assert database.expected_rolls(home) >= max(count / 4, pips(home) / 24) - 1e-12
    assert database.expected_rolls(home) <= database.expected_rolls((0,) * 5 + (count,)) + 1e-12
    assert np.all(np.diff(np.cumsum(database.rolls[database.index(home)])) >= 0)


def test_moving_checkers_back_can_help_because_gaps_waste_dice() -> None:
    # 2-1 from 1,1,1,3 must play the 2 from point 3 (point 2 is empty): three checkers stay;
    # from 1,1,2,3 it bears two off. Found by a property test that assumed the opposite.
    database = default_bearoff()
    assert database.expected_rolls((2, 1, 1, 0, 0, 0)) < database.expected_rolls((3, 0, 1, 0, 0, 0))


@settings(max_examples=100, deadline=None)
@given(home_strategy(most=15), home_strategy(most=15))
def test_being_on_roll_never_hurts(first: Home, second: Home) -> None:
    database = default_bearoff()
    # P(N1 <= N2) + P(N2 <= N1) = 1 + P(N1 == N2): each side is better off rolling first
    assert database.race(first, second)[WIN] + database.race(second, first)[WIN] >= 1 - 1e-12
    answer = database.race(first, second)
    assert 0 <= answer[WIN_DOUBLE] <= answer[WIN] and 0 <= answer[LOSE_DOUBLE] <= 1 - answer[WIN]
    assert (answer[WIN_DOUBLE] > 0) <= (sum(second) == 15)
    assert (answer[LOSE_DOUBLE] > 0) <= (sum(first) == 15)


def test_race_probabilities_by_enumeration_for_single_checkers() -> None:
    database = default_bearoff()
    # each side one checker on point 6: the roller fails with 9/36, then the other side wins with 27/36
    assert database.race((0, 0, 0, 0, 0, 1), (0, 0, 0, 0, 0, 1))[WIN] == pytest.approx(1 - 9 / 36 * 27 / 36)
    # a mars threat: our last checker on point 1 against a home that has borne off nothing
    assert database.race((1, 0, 0, 0, 0, 0), (15, 0, 0, 0, 0, 0))[[WIN, WIN_DOUBLE]] == pytest.approx([1, 1])


def test_race_evaluator_answers_races_and_passes_the_rest_on() -> None:
    inner = default_evaluator("long-traditional")
    race = RaceEvaluator(inner)
    points = [2, 0, 1, 0, 0, 0] + [0] * 6 + [-3, -1, 0, 0, 0, -2] + [0] * 6
    position = Position("long-traditional", tuple(points), (0, 0), (12, 9))
    mine, theirs = (2, 0, 1, 0, 0, 0), (3, 1, 0, 0, 0, 2)
    assert np.array_equal(race.probabilities([position])[0], race.database.race(mine, theirs))
    start = Position.start("long-traditional")
    assert np.array_equal(race.probabilities([start]), inner.probabilities([start]))
    plays = position.legal_plays((2, 1))
    after = race.probabilities_after([p.position for p in plays])
    slow = invert(race.probabilities([p.position.turned() for p in plays]))
    assert np.allclose(after, slow)
    rows = race.probabilities_after_rows(position.variant, [p.position.row() for p in plays])
    assert np.allclose(rows, after)


def test_small_homes_enumeration_matches_itertools() -> None:
    expected = {h for h in itertools.product(range(4), repeat=HOME_POINTS) if sum(h) <= 3}
    assert set(homes(3)) == expected


@settings(max_examples=60, deadline=None)
@given(home_strategy(most=15), home_strategy(most=15), st.sampled_from(DICE_ROLLS),
       st.sampled_from(["long-traditional", "long-tournament", "long-bolshie"]))
def test_a_real_race_has_the_plays_of_the_database_board(mine: Home, theirs: Home, roll: tuple[int, int],
                                                           variant: str) -> None:
    # wherever the opponent's checkers stand in its home, our bear-off plays are the ones the table was built from
    points = list(mine) + [0] * 6 + [-count for count in theirs] + [0] * 6
    real = Position(variant, tuple(points), (0, 0), (15 - sum(mine), 15 - sum(theirs)))
    reached = {tuple(row[:HOME_POINTS]) for row in real.legal_rows(roll)}
    expected = {tuple(row[:HOME_POINTS]) for row in bearoff_position(real.variant, mine).legal_rows(roll)}
    assert reached == expected


def _race_cases(count: int) -> list[tuple[Position, tuple[int, int]]]:
    """Seeded bear-off races, both sides all home, with a choice of plays."""
    rng = np.random.default_rng(19)
    cases: list[tuple[Position, tuple[int, int]]] = []
    while len(cases) < count:
        mine, theirs = (tuple(int(c) for c in rng.multinomial(int(n), [1 / 6] * 6)) for n in rng.integers(3, 13, 2))
        points = list(mine) + [0] * 6 + [-c for c in theirs] + [0] * 6
        position = Position("long-traditional", tuple(points), (0, 0), (15 - sum(mine), 15 - sum(theirs)))
        roll = DICE_ROLLS[int(rng.integers(len(DICE_ROLLS)))]
        if len(position.legal_plays(roll)) > 1:
            cases.append((position, roll))
    return cases


@pytest.mark.parametrize("level", ["beginner", pytest.param("expert", marks=pytest.mark.slow)])
def test_the_long_levels_play_the_databases_choice_in_races(level: str) -> None:
    """Every long-nardy level rates bear-off races by the database: its choice is the database's best, noise aside.

    Issue 19: "a one-sided bear-off database ... used by the bots in the race"."""
    bot = make_bot(level, variant="long-traditional", seed=1)
    assert isinstance(bot.evaluator, RaceEvaluator)
    if level != "expert":
        return
    database, network, disagreed = default_bearoff(), default_evaluator("long-traditional"), 0
    for position, roll in _race_cases(60):
        plays = position.legal_plays(roll)
        exact = equity(invert(np.array([  # the opponent rolls next: its chances, turned into ours
            database.race(tuple(-c for c in p.position.points[12:18]), p.position.points[:HOME_POINTS])
            for p in plays
        ])))
        chosen = bot.choose_play(position, roll)
        assert chosen is not None and exact[plays.index(chosen)] == pytest.approx(exact.max())
        hinted = top_plays(position, roll, level="advanced", count=1)[0].play
        assert exact[plays.index(hinted)] == pytest.approx(exact.max())  # hints and analysis rate races so too
        network_choice = int(np.argmax(equity(after_play_probabilities(network, [p.position for p in plays]))))
        disagreed += exact[network_choice] < exact.max() - 1e-9
    assert disagreed > 0, "no race where the network alone chooses differently: the test shows nothing"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(home_strategy(most=15), home_strategy(most=15)), min_size=1, max_size=6))
def test_many_races_at_once_are_each_race(pairs: list[tuple[Home, Home]]) -> None:
    database = default_bearoff()
    rollers, others = (np.array([pair[side] for pair in pairs]) for side in (0, 1))
    expected = np.array([database.race(mine, theirs) for mine, theirs in pairs])
    assert np.allclose(database.races(rollers, others), expected)
    with pytest.raises(KeyError):
        database.indices(np.array([[8, 8, 0, 0, 0, 0]]))  # 16 checkers
