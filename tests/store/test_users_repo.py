"""The users repository on both databases: a name found in any letter case, names by id, and login sessions
found, counted live and deleted by the digest of their token (nardy.store.users_repo)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from nardy.store import users_repo
from nardy.store.db import make_engine, make_sessionmaker
from nardy.store.migrate import upgrade
from nardy.store.models import LoginSession, User
from tests.databases import database_url, postgresql_url, sqlite_url  # noqa: F401  (fixtures)

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)


@pytest.fixture
def db(database_url: str) -> Iterator[Session]:
    """A session on a migrated database holding Bob, Ann, Bob's live session ``live`` and his expired ``old``."""
    upgrade(database_url)
    engine: Engine = make_engine(database_url)
    with make_sessionmaker(engine)() as session:
        bob, ann = User(username="Bob", created_at=NOW), User(username="ann_1", created_at=NOW)
        session.add_all([bob, ann])
        session.flush()
        for token_hash, expires_at in (("live", NOW + timedelta(days=1)), ("old", NOW - timedelta(seconds=1))):
            session.add(LoginSession(token_hash=token_hash, user_id=bob.id, csrf_token=token_hash,
                                     created_at=NOW - timedelta(days=2), expires_at=expires_at))
        session.commit()
        yield session
    engine.dispose()


def test_a_name_is_found_in_any_letter_case(db: Session) -> None:
    for asked in ("Bob", "bob", "BOB", "bOb"):
        found = users_repo.by_name(db, asked)
        assert found is not None and found.username == "Bob"
    assert users_repo.by_name(db, "bobby") is None
    assert users_repo.by_name(db, "bo") is None


def test_names_come_by_id_in_one_query_and_unknown_ids_are_left_out(db: Session) -> None:
    bob, ann = users_repo.by_name(db, "bob"), users_repo.by_name(db, "ANN_1")
    assert bob is not None and ann is not None
    assert users_repo.names_by_id(db, {bob.id, ann.id, 10_000}) == {bob.id: "Bob", ann.id: "ann_1"}
    assert users_repo.names_by_id(db, set()) == {}


def test_a_session_is_found_with_its_user_expired_or_not(db: Session) -> None:
    for token_hash in ("live", "old"):
        found = users_repo.signed_in_by(db, token_hash)
        assert found is not None
        user, login = found
        assert (user.username, login.token_hash) == ("Bob", token_hash)
    assert users_repo.signed_in_by(db, "never") is None


def test_only_sessions_not_yet_ended_are_live(db: Session) -> None:
    assert users_repo.live_token_hashes(db, ["live", "old", "never"], at=NOW) == {"live"}
    assert users_repo.live_token_hashes(db, ["live"], at=NOW + timedelta(days=2)) == set()


def test_a_deleted_session_is_gone_and_an_unknown_one_is_ignored(db: Session) -> None:
    users_repo.delete_session(db, "live")
    users_repo.delete_session(db, "never")
    db.commit()
    assert users_repo.signed_in_by(db, "live") is None
    assert users_repo.signed_in_by(db, "old") is not None
