"""Rows kept within their owner's caps (imported matches, tournaments not yet started, tables waiting for
players), also when that owner's requests arrive at the same instant (nardy.store.owner_caps)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from functools import partial

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session, sessionmaker

from nardy.store import imports_repo, owner_caps, tables_repo, tournaments_repo
from nardy.store.db import make_engine
from nardy.store.migrate import upgrade
from nardy.store.models import GameTable, ImportedMatch, Tournament, User
from tests.databases import database_url, postgresql_url, sqlite_url  # noqa: F401  (fixtures)

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


def _race(sessions: sessionmaker[Session], owner: int, add: Callable[[Session, int], str | None]) -> list[str | None]:
    """``RACERS`` calls of ``add(db, index)`` for one owner, released together, each in its own session and thread."""
    start = threading.Barrier(RACERS)

    def one(index: int) -> str | None:
        with sessions() as db:
            db.scalar(select(User.id).where(User.id == owner))  # a route has read the user before
            start.wait()
            return add(db, index)

    with ThreadPoolExecutor(RACERS) as pool:
        return list(pool.map(one, range(RACERS)))


def _race_imports(sessions: sessionmaker[Session], owner: int, *, kept: int, unfinished: int) -> list[str | None]:
    return _race(sessions, owner, lambda db, index: imports_repo.add_within_caps(
        db, _import(f"m{index}", owner), kept=kept, unfinished=unfinished,
    ))


def _kept(
    sessions: sessionmaker[Session], model: type[ImportedMatch | Tournament | GameTable] = ImportedMatch,
) -> int:
    with sessions() as db:
        return db.scalar(select(func.count()).select_from(model)) or 0


def test_uploads_at_once_pass_the_unfinished_cap_no_further(sessions: sessionmaker[Session]) -> None:
    outcomes = _race_imports(sessions, _owner(sessions), kept=100, unfinished=2)
    assert sorted(outcomes, key=str) == [None, None] + ["unfinished"] * (RACERS - 2)
    assert _kept(sessions) == 2


def test_uploads_at_once_pass_the_kept_cap_no_further(sessions: sessionmaker[Session]) -> None:
    owner = _owner(sessions)
    with sessions() as db:
        db.add_all(_import(f"done{index}", owner, status="done") for index in range(3))
        db.commit()
    outcomes = _race_imports(sessions, owner, kept=4, unfinished=100)
    assert sorted(outcomes, key=str) == [None] + ["kept"] * (RACERS - 1)
    assert _kept(sessions) == 4


def test_only_a_kept_import_spends_what_on_kept_spends(sessions: sessionmaker[Session]) -> None:
    """The route spends one of the user's hourly analyses in ``on_kept``: an upload refused at a cap spends none."""
    owner = _owner(sessions)
    spent: list[str] = []
    with sessions() as db:
        for name in ("first", "second"):
            imports_repo.add_within_caps(db, _import(name, owner), kept=1, unfinished=1, on_kept=partial(spent.append, name))
    assert spent == ["first"]


def test_an_import_on_kept_refuses_is_rolled_back(sessions: sessionmaker[Session]) -> None:
    owner = _owner(sessions)

    def over_the_hourly_limit() -> None:
        raise RuntimeError("too many analyses requested")

    with sessions() as db, pytest.raises(RuntimeError, match="too many analyses"):
        imports_repo.add_within_caps(db, _import("refused", owner), kept=5, unfinished=5, on_kept=over_the_hourly_limit)
    assert _kept(sessions) == 0


def test_a_refused_import_leaves_nothing(sessions: sessionmaker[Session]) -> None:
    owner = _owner(sessions)
    with sessions() as db:
        assert imports_repo.add_within_caps(db, _import("first", owner), kept=1, unfinished=1) is None
        assert imports_repo.add_within_caps(db, _import("second", owner), kept=1, unfinished=1) == "kept"
        assert db.get(ImportedMatch, "second") is None
    assert _kept(sessions) == 1


def test_tournaments_created_at_once_pass_the_organiser_cap_no_further(sessions: sessionmaker[Session]) -> None:
    owner = _owner(sessions)

    def organise(db: Session, index: int) -> str | None:
        cap = owner_caps.Cap("registering", lambda session: tournaments_repo.registering_by(session, owner), 3)
        return owner_caps.add_within_caps(db, _tournament(f"t{index}", owner), owner_id=owner, caps=(cap,))

    outcomes = _race(sessions, owner, organise)
    assert sorted(outcomes, key=str) == [None] * 3 + ["registering"] * (RACERS - 3)
    assert _kept(sessions, Tournament) == 3


def _tournament(tournament_id: str, owner: int) -> Tournament:
    return Tournament(
        id=tournament_id, name=tournament_id, format="knockout", start_kind="sit_and_go", variant="backgammon",
        options={}, rounds_settings={"default": {}, "rounds": []}, max_players=8, min_players=2,
        status="registering", created_by=owner, created_at=datetime.now(UTC),
    )


def test_tables_opened_at_once_pass_the_waiting_cap_no_further(sessions: sessionmaker[Session]) -> None:
    """A new table counts as waiting before its creator's seat is written (it sits down just after)."""
    owner = _owner(sessions)
    with sessions() as db:
        db.add(_table("against-the-computer", owner, bot_seat=1))  # being set up, but waits for nobody
        db.commit()

    def open_table(db: Session, index: int) -> str | None:
        kept = tables_repo.add_waiting_table(db, _table(f"t{index}", owner), user_id=owner, cap=2)
        return None if kept else "waiting"

    outcomes = _race(sessions, owner, open_table)
    assert sorted(outcomes, key=str) == [None] * 2 + ["waiting"] * (RACERS - 2)
    assert _kept(sessions, GameTable) == 3


def _table(table_id: str, owner: int, bot_seat: int | None = None) -> GameTable:
    return GameTable(
        id=table_id, variant="backgammon", match_length=1, options={}, created_by=owner,
        created_at=datetime.now(UTC), status="waiting", version=0, bot_seat=bot_seat,
    )
