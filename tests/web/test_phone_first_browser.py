"""The game page on a phone held upright is laid out for the phone first: a one-row header with the menu behind
one button, the board at the top and as wide as the screen (its bar and trays thinned, its point numbers readable),
the dice, Undo/Confirm/Roll and the cube's buttons within reach without scrolling, the move list and the chat in
tabs below; nothing overlaps and every tap target is at least 32 CSS px. Sideways and on a desktop the layout stays
as it was: the board fills a landscape phone's height, and a desktop keeps its side column.

Against the computer with scripted dice, in Debian's chromium, like ``test_game_page_browser.py``: the tests
share one server and its pages, each test's person new in them (``visitor``), and queue the rolls they use.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.web.browser_client import Client
from tests.web.test_browser import OPENING, quick_play
from tests.web.test_game_page_browser import box, overlap


MakeClient = Callable[..., Client]
SMALL_PHONE = {"width": 360, "height": 740}
PHONE = {"width": 390, "height": 844}
LANDSCAPE = {"width": 740, "height": 360}
BOARD_TOP_MAX = 70
TAP_MIN = 32
POINT_NUMBER_MIN_PX = 9

# Every visible control a finger taps (the board's own points are columns half the board tall; the page's
# buttons, links, fields and the menu button are what this measures), with its box.
TAP_TARGETS = """() => [...document.querySelectorAll(
    "button, a[href], input:not([type=hidden]), select, summary, [role=tab]")]
  .filter((el) => el.checkVisibility() && !el.closest("[hidden], .skip, svg"))
  .map((el) => { const r = el.getBoundingClientRect();
                 return { what: el.outerHTML.slice(0, 80), x: r.x, y: r.y, width: r.width, height: r.height }; })
  .filter((r) => r.y < innerHeight && r.y + r.height > 0)"""


def start_moving(person: Client) -> None:
    """A game against the computer, my turn, one checker moved so that Undo and Confirm are both offered."""
    person.server.dice(OPENING)
    quick_play(person, "backgammon")
    person.page.wait_for_selector(".game-page[data-my-turn=true][data-phase=moving]")
    version = person.version()
    person.click_point(13)
    person.click_point(7)
    person.wait_version_after(version)
    person.page.wait_for_selector("[data-action=undo]:not([disabled])")


@pytest.mark.parametrize("viewport", [SMALL_PHONE, PHONE], ids=["360x740", "390x844"])
def test_an_upright_phone_gets_the_board_on_top_and_the_controls_in_reach(
        viewport: dict[str, int], visitor: MakeClient) -> None:
    person = visitor(viewport=viewport, has_touch=True, is_mobile=True)
    start_moving(person)
    width, height = viewport["width"], viewport["height"]

    header = box(person, ".topbar")
    assert header["height"] <= 48, f"the header is one row: {header}"
    assert person.page.locator(".topbar nav").is_hidden(), "the menu waits behind its button"
    board = box(person, "svg.board")
    assert board["y"] <= BOARD_TOP_MAX, f"the board starts near the top: {board}"
    assert board["width"] >= width - 1, "the board takes the whole width"
    assert box(person, 'g.hit[data-point="1"]')["width"] >= 24, "the bar and the trays are thinned for the points"
    number = person.page.evaluate("document.querySelector('svg.board .pnum').getBoundingClientRect().height")
    assert number >= POINT_NUMBER_MIN_PX, f"the point numbers are readable: {number} px"

    parts = [".topbar", ".player.top", "svg.board", ".player.bottom", "#game-message",
             "[data-action=undo]", "[data-action=confirm]", "[data-action=resign]", ".side-tabs"]
    boxes = {part: box(person, part) for part in parts}
    for i, a in enumerate(parts):
        assert boxes[a]["x"] >= -0.5 and boxes[a]["x"] + boxes[a]["width"] <= width + 0.5, f"{a} leaves the screen"
        for b in parts[i + 1:]:
            assert not overlap(boxes[a], boxes[b]), f"{a} {boxes[a]} overlaps {b} {boxes[b]}"
    for control in ["[data-action=undo]", "[data-action=confirm]", "#game-message"]:
        assert boxes[control]["y"] + boxes[control]["height"] <= height, f"{control} shows without scrolling"
    assert person.page.evaluate("document.documentElement.scrollWidth") <= width

    small = [t for t in person.page.evaluate(TAP_TARGETS) if t["width"] < TAP_MIN - 0.5 or t["height"] < TAP_MIN - 0.5]
    assert not small, f"tap targets under {TAP_MIN} px: {small}"

    # the moves below the controls; the computer's table has no chat, so no chat tab
    assert person.page.locator(".move-list").is_visible()
    assert person.page.locator("[role=tab][data-tab=chat]").is_hidden()

    # the menu opens from its button, over the page, and every page stays one tap away
    person.page.click("[data-action=menu]")
    assert person.page.locator(".topbar nav").is_visible()
    assert person.page.locator(".topbar nav a[data-nav=settings]").is_visible()
    person.screenshot_page(f"phone-first-{width}x{height}-menu")


def test_the_moves_and_the_chat_are_tabs_below_the_controls(visitor: MakeClient) -> None:
    alice, bob = visitor(viewport=SMALL_PHONE, has_touch=True, is_mobile=True), visitor()
    alice.server.dice((3, 1))
    alice.goto("#/")
    alice.page.click("details.create-table > summary")  # on a phone the form waits behind its summary
    form = alice.page.locator("form.create")
    form.locator("input[name=private]").check()
    form.locator("[data-action=create]").click()
    alice.page.wait_for_selector(".game-page[data-status=waiting]")
    link = alice.page.locator("[data-invite]").get_attribute("data-invite")
    assert link
    bob.page.goto(link)
    bob.page.click("[data-action=accept-invite]")
    alice.page.wait_for_selector(".game-page[data-status=playing] .chat-panel:not([hidden])", state="attached")

    assert alice.page.locator(".move-list").is_visible()
    assert alice.page.locator(".chat-panel").is_hidden()
    alice.page.click("[role=tab][data-tab=chat]")
    assert alice.page.locator(".chat-panel").is_visible()
    assert alice.page.locator(".move-list").is_hidden()
    assert alice.page.get_attribute("[role=tab][data-tab=chat]", "aria-selected") == "true"
    alice.page.click("[role=tab][data-tab=moves]")
    assert alice.page.locator(".move-list").is_visible()
    assert alice.page.locator(".chat-panel").is_hidden()
    # on the desktop both show, with no tabs
    assert bob.page.locator(".chat-panel").is_visible() and bob.page.locator(".move-list").is_visible()
    assert bob.page.locator(".side-tabs").is_hidden()


def test_the_roll_and_the_cube_are_in_reach_when_my_turn_starts(visitor: MakeClient) -> None:
    """At the start of my next turn the Roll button and the cube (drawn on the board) show without scrolling."""
    person = visitor(viewport=SMALL_PHONE, has_touch=True, is_mobile=True)
    start_moving(person)
    person.server.dice((1, 2))  # the computer's reply
    version = person.version()
    person.click_point(8)  # the opening 6-1 makes the 7 point: 13/7 8/7
    person.click_point(7)
    person.wait_version_after(version)
    person.page.click("[data-action=confirm]:not([disabled])")
    person.page.wait_for_selector(".game-page[data-my-turn=true][data-phase=rolling]")
    for control in ["[data-action=roll]", "svg.board g.cube", "svg.board [data-roll]"]:
        found = box(person, control)
        assert found["y"] + found["height"] <= SMALL_PHONE["height"], f"{control} shows without scrolling: {found}"
    assert box(person, "[data-action=roll]")["height"] >= TAP_MIN


def test_sideways_the_board_still_fills_the_height(visitor: MakeClient) -> None:
    person = visitor(viewport=LANDSCAPE, has_touch=True, is_mobile=True)
    start_moving(person)
    board = box(person, "svg.board")
    assert board["height"] >= LANDSCAPE["height"] * 0.95
    assert person.page.locator(".side-tabs").is_hidden(), "sideways, the side column shows the moves as before"
    assert person.page.locator(".move-list").is_visible()


def test_a_desktop_keeps_its_side_column(visitor: MakeClient) -> None:
    person = visitor()
    start_moving(person)
    board, side = box(person, "svg.board"), box(person, ".game-side")
    assert side["x"] >= board["x"] + board["width"], "the side column stands beside the board"
    assert person.page.locator(".topbar nav").is_visible(), "the menu shows in the header"
    assert person.page.locator("[data-action=menu]").is_hidden()
    assert person.page.locator(".side-tabs").is_hidden()
    assert person.page.locator(".move-list").is_visible()
    assert box(person, 'g.hit[data-point="1"]')["width"] >= 40, "a desktop board keeps its wide bar and trays"
