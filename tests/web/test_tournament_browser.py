"""A sit-and-go in the browser, from registration to the standings and the printable game protocol.

The organiser and the second player are HTTP clients outside the browser; the
second player forfeits their match over the WebSocket, so the page under test
follows the tournament from its list to its end without playing a game. The tests share one server and its
pages, each test's person new in them (``visitor``).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.web.browser_client import Client
from tests.web.test_lobby_browser import account, sign_up
from tests.web.web_driver import Driver


MakeClient = Callable[..., Client]


def organiser_on_its_page(visitor: MakeClient, username: str, settings: dict[str, object]) -> tuple[Client, str]:
    """A new account organises a tournament from its browser and opens the tournament's page: (page, id)."""
    person = visitor()
    sign_up(person, username)
    tournament: str = person.page.evaluate("""(settings) => fetch('/api/tournaments', {
        method: 'POST', headers: {'Content-Type': 'application/json',
          'X-CSRF-Token': document.cookie.match(/nardy_csrf=([^;]+)/)[1]},
        body: JSON.stringify(settings),
      }).then((r) => r.json()).then((t) => t.id)""", settings)
    person.goto(f"#/tournament/{tournament}")
    person.page.wait_for_selector(".tournament[data-status=registering]")
    return person, tournament


@pytest.mark.slow
def test_a_sit_and_go_from_registration_to_standings(visitor: MakeClient) -> None:
    person = visitor()
    web_server = person.server
    organiser = account(web_server, "cup_organiser")
    tournament = organiser.post("/api/tournaments", {
        "name": "Friday cup", "season": "2027", "format": "knockout", "variant": "long-bolshie", "max_players": 2,
    })["id"]

    sign_up(person, "cup_alice")
    person.goto("#/tournaments")
    person.page.wait_for_selector(f'[data-list=upcoming] [data-tournament="{tournament}"]')
    # the form offers the match lengths the chosen variant is played to (GET /api/variants), tavli's 3, 5 or 7
    create = person.page.locator("form[data-form=tournament]")
    create.locator("select[name=variant]").select_option("tavli")
    lengths = create.locator("select[name=match_length] option").evaluate_all("options => options.map((o) => o.value)")
    assert lengths == ["3", "5", "7"]
    person.screenshot_page("tournaments-list")
    person.page.click(f'[data-list=upcoming] [data-tournament="{tournament}"] a')
    person.page.wait_for_selector(".tournament[data-status=registering]")
    person.page.click("[data-action=register]")
    person.page.wait_for_selector("[data-action=withdraw]")
    assert "cup_alice" in person.page.locator(".tournament-entries").inner_text()

    web_server.dice((5, 3))  # the match's opening roll
    opponent = account(web_server, "cup_bob")
    opponent.post(f"/api/tournaments/{tournament}/register")
    person.page.wait_for_selector(".tournament[data-status=running] .bracket-match a[data-table]", timeout=20_000)
    table = person.page.get_attribute(".bracket-match a[data-table]", "data-table")
    assert table

    driver = Driver(web_server, opponent.cookie_header(), table)
    try:
        driver.act("leave")
    finally:
        driver.close()
    person.page.wait_for_selector(".tournament[data-status=finished] [data-standings]", timeout=20_000)
    first = person.page.locator("[data-standings] tbody tr").first.inner_text()
    assert first.startswith("1") and "cup_alice" in first
    person.screenshot_page("tournament-finished")

    person.page.click("[data-action=protocol]")
    person.page.wait_for_selector(".protocol-sheet[data-game='1']")
    person.screenshot_page("tournament-protocol")
    sheet = person.page.locator(".protocol-sheet").inner_text()
    assert "Friday cup" in sheet and "2027" in sheet and "cup_alice" in sheet and "cup_bob" in sheet


def test_the_organiser_cancels_from_the_tournament_page(visitor: MakeClient) -> None:
    person, _ = organiser_on_its_page(visitor, "cup_host", {"name": "Saturday cup", "format": "knockout",
                                                           "variant": "georgian", "max_players": 4})
    person.page.wait_for_selector("[data-action=cancel-tournament]")
    person.page.once("dialog", lambda dialog: dialog.accept())
    person.page.click("[data-action=cancel-tournament]")
    person.page.wait_for_selector(".tournament[data-status=cancelled]")
    assert person.page.locator("[data-action=cancel-tournament]").count() == 0
    assert person.page.locator("[data-action=register]").count() == 0

    other = account(person.server, "cup_guest_of_honour")
    other_tournament = other.post("/api/tournaments", {"name": "Sunday cup", "format": "knockout", "variant": "georgian"})["id"]
    person.goto(f"#/tournament/{other_tournament}")
    person.page.wait_for_selector(".tournament[data-status=registering] [data-action=register]")
    assert person.page.locator("[data-action=cancel-tournament]").count() == 0  # only the organiser may


def test_the_organiser_changes_the_name_and_places_from_the_tournament_page(visitor: MakeClient) -> None:
    person, tournament = organiser_on_its_page(visitor, "cup_editor", {"name": "Monday cup", "format": "knockout",
                                                                      "variant": "georgian", "max_players": 8})
    person.page.click("[data-edit] summary")
    form = person.page.locator("[data-form=tournament-edit]")
    assert form.locator("input[name=name]").input_value() == "Monday cup"
    assert form.locator("input[name=starts_at]").is_hidden(), "a sit-and-go has no start time"
    form.locator("input[name=name]").fill("Tuesday cup")
    person.page.wait_for_timeout(2500)  # the page polls meanwhile: what is typed stays
    assert form.locator("input[name=name]").input_value() == "Tuesday cup"
    form.locator("input[name=max_players]").fill("4")
    form.locator("button[type=submit]").click()
    person.page.wait_for_function("() => document.querySelector('.tournament h1').textContent === 'Tuesday cup'")
    assert person.page.locator("[data-edit]").get_attribute("open") is None
    other = account(person.server, "cup_owner")
    shown = other.get(f"/api/tournaments/{tournament}")
    assert (shown["name"], shown["max_players"]) == ("Tuesday cup", 4)
    assert "4" in person.page.locator(".tournament-status").inner_text()

    theirs = other.post("/api/tournaments", {"name": "Their cup", "format": "knockout", "variant": "georgian"})["id"]
    person.goto(f"#/tournament/{theirs}")
    person.page.wait_for_selector(".tournament[data-status=registering] [data-action=register]")
    assert person.page.locator("[data-edit]").count() == 0  # only the organiser may
