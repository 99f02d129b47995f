"""The analysis queue's order and its workers: users' requests pass ahead of the background fair-play analyses;
``nardy worker analysis`` processes claim from the database, on PostgreSQL with SKIP LOCKED, never one job twice;
a finished rated match's analysis feeds the fair-play detector, which flags and never bans."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from nardy.bots.fair_play import MIN_GAMES, MIN_REFERENCE, RECENT_GAMES, WINDOW_MOVES
from nardy.server.services.analysis_worker import work
from nardy.server.services.fair_play import review
from nardy.server.services.ratings import family_of
from nardy.store import analyses_repo, fair_play_repo
from nardy.store.analyses_repo import JobKey
from nardy.store.db import make_engine, make_sessionmaker
from nardy.store.migrate import upgrade
from nardy.store.models import FairPlayFlag, GameTable, Rating, RatingChange, User
from tests.databases import postgresql_url, sqlite_url  # noqa: F401  (fixtures)

pytestmark = pytest.mark.filterwarnings("ignore:Skipped unsupported reflection of expression-based index")

NOW = datetime(2026, 12, 6, 12, tzinfo=UTC)
MINUTE = timedelta(minutes=1)


@pytest.fixture
def sessions(sqlite_url: str) -> Iterator[sessionmaker[Session]]:
    upgrade(sqlite_url)
    engine = make_engine(sqlite_url)
    yield make_sessionmaker(engine)
    engine.dispose()


def _user(db: Session, name: str) -> int:
    user = User(username=name, created_at=NOW)
    db.add(user)
    db.flush()
    return user.id


def _table(db: Session, table_id: str, players: tuple[int | None, int | None] = (None, None),
           variant: str = "backgammon") -> None:
    db.add(GameTable(id=table_id, variant=variant, match_length=1, options={}, created_at=NOW, status="finished",
                     player0_id=players[0], player1_id=players[1]))
    db.flush()


def test_a_users_request_passes_ahead_of_background_analyses(sessions: sessionmaker[Session]) -> None:
    with sessions() as db:
        alice = _user(db, "alice")
        for number in range(3):
            _table(db, f"t{number}")
            db.add(analyses_repo.background(table_id=f"t{number}", level="advanced", now=NOW + number * MINUTE))
        _table(db, "asked")
        db.commit()
        analyses_repo.request(db, table_id="asked", level="expert", user_id=alice, now=NOW + 10 * MINUTE)
    with sessions() as db:
        first = analyses_repo.claim(db, me="a", now=NOW + 11 * MINUTE, stale_before=NOW)
        second = analyses_repo.claim(db, me="a", now=NOW + 11 * MINUTE, stale_before=NOW)
    assert first == (JobKey("table", "asked"), "expert")
    assert second == (JobKey("table", "t0"), "advanced"), "then the oldest background job"


def test_a_request_promotes_a_waiting_background_job_or_deepens_a_done_one(sessions: sessionmaker[Session]) -> None:
    with sessions() as db:
        alice = _user(db, "alice")
        for table in ("waiting", "done"):
            _table(db, table)
            db.add(analyses_repo.background(table_id=table, level="advanced", now=NOW))
        db.commit()
        job, queued = analyses_repo.request(db, table_id="waiting", level="expert", user_id=alice, now=NOW)
        assert queued and job.level == "expert" and job.priority == analyses_repo.USER_PRIORITY
        claimed = analyses_repo.claim(db, me="w", now=NOW, stale_before=NOW - MINUTE)
        assert claimed == (JobKey("table", "waiting"), "expert")
        assert analyses_repo.claim(db, me="w", now=NOW, stale_before=NOW - MINUTE) == (JobKey("table", "done"),
                                                                                        "advanced")
        assert analyses_repo.finish(db, job=JobKey("table", "done"), me="w", result={"games": []}, now=NOW)
        same, queued = analyses_repo.request(db, table_id="done", level="advanced", user_id=alice, now=NOW)
        assert not queued and same.status == "done", "the background analysis answers a request at its level"
        deeper, queued = analyses_repo.request(db, table_id="done", level="expert", user_id=alice, now=NOW)
        assert queued and deeper.status == "queued" and deeper.level == "expert"
        assert not analyses_repo.wants_work(deeper, "world-class"), "a user's own request is not queued twice"


def test_the_table_jobs_say_how_and_when_each_ended_those_ended_first(sessions: sessionmaker[Session]) -> None:
    with sessions() as db:
        for number in range(3):
            _table(db, f"t{number}")
            db.add(analyses_repo.background(table_id=f"t{number}", level="advanced", now=NOW))
        db.commit()
        for minutes, outcome in ((5, "done"), (2, "failed")):
            key, _ = analyses_repo.claim(db, me="w", now=NOW, stale_before=NOW - MINUTE) or (None, None)
            assert key is not None
            if outcome == "done":
                analyses_repo.finish(db, job=key, me="w", result={"games": []}, now=NOW + minutes * MINUTE)
            else:
                analyses_repo.fail(db, job=key, me="w", error="boom", now=NOW + minutes * MINUTE)
        assert analyses_repo.table_jobs(db) == [("failed", NOW + 2 * MINUTE), ("done", NOW + 5 * MINUTE),
                                                ("queued", None)]


def test_two_workers_on_postgresql_never_analyse_one_job_twice(postgresql_url: str) -> None:  # noqa: F811
    upgrade(postgresql_url)
    engine = make_engine(postgresql_url)
    sessions = make_sessionmaker(engine)
    jobs = 40
    with sessions() as db:
        for number in range(jobs):
            _table(db, f"t{number}")
            db.add(analyses_repo.background(table_id=f"t{number}", level="advanced", now=NOW + number * MINUTE))
        db.commit()
    analysed: list[str] = []
    lock = threading.Lock()

    def analyser(url: str, job: JobKey, me: str, record: dict[str, Any], level: str) -> dict[str, Any]:
        with lock:
            analysed.append(job.id)
        time.sleep(0.01)  # a little work, so the two workers overlap
        return {"games": []}

    counts = []

    def worker(name: str) -> None:
        counts.append(work(postgresql_url, sessions, me=name, stale_seconds=600, poll_seconds=0.1,
                           stop=threading.Event(), analyser=analyser, until_idle=True))

    threads = [threading.Thread(target=worker, args=(name,)) for name in ("w1", "w2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    try:
        assert Counter(analysed).most_common(1)[0][1] == 1, "a job analysed twice"
        assert sorted(analysed) == sorted(f"t{number}" for number in range(jobs))
        assert sum(counts) == jobs and all(counts), f"both workers worked: {counts}"
        with sessions() as db:
            assert all(analyses_repo.get(db, f"t{number}").status == "done"  # type: ignore[union-attr]
                       for number in range(jobs))
    finally:
        engine.dispose()


def _result(losses: list[list[float]]) -> dict[str, Any]:
    """An analysis result whose players made counted checker plays with these losses."""
    decisions = [{"player": player, "kind": "move", "counted": True, "equity_loss": loss}
                 for player, theirs in enumerate(losses) for loss in theirs]
    return {"games": [{"decisions": decisions}]}


def _rated_rounds(db: Session, *, variant: str, rounds: int, human: list[float], engine: list[float],
                  review_until: int = 0) -> tuple[int, list[int]]:
    """``rounds`` rounds of rated matches among MIN_REFERENCE + 2 people of one rating, one of them against an
    engine-like account each round; each match reviewed as it ends. The flags raised in the first
    ``review_until`` rounds are marked reviewed at once. Returns the engine-like account and the people."""
    family = family_of(variant)
    cheat = _user(db, "cheat")
    people = [_user(db, f"p{number}") for number in range(MIN_REFERENCE + 2)]
    for user in (cheat, *people):
        db.add(Rating(user_id=user, family=family, rating=1600.0, experience=20, matches=20, updated_at=NOW))
    db.commit()
    number = 0
    for game in range(rounds):
        for index, person in enumerate(people):
            opponent = cheat if index == 0 else people[(index + 1) % len(people)]
            table = f"m{number}"
            number += 1
            _table(db, table, (person, opponent), variant=variant)
            at = NOW + number * MINUTE
            db.add_all([RatingChange(user_id=user, family=family, table_id=table, before=1600, after=1600, at=at)
                        for user in (person, opponent)])
            wobble = [loss + 0.002 * ((index + game) % 5) for loss in human]
            db.commit()
            flagged = review(db, table_id=table, result=_result([wobble, engine if opponent == cheat else human]),
                             level="advanced", now=at)
            assert person not in flagged
            if game < review_until:
                for flag in db.scalars(select(FairPlayFlag).where(FairPlayFlag.reviewed_at.is_(None))):
                    flag.reviewed_at, flag.reviewed_by = at, people[0]
                db.commit()
    return cheat, people


def test_an_engine_like_account_is_flagged_with_evidence_once_and_nothing_else_happens(
        sessions: sessionmaker[Session]) -> None:
    human = [0.0] * 12 + [0.03] * 8 + [0.1] * 4  # PR about 12, half its plays the best
    engine = [0.0] * 22 + [0.01] * 2  # PR about 0.4, 92 % the best
    with sessions() as db:
        cheat, _ = _rated_rounds(db, variant="backgammon", rounds=MIN_GAMES, human=human, engine=engine)
        flags = db.scalars(select(FairPlayFlag)).all()
        assert [flag.user_id for flag in flags] == [cheat], "the engine-like account, once, and nobody else"
        flag = flags[0]
        assert flag.statistic == "min_robust_z" and flag.value >= flag.threshold and flag.games == MIN_GAMES
        assert flag.evidence["match_rate"] > 0.9 and flag.evidence["reference"]["accounts"] >= MIN_REFERENCE
        assert len(flag.evidence["tables"]) == MIN_GAMES and flag.reviewed_at is None
        assert fair_play_repo.unreviewed(db) == [flag]
        assert db.get(User, cheat).deleted_at is None  # type: ignore[union-attr]
        assert review(db, table_id="m0", result=_result([engine, engine]), level="advanced", now=NOW) == [], \
            "an analysis run again changes no figures"


def test_an_account_of_short_matches_is_judged_on_enough_plays_not_on_twenty_matches(
        sessions: sessionmaker[Session]) -> None:
    """Matches of few unforced plays (hypergammon's three checkers) widen the window past RECENT_GAMES matches
    until it holds WINDOW_MOVES plays: a flag raised again after a review covers every match that takes."""
    human = [0.0] * 4 + [0.03] * 3 + [0.1] * 1
    engine = [0.0] * 7 + [0.01]
    rounds = RECENT_GAMES + 6
    assert rounds * len(engine) < WINDOW_MOVES
    with sessions() as db:
        cheat, _ = _rated_rounds(db, variant="hypergammon", rounds=rounds, human=human, engine=engine,
                                 review_until=rounds - 1)
        last = db.scalars(select(FairPlayFlag).where(FairPlayFlag.reviewed_at.is_(None))).one()
        assert last.user_id == cheat and last.games == rounds > RECENT_GAMES
        assert len(last.evidence["tables"]) == rounds and last.evidence["unforced_moves"] == rounds * len(engine)


def test_an_unrated_match_feeds_nothing(sessions: sessionmaker[Session]) -> None:
    with sessions() as db:
        ann, bob = _user(db, "ann"), _user(db, "bob")
        _table(db, "friendly", (ann, bob))
        db.commit()
        assert review(db, table_id="friendly", result=_result([[0.0], [0.0]]), level="advanced", now=NOW) == []
        assert not fair_play_repo.has_games(db, "friendly")


def test_the_worker_command_refuses_a_database_not_at_head(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from nardy.cli import USAGE_ERROR, main

    assert main(["worker", "analysis", "--database-url", f"sqlite:///{tmp_path / 'empty.sqlite3'}"]) == USAGE_ERROR
    assert "not" in capsys.readouterr().err
