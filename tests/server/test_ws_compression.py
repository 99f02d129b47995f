"""``NARDY_WS_COMPRESSION``: the server accepts permessage-deflate unless told not to (a real server)."""

from __future__ import annotations

import base64
import os
import socket
from pathlib import Path

import pytest

from tests.server.live_server import LiveServer


def upgrade_reply(server: LiveServer) -> str:
    """The server's answer to a WebSocket handshake that offers permessage-deflate, as browsers do."""
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(request.encode())
        received = b""
        while b"\r\n\r\n" not in received:
            data = sock.recv(4096)
            assert data, "the server closed the connection during the handshake"
            received += data
    return received.split(b"\r\n\r\n", 1)[0].decode().lower()


@pytest.mark.parametrize(("setting", "accepted"), [(None, True), ("0", False)])
def test_permessage_deflate_follows_the_setting(tmp_path: Path, setting: str | None, accepted: bool) -> None:
    env = {} if setting is None else {"NARDY_WS_COMPRESSION": setting}
    with LiveServer(tmp_path, env=env) as server:
        reply = upgrade_reply(server)
    assert reply.startswith("http/1.1 101"), reply
    assert ("sec-websocket-extensions: permessage-deflate" in reply) is accepted, reply
