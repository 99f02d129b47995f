"""Matchmaking (004): "find an opponent" pairs close ratings; 400 or more apart, both must confirm.

:class:`MatchmakingPool` is the pure logic, with time passed in:

* Players wait in pools keyed by (variant, match length, bank clock).
* Pairing runs in waves (:meth:`MatchmakingPool.pair`). In each pool every
  possible pair is considered, closest ratings first, and taken if neither
  player is already taken in this wave and the gap is within what *both*
  accept now: :func:`allowed_gap` of their own waiting time, 100 rating points
  at first and 50 more for every full 10 seconds waited. Two players one of
  whom blocks the other are never paired (``docs/moderation.md``).
* A pair less than 400 apart starts at once. A pair 400 or more apart becomes
  an :class:`Offer` both must :meth:`~MatchmakingPool.confirm` within
  :data:`OFFER_SECONDS`. A player who declines leaves the pool; so does one
  who lets the offer expire. The other player (who confirmed, or was not
  asked to decide because the other declined first) goes back to the pool,
  keeping their place in the queue (their waiting time keeps counting).

:class:`MatchmakingService` is the glue: it keeps the pool in the database,
shared by every server process, runs a wave every :data:`WAVE_SECONDS` in a
background task, and for each started pairing opens a rated table through
the table service (the first player creates it, the second joins). Clients
learn of an offer or a table by polling ``GET /api/matchmaking/status`` (``docs/protocol.md``, "Matchmaking and ratings").
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
from dataclasses import dataclass, field
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar

from nardy.rules import VARIANTS, find_variant
from nardy.server.runtime.periodic import Periodic
from nardy.server.services.clock import Clock
from nardy.server.services.database import DatabaseThreads
from nardy.server.services.ratings import family_of, standing_of
from nardy.server.services.table_state import TableSpec
from nardy.server.services.tables import TableService
from nardy.server.settings import BANK_CLOCK_CHOICES, DEFAULT_BANK_CLOCK
from nardy.store import matchmaking_repo, moderation_repo, tables_repo
from nardy.store.models import User

log = logging.getLogger(__name__)

_T = TypeVar("_T")

PoolKey = tuple[str, int, int, int]
"""(variant, match length, the bank clock's delay seconds, its bank seconds per point): rated play is always timed."""

CONFIRM_GAP = 400
"""A pairing this far apart or more needs both players' confirmation (004)."""

OFFER_SECONDS = 20
"""How long both players have to answer an offer."""

WAVE_SECONDS = 2.0
"""How often the service pairs the waiting players."""

OPENING_TIMEOUT = timedelta(seconds=30)
"""A pairing whose table was never reported open (its server died) goes back to the pool after this."""

MATCHED_KEPT = timedelta(minutes=10)
"""How long the status keeps answering "matched" with the table a pairing opened."""

QUICK_PAIRING_LENGTHS = (1, 3, 5, 7)
"""The match lengths the quick-pairing grid offers, where a variant is played to them."""


def pairing_lengths(variant: str) -> list[int]:
    """The match lengths players of ``variant`` are paired for: the quick lengths it is played to, else its
    shortest.

    >>> pairing_lengths("backgammon"), pairing_lengths("dave")
    ([1, 3, 5, 7], [3, 5, 7])
    """
    allowed = find_variant(variant).match_lengths
    return [n for n in QUICK_PAIRING_LENGTHS if allowed is None or n in allowed] or [min(allowed or (1,))]


def quick_pairing_grid() -> list[PoolKey]:
    """The pools the home page offers as one-tap tiles: for each variant, its shortest quick length on the fast
    bank clock and its next one on the standard clock (a variant with one such length gets both on that length).

    >>> [key for key in quick_pairing_grid() if key[0] == "dave"]
    [('dave', 3, 8, 30), ('dave', 5, 12, 60)]
    """
    fast = BANK_CLOCK_CHOICES[0]
    grid: list[PoolKey] = []
    for variant in VARIANTS.values():
        lengths = pairing_lengths(variant.name)
        grid.append((variant.name, lengths[0], *fast))
        grid.append((variant.name, lengths[1] if len(lengths) > 1 else lengths[0], *DEFAULT_BANK_CLOCK))
    return grid


def pool_json(key: PoolKey, waiting: int) -> dict[str, Any]:
    """A pool as ``GET /api/matchmaking/pools`` lists it: its settings and how many players wait in it."""
    variant, length, delay, bank = key
    return {"variant": variant, "match_length": length, "delay_seconds": delay, "bank_seconds_per_point": bank,
            "waiting": waiting}


def allowed_gap(waited: timedelta) -> float:
    """The widest rating gap a player accepts after waiting ``waited``: 100, plus 50 per full 10 s.

    >>> allowed_gap(timedelta(0)), allowed_gap(timedelta(seconds=19)), allowed_gap(timedelta(seconds=60))
    (100.0, 150.0, 400.0)
    """
    return 100.0 + 50.0 * (max(0.0, waited.total_seconds()) // 10)


@dataclass(frozen=True, slots=True)
class Waiting:
    """A player in a pool: who, their rating in the pool's family, and since when."""

    user_id: int
    rating: float
    key: PoolKey
    since: datetime


@dataclass(slots=True)
class Offer:
    """A pairing: started at once when ``needs_confirmation`` is false, else waiting for both answers."""

    id: str
    key: PoolKey
    players: tuple[Waiting, Waiting]
    gap: float
    needs_confirmation: bool
    expires_at: datetime | None
    confirmed: set[int] = field(default_factory=set)
    started_at: datetime | None = None
    """When the pairing was settled and its table began to open."""

    @property
    def is_started(self) -> bool:
        """True when the match may begin: no confirmation needed, or both confirmed."""
        return not self.needs_confirmation or self.confirmed == {p.user_id for p in self.players}

    def other(self, user_id: int) -> Waiting:
        """The opponent of ``user_id`` in this pairing."""
        first, second = self.players
        return second if first.user_id == user_id else first


class MatchmakingError(ValueError):
    """A matchmaking request that cannot be honoured (not waiting, no such offer)."""


class MatchmakingPool:
    """The waiting players, the open offers and the pairings being opened; every method takes the time ``now``.

    A pairing that may start is *opening* until the service reports its table
    (:meth:`opened`); the table then stays the players' answer until they join
    or leave again. An opening that never reports back (its server process
    died) returns its players to the pool after :data:`OPENING_TIMEOUT`.
    The answer "matched" is kept for :data:`MATCHED_KEPT`, long enough for
    the players' next polls, so the stored pool does not grow without end.
    """

    def __init__(self) -> None:
        self._waiting: dict[int, Waiting] = {}
        self._offers: dict[str, Offer] = {}
        self._offer_of: dict[int, str] = {}
        self._opening: dict[str, Offer] = {}
        self._matched: dict[int, tuple[str, datetime]] = {}

    # ----- players

    def join(self, user_id: int, rating: float, *, key: PoolKey, now: datetime) -> Waiting:
        """Wait for an opponent in pool ``key`` (joining again moves the player to that pool, keeping no place)."""
        if user_id in self._offer_of:
            raise MatchmakingError("answer the offer you have first")
        if self.opening_of(user_id) is not None:
            raise MatchmakingError("your match is being opened")
        self._matched.pop(user_id, None)
        entry = Waiting(user_id, rating, key, now)
        self._waiting[user_id] = entry
        return entry

    def leave(self, user_id: int) -> bool:
        """Stop waiting (an open offer counts as declined); True if the player was in the pool."""
        self._matched.pop(user_id, None)
        if user_id in self._offer_of:
            self.decline(self._offer_of[user_id], user_id)
            return True
        return self._waiting.pop(user_id, None) is not None

    def waiting_counts(self) -> dict[PoolKey, int]:
        """How many players wait in each pool that has any (those answering an offer are not waiting)."""
        counts: dict[PoolKey, int] = {}
        for entry in self._waiting.values():
            counts[entry.key] = counts.get(entry.key, 0) + 1
        return counts

    def waiting_ids(self) -> list[int]:
        """The players waiting in any pool."""
        return list(self._waiting)

    def waiting(self, user_id: int) -> Waiting | None:
        """The player's place in a pool, if waiting."""
        return self._waiting.get(user_id)

    def offer_of(self, user_id: int) -> Offer | None:
        """The open offer the player is asked to confirm, if any."""
        offer_id = self._offer_of.get(user_id)
        return self._offers.get(offer_id) if offer_id is not None else None

    def opening_of(self, user_id: int) -> Offer | None:
        """The player's pairing whose table is being opened, if any."""
        return next((o for o in self._opening.values() if user_id in {p.user_id for p in o.players}), None)

    def matched_table(self, user_id: int) -> str | None:
        """The table the player's last pairing opened (until they join or leave again), whatever its status now."""
        matched = self._matched.get(user_id)
        return matched[0] if matched is not None else None

    def opened(self, offer_id: str, table_id: str, now: datetime) -> None:
        """The table of an opening pairing is open: both players are matched to it."""
        offer = self._opening.pop(offer_id, None)
        if offer is not None:
            for player in offer.players:
                self._matched[player.user_id] = (table_id, now)

    # ----- waves

    def pair(
        self, now: datetime, *, apart: set[frozenset[int]] | None = None, among: set[int] | None = None,
    ) -> list[Offer]:
        """One wave: expire stale offers, then pair waiting players closest first.

        Two players kept apart by a block (a pair in ``apart``) are never
        paired; with ``among``, only those players are paired in this wave
        (the ones whose blocks were looked up), the others wait for the next.

        Returns the new pairings: those with ``is_started`` true are to be
        played now; the rest are offers awaiting both confirmations.
        """
        self.expire(now)
        for stale in [o for o in self._opening.values() if o.started_at and now - o.started_at >= OPENING_TIMEOUT]:
            del self._opening[stale.id]
            for player in stale.players:
                self._waiting[player.user_id] = player
        self._matched = {user: (table, at) for user, (table, at) in self._matched.items() if now - at < MATCHED_KEPT}
        pools: dict[PoolKey, list[Waiting]] = {}
        for entry in self._waiting.values():
            pools.setdefault(entry.key, []).append(entry)
        made: list[Offer] = []
        for key, entries in pools.items():
            candidates = sorted(
                itertools.combinations(sorted(entries, key=lambda e: (e.rating, e.since)), 2),
                key=lambda pair: (abs(pair[0].rating - pair[1].rating), min(pair[0].since, pair[1].since)),
            )
            taken: set[int] = set()
            for a, b in candidates:
                if a.user_id in taken or b.user_id in taken:
                    continue
                if apart and frozenset((a.user_id, b.user_id)) in apart:
                    continue
                if among is not None and not {a.user_id, b.user_id} <= among:
                    continue
                gap = abs(a.rating - b.rating)
                if gap > min(allowed_gap(now - a.since), allowed_gap(now - b.since)):
                    continue
                taken |= {a.user_id, b.user_id}
                first, second = sorted((a, b), key=lambda e: e.since)
                needs = gap >= CONFIRM_GAP
                offer = Offer(
                    id=secrets.token_urlsafe(9), key=key, players=(first, second), gap=gap,
                    needs_confirmation=needs, expires_at=now + timedelta(seconds=OFFER_SECONDS) if needs else None,
                )
                del self._waiting[a.user_id], self._waiting[b.user_id]
                if needs:
                    self._offers[offer.id] = offer
                    self._offer_of[a.user_id] = self._offer_of[b.user_id] = offer.id
                else:
                    self._start(offer, now)
                made.append(offer)
        return made

    def confirm(self, offer_id: str, user_id: int, now: datetime) -> Offer:
        """``user_id`` accepts the offer; once both have, it is closed, ``is_started`` and opening."""
        offer = self._open_offer(offer_id, user_id)
        offer.confirmed.add(user_id)
        if offer.is_started:
            self._close(offer)
            self._start(offer, now)
        return offer

    def decline(self, offer_id: str, user_id: int) -> Offer:
        """``user_id`` refuses: they leave the pool, the other player goes back to it."""
        offer = self._open_offer(offer_id, user_id)
        self._close(offer)
        other = offer.other(user_id)
        self._waiting[other.user_id] = other
        return offer

    def expire(self, now: datetime) -> list[Offer]:
        """Close offers past their time: who did not confirm leaves the pool, who did goes back."""
        expired = [o for o in self._offers.values() if o.expires_at is not None and now >= o.expires_at]
        for offer in expired:
            self._close(offer)
            for player in offer.players:
                if player.user_id in offer.confirmed:
                    self._waiting[player.user_id] = player
        return expired

    def _open_offer(self, offer_id: str, user_id: int) -> Offer:
        offer = self._offers.get(offer_id)
        if offer is None or user_id not in {p.user_id for p in offer.players}:
            raise MatchmakingError("there is no such offer open to you")
        return offer

    def _close(self, offer: Offer) -> None:
        self._offers.pop(offer.id, None)
        for player in offer.players:
            self._offer_of.pop(player.user_id, None)

    def _start(self, offer: Offer, now: datetime) -> None:
        offer.started_at = now
        self._opening[offer.id] = offer

    # ----- storage

    def to_json(self) -> dict[str, Any]:
        """The whole pool as JSON-ready data (the servers share it through the database)."""
        return {
            "waiting": [_waiting_json(w) for w in self._waiting.values()],
            "offers": [_offer_json(o) for o in self._offers.values()],
            "opening": [_offer_json(o) for o in self._opening.values()],
            "matched": [[user_id, table, _time(at)] for user_id, (table, at) in self._matched.items()],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchmakingPool:
        """The pool :meth:`to_json` wrote (an empty pool from ``{}``)."""
        pool = cls()
        for entry in data.get("waiting", []):
            waiting = _waiting_from(entry)
            pool._waiting[waiting.user_id] = waiting
        for entry in data.get("offers", []):
            offer = _offer_from(entry)
            pool._offers[offer.id] = offer
            for player in offer.players:
                pool._offer_of[player.user_id] = offer.id
        for entry in data.get("opening", []):
            offer = _offer_from(entry)
            pool._opening[offer.id] = offer
        for user_id, table, at in data.get("matched", []):
            since = _time_from(at)
            assert since is not None
            pool._matched[int(user_id)] = (str(table), since)
        return pool


def _time(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _time_from(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value is not None else None


def _waiting_json(entry: Waiting) -> dict[str, Any]:
    return {"user_id": entry.user_id, "rating": entry.rating, "key": list(entry.key), "since": _time(entry.since)}


def _key_from(data: list[Any]) -> PoolKey:
    variant, length, delay, bank = data
    return str(variant), int(length), int(delay), int(bank)


def _waiting_from(data: dict[str, Any]) -> Waiting:
    since = _time_from(data["since"])
    assert since is not None
    return Waiting(int(data["user_id"]), float(data["rating"]), _key_from(data["key"]), since)


def _offer_json(offer: Offer) -> dict[str, Any]:
    return {
        "id": offer.id, "key": list(offer.key), "players": [_waiting_json(p) for p in offer.players],
        "gap": offer.gap, "needs_confirmation": offer.needs_confirmation, "expires_at": _time(offer.expires_at),
        "confirmed": sorted(offer.confirmed), "started_at": _time(offer.started_at),
    }


def _offer_from(data: dict[str, Any]) -> Offer:
    first, second = (_waiting_from(p) for p in data["players"])
    return Offer(
        id=str(data["id"]), key=_key_from(data["key"]), players=(first, second),
        gap=float(data["gap"]), needs_confirmation=bool(data["needs_confirmation"]),
        expires_at=_time_from(data["expires_at"]), confirmed={int(u) for u in data["confirmed"]},
        started_at=_time_from(data["started_at"]),
    )


StatusKind = Literal["idle", "waiting", "offer", "matched"]


class MatchmakingService:
    """The pool every server process shares, its waves, and the tables they open.

    The pool lives in one database row (``matchmaking``), so players are
    paired whichever process their requests reach. Every change rereads the
    row, applies a pool method and writes it back only if nobody wrote in
    between (a version check), else tries again; the pool's methods are pure,
    so a retry is safe. Every process runs waves; they take turns through
    that check. A started pairing is written as *opening* before its table is
    created, and the table is written back once it exists. Reading and
    writing run in the database threads; the pool's methods on the event loop.
    """

    def __init__(
        self,
        *,
        tables: TableService,
        db: DatabaseThreads,
        clock: Clock,
        interval: float = WAVE_SECONDS,
    ) -> None:
        self._tables = tables
        self._db = db
        self._clock = clock
        self._lock = asyncio.Lock()
        self._waves = Periodic(self.wave, interval, name="matchmaking wave")

    async def start(self) -> None:
        """Start the background waves."""
        self._waves.start()

    async def stop(self) -> None:
        """Stop the background waves."""
        await self._waves.stop()

    async def update(self, change: Callable[[MatchmakingPool], _T]) -> _T:
        """Apply ``change`` to the shared pool as one step; what it raises leaves the pool unchanged."""
        async with self._lock:
            while True:
                version, stored = await self._db.run(matchmaking_repo.load_pool)
                pool = MatchmakingPool.from_json(stored)
                before = pool.to_json()
                result = change(pool)
                state = pool.to_json()
                if state == before:  # most waves pair nobody: nothing to write, no version for others to retry on
                    return result
                now = self._clock.now()
                if await self._db.run(
                    lambda db: matchmaking_repo.write_pool(db, version=version, state=state, now=now)
                ):
                    return result

    async def _pool(self) -> MatchmakingPool:
        _version, stored = await self._db.run(matchmaking_repo.load_pool)
        return MatchmakingPool.from_json(stored)

    async def join(self, user: User, *, variant: str, match_length: int, clock: tuple[int, int]) -> Waiting:
        """Put ``user`` in the pool for these settings (``clock``: delay and bank seconds per point), at their
        rating in the variant's family."""
        family = family_of(variant)
        rating = (await self._db.run(lambda db: standing_of(db, user.id, family))).rating
        now = self._clock.now()
        key = (variant, match_length, clock[0], clock[1])
        return await self.update(lambda pool: pool.join(user.id, rating, key=key, now=now))

    async def pools(self) -> list[dict[str, Any]]:
        """The quick-pairing grid's pools with the number waiting in each, then any other pool someone waits in."""
        counts = (await self._pool()).waiting_counts()
        grid = quick_pairing_grid()
        others = sorted(key for key in counts if key not in grid)
        return [pool_json(key, counts.get(key, 0)) for key in [*grid, *others]]

    async def leave(self, user_id: int) -> bool:
        """Leave the pool (declining an open offer)."""
        return await self.update(lambda pool: pool.leave(user_id))

    async def confirm(self, offer_id: str, user_id: int) -> Offer:
        """Confirm an offer; the table opens as soon as both have."""
        now = self._clock.now()
        offer = await self.update(lambda pool: pool.confirm(offer_id, user_id, now))
        if offer.is_started:
            await self._open_table(offer)
        return offer

    async def decline(self, offer_id: str, user_id: int) -> Offer:
        """Decline an offer and leave the pool."""
        return await self.update(lambda pool: pool.decline(offer_id, user_id))

    async def wave(self) -> list[Offer]:
        """Pair now; open a table for each pairing that needs no confirmation."""
        now = self._clock.now()
        among = set((await self._pool()).waiting_ids())
        apart = await self._db.run(lambda db: moderation_repo.blocks_among(db, among)) if len(among) > 1 else set()
        made = await self.update(lambda pool: pool.pair(now, apart=apart, among=among))
        for offer in made:
            if offer.is_started:
                await self._open_table(offer)
        return made

    async def status(self, user_id: int) -> dict[str, Any]:
        """What the player's "find an opponent" stands at: idle, waiting, an offer to answer, or a table.

        A pairing's table is the answer only while its match is being played:
        once it is over (finished, or abandoned) it is never offered as the
        player's current match, and the status reads as if it had not been.
        """
        now = self._clock.now()
        pool = await self._pool()
        table = pool.matched_table(user_id)
        if table is not None and await self._db.run(lambda db: tables_repo.table_status(db, table)) == "playing":
            return {"status": "matched", "table": table}
        offer = pool.offer_of(user_id)
        if offer is not None:
            me, other = (offer.players[0], offer.players[1]) if offer.players[0].user_id == user_id \
                else (offer.players[1], offer.players[0])
            opponent = await self._db.run(lambda db: db.get(User, other.user_id))
            return {
                "status": "offer",
                "offer": {
                    "id": offer.id, "opponent": opponent.username if opponent is not None else None,
                    "rating": round(me.rating, 2), "opponent_rating": round(other.rating, 2),
                    "gap": round(offer.gap, 2), "confirmed": user_id in offer.confirmed,
                    "expires_at": offer.expires_at.isoformat() if offer.expires_at else None,
                },
            }
        opening = pool.opening_of(user_id)
        waiting = pool.waiting(user_id) or (next(p for p in opening.players if p.user_id == user_id) if opening else None)
        if waiting is not None:
            variant, length, delay, bank = waiting.key
            return {
                "status": "waiting", "variant": variant, "match_length": length,
                "delay_seconds": delay, "bank_seconds_per_point": bank,
                "rating": round(waiting.rating, 2), "since": waiting.since.isoformat(),
                "allowed_gap": allowed_gap(now - waiting.since),
            }
        return {"status": "idle"}

    async def _open_table(self, offer: Offer) -> None:
        variant, length, delay, bank = offer.key
        spec = TableSpec(
            variant=variant, match_length=length, options=VARIANTS[variant].default_options(),
            delay_seconds=delay, bank_seconds_per_point=bank, rated=True,
        )
        first, second = offer.players
        users = await self._db.run(lambda db: (db.get(User, first.user_id), db.get(User, second.user_id)))
        if users[0] is None or users[1] is None:
            return
        state = await self._tables.create(user=users[0], spec=spec)
        await self._tables.join(state.id, user=users[1])
        opened_at = self._clock.now()
        await self.update(lambda pool: pool.opened(offer.id, state.id, opened_at))

