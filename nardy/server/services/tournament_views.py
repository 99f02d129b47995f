"""What the tournament pages and the protocol export read: summaries, a tournament's view, its matches.

Each function runs in a database session (a worker thread) and only reads.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from nardy.server.services.records import public_record
from nardy.server.services.tables import spec_from_row
from nardy.server.services.tournament_protocol import MatchContext, match_protocol
from nardy.server.services.tournament_steps import TournamentError, round_settings, standing_rows
from nardy.store import tables_repo, tournaments_repo
from nardy.store.models import Tournament, User


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


def listing(db: Session) -> dict[str, list[dict[str, Any]]]:
    """Upcoming (registering), running and the latest finished or cancelled tournaments, as summaries."""
    return {
        "upcoming": [_summary(db, t) for t in tournaments_repo.listing(db, ("registering",), limit=100)],
        "running": [_summary(db, t) for t in tournaments_repo.listing(db, ("running",), limit=100)],
        "finished": [_summary(db, t) for t in tournaments_repo.finished(db, limit=30)],
    }


def view(db: Session, *, tournament_id: str, viewer_id: int | None) -> dict[str, Any]:
    """A tournament's page: its summary, settings, entries, rounds with tables and results, standings, and
    whether the viewer is registered."""
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


def matches(db: Session, *, tournament_id: str) -> list[tuple[MatchContext, dict[str, Any]]]:
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


def protocol(db: Session, *, tournament_id: str) -> dict[str, Any]:
    """The game protocol (001) of every game of the tournament's tables, numbered in round and board order."""
    tournament = _get(db, tournament_id)
    games: list[dict[str, Any]] = []
    for context, record in matches(db, tournament_id=tournament_id):
        games += match_protocol(context, record, first_number=len(games) + 1)
    return {"tournament": _summary(db, tournament), "games": games}
