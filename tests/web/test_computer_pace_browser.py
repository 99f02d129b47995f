"""The computer's pace in the browser: its dice stay on the board before its checkers slide to their points.

The server pauses before each computer action (``NARDY_BOT_DELAY_SECONDS``,
0.6 s unless set; none in the other tests); this test runs a server with a
pause and watches the board: the computer's roll is drawn, and only after
the pause do its checkers fly from point to point.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.migrated_sqlite import provide_migrated_sqlite
from tests.server_process import start_server
from tests.web.browser_client import DESKTOP, Client
from tests.web.web_driver import REPO_ROOT, WebServer


PAUSE = 0.5
"""The paced server's pause before each computer action, in seconds."""

WATCH_THE_BOARD = """() => {
  window.pace = { dice: null, flight: null };
  new MutationObserver(() => {
    const svg = document.querySelector("svg.board");
    if (!svg) return;
    const now = performance.now();
    if (window.pace.dice === null && svg.dataset.mover === "opp" && svg.dataset.dice) window.pace.dice = now;
    if (window.pace.dice !== null && window.pace.flight === null && svg.querySelector(".checker.flying")) {
      window.pace.flight = now;
    }
  }).observe(document.body, { childList: true, subtree: true, attributes: true });
}"""
"""Records when the computer's dice are first drawn, and when a checker first flies after that."""


class PacedServer(WebServer):
    """A test server whose computer pauses :data:`PAUSE` before each action."""

    def launch(self) -> WebServer:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("NARDY_")}
        env.update({
            "NARDY_ENVIRONMENT": "testing", "NARDY_SCRIPTED_DICE": "1", "NARDY_HOST": "127.0.0.1",
            "NARDY_PORT": str(self.port), "NARDY_DATA_DIR": str(self.data_dir),
            "NARDY_BOT_DELAY_SECONDS": str(PAUSE), "PYTHONUNBUFFERED": "1",
        })
        provide_migrated_sqlite(self.data_dir)
        self.process = start_server(env, REPO_ROOT, self.log_path)
        return self


@pytest.fixture
def paced(tmp_path: Path) -> Iterator[WebServer]:
    server = PacedServer(tmp_path / "paced").start()
    yield server
    server.stop()


def test_the_computers_dice_show_before_its_checkers_slide(browser: Any, paced: WebServer) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    context.add_init_script(f"localStorage.setItem('nardy.settings', {json.dumps(json.dumps({'sound': False}))});")
    person = Client(context, paced)
    try:
        paced.dice((6, 2), (5, 3), (4, 2), *[(6, 5)] * 20)
        person.goto("#/")
        person.page.select_option("select[name=quick-variant]", "long-traditional")
        person.page.select_option("select[name=quick-level]", "random")
        person.page.click("[data-action=quick-play]")
        person.page.wait_for_selector(".game-page[data-status=playing] svg.board .checker")
        person.page.evaluate(WATCH_THE_BOARD)
        person.page.click("[data-action=roll]")
        person.page.wait_for_selector('svg.board[data-dice="5-3"][data-mover=me]')
        # Each click once the page offers that point as what the click is for (a loaded machine is slow): 19 is a
        # target before the first step lands there and a checker to move after, so "either" would match too soon.
        for point, offered_as in ((24, "movable"), (19, "target"), (19, "movable"), (16, "target")):
            person.page.wait_for_selector(f'g.hit.{offered_as}[data-point="{point}"]')
            person.click_point(point)
        person.page.click("[data-action=confirm]")
        person.page.wait_for_function("() => window.pace.flight !== null")
        pace: dict[str, float] = person.page.evaluate("() => window.pace")
        assert pace["flight"] - pace["dice"] >= PAUSE * 1000 * 0.8, pace
        person.page.wait_for_selector(".game-page[data-my-turn=true][data-phase=rolling]")
        assert "4-2" in person.page.locator(".move-list").inner_text(), "the computer's 4-2 was played"
        assert not person.errors
    finally:
        context.close()
