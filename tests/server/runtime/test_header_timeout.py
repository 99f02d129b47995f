"""The HTTP protocol of nardy.server.runtime.header_timeout leaves no reference cycle behind a WebSocket upgrade.

A cycle outlives its connection until a full collection, which the server
runs only periodically (nardy.server.runtime.collector): every WebSocket opened
meanwhile would pile up, and make that collection's pause longer.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

import pytest
import uvicorn
from uvicorn.server import ServerState

from nardy.server.runtime.header_timeout import header_timeout_protocol

UPGRADE = (b"GET /ws HTTP/1.1\r\nHost: nardy\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


class Transport(asyncio.Transport):
    """Enough of a socket transport for uvicorn's protocols, keeping the protocol it is handed."""

    def __init__(self) -> None:
        super().__init__()
        self.protocol: asyncio.BaseProtocol | None = None
        self.closing = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.protocol = protocol

    def write(self, data: Any) -> None:
        pass

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def app(scope: Any, receive: Any, send: Any) -> None:
    """Never reached: the test stops at the upgrade."""


@pytest.mark.usefixtures("no_automatic_collection")
def test_the_http_protocol_is_freed_by_reference_counting_once_the_websocket_takes_over() -> None:
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)  # the WebSocket protocol asks for the current loop
    try:
        config = uvicorn.Config(app, lifespan="off")
        config.load()
        protocol_class = header_timeout_protocol(60.0)
        http = protocol_class(config=config, server_state=ServerState(), app_state={}, _loop=loop)
        transport = Transport()
        http.connection_made(transport)
        http.data_received(UPGRADE)
        assert transport.protocol is not None and transport.protocol is not http  # the WebSocket protocol took over
        abandoned = weakref.ref(http)
        del http
        assert abandoned() is None
    finally:
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.run_until_complete(asyncio.sleep(0))
        asyncio.set_event_loop(None)
        loop.close()
