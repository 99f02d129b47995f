"""The matchmaking pool (004) with an injected clock: closeness, widening, the 400 confirmation, decline, expiry."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from nardy.server.services.matchmaking import (
    CONFIRM_GAP,
    MATCHED_KEPT,
    OFFER_SECONDS,
    OPENING_TIMEOUT,
    MatchmakingError,
    MatchmakingPool,
    Offer,
    PoolKey,
    allowed_gap,
)

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
KEY: PoolKey = ("georgian", 1, 12, 60)


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
    pool.join(1, 1500, key=("georgian", 1, 12, 60), now=at(0))
    pool.join(2, 1500, key=("georgian", 3, 12, 60), now=at(0))
    pool.join(3, 1500, key=("georgian", 1, 8, 30), now=at(0))
    pool.join(4, 1500, key=("long-traditional", 1, 12, 60), now=at(0))
    pool.join(5, 1500, key=("georgian", 1, 12, 120), now=at(0))
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
    assert pool.confirm(offer.id, 2, at(100)).is_started is False
    assert pool.offer_of(1) is offer
    assert pool.confirm(offer.id, 1, at(100)).is_started is True
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
    pool.confirm(offer.id, first, at(100))
    assert not offer.is_started
    assert pool.confirm(offer.id, 3 - first, at(100)).is_started


def test_a_decline_removes_the_decliner_and_returns_the_other() -> None:
    pool = MatchmakingPool()
    pool.join(1, 1500, key=KEY, now=at(0))
    pool.join(2, 2000, key=KEY, now=at(5))
    [offer] = pool.pair(at(100))
    pool.confirm(offer.id, 1, at(100))
    pool.decline(offer.id, 2)
    assert pool.waiting(2) is None and pool.offer_of(2) is None
    back = pool.waiting(1)
    assert back is not None and back.since == at(0)  # keeps the waiting time already earned
    with pytest.raises(MatchmakingError):
        pool.confirm(offer.id, 1, at(100))
    pool.join(3, 1510, key=KEY, now=at(100))
    assert pairs(pool.pair(at(100))) == {frozenset({1, 3})}


def test_an_unanswered_offer_expires() -> None:
    pool = MatchmakingPool()
    pool.join(1, 1500, key=KEY, now=at(0))
    pool.join(2, 2000, key=KEY, now=at(0))
    [offer] = pool.pair(at(100))
    pool.confirm(offer.id, 1, at(100))
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
        pool.confirm(offer.id, 3, at(100))
    with pytest.raises(MatchmakingError):
        pool.join(1, 1500, key=KEY, now=at(100))
    assert pool.leave(1)                 # leaving during an offer declines it
    assert pool.waiting(2) is not None


def test_a_started_pairing_is_opening_until_its_table_is_reported() -> None:
    pool = MatchmakingPool()
    pool.join(1, 1500, key=KEY, now=at(0))
    pool.join(2, 1550, key=KEY, now=at(0))
    [offer] = pool.pair(at(1))
    assert pool.opening_of(1) is offer and pool.opening_of(2) is offer
    with pytest.raises(MatchmakingError, match="being opened"):
        pool.join(1, 1500, key=KEY, now=at(2))
    pool.opened(offer.id, "table-1", at(2))
    assert pool.opening_of(1) is None and pool.matched_table(1) == pool.matched_table(2) == "table-1"
    pool.join(1, 1500, key=KEY, now=at(3))
    assert pool.matched_table(1) is None and pool.matched_table(2) == "table-1"
    assert pool.leave(2) is False and pool.matched_table(2) is None


def test_the_matched_answer_is_kept_only_a_while() -> None:
    """Long enough for the players' polls, not forever: the shared pool must not grow with every match."""
    pool = MatchmakingPool()
    pool.join(1, 1500, key=KEY, now=at(0))
    pool.join(2, 1550, key=KEY, now=at(0))
    [offer] = pool.pair(at(1))
    pool.opened(offer.id, "table-1", at(2))
    pool.pair(at(2) + MATCHED_KEPT - timedelta(seconds=1))
    assert pool.matched_table(1) == "table-1"
    pool.pair(at(2) + MATCHED_KEPT)
    assert pool.matched_table(1) is None and pool.matched_table(2) is None
    assert pool.to_json()["matched"] == []


def test_an_opening_never_reported_returns_its_players() -> None:
    """The process opening the table died: after OPENING_TIMEOUT both wait again, keeping their place."""
    pool = MatchmakingPool()
    pool.join(1, 1500, key=KEY, now=at(0))
    pool.join(2, 1550, key=KEY, now=at(0))
    [offer] = pool.pair(at(1))
    seconds = OPENING_TIMEOUT.total_seconds()
    assert pool.pair(at(1 + seconds - 1)) == []
    [again] = pool.pair(at(1 + seconds))
    assert pairs([again]) == {frozenset({1, 2})} and again.id != offer.id


def test_the_pool_survives_its_json_round_trip() -> None:
    """What one server process writes, another reads back identically."""
    pool = MatchmakingPool()
    for user, rating in ((1, 1500), (2, 2000), (3, 1520), (4, 1800), (5, 1810), (6, 2450), (7, 1000)):
        pool.join(user, rating, key=("backgammon", 3, 15, 120) if user in (4, 5) else KEY, now=at(user))
    made = pool.pair(at(100))
    started = next(o for o in made if o.is_started)
    waiting_offer = next(o for o in made if not o.is_started)
    pool.confirm(waiting_offer.id, waiting_offer.players[0].user_id, at(101))
    pool.opened(started.id, "t1", at(101))
    data = json.loads(json.dumps(pool.to_json()))
    back = MatchmakingPool.from_json(data)
    assert back.to_json() == pool.to_json()
    for user in range(1, 8):
        assert back.waiting(user) == pool.waiting(user)
        assert back.matched_table(user) == pool.matched_table(user)
        mine, theirs = back.offer_of(user), pool.offer_of(user)
        assert (mine is None) == (theirs is None)
        if mine is not None and theirs is not None:
            assert (mine.id, mine.players, mine.confirmed, mine.expires_at) == (
                theirs.id, theirs.players, theirs.confirmed, theirs.expires_at)
    assert MatchmakingPool.from_json({}).to_json() == MatchmakingPool().to_json()
