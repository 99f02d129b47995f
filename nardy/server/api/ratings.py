"""Ratings (004): leaderboards per variant family, a player's ratings and history, the rating graph."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from fastapi.responses import Response

from nardy.server.api.deps import DbSession
from nardy.server.services import ratings
from nardy.store import ratings_repo, users_repo
from nardy.store.models import User

router = APIRouter(prefix="/api", tags=["ratings"])


def _family(family: str) -> str:
    if family not in ratings.FAMILIES:
        raise HTTPException(404, f"no rating family {family!r}; families: {', '.join(ratings.FAMILIES)}")
    return family


def _user(db: DbSession, username: str) -> User:
    user = users_repo.by_name(db, username)
    if user is None:
        raise HTTPException(404, f"there is no player {username!r}")
    return user


@router.get("/ratings/{family}")
def leaderboard(family: str, db: DbSession) -> dict[str, Any]:
    """The top 100 of a family: username, rating, rated matches, and whether still provisional."""
    rows = ratings_repo.leaderboard(db, _family(family))
    return {"family": family, "players": [
        {"rank": rank, "username": name, "rating": round(row.rating, 2), "matches": row.matches,
         "experience": row.experience, "provisional": ratings.is_provisional(row.experience)}
        for rank, (name, row) in enumerate(rows, start=1)
    ]}


@router.get("/users/{username}/ratings")
def user_ratings(username: str, db: DbSession) -> dict[str, Any]:
    """A player's current rating per family (1500, provisional, if never rated) and their history."""
    user = _user(db, username)
    current = {row.family: row for row in ratings_repo.ratings_of(db, user.id)}
    families: dict[str, Any] = {}
    for family in ratings.FAMILIES:
        row = current.get(family)
        experience = row.experience if row is not None else 0
        families[family] = {
            "rating": round(row.rating, 2) if row is not None else ratings.START_RATING,
            "matches": row.matches if row is not None else 0, "experience": experience,
            "provisional": ratings.is_provisional(experience),
            "history": [
                {"table": change.table_id, "before": round(change.before, 2), "after": round(change.after, 2),
                 "at": change.at.isoformat()}
                for change in ratings_repo.history_of(db, user.id, family)
            ],
        }
    return {"user": user.username, "ratings": families}


@router.get("/users/{username}/ratings/{family}.svg")
def rating_graph(username: str, family: str, db: DbSession) -> Response:
    """The player's rating history in a family as an SVG line chart."""
    user = _user(db, username)
    history = ratings_repo.history_of(db, user.id, _family(family))
    svg = ratings.rating_svg([(c.at, c.after) for c in history], title=f"{user.username}: {family} rating")
    return Response(svg, media_type="image/svg+xml")
