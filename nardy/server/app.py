"""The application factory: ``create_app(settings)`` builds everything, nothing happens at import.

The app owns a database engine (migrated to the latest schema at start-up),
the publish/subscribe layer (in-process, or Redis when configured), the dice
source, the clock, the table and chouette services with their move clocks,
the chat of two-seat tables (``chat``), the tournaments and their sweep (``tournaments``), the directory routing a table to its service, the worker threads their
queries run in, this process's heartbeat and takeover sweep (``peers``), the analysis queue
and its worker processes (``analysis_queue``), and
the WebSocket side: the hub, the sign-out notices (``sign_outs``) and the
count of sockets per client address (``socket_slots``), and what is measured
for ``GET /metrics`` (``metrics``: nothing with ``NARDY_METRICS=off``). Each
request and WebSocket runs with an id its log lines carry. Every HTTP response gets the security headers, request
bodies are capped, and the account routes count against the rate limiter
(``rate_limiter``: in Redis when configured). The short board's engine
(bgsage) is loaded at start, so a broken install stops the start rather
than a game. With a Redis URL the app does
not start until Redis answers (``NARDY_REDIS_START_TIMEOUT``), and
``/api/health`` says whether the database and Redis answer now. Tests pass
their own dice and clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

from fastapi import FastAPI
from redis.exceptions import RedisError
from sqlalchemy import Engine
from starlette.staticfiles import StaticFiles

from nardy.bots.sage import check_available
from nardy.server.api import (
    account_life, accounts, analysis, chouettes, coins, health, home, imports, matchmaking, moderation, ratings, tables, testing, tournaments,
    validation_errors, variants,
)
from nardy.server.api.body_limit import BodyLimitMiddleware
from nardy.server.api.metrics import router as metrics_router
from nardy.server.api.ratelimit import RateLimiter
from nardy.server.api.security import CSRFMiddleware
from nardy.server.api.security_headers import SecurityHeadersMiddleware
from nardy.server.api.service_worker import router as service_worker_router
from nardy.server.auth.signouts import SignOuts
from nardy.server.pubsub import PubSub, make_pubsub
from nardy.server.runtime.collector import Collector
from nardy.server.runtime.log_context import RequestIds
from nardy.server.runtime.metrics import Metrics, make_metrics
from nardy.server.services.analysis_queue import AnalysisQueue
from nardy.server.services.chat import ChatLimits
from nardy.server.services.chouettes import ChouetteService
from nardy.server.services.clock import Clock, SystemClock
from nardy.server.services.coins import CoinPolicy
from nardy.server.services.dice import DiceSource, DiceStatistics, ProvablyFairDice
from nardy.server.services.database import DatabaseThreads
from nardy.server.services.directory import TableDirectory
from nardy.server.services.matchmaking import MatchmakingService
from nardy.server.services.peers import Peers, new_process_id
from nardy.server.services.recent import Recent
from nardy.server.services.tables import TableService
from nardy.server.services.tournaments import TournamentService
from nardy.server.settings import Settings
from nardy.server.ws import endpoint
from nardy.server.ws.hub import Hub
from nardy.server.ws.limits import AddressSlots
from nardy.server.ws.publisher import SocketPublisher
from nardy.store.db import make_engine, make_sessionmaker, watch_pool
from nardy.store.migrate import upgrade

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
"""The browser client (``nardy/web``): static files, no build step."""



def create_app(settings: Settings | None = None, *, dice: DiceSource | None = None, clock: Clock | None = None) -> FastAPI:
    """A ready-to-serve nardy app for ``settings`` (read from the environment if omitted)."""
    config = settings if settings is not None else Settings()
    engine = make_engine(
        config.resolved_database_url, pool_size=config.database_pool_size, max_overflow=config.database_pool_overflow,
    )
    measured = make_metrics(config.metrics != "off")
    if measured.enabled:
        _measure_pool(engine, measured, config.database_pool_size + config.database_pool_overflow)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        upgrade(engine)
        await asyncio.to_thread(check_available)  # bgsage: missing, it stops the start, not a game
        measured.start()
        pubsub = make_pubsub(config.redis_url, timed=measured.redis_publish)
        if config.redis_url:
            await _wait_for_redis(pubsub, config.redis_url, config.redis_start_timeout)
        idle, finished = config.table_idle_seconds, config.finished_table_seconds
        db = app.state.db_threads = DatabaseThreads(app.state.db, engine, threads=config.database_threads)
        process_id = new_process_id()
        publisher = SocketPublisher(pubsub)  # the services publish through the socket layer, not knowing it
        service = TableService(
            db=db, publisher=publisher, dice=app.state.dice, clock=app.state.clock, process_id=process_id,
            chat_limits=ChatLimits(
                max_length=config.chat_max_length, per_minute=config.chat_messages_per_minute,
                burst=config.chat_burst, history=config.chat_history,
            ),
            bot_delay_seconds=config.computer_pause_seconds, idle_seconds=idle, finished_seconds=finished,
            computer_idle_seconds=config.computer_game_idle_seconds, coins=CoinPolicy.configured(config),
            fair_play=config.fair_play_analysis,
            metrics=measured,
        )
        chouette_service = ChouetteService(
            db=db, publisher=publisher, dice=app.state.dice, clock=app.state.clock, process_id=process_id,
            idle_seconds=idle, finished_seconds=finished, metrics=measured,
        )
        app.state.pubsub = pubsub
        app.state.tables = service
        app.state.chouettes = chouette_service
        app.state.chat = service.chat
        app.state.directory = TableDirectory(db=db, services=(service, chouette_service), metrics=measured)
        app.state.hub = Hub(pubsub)
        app.state.sign_outs = SignOuts(pubsub, app.state.db)
        await app.state.sign_outs.start()
        await service.start()
        await chouette_service.start()
        app.state.peers = Peers(
            db=db, clock=app.state.clock, process_id=process_id,
            services={service.kind: service, chouette_service.kind: chouette_service},
            heartbeat_seconds=config.heartbeat_seconds, dead_after_seconds=config.peer_timeout_seconds,
            sweep_seconds=config.takeover_sweep_seconds,
        )
        await app.state.peers.start()
        app.state.matchmaking = MatchmakingService(tables=service, db=db, clock=app.state.clock)
        await app.state.matchmaking.start()
        app.state.tournaments = TournamentService(
            db=db, tables=service, clock=app.state.clock, process_id=process_id,
            sweep_seconds=config.tournament_sweep_seconds, max_open_per_user=config.max_open_tournaments,
        )
        await app.state.tournaments.start()
        app.state.analysis_queue = AnalysisQueue(
            db=db, clock=app.state.clock, process_id=process_id, database_url=config.resolved_database_url,
            workers=config.analysis_workers, poll_seconds=config.analysis_poll_seconds,
            stale_seconds=config.analysis_stale_seconds, metrics=measured,
        )
        await app.state.analysis_queue.start()
        collector = Collector(
            young_only=config.gc_young_only, full_seconds=config.gc_full_seconds,
            open_connections=app.state.socket_slots.total,
        )
        collector.start()
        try:
            yield
        finally:
            await collector.stop()
            await app.state.analysis_queue.stop()
            await app.state.tournaments.stop()
            await app.state.matchmaking.stop()
            await app.state.peers.stop()
            await chouette_service.stop()
            await service.stop()
            await app.state.sign_outs.close()
            await app.state.hub.close()
            await pubsub.aclose()
            db.close()
            engine.dispose()
            measured.stop()

    production = config.environment == "production"
    app = FastAPI(  # the API pages list every route to whoever asks: outside production only
        title="nardy",
        lifespan=lifespan,
        docs_url=None if production else "/docs",
        redoc_url=None if production else "/redoc",
        openapi_url=None if production else "/openapi.json",
    )
    app.state.settings = config
    app.state.metrics = measured
    app.state.engine = engine
    app.state.db = make_sessionmaker(engine)
    app.state.dice = dice if dice is not None else ProvablyFairDice()
    app.state.site_dice = Recent[DiceStatistics](config.site_statistics_seconds)
    app.state.clock = clock if clock is not None else SystemClock()
    app.state.rate_limiter = RateLimiter(config.redis_url, enabled=config.rate_limited)
    app.state.socket_slots = AddressSlots(config.max_sockets_per_address)
    validation_errors.install(app)
    app.add_middleware(CSRFMiddleware)
    app.add_middleware(BodyLimitMiddleware, max_bytes=config.max_body_bytes,
                       path_caps={imports.IMPORTS_PATH: config.max_import_bytes})
    api_pages = () if production else (app.docs_url, app.swagger_ui_oauth2_redirect_url, app.redoc_url)
    app.add_middleware(SecurityHeadersMiddleware, csp_exempt_paths=[page for page in api_pages if page])
    app.add_middleware(RequestIds)  # outermost: every line logged about a request names it
    app.include_router(health.router)
    app.include_router(accounts.router)
    app.include_router(account_life.router)
    app.include_router(tables.router)
    app.include_router(analysis.router)
    app.include_router(imports.router)
    app.include_router(chouettes.router)
    app.include_router(matchmaking.router)
    app.include_router(ratings.router)
    app.include_router(tournaments.router)
    app.include_router(coins.router)
    app.include_router(moderation.router)
    app.include_router(variants.router)
    app.include_router(home.router)
    # a plain Starlette route: FastAPI's keeps, per open socket, four more coroutines and a dependency solution
    # with its three exit stacks, all walked by every collection of the old generation (nardy/server/runtime/collector.py)
    app.router.add_websocket_route("/ws", endpoint.websocket_endpoint)
    if measured.enabled:
        app.include_router(metrics_router)
    if config.testing:
        app.include_router(testing.router)
    app.include_router(service_worker_router)  # /sw.js, stamped with the client's version, before the static files
    # Last, so the API and WebSocket routes above take precedence: the browser client at /.
    app.mount("/", StaticFiles(directory=WEB_DIR, html=True), name="web")
    return app


def _measure_pool(engine: Engine, measured: Metrics, limit: int) -> None:
    """Report the database pool's connections to the metrics whenever it lends or takes one back."""
    watch_pool(engine, lambda in_use, held: measured.pool_use(in_use, held, limit))


async def _wait_for_redis(pubsub: PubSub, url: str, timeout: float) -> None:
    """Return once the pubsub reaches Redis; refuse to start (RuntimeError) if it does not within ``timeout``.

    A process that cannot reach Redis would serve games the other processes
    never hear of; it may lose Redis later (its messages then wait for it),
    but it does not start without it.
    """
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        try:
            await pubsub.ping()
            return
        except (RedisError, OSError) as error:
            if asyncio.get_running_loop().time() >= deadline:
                await pubsub.aclose()
                where = urlsplit(url)
                raise RuntimeError(f"Redis at {where.hostname}:{where.port or 6379} did not answer within "
                                   f"{timeout:g} s ({error}): refusing to start without it") from error
            await asyncio.sleep(0.25)
