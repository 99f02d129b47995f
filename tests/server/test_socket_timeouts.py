"""Idle, half-open and silent sockets are closed within the documented times (raw sockets, a real server).

uvicorn on its own holds a connection that never finishes a request's
headers for ever (it sends nothing, half a request, half a WebSocket
handshake, or a byte now and then), and waits 40 s (two pings of 20 s) for a
WebSocket whose peer vanished. ``python -m nardy.server`` closes them after
``NARDY_REQUEST_HEADER_TIMEOUT``, ``NARDY_KEEP_ALIVE_TIMEOUT`` and
``NARDY_WS_PING_INTERVAL`` + ``NARDY_WS_PING_TIMEOUT``; here all short, and a
socket must be closed within its time plus :data:`SLACK`. A WebSocket whose
client answers the pings stays open.
"""

from __future__ import annotations

import base64
import os
import socket
import struct
import time
from collections.abc import Iterator

import pytest

from tests.server.live_server import LiveServer, WsClient


HEADER_TIMEOUT = 1.0
KEEP_ALIVE = 1
PING_INTERVAL = 0.5
PING_TIMEOUT = 0.5
SLACK = 2.0
"""Time allowed beyond a timeout (the test machine's cores are shared)."""


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    env = {
        "NARDY_REQUEST_HEADER_TIMEOUT": str(HEADER_TIMEOUT),
        "NARDY_KEEP_ALIVE_TIMEOUT": str(KEEP_ALIVE),
        "NARDY_WS_PING_INTERVAL": str(PING_INTERVAL),
        "NARDY_WS_PING_TIMEOUT": str(PING_TIMEOUT),
    }
    with LiveServer(tmp_path_factory.mktemp("timeouts"), env=env) as live:
        yield live


def open_socket(server: LiveServer, first: bytes = b"") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    if first:
        sock.sendall(first)
    return sock


def read_until_closed(sock: socket.socket, deadline: float) -> tuple[bool, bytes]:
    """Whether the server closed ``sock`` before ``deadline`` (monotonic), and what it sent meanwhile."""
    received = b""
    while (left := deadline - time.monotonic()) > 0:
        sock.settimeout(left)
        try:
            data = sock.recv(65536)
        except TimeoutError:
            break
        except ConnectionResetError:
            return True, received
        if not data:
            return True, received
        received += data
    return False, received


def handshake(server: LiveServer, *, complete: bool = True) -> bytes:
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
    )
    return (request + "\r\n" if complete else request).encode()


def frames(data: bytes) -> list[tuple[int, bytes]]:
    """The (opcode, payload) of the server's frames in ``data`` (unmasked, as a server sends them)."""
    found = []
    while len(data) >= 2:
        opcode, length = data[0] & 0x0F, data[1] & 0x7F
        start = 2
        if length == 126:
            (length,), start = struct.unpack("!H", data[2:4]), 4
        elif length == 127:
            (length,), start = struct.unpack("!Q", data[2:10]), 10
        found.append((opcode, data[start:start + length]))
        data = data[start + length:]
    return found


@pytest.mark.parametrize("first", [
    pytest.param(b"", id="says-nothing"),
    pytest.param(b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n", id="half-a-request"),
    pytest.param(b"GET /ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n", id="half-a-handshake"),
])
def test_a_connection_without_a_whole_request_is_closed(live_server: LiveServer, first: bytes) -> None:
    sock = open_socket(live_server, first)
    try:
        closed, _ = read_until_closed(sock, time.monotonic() + HEADER_TIMEOUT + SLACK)
        assert closed, "the server still holds a connection that never finished its request"
    finally:
        sock.close()


def test_a_request_trickled_a_byte_at_a_time_is_closed(live_server: LiveServer) -> None:
    sock = open_socket(live_server)
    request = b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 100
    deadline = time.monotonic() + HEADER_TIMEOUT + SLACK
    closed = False
    try:
        for byte in request:  # at most 100-odd bytes, 0.1 s apart, and no longer than the deadline
            try:
                sock.sendall(bytes([byte]))
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            closed, _ = read_until_closed(sock, min(deadline, time.monotonic() + 0.1))
            if closed or time.monotonic() >= deadline:
                break
        assert closed, "a byte now and then keeps the connection open"
    finally:
        sock.close()


def test_an_idle_keep_alive_connection_is_closed(live_server: LiveServer) -> None:
    sock = open_socket(live_server, b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    try:
        closed, received = read_until_closed(sock, time.monotonic() + KEEP_ALIVE + SLACK)
        assert received.startswith(b"HTTP/1.1 200"), received[:100]
        assert closed, "an idle keep-alive connection stays open"
    finally:
        sock.close()


def test_half_a_second_request_on_a_kept_connection_is_closed(live_server: LiveServer) -> None:
    sock = open_socket(live_server, b"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    try:
        sock.settimeout(5)
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        time.sleep(0.2)  # the whole response is in
        sock.sendall(b"GET /api/tables HTTP/1.1\r\nHo")  # stops the keep-alive timer; the header deadline holds
        closed, _ = read_until_closed(sock, time.monotonic() + HEADER_TIMEOUT + SLACK)
        assert closed, "half a second request keeps the connection open"
    finally:
        sock.close()


def test_a_websocket_whose_peer_answers_no_ping_is_closed(live_server: LiveServer) -> None:
    sock = open_socket(live_server, handshake(live_server))
    try:
        closed, received = read_until_closed(sock, time.monotonic() + PING_INTERVAL + PING_TIMEOUT + SLACK)
        assert received.startswith(b"HTTP/1.1 101"), received[:100]
        sent = frames(received.split(b"\r\n\r\n", 1)[1])
        assert closed, "a WebSocket that answers no ping stays open"
        opcodes = [opcode for opcode, _ in sent]
        assert opcodes[0] == 0x1 and 0x9 in opcodes, f"hello, then a ping: {sent}"
        close = [payload for opcode, payload in sent if opcode == 0x8]
        assert close and struct.unpack("!H", close[0][:2])[0] == 1011, sent
    finally:
        sock.close()


def test_a_websocket_that_answers_its_pings_stays_open(live_server: LiveServer) -> None:
    ws = WsClient(live_server.ws_url)  # the websockets client answers pings by itself
    try:
        time.sleep(HEADER_TIMEOUT + PING_INTERVAL + PING_TIMEOUT + 1)
        ws.send({"t": "ping"})
        assert ws.recv() == {"t": "pong"}
    finally:
        ws.close()
