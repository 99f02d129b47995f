"""Reporting, blocking and the moderators' console in the browser (docs/moderation.md).

«Report a player ... from the game page, the chat and the profile; ... the
reporter sees that it was received.» «A moderator console (its own pages ...):
the report queue, a user view ..., and actions ... A player sees the warnings
and restrictions on their own account.» The routes' rules are tested in
tests/server/test_moderation.py; here, that the pages reach them.
"""

from __future__ import annotations

from collections.abc import Callable

from nardy.cli import main
from tests.web.browser_client import Client
from tests.web.test_lobby_browser import account, sign_up
from tests.web.web_driver import WebServer

MakeClient = Callable[..., Client]


def test_a_report_from_the_profile_reaches_the_console_whose_warning_the_player_sees(
    client: MakeClient, web_server: WebServer,
) -> None:
    rude = account(web_server, "rude_player")
    person = client()
    sign_up(person, "reporter")
    person.goto("#/profile/rude_player")
    person.page.click("[data-report=rude_player]")
    dialog = person.page.locator("[data-report-dialog]")
    dialog.locator("select[name=category]").select_option("abuse")
    dialog.locator("textarea[name=text]").fill("insults in the chat")
    dialog.locator("[data-action=report-send]").click()
    person.page.wait_for_selector(".toast:has-text('Report received')")
    person.page.click("[data-block=rude_player]")
    person.page.wait_for_selector("[data-block=rude_player][aria-pressed=true]")

    database = f"sqlite:///{web_server.data_dir / 'nardy.sqlite3'}"
    assert main(["admin", "grant-moderator", "reporter", "--database-url", database]) == 0
    person.page.reload()
    person.page.click("[data-account-menu] summary")
    person.page.click("[data-action=menu-moderation]")
    person.page.wait_for_selector("[data-report-queue] td:has-text('insults in the chat')")
    person.page.click("[data-report-queue] a[href='#/moderation/rude_player']")
    form = person.page.locator("[data-moderation-action]")
    form.locator("select[name=action]").select_option("warn")
    form.locator("input[name=reason]").fill("keep the chat civil")
    form.locator("button[type=submit]").click()
    person.page.wait_for_selector("[data-section=log] td:has-text('keep the chat civil')")

    standing = rude.get("/api/me/moderation")
    assert [w["reason"] for w in standing["warnings"]] == ["keep the chat civil"]
