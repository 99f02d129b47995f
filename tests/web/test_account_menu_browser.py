"""Logging out from every page: the account menu beside the player's name holds it; the account page and the
language the account's mails speak.

Issue 39, item 12: «logout only on the Sign-in page (put it in the account menu)».
"""

from __future__ import annotations

import time
from collections.abc import Callable

from tests.web.browser_client import Client
from tests.web.test_lobby_browser import PASSWORD, sign_up
from tests.web.web_driver import WebServer


MakeClient = Callable[..., Client]


def test_the_account_menu_logs_out_from_any_page(client: MakeClient, web_server: WebServer) -> None:
    person = client()
    sign_up(person, "menu_user")
    person.goto("#/ratings")
    person.page.wait_for_selector(".page.leaderboard")
    items = person.page.locator("[data-account-menu] .account-menu-items")
    assert not items.is_visible(), "the menu opens on demand"
    person.page.click("[data-account-menu] summary")
    assert items.is_visible()
    box = person.page.locator("[data-account-menu] summary").bounding_box()
    assert box and box["width"] >= 32 and box["height"] >= 32, box
    assert person.page.get_attribute("[data-action=menu-profile]", "href") == "#/profile/menu_user"

    person.page.click("[data-action=menu-logout]")
    person.page.wait_for_selector('form[data-form="login"]')
    person.page.wait_for_selector('#nav-account a[href="#/login"]')
    assert person.page.locator("[data-user]").count() == 0
    session = person.page.evaluate("() => fetch('/api/session').then((r) => r.json())")
    assert session == {"user": None}, "the session ended on the server too"


def test_the_account_page_changes_the_password_and_sign_in_offers_a_reset(
    client: MakeClient, web_server: WebServer,
) -> None:
    """The issue's account life in the browser: the menu opens the account page, whose forms post to the server
    (the routes' rules are tested in tests/server/test_account_life.py)."""
    person = client()
    sign_up(person, "page_user")
    person.page.click("[data-account-menu] summary")
    person.page.click("[data-action=menu-account]")
    form = person.page.locator('form[data-form="password"]')
    form.locator("input[name=current_password]").fill(PASSWORD)
    form.locator("input[name=new_password]").fill("purple stapler orbit 42")
    form.locator("button[type=submit]").click()
    person.page.wait_for_selector('form[data-form="password"] [role=status]:has-text("Password changed")')
    assert person.page.get_attribute("[data-action=download]", "href") == "/api/account/export"
    assert person.page.locator('form[data-form="delete"]').is_visible()

    person.page.click("[data-account-menu] summary")
    person.page.click("[data-action=menu-logout]")
    person.page.click("[data-forgot] summary")
    person.page.fill('form[data-form="forgot"] input[name=account]', "page_user")
    person.page.click('form[data-form="forgot"] button[type=submit]')
    person.page.wait_for_selector('form[data-form="forgot"] .error:has-text("sends no mail")')


def test_the_language_picked_in_the_settings_becomes_the_accounts_for_its_mails(
    client: MakeClient, web_server: WebServer,
) -> None:
    """«Mails in the account's language»: the settings page tells the server the language the player picked."""
    person = client()
    sign_up(person, "polyglot")
    language = "() => fetch('/api/account').then((r) => r.json()).then((a) => a.language)"
    assert person.page.evaluate(language) is None
    person.goto("#/settings")
    person.page.select_option("select[name=language]", "ka")
    person.page.wait_for_function("() => document.documentElement.lang === 'ka'")
    deadline = time.monotonic() + 5
    while person.page.evaluate(language) != "ka":
        assert time.monotonic() < deadline, "the account's language did not follow the page's"
        time.sleep(0.05)
