"""The WebSocket endpoint's limits on one client: sockets per address, tables per socket, frames per second.

Against a real ``python -m nardy.server`` (so the client address is the
socket's, and the close codes are what a real client sees):

* one address holds at most ``NARDY_MAX_SOCKETS_PER_ADDRESS`` sockets; the one
  over is closed with 1013 "too many connections from your address", and a
  slot comes back when a socket closes;
* one socket watches at most ``NARDY_MAX_SUBSCRIPTIONS`` tables; a subscribe
  beyond is answered ``too_many_subscriptions`` and watches nothing;
* every frame, an oversized one too, spends the socket's rate, and a client
  that goes on sending past ``NARDY_MESSAGE_OVERRUN`` dropped frames is
  closed with 1008.

In-process (``TestClient``), where the session lookup can be slowed down and
counted: a socket over the cap is refused before its session is looked up,
and a slow lookup (a slow database) stalls no other socket.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from nardy.server.app import create_app
from nardy.server.settings import Settings
from nardy.server.ws import endpoint
from nardy.server.ws.limits import AddressSlots
from tests.server.live_server import FAST_CLIENT_ENV, HttpUser, LiveServer, WsClient, inprocess_signup, inprocess_ws, unique_name

Json = dict[str, Any]
T = TypeVar("T")

SOCKETS_PER_ADDRESS = 3
SUBSCRIPTIONS = 2
BURST = 5
OVERRUN = 5
OVERSIZED = 5000  # over the default max_message_bytes of 4096, under uvicorn's 64 KiB
WAIT = 5.0

_threads = ThreadPoolExecutor(max_workers=4, thread_name_prefix="ws-limits")


def within(call: Callable[[], T], seconds: float = WAIT) -> T:
    """``call()`` (a blocking ``TestClient`` read), failing the test if it takes longer than ``seconds``."""
    return _threads.submit(call).result(timeout=seconds)


@pytest.fixture(scope="module")
def capped(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    env = {
        **FAST_CLIENT_ENV,
        "NARDY_MAX_SOCKETS_PER_ADDRESS": str(SOCKETS_PER_ADDRESS),
        "NARDY_MAX_SUBSCRIPTIONS": str(SUBSCRIPTIONS),
    }
    with LiveServer(tmp_path_factory.mktemp("capped"), env=env) as server:
        yield server


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    env = {
        "NARDY_MESSAGES_PER_SECOND": "0.01",
        "NARDY_MESSAGE_BURST": str(BURST),
        "NARDY_MESSAGE_OVERRUN": str(OVERRUN),
    }
    with LiveServer(tmp_path_factory.mktemp("strict"), env=env) as server:
        yield server


def close_of(ws: WsClient) -> ConnectionClosed:
    """The close the server sends next (after any other messages); fails if it does not come in time."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        try:
            ws.recv(timeout=max(0.1, deadline - time.monotonic()))
        except ConnectionClosed as closed:
            return closed
    raise AssertionError("the server did not close the connection")


def test_one_address_holds_at_most_the_cap_of_sockets(capped: LiveServer) -> None:
    sockets = [WsClient(capped.ws_url) for _ in range(SOCKETS_PER_ADDRESS)]
    try:
        with connect(capped.ws_url, open_timeout=WAIT) as over:
            with pytest.raises(ConnectionClosed) as refused:
                over.recv(timeout=WAIT)
        assert refused.value.rcvd is not None
        assert (refused.value.rcvd.code, refused.value.rcvd.reason) == (1013, "too many connections from your address")
        for ws in sockets:  # the sockets within the cap are served as before
            ws.send({"t": "ping"})
            assert ws.recv() == {"t": "pong"}

        sockets.pop().close()
        for _ in range(50):  # the closed socket's slot comes back once the server has seen it go
            try:
                sockets.append(WsClient(capped.ws_url))
                break
            except ConnectionClosed:
                time.sleep(0.1)
        assert len(sockets) == SOCKETS_PER_ADDRESS
    finally:
        for ws in sockets:
            ws.close()


def test_a_socket_watches_at_most_the_cap_of_tables(capped: LiveServer) -> None:
    alice, bob = HttpUser(capped.base_url), HttpUser(capped.base_url)
    alice.signup(unique_name("alice"))
    bob.signup(unique_name("bob"))
    tables = [
        alice.post("/api/tables", {"variant": "georgian", "match_length": 1}).json()["table"]["table"]
        for _ in range(SUBSCRIPTIONS + 1)
    ]
    *within_cap, beyond = tables
    ws = WsClient(capped.ws_url)
    try:
        for table in within_cap:
            assert ws.subscribe(table)["t"] == "sync"
        refused = ws.subscribe(beyond)
        assert refused == {
            "t": "error", "code": "too_many_subscriptions", "table": beyond,
            "message": f"a connection watches at most {SUBSCRIPTIONS} tables: unsubscribe from one first",
        }
        assert ws.subscribe(within_cap[0], since=0)["t"] == "events", "a table already watched may be resubscribed"

        assert bob.post(f"/api/tables/{beyond}/join").status_code == 200  # news of the refused table...
        ws.send({"t": "ping"})
        assert ws.recv() == {"t": "pong"}, "...does not reach the socket: it does not watch that table"

        ws.send({"t": "unsubscribe", "table": within_cap[1]})
        assert ws.subscribe(beyond)["t"] == "sync", "unsubscribing makes room"
    finally:
        ws.close()
        alice.close()
        bob.close()


def test_every_frame_spends_the_rate_and_a_client_that_goes_on_is_disconnected(strict: LiveServer) -> None:
    ws = WsClient(strict.ws_url)
    try:
        pad = "x" * OVERSIZED
        for _ in range(BURST):
            ws.send(json.dumps({"t": "ping", "pad": pad}))
            assert ws.recv()["code"] == "too_large"
        ws.send({"t": "ping"})
        assert ws.recv() == {"t": "error", "code": "rate_limited", "message": "too many messages: slow down"}, (
            "oversized frames spent the burst"
        )
        ws.send(json.dumps({"t": "roll", "table": "abc", "action_id": "big-one", "pad": pad}))
        assert ws.recv() == {"t": "error", "code": "rate_limited", "message": "too many messages: slow down"}, (
            "an oversized frame over the rate is not read, not even for its ids"
        )
        ws.send(json.dumps({"t": "roll", "table": "abc", "action_id": "small-one"}))
        assert ws.recv() == {"t": "error", "code": "rate_limited", "message": "too many messages: slow down",
                             "table": "abc", "action_id": "small-one"}
        for _ in range(OVERRUN - 3):
            ws.send({"t": "ping"})
            assert ws.recv()["code"] == "rate_limited"
        ws.send({"t": "ping"})  # one dropped frame more than the overrun
        closed = close_of(ws)
        assert closed.rcvd is not None
        assert (closed.rcvd.code, closed.rcvd.reason) == (1008, "too many messages")
    finally:
        ws.close()


def test_a_socket_over_the_cap_is_refused_before_its_session_is_looked_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lookups: list[str | None] = []
    real = endpoint.session_from_cookie_header

    def counted(db: Any, cookie: str | None) -> Any:
        lookups.append(cookie)
        return real(db, cookie)

    monkeypatch.setattr(endpoint, "session_from_cookie_header", counted)
    app = create_app(Settings(environment="testing", data_dir=tmp_path, max_sockets_per_address=2))
    with TestClient(app) as client, ExitStack() as stack:
        alice = inprocess_signup(client, "alice")
        cookie = {"cookie": "; ".join(f"{k}={v}" for k, v in alice.items())}
        first, _second = inprocess_ws(stack, client, alice), inprocess_ws(stack, client, alice)
        assert len(lookups) == 2
        with client.websocket_connect("/ws", headers=cookie) as over:
            with pytest.raises(WebSocketDisconnect) as refused:
                within(over.receive_json)
        assert (refused.value.code, refused.value.reason) == (1013, "too many connections from your address")
        assert len(lookups) == 2, "the refused socket cost a session lookup"

        first.close()
        slots = app.state.socket_slots
        deadline = time.monotonic() + WAIT
        while slots.held("testclient") > 1 and time.monotonic() < deadline:  # TestClient's client address
            time.sleep(0.01)  # the server gives the slot back once its side of the socket has closed
        with client.websocket_connect("/ws", headers=cookie) as again:
            assert within(again.receive_json)["user"]["username"] == "alice"
        assert len(lookups) == 3


def test_a_slow_session_lookup_stalls_no_other_socket(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    slow_seconds = 1.5
    looking_up = threading.Event()
    real = endpoint.session_from_cookie_header

    def slow(db: Any, cookie: str | None) -> Any:
        looking_up.set()
        time.sleep(slow_seconds)  # a database that takes its time
        return real(db, cookie)

    monkeypatch.setattr(endpoint, "session_from_cookie_header", slow)
    app = create_app(Settings(environment="testing", data_dir=tmp_path))
    with TestClient(app) as client, ExitStack() as stack:
        alice = inprocess_signup(client, "alice")
        visitor = inprocess_ws(stack, client, None)  # no cookie: nothing to look up
        cookie = {"cookie": "; ".join(f"{k}={v}" for k, v in alice.items())}

        def open_slowly() -> Json:
            ws = stack.enter_context(client.websocket_connect("/ws", headers=cookie))
            hello: Json = ws.receive_json()
            return hello

        opening = _threads.submit(open_slowly)
        assert looking_up.wait(WAIT)
        started = time.monotonic()
        visitor.send_text('{"t": "ping"}')
        assert within(visitor.receive_json) == {"t": "pong"}
        assert time.monotonic() - started < slow_seconds / 3, "the lookup held up another socket"
        assert opening.result(timeout=slow_seconds + WAIT)["user"]["username"] == "alice"


def test_the_slots_count_every_open_socket_once() -> None:
    """The garbage collector asks this total whether the process is quiet (nardy.server.runtime.collector)."""
    slots = AddressSlots(limit=2)
    assert [slots.take("a"), slots.take("a"), slots.take("a"), slots.take("b")] == [True, True, False, True]
    assert slots.total() == 3
    slots.give_back("a")
    slots.give_back("c")  # never taken: nothing to give back
    assert slots.total() == 2
    slots.give_back("a")
    slots.give_back("b")
    assert slots.total() == 0
