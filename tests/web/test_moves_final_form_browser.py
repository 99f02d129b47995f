"""The create form's "moves are final" box follows who the table is for (docs/rules.md, decisions of 2026-12-02).

004's «Ходы окончательны» is a rule of its tables between people: the box is
ticked by a long-nardy variant's default against a person, unticked against
the computer, and ticked and locked at a rated table; its hint says what it
does in words a player knows.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.web.browser_client import Client
from tests.web.web_driver import Http, WebServer


MakeClient = Callable[..., Client]


def test_the_box_is_off_against_the_computer_and_locked_on_at_rated_tables(
    client: MakeClient, web_server: WebServer,
) -> None:
    person = client()
    person.goto("#/login")
    signup = person.page.locator('form[data-form="signup"]')
    signup.locator("input[name=username]").fill("undoer")
    signup.locator("input[name=password]").fill("correct horse battery")
    signup.locator("button[type=submit]").click()
    person.page.wait_for_selector('[data-user="undoer"]')
    person.goto("#/")
    form = person.page.locator("form.create")
    final = form.locator("input[name=moves_final]")
    opponent = form.locator("select[name=opponent]")
    rated = form.locator("input[name=rated]")
    form.locator("select[name=variant]").select_option("long-traditional")
    assert final.is_checked() and final.is_enabled()
    hint = final.locator("xpath=..").inner_text()
    assert "004" not in hint and "undo" in hint

    rated.check()
    assert final.is_checked() and final.is_disabled(), "a rated table keeps moves final"
    rated.uncheck()
    assert final.is_enabled()
    final.uncheck()

    opponent.select_option("computer")
    assert not final.is_checked(), "against the computer the player may undo"
    opponent.select_option("human")
    assert final.is_checked(), "between people the variant's default comes back"

    opponent.select_option("computer")
    web_server.dice(*[(6, 2)] * 2, *[(5, 3)] * 40)
    form.locator("[data-action=create]").click()
    person.page.wait_for_selector(".game-page[data-status=playing]")
    assert Http(web_server).get(f"/api/tables/{person.table_id()}")["options"]["moves_final"] is False
