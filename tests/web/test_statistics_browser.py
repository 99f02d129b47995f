"""Profile truth in the browser: a new account's profile shows its own wins by colour (none), and the
site-wide figures are on the public statistics page the menu leads to.

Issue 39: «"Wins by colour" on a new account shows site-wide numbers as if
they were the player's: show the player's own, and put the site-wide figures
(wins by colour per variant, like 003's page, and the site's dice distribution
with its chi-square) on a public statistics page».
"""

from __future__ import annotations

from collections.abc import Callable

from tests.web.browser_client import Client
from tests.web.test_lobby_browser import sign_up
from tests.web.web_driver import Driver, Http, WebServer


MakeClient = Callable[..., Client]


def _finished_game_with_a_roll(server: WebServer) -> None:
    """Two guests outside the browser play a Georgian 1-point match: the opening play, a roll, a resignation."""
    alice, bob = Http(server), Http(server)
    alice.post("/api/guest")
    bob.post("/api/guest")
    table = alice.post("/api/tables", {"variant": "georgian", "match_length": 1})["table"]["table"]
    server.dice((3, 1), (4, 2))
    bob.post(f"/api/tables/{table}/join")
    drivers = [Driver(server, person.cookie_header(), table) for person in (alice, bob)]
    try:
        first = next(driver for driver in drivers if driver.my_turn())
        second = drivers[1 - drivers.index(first)]
        first.play_turn()  # the opening roll's play
        second.wait_my_turn_or_end()
        second.play_turn()  # a roll of its own
        second.act("resign")
        first.wait_my_turn_or_end()
        assert first.state["status"] == "finished", first.state["status"]
    finally:
        for driver in drivers:
            driver.close()


def test_a_new_profile_shows_its_own_colours_and_the_menu_leads_to_the_site_s(
    client: MakeClient, web_server: WebServer,
) -> None:
    _finished_game_with_a_roll(web_server)
    site_dice = Http(web_server).get("/api/stats/dice")["statistics"]
    assert site_dice["rolls"] == 1

    person = client()
    sign_up(person, "fresh_player")
    person.goto("#/profile/fresh_player")
    colours = person.page.locator("#colour-stats")
    colours.locator("[data-site-statistics]").wait_for()
    assert colours.locator("[data-variant]").count() == 0, "the site's games shown as the new player's"
    assert "No finished games yet." in colours.inner_text()

    person.page.click("nav a[data-nav=statistics]")
    person.page.wait_for_selector("#site-colours [data-variant=georgian]")
    assert person.page.locator("nav a[data-nav=statistics]").get_attribute("class") == "active"
    row = person.page.locator("#site-colours [data-variant=georgian]")
    cells = [row.locator(f"[data-colour={colour}]").inner_text() for colour in ("white", "black")]
    assert sorted(cell.split(" ")[0] for cell in cells) == ["0", "1"], cells
    chi = person.page.locator("#site-dice [data-chi-square]")
    chi.wait_for()
    assert chi.get_attribute("data-chi-square") == f"{site_dice['chi_square']:.2f}"
    assert "1 rolls" in person.page.locator("#site-dice").inner_text()
