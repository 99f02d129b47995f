"""Tournament pairing: knockout brackets, Swiss rounds, round robins and standings, with property tests."""

from __future__ import annotations

import doctest
import itertools
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.server.services import tournament_pairing
from nardy.server.services.tournament_pairing import (
    Result,
    bracket_order,
    knockout_first_round,
    knockout_next_round,
    knockout_rounds,
    knockout_standings,
    round_robin_rounds,
    standings,
    swiss_round,
)


def test_doctests() -> None:
    assert doctest.testmod(tournament_pairing).failed == 0


def test_top_two_seeds_meet_only_in_the_final() -> None:
    order = bracket_order(16)
    assert order.index(1) < 8 <= order.index(2)
    assert sorted(order) == list(range(1, 17))


def test_byes_go_to_the_top_seeds() -> None:
    pairings = knockout_first_round([10, 20, 30, 40, 50])
    byes = [a for a, b in pairings if b is None]
    assert sorted(byes) == [10, 20, 30]
    assert (40, 50) in pairings


@given(st.integers(min_value=2, max_value=40))
def test_knockout_plays_everyone_once_per_round_to_one_winner(size: int) -> None:
    players = list(range(100, 100 + size))
    pairings = knockout_first_round(players)
    rounds = 1
    while True:
        seen = [p for pair in pairings for p in pair if p is not None]
        assert sorted(seen) == sorted(set(seen))
        winners = [a if b is None else max(a, b) for a, b in pairings]
        if len(winners) == 1:
            break
        pairings = knockout_next_round(winners)
        rounds += 1
    assert rounds == knockout_rounds(size)
    assert winners == [max(players)]


def test_knockout_standings_put_the_finalist_second() -> None:
    first = [Result(1, 4, 1), Result(2, 3, 3)]
    final = [Result(1, 3, 3)]
    assert knockout_standings([1, 2, 3, 4], [first, final]) == [3, 1, 2, 4]


@given(st.integers(min_value=2, max_value=21))
def test_round_robin_meets_every_pair_exactly_once(size: int) -> None:
    players = list(range(1, size + 1))
    rounds = round_robin_rounds(players)
    pairs = [frozenset(p) for r in rounds for p in r if p[1] is not None]
    assert sorted(pairs, key=sorted) == sorted((frozenset(c) for c in itertools.combinations(players, 2)), key=sorted)
    for pairings in rounds:
        seen = [p for pair in pairings for p in pair if p is not None]
        assert sorted(seen) == players
        assert sum(1 for _, b in pairings if b is None) == size % 2


def _play_swiss(size: int, rounds: int, seed: int) -> list[list[tuple[int, int | None]]]:
    pick = random.Random(seed)
    players = list(range(1, size + 1))
    history: list[Result] = []
    played = []
    for _ in range(rounds):
        ranked = [s.player for s in standings(players, history)]
        pairings = swiss_round(ranked, history)
        played.append(pairings)
        history += [Result(a, b, a if b is None else pick.choice((a, b))) for a, b in pairings]
    return played


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=16), st.integers(min_value=0, max_value=10_000))
def test_swiss_pairs_everyone_once_a_round_and_never_repeats_while_it_can(size: int, seed: int) -> None:
    rounds = size - 1 if size % 2 == 0 else size
    rounds = min(rounds, 5)
    played = _play_swiss(size, rounds, seed)
    byes: list[int] = []
    for pairings in played:
        seen = [p for pair in pairings for p in pair if p is not None]
        assert sorted(seen) == list(range(1, size + 1))
        byes += [a for a, b in pairings if b is None]
    assert len(byes) == len(set(byes)), "a second bye while someone has had none"
    pairs = [frozenset(p) for r in played for p in r if p[1] is not None]
    if rounds <= 3 or size >= 2 * rounds:  # few rounds of many players: a repeat-free pairing always exists
        assert len(pairs) == len(set(pairs))


def test_swiss_pairs_leaders_together() -> None:
    history = [Result(1, 2, 1), Result(3, 4, 3), Result(5, 6, 5), Result(7, 8, 7)]
    ranked = [s.player for s in standings(list(range(1, 9)), history)]
    pairings = swiss_round(ranked, history)
    assert (1, 3) in pairings and (5, 7) in pairings


def test_standings_break_ties_by_buchholz_then_sonneborn_berger() -> None:
    # 1 beats 2, 2 beats 3, 3 beats 1: one point each; 4 lost both its games.
    history = [Result(1, 2, 1), Result(2, 3, 2), Result(3, 1, 3), Result(4, 1, 1), Result(4, 2, 2)]
    table = standings([4, 3, 2, 1], history)
    by_player = {s.player: s for s in table}
    assert by_player[1].points == 2 and by_player[2].points == 2 and by_player[3].points == 1
    assert by_player[1].buchholz == by_player[2].buchholz == 2 + 1 + 0
    assert by_player[1].sonneborn_berger == 2 and by_player[2].sonneborn_berger == 1  # 1 beat 2, 2 beat 3
    assert [s.player for s in table][:2] == [1, 2]  # equal points and Buchholz: Sonneborn-Berger decides, not seed
    assert table[-1].player == 4 and table[-1].losses == 2
