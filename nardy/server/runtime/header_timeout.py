"""Close HTTP connections that do not finish a request's headers in time (half-open sockets, slowloris).

uvicorn arms no timer while a connection has not sent a whole request: a
socket that connects and says nothing, or sends half a request (or half a
WebSocket handshake) or trickles it a byte at a time, is held for ever. Its
``timeout_keep_alive`` only starts once a response has been sent, and any
byte received stops it. :func:`header_timeout_protocol` is uvicorn's
httptools protocol with one deadline more: the headers of each request must
be in within ``seconds`` of the connection opening, or of the previous
response's end; otherwise the connection is closed. Once a request's headers
are in, the request takes as long as it takes, and a WebSocket upgraded from
it is watched by uvicorn's pings (``ws_ping_interval``, ``ws_ping_timeout``).

Slow request bodies are not covered; a reverse proxy in front
(``client_header_timeout`` and ``client_body_timeout`` in nginx) is the
component for those, and for capping the connections of many addresses.
"""

from __future__ import annotations

import asyncio
from typing import ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class _HeaderDeadlineProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, closing a connection whose request headers are not in by the deadline."""

    header_timeout: ClassVar[float]
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # as uvicorn's
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def handle_websocket_upgrade(self) -> None:
        """Hand the connection to the WebSocket protocol, then let go of the parser.

        uvicorn drops its parser (which calls back into this object, a
        reference cycle) when a connection is lost, but an upgraded
        connection is never lost here: this object is just abandoned. With
        the cycle it waited for a collection, and one that a young
        collection found still in its handshake for a collection of the old
        generation (:mod:`nardy.server.runtime.collector`, rare under load); without
        it, it goes at once.
        """
        super().handle_websocket_upgrade()
        self.parser = None  # type: ignore[assignment]  # as in connection_lost

    def on_response_complete(self) -> None:
        pipelined = bool(self.pipeline)  # a pipelined request, already read, starts now
        super().on_response_complete()
        if not pipelined and not self.transport.is_closing():
            self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.header_timeout, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if not self.transport.is_closing():
            self.transport.close()


def header_timeout_protocol(seconds: float) -> type[HttpToolsProtocol]:
    """uvicorn's HTTP protocol (``uvicorn.run(http=...)``) closing connections without headers after ``seconds``."""

    class HeaderTimeoutProtocol(_HeaderDeadlineProtocol):
        header_timeout = seconds

    return HeaderTimeoutProtocol
