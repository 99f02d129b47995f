"""The application factory: ``create_app(settings)`` builds everything, nothing happens at import.

The app owns a database engine (migrated to the latest schema at start-up),
the publish/subscribe layer (in-process, or Redis when configured), the dice
source, the clock, the table and chouette services with their move clocks,
the directory routing a table to its service, and the WebSocket hub. Tests
pass their own dice and clock.
"""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI
from starlette.staticfiles import StaticFiles

from nardy.server.api import accounts, chouettes, matchmaking, ratings, tables, testing
from nardy.server.api.security import CSRFMiddleware
from nardy.server.pubsub import make_pubsub
from nardy.server.services.chouettes import ChouetteService
from nardy.server.services.clock import Clock, SystemClock
from nardy.server.services.dice import DiceSource, ProvablyFairDice
from nardy.server.services.directory import TableDirectory
from nardy.server.services.matchmaking import MatchmakingService
from nardy.server.services.tables import TableService
from nardy.server.settings import Settings
from nardy.server.ws import endpoint
from nardy.server.ws.hub import Hub
from nardy.store.db import make_engine, make_sessionmaker
from nardy.store.migrate import upgrade

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
"""The browser client (``nardy/web``): static files, no build step."""


def create_app(settings: Settings | None = None, *, dice: DiceSource | None = None, clock: Clock | None = None) -> FastAPI:
    """A ready-to-serve nardy app for ``settings`` (read from the environment if omitted)."""
    config = settings if settings is not None else Settings()
    engine = make_engine(config.resolved_database_url)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        upgrade(engine)
        pubsub = make_pubsub(config.redis_url)
        idle, finished = config.table_idle_seconds, config.finished_table_seconds
        service = TableService(
            sessions=app.state.db, pubsub=pubsub, dice=app.state.dice, clock=app.state.clock,
            idle_seconds=idle, finished_seconds=finished,
        )
        chouette_service = ChouetteService(
            sessions=app.state.db, pubsub=pubsub, dice=app.state.dice, clock=app.state.clock,
            idle_seconds=idle, finished_seconds=finished,
        )
        app.state.pubsub = pubsub
        app.state.tables = service
        app.state.chouettes = chouette_service
        app.state.directory = TableDirectory(sessions=app.state.db, tables=service, chouettes=chouette_service)
        app.state.hub = Hub(pubsub)
        await service.start()
        await chouette_service.start()
        app.state.matchmaking = MatchmakingService(
            tables=service, sessions=app.state.db, clock=app.state.clock,
        )
        await app.state.matchmaking.start()
        gc.freeze()  # start-up objects live for the whole process: keep them out of every collection
        try:
            yield
        finally:
            await app.state.matchmaking.stop()
            await chouette_service.stop()
            await service.stop()
            await app.state.hub.close()
            await pubsub.aclose()
            engine.dispose()

    app = FastAPI(title="nardy", lifespan=lifespan)
    app.state.settings = config
    app.state.engine = engine
    app.state.db = make_sessionmaker(engine)
    app.state.dice = dice if dice is not None else ProvablyFairDice()
    app.state.clock = clock if clock is not None else SystemClock()
    app.add_middleware(CSRFMiddleware)
    app.include_router(accounts.router)
    app.include_router(tables.router)
    app.include_router(chouettes.router)
    app.include_router(matchmaking.router)
    app.include_router(ratings.router)
    app.include_router(endpoint.router)
    if config.testing:
        app.include_router(testing.router)
    # Last, so the API and WebSocket routes above take precedence: the browser client at /.
    app.mount("/", StaticFiles(directory=WEB_DIR, html=True), name="web")
    return app
