"""The HTTP layer's defences: security headers, the API pages off in production, and the cap on request bodies.

The middlewares are tested three ways: through the real app in-process
(the ``game_server`` and ``make_game_server`` fixtures), alone around a small
ASGI app that records what reached it (to see that a refused body was never
read, and that a WebSocket passes untouched), and against a real ``python -m
nardy.server`` over a raw socket, where a body can be announced and not sent,
or streamed chunk by chunk.
"""

from __future__ import annotations

import asyncio
import select
import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from starlette.types import Message, Receive, Scope, Send

from nardy.server.api.body_limit import BodyLimitMiddleware
from nardy.server.api.security_headers import CONTENT_SECURITY_POLICY, SecurityHeadersMiddleware
from tests.server.live_server import LiveServer

Json = dict[str, Any]
LIMIT = 4096

# ----- security headers


def test_the_policy_fits_the_static_client() -> None:
    directives = dict(d.split(" ", 1) for d in CONTENT_SECURITY_POLICY.split("; "))
    assert directives == {
        "default-src": "'self'",
        "script-src": "'self'",
        "style-src": "'self'",
        "img-src": "'self'",
        "connect-src": "'self'",
        "manifest-src": "'self'",
        "worker-src": "'self'",
        "object-src": "'none'",
        "base-uri": "'none'",
        "form-action": "'self'",
        "frame-ancestors": "'none'",
    }


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/", 200),
        ("GET", "/js/app.js", 200),
        ("GET", "/css/app.css", 200),
        ("GET", "/sw.js", 200),
        ("GET", "/manifest.json", 200),
        ("GET", "/api/tables", 200),
        ("GET", "/api/me", 401),
        ("GET", "/no-such-page", 404),
        ("POST", "/api/guest", 201),
        ("POST", "/api/login", 422),
    ],
)
def test_every_http_response_carries_the_security_headers(game_server: Any, method: str, path: str, status: int) -> None:
    response = game_server.client.request(method, path)
    assert response.status_code == status
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert response.headers["x-frame-options"] == "DENY"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "same-origin"


def test_the_websocket_passes_the_header_middleware_untouched() -> None:
    seen: list[tuple[Scope, Receive, Send]] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        seen.append((scope, receive, send))

    async def receive() -> Message:
        return {"type": "websocket.connect"}

    async def send(message: Message) -> None:
        pass

    scope: Scope = {"type": "websocket", "path": "/ws", "headers": []}
    asyncio.run(SecurityHeadersMiddleware(app)(scope, receive, send))
    assert seen == [(scope, receive, send)]


def test_the_websocket_still_opens_through_the_app(game_server: Any) -> None:
    with game_server.client.websocket_connect("/ws") as websocket:
        assert websocket.receive_json() == {"t": "hello", "user": None}


def test_the_api_pages_are_off_in_production(make_game_server: Callable[..., Any]) -> None:
    production = make_game_server(environment="production").client
    for path in ("/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"):
        response = production.get(path)
        assert response.status_code == 404, path
        assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


def test_the_api_pages_outside_production_have_every_header_but_the_policy(game_server: Any) -> None:
    assert game_server.client.get("/openapi.json").status_code == 200
    for path in ("/docs", "/redoc"):
        response = game_server.client.get(path)
        assert response.status_code == 200, path
        assert "content-security-policy" not in response.headers, "FastAPI's pages load a CDN and inline script"
        assert response.headers["x-frame-options"] == "DENY"


# ----- the body cap, alone around a recording app


class Recorder:
    """An ASGI app that reads the whole body, then answers 200 with its size; records what it got."""

    def __init__(self) -> None:
        self.called = False
        self.body = b""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.called = True
        more = True
        while more:
            message = await receive()
            self.body += message.get("body", b"")
            more = message.get("more_body", False)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": str(len(self.body)).encode()})


def call(app: Any, chunks: list[bytes], headers: list[tuple[bytes, bytes]] | None = None) -> tuple[list[Message], int]:
    """Send one POST with ``chunks`` as its body through ``app``; the messages sent back and the chunks read."""
    pulled = 0
    sent: list[Message] = []

    async def receive() -> Message:
        nonlocal pulled
        pulled += 1
        return {"type": "http.request", "body": chunks[pulled - 1], "more_body": pulled < len(chunks)}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: Scope = {
        "type": "http", "method": "POST", "path": "/echo", "root_path": "", "query_string": b"",
        "headers": headers or [], "http_version": "1.1", "scheme": "http", "server": ("t", 80), "client": ("c", 1),
    }
    asyncio.run(app(scope, receive, send))
    return sent, pulled


def status_of(sent: list[Message]) -> int:
    status: int = sent[0]["status"]
    return status


def test_a_declared_length_over_the_cap_is_refused_before_anything_is_read() -> None:
    inner = Recorder()
    sent, pulled = call(
        BodyLimitMiddleware(inner, max_bytes=LIMIT), [b"x"], headers=[(b"content-length", str(LIMIT + 1).encode())]
    )
    assert status_of(sent) == 413
    assert sent[1]["body"] == b'{"detail":"request body over the limit of 4096 bytes"}'
    assert (pulled, inner.called) == (0, False)


@pytest.mark.parametrize("length", [b"99999999999999999999999", b"100000000"])
def test_a_huge_declared_length_is_refused_too(length: bytes) -> None:
    inner = Recorder()
    sent, pulled = call(BodyLimitMiddleware(inner, max_bytes=LIMIT), [b"x"], headers=[(b"content-length", length)])
    assert (status_of(sent), pulled, inner.called) == (413, 0, False)


def test_a_streamed_body_is_refused_once_the_count_passes_the_cap() -> None:
    inner = Recorder()
    sent, pulled = call(BodyLimitMiddleware(inner, max_bytes=LIMIT), [b"x" * 1024] * 1000)
    assert status_of(sent) == 413
    assert pulled == 5, "the fifth kilobyte passes the cap: nothing more is read"
    assert len(sent) == 2, "only the refusal was sent"


def test_a_body_at_the_cap_goes_through_whole() -> None:
    inner = Recorder()
    sent, pulled = call(BodyLimitMiddleware(inner, max_bytes=LIMIT), [b"x" * 1024] * 4,
                        headers=[(b"content-length", str(LIMIT).encode())])
    assert (status_of(sent), sent[1]["body"], pulled) == (200, b"4096", 4)


def test_a_fastapi_route_answers_the_streamed_overflow_with_413_and_never_runs() -> None:
    app = FastAPI()
    ran: list[Json] = []

    @app.post("/echo")
    def echo(body: Json) -> Json:
        ran.append(body)
        return body

    sent, pulled = call(BodyLimitMiddleware(app, max_bytes=LIMIT), [b'{"a": "'] + [b"x" * 1024] * 1000 + [b'"}'])
    assert status_of(sent) == 413
    assert b"request body over the limit of 4096 bytes" in b"".join(m.get("body", b"") for m in sent)
    assert pulled == 5 and ran == []


# ----- the body cap in the real app


def test_the_app_refuses_an_oversized_json_body(make_game_server: Callable[..., Any]) -> None:
    client = make_game_server(max_body_bytes=1024).client
    response = client.post("/api/signup", json={"username": "alice", "password": "x" * 2000})
    assert response.status_code == 413
    assert response.json() == {"detail": "request body over the limit of 1024 bytes"}
    assert response.headers["x-content-type-options"] == "nosniff"
    assert client.get("/api/me").status_code == 401, "nobody was signed up"


def test_the_default_cap_is_64_kib(game_server: Any) -> None:
    assert game_server.app.state.settings.max_body_bytes == 65536
    assert game_server.client.post("/api/guest", content=b"x" * 65537).status_code == 413
    assert game_server.client.post("/api/guest", content=b"{}").status_code == 201


# ----- the body cap against a real server process, over a raw socket


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    with LiveServer(tmp_path_factory.mktemp("live")) as running:
        yield running


def read_head(sock: socket.socket) -> bytes:
    """The response's status line and headers (the body, if it came along, is cut off)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.split(b"\r\n\r\n", 1)[0]


def request_head(port: int, extra: str) -> bytes:
    return (
        f"POST /api/signup HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n{extra}\r\n"
    ).encode()


def test_a_real_server_refuses_a_declared_100_mb_body_without_waiting_for_it(live_server: LiveServer) -> None:
    with socket.create_connection(("127.0.0.1", live_server.port), timeout=10) as sock:
        sock.sendall(request_head(live_server.port, "Content-Length: 100000000\r\n"))
        head = read_head(sock)
    assert head.startswith(b"HTTP/1.1 413"), head


def test_a_real_server_refuses_a_streamed_body_soon_after_the_cap(live_server: LiveServer) -> None:
    chunk = b"x" * 8192
    sent = 0
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)  # little in flight: sent is close to read
        sock.settimeout(10)
        sock.connect(("127.0.0.1", live_server.port))
        sock.sendall(request_head(live_server.port, "Transfer-Encoding: chunked\r\n"))
        while sent < 100_000_000:
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:
                break  # the server answered and closed
            sent += len(chunk)
            if select.select([sock], [], [], 0)[0]:
                break
        head = read_head(sock)
    assert head.startswith(b"HTTP/1.1 413"), head
    assert sent < 2_000_000, f"{sent} bytes went out before the refusal (the socket buffers hold a few 100 KB)"
