"""Imported matches are kept within their owner's caps, also when uploads arrive at the same instant."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session, sessionmaker

from nardy.store import imports_repo
from nardy.store.db import make_engine
from nardy.store.migrate import upgrade
from nardy.store.models import ImportedMatch, User

RACERS = 6


@pytest.fixture
def sessions(database_url: str) -> Iterator[sessionmaker[Session]]:
    upgrade(database_url)
    engine: Engine = make_engine(database_url)
    with Session(engine) as db:
        db.add(User(username="judy", created_at=datetime.now(UTC)))
        db.commit()
    yield sessionmaker(engine)
    engine.dispose()


def _import(name: str, owner: int, status: str = "queued") -> ImportedMatch:
    now = datetime.now(UTC)
    return ImportedMatch(
        id=name, owner_id=owner, name=f"{name}.mat", variant="backgammon", match_length=1, players=["a", "b"],
        games=1, record={}, created_at=now, level="expert", status=status, progress=0.0, requested_at=now,
    )


def _owner(sessions: sessionmaker[Session]) -> int:
    with sessions() as db:
        owner: int = db.scalar(select(User.id))
        return owner


def _race(sessions: sessionmaker[Session], owner: int, *, kept: int, unfinished: int) -> list[str | None]:
    """``RACERS`` uploads of one owner, released together, each in its own session and thread."""
    start = threading.Barrier(RACERS)

    def upload(index: int) -> str | None:
        with sessions() as db:
            db.scalar(select(User.id).where(User.id == owner))  # the route has read the user before
            start.wait()
            return imports_repo.add_within_caps(db, _import(f"m{index}", owner), kept=kept, unfinished=unfinished)

    with ThreadPoolExecutor(RACERS) as pool:
        return list(pool.map(upload, range(RACERS)))


def _kept(sessions: sessionmaker[Session]) -> int:
    with sessions() as db:
        return db.scalar(select(func.count()).select_from(ImportedMatch)) or 0


def test_uploads_at_once_pass_the_unfinished_cap_no_further(sessions: sessionmaker[Session]) -> None:
    outcomes = _race(sessions, _owner(sessions), kept=100, unfinished=2)
    assert sorted(outcomes, key=str) == [None, None] + ["unfinished"] * (RACERS - 2)
    assert _kept(sessions) == 2


def test_uploads_at_once_pass_the_kept_cap_no_further(sessions: sessionmaker[Session]) -> None:
    owner = _owner(sessions)
    with sessions() as db:
        db.add_all(_import(f"done{index}", owner, status="done") for index in range(3))
        db.commit()
    outcomes = _race(sessions, owner, kept=4, unfinished=100)
    assert sorted(outcomes, key=str) == [None] + ["kept"] * (RACERS - 1)
    assert _kept(sessions) == 4


def test_a_refused_import_leaves_nothing(sessions: sessionmaker[Session]) -> None:
    owner = _owner(sessions)
    with sessions() as db:
        assert imports_repo.add_within_caps(db, _import("first", owner), kept=1, unfinished=1) is None
        assert imports_repo.add_within_caps(db, _import("second", owner), kept=1, unfinished=1) == "kept"
        assert db.get(ImportedMatch, "second") is None
    assert _kept(sessions) == 1
