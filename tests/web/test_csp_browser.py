"""The browser client under its Content-Security-Policy, in Debian's chromium: nothing it does is blocked.

Every page load records the ``securitypolicyviolation`` events of the page
(a listener registered with ``page.add_init_script``, so it is there before
the page's own scripts run). A guest opens the lobby, plays a few turns
against the computer, opens their profile, whose dice bars are sized
through ``element.style``, then the settings (pictures drawn as SVG
markup), the leaderboards and the sign-in page; not one violation may fire. At the end an inline
style attribute is set on purpose, to see the listener catch it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.web.browser_client import Client
from tests.web.web_driver import WebServer


MakeClient = Callable[..., Client]

RECORD_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__cspViolations.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`);
});
"""


def violations(person: Client) -> list[str]:
    found: list[str] = person.page.evaluate("window.__cspViolations")
    return found


def test_the_client_runs_under_its_policy_without_a_violation(client: MakeClient, web_server: WebServer) -> None:
    person = client()
    person.page.add_init_script(RECORD_VIOLATIONS)
    response: Any = person.page.goto(f"{web_server.url}/#/")
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    person.page.wait_for_selector("[data-action=quick-play]")
    assert violations(person) == []

    web_server.dice((6, 1), *[(2, 1), (6, 5)] * 20)
    person.page.select_option("select[name=quick-variant]", "backgammon")
    person.page.click("[data-action=quick-play]")
    person.page.wait_for_selector(".game-page[data-status=playing]")
    person.page.wait_for_selector("svg.board .checker")
    for _ in range(8):  # the opening move, then my rolls and moves: each one acknowledged over the WebSocket
        person.wait_my_turn_or_end()
        person.play_one_action()
    assert violations(person) == []

    person.page.click("[data-user]")
    person.page.wait_for_selector("#profile-dice .bar-row")
    widths = person.page.eval_on_selector_all("#profile-dice .bar-fill", "bars => bars.map((b) => b.style.width)")
    assert len(widths) == 6 and any(width not in ("", "0%") for width in widths), widths
    assert violations(person) == []

    for page, selector in (("#/settings", ".page.settings .corner-pic"), ("#/ratings", ".page.leaderboard"),
                           ("#/login", ".page.login form")):
        person.goto(page)
        person.page.wait_for_selector(selector)
    assert violations(person) == []

    person.page.evaluate("document.body.setAttribute('style', 'color: red')")
    person.page.wait_for_function("() => window.__cspViolations.length > 0")
    assert any("style-src" in violation for violation in violations(person))
