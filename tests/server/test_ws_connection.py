"""One WebSocket connection's sending loop, against a stand-in socket.

docs/protocol.md, *Limits*: "each connection has a queue of 256 outgoing
messages. A client that does not read them is disconnected with close code
1013", and a socket whose login session ends is closed with 4001. The connection sends what its tables
publish in order, from its own task, and ends when its reader does; these
tests drive that loop with a socket whose sends can be stalled, as a paused
transport stalls them.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from nardy.server.settings import Settings
from nardy.server.ws.endpoint import Connection
from nardy.server.ws.hub import QUEUE_LIMIT


class StandInSocket:
    """What :class:`Connection` uses of a Starlette WebSocket; ``sending`` cleared stalls every send."""

    def __init__(self) -> None:
        self.unwatched: list[object] = []
        hub = SimpleNamespace(unwatch_all=self.unwatched.append)
        self.app = SimpleNamespace(state=SimpleNamespace(directory=None, hub=hub, sign_outs=None, db=None))
        self.headers: dict[str, str] = {}
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.sending = asyncio.Event()
        self.sending.set()
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None

    async def accept(self) -> None:
        return None

    async def receive(self) -> dict[str, Any]:
        return await self.inbox.get()

    async def send_text(self, text: str) -> None:
        await self.sending.wait()
        self.sent.append(text)

    async def close(self, code: int, reason: str) -> None:
        self.closed = (code, reason)
        self.inbox.put_nowait({"type": "websocket.disconnect", "code": code})


async def _open() -> tuple[StandInSocket, Connection, asyncio.Task[None]]:
    socket = StandInSocket()
    connection = Connection(socket, Settings())  # type: ignore[arg-type]
    served = asyncio.create_task(connection.run())
    while not socket.sent:  # the hello
        await asyncio.sleep(0)
    return socket, connection, served


def test_published_messages_go_out_in_order_and_the_connection_ends_with_its_reader() -> None:
    async def scenario() -> None:
        socket, connection, served = await _open()
        for n in range(3):
            connection._watcher.deliver("t1", f"message {n}")
        while len(socket.sent) < 4:
            await asyncio.sleep(0)
        assert socket.sent[1:] == ["message 0", "message 1", "message 2"]
        socket.inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})
        await asyncio.wait_for(served, 5)
        assert socket.closed is None
        assert socket.unwatched == [connection._watcher]

    asyncio.run(scenario())


def test_a_connection_too_far_behind_is_closed_for_a_resync() -> None:
    async def scenario() -> None:
        socket, connection, served = await _open()
        socket.sending.clear()
        connection._watcher.deliver("t1", "in flight")
        await asyncio.sleep(0.01)
        for n in range(QUEUE_LIMIT + 1):
            connection._watcher.deliver("t1", f"queued {n}")
        assert connection._watcher.overflowed
        socket.sending.set()
        await asyncio.wait_for(served, 5)
        assert socket.closed == (1013, "too far behind: reconnect and resync")
        assert socket.sent[1:] == ["in flight"]  # nothing queued is sent once the client is known to be lost

    asyncio.run(scenario())


def test_a_session_that_ends_closes_the_connection_with_4001() -> None:
    async def scenario() -> None:
        socket, connection, served = await _open()
        await asyncio.sleep(0.01)
        connection.signed_out()
        await asyncio.wait_for(served, 5)
        assert socket.closed == (4001, "signed out")

    asyncio.run(scenario())


def test_a_session_re_check_that_fails_is_left_to_the_sweep(caplog: pytest.LogCaptureFixture) -> None:
    """A doubt about the session (missed sign-out notices) whose lookup fails keeps the socket open and logs;
    the next doubt looks again."""
    async def scenario() -> None:
        socket, connection, served = await _open()
        lookups: list[int] = []

        def database_down() -> None:
            lookups.append(1)
            raise RuntimeError("the database is down")

        connection._sessions = database_down
        connection._user_id = 7  # as if the socket had been opened signed in
        for _ in range(2):
            connection.recheck_session()
            while connection._recheck is not None and not connection._recheck.done():
                await asyncio.sleep(0.01)
        assert len(lookups) == 2 and socket.closed is None and not served.done()
        socket.inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})
        await asyncio.wait_for(served, 5)

    asyncio.run(scenario())
    assert caplog.text.count("a session re-check failed") == 2
