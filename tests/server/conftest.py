"""Fixtures for the server tests.

* ``game_server``: a :class:`~tests.server.game_server.GameServer`, the real
  app in-process with scripted dice and its lifespan running;
  ``make_game_server(**settings)`` builds more (see its docstring).
* ``no_automatic_collection`` keeps the garbage collector from running by
  itself during a test, for tests of what a collection finds or frees.

Tests that need a real ``python -m nardy.server`` process build a
:class:`~tests.server.live_server.LiveServer` in a fixture of their own,
named ``live_server`` (or ``live_servers`` for several).
"""

from __future__ import annotations

import gc
import itertools
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from nardy.server.app import create_app
from nardy.server.services.dice import DiceSource, ScriptedDice
from nardy.server.settings import Settings
from tests.migrated_sqlite import provide_migrated_sqlite
from tests.server.game_server import GameServer


@pytest.fixture
def make_game_server(tmp_path: Path) -> Iterator[Callable[..., GameServer]]:
    """Builds servers: ``make_game_server(dice=None, **settings)``; scripted dice unless ``dice`` is given.

    Each gets a data directory of its own unless ``data_dir`` names one (a
    restart: a second app over the first one's database).

    Pass ``dice="fair"`` for the production :class:`ProvablyFairDice`. The
    per-connection rate limit is raised out of the way (a driver sends far
    faster than a person) unless ``settings`` name it.
    """
    with ExitStack() as stack:
        count = itertools.count()

        def build(dice: DiceSource | str | None = None, **settings: Any) -> GameServer:
            directory = settings.pop("data_dir", None) or tmp_path / f"server{next(count)}"
            directory.mkdir(exist_ok=True)
            if "database_url" not in settings:
                provide_migrated_sqlite(directory)
            source: DiceSource | None
            if dice == "fair":
                source = None
            elif dice is None:
                source = ScriptedDice()
            else:
                assert not isinstance(dice, str)
                source = dice
            limits = {"messages_per_second": 10_000.0, "message_burst": 10_000,
                      "fair_play_analysis": False}  # a worker process per rated match: only where a test asks
            config = Settings(**{"environment": "testing", "data_dir": directory, **limits, **settings})
            app = create_app(config, dice=source)
            client = TestClient(app)
            # The app's start collects every generation and freezes what survives (runtime/collector.py);
            # in a test process that walk would also cover the whole session's objects, at every start.
            # Frozen first, they are out of its sight; the app's stop unfreezes them all again.
            gc.freeze()
            client.__enter__()
            game_server = GameServer(client, app.state.dice, directory)
            stack.callback(game_server.stop)
            return game_server

        yield build


@pytest.fixture
def game_server(make_game_server: Callable[..., GameServer]) -> GameServer:
    """The real app with scripted dice, its lifespan running."""
    return make_game_server()


@pytest.fixture
def no_automatic_collection() -> Iterator[None]:
    """Garbage made by the test stays until the test (or this fixture, at its end) collects it."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()
