"""Tournaments (``docs/tournaments.md``): registration, rounds, tables, results and standings.

:class:`TournamentService` is the glue between the pure pairing functions
(:mod:`~nardy.server.services.tournament_pairing`), the tournament rows and the
table service. Every server process runs a sweep (every
``tournament_sweep_seconds``) over the tournaments still registering or
running; a request that may move one on (a registration, a withdrawal)
advances it at once too. To advance a tournament a process first takes its
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
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from nardy.rules import GameOptions
from nardy.server.services.clock import Clock
from nardy.server.services.database import DatabaseThreads
from nardy.server.services.ratings import family_of, standing_of
from nardy.server.services.table_state import ActionError, TableSpec
from nardy.server.services.tables import TableService, spec_from_row
from nardy.server.services.tournament_pairing import (
    Pairing,
    Result,
    knockout_first_round,
    knockout_next_round,
    knockout_rounds,
    knockout_standings,
    round_robin_rounds,
    standings,
    swiss_round,
)
from nardy.server.services.records import public_record
from nardy.server.services.tournament_protocol import MatchContext, match_protocol, protocol_mat
from nardy.store import tables_repo, tournaments_repo
from nardy.store.models import GameTable, Tournament, TournamentEntry, TournamentPairing, User

log = logging.getLogger(__name__)

FORMATS = ("knockout", "swiss", "round_robin")
START_KINDS = ("sit_and_go", "scheduled")

LEASE = timedelta(seconds=60)
"""How long a process holds a tournament it advances; a process that died holding it loses it after this."""

CLAIM_RETRY_SECONDS = 0.05
"""How long a request waits before trying again for a tournament's lease another process holds."""

REQUEST_PATIENCE = 3.0
"""How long a registration or a withdrawal waits for the lease to move the tournament on itself."""

SWEEP_SECONDS = 2.0
"""How often each process looks at the open tournaments (the default of ``tournament_sweep_seconds``)."""


class TournamentError(ValueError):
    """A request the tournament cannot honour; ``code`` says which (the API maps it to a status)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


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


@dataclass(frozen=True, slots=True)
class ToOpen:
    """A pairing that needs its table: who sits in seat 0 and seat 1 (a user id, or a computer level)."""

    pairing_id: int
    seats: tuple[int | str, int | str]
    spec: TableSpec


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
        self._sweep_seconds = sweep_seconds
        self.max_open_per_user = max_open_per_user
        """How many tournaments one account may have waiting to start."""
        self._task: asyncio.Task[None] | None = None

    # ----- lifecycle

    async def start(self) -> None:
        """Start the periodic sweep."""
        self._task = asyncio.create_task(self._sweep_periodically(), name="nardy-tournaments")

    async def stop(self) -> None:
        """Stop the sweep."""
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None

    async def _sweep_periodically(self) -> None:
        while True:
            await asyncio.sleep(self._sweep_seconds)
            try:
                await self.sweep()
            except Exception:  # noqa: BLE001 - one failed sweep must not stop the tournaments
                log.exception("tournament sweep failed")

    async def sweep(self) -> None:
        """Advance every open tournament that has something to do now and that no other process holds.

        What to do is first found by reading alone, so a tournament waiting for
        players or for its tables' matches costs no write per sweep.
        """
        now = self._clock.now()
        for tournament_id in await self._db.run(partial(_with_work, now=now)):
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
            if tournaments_repo.registering_by(db, user.id) >= self.max_open_per_user:
                raise TournamentError(
                    "too_many_tournaments",
                    f"you already organise {self.max_open_per_user} tournaments that have not started",
                )
            db.add(row)
            db.commit()

        await self._db.run(add)
        return tournament_id

    async def register(self, tournament_id: str, user: User) -> None:
        """Enter ``user`` (an account) while registration is open and there is room; the start may follow at once."""
        if user.is_guest:
            raise TournamentError("account_required", "sign up to play in tournaments")
        now = self._clock.now()
        await self._db.run(partial(_register, tournament_id=tournament_id, user=user, now=now))
        await self.advance(tournament_id, patience=REQUEST_PATIENCE)

    async def withdraw(self, tournament_id: str, user: User) -> None:
        """Withdraw ``user``: before the start the entry goes; once started they forfeit the match being played
        and are paired no more (a knockout opponent, or a round robin one, wins by forfeit)."""
        now = self._clock.now()
        table_id = await self._db.run(partial(_withdraw, tournament_id=tournament_id, user_id=user.id, now=now))
        if table_id is not None:
            try:
                await self._tables.act(
                    table_id, user_id=user.id, action={"t": "leave"}, action_id=f"withdraw-{tournament_id}",
                )
            except ActionError as error:  # the match ended meanwhile: its result stands
                log.info("withdrawal from table %s left nothing to forfeit: %s", table_id, error)
        await self.advance(tournament_id, patience=REQUEST_PATIENCE)

    # ----- reading

    async def view(self, tournament_id: str, viewer_id: int | None = None) -> dict[str, Any]:
        """The tournament page's data: settings, entries, rounds with tables and results, standings."""
        return await self._db.run(partial(_view, tournament_id=tournament_id, viewer_id=viewer_id))

    async def listing(self) -> dict[str, list[dict[str, Any]]]:
        """Upcoming (registering), running and recently finished tournaments."""
        return await self._db.run(_listing)

    async def protocol(self, tournament_id: str) -> dict[str, Any]:
        """The game protocol (001) of every tournament game played so far."""
        return await self._db.run(partial(_protocol, tournament_id=tournament_id))

    async def protocol_mat(self, tournament_id: str) -> str:
        """Every match played so far as .mat text, round by round."""
        matches = await self._db.run(partial(_matches, tournament_id=tournament_id))
        return protocol_mat(matches)

    # ----- advancing

    async def advance(self, tournament_id: str, *, patience: float = 0.0) -> bool:
        """Move the tournament on as far as it can go now, if this process gets its lease; False if it did not.

        With ``patience`` a lease held elsewhere is tried again for that many
        seconds: a request that registered or withdrew a player then sees the
        tournament moved on, even when a sweep held it at that moment.
        """
        loop = asyncio.get_running_loop()
        give_up = loop.time() + patience
        while True:
            now = self._clock.now()
            claimed = await self._db.run(partial(
                tournaments_repo.claim, tournament_id=tournament_id, owner=self._process_id, now=now,
                until=now + LEASE,
            ))
            if claimed:
                break
            if loop.time() >= give_up:
                return False
            await asyncio.sleep(CLAIM_RETRY_SECONDS)
        try:
            for _ in range(3):  # a table that ends as it opens (a forfeit) may decide the round at once
                to_open = await self._db.run(partial(_settle, tournament_id=tournament_id, now=self._clock.now()))
                if not to_open:
                    break
                for pairing in to_open:
                    await self._open(pairing)
        finally:
            await self._db.run(partial(tournaments_repo.release, tournament_id=tournament_id, owner=self._process_id))
        return True

    async def _open(self, pairing: ToOpen) -> None:
        def users(db: Session) -> list[User | str]:
            seated: list[User | str] = []
            for seat in pairing.seats:
                user = db.get(User, seat) if isinstance(seat, int) else None
                seated.append(user if user is not None else str(seat))
            return seated

        first, second = await self._db.run(users)
        state = await self._tables.open_between(first, second, spec=pairing.spec)
        if not await self._db.run(partial(tournaments_repo.set_table, pairing_id=pairing.pairing_id, table_id=state.id)):
            log.warning("pairing %s already had a table; table %s is left unused", pairing.pairing_id, state.id)


# ----------------------------------------------------------------- in a database session


def _get(db: Session, tournament_id: str) -> Tournament:
    tournament = tournaments_repo.get(db, tournament_id)
    if tournament is None:
        raise TournamentError("no_such_tournament", f"there is no tournament {tournament_id!r}")
    return tournament


def _summary(db: Session, tournament: Tournament) -> dict[str, Any]:
    entries = [e for e in tournaments_repo.entries(db, tournament.id) if e.withdrawn_at is None]
    organiser = db.get(User, tournament.created_by) if tournament.created_by is not None else None
    return {
        "id": tournament.id, "name": tournament.name, "season": tournament.season, "format": tournament.format,
        "start_kind": tournament.start_kind, "variant": tournament.variant, "rated": tournament.rated,
        "status": tournament.status, "players": len(entries), "max_players": tournament.max_players,
        "min_players": tournament.min_players, "current_round": tournament.current_round,
        "rounds": tournament.rounds, "starts_at": _iso(tournament.starts_at),
        "registration_opens_at": _iso(tournament.registration_opens_at), "bots_fill": tournament.bots_fill,
        "bot_level": tournament.bot_level, "fill_after_seconds": tournament.fill_after_seconds,
        "organiser": organiser.username if organiser is not None else None,
        "created_at": _iso(tournament.created_at), "started_at": _iso(tournament.started_at),
        "finished_at": _iso(tournament.finished_at),
        "match_length": tournament.rounds_settings["default"]["match_length"],
    }


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _listing(db: Session) -> dict[str, list[dict[str, Any]]]:
    return {
        "upcoming": [_summary(db, t) for t in tournaments_repo.listing(db, ("registering",), limit=100)],
        "running": [_summary(db, t) for t in tournaments_repo.listing(db, ("running",), limit=100)],
        "finished": [_summary(db, t) for t in tournaments_repo.finished(db, limit=30)],
    }


def _view(db: Session, *, tournament_id: str, viewer_id: int | None) -> dict[str, Any]:
    tournament = _get(db, tournament_id)
    entries = {e.id: e for e in tournaments_repo.entries(db, tournament_id)}
    pairings = tournaments_repo.pairings(db, tournament_id)
    tables = tournaments_repo.tables_of(db, [p.table_id for p in pairings if p.table_id])

    def side(entry_id: int | None) -> dict[str, Any] | None:
        if entry_id is None:
            return None
        entry = entries[entry_id]
        return {"entry": entry.id, "name": entry.name, "seed": entry.seed, "bot": entry.bot_level}

    rounds: list[dict[str, Any]] = []
    for pairing in pairings:
        if not rounds or rounds[-1]["round"] != pairing.round:
            rounds.append({"round": pairing.round, "settings": round_settings(tournament, pairing.round),
                           "pairings": []})
        table = tables.get(pairing.table_id) if pairing.table_id else None
        rounds[-1]["pairings"].append({
            "id": pairing.id, "board": pairing.board, "a": side(pairing.entry_a), "b": side(pairing.entry_b),
            "table": pairing.table_id, "table_status": table.status if table is not None else None,
            "score": (table.score or {}).get("score") if table is not None else None,
            "winner": pairing.winner, "result": pairing.result,
        })
    mine = next((e for e in entries.values() if viewer_id is not None and e.user_id == viewer_id), None)
    return {
        **_summary(db, tournament),
        "options": tournament.options,
        "settings": tournament.rounds_settings,
        "entries": [
            {"entry": e.id, "name": e.name, "seed": e.seed, "bot": e.bot_level,
             "withdrawn": e.withdrawn_at is not None}
            for e in sorted(entries.values(), key=lambda e: (e.seed or 0, e.id))
        ],
        "rounds_played": rounds,
        "standings": (tournament.standings or {}).get("rows")
        or (standing_rows(tournament, entries, pairings) if tournament.status == "running" else []),
        "me": {"registered": mine is not None and mine.withdrawn_at is None,
               "entry": mine.id if mine is not None else None},
    }


def _matches(db: Session, *, tournament_id: str) -> list[tuple[MatchContext, dict[str, Any]]]:
    """Each played pairing's context and table record, round by round."""
    tournament = _get(db, tournament_id)
    matches = []
    for pairing in tournaments_repo.pairings(db, tournament_id):
        if pairing.table_id is None:
            continue
        row = tables_repo.get_table(db, pairing.table_id)
        if row is None or row.status == "waiting":
            continue
        context = MatchContext(tournament.id, tournament.name, tournament.season, pairing.round, pairing.board,
                               pairing.table_id)
        matches.append((context, public_record(row.id, spec_from_row(row), tables_repo.events_after(db, row.id))))
    return matches


def _protocol(db: Session, *, tournament_id: str) -> dict[str, Any]:
    tournament = _get(db, tournament_id)
    games: list[dict[str, Any]] = []
    for context, record in _matches(db, tournament_id=tournament_id):
        games += match_protocol(context, record, first_number=len(games) + 1)
    return {"tournament": _summary(db, tournament), "games": games}


def _with_work(db: Session, *, now: datetime) -> list[str]:
    """The open tournaments with something to do: a start that is due, a round to record, pair or open."""
    due = []
    for tournament_id in tournaments_repo.open_ids(db):
        tournament = tournaments_repo.get(db, tournament_id)
        assert tournament is not None
        if tournament.status == "registering":
            if _start_due(db, tournament, now):
                due.append(tournament_id)
            continue
        current = [p for p in tournaments_repo.pairings(db, tournament_id) if p.round == tournament.current_round]
        tables = tournaments_repo.tables_of(db, [p.table_id for p in current if p.table_id and p.result is None])
        undecided = [p for p in current if p.result is None]
        if not undecided or any(
            p.table_id is None or (p.table_id in tables and tables[p.table_id].status == "finished")
            for p in undecided
        ):
            due.append(tournament_id)
    return due


def _register(db: Session, *, tournament_id: str, user: User, now: datetime) -> None:
    tournament = tournaments_repo.get(db, tournament_id)
    if tournament is None:
        raise TournamentError("no_such_tournament", f"there is no tournament {tournament_id!r}")
    if tournament.status != "registering":
        raise TournamentError("not_open", "registration is closed: the tournament has started")
    if tournament.registration_opens_at is not None and now < tournament.registration_opens_at:
        raise TournamentError("not_open", "registration has not opened yet")
    entries = tournaments_repo.entries(db, tournament_id)
    mine = next((e for e in entries if e.user_id == user.id), None)
    if mine is not None and mine.withdrawn_at is None:
        raise TournamentError("already_registered", "you are registered already")
    if sum(1 for e in entries if e.withdrawn_at is None) >= tournament.max_players:
        raise TournamentError("full", "the tournament is full")
    if mine is not None:
        mine.withdrawn_at = None
        mine.registered_at = now
    else:
        db.add(TournamentEntry(tournament_id=tournament_id, user_id=user.id, name=user.username, registered_at=now))
    try:
        db.commit()
    except IntegrityError:
        db.rollback()
        raise TournamentError("already_registered", "you are registered already") from None
    active = [e for e in tournaments_repo.entries(db, tournament_id) if e.withdrawn_at is None]
    active.sort(key=lambda e: (e.registered_at, e.id))
    late = [e for e in active[tournament.max_players:] if e.user_id == user.id]
    if late:  # others registered at the same moment, through another process, and came first
        db.delete(late[0])
        db.commit()
        raise TournamentError("full", "the tournament is full")


def _withdraw(db: Session, *, tournament_id: str, user_id: int, now: datetime) -> str | None:
    """Mark the entry withdrawn; the table of the match it is playing, if any, for the caller to forfeit."""
    tournament = tournaments_repo.get(db, tournament_id)
    if tournament is None:
        raise TournamentError("no_such_tournament", f"there is no tournament {tournament_id!r}")
    if tournament.status not in tournaments_repo.OPEN_STATUSES:
        raise TournamentError("not_open", "the tournament is over")
    entry = next((e for e in tournaments_repo.entries(db, tournament_id) if e.user_id == user_id), None)
    if entry is None or entry.withdrawn_at is not None:
        raise TournamentError("not_registered", "you are not registered")
    entry.withdrawn_at = now
    db.commit()
    playing = tournaments_repo.playing_pairing_of(db, tournament_id, entry.id)
    return playing.table_id if playing is not None else None


def _settle(db: Session, *, tournament_id: str, now: datetime) -> list[ToOpen]:
    """Start, record results, pair rounds and finish as far as possible now; the pairings needing a table."""
    tournament = tournaments_repo.get(db, tournament_id)
    if tournament is None:
        return []
    if tournament.status == "registering":
        if not _start_due(db, tournament, now):
            return []
        _start(db, tournament, now)
        if tournament.status != "running":
            db.commit()
            return []
    if tournament.status != "running":
        return []
    entries = {e.id: e for e in tournaments_repo.entries(db, tournament_id)}
    while True:
        all_pairings = tournaments_repo.pairings(db, tournament_id)
        current = [p for p in all_pairings if p.round == tournament.current_round]
        _record_results(db, current, entries, now)
        if current and any(p.result is None for p in current):
            break
        if _is_last_round(tournament, current):
            _finish(tournament, entries, all_pairings, now)
            break
        _pair_next_round(db, tournament, entries, all_pairings, now)
    db.commit()
    return [
        ToOpen(p.id, (_seat_of(entries[p.entry_a]), _seat_of(entries[p.entry_b])), round_spec(tournament, p.round))
        for p in tournaments_repo.pairings(db, tournament_id)
        if p.round == tournament.current_round and p.result is None and p.table_id is None and p.entry_b is not None
    ] if tournament.status == "running" else []


def _seat_of(entry: TournamentEntry) -> int | str:
    if entry.user_id is not None:
        return entry.user_id
    assert entry.bot_level is not None
    return entry.bot_level


def _start_due(db: Session, tournament: Tournament, now: datetime) -> bool:
    active = [e for e in tournaments_repo.entries(db, tournament.id) if e.withdrawn_at is None]
    if tournament.start_kind == "scheduled":
        return tournament.starts_at is not None and now >= tournament.starts_at
    if len(active) >= tournament.max_players:
        return True
    if not tournament.bots_fill or not active:
        return False
    first = min(e.registered_at for e in active)
    return now >= first + timedelta(seconds=tournament.fill_after_seconds or 0)


def _start(db: Session, tournament: Tournament, now: datetime) -> None:
    """Fill with computer players where allowed, seed, and begin; cancel with too few players."""
    entries = tournaments_repo.entries(db, tournament.id)
    for entry in entries:
        if entry.withdrawn_at is not None:
            db.delete(entry)
    active = [e for e in entries if e.withdrawn_at is None]
    if tournament.start_kind == "sit_and_go" and tournament.bots_fill and tournament.bot_level:
        for number in range(1, tournament.max_players - len(active) + 1):
            bot = TournamentEntry(
                tournament_id=tournament.id, bot_level=tournament.bot_level, name=f"Computer {number}",
                registered_at=now,
            )
            db.add(bot)
            active.append(bot)
    if len(active) < max(2, tournament.min_players):
        tournament.status = "cancelled"
        tournament.finished_at = now
        return
    family = family_of(tournament.variant)

    def rating(entry: TournamentEntry) -> float:
        return standing_of(db, entry.user_id, family).rating if entry.user_id is not None else float("-inf")

    ratings = {id(e): rating(e) for e in active}
    active.sort(key=lambda e: (-ratings[id(e)], e.registered_at, e.id or 0))
    for seed, entry in enumerate(active, start=1):
        entry.seed = seed
    tournament.status = "running"
    tournament.started_at = now
    tournament.current_round = 0
    if tournament.format == "knockout":
        tournament.rounds = knockout_rounds(len(active))
    elif tournament.format == "round_robin":
        tournament.rounds = len(round_robin_rounds(list(range(len(active)))))
    else:
        tournament.rounds = min(tournament.rounds or knockout_rounds(len(active)), len(active) - 1 + len(active) % 2)
    db.flush()


def _record_results(
    db: Session, current: Sequence[TournamentPairing], entries: dict[int, TournamentEntry], now: datetime,
) -> None:
    """Decide the round's pairings that can be: finished tables, and withdrawn players' matches with no table."""
    tables = tournaments_repo.tables_of(db, [p.table_id for p in current if p.table_id and p.result is None])
    for pairing in current:
        if pairing.result is not None:
            continue
        if pairing.table_id is not None:
            table = tables.get(pairing.table_id)
            if table is None or table.status != "finished":
                continue
            pairing.winner = _table_winner(pairing, table)
            pairing.result = "played" if pairing.winner is not None else "no_result"
            pairing.finished_at = now
            continue
        assert pairing.entry_b is not None  # a bye is decided when paired
        present = [e for e in (pairing.entry_a, pairing.entry_b) if entries[e].withdrawn_at is None]
        if len(present) < 2:
            pairing.winner = present[0] if present else None
            pairing.result = "forfeit" if present else "no_result"
            pairing.finished_at = now


def _table_winner(pairing: TournamentPairing, table: GameTable) -> int | None:
    """The entry that won the pairing's table (entry ``a`` sits in seat 0)."""
    if table.winner == 0:
        return pairing.entry_a
    if table.winner == 1:
        return pairing.entry_b
    return None


def _is_last_round(tournament: Tournament, current: Sequence[TournamentPairing]) -> bool:
    if tournament.current_round == 0:
        return False
    if tournament.format == "knockout":
        return len(current) == 1
    assert tournament.rounds is not None
    return tournament.current_round >= tournament.rounds


def _results(pairings: Sequence[TournamentPairing]) -> list[Result]:
    return [Result(p.entry_a, p.entry_b, p.winner) for p in pairings if p.result is not None]


def _seeded(entries: dict[int, TournamentEntry]) -> list[int]:
    return [e.id for e in sorted(entries.values(), key=lambda e: (e.seed or 0, e.id))]


def _pair_next_round(
    db: Session, tournament: Tournament, entries: dict[int, TournamentEntry],
    pairings: Sequence[TournamentPairing], now: datetime,
) -> None:
    """Write the next round's pairings; a bye is decided at once (a withdrawn player's wins nothing)."""
    number = tournament.current_round + 1
    seeded = _seeded(entries)
    made: list[Pairing]
    if tournament.format == "knockout":
        if number == 1:
            made = knockout_first_round(seeded)
        else:
            last = [p for p in pairings if p.round == tournament.current_round]
            made = knockout_next_round([p.winner if p.winner is not None else p.entry_a for p in last])
    elif tournament.format == "round_robin":
        made = round_robin_rounds(seeded)[number - 1]
    else:
        ranked = [s.player for s in standings(seeded, _results(pairings)) if entries[s.player].withdrawn_at is None]
        made = swiss_round(ranked, _results(pairings))
    tournament.current_round = number
    for board, (a, b) in enumerate(made, start=1):
        bye = b is None
        scores = bye and entries[a].withdrawn_at is None
        db.add(TournamentPairing(
            tournament_id=tournament.id, round=number, board=board, entry_a=a, entry_b=b,
            winner=a if scores else None, result="bye" if bye else None, finished_at=now if bye else None,
        ))
    db.flush()


def _finish(
    tournament: Tournament, entries: dict[int, TournamentEntry], pairings: Sequence[TournamentPairing], now: datetime,
) -> None:
    tournament.status = "finished"
    tournament.finished_at = now
    tournament.standings = {"rows": standing_rows(tournament, entries, pairings)}


def standing_rows(
    tournament: Tournament, entries: dict[int, TournamentEntry], pairings: Sequence[TournamentPairing],
) -> list[dict[str, Any]]:
    """The standings as rows (rank, entry, name, points, Buchholz, Sonneborn-Berger, wins, losses, byes).

    A knockout ranks by the round a player went out in (the winner first); a
    Swiss or a round robin by :func:`~nardy.server.services.tournament_pairing.standings`.
    """
    seeded = _seeded(entries)
    table = {s.player: s for s in standings(seeded, _results(pairings))}
    if tournament.format == "knockout":
        by_round = [_results([p for p in pairings if p.round == r]) for r in range(1, tournament.current_round + 1)]
        order = knockout_standings(seeded, by_round)
    else:
        order = [s.player for s in sorted(table.values(), key=lambda s: s.rank)]
    rows = []
    for rank, entry_id in enumerate(order, start=1):
        line, entry = table[entry_id], entries[entry_id]
        rows.append({
            "rank": rank, "entry": entry_id, "name": entry.name, "bot": entry.bot_level, "seed": entry.seed,
            "withdrawn": entry.withdrawn_at is not None, "points": line.points, "buchholz": line.buchholz,
            "sonneborn_berger": line.sonneborn_berger, "wins": line.wins, "losses": line.losses, "byes": line.byes,
        })
    return rows


def round_settings(tournament: Tournament, number: int) -> dict[str, Any]:
    """Round ``number``'s match length and clock: its own where the organiser set them, else the default."""
    settings: dict[str, Any] = dict(tournament.rounds_settings["default"])
    per_round = tournament.rounds_settings.get("rounds") or []
    if 0 < number <= len(per_round):
        settings.update(per_round[number - 1])
    return settings


def round_spec(tournament: Tournament, number: int) -> TableSpec:
    """The table spec of round ``number``'s matches."""
    settings = round_settings(tournament, number)
    options = dict(tournament.options)
    final = options.pop("moves_final", None)
    return TableSpec(
        variant=tournament.variant, match_length=int(settings["match_length"]), options=GameOptions(**options),
        move_seconds=settings.get("move_seconds"), delay_seconds=settings.get("delay_seconds"),
        bank_seconds_per_point=settings.get("bank_seconds_per_point"), rated=tournament.rated, final=final,
    )
