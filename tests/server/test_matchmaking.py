"""The matchmaking pool (004) with an injected clock: closeness, widening, the 400 confirmation, decline, expiry."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from nardy.server.services.matchmaking import (
    CONFIRM_GAP,
    OFFER_SECONDS,
    MatchmakingError,
    MatchmakingPool,
    Offer,
    PoolKey,
    allowed_gap,
)

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
KEY: PoolKey = ("georgian", 1, None)


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def pairs(offers: list[Offer]) -> set[frozenset[int]]:
    return {frozenset(p.user_id for p in offer.players) for offer in offers}


def test_allowed_gap_widens_by_50_every_10_seconds() -> None:
    assert allowed_gap(timedelta(0)) == 100
    assert allowed_gap(timedelta(seconds=9.9)) == 100
    assert allowed_gap(timedelta(seconds=10)) == 150
    assert allowed_gap(timedelta(seconds=60)) == 400


def test_closest_ratings_are_paired_first() -> None:
    pool = MatchmakingPool()
    for user, rating in ((1, 1500), (2, 1590), (3, 1520), (4, 1600)):
        pool.join(user, rating, key=KEY, now=at(0))
    made = pool.pair(at(0))
    # Gaps: 4-2 is 10, 3-1 is 20; taking them leaves nobody; 1-2 (90) is never needed.
    assert pairs(made) == {frozenset({2, 4}), frozenset({1, 3})}
    assert all(offer.is_started and not offer.needs_confirmation for offer in made)
    assert pool.waiting(1) is None


def test_pools_are_apart_by_variant_length_and_time_control() -> None:
    pool = MatchmakingPool()
    pool.join(1, 1500, key=("georgian", 1, None), now=at(0))
    pool.join(2, 1500, key=("georgian", 3, None), now=at(0))
    pool.join(3, 1500, key=("georgian", 1, 60), now=at(0))
    pool.join(4, 1500, key=("long-traditional", 1, None), now=at(0))
    assert pool.pair(at(0)) == []


def test_the_acceptable_gap_widens_while_waiting() -> None:
    pool = MatchmakingPool()
    pool.join(1, 1500, key=KEY, now=at(0))
    pool.join(2, 1720, key=KEY, now=at(0))
    assert pool.pair(at(0)) == []          # 220 > 100
    assert pool.pair(at(19)) == []         # 220 > 150
    assert pool.pair(at(20)) == []         # 220 > 200
    made = pool.pair(at(30))               # 220 <= 250
    assert pairs(made) == {frozenset({1, 2})}
    assert made[0].is_started


def test_both_players_must_accept_the_gap() -> None:
    """A newcomer does not accept a wide gap at once, however long the other has waited."""
    pool = MatchmakingPool()
    pool.join(1, 1500, key=KEY, now=at(0))
    pool.join(2, 1800, key=KEY, now=at(100))
    assert pool.pair(at(100)) == []
    assert pairs(pool.pair(at(140))) == {frozenset({1, 2})}  # the newcomer's 40 s allow 300


def test_a_pairing_400_apart_needs_both_confirmations() -> None:
    pool = MatchmakingPool()
    pool.join(1, 1500, key=KEY, now=at(0))
    pool.join(2, 1500 + CONFIRM_GAP, key=KEY, now=at(0))
    [offer] = pool.pair(at(60))
    assert offer.needs_confirmation and not offer.is_started
    assert offer.gap == CONFIRM_GAP
    assert pool.offer_of(1) is offer and pool.offer_of(2) is offer
    assert pool.confirm(offer.id, 2).is_started is False
    assert pool.offer_of(1) is offer
    assert pool.confirm(offer.id, 1).is_started is True
    assert pool.offer_of(1) is None and pool.offer_of(2) is None
    assert pool.waiting(1) is None and pool.waiting(2) is None


def test_399_apart_starts_without_confirmation() -> None:
    pool = MatchmakingPool()
    pool.join(1, 1500, key=KEY, now=at(0))
    pool.join(2, 1899, key=KEY, now=at(0))
    [offer] = pool.pair(at(60))
    assert offer.is_started and not offer.needs_confirmation


@pytest.mark.parametrize("first", [1, 2])
def test_confirmation_works_in_either_order(first: int) -> None:
    pool = MatchmakingPool()
    pool.join(1, 2000, key=KEY, now=at(0))
    pool.join(2, 1500, key=KEY, now=at(0))
    [offer] = pool.pair(at(100))
    pool.confirm(offer.id, first)
    assert not offer.is_started
    assert pool.confirm(offer.id, 3 - first).is_started


def test_a_decline_removes_the_decliner_and_returns_the_other() -> None:
    pool = MatchmakingPool()
    pool.join(1, 1500, key=KEY, now=at(0))
    pool.join(2, 2000, key=KEY, now=at(5))
    [offer] = pool.pair(at(100))
    pool.confirm(offer.id, 1)
    pool.decline(offer.id, 2)
    assert pool.waiting(2) is None and pool.offer_of(2) is None
    back = pool.waiting(1)
    assert back is not None and back.since == at(0)  # keeps the waiting time already earned
    with pytest.raises(MatchmakingError):
        pool.confirm(offer.id, 1)
    pool.join(3, 1510, key=KEY, now=at(100))
    assert pairs(pool.pair(at(100))) == {frozenset({1, 3})}


def test_an_unanswered_offer_expires() -> None:
    pool = MatchmakingPool()
    pool.join(1, 1500, key=KEY, now=at(0))
    pool.join(2, 2000, key=KEY, now=at(0))
    [offer] = pool.pair(at(100))
    pool.confirm(offer.id, 1)
    assert pool.expire(at(100 + OFFER_SECONDS - 1)) == []
    assert pool.pair(at(100 + OFFER_SECONDS)) == []  # a wave expires it first
    assert pool.offer_of(1) is None and pool.offer_of(2) is None
    assert pool.waiting(1) is not None   # confirmed: back in the pool
    assert pool.waiting(2) is None       # did not answer: out


def test_an_offer_nobody_answers_removes_both() -> None:
    pool = MatchmakingPool()
    pool.join(1, 1500, key=KEY, now=at(0))
    pool.join(2, 2000, key=KEY, now=at(0))
    [offer] = pool.pair(at(100))
    assert pool.expire(at(200)) == [offer]
    assert pool.waiting(1) is None and pool.waiting(2) is None


def test_leaving_and_offers_to_others() -> None:
    pool = MatchmakingPool()
    pool.join(1, 1500, key=KEY, now=at(0))
    assert pool.leave(1) and not pool.leave(1)
    pool.join(1, 1500, key=KEY, now=at(0))
    pool.join(2, 2000, key=KEY, now=at(0))
    [offer] = pool.pair(at(100))
    with pytest.raises(MatchmakingError):
        pool.confirm(offer.id, 3)
    with pytest.raises(MatchmakingError):
        pool.join(1, 1500, key=KEY, now=at(100))
    assert pool.leave(1)                 # leaving during an offer declines it
    assert pool.waiting(2) is not None
