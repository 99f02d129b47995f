"""A tournament match's end screen leads back to the tournament, not into an unrelated casual game.

Issue 39, item 12: «A tournament match's end screen offers "Play again" (an
unrelated casual game): offer "Back to the tournament"».
"""

from __future__ import annotations

from collections.abc import Callable

from tests.web.browser_client import Client
from tests.web.test_lobby_browser import account, sign_up
from tests.web.web_driver import Driver, WebServer


MakeClient = Callable[..., Client]


def test_the_end_of_a_tournament_match_offers_the_way_back(client: MakeClient, web_server: WebServer) -> None:
    organiser = account(web_server, "end_organiser")
    tournament = organiser.post("/api/tournaments", {
        "name": "Evening cup", "format": "knockout", "variant": "georgian", "max_players": 2,
    })["id"]
    person = client()
    sign_up(person, "end_alice")
    person.goto(f"#/tournament/{tournament}")
    person.page.click("[data-action=register]")
    person.page.wait_for_selector("[data-action=withdraw]")

    web_server.dice((5, 3), (4, 2), (6, 1), (3, 3))
    opponent = account(web_server, "end_bob")
    opponent.post(f"/api/tournaments/{tournament}/register")
    person.page.wait_for_selector(".tournament[data-status=running] .bracket-match a[data-table]", timeout=20_000)
    table = person.page.get_attribute(".bracket-match a[data-table]", "data-table")
    assert table
    person.goto(f"#/table/{table}")
    person.page.wait_for_selector(".game-page[data-status=playing]")

    driver = Driver(web_server, opponent.cookie_header(), table)
    try:
        driver.act("leave")
    finally:
        driver.close()
    back = person.page.locator(".end-card [data-action=back-to-tournament]")
    back.wait_for()
    assert back.inner_text() == "Back to the tournament"
    ends = person.page.locator(".end-card")
    for offer in ("play-again", "rematch", "go-rematch"):
        assert ends.locator(f"[data-action={offer}]").count() == 0, f"{offer} offered after a tournament match"
    back.click()
    person.page.wait_for_selector(".tournament[data-status=finished]")
    assert person.page.evaluate("location.hash") == f"#/tournament/{tournament}"
