"""``python -m nardy.server``: serve the platform with uvicorn on the configured host and port.

``NARDY_SCRIPTED_DICE=1`` (testing only) builds the app with scripted dice,
which end-to-end tests queue through ``POST /api/testing/dice``.
"""

from __future__ import annotations

import logging
import os

import uvicorn

from nardy.server.app import create_app
from nardy.server.runtime.descriptors import descriptors_wanted, raise_descriptor_limit
from nardy.server.runtime.header_timeout import header_timeout_protocol
from nardy.server.runtime.json_logs import log_config
from nardy.server.services.dice import DiceSource, ScriptedDice
from nardy.server.settings import Settings


def main() -> None:
    """Build the app from the environment and serve it."""
    settings = Settings()
    dice: DiceSource | None = None
    if os.environ.get("NARDY_SCRIPTED_DICE", "") not in ("", "0"):
        if not settings.testing:
            raise SystemExit("NARDY_SCRIPTED_DICE needs NARDY_ENVIRONMENT=testing: scripted dice are for tests only")
        dice = ScriptedDice()
    if settings.log_format == "json":
        logging.captureWarnings(True)  # Python's warnings become log lines too, not free text among them
    raise_descriptor_limit(descriptors_wanted(
        settings.max_connections, settings.database_pool_size + settings.database_pool_overflow,
    ))
    uvicorn.run(create_app(settings, dice=dice), host=settings.host, port=settings.port, ws_max_size=65536,
                log_level="info", log_config=log_config(settings.log_format),
                # X-Forwarded-For decides the client address the rate limits count: believe it from the
                # configured proxies only, not from any local process as uvicorn would by default
                proxy_headers=bool(settings.trusted_proxies), forwarded_allow_ips=settings.trusted_proxies,
                # sockets that never finish a request, or stop answering pings, are closed (docs/protocol.md, Limits)
                http=header_timeout_protocol(settings.request_header_timeout),
                timeout_keep_alive=settings.keep_alive_timeout, limit_concurrency=settings.max_connections,
                ws_ping_interval=settings.ws_ping_interval, ws_ping_timeout=settings.ws_ping_timeout,
                ws_per_message_deflate=settings.ws_compression)


if __name__ == "__main__":
    main()
