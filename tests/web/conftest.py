"""Fixtures for the browser tests: Debian's chromium through Playwright, and a real server per test.

* ``browser``: one chromium per test process (``/usr/bin/chromium``; never a
  downloaded browser). The tests are skipped when it is missing; ``make test``
  installs it.
* ``web_server``: a fresh ``python -m nardy.server`` in testing mode with scripted
  dice (``NARDY_SCRIPTED_DICE=1``), so each test owns its dice queue; the next
  test's server starts in the background meanwhile.
* ``module_web_server``: one such server for all the tests of a module that
  share it (each leaves its dice queue empty).
* ``client``: opens a browser context and page (a separate person, with its own
  cookies and localStorage; other Playwright context options, such as
  ``has_touch`` or ``reduced_motion``, pass through); uncaught page errors fail the test.
* ``visitor``: on ``module_web_server``, a new person in one of the pages a
  module's tests share (one per set of context options, such as ``has_touch``
  or ``locale``): cookies and storage cleared but for the settings asked for,
  in the viewport (and motion) asked for, the page blank as a new one's. A
  new context costs about two seconds of CPU (its renderer process, the
  client's scripts compiled), a fresh visit a tenth of that. The test finds no
  roll queued and must leave none.
* ``newcomer``: as ``client``, on ``module_web_server``: a context of the
  test's own.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser_client import CHROMIUM, CHROMIUM_ARGS, DESKTOP, Client, new_client, visit_afresh
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


def next_server(spares: list[WebServer], tmp_path_factory: pytest.TempPathFactory) -> WebServer:
    """A started server: the spare already starting if there is one; another spare starts for the next test."""
    running = spares.pop() if spares else WebServer(tmp_path_factory.mktemp("server")).launch()
    running.wait_ready()
    spares.append(WebServer(tmp_path_factory.mktemp("server")).launch())
    return running


@pytest.fixture
def web_server(spare_web_servers: list[WebServer], tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """A fresh server for this test (its own dice queue), while the next one starts in the background."""
    running = next_server(spare_web_servers, tmp_path_factory)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def module_web_server(spare_web_servers: list[WebServer],
                      tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    """One server for a whole module, whose tests share it (and may share a page): each must leave no dice queued."""
    running = next_server(spare_web_servers, tmp_path_factory)
    yield running
    running.stop()


def clients_of(browser: Any, server: WebServer) -> tuple[Callable[..., Client], Callable[[], None]]:
    """A maker of new people on ``server``, and what closes them at the test's end, failing it on page errors."""
    made: list[Client] = []

    def make(**options: Any) -> Client:
        person = new_client(browser, server, **options)
        made.append(person)
        return person

    def close() -> None:
        errors = [error for person in made for error in person.errors]
        for person in made:
            person.context.close()
        assert not errors, f"errors in the page: {errors}"

    return make, close


@pytest.fixture
def client(browser: Any, web_server: WebServer) -> Iterator[Callable[..., Client]]:
    make, close = clients_of(browser, web_server)
    yield make
    close()


@pytest.fixture
def newcomer(browser: Any, module_web_server: WebServer) -> Iterator[Callable[..., Client]]:
    make, close = clients_of(browser, module_web_server)
    yield make
    close()


@pytest.fixture(scope="module")
def module_pages(module_web_server: WebServer) -> Iterator[dict[str, list[Client]]]:
    """The pages a module's tests share (:func:`visitor`), by their context's options, opened as tests first need
    them."""
    pages: dict[str, list[Client]] = {}
    yield pages
    for people in pages.values():
        for person in people:
            person.context.close()


@pytest.fixture
def visitor(browser: Any, module_web_server: WebServer,
            module_pages: dict[str, list[Client]]) -> Iterator[Callable[..., Client]]:
    """``visitor(settings=..., viewport=..., reduced_motion=..., **context_options)``: a new person
    (:func:`visit_afresh`) in a page the module's tests share, one of those whose context has ``context_options``
    (Playwright's: ``has_touch``, ``locale``...) that this test has not taken yet. The test finds no roll queued
    and leaves none (what it leaves is dropped all the same), and its pages show no error meanwhile."""
    assert module_web_server.dice() == 0, "a test before this one left rolls queued"
    taken: list[tuple[Client, int]] = []

    def take(*, settings: dict[str, Any] | None = None, viewport: dict[str, int] | None = None,
             reduced_motion: str = "no-preference", **context_options: Any) -> Client:
        pages = module_pages.setdefault(json.dumps(context_options, sort_keys=True), [])
        person = next((page for page in pages if all(page is not other for other, _ in taken)), None)
        if person is None:
            person = new_client(browser, module_web_server, **context_options)
            pages.append(person)
        taken.append((person, len(person.errors)))
        visit_afresh(person, settings or {}, viewport or DESKTOP, reduced_motion=reduced_motion)
        return person

    yield take
    left = module_web_server.drop_dice()  # dropped, so one failed test does not fail the module's next ones
    errors = [error for person, before in taken for error in person.errors[before:]]
    assert not errors, f"errors in the page: {errors}"
    assert left == 0, f"{left} roll(s) were left queued"
