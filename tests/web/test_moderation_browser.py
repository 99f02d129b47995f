"""Reporting, blocking and the moderators' console in the browser (docs/moderation.md).

«Report a player ... from the game page, the chat and the profile; ... the
reporter sees that it was received.» «A moderator console (its own pages ...):
the report queue, a user view ..., and actions ... A player sees the warnings
and restrictions on their own account.» The routes' rules are tested in
tests/server/test_moderation.py and test_fair_play_queue.py; here, that the pages reach them (a
fair-play flag shows in the queue with its evidence, and its review shows in
the audit log with the flag's number).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from nardy.cli import main
from nardy.store import fair_play_repo, users_repo
from nardy.store.db import make_engine, make_sessionmaker
from tests.web.browser_client import Client
from tests.web.test_lobby_browser import account, sign_up
from tests.web.web_driver import WebServer

MakeClient = Callable[..., Client]


def flag(database: str, name: str) -> int:
    """Write a fair-play flag on ``name`` as the detector does; its id."""
    engine = make_engine(database)
    with make_sessionmaker(engine)() as db:
        user = users_repo.by_name(db, name)
        assert user is not None
        row = fair_play_repo.add_flag(
            db, user_id=user.id, variant="long", statistic="min_robust_z", value=3.2, threshold=3.0, games=12,
            evidence={"z_pr": -3.4, "z_match": 3.2, "pr": 1.1, "match_rate": 0.9, "reference": {"accounts": 14}},
            now=datetime.now(UTC),
        )
        db.commit()
        flag_id = row.id
    engine.dispose()
    return flag_id


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
    flag_id = flag(database, "rude_player")
    person.page.reload()
    person.page.click("[data-account-menu] summary")
    person.page.click("[data-action=menu-moderation]")
    person.page.wait_for_selector("[data-report-queue] td:has-text('insults in the chat')")
    person.page.wait_for_selector("[data-fair-play-queue] td:has-text('z PR -3.40, z best moves 3.20')")
    person.page.click("[data-report-queue] a[href='#/moderation/rude_player']")
    form = person.page.locator("[data-moderation-action]")
    form.locator("select[name=action]").select_option("warn")
    form.locator("input[name=reason]").fill("keep the chat civil")
    form.locator("button[type=submit]").click()
    person.page.wait_for_selector("[data-section=log] td:has-text('keep the chat civil')")
    person.page.wait_for_selector(f"[data-section=fair-play] td:text-is('#{flag_id}')")
    review = person.page.locator(f"[data-review-flag='{flag_id}']")
    review.locator("input[name=reason]").fill("games look human")
    review.locator("button[type=submit]").click()
    reviewed = person.page.locator("[data-section=log] tr", has_text="games look human")
    reviewed.locator(f"td:has-text('flag #{flag_id}')").wait_for()

    standing = rude.get("/api/me/moderation")
    assert [w["reason"] for w in standing["warnings"]] == ["keep the chat civil"]
