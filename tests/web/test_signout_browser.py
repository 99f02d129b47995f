"""A tab whose session is logged out in another tab hears of it at once and carries on as a visitor.

One person, two tabs of one browser (so one cookie jar). The second tab counts
the WebSockets its page opens (a wrapper installed with ``add_init_script``
before the page's scripts run). Logging out in the first tab closes the
second tab's socket with 4001 "signed out": that tab must show the sign-in
link again and be connected as a visitor after one reconnect, not loop.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.web.browser_client import TIMEOUT_MS, Client
from tests.web.web_driver import WebServer


MakeClient = Callable[..., Client]

COUNT_SOCKETS = """
window.__socketsOpened = 0;
const PageWebSocket = window.WebSocket;
window.WebSocket = class extends PageWebSocket {
  constructor(...args) { super(...args); window.__socketsOpened += 1; }
};
"""
SOCKET_STATE = "({opened: window.__socketsOpened, connected: window.nardy.socket.connected," \
               " user: window.nardy.socket.user})"


def test_a_logout_in_one_tab_signs_the_other_tab_out(client: MakeClient, web_server: WebServer) -> None:
    person = client()
    person.goto("#/login")
    form = person.page.locator('form[data-form="signup"]')
    form.locator("input[name=username]").fill("two_tabs")
    form.locator("input[name=password]").fill("correct horse battery")
    form.locator("button[type=submit]").click()
    person.page.wait_for_selector('[data-user="two_tabs"]')

    errors: list[str] = []
    other: Any = person.context.new_page()
    other.set_default_timeout(TIMEOUT_MS)
    other.on("pageerror", lambda error: errors.append(str(error)))
    other.add_init_script(COUNT_SOCKETS)
    other.goto(f"{web_server.url}/#/")
    other.wait_for_selector('[data-user="two_tabs"]')
    other.wait_for_function("() => window.nardy && window.nardy.socket.connected && window.nardy.socket.user")
    assert other.evaluate(SOCKET_STATE)["opened"] == 1

    person.goto("#/login")
    person.page.click("[data-action=logout]")
    other.wait_for_selector('#nav-account a[href="#/login"]', timeout=3000)  # no reload, no 5-second wait
    other.wait_for_function("() => window.nardy.socket.connected && window.nardy.socket.user === null", timeout=3000)
    other.wait_for_timeout(1500)  # time enough for a reconnect loop to show
    assert other.evaluate(SOCKET_STATE) == {"opened": 2, "connected": True, "user": None}
    assert not errors, errors
