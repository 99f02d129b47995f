"""``GET /api/home``: what the home page shows besides its forms: the people at tables and the games being
played now, and a featured live game (the strongest public match between people being played), to watch."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from nardy.rules import VARIANTS
from nardy.server.api.deps import DbSession
from nardy.server.services.ratings import START_RATING
from nardy.store import ratings_repo, tables_repo, users_repo
from nardy.store.models import GameTable

router = APIRouter(prefix="/api", tags=["home"])


def strongest(candidates: list[GameTable], ratings: dict[tuple[int, str], float]) -> GameTable | None:
    """The match whose two players' mean rating in its variant's family is highest (an unrated player counts as
    a newcomer's rating); among equals the first, the newest of the candidates."""
    def strength(row: GameTable) -> float:
        family = VARIANTS[row.variant].family
        seats = (row.player0_id, row.player1_id)
        return sum(ratings.get((user_id, family), START_RATING) for user_id in seats if user_id is not None) / 2

    return max(candidates, key=strength, default=None)


def featured_json(row: GameTable, names: dict[int, str], ratings: dict[tuple[int, str], float]) -> dict[str, Any]:
    """The featured match: its table, variant, length and clock, its players with their ratings, its score."""
    family = VARIANTS[row.variant].family
    seats = [user_id for user_id in (row.player0_id, row.player1_id) if user_id is not None]
    return {
        "table": row.id, "variant": row.variant, "match_length": row.match_length,
        "move_seconds": row.move_seconds, "delay_seconds": row.delay_seconds,
        "bank_seconds_per_point": row.bank_seconds_per_point, "rated": row.rated,
        "players": [names.get(user_id) for user_id in seats],
        "ratings": [round(ratings[(user_id, family)]) if (user_id, family) in ratings else None for user_id in seats],
        "score": (row.score or {}).get("score"),
    }


@router.get("/home")
def home(db: DbSession) -> dict[str, Any]:
    """Counts of the people at tables and of the games being played, and the featured live game (or null)."""
    activity = tables_repo.site_activity(db)
    candidates = tables_repo.live_public_matches(db)
    players = {user_id for row in candidates for user_id in (row.player0_id, row.player1_id) if user_id is not None}
    ratings = ratings_repo.ratings_by_user(db, players)
    featured = strongest(candidates, ratings)
    names = users_repo.names_by_id(db, players) if featured is not None else {}
    return {
        "players_online": activity.players,
        "games_playing": activity.games,
        "featured": featured_json(featured, names, ratings) if featured is not None else None,
    }
