"""Fixtures for the browser tests: Debian's chromium through Playwright, and a real server per test.

* ``browser``: one chromium per test process (``/usr/bin/chromium``; never a
  downloaded browser). The tests are skipped when it is missing; ``make test``
  installs it.
* ``web_server``: a fresh ``python -m nardy.server`` in testing mode with scripted
  dice (``NARDY_SCRIPTED_DICE=1``), so each test owns its dice queue; the next
  test's server starts in the background meanwhile.
* ``client``: opens a browser context and page (a separate person, with its own
  cookies and localStorage; other Playwright context options, such as
  ``has_touch`` or ``reduced_motion``, pass through); uncaught page errors fail the test.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser_client import CHROMIUM, CHROMIUM_ARGS, DESKTOP, Client
from tests.web.web_driver import WebServer


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.skip("Debian's chromium is not installed (make test installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def spare_web_servers() -> Iterator[list[WebServer]]:
    """Servers already starting for the next tests (a start takes seconds; a test should not wait for it)."""
    spares: list[WebServer] = []
    yield spares
    for spare in spares:
        spare.stop()


@pytest.fixture
def web_server(spare_web_servers: list[WebServer], tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """A fresh server for this test (its own dice queue), while the next one starts in the background."""
    running = spare_web_servers.pop() if spare_web_servers else WebServer(tmp_path_factory.mktemp("server")).launch()
    running.wait_ready()
    spare_web_servers.append(WebServer(tmp_path_factory.mktemp("server")).launch())
    yield running
    running.stop()


@pytest.fixture
def client(browser: Any, web_server: WebServer) -> Iterator[Callable[..., Client]]:
    made: list[Client] = []

    def make(*, viewport: dict[str, int] | None = None, locale: str = "en-US",
             settings: dict[str, Any] | None = None, **options: Any) -> Client:
        context = browser.new_context(viewport=viewport or DESKTOP, locale=locale, **options)
        initial = {"sound": False, **(settings or {})}
        context.add_init_script(
            "if (!localStorage.getItem('nardy.settings'))"
            f" localStorage.setItem('nardy.settings', {json.dumps(json.dumps(initial))});")
        person = Client(context, web_server)
        made.append(person)
        return person

    yield make
    errors = [error for person in made for error in person.errors]
    for person in made:
        person.context.close()
    assert not errors, f"errors in the page: {errors}"
