"""Ratings (004): FIBS arithmetic by hand, families, history, the graph, abuse refusals, and a full rated flow."""

from __future__ import annotations

import math
from dataclasses import replace
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from nardy.bots.fair_play import FAIR_PLAY_LEVEL
from nardy.rules import VARIANTS
from nardy.server.services import ratings
from nardy.server.services.accounts import create_user
from nardy.server.services.matchmaking import MatchmakingPool
from nardy.server.services.ratings import Standing, rating_changes
from nardy.server.services.table_state import Seat, TableSpec, TableState, unrated_reason
from nardy.store import analyses_repo, ratings_repo
from nardy.store.db import make_engine, make_sessionmaker
from nardy.store.migrate import upgrade
from nardy.store.models import BACKGROUND_PRIORITY, USER_PRIORITY, MatchmakingRow

PASSWORD = "correct horse battery"
T0 = datetime(2026, 1, 1, tzinfo=UTC)

# ----- FIBS arithmetic, by hand
#
# P_upset = 1 / (10^(D·√n/2000) + 1); P = P_upset if the favourite wins, 1 − P_upset if the underdog does;
# each side moves by 4·K·√n·P with its own K = max(1, 5 − experience/100).


def test_two_new_players_one_point() -> None:
    # D = 0: P_upset = 1/(10^0 + 1) = 1/2.  K = 5 − 0/100 = 5 for both.
    # change = 4 · 5 · √1 · 0.5 = 10 each way.
    assert rating_changes(Standing(1500, 0), Standing(1500, 0), 1) == (10.0, 10.0)


def test_nine_point_match_300_apart_between_experienced_players() -> None:
    # D = 300, n = 9: D·√n/2000 = 300·3/2000 = 0.45; 10^0.45 = 2.81838; P_upset = 1/3.81838 = 0.261891.
    # K = 1 (experience ≥ 400).
    # Favourite (1800) wins: change = 4 · 1 · 3 · 0.261891 = 3.14269.
    gain, loss = rating_changes(Standing(1800, 1000), Standing(1500, 1000), 9)
    assert gain == pytest.approx(3.14269, abs=1e-5) and loss == pytest.approx(3.14269, abs=1e-5)
    # Underdog (1500) wins: change = 4 · 1 · 3 · (1 − 0.261891) = 12 · 0.738109 = 8.85731.
    gain, loss = rating_changes(Standing(1500, 1000), Standing(1800, 1000), 9)
    assert gain == pytest.approx(8.85731, abs=1e-5) and loss == pytest.approx(8.85731, abs=1e-5)


def test_one_point_match_100_apart() -> None:
    # D = 100, n = 1: 10^0.05 = 1.122018; P_upset = 1/2.122018 = 0.471249.
    # Favourite wins: 4 · 0.471249 = 1.884998; underdog wins: 4 · 0.528751 = 2.115002.
    assert rating_changes(Standing(1600, 500), Standing(1500, 500), 1)[0] == pytest.approx(1.884998, abs=1e-5)
    assert rating_changes(Standing(1500, 500), Standing(1600, 500), 1)[0] == pytest.approx(2.115002, abs=1e-5)


def test_each_player_has_their_own_experience_factor() -> None:
    # Equal ratings, n = 4: base = 4 · √4 · 0.5 = 4.
    # Winner experience 250: K = 5 − 2.5 = 2.5 → +10.  Loser experience 0: K = 5 → −20.
    assert rating_changes(Standing(1500, 250), Standing(1500, 0), 4) == (10.0, 20.0)


def test_experience_factor_and_provisional_mark() -> None:
    assert ratings.experience_factor(0) == 5
    assert ratings.experience_factor(100) == 4
    assert ratings.experience_factor(399) == pytest.approx(1.01)
    assert ratings.experience_factor(400) == 1 and ratings.experience_factor(5000) == 1
    assert ratings.is_provisional(0) and ratings.is_provisional(399)
    assert not ratings.is_provisional(400)


def test_upset_probability_is_symmetric_and_shrinks_with_length() -> None:
    assert ratings.upset_probability(200, 1) == ratings.upset_probability(-200, 1)
    assert ratings.upset_probability(200, 11) < ratings.upset_probability(200, 3) < 0.5
    assert ratings.upset_probability(0, 0) == 0.5  # unlimited counts as 1 point


def test_families() -> None:
    assert ratings.family_of("backgammon") == ratings.family_of("dave") == "backgammon"
    assert ratings.family_of("georgian") == "georgian"
    for variant in ("long-traditional", "long-tournament", "long-bolshie"):
        assert ratings.family_of(variant) == "long"
    with pytest.raises(ValueError):
        ratings.family_of("chess")


def test_the_one_rule_that_says_whether_a_match_counts() -> None:
    """``unrated_reason`` decides the rating rows and is shown in the view from before the match starts:
    nothing about where the players connect from, only who sits at the table."""
    spec = TableSpec("georgian", 1, VARIANTS["georgian"].default_options(), rated=True,
                     delay_seconds=12, bank_seconds_per_point=60)
    ann, bob = Seat(1, "ann", None, "a"), Seat(2, "bob", None, "b")
    cases = [
        ((ann, bob), None),
        ((ann, None), None),
        ((ann, Seat(None, "Computer (expert)", "expert", "c")), "computer"),
        ((ann, Seat(3, "guest-1", None, "g", guest=True)), "guest"),
        ((ann, Seat(1, "ann", None, "a2")), "same_player"),
    ]
    for seats, reason in cases:
        assert unrated_reason(TableState("t", spec, seats=seats)) == reason, seats
    assert unrated_reason(TableState("t", replace(spec, rated=False), seats=(ann, bob))) == "not_rated"


# ----- the database


@pytest.fixture
def sessions(tmp_path: Path) -> Iterator[sessionmaker[Session]]:
    engine = make_engine(f"sqlite:///{tmp_path / 'ratings.sqlite3'}")
    upgrade(engine)
    yield make_sessionmaker(engine)
    engine.dispose()


def _users(db: Session, *names: str) -> list[int]:
    return [create_user(db, username=name, password=PASSWORD).id for name in names]


def test_history_experience_and_leaderboard(sessions: sessionmaker[Session]) -> None:
    with sessions() as db:
        ann, bob, cat = _users(db, "ann", "bob", "cat")
        ratings.record_rated_match(db, family="georgian", winner_user_id=ann, loser_user_id=bob, length=1, at=T0)
        # ann 1510 (exp 1), bob 1490 (exp 1). Next: ann beats bob again, 3 points.
        # D = 20, n = 3: 10^(20·1.73205/2000) = 10^0.0173205 = 1.040688; P_upset = 1/2.040688 = 0.490031
        # (the favourite wins).
        # ann: K = 5 − 0.01 = 4.99 → 4 · 4.99 · 1.73205 · 0.490031 = 16.9412; bob loses the same (same K).
        ratings.record_rated_match(db, family="georgian", winner_user_id=ann, loser_user_id=bob, length=3,
                                   at=T0 + timedelta(hours=1))
        ratings.record_rated_match(db, family="long", winner_user_id=cat, loser_user_id=ann, length=1, at=T0)
        ann_georgian = ratings.standing_of(db, ann, "georgian")
        assert ann_georgian.experience == 4
        assert ann_georgian.rating == pytest.approx(1510 + 16.9412, abs=1e-3)
        assert ratings.standing_of(db, bob, "georgian").rating == pytest.approx(1490 - 16.9412, abs=1e-3)
        assert ratings.standing_of(db, ann, "long").rating == 1490  # families are apart
        history = ratings_repo.history_of(db, ann, "georgian")
        assert [(h.before, h.after) for h in history] == [
            (1500, 1510), (1510, pytest.approx(1510 + 16.9412, abs=1e-3))
        ]
        board = ratings_repo.leaderboard(db, "georgian")
        assert [name for name, _ in board] == ["ann", "bob"]
        assert board[0][1].matches == 2
        with pytest.raises(ValueError):
            ratings.record_rated_match(db, family="georgian", winner_user_id=ann, loser_user_id=ann, length=1, at=T0)
    assert 16.9412 == pytest.approx(4 * 4.99 * math.sqrt(3) / (10 ** (20 * math.sqrt(3) / 2000) + 1), abs=1e-4)


def test_svg_graph_is_well_formed() -> None:
    points = [(T0 + timedelta(days=i), 1500 + 10 * (-1) ** i * i) for i in range(1, 6)]
    root = ET.fromstring(ratings.rating_svg(points, title="ann <& co>: georgian"))
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    line = root.find(f"{ns}polyline")
    assert line is not None and len(line.attrib["points"].split()) == 6  # 1500 then each match
    texts = [t.text for t in root.iter(f"{ns}text")]
    assert "ann <& co>: georgian" in texts and "rated matches (5)" in texts
    assert ET.fromstring(ratings.rating_svg([], title="nobody")).tag == f"{ns}svg"


# ----- through the app

Server = Any
Player = Any


def _player_at(server: Server, address: str) -> Player:
    """A signed-up, connected player whose requests come from ``address``."""
    player = server.player(sign_up=False, connect=False)
    player.client = TestClient(server.app, client=(address, 50000))
    player.client.portal = server.client.portal
    response = player.post("/api/signup", {"username": player.name, "password": PASSWORD})
    assert response.status_code == 201, response.text
    player.user = response.json()["user"]
    player.connect()
    return player


def _ratings(server: Server, player: Player) -> dict[str, Any]:
    response = server.client.get(f"/api/users/{player.name}/ratings")
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()["ratings"]
    return result


CLOCK = {"delay_seconds": 12, "bank_seconds_per_point": 60}
"""The standard bank clock: a rated table needs one."""


def _play_rated(server: Server, players: list[Player], length: int = 1) -> dict[str, Any]:
    table, seated = server.match("georgian", length, players=players, rated=True, **CLOCK)
    assert seated[0].state(table)["unrated_reason"] is None, "the view says the match will count"
    final: dict[str, Any] = server.play_out(table, seated, choose=server.racing)
    assert final["status"] == "finished" and final["match"]["rated"] is True
    return final


def test_two_accounts_on_one_address_are_rated(game_server: Server) -> None:
    """A family, a club or a campus shares one address: their matches count like anyone's (the old rule that
    left a 3-point match between two such accounts at 1500 and no matches is gone)."""
    players = [_player_at(game_server, "10.0.0.7"), _player_at(game_server, "10.0.0.7")]
    final = _play_rated(game_server, players, length=3)
    winner, loser = players[final["match"]["winner"]], players[1 - final["match"]["winner"]]
    won, lost = _ratings(game_server, winner)["georgian"], _ratings(game_server, loser)["georgian"]
    assert won["rating"] > 1500 > lost["rating"]
    assert won["matches"] == lost["matches"] == 1 and won["experience"] == 3
    ended = [e for e in winner.events[final["table"]] if e["kind"] == "match_ended"]
    assert ended[0]["payload"]["rated"] is True


def test_a_rated_table_needs_a_bank_clock(game_server: Server) -> None:
    """Rated play is always timed: without a clock, or with a per-move limit, the API refuses with a clear 422
    and opens nothing; the per-move limits stay for unrated tables."""
    host = _player_at(game_server, "10.0.0.8")
    for body in ({}, {"move_seconds": 60}, {"correspondence_days": 1}, {"delay_seconds": 12}):
        refused = host.post("/api/tables", {"variant": "georgian", "rated": True, **body})
        assert refused.status_code == 422, refused.text
        assert "bank" in refused.json()["detail"], refused.text
    assert host.client.get("/api/me/tables").json()["tables"] == []
    timed = game_server.create(host, "georgian", 1, move_seconds=60)
    assert (timed["move_seconds"], timed["delay_seconds"], timed["rated"]) == (60, None, False)
    assert timed["unrated_reason"] == "not_rated"
    rated = game_server.create(host, "georgian", 3, rated=True, **CLOCK)
    assert (rated["delay_seconds"], rated["bank_seconds_per_point"], rated["rated"]) == (12, 60, True)
    assert rated["unrated_reason"] is None and rated["banks"] is None


def test_unrated_table_and_computer_games_change_nothing(game_server: Server) -> None:
    players = [_player_at(game_server, "10.0.0.1"), _player_at(game_server, "10.0.0.2")]
    table, seated = game_server.match("georgian", 1, players=players)  # not rated
    game_server.play_out(table, seated, choose=game_server.racing)
    lone = _player_at(game_server, "10.0.0.3")
    view = game_server.create(lone, "georgian", 1, opponent="computer", rated=True)
    assert view["rated"] is False
    lone.subscribe(view["table"])
    game_server.play_out(view["table"], [lone, None], choose=game_server.racing)
    for player in (*players, lone):
        assert _ratings(game_server, player)["georgian"]["matches"] == 0


def test_rated_tables_are_for_account_holders(game_server: Server) -> None:
    """A guest can neither open nor join a rated table (403, nothing created); unrated tables stay open to guests."""
    guest = game_server.guest()
    refused = guest.post("/api/tables", {"variant": "georgian", "rated": True, **CLOCK})
    assert refused.status_code == 403 and "account" in refused.json()["detail"]
    assert game_server.create(guest, "georgian", 1)["rated"] is False
    host = _player_at(game_server, "10.0.0.4")
    table = game_server.create(host, "georgian", 1, rated=True, **CLOCK)["table"]
    other = game_server.guest()
    refused = other.post(f"/api/tables/{table}/join")
    assert refused.status_code == 403 and "account" in refused.json()["detail"]
    view = game_server.client.get(f"/api/tables/{table}").json()
    assert view["status"] == "waiting" and view["seats"][1] is None
    game_server.top_up()
    assert game_server.join(_player_at(game_server, "10.0.0.5"), table)["status"] == "playing"


def test_rated_table_between_two_addresses(game_server: Server) -> None:
    players = [_player_at(game_server, "10.0.0.1"), _player_at(game_server, "10.0.0.2")]
    final = _play_rated(game_server, players)
    winner = players[final["match"]["winner"]]
    loser = players[1 - final["match"]["winner"]]
    assert _ratings(game_server, winner)["georgian"]["rating"] == 1510
    assert _ratings(game_server, loser)["georgian"]["rating"] == 1490


def test_leaving_a_rated_match_loses_it_rated(game_server: Server) -> None:
    """A forfeit (leaving, or three timeouts) ends the match as a loss, and it is rated as one."""
    alice, bob = _player_at(game_server, "10.0.0.1"), _player_at(game_server, "10.0.0.2")
    table, _ = game_server.match("georgian", 3, players=[alice, bob], rated=True, opening=[(3, 1)], **CLOCK)
    bob.ok("leave")
    final = alice.catch_up(bob.version())
    assert final["match"]["ended_by"] == "forfeit" and final["match"]["winner"] == 0
    # n = 3, equal new players: 4 · 5 · √3 · ½ = 10√3 = 17.3205.
    assert _ratings(game_server, alice)["georgian"]["rating"] == pytest.approx(1500 + 10 * math.sqrt(3), abs=0.01)
    assert _ratings(game_server, bob)["georgian"]["rating"] == pytest.approx(1500 - 10 * math.sqrt(3), abs=0.01)
    assert _ratings(game_server, bob)["georgian"]["experience"] == 3


def test_matchmaking_pairs_two_players_who_then_play_a_rated_match(game_server: Server) -> None:
    ann, bob = _player_at(game_server, "192.0.2.1"), _player_at(game_server, "192.0.2.2")
    for player in (ann, bob):
        response = player.post("/api/matchmaking/join", {"variant": "georgian", "match_length": 1})
        assert response.status_code == 200, response.text
        assert response.json()["status"] == "waiting"
        assert response.json()["rating"] == 1500
    game_server.top_up()
    game_server.client.portal.call(game_server.app.state.matchmaking.wave)
    statuses = [player.client.get("/api/matchmaking/status").json() for player in (ann, bob)]
    assert statuses[0]["status"] == statuses[1]["status"] == "matched", statuses
    table = statuses[0]["table"]
    assert statuses[1]["table"] == table
    for player in (ann, bob):
        assert player.subscribe(table)["t"] == "sync"
    state = ann.state(table)
    assert state["rated"] is True and state["status"] == "playing"
    seats = {seat["name"]: index for index, seat in enumerate(state["seats"])}
    by_seat: list[Player] = [None, None]
    for player in (ann, bob):
        by_seat[seats[player.name]] = player
    final = game_server.play_out(table, by_seat, choose=game_server.racing)
    winner, loser = by_seat[final["match"]["winner"]], by_seat[1 - final["match"]["winner"]]
    # Two new players, 1 point: ±4 · 5 · √1 · ½ = ±10 (see test_two_new_players_one_point).
    won, lost = _ratings(game_server, winner)["georgian"], _ratings(game_server, loser)["georgian"]
    assert won["rating"] == 1510 and lost["rating"] == 1490
    assert won["provisional"] and won["matches"] == 1 and won["experience"] == 1
    assert won["history"] == [{"table": table, "before": 1500, "after": 1510, "at": won["history"][0]["at"]}]
    board = game_server.client.get("/api/ratings/georgian").json()["players"]
    assert [(row["username"], row["rating"]) for row in board] == [(winner.name, 1510), (loser.name, 1490)]
    assert board[0]["provisional"] is True
    svg = game_server.client.get(f"/api/users/{winner.name}/ratings/georgian.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    ET.fromstring(svg.text)
    assert game_server.client.get("/api/ratings/chess").status_code == 404


def test_a_finished_matchmaking_match_is_never_offered_as_the_current_one(game_server: Server) -> None:
    """The status answers ``matched`` only while the pairing's match is being played: once it is over (here
    a player leaves it), both players are idle at once, not sent back to the finished table for 10 minutes.
    The pairing's table is rated and has the standard bank clock."""
    ann, bob = _player_at(game_server, "192.0.2.1"), _player_at(game_server, "192.0.2.2")
    for player in (ann, bob):
        assert player.post("/api/matchmaking/join", {"variant": "georgian", "match_length": 3}).status_code == 200
    waiting = ann.client.get("/api/matchmaking/status").json()
    assert (waiting["delay_seconds"], waiting["bank_seconds_per_point"]) == (12, 60)
    game_server.top_up()
    game_server.client.portal.call(game_server.app.state.matchmaking.wave)
    matched = ann.client.get("/api/matchmaking/status").json()
    assert matched["status"] == "matched"
    table = matched["table"]
    ann.subscribe(table)
    state = ann.state(table)
    assert state["rated"] and state["unrated_reason"] is None
    assert (state["delay_seconds"], state["bank_seconds_per_point"], state["banks"]) == (12, 60, [180.0, 180.0])
    assert state["deadline"] is not None
    bob.subscribe(table)
    bob.ok("leave", table)
    assert ann.catch_up(bob.version(table), table)["status"] == "finished"
    for player in (ann, bob):
        assert player.client.get("/api/matchmaking/status").json() == {"status": "idle"}
    assert ann.post("/api/matchmaking/join", {"variant": "georgian", "match_length": 3}).json()["status"] == "waiting"


def test_matchmaking_offer_across_400_points_over_http(game_server: Server) -> None:
    ann, bob = _player_at(game_server, "192.0.2.1"), _player_at(game_server, "192.0.2.2")
    service = game_server.app.state.matchmaking
    key = ("georgian", 1, 12, 60)
    now = game_server.app.state.clock.now()
    before = now - timedelta(minutes=5)
    game_server.client.portal.call(service.update, lambda pool: pool.join(ann.user["id"], 1500, key=key, now=before))
    game_server.client.portal.call(service.update, lambda pool: pool.join(bob.user["id"], 2000, key=key, now=before))
    game_server.client.portal.call(service.wave)
    offer = ann.client.get("/api/matchmaking/status").json()
    assert offer["status"] == "offer" and offer["offer"]["gap"] == 500
    assert offer["offer"]["opponent"] == bob.name
    offer_id = offer["offer"]["id"]
    assert ann.post(f"/api/matchmaking/offers/{offer_id}/confirm").json()["status"] == "offer"
    assert bob.post(f"/api/matchmaking/offers/{offer_id}/decline").json()["status"] == "idle"
    assert ann.client.get("/api/matchmaking/status").json()["status"] == "waiting"
    assert ann.post("/api/matchmaking/leave").json()["status"] == "idle"
    guest = game_server.guest()
    assert guest.post("/api/matchmaking/join", {"variant": "georgian"}).status_code == 403


def test_a_matchmaking_change_is_retried_when_another_process_wrote_first(game_server: Server) -> None:
    """Between reading the shared pool and writing it back, another process writes: the change is redone
    on what that process wrote, so neither change is lost."""
    service = game_server.app.state.matchmaking
    sessions = game_server.app.state.db
    now = game_server.app.state.clock.now()
    key = ("georgian", 1, 12, 60)
    attempts = []

    def other_process_writes() -> None:
        with sessions() as db:
            version, state = db.execute(select(MatchmakingRow.version, MatchmakingRow.state)).one()
            pool = MatchmakingPool.from_json(state)
            pool.join(902, 1600, key=key, now=now)
            db.execute(update(MatchmakingRow).values(version=version + 1, state=pool.to_json()))
            db.commit()

    def join_901(pool: MatchmakingPool) -> None:
        attempts.append(pool.waiting(902) is not None)
        if len(attempts) == 1:
            other_process_writes()
        pool.join(901, 1500, key=key, now=now)

    game_server.client.portal.call(service.update, lambda pool: pool.join(900, 1700, key=key, now=now))
    game_server.client.portal.call(service.update, join_901)
    assert attempts == [False, True]
    assert [game_server.client.portal.call(service.status, user)["status"] for user in (900, 901, 902)] == ["waiting"] * 3


def test_a_wave_that_pairs_nobody_writes_nothing(game_server: Server) -> None:
    """Every process runs a wave every 2 s: an idle wave must not rewrite the shared pool (or bump its version)."""
    service = game_server.app.state.matchmaking
    now = game_server.app.state.clock.now()
    game_server.client.portal.call(service.update, lambda pool: pool.join(903, 1500, key=("georgian", 1, 12, 60), now=now))

    def version() -> int:
        with game_server.app.state.db() as db:
            return int(db.execute(select(MatchmakingRow.version)).scalar_one())

    before = version()
    assert game_server.client.portal.call(service.wave) == []
    assert version() == before


def test_a_rated_match_queues_its_fair_play_analysis_behind_users(make_game_server: Any) -> None:
    """At its end a rated match is queued for the background analysis at the fair-play level, at the low priority;
    an unrated one is not (docs/fair-play.md)."""
    server = make_game_server(fair_play_analysis=True, analysis_poll_seconds=3600.0)  # the queue claims nothing
    players = [_player_at(server, "10.0.0.1"), _player_at(server, "10.0.0.2")]
    rated = _play_rated(server, players)
    unrated, seated = server.match("georgian", 1, players=players)
    server.play_out(unrated, seated, choose=server.racing)
    with server.client.app.state.db() as db:  # type: ignore[attr-defined]
        job = analyses_repo.get(db, rated["table"])
        assert job is not None and (job.status, job.level, job.requested_by) == ("queued", FAIR_PLAY_LEVEL, None)
        assert job.priority == BACKGROUND_PRIORITY < USER_PRIORITY
        assert analyses_repo.get(db, unrated) is None
