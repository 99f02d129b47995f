"""The home page's queries on both databases: the people at tables and the games being played
(``tables_repo.site_activity``), the public matches between people that may be featured
(``tables_repo.live_public_matches``) and the players' ratings by family (``ratings_repo.ratings_by_user``)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from nardy.store import ratings_repo, tables_repo
from nardy.store.db import make_engine, make_sessionmaker
from nardy.store.migrate import upgrade
from nardy.store.models import GameTable, Rating, User
from tests.databases import database_url, postgresql_url, sqlite_url  # noqa: F401  (fixtures)

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


def table(name: str, status: str, seats: tuple[int | None, int | None], minutes: int, **fields: Any) -> GameTable:
    return GameTable(id=name, variant="georgian", match_length=3, options={}, status=status,
                     player0_id=seats[0], player1_id=seats[1], created_at=NOW + timedelta(minutes=minutes), **fields)


@pytest.fixture
def db(database_url: str) -> Iterator[Session]:
    """Five users at: a match being played (1, 2), a newer one (2, 3), a private one (3, 4), a game against the
    computer (5), a table waiting (4), a finished match (1, 5) and a chouette being played."""
    upgrade(database_url)
    engine: Engine = make_engine(database_url)
    with make_sessionmaker(engine)() as session:
        users = [User(username=f"user{n}", created_at=NOW) for n in range(1, 6)]
        session.add_all(users)
        session.flush()
        one, two, three, four, five = (user.id for user in users)
        session.add_all([
            table("older", "playing", (one, two), 1),
            table("newer", "playing", (two, three), 2),
            table("private", "playing", (three, four), 3, private=True),
            table("computer", "playing", (five, None), 4, bot_seat=1, bot_level="random"),
            table("waiting", "waiting", (four, None), 5),
            table("finished", "finished", (one, five), 6),
            table("chouette", "playing", (None, None), 7, kind="chouette"),
        ])
        session.add_all([
            Rating(user_id=one, family="georgian", rating=1700.0, experience=10, matches=2, updated_at=NOW),
            Rating(user_id=one, family="long", rating=1400.0, experience=10, matches=2, updated_at=NOW),
        ])
        session.commit()
        yield session
    engine.dispose()


def test_the_people_at_tables_and_the_games_being_played_are_counted(db: Session) -> None:
    activity = tables_repo.site_activity(db)
    assert activity.players == 5  # 1, 2, 3, 4 (private and waiting count), 5 (against the computer)
    assert activity.games == 5    # older, newer, private, computer, chouette


def test_only_public_matches_between_people_are_candidates_newest_first(db: Session) -> None:
    assert [row.id for row in tables_repo.live_public_matches(db)] == ["newer", "older"]
    assert [row.id for row in tables_repo.live_public_matches(db, limit=1)] == ["newer"]


def test_ratings_come_by_user_and_family_in_one_query(db: Session) -> None:
    one = db.query(User).filter_by(username="user1").one().id
    two = db.query(User).filter_by(username="user2").one().id
    assert ratings_repo.ratings_by_user(db, {one, two}) == {(one, "georgian"): 1700.0, (one, "long"): 1400.0}
    assert ratings_repo.ratings_by_user(db, set()) == {}
