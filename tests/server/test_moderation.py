"""Moderation through the real app in-process (``docs/moderation.md``).

«Report a player (cheating, abusive chat, stalling, other + text) ...;
rate-limited; the reporter sees that it was received.» «Block a player: no
chat from them, no invitations, matchmaking never pairs the two, their tables
hidden from the blocker's lobby.» «A moderator console ...: the report queue,
a user view ..., and actions: warn, mute chat for a time, ban (closes the
user's sockets at once ...; a banned account cannot sit, chat or create),
mark engine-assisted (off the leaderboards, rating frozen, opponents' rated
results restored), each with a reason, in an append-only audit log that
moderators can read. A player sees the warnings and restrictions on their
own account.» Bad input gets a clear 4xx and changes nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from starlette.websockets import WebSocketDisconnect

from nardy.cli import main
from nardy.server.services import moderation
from nardy.server.services.matchmaking import MatchmakingPool
from nardy.server.services.ratings import record_rated_match, standing_of
from nardy.store import moderation_repo, ratings_repo, users_repo
from nardy.store.models import ModerationAction
from tests.server.chouette_driver import make_chouette_game_server, three_at_a_chouette
from tests.server.game_server import PASSWORD, NoMessage

OPENING = [(3, 1)]


def make_moderator(game_server: Any, player: Any) -> None:
    """Grant ``player`` the role with ``nardy admin grant-moderator``, in the server's database."""
    database = game_server.app.state.settings.resolved_database_url
    assert main(["admin", "grant-moderator", player.name, "--database-url", database]) == 0


def act(moderator: Any, name: str, action: str, reason: str = "seen in the logs", **more: Any) -> Any:
    return moderator.post(f"/api/mod/users/{name}/actions", {"action": action, "reason": reason, **more})


def open_reports(game_server: Any) -> int:
    with game_server.app.state.db() as db:
        return len(moderation_repo.open_reports(db, limit=1000))


def test_a_report_is_received_and_bad_ones_change_nothing(game_server) -> None:
    alice, bob = game_server.player(connect=False), game_server.player(connect=False)
    table = game_server.create(alice, "georgian", 1, opponent="human")["table"]

    answer = alice.post("/api/reports", {"username": bob.name, "category": "abuse", "text": "rude", "table": table})
    assert answer.status_code == 201 and answer.json()["received"] is True

    for body, code in [
        ({"username": "nobody-here", "category": "abuse"}, 404),
        ({"username": alice.name, "category": "abuse"}, 422),
        ({"username": bob.name, "category": "rudeness"}, 422),
        ({"username": bob.name, "category": "other", "text": "   "}, 422),
        ({"username": bob.name, "category": "stalling", "table": "no-such-table"}, 404),
        ({"username": bob.name, "category": "stalling", "text": "x" * 1001}, 422),
        ({"username": bob.name, "category": "stalling", "extra": 1}, 422),
    ]:
        assert alice.post("/api/reports", body).status_code == code, body
    assert open_reports(game_server) == 1
    visitor = game_server.new_client()
    assert visitor.post("/api/reports", json={"username": bob.name, "category": "abuse"}).status_code == 401

    for _ in range(moderation.REPORTS_PER_PAIR_PER_DAY - 1):
        assert alice.post("/api/reports", {"username": bob.name, "category": "cheating"}).status_code == 201
    assert alice.post("/api/reports", {"username": bob.name, "category": "cheating"}).status_code == 429
    assert open_reports(game_server) == moderation.REPORTS_PER_PAIR_PER_DAY


def test_the_console_is_for_moderators_and_shows_the_queue_the_user_and_the_log(game_server) -> None:
    alice, bob, mod = (game_server.player(connect=False) for _ in range(3))
    report = alice.post("/api/reports", {"username": bob.name, "category": "cheating", "text": "too good"}).json()
    for path in ("/api/mod/reports", f"/api/mod/users/{bob.name}", "/api/mod/log"):
        assert mod.client.get(path).status_code == 403
    assert act(mod, bob.name, "warn").status_code == 403

    make_moderator(game_server, mod)
    assert mod.client.get("/api/session").json()["user"]["moderator"] is True
    (queued,) = mod.client.get("/api/mod/reports").json()["reports"]
    assert (queued["id"], queued["reporter"], queued["reported"], queued["category"]) == (
        report["id"], alice.name, bob.name, "cheating")

    view = mod.client.get(f"/api/mod/users/{bob.name}").json()
    assert [r["id"] for r in view["reports_against"]] == [report["id"]]
    assert {"games", "chat", "reports_by", "ratings", "coins", "shared_addresses", "log", "standing"} <= set(view)
    assert {a["username"] for a in view["shared_addresses"]} >= {alice.name}, "every test client has one address"
    assert mod.client.get("/api/mod/users/nobody-here").status_code == 404

    closed = mod.post(f"/api/mod/reports/{report['id']}/close", {"reason": "no sign of it"})
    assert closed.status_code == 200 and closed.json()["report"]["status"] == "closed"
    assert mod.post(f"/api/mod/reports/{report['id']}/close", {"reason": "again"}).status_code == 409
    assert mod.post("/api/mod/reports/999999/close", {"reason": "x"}).status_code == 404
    assert mod.client.get("/api/mod/reports").json()["reports"] == []

    assert act(mod, bob.name, "warn", "mind your words").status_code == 201
    for body, code in [
        ({"action": "warn", "reason": ""}, 422),
        ({"action": "scold", "reason": "x"}, 422),
        ({"action": "mute", "reason": "x"}, 422),  # a mute says for how long
        ({"action": "warn", "reason": "x", "minutes": 5}, 422),
        ({"action": "ban", "reason": "x", "minutes": 0}, 422),
    ]:
        assert mod.post(f"/api/mod/users/{bob.name}/actions", body).status_code == code, body
    assert act(mod, mod.name, "warn").status_code == 422, "not on one's own account"
    log = mod.client.get("/api/mod/log").json()["entries"]
    assert [(e["action"], e["target"], e["moderator"]) for e in log[:2]] == [
        ("warn", bob.name, mod.name), ("close_report", bob.name, mod.name)]
    assert log[-1]["action"] == "grant_moderator" and log[-1]["moderator"] is None
    older = mod.client.get(f"/api/mod/log?before={log[0]['id']}&limit=1").json()["entries"]
    assert [e["id"] for e in older] == [log[1]["id"]]

    standing = bob.client.get("/api/me/moderation").json()
    assert [w["reason"] for w in standing["warnings"]] == ["mind your words"]
    assert standing["muted"] is None and standing["banned"] is None


def test_a_mute_silences_the_chat_for_its_time(game_server) -> None:
    alice, bob, mod = (game_server.player() for _ in range(3))
    make_moderator(game_server, mod)
    table, _ = game_server.match("georgian", 1, opening=OPENING, players=[alice, bob])
    assert act(mod, alice.name, "mute", "insults", minutes=30).status_code == 201
    assert alice.refused("say", text="hello")["code"] == "muted"
    assert alice.client.get("/api/me/moderation").json()["muted"]["reason"] == "insults"
    bob.ok("say", text="hello")
    assert act(mod, alice.name, "unmute", "served").status_code == 201
    alice.ok("say", text="sorry")


def test_a_block_keeps_two_players_apart(game_server) -> None:
    alice, bob, carol = (game_server.player() for _ in range(3))
    table, _ = game_server.match("georgian", 1, opening=OPENING, players=[alice, bob])
    assert alice.post("/api/me/blocks", {"username": bob.name}).json() == {"blocked": [bob.name]}
    assert alice.post("/api/me/blocks", {"username": alice.name}).status_code == 422
    assert alice.post("/api/me/blocks", {"username": "nobody-here"}).status_code == 404
    assert bob.refused("say", text="hi")["code"] == "blocked"
    assert alice.refused("say", text="hi")["code"] == "blocked"

    waiting = game_server.create(bob, "georgian", 1, opponent="human")["table"]
    assert alice.post(f"/api/tables/{waiting}/join").status_code == 403
    lobby_of = lambda player: {t["table"] for t in player.client.get("/api/lobby").json()["waiting"]}  # noqa: E731
    assert waiting not in lobby_of(alice) and waiting in lobby_of(carol)
    own = game_server.create(alice, "georgian", 1, opponent="human")["table"]
    assert bob.post(f"/api/tables/{own}/join").status_code == 403, "nor the blocked one at the blocker's"

    assert alice.client.delete(f"/api/me/blocks/{bob.name}", headers=alice.csrf()).json() == {"blocked": []}
    assert waiting in lobby_of(alice)
    bob.ok("say", text="friends again")


def test_matchmaking_never_pairs_two_players_kept_apart() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    pool = MatchmakingPool()
    key = ("georgian", 3, 12, 90)
    for user_id in (1, 2):
        pool.join(user_id, 1500, key=key, now=now)
    assert pool.pair(now, apart={frozenset((1, 2))}) == []
    assert pool.pair(now, among={1}) == [], "a player whose blocks were not looked up waits a wave"
    (offer,) = pool.pair(now)
    assert {p.user_id for p in offer.players} == {1, 2}


def test_a_ban_closes_the_sockets_and_keeps_the_account_out_until_lifted(game_server) -> None:
    alice, mod = game_server.player(), game_server.player(connect=False)
    make_moderator(game_server, mod)
    assert alice.post("/api/matchmaking/join", {"variant": "georgian"}).json()["status"] == "waiting"
    assert act(mod, alice.name, "ban", "cheating, confirmed", minutes=60).status_code == 201
    matchmaking = game_server.app.state.matchmaking
    assert game_server.client.portal.call(matchmaking.status, alice.user["id"])["status"] == "idle", "nor is paired"
    with pytest.raises((WebSocketDisconnect, NoMessage)) as closed:
        while True:
            alice.recv(2)
    assert isinstance(closed.value, WebSocketDisconnect) and closed.value.code == 4001
    assert alice.post("/api/tables", {"variant": "georgian", "match_length": 1}).status_code == 401
    again = alice.post("/api/login", {"username": alice.name, "password": PASSWORD})
    assert again.status_code == 403 and "cheating, confirmed" in again.json()["detail"]

    assert act(mod, alice.name, "unban", "appeal granted").status_code == 201
    assert alice.post("/api/login", {"username": alice.name, "password": PASSWORD}).status_code == 200
    assert alice.post("/api/tables", {"variant": "georgian", "match_length": 1}).status_code == 201


def test_a_banned_account_cannot_sit_even_with_a_session_left(game_server) -> None:
    alice, bob = game_server.player(connect=False), game_server.player(connect=False)
    table = game_server.create(bob, "georgian", 1, opponent="human")["table"]
    with game_server.app.state.db() as db:  # a ban logged without ending the sessions (a race with a login)
        moderation_repo.add_action(db, ModerationAction(
            target_id=users_repo.by_name(db, alice.name).id, action="ban", reason="r", created_at=datetime.now(UTC)))
        db.commit()
    assert alice.post("/api/tables", {"variant": "georgian", "match_length": 1}).status_code == 403
    assert alice.post(f"/api/tables/{table}/join").status_code == 403
    assert alice.post("/api/matchmaking/join", {"variant": "georgian"}).status_code == 403
    assert alice.post("/api/chouettes", {"variant": "backgammon"}).status_code == 403
    assert alice.client.get("/api/me/moderation").json()["banned"]["reason"] == "r"


def test_an_engine_mark_freezes_the_rating_and_restores_the_opponents(game_server) -> None:
    cheat, victim, mod = (game_server.player(connect=False) for _ in range(3))
    make_moderator(game_server, mod)
    tables = [game_server.create(cheat, "georgian", 1, opponent="human")["table"] for _ in range(2)]
    at = datetime.now(UTC) - timedelta(days=1)
    with game_server.app.state.db() as db:
        ids = {p.name: users_repo.by_name(db, p.name).id for p in (cheat, victim)}
        for table in tables:
            record_rated_match(db, family="georgian", winner_user_id=ids[cheat.name],
                               loser_user_id=ids[victim.name], length=3, at=at, table_id=table)
        assert standing_of(db, ids[victim.name], "georgian").rating < 1500
    assert act(mod, cheat.name, "mark_engine", "matches the engine's choices").status_code == 201
    assert act(mod, cheat.name, "unmark_engine", "appeal").status_code == 201
    assert act(mod, cheat.name, "mark_engine", "confirmed").status_code == 201, "restored once per match"
    with game_server.app.state.db() as db:
        assert standing_of(db, ids[victim.name], "georgian").rating == pytest.approx(1500)
        frozen = standing_of(db, ids[cheat.name], "georgian").rating
        record_rated_match(db, family="georgian", winner_user_id=ids[victim.name],
                           loser_user_id=ids[cheat.name], length=3, at=datetime.now(UTC), table_id=tables[0])
        assert standing_of(db, ids[cheat.name], "georgian").rating == frozen
        assert cheat.name not in [name for name, _ in ratings_repo.leaderboard(db, "georgian")]
        assert victim.name in [name for name, _ in ratings_repo.leaderboard(db, "georgian")]
    assert cheat.client.get("/api/me/moderation").json()["engine_assisted"] is True


def test_the_matchmaking_waves_leave_a_blocked_pair_waiting(game_server) -> None:
    alice, bob = game_server.player(connect=False), game_server.player(connect=False)
    assert alice.post("/api/me/blocks", {"username": bob.name}).status_code == 200
    for player in (alice, bob):
        assert player.post("/api/matchmaking/join", {"variant": "georgian"}).json()["status"] == "waiting"
    matchmaking = game_server.app.state.matchmaking
    assert game_server.client.portal.call(matchmaking.wave) == []
    assert alice.client.delete(f"/api/me/blocks/{bob.name}", headers=alice.csrf()).status_code == 200
    game_server.top_up()
    game_server.client.portal.call(matchmaking.wave)
    assert bob.client.get("/api/matchmaking/status").json()["status"] == "matched"


def test_the_export_holds_the_addresses_and_blocks_and_a_deletion_erases_them(game_server) -> None:
    alice, bob = game_server.player(connect=False), game_server.player(connect=False)
    assert alice.post("/api/me/blocks", {"username": bob.name}).status_code == 200
    assert alice.post("/api/reports", {"username": bob.name, "category": "stalling"}).status_code == 201
    export = alice.client.get("/api/account/export").json()
    assert export["blocked"] == [bob.name]
    assert [a["address"] for a in export["addresses"]] == ["testclient"]

    assert alice.post("/api/account/delete", {"password": PASSWORD}).status_code == 204
    with game_server.app.state.db() as db:
        alice_id = alice.user["id"]
        assert moderation_repo.apart_from(db, alice_id) == set()
        assert moderation_repo.shared_addresses(db, users_repo.by_name(db, bob.name).id, limit=10) == []
        (report,) = moderation_repo.open_reports(db, limit=10)
        assert report.reporter_id is None, "the report stays, without its author"


def test_a_mute_silences_a_chouette_team_too(make_game_server) -> None:
    server = make_chouette_game_server(make_game_server)
    players, table = three_at_a_chouette(server)
    first = players[0]
    first.ok("start", table)
    state = first.wait(lambda s: s["status"] == "playing", table)
    member = next(p for p in players if {q["user_id"]: q["role"] for q in state["players"]}[p.user["id"]] != "box")
    mod = server.player(connect=False)
    make_moderator(server, mod)
    assert act(mod, member.user["username"], "mute", "spam", minutes=5).status_code == 201
    assert member.refused("team_say", table, text="double now?")["code"] == "muted"
    assert act(mod, member.user["username"], "unmute", "served").status_code == 201
    assert member.ok("team_say", table, text="double now?")
