"""No route queries the database on the event loop: a slow query must stall no socket.

FastAPI runs a plain ``def`` route, and every plain ``def`` dependency, in
its thread pool; only an ``async def`` route runs on the event loop. So a
route that takes a database session (``DbSession``) must be a plain
function. Async routes (those that await the table services) reach the
database only through the services, which keep their queries off the loop
themselves, or through ``run_in_threadpool``.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Iterator

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute

from nardy.server.api.deps import get_db
from nardy.server.app import create_app
from nardy.server.settings import Settings


def _api_routes(routes: Iterable[object]) -> Iterator[APIRoute]:
    """Every API route, also inside included routers (newer FastAPI keeps them nested)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        nested = getattr(route, "original_router", None) or getattr(route, "router", None)
        if nested is not None and hasattr(nested, "routes"):
            yield from _api_routes(nested.routes)


def _takes_a_session(dependant: Dependant) -> bool:
    """Whether the endpoint itself is handed a database session (a sync dependency's own is used in a thread)."""
    return any(sub.call is get_db for sub in dependant.dependencies)


def test_no_async_route_takes_a_database_session(tmp_path) -> None:
    app = create_app(Settings(environment="testing", data_dir=tmp_path))
    offenders = [
        f"{sorted(route.methods)} {route.path} ({route.endpoint.__name__})"
        for route in _api_routes(app.routes)
        if inspect.iscoroutinefunction(route.endpoint)
        and _takes_a_session(route.dependant)
    ]
    routes = list(_api_routes(app.routes))
    assert len(routes) > 15, "the app's routes were not found"
    assert offenders == [], "async routes that query the database on the event loop: " + ", ".join(offenders)
