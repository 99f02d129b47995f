"""A guest uploads a match file (#/imports), lands on its replay, follows the analysis queued at upload to its
end, and steps through the match with each move's verdict; the upload is listed with its analysis, and
deleted. A file that is not a match file is refused with the server's reason, on the page it was sent from.

The tests share one server (its analysis worker too) and its pages, each test's person new in them (``visitor``)."""

from __future__ import annotations

import random
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from nardy.notation import transcript_to_mat
from nardy.notation.transcript import Action, GameTranscript, Transcript
from nardy.rules import GameOptions, Match, Phase
from tests.web.browser_client import Client

MakeClient = Callable[..., Client]
ANALYSIS_SECONDS = 180_000
"""Milliseconds the worker process may take: spawned, engines loaded, a whole game analysed on a busy machine."""


def random_mat(seed: int) -> tuple[str, Match]:
    """A finished 1-point backgammon match without the cube, between ann and bob, of random legal plays, as a
    .mat file's text, and the match as the rules left it."""
    rng = random.Random(seed)
    options = GameOptions(cube=False)
    match = Match.new("backgammon", length=1, options=options)
    actions: list[Action] = []
    while not match.is_over:
        game = match.game
        if game.phase is Phase.OPENING:
            first, second = rng.sample(range(1, 7), 2)
            actions.append(Action("opening", dice=(first, second)))
            match = match.update(game.opening_roll((first, second)))
        elif game.phase is Phase.ROLLING:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            actions.append(Action("roll", game.turn, dice=dice))
            match = match.update(game.roll(game.turn, dice))  # a roll that cannot be played passes the turn
        else:
            play = rng.choice(game.legal_plays())
            actions.append(Action("move", game.turn, steps=play.steps))
            match = match.update(game.move(game.turn, play.steps))
    transcript = Transcript("backgammon", 1, options, ("ann", "bob"), (GameTranscript(tuple(actions)),))
    return transcript_to_mat(transcript), match


def _continue_as_guest(person: Client) -> None:
    person.goto("#/login")
    person.page.click("[data-action=guest]")
    person.page.wait_for_selector("#nav-account [data-user]")


def _upload(person: Client, path: Path) -> None:
    person.page.set_input_files("input[name=match-file]", str(path))
    person.page.click("[data-action=upload]")


@pytest.mark.slow
def test_a_match_file_is_analysed_replayed_listed_and_deleted(visitor: MakeClient, tmp_path: Path) -> None:
    person = visitor()
    person.goto("#/analysis")
    person.page.click("[data-action=imports]")
    person.page.wait_for_selector("[data-action=sign-in]")  # nobody signed in: asked to sign in first
    assert person.page.locator("input[name=match-file]").count() == 0

    _continue_as_guest(person)
    person.goto("#/imports")
    person.page.wait_for_selector("#imports p.hint:has-text('not uploaded')")
    path = tmp_path / "ann-bob.mat"
    text, match = random_mat(1)
    path.write_text(text, encoding="utf-8")
    person.page.select_option("select[name=import-level]", "advanced")
    _upload(person, path)
    person.page.wait_for_url(re.compile(r"#/import/[A-Za-z0-9_-]+$"))
    person.page.wait_for_selector(".replay-counter:has-text('1 of')")
    assert "ann-bob.mat" in person.page.locator(".replay h1").inner_text()
    assert person.page.locator("[data-download]").evaluate_all("links => links.map((a) => a.dataset.download)") == [
        "mat", "sgf"]

    person.page.wait_for_selector(".analysis-panel[data-status=done]", timeout=ANALYSIS_SECONDS)
    summary = person.page.locator(".analysis-summary")
    assert summary.locator("tbody tr").count() == 7
    assert summary.locator("thead th").all_inner_texts()[1:] == ["ann", "bob"]
    points = person.page.locator(".equity-graph circle.equity-point")
    assert points.count() == person.page.locator(".analysis-moves li").count() > 5
    person.screenshot_page("import-analysis")

    # the first frame is the opening roll, the next the move played with it, with its verdict
    assert person.page.locator(".replay-text").get_attribute("data-kind") == "opening_rolled"
    assert person.page.locator(".board-wrap svg.board").count() == 1
    person.page.click("[data-action=forward]")
    person.page.wait_for_selector(".replay-counter:has-text('2 of')")
    assert person.page.locator(".replay-text").get_attribute("data-kind") == "moved"
    assert person.page.locator(".replay-text").inner_text().startswith(("ann: ", "bob: "))
    person.page.wait_for_selector(".replay-verdict")

    # a marked decision in the analysis' list shows its move, its loss and the best play
    marked = person.page.locator(".analysis-moves li.marked").last
    mark = marked.get_attribute("data-mark")
    marked.locator("button").click()
    person.page.wait_for_selector(f'.replay-verdict[data-mark="{mark}"]:has-text("best:")')
    assert person.page.locator(".replay-text").get_attribute("data-kind") == "moved"
    person.page.click("[data-action=last]")
    assert person.page.locator(".replay-text").get_attribute("data-kind") == "match_ended"
    person.page.click("[data-action=back]")
    assert person.page.locator(".replay-text").get_attribute("data-kind") == "game_ended"
    result = match.results[0]
    assert person.page.locator(".replay-text").inner_text().startswith(
        f"Game 1: {('ann', 'bob')[result.winner]} wins {result.points} (")

    person.page.click("a.button[href='#/imports']")
    row = person.page.locator("[data-import]")
    row.wait_for()
    assert row.get_attribute("data-status") == "done"
    assert "ann-bob.mat" in row.inner_text() and "ann – bob" in row.inner_text() and "Analysed" in row.inner_text()
    person.page.click("[data-action=delete-import]")  # the page's confirmation is accepted
    person.page.wait_for_selector("#imports p.hint:has-text('not uploaded')")
    assert person.page.locator("[data-import]").count() == 0


@pytest.mark.slow
def test_a_failed_analysis_is_asked_for_again_from_the_panel(visitor: MakeClient, tmp_path: Path) -> None:
    """The panel of a failed analysis gives its reason, and the level and the button to try again."""
    person = visitor()
    _continue_as_guest(person)
    person.goto("#/imports")
    person.page.wait_for_selector("#imports p.hint")
    path = tmp_path / "again.mat"
    path.write_text(random_mat(2)[0], encoding="utf-8")
    person.page.select_option("select[name=import-level]", "advanced")
    _upload(person, path)
    person.page.wait_for_selector(".analysis-panel[data-status=done]", timeout=ANALYSIS_SECONDS)
    uploaded = re.search(r"#/import/([A-Za-z0-9_-]+)$", person.page.url)
    assert uploaded, person.page.url
    with sqlite3.connect(person.server.data_dir / "nardy.sqlite3") as database:  # as a worker that died would leave it
        database.execute("UPDATE imported_matches SET status = 'failed', error = 'RuntimeError: worker lost'"
                         " WHERE id = ?", (uploaded.group(1),))
    person.page.reload()
    person.page.wait_for_selector(".analysis-panel .error:has-text('worker lost')")
    assert person.page.locator("select[name=analysis-level]").input_value() == "advanced"
    person.page.click(".analysis-panel [data-action=analyse]")
    person.page.wait_for_selector(".analysis-panel[data-status=done]", timeout=ANALYSIS_SECONDS)


def test_a_file_that_is_not_a_match_file_is_refused(visitor: MakeClient, tmp_path: Path) -> None:
    person = visitor()
    _continue_as_guest(person)
    person.goto("#/imports")
    person.page.wait_for_selector("#imports p.hint")
    assert person.page.locator("a[data-nav=analysis].active").count() == 1
    path = tmp_path / "notes.txt"
    path.write_text("Shopping list\n\neggs\nmilk\n", encoding="utf-8")
    _upload(person, path)
    error = person.page.locator(".import-form .error")
    person.page.wait_for_function("el => el.textContent.trim() !== ''", arg=error.element_handle())
    assert person.page.url.endswith("#/imports")
    assert person.page.locator("[data-import]").count() == 0

    # the page shows the server's own reason
    csrf = next(c["value"] for c in person.context.cookies() if c["name"] == "nardy_csrf")
    reply = person.page.request.post(f"{person.server.url}/api/imports", headers={"X-CSRF-Token": csrf},
                                     data={"name": path.name, "text": path.read_text(encoding="utf-8")})
    assert reply.status == 422
    assert error.inner_text() == reply.json()["detail"]
