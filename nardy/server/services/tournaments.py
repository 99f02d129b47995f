"""Tournaments (``docs/tournaments.md``): registration, rounds, tables, results and standings.

:class:`TournamentService` is the glue between the steps taken in a database
session (:mod:`~nardy.server.services.tournament_steps`, which pair with the
pure :mod:`~nardy.server.services.tournament_pairing`), what the pages read
(:mod:`~nardy.server.services.tournament_views`) and the table service.
Every server process runs a sweep (every ``tournament_sweep_seconds``) over
the tournaments still registering or running; a request that may move one
on (a registration, a withdrawal) advances it at once too. To advance a tournament a process first takes its
lease with a conditional UPDATE, so only one process at a time pairs a round
or opens its tables, then:

1. starts it when due: a sit-and-go when full (or, when the organiser let
   computer players fill it, ``fill_after_seconds`` after its first
   registration), a scheduled one at ``starts_at`` (cancelled with fewer than
   ``min_players``); the entries are seeded by rating, then by who came first;
2. records the result of each of the round's tables that finished (the
   table's winner; a no-show has already lost on time there, a withdrawn
   player by forfeit);
3. when the round is decided, pairs the next one, or finishes with the
   standings;
4. opens a table for each pairing that has none: both players are seated
   at once, so the clock runs for a player who does not come.

Pairings are written before their tables are opened and a table is linked
to its pairing only if none was, so a process dying in between leaves at
most an unused table, never a pairing played twice.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy.orm import Session

from nardy.server.runtime.periodic import Periodic
from nardy.server.services import tournament_steps, tournament_views
from nardy.server.services.clock import Clock
from nardy.server.services.database import DatabaseThreads
from nardy.server.services.table_state import ActionError
from nardy.server.services.tables import TableService
from nardy.server.services.tournament_protocol import protocol_mat
from nardy.server.services.tournament_steps import ToOpen, TournamentError
from nardy.store import owner_caps, tournaments_repo
from nardy.store.models import Tournament, User

__all__ = ["NewTournament", "RoundSettings", "TournamentError", "TournamentService"]

log = logging.getLogger(__name__)

LEASE = timedelta(seconds=60)
"""How long a process holds a tournament it advances; a process that died holding it loses it after this."""

CLAIM_RETRY_SECONDS = 0.05
"""How long a request waits before trying again for a tournament's lease another process holds."""

REQUEST_PATIENCE = 3.0
"""How long a registration or a withdrawal waits for the lease to move the tournament on itself."""

SWEEP_SECONDS = 2.0
"""How often each process looks at the open tournaments (the default of ``tournament_sweep_seconds``)."""


@dataclass(frozen=True, slots=True)
class RoundSettings:
    """A round's match length and time control (a tournament game always has a clock: no-shows lose on time)."""

    match_length: int
    move_seconds: int | None = None
    delay_seconds: int | None = None
    bank_seconds_per_point: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON form stored in ``rounds_settings``."""
        return {
            "match_length": self.match_length, "move_seconds": self.move_seconds,
            "delay_seconds": self.delay_seconds, "bank_seconds_per_point": self.bank_seconds_per_point,
        }


@dataclass(frozen=True, slots=True)
class NewTournament:
    """What an organiser asks for (checked by the API against the variants, clocks and limits)."""

    name: str
    format: str
    start_kind: str
    variant: str
    options: dict[str, Any]
    default: RoundSettings
    per_round: tuple[RoundSettings, ...] = ()
    rounds: int | None = None
    rated: bool = False
    max_players: int = 8
    min_players: int = 2
    season: str | None = None
    registration_opens_at: datetime | None = None
    starts_at: datetime | None = None
    bots_fill: bool = False
    bot_level: str | None = None
    fill_after_seconds: int | None = None


class TournamentService:
    """Creates tournaments, registers players, and advances rounds (one process at a time, under a lease)."""

    def __init__(
        self, *, db: DatabaseThreads, tables: TableService, clock: Clock, process_id: str,
        sweep_seconds: float = SWEEP_SECONDS, max_open_per_user: int = 3,
    ) -> None:
        self._db = db
        self._tables = tables
        self._clock = clock
        self._process_id = process_id
        self.max_open_per_user = max_open_per_user
        """How many tournaments one account may have waiting to start."""
        self._sweeps = Periodic(self.sweep, sweep_seconds, name="tournament sweep")

    # ----- lifecycle

    async def start(self) -> None:
        """Start the periodic sweep."""
        self._sweeps.start()

    async def stop(self) -> None:
        """Stop the sweep."""
        await self._sweeps.stop()

    async def sweep(self) -> None:
        """Advance every open tournament that has something to do now and that no other process holds.

        What to do is first found by reading alone, so a tournament waiting for
        players or for its tables' matches costs no write per sweep.
        """
        now = self._clock.now()
        for tournament_id in await self._db.run(partial(tournament_steps.with_work, now=now)):
            await self.advance(tournament_id)

    # ----- organising and registering

    async def create(self, user: User, new: NewTournament) -> str:
        """A new tournament organised by ``user`` (an account, within :attr:`max_open_per_user`); its id."""
        if user.is_guest:
            raise TournamentError("account_required", "sign up to organise tournaments")
        now = self._clock.now()
        tournament_id = secrets.token_urlsafe(9)
        row = Tournament(
            id=tournament_id, name=new.name, season=new.season, format=new.format, start_kind=new.start_kind,
            variant=new.variant, options=new.options,
            rounds_settings={"default": new.default.as_dict(), "rounds": [r.as_dict() for r in new.per_round]},
            rounds=new.rounds, rated=new.rated, max_players=new.max_players, min_players=new.min_players,
            registration_opens_at=new.registration_opens_at, starts_at=new.starts_at, bots_fill=new.bots_fill,
            bot_level=new.bot_level, fill_after_seconds=new.fill_after_seconds, status="registering",
            current_round=0, created_by=user.id, created_at=now,
        )

        def add(db: Session) -> None:
            registering = owner_caps.Cap(
                "registering", lambda session: tournaments_repo.registering_by(session, user.id),
                self.max_open_per_user,
            )
            if owner_caps.add_within_caps(db, row, owner_id=user.id, caps=(registering,)) is not None:
                raise TournamentError(
                    "too_many_tournaments",
                    f"you already organise {self.max_open_per_user} tournaments that have not started",
                )

        await self._db.run(add)
        return tournament_id

    async def register(self, tournament_id: str, user: User) -> None:
        """Enter ``user`` (an account) while registration is open and there is room; the start may follow at once."""
        if user.is_guest:
            raise TournamentError("account_required", "sign up to play in tournaments")
        now = self._clock.now()
        await self._db.run(partial(tournament_steps.register_entry, tournament_id=tournament_id, user=user, now=now))
        await self.advance(tournament_id, patience=REQUEST_PATIENCE)

    async def withdraw(self, tournament_id: str, user: User) -> None:
        """Withdraw ``user``: before the start the entry goes; once started they forfeit the match being played
        and are paired no more (a knockout opponent, or a round robin one, wins by forfeit)."""
        now = self._clock.now()
        table_id = await self._db.run(partial(
            tournament_steps.withdraw_entry, tournament_id=tournament_id, user_id=user.id, now=now,
        ))
        if table_id is not None:
            try:
                await self._tables.act(
                    table_id, user_id=user.id, action={"t": "leave"}, action_id=f"withdraw-{tournament_id}",
                )
            except ActionError as error:  # the match ended meanwhile: its result stands
                log.info("withdrawal from table %s left nothing to forfeit: %s", table_id, error)
        await self.advance(tournament_id, patience=REQUEST_PATIENCE)

    async def cancel(self, tournament_id: str, user: User) -> None:
        """The organiser calls the tournament off while it is still registering."""
        await self._as_organiser(tournament_id, user, "cancel", partial(
            tournament_steps.cancel, tournament_id=tournament_id, user_id=user.id, now=self._clock.now(),
        ))

    async def edit(self, tournament_id: str, user: User, changes: dict[str, Any]) -> None:
        """The organiser changes the name, the season, the places or the times before the start
        (:func:`~nardy.server.services.tournament_steps.edit`); fewer places may fill a sit-and-go, which then
        starts at once."""
        await self._as_organiser(tournament_id, user, "change", partial(
            tournament_steps.edit, tournament_id=tournament_id, user_id=user.id, changes=changes, now=self._clock.now(),
        ))
        await self.advance(tournament_id, patience=REQUEST_PATIENCE)

    async def _as_organiser(self, tournament_id: str, user: User, doing: str, step: Callable[[Session], None]) -> None:
        """Run ``step`` (which checks again that ``user`` organised the tournament and it has not started) under
        the tournament's lease, so that no process starts it meanwhile; refused first, without the lease, for
        anyone else."""
        await self._db.run(partial(
            tournament_steps.check_organiser_before_start, tournament_id=tournament_id, user_id=user.id, doing=doing,
        ))
        if not await self._claim(tournament_id, REQUEST_PATIENCE):
            raise TournamentError("busy", "the tournament is being moved on: try again")
        try:
            await self._db.run(step)
        finally:
            await self._db.run(partial(tournaments_repo.release, tournament_id=tournament_id, owner=self._process_id))

    # ----- reading

    async def view(self, tournament_id: str, viewer_id: int | None = None) -> dict[str, Any]:
        """The tournament page's data: settings, entries, rounds with tables and results, standings."""
        return await self._db.run(partial(tournament_views.view, tournament_id=tournament_id, viewer_id=viewer_id))

    async def listing(self) -> dict[str, list[dict[str, Any]]]:
        """Upcoming (registering), running and recently finished tournaments."""
        return await self._db.run(tournament_views.listing)

    async def protocol(self, tournament_id: str) -> dict[str, Any]:
        """The game protocol (001) of every tournament game played so far."""
        return await self._db.run(partial(tournament_views.protocol, tournament_id=tournament_id))

    async def protocol_mat(self, tournament_id: str) -> str:
        """Every match played so far as .mat text, round by round."""
        matches = await self._db.run(partial(tournament_views.matches, tournament_id=tournament_id))
        return protocol_mat(matches)

    # ----- advancing

    async def advance(self, tournament_id: str, *, patience: float = 0.0) -> bool:
        """Move the tournament on as far as it can go now, if this process gets its lease; False if it did not.

        With ``patience`` a lease held elsewhere is tried again for that many
        seconds: a request that registered or withdrew a player then sees the
        tournament moved on, even when a sweep held it at that moment.
        """
        if not await self._claim(tournament_id, patience):
            return False
        try:
            for _ in range(3):  # a table that ends as it opens (a forfeit) may decide the round at once
                to_open = await self._db.run(partial(
                    tournament_steps.settle, tournament_id=tournament_id, now=self._clock.now(),
                ))
                if not to_open:
                    break
                for pairing in to_open:
                    await self._open(pairing)
        finally:
            await self._db.run(partial(tournaments_repo.release, tournament_id=tournament_id, owner=self._process_id))
        return True

    async def _claim(self, tournament_id: str, patience: float) -> bool:
        """Take the tournament's lease, trying again for ``patience`` seconds while another process holds it."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + patience
        while True:
            now = self._clock.now()
            if await self._db.run(partial(
                tournaments_repo.claim, tournament_id=tournament_id, owner=self._process_id, now=now,
                until=now + LEASE,
            )):
                return True
            if loop.time() >= give_up:
                return False
            await asyncio.sleep(CLAIM_RETRY_SECONDS)

    async def _open(self, pairing: ToOpen) -> None:
        def users(db: Session) -> list[User | str]:
            seated: list[User | str] = []
            for seat in pairing.seats:
                user = db.get(User, seat) if isinstance(seat, int) else None
                seated.append(user if user is not None else str(seat))
            return seated

        first, second = await self._db.run(users)
        state = await self._tables.open_between(first, second, spec=pairing.spec)
        linked = await self._db.run(partial(
            tournaments_repo.set_table, pairing_id=pairing.pairing_id, table_id=state.id,
        ))
        if not linked:
            log.warning("pairing %s already had a table; table %s is left unused", pairing.pairing_id, state.id)
