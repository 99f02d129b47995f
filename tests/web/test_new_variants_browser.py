"""The six variants added beside backgammon and long nardy, played in the browser against the computer.

For each of hypergammon, nackgammon, portes, tavla, plakoto and fevga a guest
opens a table against the random computer and sees the start drawn as the
rules lay it out (hypergammon's three checkers, fevga's long board with the
opponent's fifteen on our 12). Hypergammon, plakoto and fevga are played to
the end screen: a driver with the page's cookies plays most of the game over
the WebSocket (the racing play, a pin first in plakoto), the page clicks the
last turns; nackgammon, portes and tavla play their first turn in the page,
the computer answering it (the whole file stays within a minute). Dice are scripted: big rolls for
the guest, 1-2 for the computer. Plakoto's game must show a pinned checker
under the stack that pins it at some point, and the analysis board draws a
set-up position with a pin each way, with words for it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from nardy.notation import position_from_dict
from nardy.rules import Position, find_variant
from tests.web.browser_client import Client
from tests.web.test_browser import BOT_ROLLS, HUMAN_ROLLS, quick_play
from tests.web.web_driver import Driver, Http, Json, WebServer, racing_play


WHOLE_GAME = ("hypergammon", "plakoto", "fevga")
"""Played to the end screen: three checkers, pins, the long board. A whole game of each of the others would take the
file past its minute; those play their first turn in the page (their rules are tested in tests/rules)."""
FIRST_TURNS = ("nackgammon", "portes", "tavla")

MakeClient = Callable[..., Client]

# Counts the pinned checkers the page draws, whenever it draws them (board.js: `.checker.pinned`).
COUNT_PINS = """() => {
    window.pinsSeen = 0;
    new MutationObserver(() => {
        window.pinsSeen = Math.max(window.pinsSeen, document.querySelectorAll("svg.board .checker.pinned").length);
    }).observe(document, {subtree: true, childList: true});
}"""


def winning_dice(variant: str, turns: int = 100) -> list[tuple[int, int]]:
    """Opening 6-1 for seat 0 (the guest), then big rolls for it and 1-2 for the computer, alternating.

    Where the winner of the opening rolls again for the first move (``previous_winner_starts``), the guest rolls
    next; elsewhere it plays the opening dice and the computer rolls next.
    """
    rolls: list[tuple[int, int]] = [(6, 1)]
    rolls_again = find_variant(variant).previous_winner_starts
    for i in range(turns):
        human, bot = HUMAN_ROLLS[i % len(HUMAN_ROLLS)], BOT_ROLLS[i % len(BOT_ROLLS)]
        rolls += [human, bot] if rolls_again else [bot, human]
    return rolls


def pinning_play(position: Position, dice: tuple[int, int]) -> list[Json] | None:
    """A play that pins (or hits) where one can, else the racing play: plakoto's game then shows pins."""
    plays = [play for play in position.legal_plays(dice) if any(step.hit for step in play.steps)]
    if not plays:
        return racing_play(position, dice)
    best = min(plays, key=lambda play: play.position.pip_counts()[0])
    return [{"source": s.source, "target": s.target, "die": s.die, "hit": s.hit} for s in best.steps]


class PinningDriver(Driver):
    """The WebSocket player of :mod:`tests.web.web_driver`, choosing plays that pin first."""

    def play_turn(self) -> None:
        game = self.state["game"]
        if game["phase"] != "moving":
            super().play_turn()
            return
        steps = pinning_play(position_from_dict(self.board()), tuple(game["dice"]))
        assert steps is not None, "moving without a legal play"
        self.act("move", steps=steps)


def near_the_end(driver: Driver) -> bool:
    """My turn starts with a few checkers and pips left: one or two turns of clicks bear them off in the page."""
    game = driver.state["game"]
    return (driver.my_turn() and game["phase"] == "rolling" and driver.checkers_on_board() <= 4
            and game["pips"][driver.seat] <= 30)


def play_to_the_end_screen(person: Client, driver: Driver) -> None:
    """The driver plays the game but its last turns, which the page clicks through, until the match is over."""
    for _ in range(10):
        driver.play_until(near_the_end)
        for _ in range(200):
            if person.page.locator(".overlay:not([hidden])").count():
                break
            person.wait_my_turn_or_end()
            if person.page.locator(".overlay:not([hidden])").count() or person.game().get("status") == "finished":
                break
            person.play_one_action()
        overlay = person.page.wait_for_selector(".overlay:not([hidden])")
        if overlay.get_attribute("data-end") == "match":
            return
        person.page.click("[data-action=next-game]")
    raise AssertionError("the match did not end")


def play_first_turns(person: Client, turns: int = 1) -> None:
    """Click through my first turns in the page (roll, each step, confirm), the computer answering each."""
    for _ in range(turns):
        person.wait_my_turn_or_end()
        for _ in range(20):
            if not person.play_one_action():
                break
            if person.game().get("phase") == "rolling":
                break  # the computer has moved already: my next turn
        person.wait_my_turn_or_end()


def drawn_board(person: Client) -> list[int]:
    """The 24 points as the page draws them, signed from the guest's side (data-count and data-owner)."""
    cells: list[list[str]] = person.page.locator("g.hit[data-owner]").evaluate_all(
        "cells => cells.map((c) => [c.dataset.point, c.dataset.count, c.dataset.owner])")
    points = [0] * 24
    for point, count, owner in cells:
        if 1 <= int(point) <= 24:
            points[int(point) - 1] = int(count) * (1 if owner == "me" else -1 if owner == "opp" else 0)
    return points


def open_table(person: Client, web_server: WebServer, variant: str) -> Json:
    """Quick play against the random computer with the guest's winning dice; the start is drawn as the rules lay it
    out, on the board the variant data names (fevga: long nardy's), with the variant's checkers. Its data."""
    rules: Json = next(entry for entry in Http(web_server).get("/api/variants")["variants"] if entry["id"] == variant)
    web_server.dice(*winning_dice(variant))
    quick_play(person, variant)
    assert drawn_board(person) == list(Position.start(variant).points)
    mine = sum(n for n in drawn_board(person) if n > 0)
    assert mine == rules["checkers"], f"{variant}: {mine} checkers drawn, the variant has {rules['checkers']}"
    return rules


@pytest.mark.slow
@pytest.mark.parametrize("variant", FIRST_TURNS)
def test_a_guest_plays_the_first_turns_of_a_new_variant(variant: str, client: MakeClient, web_server: WebServer) -> None:
    person = client(reduced_motion="reduce")
    rules = open_table(person, web_server, variant)
    play_first_turns(person)
    board = person.driver()
    try:
        assert board.state["status"] == "playing" and board.state["version"] > 5
        assert board.checkers_on_board() + board.board()["off"][0] == rules["checkers"]
        assert drawn_board(person) == board.board()["points"], "the page draws the server's board"
    finally:
        board.close()
    person.page.locator(".move-list li").nth(2).wait_for()  # the opening, my move and the computer's, listed


@pytest.mark.slow
@pytest.mark.parametrize("variant", WHOLE_GAME)
def test_a_guest_plays_a_new_variant_to_the_end_screen(variant: str, client: MakeClient, web_server: WebServer) -> None:
    person = client(reduced_motion="reduce")
    if variant == "plakoto":
        person.page.add_init_script(f"({COUNT_PINS})()")
    rules = open_table(person, web_server, variant)
    driver = (PinningDriver if variant == "plakoto" else Driver)(web_server, person.cookie_header(), person.table_id())
    try:
        play_to_the_end_screen(person, driver)
    finally:
        driver.close()
    overlay = person.page.locator('.overlay[data-end="match"]')
    heading = overlay.locator("h2").inner_text()
    assert heading in ("You won!", "You lost"), heading
    won = heading == "You won!"
    person.page.click("[data-action=close]")
    if "all checkers borne off" in overlay.inner_text() and won:
        assert int(person.point(0).get_attribute("data-count") or 0) == rules["checkers"], "all mine are in the tray"
    if variant == "plakoto":
        assert person.page.evaluate("window.pinsSeen") >= 1, "no pinned checker was drawn during the game"
    assert person.page.locator(".move-list .log-result").count() >= 1


# a plakoto position with a pin each way: ours on 10 on top of theirs, theirs on 20 on top of ours
PINNED_POSITION = {
    "variant": "plakoto",
    "points": [-12, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, -2, 0, 0, 0, 12],
    "bar": [0, 0], "off": [0, 0],
    "pinned": [0, 0, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0],
}


def test_the_analysis_board_draws_pinned_checkers_under_their_pinners(client: MakeClient, web_server: WebServer) -> None:
    person = client()
    person.goto("#/analysis")
    person.page.wait_for_selector(".board-plays li, .board-results .error")  # the first analysis is answered
    person.page.select_option("select[name=board-variant]", "plakoto")
    person.page.select_option("select[name=board-level]", "advanced")
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
