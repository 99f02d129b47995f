"""Whom and what a log line is about: the request (an HTTP request or a WebSocket connection), its user, a table.

:class:`RequestIds` (an ASGI middleware) opens a :class:`Scope` for each
request with its id: the client's ``X-Request-ID`` when it is a short token
(a proxy's id, so that its log and ours meet), else a new random one. Where
the signed-in user becomes known (the session's lookup, by HTTP or by
WebSocket) :func:`note_user` writes it into the scope; the scope is one
object, shared by the tasks and worker threads the request starts, so a
lookup made in a worker thread is seen by the lines logged afterwards.
:func:`about_table` names the table a piece of work is about, for the
lines logged inside it. :func:`fields` reads all three for a log line
(:mod:`nardy.server.runtime.json_logs`).
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope as AsgiScope, Send

REQUEST_ID_HEADER = "x-request-id"
_GIVEN_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
"""A request id a client or proxy may give: a short token, nothing that could forge a log line."""


@dataclass(slots=True)
class Scope:
    """One HTTP request or WebSocket connection: its id and, once known, its signed-in user."""

    request_id: str
    user_id: int | None = None


_scope: ContextVar[Scope | None] = ContextVar("nardy_log_scope", default=None)
_table: ContextVar[str | None] = ContextVar("nardy_log_table", default=None)


class RequestIds:
    """ASGI middleware: each HTTP request and WebSocket connection runs in a :class:`Scope` of its own."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: AsgiScope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        given = Headers(scope=scope).get(REQUEST_ID_HEADER)
        request_id = given if given is not None and _GIVEN_ID.fullmatch(given) else secrets.token_hex(8)
        token = _scope.set(Scope(request_id))
        try:
            await self.app(scope, receive, send)
        finally:
            _scope.reset(token)


def note_user(user_id: int | None) -> None:
    """The request's signed-in user is ``user_id`` (None: nobody, or no longer)."""
    scope = _scope.get()
    if scope is not None:
        scope.user_id = user_id


@contextmanager
def about_table(table_id: str) -> Iterator[None]:
    """What is logged inside names ``table_id``."""
    token = _table.set(table_id)
    try:
        yield
    finally:
        _table.reset(token)


def fields() -> dict[str, Any]:
    """The request id, user id and table id known here, each only when known."""
    found: dict[str, Any] = {}
    scope = _scope.get()
    if scope is not None:
        found["request_id"] = scope.request_id
        if scope.user_id is not None:
            found["user_id"] = scope.user_id
    table = _table.get()
    if table is not None:
        found["table_id"] = table
    return found
