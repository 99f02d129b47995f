"""The ``/ws`` endpoint: one connection, its limits, and the dispatch of typed messages.

Limits (``docs/protocol.md``, *Limits*): one client address holds at most
``max_sockets_per_address`` connections in this process, and the one over
is closed with 1013 before anything is looked up. Every inbound frame costs
a token of the connection's rate (:class:`~nardy.server.ws.limits.TokenBucket`),
whatever its size: beyond the rate a frame is answered ``rate_limited`` and
dropped, and a client that goes on sending past ``message_overrun`` dropped
frames is closed with 1008. Within the rate, a frame larger than
``max_message_bytes`` is answered ``too_large`` and dropped, and one that does
not parse is answered with an error naming the problem. A connection watches
at most ``max_subscriptions`` tables. None of these refusals changes anything.

Actions need a signed-in user (or guest). A connection opened with a login
session closes with 4001 the moment the session signs out, in whichever
process (:mod:`nardy.server.auth.signouts`); before an action the session is
also looked up again once the session has expired or the last look is a
minute old, the backstop for notices that were missed. Watching needs nothing,
except at a private table: its members, or the holder of its invite token.
Session lookups are database calls: they run in a worker thread, so a slow
database stalls no socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import urlsplit

from fastapi import WebSocket, WebSocketDisconnect
from starlette.concurrency import run_in_threadpool

from nardy.server.auth.cookies import session_from_cookie_header, session_token
from nardy.server.auth.signouts import SignOuts, session_digest
from nardy.server.auth.table_access import PRIVATE_TABLE, PRIVATE_TABLE_MESSAGE, may_watch_table
from nardy.server.runtime.log_context import note_user
from nardy.server.runtime.metrics import Metrics
from nardy.server.services.directory import TableDirectory
from nardy.server.services.table_state import ActionError
from nardy.server.settings import Settings
from nardy.server.ws.hub import Hub, Watcher
from nardy.server.ws.limits import AddressSlots, TokenBucket, Verdict
from nardy.server.ws.protocol import (
    Ping,
    ProtocolError,
    Subscribe,
    Unsubscribe,
    action_payload,
    echoed_ids,
    parse_message,
)
from nardy.server.ws.publisher import events_message
from nardy.server.ws.wire import encode

log = logging.getLogger(__name__)

CLOSE_POLICY: Final = 1008
"""Close code for a client that breaks a rule: a foreign origin, or sending on far beyond its rate."""
CLOSE_TRY_AGAIN: Final = 1013
"""Close code for "reconnect later": too many connections from the address, or too far behind."""
CLOSE_SIGNED_OUT: Final = 4001
"""Close code for a connection whose login session ended: reconnect as a visitor."""


def _origin_allowed(websocket: WebSocket, settings: Settings) -> bool:
    """Refuse cross-site WebSocket hijacking: the Origin must be this host or an allowed one."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    if origin in settings.allowed_origins:
        return True
    return urlsplit(origin).netloc == websocket.headers.get("host")


async def websocket_endpoint(websocket: WebSocket) -> None:
    """Serve one client connection until it closes."""
    settings: Settings = websocket.app.state.settings
    if not _origin_allowed(websocket, settings):
        await websocket.close(code=CLOSE_POLICY, reason="origin not allowed")
        return
    slots: AddressSlots = websocket.app.state.socket_slots
    address = websocket.client.host if websocket.client is not None else ""
    if not slots.take(address):
        await websocket.accept()
        await websocket.close(code=CLOSE_TRY_AGAIN, reason="too many connections from your address")
        return
    metrics: Metrics = websocket.app.state.metrics
    metrics.socket_opened()
    try:
        await Connection(websocket, settings).run()
    finally:
        slots.give_back(address)
        metrics.socket_closed()


class Connection:
    """One client: a reader task, and the connection's own task sending what its watched tables publish.

    Two tasks a connection, and no task or event per thing it waits for: a
    live server holds hundreds of connections, and every object they keep is
    walked by each collection of CPython's old generation
    (:mod:`nardy.server.runtime.collector`). One event, ``_wake``, tells the sending
    task that something is to do: a message to send, the reader gone, the
    watcher overflowed, or the session ended.
    """

    def __init__(self, websocket: WebSocket, settings: Settings) -> None:
        app = websocket.app
        self._websocket = websocket
        self._settings = settings
        self._directory: TableDirectory = app.state.directory
        self._hub: Hub = app.state.hub
        self._sign_outs: SignOuts = app.state.sign_outs
        self._sessions = app.state.db
        self._cookie = websocket.headers.get("cookie")
        self._user_id: int | None = None
        self._session_expires_at = datetime.max.replace(tzinfo=UTC)
        self._session_ended = False
        self._in_doubt = False
        self._serving = False
        self._recheck: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._watcher = Watcher(self._wake)
        self._tables: set[str] = set()
        self._bucket = TokenBucket(settings.messages_per_second, settings.message_burst, settings.message_overrun)
        self._send_lock = asyncio.Lock()

    async def run(self) -> None:
        """Look the session up, accept, say hello and serve until the client goes."""
        token = session_token(self._cookie)
        held = None if token is None else session_digest(token)
        if held is not None:  # before the lookup, so a sign-out meanwhile is not missed
            self._sign_outs.hold(held, self)
        try:
            user = None if held is None else await run_in_threadpool(self._session_user)
            if self._session_ended:
                user = None
            if user is not None:
                self._user_id = self._watcher.user_id = user[0]
                note_user(user[0])
            elif held is not None:  # a cookie of no session (any more): a visitor, nothing to sign out
                self._sign_outs.release(held, self)
                held = None
            await self._websocket.accept()
            await self.send({"t": "hello", "user": None if user is None else {"id": user[0], "username": user[1]}})
            await self._serve()
        finally:
            if held is not None:
                self._sign_outs.release(held, self)

    def signed_out(self) -> None:
        """The login session ended (a sign-out notice, or a lookup that found it gone): stop acting for it."""
        self._user_id = self._watcher.user_id = None  # no team messages from now on either
        note_user(None)
        self._session_ended = True
        self._wake.set()

    def recheck_session(self) -> None:
        """Sign-out notices may have been missed: look the session up again now (once serving)."""
        self._in_doubt = True
        if self._serving and (self._recheck is None or self._recheck.done()):
            self._recheck = asyncio.create_task(self._recheck_while_in_doubt())

    async def send(self, message: dict[str, Any]) -> None:
        """Send one message now."""
        await self._send_text(encode(message))

    async def _send_text(self, text: str) -> None:
        async with self._send_lock:
            await self._websocket.send_text(text)

    async def _serve(self) -> None:
        """Read messages until the client goes; send what the watched tables publish meanwhile."""
        reader = asyncio.create_task(self._read())
        reader.add_done_callback(lambda _: self._wake.set())
        self._serving = True
        if self._in_doubt:
            self.recheck_session()
        try:
            while not reader.done():
                if self._session_ended or self._watcher.overflowed:
                    await self._close_for_cause()
                    return
                text = self._watcher.next_message()
                if text is not None:
                    try:
                        await self._send_text(text)
                    except Exception:  # the client is gone, and so will the reader be: nothing to report
                        return
                else:
                    self._wake.clear()
                    await self._wake.wait()
        finally:
            self._serving = False
            tasks = [task for task in (reader, self._recheck) if task is not None]
            for task in tasks:
                task.cancel()
            for task in tasks:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
            self._hub.unwatch_all(self._watcher)

    async def _close_for_cause(self) -> None:
        """Close with 4001 once the session ended, else with 1013 (too far behind); the client may be gone."""
        if self._session_ended:
            code, reason = CLOSE_SIGNED_OUT, "signed out"
        else:
            code, reason = CLOSE_TRY_AGAIN, "too far behind: reconnect and resync"
        with contextlib.suppress(Exception):
            await self._websocket.close(code=code, reason=reason)

    async def _recheck_while_in_doubt(self) -> None:
        """Look the session up until no new doubt came meanwhile; a failed lookup is left to the sweep."""
        while self._in_doubt:
            self._in_doubt = False
            try:
                await self._still_signed_in(now=True)
            except Exception:
                log.warning("a session re-check failed; the sweep of held sessions looks again", exc_info=True)
                return

    async def _read(self) -> None:
        limit = self._settings.max_message_bytes
        while True:
            try:
                received = await self._websocket.receive()
            except WebSocketDisconnect:
                return
            if received["type"] == "websocket.disconnect":
                return
            verdict = self._bucket.take()
            if verdict is Verdict.EXHAUSTED:
                await self._websocket.close(code=CLOSE_POLICY, reason="too many messages")
                return
            text = received.get("text")
            raw: str | bytes = text if text is not None else received.get("bytes") or b""
            size = len(raw.encode()) if isinstance(raw, str) else len(raw)
            if verdict is Verdict.DROPPED:
                await self.send({
                    "t": "error", "code": "rate_limited", "message": "too many messages: slow down",
                    **(echoed_ids(raw) if size <= limit else {}),  # an oversized frame is not read at all
                })
                continue
            if size > limit:
                await self.send({"t": "error", "code": "too_large", "message": f"messages are at most {limit} bytes"})
                continue
            await self._handle(raw)

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
            self._tables.discard(message.table)
            self._hub.unwatch(message.table, self._watcher)
        else:
            await self._act(message.table, message.action_id, action_payload(message))

    async def _subscribe(self, message: Subscribe) -> None:
        cap = self._settings.max_subscriptions
        if message.table not in self._tables and len(self._tables) >= cap:
            await self.send({
                "t": "error", "code": "too_many_subscriptions", "table": message.table,
                "message": f"a connection watches at most {cap} tables: unsubscribe from one first",
            })
            return
        if not await run_in_threadpool(may_watch_table, self._sessions, message.table, self._user_id, message.invite):
            await self.send({"t": "error", "code": PRIVATE_TABLE, "message": PRIVATE_TABLE_MESSAGE,
                             "table": message.table})
            return
        try:
            service = await self._directory.service_for(message.table)
        except ActionError as error:
            await self.send({"t": "error", "code": error.code, "message": str(error), "table": message.table})
            return
        self._tables.add(message.table)
        # what is published meanwhile follows the reply and the chat history, less what they hold already
        self._watcher.hold(message.table)
        version: int | None = None
        last_chat: int | None = None
        try:
            await self._hub.watch(message.table, self._watcher)
            version, state = await service.snapshot(message.table)
            since = message.since
            limit = self._settings.resync_event_limit
            if since is not None and since < version and version - since <= limit:
                events = await service.events_since(message.table, since)
                await self.send({**events_message(message.table, since + 1, version, events), "state": state})
            else:
                await self.send({"t": "sync", "table": message.table, "version": version, "state": state})
            chat = await self._directory.chat_history(message.table, self._user_id)
            if chat:  # the chat is no part of the versions: what the subscriber may read of it comes after the reply
                await self.send({"t": "chat", "table": message.table, "messages": chat})
                last_chat = max(line["id"] for line in chat)
        finally:
            self._watcher.release(message.table, version, last_chat)

    def _session_user(self) -> tuple[int, str] | None:
        """The id and name the connection's cookie signs in, or ``None``; a database call, for a worker thread.

        Also notes when the session expires, so that no lookup is needed to know it has.
        """
        with self._sessions() as db:
            found = session_from_cookie_header(db, self._cookie)
        if found is None:
            return None
        expires = found[1].expires_at
        self._session_expires_at = expires if expires.tzinfo is not None else expires.replace(tzinfo=UTC)
        return found[0].id, found[0].username

    async def _still_signed_in(self, *, now: bool = False) -> bool:
        """Whether the session still stands; looked up when ``now`` or once it has expired.

        Between those, a sign-out reaches the connection as a notice, or at the
        latest by the process's sweep of every held session
        (:class:`~nardy.server.auth.signouts.SignOuts`), not by a lookup per connection.
        A session found gone (or signed in as someone else) ends the connection's rights and closes it.
        """
        if self._user_id is None:
            return False
        if not now and datetime.now(UTC) < self._session_expires_at:
            return True
        current = await run_in_threadpool(self._session_user)
        if self._user_id is None:  # signed out while it was looked up
            return False
        if current is None or current[0] != self._user_id:
            self.signed_out()
            return False
        return True

    async def _act(self, table_id: str, action_id: str, action: dict[str, Any]) -> None:
        user_id = self._user_id
        if user_id is None or not await self._still_signed_in():
            await self.send({"t": "error", "action_id": action_id, "code": "not_signed_in",
                             "message": "sign in or continue as a guest to play"})
            return
        try:
            version = await self._directory.act(table_id, user_id=user_id, action=action, action_id=action_id)
        except ActionError as error:
            await self.send({"t": "error", "action_id": action_id, "table": table_id, "code": error.code,
                             "message": str(error)})
            return
        await self.send({"t": "ack", "action_id": action_id, "table": table_id, "version": version})
