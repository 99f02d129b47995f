"""Shared FastAPI dependencies: the settings and a database session per request.

Everything lives on ``app.state``, built by ``create_app``: ``settings``,
``db`` (a sessionmaker), ``pubsub``, ``dice``, ``clock``, ``tables`` (the
table service), ``chouettes`` (the chouette service), ``chat`` (two-seat tables' chat), ``directory`` (which of
the two serves a table) and ``hub`` (WebSocket connections).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from nardy.server.settings import Settings


def get_settings(request: Request) -> Settings:
    """The app's settings."""
    settings: Settings = request.app.state.settings
    return settings


def get_db(request: Request) -> Iterator[Session]:
    """A database session for one request, closed afterwards."""
    with request.app.state.db() as session:
        yield session


SettingsDep = Annotated[Settings, Depends(get_settings)]
DbSession = Annotated[Session, Depends(get_db)]
