"""The variants added beside backgammon and long nardy, each played as a whole game in the browser.

For each of hypergammon, nackgammon, portes, tavla, plakoto and fevga a guest
opens a table against the random computer, sees the start drawn as the rules
lay it out (hypergammon's three checkers, fevga's long board with the
opponent's fifteen on our 12) and plays the game from there to the end
screen: a driver with the page's cookies plays the guest's turns over the
WebSocket, and the page clicks the last one (:mod:`tests.web.scripted_game`:
big rolls for the guest, 1-2 for the computer, each queued as it is needed);
the page has followed it all, its move list every play of the table's record.
Plakoto's game shows a pinned checker under the stack that pins it at some
point. A tavli match to 5 points goes round its three games, portes, plakoto
and fevga: the page names each game in play and draws its start, shows each
game's result with the match score, then the match's end with the final score. The analysis board draws a set-up plakoto
position with a pin each way, with words for it.

The tests share one server and one page (a test leaves no roll queued), so
each costs the clicks of its game, not a browser's and a server's start.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from nardy.rules import Position
from tests.web.browser_client import Client, new_client
from tests.web.scripted_game import ScriptingDriver, drawn_board, play_the_last_turn
from tests.web.test_browser import quick_play
from tests.web.web_driver import Http, Json, WebServer


NEW_VARIANTS = ("hypergammon", "nackgammon", "portes", "tavla", "plakoto", "fevga")

# Counts the pinned checkers the page draws, whenever it draws them (board.js: `.checker.pinned`).
COUNT_PINS = """() => {
    window.pinsSeen = 0;
    new MutationObserver(() => {
        window.pinsSeen = Math.max(window.pinsSeen, document.querySelectorAll("svg.board .checker.pinned").length);
    }).observe(document, {subtree: true, childList: true});
}"""


@pytest.fixture(scope="module")
def shared_page(browser: Any, module_web_server: WebServer) -> Iterator[Client]:
    """One guest's page for the whole module."""
    person = new_client(browser, module_web_server, reduced_motion="reduce")
    yield person
    person.context.close()


@pytest.fixture
def guest(shared_page: Client) -> Iterator[Client]:
    """The module's guest for one test, which finds no roll queued and leaves none, and no error in the page."""
    assert shared_page.server.dice() == 0, "a test before this one left rolls queued"
    errors = len(shared_page.errors)
    yield shared_page
    left = shared_page.server.drop_dice()  # dropped, so one failed test does not fail the module's next ones
    assert not shared_page.errors[errors:], f"errors in the page: {shared_page.errors[errors:]}"
    assert left == 0, f"{left} roll(s) were left queued"


def open_table(person: Client, variant: str) -> Json:
    """Quick play against the random computer, the guest winning the opening 6-1; the start is drawn as the rules
    lay it out, on the board the variant data names (fevga: long nardy's), with the variant's checkers. Its data."""
    variants = Http(person.server).get("/api/variants")["variants"]
    rules: Json = next(entry for entry in variants if entry["id"] == variant)
    person.server.dice((6, 1))
    quick_play(person, variant)
    assert drawn_board(person) == list(Position.start(variant).points)
    mine = sum(n for n in drawn_board(person) if n > 0)
    assert mine == rules["checkers"], f"{variant}: {mine} checkers drawn, the variant has {rules['checkers']}"
    return rules


def end_card(person: Client) -> tuple[str, str]:
    """The end card's heading and its text."""
    card = person.page.locator(".overlay:not([hidden])")
    return card.locator("h2").inner_text(), card.inner_text()


@pytest.mark.slow
@pytest.mark.parametrize("variant", NEW_VARIANTS)
def test_a_guest_plays_a_new_variant_to_the_end_screen(variant: str, guest: Client) -> None:
    rules = open_table(guest, variant)
    if variant == "plakoto":  # counted in the game's own document: the page may have been blank before it
        guest.page.evaluate(COUNT_PINS)
    driver = ScriptingDriver(guest.server, guest, pins=variant == "plakoto")
    try:
        driver.play_to_the_last_turn()
        assert play_the_last_turn(guest, driver) == "match"
    finally:
        driver.close()
    heading, text = end_card(guest)
    assert heading == "You won!", heading
    assert "all checkers borne off" in text, text
    guest.page.click("[data-action=close]")
    assert int(guest.point(0).get_attribute("data-count") or 0) == rules["checkers"], "all mine are in the tray"
    if variant == "plakoto":
        assert guest.page.evaluate("window.pinsSeen") >= 1, "no pinned checker was drawn during the game"
    # the move list has every move and pass of the game, as the table's record has them, and its result
    record = Http(guest.server).get(f"/api/tables/{guest.table_id()}/record")
    plays = sum(1 for event in record["events"] if event["kind"] in ("moved", "passed"))
    assert guest.page.locator(".move-list .log-move").count() == plays
    assert guest.page.locator(".move-list .log-result").count() >= 1


TAVLI_GAMES = ("portes", "plakoto", "fevga")
"""Tavli's rotation (docs/rules.md §11), as the variants API lists it."""


def open_match_against_the_computer(person: Client, variant: str, length: int) -> None:
    """A match of ``length`` points against the random computer, opened through the lobby's form (quick play
    takes the variant's shortest match); the guest wins the opening 6-1."""
    person.server.dice((6, 1))
    person.goto("#/")
    form = person.page.locator("form.create")
    form.locator("select[name=variant]").select_option(variant)
    form.locator("select[name=match_length]").select_option(str(length))
    form.locator("select[name=opponent]").select_option("computer")
    form.locator("select[name=bot_level]").select_option("random")
    form.locator("[data-action=create]").click()
    person.page.wait_for_selector("svg.board .checker")
    person.page.wait_for_selector(".game-page[data-status=playing]")


@pytest.mark.slow
def test_a_tavli_match_goes_round_portes_plakoto_and_fevga_to_its_end(guest: Client) -> None:
    """docs/rules.md §11: "game 1 is portes (§8.2), game 2 plakoto (§9), game 3 fevga (§10)"; "every later game
    is started by the winner of the game before, who rolls at once"; a gammon scores 2 ("if the winner bears off
    all his checkers before the loser has borne off any, he gets two points"), so a match to 5 points takes the
    three games, each from its own start, named on the page while it is played."""
    assert [entry["games"] for entry in Http(guest.server).get("/api/variants")["variants"]
            if entry["id"] == "tavli"] == [list(TAVLI_GAMES)]
    open_match_against_the_computer(guest, "tavli", 5)
    info = guest.page.locator(".game-page .match-info")
    driver = ScriptingDriver(guest.server, guest)
    try:
        for number, game in enumerate(TAVLI_GAMES, start=1):
            assert drawn_board(guest) == list(Position.start(game).points), f"game {number}: {game}'s start"
            named = info.locator("[data-game-variant]")
            assert named.get_attribute("data-game-variant") == game, "the page names the game in play"
            assert named.inner_text() == game.capitalize()
            # no cube in tavli, so no Crawford game either, even at 4 of 5 points
            assert "Crawford" not in info.inner_text()
            score = 2 * (number - 1)
            assert guest.page.locator('.player[data-player="me"] .score').inner_text() == str(score)
            if number > 1:  # the winner of the game before rolls at once
                assert guest.game().get("myTurn") == "true" and guest.game().get("phase") == "rolling"
            driver.play_to_the_last_turn()
            assert driver.state["game"]["variant"] == game and driver.state["game_number"] == number
            end = play_the_last_turn(guest, driver)
            heading, text = end_card(guest)
            assert "all checkers borne off" in text, text
            if number < len(TAVLI_GAMES):
                assert end == "game" and heading == "You won the game!", (end, heading)
                assert "Match score: " in text and f" {score + 2} – 0 " in text, text
                guest.page.click("[data-action=next-game]")
            else:
                assert end == "match", end
    finally:
        driver.close()
    heading, text = end_card(guest)
    assert heading == "You won!", heading
    assert "Final score: " in text and " 6 – 0 " in text, text


# a plakoto position with a pin each way: ours on 10 on top of theirs, theirs on 20 on top of ours
PINNED_POSITION = {
    "variant": "plakoto",
    "points": [-12, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, -2, 0, 0, 0, 12],
    "bar": [0, 0], "off": [0, 0],
    "pinned": [0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0],
}


def test_the_analysis_board_draws_pinned_checkers_under_their_pinners(guest: Client) -> None:
    person = guest
    person.goto("#/analysis")
    person.page.wait_for_selector(".board-plays li, .board-results .error")  # the first analysis is answered
    person.page.select_option("select[name=board-variant]", "plakoto")
    person.page.fill("input[name=board-position]", json.dumps(PINNED_POSITION))
    person.page.check("input[name=no-roll]")
    person.page.click("[data-action=analyse-position]")
    person.page.wait_for_selector("svg.board .checker.pinned")

    pinned = person.page.locator("svg.board .checker.pinned")
    assert sorted(pinned.evaluate_all("els => els.map((e) => e.dataset.pinned)")) == ["me", "opp"]
    # the opponent's checker pinned on 10 is black (the side to move is white), with the words for it
    theirs = person.page.locator('svg.board .checker.pinned[data-pinned="opp"]')
    assert "black" in (theirs.get_attribute("class") or "")
    assert theirs.locator("title").text_content() == "the opponent's checker pinned beneath them"
    assert person.count(10) == (2, "me") and person.point(10).get_attribute("data-pinned") == "opp"
    label = person.point(10).get_attribute("aria-label") or ""
    assert label == "Point 10: 2 white (yours), the opponent's checker pinned beneath them", label
    assert person.count(20) == (2, "opp") and person.point(20).get_attribute("data-pinned") == "me"
    assert "your checker pinned beneath them" in (person.point(20).get_attribute("aria-label") or "")

    # under the stack: on the bottom row (point 10) the pinned checker is the lowest, on the top row (20) the highest
    def centre_y(locator: Any) -> float:
        box = locator.bounding_box()
        return float(box["y"] + box["height"] / 2)
    stack_10 = [centre_y(el) for el in person.page.locator('svg.board .checker[data-at="10"]').all()]
    stack_20 = [centre_y(el) for el in person.page.locator('svg.board .checker[data-at="20"]').all()]
    assert len(stack_10) == 2 and centre_y(theirs) > max(stack_10)
    assert len(stack_20) == 2 and centre_y(person.page.locator('svg.board .checker.pinned[data-pinned="me"]')) < min(stack_20)
    person.screenshot_board("plakoto-pins")
