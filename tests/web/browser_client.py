"""A person in the browser for the browser tests: one Playwright context and page, with helpers to read
the game page's state and to click through turns.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.web.web_driver import REPO_ROOT, Driver, WebServer


CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run",
]
SCREENSHOTS = REPO_ROOT / "test-artifacts" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE_LANDSCAPE = {"width": 844, "height": 390}
TIMEOUT_MS = 15000


class Client:
    """One person in one browser context (:func:`new_client` opens one)."""

    def __init__(self, context: Any, server: WebServer) -> None:
        self.context = context
        self.server = server
        self.page = context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.errors: list[str] = []
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("dialog", lambda dialog: dialog.accept())

    # ----- navigation and reading

    def goto(self, hash_: str = "#/") -> None:
        self.page.goto(f"{self.server.url}/{hash_}")

    def table_id(self) -> str:
        match = re.search(r"#/table/([A-Za-z0-9_-]+)", self.page.url)
        assert match, f"not on a table page: {self.page.url}"
        return match.group(1)

    def cookie_header(self) -> str:
        return "; ".join(f"{c['name']}={c['value']}" for c in self.context.cookies())

    def driver(self) -> Driver:
        """A WebSocket player with this person's cookies, on the table the page shows."""
        return Driver(self.server, self.cookie_header(), self.table_id())

    def game(self) -> dict[str, str]:
        """The game page's data attributes: version, status, phase, myTurn."""
        data: dict[str, str] = self.page.eval_on_selector(".game-page", "el => ({...el.dataset})")
        return data

    def version(self) -> int:
        return int(self.game().get("version", "-1"))

    def wait_version_after(self, version: int, timeout: float = TIMEOUT_MS) -> None:
        self.page.wait_for_function(
            "v => { const el = document.querySelector('.game-page'); return el && Number(el.dataset.version) > v; }",
            arg=version, timeout=timeout)

    def wait_my_turn_or_end(self) -> None:
        self.page.wait_for_function(
            "() => { const el = document.querySelector('.game-page');"
            " return el && (el.dataset.myTurn === 'true' || el.dataset.status === 'finished'); }")

    def dice(self) -> str:
        value: str = self.page.get_attribute("svg.board", "data-dice") or ""
        return value

    def point(self, p: int) -> Any:
        return self.page.locator(f'g.hit[data-point="{p}"]')

    def count(self, p: int) -> tuple[int, str]:
        el = self.point(p)
        return int(el.get_attribute("data-count") or 0), el.get_attribute("data-owner") or ""

    def screenshot_board(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.locator(".board-wrap").screenshot(path=str(path))
        return path

    def screenshot_page(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path))
        return path

    # ----- playing through the page

    def click_point(self, p: int) -> None:
        self.point(p).click()

    def play_one_action(self) -> bool:
        """Do the next thing the page offers on my turn, by clicking; False when nothing was done."""
        state = self.game()
        if state.get("status") == "finished" or state.get("myTurn") != "true":
            return False
        version = int(state["version"])
        phase = state.get("phase")
        if phase == "rolling":
            self.page.click("[data-action=roll]")
        elif phase == "doubled":
            self.page.click("[data-action=take]")
        elif phase == "moving":
            confirm = self.page.locator("[data-action=confirm]")
            if confirm.count() and confirm.is_enabled():
                confirm.click()
            else:
                movable = self.page.locator("g.hit.movable")
                assert movable.count() > 0, "my move, but no checker can move"
                movable.first.click()
                self.page.wait_for_function(
                    "v => Number(document.querySelector('.game-page').dataset.version) > v"
                    " || document.querySelector('g.hit.target')", arg=version)
                targets = self.page.locator("g.hit.target")
                if targets.count():
                    targets.first.click()
        else:
            return False
        self.wait_version_after(version)
        return True

    def play_until_match_over(self, limit: int = 200) -> None:
        """Click through my turns (the opponent plays itself) until the end screen shows."""
        for _ in range(limit):
            if self.page.locator('.overlay[data-end="match"]').is_visible():
                return
            self.wait_my_turn_or_end()
            if self.game().get("status") == "finished":
                self.page.wait_for_selector('.overlay[data-end="match"]')
                return
            self.play_one_action()
        raise AssertionError("the match did not end")


def new_client(browser: Any, server: WebServer, *, viewport: dict[str, int] | None = None, locale: str = "en-US",
               settings: dict[str, Any] | None = None, **options: Any) -> Client:
    """A new person: a browser context (its own cookies and localStorage; other Playwright context options, such
    as ``has_touch`` or ``reduced_motion``, pass through) whose settings start as ``settings``, sound off."""
    context = browser.new_context(viewport=viewport or DESKTOP, locale=locale, **options)
    initial = {"sound": False, **(settings or {})}
    context.add_init_script(  # a blank page has no storage (visit_afresh leaves one)
        "if (location.protocol !== 'about:' && !localStorage.getItem('nardy.settings'))"
        f" localStorage.setItem('nardy.settings', {json.dumps(json.dumps(initial))});")
    return Client(context, server)


def visit_afresh(person: Client, settings: dict[str, Any], viewport: dict[str, int], *,
                 reduced_motion: str = "no-preference") -> None:
    """Make ``person``'s page a new person's, as a new context's is: cookies (who they were) and local and session
    storage cleared but for ``settings`` (sound off unless given), ``viewport`` and ``reduced_motion``
    (prefers-reduced-motion) set, the page blank, so that the test's first ``goto`` loads the site anew."""
    if not person.page.url.startswith(person.server.url):
        person.goto("#/")
    person.page.evaluate(
        """settings => {
            localStorage.clear();
            sessionStorage.clear();
            localStorage.setItem("nardy.settings", settings);
        }""",
        json.dumps({"sound": False, **settings}))
    person.page.goto("about:blank")
    person.context.clear_cookies()
    person.page.set_viewport_size(viewport)
    person.page.emulate_media(reduced_motion=reduced_motion)
