"""``nardy admin``: the operator's tasks (docs/operations.md, *Backups*).

The issue: «backups: SQLite through its online backup API and PostgreSQL
through `pg_dump`, each with a tested restore (a test backs up a live
server's database, restores it into a fresh one and finds every game, rating
and coin)».
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from nardy.cli import main
from tests.server.live_server import (
    FAST_CLIENT_ENV, HttpUser, LiveServer, connected, fresh_postgres_database, postgres_unreachable, unique_name,
)

STAKE = 40
CLOCK = {"delay_seconds": 12, "bank_seconds_per_point": 60}
"""A rated table needs a bank clock."""

KEPT = {
    "users": "id, username, is_guest",
    "tables": "id, status, rated, stake, winner",
    "table_events": "table_id, version, kind, seat",
    "game_seeds": "table_id, number",
    "ratings": "user_id, family, rating, experience, matches",
    "rating_changes": 'user_id, family, table_id, "before", "after"',
    "coin_accounts": "user_id, balance, held",
    "coin_movements": "id, user_id, amount, reason, table_id, balance_after",
    "sessions": "user_id",
}
"""What a restore must bring back, table by table: the games, ratings and coins, and the accounts and sessions."""


@pytest.fixture(params=["sqlite", "postgresql"])
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str | None, str]]:
    """The live server's database (``None``: its SQLite file) and a fresh one to restore into."""
    if request.param == "sqlite":
        yield None, f"sqlite:///{tmp_path / 'restored' / 'nardy.sqlite3'}"
        return
    reason = postgres_unreachable()
    if reason is not None:
        pytest.skip(reason)
    with fresh_postgres_database() as live, fresh_postgres_database() as restored:
        yield live, restored


def contents(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """The rows of :data:`KEPT`, each table's sorted."""
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return {table: sorted((tuple(row) for row in connection.execute(text(f"SELECT {columns} FROM {table}"))),
                                  key=repr)
                    for table, columns in KEPT.items()}
    finally:
        engine.dispose()


def finished_rated_coin_match(server: LiveServer) -> tuple[str, HttpUser, HttpUser]:
    """Two account holders' rated 1-point match for coins, ended by the second one leaving it (a forfeit)."""
    alice, bob = HttpUser(server.base_url), HttpUser(server.base_url)
    alice.signup(unique_name("alice"))
    bob.signup(unique_name("bob"))
    created = alice.post("/api/tables", {"variant": "georgian", "match_length": 1, "rated": True, "stake": STAKE,
                                         **CLOCK})
    assert created.status_code == 201, created.text
    table = created.json()["table"]["table"]
    assert bob.post(f"/api/tables/{table}/join").status_code == 200
    socket = connected(server, bob)
    try:
        assert socket.act(table, "leave")["t"] == "ack"
    finally:
        socket.close()
    deadline = time.monotonic() + 10
    while alice.table(table)["status"] != "finished":
        assert time.monotonic() < deadline, "the forfeit did not end the match"
        time.sleep(0.05)
    return table, alice, bob


@pytest.mark.slow
def test_a_live_servers_database_is_backed_up_and_restored_whole(
    tmp_path: Path, databases: tuple[str | None, str], capsys: pytest.CaptureFixture[str],
) -> None:
    live_database, restored = databases
    saved = tmp_path / "nardy.backup"
    with LiveServer(tmp_path / "live", database_url=live_database, env=FAST_CLIENT_ENV) as server:
        url = live_database or f"sqlite:///{server.data_dir / 'nardy.sqlite3'}"
        table, alice, bob = finished_rated_coin_match(server)
        waiting = alice.post("/api/tables", {"variant": "backgammon", "match_length": 3})
        assert waiting.status_code == 201
        assert main(["admin", "backup", "--database-url", url, str(saved)]) == 0  # the server runs on
        original = contents(url)
        server.kill()
    assert len(original["ratings"]) == 2 and len(original["tables"]) == 2
    assert sorted(movement[3] for movement in original["coin_movements"]) == [
        "grant", "grant", "match_lost", "match_won"]

    assert main(["admin", "restore", "--database-url", restored, str(saved)]) == 0
    assert contents(restored) == original

    capsys.readouterr()
    assert main(["admin", "stats", "--json", "--database-url", restored]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert (figures["accounts"], figures["rated_players"], figures["tables"]) == (2, 2, {"finished": 1, "waiting": 1})
    assert figures["coins_in_play"] == sum(account[1] for account in original["coin_accounts"])

    with LiveServer(tmp_path / "again", database_url=restored, env=FAST_CLIENT_ENV) as again:
        for user in (alice, bob):
            user.http.base_url = again.base_url  # the same cookies: the sessions came back too
        assert alice.table(table)["status"] == "finished"
        coins = {user.user["username"]: user.get("/api/coins").json()["balance"] for user in (alice, bob) if user.user}
        assert sorted(coins.values()) == [1000 - STAKE, 1000 + STAKE]


def test_a_restore_leaves_a_database_with_tables_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = (f"sqlite:///{tmp_path / name}.sqlite3" for name in ("first", "second"))
    for url in (first, second):
        engine = create_engine(url)
        with engine.begin() as connection:
            connection.execute(text("CREATE TABLE kept (x INTEGER)"))
        engine.dispose()
    assert main(["admin", "backup", "--database-url", first, str(tmp_path / "first.backup")]) == 0
    assert main(["admin", "restore", "--database-url", second, str(tmp_path / "first.backup")]) == 1
    assert "has tables already" in capsys.readouterr().err
    assert main(["admin", "restore", "--database-url", second, "--replace", str(tmp_path / "first.backup")]) == 0


def test_a_backup_restores_only_into_its_own_kind_of_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    not_a_backup = tmp_path / "notes.txt"
    not_a_backup.write_text("not a database")
    target = f"sqlite:///{tmp_path / 'new.sqlite3'}"
    assert main(["admin", "restore", "--database-url", target, str(not_a_backup)]) == 1
    assert "is not a SQLite file" in capsys.readouterr().err
    assert main(["admin", "backup", "--database-url", target, str(tmp_path / "b")]) == 1
    assert "there is no SQLite database" in capsys.readouterr().err
    assert main(["admin", "stats", "--database-url", target]) == 1
    assert "there is no SQLite database" in capsys.readouterr().err
    assert not (tmp_path / "new.sqlite3").exists() and not (tmp_path / "b").exists()


def test_failures_are_one_line_each(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """No traceback for a backup into a missing folder, or a database that does not answer."""
    source = f"sqlite:///{tmp_path / 'source.sqlite3'}"
    engine = create_engine(source)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE kept (x INTEGER)"))
    engine.dispose()
    assert main(["admin", "backup", "--database-url", source, str(tmp_path / "missing" / "b")]) == 1
    assert "there is no directory" in capsys.readouterr().err
    unreachable = "postgresql+psycopg://nobody@127.0.0.1:1/none"
    assert main(["admin", "stats", "--database-url", unreachable]) == 1
    assert main(["admin", "backup", "--database-url", source, str(tmp_path / "b")]) == 0
    assert main(["admin", "restore", "--database-url", unreachable, str(tmp_path / "b")]) == 1
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 2 and all(line.startswith("nardy: ") for line in errors), errors
