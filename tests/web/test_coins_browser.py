"""Virtual coins in the browser: the create form's stake, the stake on the game page, the balance and its
history on the profile, the coins leaderboard, and the note that coins are not money (seed 002)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.web.browser_client import Client
from tests.web.test_lobby_browser import account, sign_up
from tests.web.web_driver import Driver, WebServer


MakeClient = Callable[..., Client]
NOTE = "Coins have no money value and cannot be bought or sold."


@pytest.mark.slow
def test_a_coin_match_from_the_form_to_the_profile(client: MakeClient, web_server: WebServer) -> None:
    """A guest cannot stake coins; an account holder opens a 3-point Georgian match for 20 coins a point,
    wins it when the opponent resigns (koks, 3 points, docs/rules.md §4), and finds 3 × 20 more coins on the
    profile, in its history and on the coins leaderboard."""
    guest = client()
    guest.goto("#/")
    assert guest.page.locator("form.create input[name=stake]").is_disabled()  # nobody signed in
    guest.page.evaluate("() => fetch('/api/guest', { method: 'POST' })")
    guest.page.reload()
    guest.page.wait_for_selector("[data-user]")
    assert guest.page.locator("form.create input[name=stake]").is_disabled()

    alice = client()
    sign_up(alice, "coin_alice")
    alice.goto("#/")
    form = alice.page.locator("form.create")
    assert NOTE in form.inner_text()
    form.locator("select[name=variant]").select_option("georgian")
    form.locator("select[name=match_length]").select_option("3")
    assert form.locator("select[name=time]").input_value() == ""
    form.locator("input[name=stake]").fill("20")
    # A coin table needs a time control: the standard bank clock is chosen, "none" is not offered.
    assert form.locator("select[name=time]").input_value() == "b12-60"
    assert form.locator('select[name=time] option[value=""]').is_disabled()
    form.locator("[data-action=create]").click()
    alice.page.wait_for_selector(".game-page[data-status=waiting]")
    assert alice.page.locator('.match-info [data-stake="20"]').inner_text() == "20 coins per point · 60 at stake"

    web_server.dice((3, 1))
    bob = account(web_server, "coin_bob")
    table = alice.table_id()
    bob.post(f"/api/tables/{table}/join")
    alice.page.wait_for_selector(".game-page[data-status=playing]")
    driver = Driver(web_server, bob.cookie_header(), table)
    try:
        driver.act("resign")
    finally:
        driver.close()
    alice.page.wait_for_selector('.overlay[data-end="match"]')
    assert "You won 60 coins." in alice.page.locator(".overlay").inner_text()

    alice.goto("#/profile/coin_alice")
    alice.page.wait_for_selector('#profile-coins [data-coins-balance="1060"]')
    coins = alice.page.locator("#profile-coins")
    assert NOTE in coins.inner_text()
    rows = coins.locator("#coins-history tbody tr")
    assert rows.count() == 2
    assert "Match won" in rows.nth(0).inner_text() and "+60" in rows.nth(0).inner_text()
    assert "Starting coins" in rows.nth(1).inner_text()
    alice.screenshot_page("profile-coins")

    alice.goto("#/profile/coin_bob")
    alice.page.wait_for_selector('#profile-coins [data-coins-balance="940"]')

    alice.goto("#/ratings")
    alice.page.click('[data-family="coins"]')
    alice.page.wait_for_selector("#coins-board")
    assert alice.page.locator("#coins-board tbody tr").first.get_attribute("data-coins-player") == "coin_alice"
    assert NOTE in alice.page.locator("#leaderboard").inner_text()
