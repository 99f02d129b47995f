"""A first visit logs nothing in the console: a visitor nobody signed in yet is answered without an error.

The page asks on every load who is signed in; a visitor used to be answered
401, which the browser logs as a failed resource in the console of every
first visit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.web.browser_client import Client
from tests.web.web_driver import WebServer


MakeClient = Callable[..., Client]


def console_problems(person: Client) -> list[str]:
    """Everything the page's console will log as an error or a warning, and every HTTP error answer."""
    problems: list[str] = []
    person.page.on("console", lambda message: problems.append(f"console {message.type}: {message.text}")
                   if message.type in ("error", "warning") else None)
    person.page.on("response", lambda response: problems.append(f"{response.status} {response.url}")
                   if response.status >= 400 else None)
    return problems


def test_a_first_visit_logs_no_error(client: MakeClient, web_server: WebServer) -> None:
    person = client()
    problems = console_problems(person)
    person.goto("#/")
    person.page.wait_for_selector("[data-action=quick-play]")
    person.page.wait_for_load_state("networkidle")
    for page, selector in (("#/login", ".page.login form"), ("#/settings", ".page.settings"),
                           ("#/ratings", ".page.leaderboard")):
        person.goto(page)
        person.page.wait_for_selector(selector)
        person.page.wait_for_load_state("networkidle")
    assert problems == []
    assert person.page.evaluate("document.cookie") == "", "asking made no guest and set no cookie"
