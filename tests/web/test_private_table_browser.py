"""A private table in the browser: the invite link lets a friend watch it; its id alone shows nothing.

Issue 39, item 11: «Private means private ... Everything of a private table
needs a seat or the invite token». The page opened by the invite link keeps
the token for the tab, and names it when it subscribes and reads the table.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.web.browser_client import Client
from tests.web.web_driver import Http, WebServer


MakeClient = Callable[..., Client]


def test_the_invite_link_shows_a_private_match_and_its_id_alone_does_not(client: MakeClient, web_server: WebServer) -> None:
    alice, bob = Http(web_server), Http(web_server)
    alice.post("/api/guest")
    bob.post("/api/guest")
    created = alice.post("/api/tables", {"variant": "georgian", "match_length": 1, "private": True})
    table, invite = created["table"]["table"], created["invite"]
    web_server.dice((3, 1))
    bob.post(f"/api/tables/{table}/join", {"invite": invite})

    stranger = client()
    stranger.goto(f"#/table/{table}")
    stranger.page.wait_for_selector(".toast.error")
    assert "private" in stranger.page.locator(".toast.error").inner_text()
    assert stranger.page.locator(".game-page[data-status=playing]").count() == 0

    friend = client()
    friend.goto(f"#/invite/{invite}")
    friend.page.click(f'a[href="#/table/{table}"]')  # the match is full: the invite offers to watch it
    friend.page.wait_for_selector(".game-page[data-status=playing]")
    friend.page.reload()
    friend.page.wait_for_selector(".game-page[data-status=playing]")

    # the replay's match files are the table's too: their links carry the invite this tab holds
    friend.goto(f"#/replay/{table}")
    link = friend.page.locator('a[href*="/export.mat"]').first
    link.wait_for()
    href = link.get_attribute("href") or ""
    assert f"invite={invite}" in href
    assert friend.page.request.get(web_server.url + href if href.startswith("/") else href).ok
    assert not stranger.page.request.get(f"{web_server.url}/api/tables/{table}/export.mat").ok
