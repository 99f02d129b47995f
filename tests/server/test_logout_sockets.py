"""Logging out closes the session's WebSockets at once, in every server process.

Processes A and B share a SQLite database (WAL) and Redis. Alice is signed in
twice: session 1 (a socket on A and one on B, watching her table) and
session 2 (a socket on B). She logs session 1 out through A. Both of its
sockets must close with 4001 "signed out" well within the 5-second recheck,
the one on B included, and an action sent on B's socket right after the
logout must not be applied (the logout answers once B has answered the notice). Session 2's socket stays connected and still acts
for her. The notice that crossed Redis carries the SHA-256 of the session
token, never the token.

In-process: when notices may have been missed (the channel's subscriber fell
behind or Redis was away), every socket looks its session up again at once,
and the one whose session ended meanwhile closes with 4001. A session that
ends with no notice at all is found by the process's sweep, which looks up
every held session in one query.
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path

import pytest
import redis
from fastapi.testclient import TestClient
from sqlalchemy import event
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import ConnectionClosed

from nardy.server.app import create_app
from nardy.server.pubsub import DEFAULT_QUEUE_SIZE
from nardy.server.services import accounts
from nardy.server.settings import Settings
from nardy.server.auth.signouts import SIGN_OUT_CHANNEL
from tests.server.live_server import (
    FAST_CLIENT_ENV,
    PASSWORD,
    REDIS_URL,
    HttpUser,
    LiveServer,
    WsClient,
    inprocess_signup,
    inprocess_ws,
    redis_unreachable,
    running_together,
    unique_name,
)

CLOSED_WITHIN = 3.0
"""Seconds a signed-out socket may stay open: under the 5-second recheck, so the notice must do it."""


@pytest.fixture
def live_servers(tmp_path: Path) -> Iterator[tuple[LiveServer, LiveServer]]:
    reason = redis_unreachable()
    if reason is not None:
        pytest.skip(reason)
    database_url = f"sqlite:///{tmp_path / 'shared' / 'nardy.sqlite3'}"
    pair = [
        LiveServer(tmp_path / name, database_url=database_url, redis_url=REDIS_URL, env=FAST_CLIENT_ENV)
        for name in ("a", "b")
    ]
    with running_together(pair, graceful=True):
        yield pair[0], pair[1]


def closed_with(ws: WsClient, deadline: float) -> tuple[int, str, list[dict[str, object]]]:
    """Read until the server closes ``ws`` before ``deadline``: its close code, reason and the messages before."""
    seen = []
    while (left := deadline - time.monotonic()) > 0:
        try:
            seen.append(ws.recv(timeout=left))
        except ConnectionClosed as closed:
            assert closed.rcvd is not None, "closed without a close frame"
            return closed.rcvd.code, closed.rcvd.reason, seen
        except TimeoutError:
            break
    raise AssertionError(f"still open {CLOSED_WITHIN} s after the logout; it received {seen}")


def test_logout_through_one_process_closes_the_sessions_sockets_in_both(
    live_servers: tuple[LiveServer, LiveServer],
) -> None:
    a, b = live_servers
    name = unique_name("alice")
    first, second = HttpUser(a.base_url), HttpUser(b.base_url)
    first.signup(name)
    assert second.post("/api/login", {"username": name, "password": PASSWORD}).status_code == 200
    table = first.post("/api/tables", {"variant": "georgian", "match_length": 1}).json()["table"]["table"]
    token = first.http.cookies["nardy_session"]

    on_a, on_b = WsClient(a.ws_url, first.cookie_header), WsClient(b.ws_url, first.cookie_header)
    other_session = WsClient(b.ws_url, second.cookie_header)
    notices = redis.Redis.from_url(REDIS_URL, socket_timeout=5).pubsub()
    try:
        for ws in (on_a, on_b, other_session):
            assert ws.hello["user"]["username"] == name
        assert on_b.subscribe(table)["t"] == "sync"
        assert other_session.subscribe(table)["t"] == "sync"
        notices.subscribe("nardy:" + SIGN_OUT_CHANNEL)
        assert notices.get_message(timeout=5)["type"] == "subscribe"
        events_before = second.record(table)["events"]

        assert first.post("/api/logout").status_code == 204
        deadline = time.monotonic() + CLOSED_WITHIN
        late = f"after-logout-{uuid.uuid4().hex}"
        try:  # an action sent on B at once: refused, or the socket is already gone
            on_b.send({"t": "leave", "table": table, "action_id": late})
        except ConnectionClosed:
            pass
        code, reason, seen = closed_with(on_b, deadline)
        assert (code, reason) == (4001, "signed out")
        answers = [m for m in seen if m.get("action_id") == late]
        assert all(m["t"] == "error" and m["code"] == "not_signed_in" for m in answers), answers
        assert closed_with(on_a, deadline)[:2] == (4001, "signed out")
        assert second.record(table)["events"] == events_before, "the action sent after the logout was applied"

        other_session.send({"t": "ping"})
        assert other_session.wait_for(lambda m: m.get("t") == "pong")
        assert other_session.act(table, "leave")["t"] == "ack", "the other session no longer acts for Alice"

        digest = hashlib.sha256(token.encode()).hexdigest()
        published = []
        for _ in range(50):  # other servers' notices may cross the same Redis: look for this one
            message = notices.get_message(timeout=0.1)
            if message is not None and message["type"] == "message":
                published.append(message["data"].decode().partition(" ")[2])  # after the publisher's tag
                if published[-1].partition(" ")[0] == digest:  # then the request the processes answer
                    break
        assert any(notice.partition(" ")[0] == digest for notice in published), published
        assert not any(token in notice for notice in published)
    finally:
        notices.close()
        for ws in (on_a, on_b, other_session):
            ws.close()
        first.close()
        second.close()


def test_missed_notices_make_every_socket_look_its_session_up_again(tmp_path: Path) -> None:
    app = create_app(Settings(environment="testing", data_dir=tmp_path))
    reader = ThreadPoolExecutor(max_workers=1)
    with TestClient(app) as client, ExitStack() as stack:
        alice, bob = inprocess_signup(client, "alice"), inprocess_signup(client, "bob")
        gone, staying = inprocess_ws(stack, client, alice), inprocess_ws(stack, client, bob)
        with app.state.db() as db:  # Alice's session ends without a notice (as if it was lost)
            accounts.close_session(db, alice["nardy_session"])

        async def flood() -> None:  # more than the subscriber's queue holds, before it reads one
            for _ in range(DEFAULT_QUEUE_SIZE + 1):
                await app.state.pubsub.publish(SIGN_OUT_CHANNEL, "0" * 64)

        client.portal.call(flood)
        with pytest.raises(WebSocketDisconnect) as closed:
            reader.submit(gone.receive_json).result(timeout=CLOSED_WITHIN)
        assert (closed.value.code, closed.value.reason) == (4001, "signed out")
        staying.send_text('{"t": "ping"}')
        assert reader.submit(staying.receive_json).result(timeout=CLOSED_WITHIN) == {"t": "pong"}


def test_the_sweep_finds_a_session_that_ended_without_a_notice(tmp_path: Path) -> None:
    """One query for every session the process's sockets hold: the ended one's socket closes with 4001, and
    neither a notice nor an action of its own was needed."""
    app = create_app(Settings(environment="testing", data_dir=tmp_path))
    reader = ThreadPoolExecutor(max_workers=1)
    with TestClient(app) as client, ExitStack() as stack:
        alice, bob = inprocess_signup(client, "alice"), inprocess_signup(client, "bob")
        gone, staying = inprocess_ws(stack, client, alice), inprocess_ws(stack, client, bob)
        with app.state.db() as db:  # Alice's session ends without a notice
            accounts.close_session(db, alice["nardy_session"])
        statements: list[str] = []

        def note(*args: object) -> None:
            statements.append(str(args[2]))

        event.listen(app.state.engine, "before_cursor_execute", note)
        try:
            client.portal.call(app.state.sign_outs.sweep)
        finally:
            event.remove(app.state.engine, "before_cursor_execute", note)
        assert sum("FROM sessions" in sql for sql in statements) == 1, statements
        with pytest.raises(WebSocketDisconnect) as closed:
            reader.submit(gone.receive_json).result(timeout=CLOSED_WITHIN)
        assert (closed.value.code, closed.value.reason) == (4001, "signed out")
        staying.send_text('{"t": "ping"}')
        assert reader.submit(staying.receive_json).result(timeout=CLOSED_WITHIN) == {"t": "pong"}
