"""A cap on HTTP request bodies, so nobody makes the server read 100 MB to refuse it.

:class:`BodyLimitMiddleware` answers 413 to a request whose declared
``Content-Length`` is over the cap before the app sees the request at all,
and counts the bytes of a body without one (chunked) as the app reads them:
the read that passes the cap raises :class:`BodyTooLarge`, which FastAPI
answers with 413 from the route (it never reaches the handler), and which
this middleware answers when it comes out of an app that had not started a
response. Nothing is buffered here: each chunk goes on to the app as it
comes. A route that takes files (an imported match) may have a cap of its
own, by its exact path.
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyTooLarge(HTTPException):
    """413: the request body is over the cap."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(status_code=413, detail=f"request body over the limit of {max_bytes} bytes")


class BodyLimitMiddleware:
    """Refuse HTTP request bodies over ``max_bytes`` (over ``path_caps[path]`` for those paths) with 413;
    WebSocket connections pass untouched."""

    def __init__(self, app: ASGIApp, *, max_bytes: int, path_caps: Mapping[str, int] | None = None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.path_caps = dict(path_caps or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        max_bytes = self.path_caps.get(scope["path"], self.max_bytes)
        if _declares_more_than(scope, max_bytes):
            await self._refuse(max_bytes, scope, receive, send)
            return
        received = 0
        response_started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > max_bytes:
                    raise BodyTooLarge(max_bytes)
            return message

        async def watching_send(message: Message) -> None:
            nonlocal response_started
            if message["type"] == "http.response.start":
                response_started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, watching_send)
        except BodyTooLarge:
            if response_started:
                raise
            await self._refuse(max_bytes, scope, receive, send)

    @staticmethod
    async def _refuse(max_bytes: int, scope: Scope, receive: Receive, send: Send) -> None:
        error = BodyTooLarge(max_bytes)
        await JSONResponse({"detail": error.detail}, status_code=error.status_code)(scope, receive, send)


def _declares_more_than(scope: Scope, max_bytes: int) -> bool:
    """Whether the request's ``Content-Length`` is over ``max_bytes`` (more than 18 digits is over any cap).

    A missing one is not; a malformed one never gets here, the HTTP server refuses it.
    """
    value = Headers(scope=scope).get("content-length", "")
    return value.isascii() and value.isdigit() and (len(value) > 18 or int(value) > max_bytes)
