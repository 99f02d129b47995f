"""``GET /api/health``: whether this server process can do its work now, for load balancers and operators.

Healthy means the database answers and, with ``NARDY_REDIS_URL`` set, Redis
answers too. A process whose Redis is away keeps playing the games it
serves (its changes are kept for Redis and published once it is back,
:class:`~nardy.server.pubsub.RedisPubSub`), but the other processes do not
hear of them meanwhile: a balancer should send new players elsewhere, so it
answers 503. ``backlog`` counts the messages still waiting for Redis.
"""

from __future__ import annotations

import asyncio
from typing import Any, Final

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from nardy.server.pubsub import PubSub, RedisPubSub
from nardy.server.services.database import DatabaseThreads
from nardy.store.db import ping

router = APIRouter(prefix="/api", tags=["health"])

CHECK_SECONDS: Final = 2.0
"""How long the database and Redis each have to answer before they count as unreachable."""


@router.get("/health")
async def health(request: Request) -> JSONResponse:
    """200 with each part's state when every part answers, 503 otherwise."""
    db: DatabaseThreads = request.app.state.db_threads
    pubsub: PubSub = request.app.state.pubsub
    parts: dict[str, Any] = {"database": await _check(db.run(ping))}
    if isinstance(pubsub, RedisPubSub):
        parts["redis"] = await _check(pubsub.ping())
    parts["backlog"] = pubsub.backlog
    healthy = all(value == "ok" for key, value in parts.items() if key != "backlog")
    return JSONResponse({"status": "ok" if healthy else "unhealthy", **parts}, status_code=200 if healthy else 503)


async def _check(probe: Any) -> str:
    try:
        await asyncio.wait_for(probe, CHECK_SECONDS)
    except Exception as error:  # noqa: BLE001 - any failure means the part cannot serve
        return f"unreachable: {type(error).__name__}"
    return "ok"
