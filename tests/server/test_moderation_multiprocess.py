"""Blocks and bans hold across server processes (``docs/moderation.md``).

«Each part has its tests (two server processes where a ban or a block must
hold across them).» «ban (closes the user's sockets at once, on every
process; a banned account cannot sit, chat or create)». Processes A and B
share one database (SQLite in WAL mode, or PostgreSQL) and Redis. A block
made through A refuses chat, a seat (at a table or a chouette) and a rematch
through B; a moderator's ban through A closes the banned player's socket on
B at once (well within the sessions' one-minute sweep, so the notice did it)
and B refuses their login. The
operator's ``nardy admin`` grants the role, lifts the ban and bans again: its
notice, sent from outside any server, closes the socket on B as well.
"""

from __future__ import annotations

import time

import pytest
from websockets.exceptions import ConnectionClosed

from nardy.cli import main
from tests.server.live_pair import database_url, live_servers, redis_url  # noqa: F401  (fixtures)
from tests.server.live_server import PASSWORD, HttpUser, LiveServer, WsClient, unique_name

CLOSED_WITHIN = 3.0
"""Seconds a banned player's socket may stay open: far under the sweep of a minute."""


def closes_with(ws: WsClient) -> int:
    """Read until the server closes ``ws`` within :data:`CLOSED_WITHIN`; its close code."""
    deadline = time.monotonic() + CLOSED_WITHIN
    while (left := deadline - time.monotonic()) > 0:
        try:
            ws.recv(timeout=left)
        except ConnectionClosed as closed:
            assert closed.rcvd is not None
            return closed.rcvd.code
        except TimeoutError:
            break
    raise AssertionError(f"still open {CLOSED_WITHIN} s after the ban")


def test_a_block_and_a_ban_hold_in_both_processes(
    live_servers: tuple[LiveServer, LiveServer], database_url: str, redis_url: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    a, b = live_servers
    names = {role: unique_name(role) for role in ("mod", "alice", "bob")}
    mod, alice_a, bob_a = HttpUser(a.base_url), HttpUser(a.base_url), HttpUser(a.base_url)
    for user, role in ((mod, "mod"), (alice_a, "alice"), (bob_a, "bob")):
        user.signup(names[role])
    assert main(["admin", "grant-moderator", names["mod"], "--database-url", database_url]) == 0
    assert main(["admin", "grant-moderator", "nobody-here", "--database-url", database_url]) == 1

    table = alice_a.post("/api/tables", {"variant": "georgian", "match_length": 1}).json()["table"]["table"]
    bob_b, alice_b = HttpUser(b.base_url), HttpUser(b.base_url)
    for user, role in ((bob_b, "bob"), (alice_b, "alice")):
        assert user.post("/api/login", {"username": names[role], "password": PASSWORD}).status_code == 200
    assert bob_b.post(f"/api/tables/{table}/join").status_code == 200
    alice_ws = WsClient(b.ws_url, alice_b.cookie_header)
    assert alice_ws.subscribe(table)["t"] == "sync"
    assert alice_ws.act(table, "say", text="hello")["t"] == "ack"

    assert bob_a.post("/api/me/blocks", {"username": names["alice"]}).status_code == 200
    refused = alice_ws.act(table, "say", text="hello again")
    assert (refused["t"], refused["code"]) == ("error", "blocked")
    waiting = bob_b.post("/api/tables", {"variant": "georgian", "match_length": 1}).json()["table"]["table"]
    assert alice_b.post(f"/api/tables/{waiting}/join").status_code == 403
    assert waiting not in {t["table"] for t in alice_b.get("/api/lobby").json()["waiting"]}

    banned = mod.post(f"/api/mod/users/{names['alice']}/actions", {"action": "ban", "reason": "abuse"})
    assert banned.status_code == 201, banned.text
    assert closes_with(alice_ws) == 4001
    assert alice_b.post("/api/tables", {"variant": "georgian", "match_length": 1}).status_code == 401
    assert alice_b.post("/api/login", {"username": names["alice"], "password": PASSWORD}).status_code == 403

    assert main(["admin", "unban", names["alice"], "--reason", "appeal", "--database-url", database_url]) == 0
    assert alice_b.post("/api/login", {"username": names["alice"], "password": PASSWORD}).status_code == 200
    again = WsClient(b.ws_url, alice_b.cookie_header)
    assert again.hello["user"]["username"] == names["alice"]
    monkeypatch.setenv("NARDY_REDIS_URL", redis_url)
    assert main(["admin", "ban", names["alice"], "--reason", "again", "--database-url", database_url]) == 0
    assert "1 session(s) ended" in capsys.readouterr().out
    assert closes_with(again) == 4001
    log = mod.get("/api/mod/log").json()["entries"]
    assert [(e["action"], e["moderator"]) for e in log[:3]] == [
        ("ban", None), ("unban", None), ("ban", names["mod"])]


def test_a_block_refuses_a_rematch_and_a_chouette_seat_in_the_other_process(
    live_servers: tuple[LiveServer, LiveServer],  # noqa: F811
) -> None:
    """«Blocks must hold everywhere a person meets another»: made through A, refused through B."""
    a, b = live_servers
    names = {role: unique_name(role) for role in ("alice", "bob")}
    alice_a, bob_a = HttpUser(a.base_url), HttpUser(a.base_url)
    for user, role in ((alice_a, "alice"), (bob_a, "bob")):
        user.signup(names[role])
    bob_b, alice_b = HttpUser(b.base_url), HttpUser(b.base_url)
    for user, role in ((bob_b, "bob"), (alice_b, "alice")):
        assert user.post("/api/login", {"username": names[role], "password": PASSWORD}).status_code == 200
    table = alice_a.post("/api/tables", {"variant": "georgian", "match_length": 1}).json()["table"]["table"]
    assert bob_b.post(f"/api/tables/{table}/join").status_code == 200
    alice_ws, bob_ws = WsClient(a.ws_url, alice_a.cookie_header), WsClient(b.ws_url, bob_b.cookie_header)
    for ws in (alice_ws, bob_ws):
        assert ws.subscribe(table)["t"] == "sync"
    alice_ws.must(table, "resign")  # georgian to 1: a resignation is a koks, which ends the match
    bob_ws.wait_version(table, alice_ws.feeds[table].version)
    assert bob_ws.state(table)["status"] == "finished"

    assert alice_a.post("/api/me/blocks", {"username": names["bob"]}).status_code == 200
    refused = bob_ws.act(table, "rematch")
    assert (refused["t"], refused["code"]) == ("error", "blocked")
    chouette = alice_a.post("/api/chouettes", {"max_players": 4}).json()["table"]
    assert bob_b.post(f"/api/chouettes/{chouette}/join").status_code == 403
    assert chouette not in {t["table"] for t in bob_b.get("/api/lobby").json()["waiting"]}
