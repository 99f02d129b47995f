"""What happens to a tournament in one database session: registration, withdrawal, the start, results,
the next round's pairings, the end (``docs/tournaments.md``).

:func:`settle` is the step the tournament service runs under the lease; it
returns the pairings that still need a table, which the service opens
outside the session. The pairing itself is
:mod:`~nardy.server.services.tournament_pairing`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from nardy.rules import GameOptions
from nardy.server.services.ratings import family_of, standing_of
from nardy.server.services.table_state import TableSpec
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
from nardy.store import tournaments_repo
from nardy.store.models import GameTable, Tournament, TournamentEntry, TournamentPairing, User


class TournamentError(ValueError):
    """A request the tournament cannot honour; ``code`` says which (the API maps it to a status)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class ToOpen:
    """A pairing that needs its table: who sits in seat 0 and seat 1 (a user id, or a computer level)."""

    pairing_id: int
    seats: tuple[int | str, int | str]
    spec: TableSpec


def with_work(db: Session, *, now: datetime) -> list[str]:
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


def register_entry(db: Session, *, tournament_id: str, user: User, now: datetime) -> None:
    """Enter ``user`` while registration is open and there is room (again, after withdrawing); TournamentError
    otherwise. Two processes filling the last place at once: the later registration is undone."""
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


def withdraw_entry(db: Session, *, tournament_id: str, user_id: int, now: datetime) -> str | None:
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


def check_organiser_before_start(db: Session, *, tournament_id: str, user_id: int, doing: str) -> Tournament:
    """The tournament, if ``user_id`` organised it and it has not started; TournamentError otherwise (saying
    what they could not ``doing``: cancel it, change it)."""
    tournament = tournaments_repo.get(db, tournament_id)
    if tournament is None:
        raise TournamentError("no_such_tournament", f"there is no tournament {tournament_id!r}")
    if tournament.created_by != user_id:
        raise TournamentError("not_organiser", f"only the organiser may {doing} the tournament")
    if tournament.status != "registering":
        raise TournamentError("not_open", f"the tournament has started or is over: nobody can {doing} it any more")
    return tournament


REGISTRATION_AFTER_START = "registration must open before the start"
"""The refusal of a registration that would open at or after the start (when nobody could register)."""

EDITABLE = frozenset({"name", "season", "max_players", "min_players", "starts_at", "registration_opens_at"})
"""What an organiser may change before the start. The game (variant, options, format, rounds, clocks,
rating) stays as the players registered for it."""


def edit(db: Session, *, tournament_id: str, user_id: int, changes: dict[str, Any], now: datetime) -> None:
    """The organiser changes some of :data:`EDITABLE` before the start (the caller holds the lease, so no start
    comes between); TournamentError naming the first change refused, and then nothing changes.

    The places cannot drop below the players registered, the minimum cannot
    pass the maximum, only a scheduled tournament has a start time, which
    must be in the future, and registration opens before the start.
    """
    unknown = set(changes) - EDITABLE
    if unknown:
        raise TournamentError("bad_change", f"these cannot be changed: {', '.join(sorted(unknown))}")
    tournament = check_organiser_before_start(db, tournament_id=tournament_id, user_id=user_id, doing="change")
    registered = sum(1 for e in tournaments_repo.entries(db, tournament_id) if e.withdrawn_at is None)
    max_players = changes.get("max_players", tournament.max_players)
    min_players = changes.get("min_players", tournament.min_players)
    if max_players < registered:
        raise TournamentError("too_few_places", f"{registered} players have registered: keep at least as many places")
    if min_players > max_players:
        raise TournamentError("bad_change", "min_players is more than max_players")
    if "starts_at" in changes:
        if tournament.start_kind != "scheduled":
            raise TournamentError("bad_change", "a sit-and-go starts when full: it takes no starts_at")
        if changes["starts_at"] is None or changes["starts_at"] <= now:
            raise TournamentError("bad_change", "the start must be in the future")
    opens = changes.get("registration_opens_at", tournament.registration_opens_at)
    starts = changes.get("starts_at", tournament.starts_at)
    if opens is not None and starts is not None and opens >= starts:
        raise TournamentError("bad_change", REGISTRATION_AFTER_START)
    for name, value in changes.items():
        setattr(tournament, name, value)
    db.commit()


def cancel(db: Session, *, tournament_id: str, user_id: int, now: datetime) -> None:
    """The organiser calls the tournament off before it starts (the caller holds its lease, so no start
    can come between); TournamentError for anyone else, or once it has started."""
    tournament = check_organiser_before_start(db, tournament_id=tournament_id, user_id=user_id, doing="cancel")
    tournament.status = "cancelled"
    tournament.finished_at = now
    db.commit()


def settle(db: Session, *, tournament_id: str, now: datetime) -> list[ToOpen]:
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
