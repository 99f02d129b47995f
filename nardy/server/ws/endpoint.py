"""The ``/ws`` endpoint: one connection, its limits, and the dispatch of typed messages.

Inbound limits: a message larger than ``max_message_bytes`` or beyond the
per-connection rate (a token bucket) is answered with an error and dropped;
a message that does not parse is answered with an error naming the problem.
None of these changes anything. Actions need a signed-in user (or guest),
checked again every few seconds so a logout soon ends a socket's rights;
watching needs nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from nardy.server.api.security import session_from_cookie_header
from nardy.server.services.directory import TableDirectory
from nardy.server.services.table_state import ActionError
from nardy.server.settings import Settings
from nardy.server.ws.hub import Hub, Watcher
from nardy.server.ws.protocol import (
    Ping,
    ProtocolError,
    Subscribe,
    Unsubscribe,
    action_payload,
    echoed_ids,
    parse_message,
)

router = APIRouter()

SESSION_RECHECK_SECONDS = 5.0
"""How stale a connection's knowledge of its session may be: a logout takes effect within this."""


class TokenBucket:
    """Allows ``rate`` messages a second with bursts of up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._last = time.monotonic()

    def allow(self) -> bool:
        """Take a token if one is left."""
        now = time.monotonic()
        self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
        self._last = now
        if self._tokens >= 1:
            self._tokens -= 1
            return True
        return False


def _origin_allowed(websocket: WebSocket, settings: Settings) -> bool:
    """Refuse cross-site WebSocket hijacking: the Origin must be this host or an allowed one."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    if origin in settings.allowed_origins:
        return True
    return urlsplit(origin).netloc == websocket.headers.get("host")


@router.websocket("/ws")
async def websocket_endpoint(websocket: WebSocket) -> None:
    """Serve one client connection until it closes."""
    app = websocket.app
    settings: Settings = app.state.settings
    if not _origin_allowed(websocket, settings):
        await websocket.close(code=1008, reason="origin not allowed")
        return
    cookie = websocket.headers.get("cookie")

    def signed_in() -> tuple[int, str] | None:
        with app.state.db() as db:
            found = session_from_cookie_header(db, cookie)
        return None if found is None else (found[0].id, found[0].username)

    user = signed_in()
    user_id = user[0] if user is not None else None
    username = user[1] if user is not None else None
    await websocket.accept()
    connection = Connection(websocket, app.state.directory, app.state.hub, settings, user_id, signed_in)
    await connection.send({"t": "hello", "user": None if user_id is None else {"id": user_id, "username": username}})
    await connection.serve()


class Connection:
    """One client: a reader loop and a writer task draining the watcher queue."""

    def __init__(
        self,
        websocket: WebSocket,
        directory: TableDirectory,
        hub: Hub,
        settings: Settings,
        user_id: int | None,
        signed_in: Callable[[], tuple[int, str] | None],
    ) -> None:
        self._signed_in = signed_in
        self._session_checked_at = time.monotonic()
        self._websocket = websocket
        self._directory = directory
        self._hub = hub
        self._settings = settings
        self._user_id = user_id
        self._watcher = Watcher(user_id)
        self._bucket = TokenBucket(settings.messages_per_second, settings.message_burst)
        self._send_lock = asyncio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        """Send one message now."""
        await self._send_text(json.dumps(message))

    async def _send_text(self, text: str) -> None:
        async with self._send_lock:
            await self._websocket.send_text(text)

    async def serve(self) -> None:
        """Read messages until the client goes; forward table events meanwhile."""
        writer = asyncio.create_task(self._write())
        overflow = asyncio.create_task(self._watcher.overflowed.wait())
        reader = asyncio.create_task(self._read())
        try:
            await asyncio.wait({reader, overflow}, return_when=asyncio.FIRST_COMPLETED)
            if overflow.done() and not reader.done():
                with contextlib.suppress(Exception):
                    await self._websocket.close(code=1013, reason="too far behind: reconnect and resync")
        finally:
            for task in (writer, overflow, reader):
                task.cancel()
            for task in (writer, overflow, reader):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            self._hub.unwatch_all(self._watcher)

    async def _write(self) -> None:
        while True:
            text = await self._watcher.queue.get()
            await self._send_text(text)

    async def _read(self) -> None:
        limit = self._settings.max_message_bytes
        while True:
            try:
                received = await self._websocket.receive()
            except WebSocketDisconnect:
                return
            if received["type"] == "websocket.disconnect":
                return
            raw = received.get("text")
            if raw is None:
                raw_bytes = received.get("bytes") or b""
                size = len(raw_bytes)
            else:
                size = len(raw.encode())
            if size > limit:
                await self.send({"t": "error", "code": "too_large", "message": f"messages are at most {limit} bytes"})
                continue
            text = raw if raw is not None else received.get("bytes") or b""
            if not self._bucket.allow():
                await self.send({
                    "t": "error", "code": "rate_limited", "message": "too many messages: slow down",
                    **echoed_ids(text),
                })
                continue
            await self._handle(text)

    async def _handle(self, raw: str | bytes) -> None:
        try:
            message = parse_message(raw)
        except ProtocolError as error:
            await self.send({"t": "error", "code": "bad_message", "message": str(error), **echoed_ids(raw)})
            return
        if isinstance(message, Ping):
            await self.send({"t": "pong"})
        elif isinstance(message, Subscribe):
            await self._subscribe(message)
        elif isinstance(message, Unsubscribe):
            self._hub.unwatch(message.table, self._watcher)
        else:
            await self._act(message.table, message.action_id, action_payload(message))

    async def _subscribe(self, message: Subscribe) -> None:
        try:
            service = self._directory.service_for(message.table)
        except ActionError as error:
            await self.send({"t": "error", "code": error.code, "message": str(error), "table": message.table})
            return
        await self._hub.watch(message.table, self._watcher)
        version, state = await service.snapshot(message.table)
        since = message.since
        limit = self._settings.resync_event_limit
        if since is not None and since < version and version - since <= limit:
            events = service.events_since(message.table, since)
            await self.send({
                "t": "events", "table": message.table, "from_version": since + 1, "version": version,
                "events": events, "state": state,
            })
            return
        await self.send({"t": "sync", "table": message.table, "version": version, "state": state})

    def _still_signed_in(self) -> bool:
        """Whether the connection's session still stands; looked up at most every few seconds."""
        now = time.monotonic()
        if now - self._session_checked_at < SESSION_RECHECK_SECONDS:
            return True
        current = self._signed_in()
        if current is None or current[0] != self._user_id:
            return False
        self._session_checked_at = now
        return True

    async def _act(self, table_id: str, action_id: str, action: dict[str, Any]) -> None:
        if self._user_id is None or not self._still_signed_in():
            await self.send({"t": "error", "action_id": action_id, "code": "not_signed_in",
                             "message": "sign in or continue as a guest to play"})
            return
        try:
            version = await self._directory.act(table_id, user_id=self._user_id, action=action, action_id=action_id)
        except ActionError as error:
            await self.send({"t": "error", "action_id": action_id, "table": table_id, "code": error.code,
                             "message": str(error)})
            return
        await self.send({"t": "ack", "action_id": action_id, "table": table_id, "version": version})
