"""The Kazaross-XG2 match equity table: published values, symmetry, and the Crawford bookkeeping."""

from __future__ import annotations

import pytest

from nardy.bots.met import MAX_AWAY, match_equity, match_equity_after

# Entries copied from met/Kazaross-XG2.xml by hand, to catch a shifted row or column.
PUBLISHED = [
    ((1, 1), 0.5),
    ((1, 2), 0.67736),
    ((2, 1), 0.32264),
    ((2, 2), 0.5),
    ((2, 3), 0.59947),
    ((2, 4), 0.66870),
    ((3, 5), 0.64795),
    ((4, 2), 0.33130),
    ((7, 9), 0.60854),
    ((11, 13), 0.589242),
    ((25, 1), 0.00095),
    ((1, 25), 0.99905),
    ((25, 24), 0.46914),
]

POST_CRAWFORD = [(1, 0.5), (2, 0.48803), (3, 0.32264), (4, 0.31002), (5, 0.19012), (25, 0.001230)]


@pytest.mark.parametrize(("score", "expected"), PUBLISHED)
def test_published_entries(score: tuple[int, int], expected: float) -> None:
    assert match_equity(*score) == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(("trailer", "expected"), POST_CRAWFORD)
def test_post_crawford_entries(trailer: int, expected: float) -> None:
    assert match_equity(trailer, 1, post_crawford=True) == pytest.approx(expected, abs=1e-9)
    assert match_equity(1, trailer, post_crawford=True) == pytest.approx(1.0 - expected, abs=1e-9)


def test_table_is_antisymmetric_and_even_at_equal_scores() -> None:
    for a in range(1, MAX_AWAY + 1):
        assert match_equity(a, a) == 0.5
        for b in range(1, MAX_AWAY + 1):
            assert match_equity(a, b) + match_equity(b, a) == pytest.approx(1.0, abs=1e-9)


def test_needing_fewer_points_is_better() -> None:
    for a in range(1, MAX_AWAY + 1):
        for b in range(1, MAX_AWAY):
            assert match_equity(a, b + 1) > match_equity(a, b)
            assert match_equity(b + 1, a) < match_equity(b, a)


def test_post_crawford_trailer_free_drop() -> None:
    # At 2-away (even) the trailer is nearly as good as at 1-away thanks to the free drop;
    # at odd and even pairs beyond, the equities come in near-equal steps of two.
    assert match_equity(2, 1, post_crawford=True) < 0.5
    assert match_equity(2, 1, post_crawford=True) > match_equity(3, 1, post_crawford=True)
    assert match_equity(1, 1, post_crawford=True) == 0.5


def test_won_and_lost_matches() -> None:
    assert match_equity(0, 5) == 1.0
    assert match_equity(5, 0) == 0.0


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((26, 3), {}),
        ((3, -1), {}),
        ((0, 0), {}),
        ((3, 5), {"crawford": True}),
        ((3, 5), {"post_crawford": True}),
        ((1, 5), {"crawford": True, "post_crawford": True}),
    ],
)
def test_refused_lookups(args: tuple[int, int], kwargs: dict[str, bool]) -> None:
    with pytest.raises(ValueError):
        match_equity(*args, **kwargs)


def test_equity_after_a_game() -> None:
    # 3-away/3-away: a single win leads to 2-away/3-away, a gammon to 1-away/3-away (the Crawford game).
    assert match_equity_after(3, 3, 1) == match_equity(2, 3)
    assert match_equity_after(3, 3, 2) == match_equity(1, 3, crawford=True) == pytest.approx(0.75076)
    assert match_equity_after(3, 3, -4) == 0.0
    assert match_equity_after(3, 3, 3) == 1.0
    # The Crawford game, 1-away/3-away: the trailer's single win leads to post-Crawford 1-away/2-away.
    assert match_equity_after(1, 3, -1, crawford_game=True) == pytest.approx(1.0 - 0.48803)
    # A post-Crawford game (someone already at 1-away): still post-Crawford after it.
    assert match_equity_after(4, 1, 2) == pytest.approx(0.48803)
    assert match_equity_after(4, 1, 3) == 0.5
    with pytest.raises(ValueError):
        match_equity_after(3, 3, 0)
