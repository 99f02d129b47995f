"""Virtual coins through the real app (seed 002: a game coin, «это не деньги»).

A coin table is a match to N points with a stake per point: sitting down
holds N × stake of the player's coins, and the match end moves N × stake from
the loser to the winner in the same transaction as the ``match_ended``
event, whichever way the match ends: bear-off, resignation, a passed double,
three timeouts (004), a forfeit, and across a server restart. Balances never
go negative: a player whose free coins do not cover a table cannot sit.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from nardy.notation import position_from_dict
from nardy.notation.transcript import replay, transcript_from_record
from nardy.rules import find_variant
from nardy.server.services.accounts import create_user
from nardy.server.services.coins import CoinPolicy, refresh_account
from nardy.store.db import make_engine, make_sessionmaker
from nardy.store.migrate import upgrade
from nardy.store.models import CoinHold, CoinMovement
from tests.server.live_server import fresh_postgres_database, postgres_unreachable

GRANT = 1000
"""The default starting grant (``NARDY_COINS_STARTING_GRANT``)."""

OPENING = [(3, 1)]
"""Seat 0 (the creator) wins the opening roll and moves first."""

OPENING_MOVE = [
    {"source": 8, "target": 5, "die": 3, "hit": False},
    {"source": 6, "target": 5, "die": 1, "hit": False},
]


def coins(player: Any) -> dict[str, Any]:
    """GET /api/coins for ``player`` (200 required)."""
    response = player.client.get("/api/coins")
    assert response.status_code == 200, response.text
    data: dict[str, Any] = response.json()
    return data


def balances(*players: Any) -> list[tuple[int, int]]:
    """Each player's (balance, held)."""
    return [(data["balance"], data["held"]) for data in map(coins, players)]


def coin_match(server: Any, variant: str = "georgian", length: int = 1, stake: int = 50,
               **body: Any) -> tuple[str, list[Any]]:
    """Two account holders at a coin table whose match has begun (seat 0 opens); two minutes a move
    unless ``body`` says otherwise."""
    players = [server.player(), server.player()]
    body.setdefault("move_seconds", 120)
    table, players = server.match(variant, length, opening=OPENING, players=players, stake=stake, **body)
    return table, players


def assert_paid(table: str, winner: Any, loser: Any, amount: int) -> None:
    """The winner gained ``amount``, the loser lost it, nothing stays held, and the ledger says so."""
    assert balances(winner, loser) == [(GRANT + amount, 0), (GRANT - amount, 0)]
    won, lost = coins(winner)["history"][0], coins(loser)["history"][0]
    assert (won["reason"], won["amount"], won["table"], won["balance_after"]) == (
        "match_won", amount, table, GRANT + amount)
    assert (lost["reason"], lost["amount"], lost["table"], lost["balance_after"]) == (
        "match_lost", -amount, table, GRANT - amount)


def ended_event(player: Any, table: str) -> dict[str, Any]:
    return next(e for e in player.events[table] if e["kind"] == "match_ended")


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """``None`` (the SQLite file in the data directory) or the URL of a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield None
        return
    reason = postgres_unreachable()
    if reason is not None:
        pytest.skip(reason)
    with fresh_postgres_database() as url:
        yield url


# ----- every way a match ends


def test_bear_off_pays_the_match(game_server):
    """The game ends by bearing off (docs/rules.md §1): a 1-point match, 1 × 40 coins."""
    table, (alice, bob) = coin_match(game_server, stake=40)
    assert balances(alice, bob) == [(GRANT, 40), (GRANT, 40)]
    final = game_server.play_out(table, [alice, bob], choose=game_server.racing)
    assert final["last_result"]["reason"] == "bore-off"
    winner, loser = (alice, bob) if final["match"]["winner"] == 0 else (bob, alice)
    assert ended_event(alice, table)["payload"]["coins"] == 40
    assert_paid(table, winner, loser, 40)


@pytest.mark.parametrize(("variant", "length"), [("tavla", 1), ("tavli", 3), ("hypergammon", 1)])
def test_a_coin_table_of_a_new_variant_pays_its_match(game_server, variant: str, length: int):
    """Tavla (docs/rules.md §8.1), tavli (§11: portes, plakoto and fevga in turn, to 3 points) and hypergammon
    (§8.3) played out game by game: the match's length × stake moves from the loser to the winner."""
    table, (alice, bob) = coin_match(game_server, variant, length=length, stake=20)
    assert balances(alice, bob) == [(GRANT, 20 * length), (GRANT, 20 * length)]
    final = game_server.play_out(table, [alice, bob], choose=game_server.racing)
    assert final["variant"] == variant and max(final["match"]["score"]) >= length
    games = [e for e in alice.events[table] if e["kind"] == "game_ended"]
    played = {step.before.variant.name for step in replay(transcript_from_record(game_server.record(table)))}
    assert played == {find_variant(variant).game_variant(index).name for index in range(len(games))}
    winner, loser = (alice, bob) if final["match"]["winner"] == 0 else (bob, alice)
    assert ended_event(alice, table)["payload"]["coins"] == 20 * length
    assert_paid(table, winner, loser, 20 * length)


def test_resignation_pays_the_whole_match_whatever_it_scores(game_server):
    """A Georgian resignation at the start scores koks (3 points: nothing borne off, checkers still in
    the winner's home, docs/rules.md §4 and §6) in a 5-point match: the match is not over, so nothing moves;
    the second one ends it (6 points) and the match's 5 × 25 coins move, not 6 × 25."""
    table, (alice, bob) = coin_match(game_server, length=5, stake=25)
    assert balances(alice, bob) == [(GRANT, 125), (GRANT, 125)]
    game_server.push((3, 1))
    alice.ok("resign")
    assert alice.state()["status"] == "playing" and alice.state()["match"]["score"] == [0, 3]
    assert balances(alice, bob) == [(GRANT, 125), (GRANT, 125)]
    alice.ok("resign")
    final = alice.state()
    assert final["status"] == "finished" and final["match"]["winner"] == 1
    assert final["match"]["score"] == [0, 6]
    assert_paid(table, bob, alice, 125)


def test_a_passed_double_pays_the_match(game_server):
    """Backgammon with the cube, a 3-point match (a 1-point match offers no double, 003): the cube goes
    to 2 and 4, then bob redoubles and alice passes, losing the game at the cube's value before the
    double (docs/rules.md §3), 4 points, which wins bob the match."""
    table, (alice, bob) = coin_match(game_server, "backgammon", length=3, stake=30, options={"cube": True})
    alice.ok("move", steps=OPENING_MOVE)
    reply = [{"source": 13, "target": 7, "die": 6, "hit": False},
             {"source": 13, "target": 8, "die": 5, "hit": False}]
    for doubler, taker in ((bob, alice), (alice, bob)):
        doubler.catch_up(taker.version())
        doubler.ok("double")
        taker.catch_up(doubler.version())
        taker.ok("take")
        doubler.catch_up(taker.version())
        game_server.push((6, 5))
        doubler.ok("roll")
        doubler.ok("move", steps=reply)
    bob.catch_up(alice.version())
    assert bob.state()["game"]["cube"] == {"value": 4, "owner": 1}
    bob.ok("double")
    alice.catch_up(bob.version())
    alice.ok("drop")
    final = alice.state()
    assert final["last_result"]["reason"] == "dropped" and final["match"]["winner"] == 1
    assert final["match"]["score"] == [0, 4]
    assert_paid(table, bob, alice, 90)


def test_three_timeouts_pay_the_match(game_server):
    """Three timeouts lose the match (004): alice lets her one-second clock run out three times."""
    table, (alice, bob) = coin_match(game_server, stake=20, move_seconds=1)
    for count in (1, 2, 3):
        state = alice.wait(lambda s, c=count: s["match"]["timeouts"][0] >= c, timeout=4.0)
        if count < 3:
            bob.catch_up(state["version"])
            game_server.top_up()
            bob.ok("roll")
            moving = bob.state()
            if moving["actor"] == 1 and moving["game"]["phase"] == "moving":
                game = moving["game"]
                plays = position_from_dict(game["boards"][1]).legal_plays(tuple(game["dice"]))
                bob.ok("move", steps=[{"source": s.source, "target": s.target, "die": s.die, "hit": s.hit}
                                      for s in plays[0].steps])
            alice.catch_up(bob.version())
    final = alice.wait(lambda s: s["status"] == "finished", timeout=4.0)
    assert final["match"]["ended_by"] == "timeouts" and final["match"]["winner"] == 1
    assert_paid(table, bob, alice, 20)


def test_a_forfeit_pays_the_match(game_server):
    """Leaving a match in play forfeits it: the opponent wins the match and its coins."""
    table, (alice, bob) = coin_match(game_server, length=5, stake=10)
    bob.ok("leave")
    final = alice.wait(lambda s: s["status"] == "finished")
    assert final["match"]["ended_by"] == "forfeit" and final["match"]["winner"] == 0
    assert_paid(table, alice, bob, 50)


def test_the_holds_and_the_payment_survive_a_restart(database, make_game_server):
    """The holds are rows and the table is its event log: after a restart the match goes on and its end
    pays exactly once (SQLite and PostgreSQL)."""
    settings = {"database_url": database} if database else {}
    first = make_game_server(**settings)
    table, (alice, bob) = coin_match(first, length=3, stake=100)
    alice.ok("move", steps=OPENING_MOVE)
    version = alice.version()
    first.stop()

    second = make_game_server(data_dir=first.data_dir, **settings)
    again = []
    for old in (alice, bob):
        player = second.player(old.name, sign_up=False, connect=False)
        player.client.cookies = old.client.cookies
        player.user = old.user
        player.connect()
        assert player.subscribe(table)["version"] == version
        again.append(player)
    alice2, bob2 = again
    assert balances(alice2, bob2) == [(GRANT, 300), (GRANT, 300)]
    bob2.ok("leave")
    alice2.wait(lambda s: s["status"] == "finished")
    assert_paid(table, alice2, bob2, 300)


def test_a_rematch_holds_the_stake_again(game_server):
    """A rematch copies the table, stake included: both players' coins are held again for it."""
    table, (alice, bob) = coin_match(game_server, stake=50)
    alice.ok("resign")
    assert balances(alice, bob) == [(GRANT - 50, 0), (GRANT + 50, 0)]
    game_server.top_up()
    alice.ok("rematch")
    bob.catch_up(alice.version())
    bob.ok("rematch")
    rematch = alice.wait(lambda s: s["rematch"]["table"] is not None)["rematch"]["table"]
    assert (game_server.view(rematch)["status"], game_server.view(rematch)["stake"]) == ("playing", 50)
    assert balances(alice, bob) == [(GRANT - 50, 50), (GRANT + 50, 50)]


# ----- who may sit, and for how much


def test_guests_cannot_play_for_coins_and_nothing_changes(game_server):
    guest = game_server.guest(connect=False)
    refused = guest.post("/api/tables", {"variant": "georgian", "match_length": 1, "stake": 10, "move_seconds": 120})
    assert refused.status_code == 403 and "account" in refused.json()["detail"]
    assert guest.client.get("/api/me/tables").json()["tables"] == []
    assert guest.client.get("/api/coins").status_code == 403

    alice = game_server.player(connect=False)
    table = game_server.create(alice, "georgian", 1, stake=10, move_seconds=120)["table"]
    refused = guest.post(f"/api/tables/{table}/join", {})
    assert refused.status_code == 403
    assert game_server.view(table)["status"] == "waiting"
    assert game_server.view(table)["seats"][1] is None


def test_a_coin_table_over_the_waiting_cap_holds_nothing(make_game_server):
    """The stake is held in the transaction that writes the table: a table refused at the cap leaves no hold."""
    server = make_game_server(max_waiting_tables=1)
    alice = server.player(connect=False)
    server.create(alice, "georgian", 1, stake=10, move_seconds=120)
    assert balances(alice) == [(GRANT, 10)]
    body = {"variant": "georgian", "match_length": 1, "stake": 30, "move_seconds": 120}
    refused = alice.post("/api/tables", body)
    assert refused.status_code == 409 and "1 tables waiting" in refused.json()["detail"]
    assert balances(alice) == [(GRANT, 10)]


@pytest.mark.parametrize("body", [
    {"variant": "georgian", "match_length": 0, "stake": 10, "move_seconds": 120},  # money play: no bounded loss
    {"variant": "georgian", "match_length": 1, "stake": 10, "move_seconds": 120, "opponent": "computer"},
    {"variant": "georgian", "match_length": 1, "stake": 10},  # no clock: a vanished player would hold the coins
    {"variant": "georgian", "match_length": 1, "stake": -1, "move_seconds": 120},
    {"variant": "georgian", "match_length": 1, "stake": 1_000_001, "move_seconds": 120},
    {"variant": "georgian", "match_length": 1, "stake": "ten", "move_seconds": 120},
])
def test_a_wrong_stake_is_refused_and_changes_nothing(game_server, body):
    alice = game_server.player(connect=False)
    response = alice.post("/api/tables", body)
    assert response.status_code == 422, response.text
    assert alice.client.get("/api/me/tables").json()["tables"] == []
    assert balances(alice) == [(GRANT, 0)]


def test_a_table_costing_more_than_the_free_coins_is_refused(game_server):
    """Sitting holds the match's coins, so two tables of 500 use up 1000 and a third cannot be opened,
    until one is left; a joiner who cannot cover a table cannot sit at it."""
    alice, bob = game_server.player(connect=False), game_server.player(connect=False)
    first = game_server.create(alice, "georgian", 5, stake=100, move_seconds=120)
    assert (first["stake"], first["coins_at_stake"]) == (100, 500)
    game_server.create(alice, "georgian", 5, stake=100, move_seconds=120)
    refused = alice.post("/api/tables", {"variant": "georgian", "match_length": 1, "stake": 1, "move_seconds": 120})
    assert refused.status_code == 409 and "1 coins" in refused.json()["detail"]
    assert len(alice.client.get("/api/me/tables").json()["tables"]) == 2
    assert balances(alice) == [(GRANT, 1000)]

    alice.connect()
    alice.subscribe(first["table"])
    alice.ok("leave", first["table"])
    assert balances(alice) == [(GRANT, 500)]
    again = {"variant": "georgian", "match_length": 1, "stake": 1, "move_seconds": 120}
    assert alice.post("/api/tables", again).status_code == 201

    expensive = game_server.create(bob, "georgian", 7, stake=100, move_seconds=120)["table"]
    carol = game_server.player(connect=False)
    game_server.create(carol, "georgian", 5, stake=100, move_seconds=120)
    game_server.top_up()
    refused = carol.post(f"/api/tables/{expensive}/join", {})
    assert refused.status_code == 409
    assert game_server.view(expensive)["status"] == "waiting"
    assert balances(carol) == [(GRANT, 500)]


def test_two_joins_at_once_through_two_processes_cannot_hold_more_than_the_balance(database, make_game_server):
    """Two tables of 700 each, joined by one player at the same moment through two server processes on
    one database: one join wins, the other is refused, and the balance covers what is held."""
    settings = {"database_url": database} if database else {}
    first = make_game_server(**settings)
    second = make_game_server(data_dir=first.data_dir, **settings)
    alice = first.player(connect=False)
    tables = [first.create(first.player(connect=False), "georgian", 7, stake=100, move_seconds=120)["table"] for _ in range(2)]
    coins(alice)  # the account exists before the race
    there = second.player(alice.name, sign_up=False, connect=False)
    there.client.cookies = alice.client.cookies
    first.top_up()
    second.top_up()
    results: list[int] = []

    def join(player: Any, table: str) -> None:
        results.append(player.post(f"/api/tables/{table}/join", {}).status_code)

    threads = [threading.Thread(target=join, args=pair) for pair in zip((alice, there), tables, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(results) == [200, 409]
    assert balances(alice) == [(GRANT, 700)]
    assert sorted(first.view(t)["status"] for t in tables) == ["playing", "waiting"]


# ----- balance, history, leaderboard


def test_history_pages_public_balance_and_leaderboard(game_server):
    table, (alice, bob) = coin_match(game_server, stake=50)
    bob.ok("leave")
    alice.wait(lambda s: s["status"] == "finished")
    mine = coins(alice)
    assert mine["note"] == "Coins have no money value and cannot be bought or sold."
    assert [(m["reason"], m["amount"]) for m in mine["history"]] == [("match_won", 50), ("grant", GRANT)]
    page = alice.client.get("/api/coins?limit=1").json()
    assert [m["reason"] for m in page["history"]] == ["match_won"]
    rest = alice.client.get(f"/api/coins?limit=1&before={page['next_before']}").json()
    assert [m["reason"] for m in rest["history"]] == ["grant"]

    public = game_server.client.get(f"/api/users/{bob.name}/coins").json()
    assert public["balance"] == GRANT - 50 and "history" not in public
    carol = game_server.player(connect=False)
    assert game_server.client.get(f"/api/users/{carol.name}/coins").json()["balance"] == GRANT
    assert game_server.client.get("/api/users/nobody-here/coins").status_code == 404

    board = game_server.client.get("/api/coins/leaderboard").json()["players"]
    names = [row["username"] for row in board]
    assert names.index(alice.name) < names.index(bob.name)
    assert board[names.index(alice.name)]["balance"] == GRANT + 50
    listed = game_server.client.get("/api/tables?kind=match").json()
    assert all("stake" in row for row in listed["waiting"] + listed["playing"])


# ----- the starting grant and the daily top-up, on the database


def test_grant_once_and_one_top_up_per_utc_day(database: str | None, tmp_path: Path) -> None:
    """The account opens with the grant; the top-up comes the first time on each later UTC day, once."""
    engine = make_engine(database or f"sqlite:///{tmp_path / 'coins.sqlite3'}")
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    policy = CoinPolicy(starting_grant=500, daily_top_up=25)
    day = datetime(2026, 12, 5, 23, 30, tzinfo=UTC)
    with sessions() as db:
        user = create_user(db, username="ann", password="correct horse battery", now=day)
        db.commit()
        seen = []
        for at in (day, day + timedelta(minutes=20), day + timedelta(minutes=40), day + timedelta(hours=3),
                   day + timedelta(days=3)):
            seen.append(refresh_account(db, user.id, policy, at).balance)
            db.commit()
        assert seen == [500, 500, 525, 525, 550]
        reasons = db.scalars(select(CoinMovement.reason).order_by(CoinMovement.id)).all()
        assert reasons == ["grant", "top_up", "top_up"]
        assert db.scalars(select(CoinHold)).all() == []
    engine.dispose()
