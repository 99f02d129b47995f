"""The game page on phones, drag-and-drop and flying checkers, resigning, guest names and icons,
the replay's move list, the automatic roll and forced play, and tables where moves are final.

Against the computer with scripted dice, in Debian's chromium, like ``test_browser.py``: the tests share
one server and its pages (a touch screen's among them), each test's person new in them (``visitor``); each
queues the rolls it uses and leaves none.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest

from tests.web.browser_client import Client
from tests.web.scripted_game import play_the_match_to_its_end
from tests.web.test_browser import OPENING, quick_play


MakeClient = Callable[..., Client]
PORTRAIT = {"width": 390, "height": 844}
LANDSCAPE = {"width": 844, "height": 390}
EMOJI = "🎲⚑↶✓⇄⏱⏮⏭◀▶"

# Counts the checkers that fly onto the board (board.js adds one `.flying` element per step).
COUNT_FLIGHTS = """() => {
    window.flights = 0;
    new MutationObserver((changes) => {
        for (const change of changes) for (const node of change.addedNodes) {
            if (node.classList && node.classList.contains("flying")) window.flights += 1;
        }
    }).observe(document.body, {subtree: true, childList: true});
}"""


def box(person: Client, selector: str) -> dict[str, float]:
    """The element's box; the board redraws itself whole, so a box read mid-redraw is read again."""
    found = None
    for _ in range(50):
        person.page.wait_for_selector(selector)
        found = person.page.locator(selector).bounding_box()
        if found is not None:
            break
        person.page.wait_for_timeout(20)
    assert found is not None, f"{selector} is not laid out"
    return dict(found)


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two boxes share more than half a pixel each way."""
    return (min(a["x"] + a["width"], b["x"] + b["width"]) - max(a["x"], b["x"]) > 0.5
            and min(a["y"] + a["height"], b["y"] + b["height"]) - max(a["y"], b["y"]) > 0.5)


def centre(person: Client, p: int) -> tuple[float, float]:
    """The middle of point p's checker column (its hit area) on the screen."""
    area = box(person, f'g.hit[data-point="{p}"]')
    return area["x"] + area["width"] / 2, area["y"] + area["height"] / 2


def mouse_drag(person: Client, source: int, target: int) -> None:
    (x0, y0), (x1, y1) = centre(person, source), centre(person, target)
    person.page.mouse.move(x0, y0)
    person.page.mouse.down()
    person.page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    person.page.mouse.move(x1, y1, steps=4)


def after_my_move_the_computer_moves(person: Client) -> None:
    version = person.version()
    person.page.click("[data-action=confirm]")
    person.wait_version_after(version)
    person.page.wait_for_selector(".game-page[data-my-turn=true][data-phase=rolling]")


# ----- 5: phones, upright and sideways


@pytest.mark.parametrize("viewport", [PORTRAIT, LANDSCAPE], ids=["portrait", "landscape"])
def test_phone_layouts_keep_the_controls_apart(viewport: dict[str, int], visitor: MakeClient) -> None:
    """Issue item 5: the status text never lies over Undo/Confirm, nothing overlaps, the heading is whole,
    upright the board takes the whole width, sideways the whole height; the end card's heading shows."""
    person = visitor(viewport=viewport, has_touch=True, is_mobile=True)
    person.server.dice(OPENING)
    quick_play(person, "backgammon")
    person.page.wait_for_selector(".game-page[data-my-turn=true][data-phase=moving]")
    version = person.version()
    person.click_point(13)
    person.click_point(7)
    person.wait_version_after(version)
    person.page.wait_for_selector("[data-action=undo]:not([disabled])")

    width, height = viewport["width"], viewport["height"]
    parts = ["#game-message", ".match-info", "[data-action=undo]", "[data-action=confirm]", "[data-action=resign]"]
    boxes = {part: box(person, part) for part in parts}
    for i, a in enumerate(parts):
        assert boxes[a]["x"] >= 0 and boxes[a]["x"] + boxes[a]["width"] <= width + 0.5, f"{a} leaves the screen"
        for b in parts[i + 1:]:
            assert not overlap(boxes[a], boxes[b]), f"{a} {boxes[a]} overlaps {b} {boxes[b]}"
    info = boxes[".match-info"]
    assert info["y"] >= 0 and info["height"] >= 16, "the heading is whole"
    board = box(person, "svg.board")
    for part in parts:
        assert not overlap(board, boxes[part]), f"{part} lies on the board"
    if viewport is PORTRAIT:
        assert board["width"] >= width - 1, "upright, the board takes the whole width"
        assert box(person, 'g.hit[data-point="1"]')["width"] >= 23
        message = boxes["#game-message"]
        assert message["y"] + message["height"] <= height, "the status shows without scrolling"
    else:
        assert board["height"] >= height * 0.95, "sideways, the board takes the whole height"
    person.screenshot_page(f"phone-{'portrait' if viewport is PORTRAIT else 'landscape'}-moving")

    # resign a single: the computer accepts; the end card's heading is on the screen
    person.page.click("[data-action=resign]")
    person.page.click("[data-resign=single]")
    heading = person.page.wait_for_selector('.overlay[data-end="match"] h2')
    card = heading.bounding_box()
    assert card is not None and card["y"] >= 0 and card["y"] + card["height"] <= height


# ----- 6: drag-and-drop, flights, reduced motion


def test_drag_and_drop_with_the_mouse_and_by_touch(visitor: MakeClient) -> None:
    """Issue item 6: dragging a movable checker onto a lit target makes the step a click would; a drop
    elsewhere puts it back; a touch drag works the same (pointer events, no page scroll)."""
    person = visitor(has_touch=True)
    person.server.dice(OPENING)
    quick_play(person, "backgammon")
    person.page.wait_for_selector(".game-page[data-my-turn=true][data-phase=moving]")
    person.page.evaluate(COUNT_FLIGHTS)

    # a drag lights the targets a click would, and carries a copy of the checker
    mouse_drag(person, 13, 7)
    person.page.wait_for_selector("svg.board .checker.ghost")
    assert sorted(int(t.get_attribute("data-point")) for t in person.page.locator("g.hit.target").all()) == [7]
    assert person.page.locator("svg.board .checker.lifted").count() == 1
    version = person.version()
    person.page.mouse.up()
    person.wait_version_after(version)
    assert person.count(13) == (4, "me") and person.count(7) == (1, "me")
    assert person.page.locator("svg.board .checker.ghost").count() == 0
    assert person.page.evaluate("() => window.flights") == 0, "a dropped checker is already where it lands"

    # a drop where it cannot go: it goes back, nothing is sent
    version = person.version()
    mouse_drag(person, 8, 20)
    person.page.mouse.up()
    person.page.wait_for_function("() => !document.querySelector('svg.board .checker.ghost')")
    assert person.version() == version
    assert person.count(8) == (3, "me") and person.page.locator("g.hit.selected").count() == 0

    # by touch: 8 to 7 with the 1
    session = person.context.new_cdp_session(person.page)
    (x0, y0), (x1, y1) = centre(person, 8), centre(person, 7)
    session.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for k in range(1, 6):
        x, y = x0 + (x1 - x0) * k / 5, y0 + (y1 - y0) * k / 5
        session.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    person.page.wait_for_selector("svg.board .checker.ghost")
    session.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    person.wait_version_after(version)
    assert person.count(8) == (2, "me") and person.count(7) == (2, "me")
    assert person.page.locator("[data-action=confirm]").is_enabled()


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_moves_fly_unless_reduced_motion_is_asked_for(motion: str, visitor: MakeClient) -> None:
    """Issue item 6: a click's step and the computer's move fly checker by checker; with
    prefers-reduced-motion nothing flies, the checkers are simply there."""
    person = visitor(reduced_motion=motion)
    person.server.dice(OPENING, (1, 2))
    quick_play(person, "backgammon")
    person.page.wait_for_selector(".game-page[data-my-turn=true][data-phase=moving]")
    person.page.evaluate(COUNT_FLIGHTS)
    for source, target in ((13, 7), (8, 7)):
        version = person.version()
        person.click_point(source)
        person.click_point(target)
        person.wait_version_after(version)
    after_my_move_the_computer_moves(person)
    if motion == "reduce":
        person.page.wait_for_timeout(400)
        assert person.page.evaluate("() => window.flights") == 0
    else:
        # two steps of mine, then the computer's two
        person.page.wait_for_function("() => window.flights >= 4")
        person.page.wait_for_function("() => !document.querySelector('svg.board .flying, svg.board .arriving')")
    assert person.page.locator("svg.board .dice-last").get_attribute("data-values") == "2-1"


# ----- 8: resigning outside backgammon


def test_dave_resigns_by_an_offer_the_computer_accepts(visitor: MakeClient) -> None:
    """Issue item 8: dave offers oin, mars or koks with the points the server names; the computer accepts."""
    person = visitor()
    person.server.dice(OPENING, OPENING)  # this game's opening, and the next game's, rolled as this one ends
    quick_play(person, "dave")
    person.page.click("[data-action=resign]")
    offers = person.page.locator(".resign-menu [data-resign]")
    assert [(o.get_attribute("data-resign"), o.get_attribute("data-points")) for o in offers.all()] == [
        ("oin", "1"), ("mars", "2"), ("koks", "3")]
    assert offers.nth(1).inner_text() == "Mars (2 pt)"
    person.page.click("[data-resign=mars]")
    person.page.wait_for_selector('.overlay[data-end="game"]')
    assert "Mars: 2" in person.page.locator(".overlay").inner_text()
    assert "offers to resign: Mars" in person.page.locator(".move-list").inner_text()


@pytest.mark.parametrize(("variant", "kind", "points"), [("long-traditional", "Mars", 2), ("georgian", "Koks", 3)])
def test_resigning_says_what_it_costs_before_it_is_done(
    variant: str, kind: str, points: int, visitor: MakeClient,
) -> None:
    """Issue item 8: resigning at move 0 of long nardy costs a mars, 2 points: the confirmation says so
    (the server's figure), and the result is that."""
    person = visitor()
    person.server.dice(OPENING)
    quick_play(person, variant)
    asked: list[str] = []
    person.page.on("dialog", lambda dialog: asked.append(dialog.message))
    person.page.click("[data-action=resign]")
    person.page.wait_for_selector('.overlay[data-end="match"]')
    assert asked == [
        f"Resign this game? As the position stands it is lost as a {kind}, worth {points} to your opponent."]
    assert f"{kind}: {points}" in person.page.locator(".overlay").inner_text()


# ----- 9: guest names, icons, one order of the dice


def test_guest_names_icons_and_the_larger_die_first(visitor: MakeClient) -> None:
    """Issue item 9: a guest is "Guest-4821", not a hex string; buttons draw SVG icons, not emoji that
    show as boxes without an emoji font; a roll is written larger die first everywhere."""
    person = visitor()
    person.server.dice(OPENING, (1, 2), (2, 5))
    quick_play(person, "backgammon")
    assert re.fullmatch(r"Guest-\d{4} \(guest\)", person.page.locator("[data-user]").inner_text())
    name = person.page.locator("[data-user]").inner_text().split(" ")[0]
    assert person.page.locator(".player.bottom .name").inner_text() == name
    person.page.wait_for_selector(".game-page[data-my-turn=true][data-phase=moving]")  # the opening roll is in
    # the move list is built from the table's record, which may come after the socket's first view
    person.page.wait_for_selector(f".move-list li:has-text('Opening roll: {name} 6')")
    for source, target in ((13, 7), (8, 7)):
        version = person.version()
        person.click_point(source)
        person.click_point(target)
        person.wait_version_after(version)
    icons = person.page.locator("[data-action=undo] svg, [data-action=confirm] svg, [data-action=resign] svg")
    assert icons.count() == 3
    after_my_move_the_computer_moves(person)
    assert person.page.locator("[data-action=roll] svg").count() == 1
    assert not set(EMOJI) & set(person.page.locator(".game-page").inner_text())
    # the computer rolled 1-2: written 2-1 in the list and on the board; my 2-5 is 5-2
    assert "Computer (random moves) 2-1" in person.page.locator(".move-list").inner_text()
    assert person.page.locator("svg.board .dice-last").get_attribute("data-values") == "2-1"
    person.page.click("[data-action=roll]")
    person.page.wait_for_selector('svg.board[data-dice="5-2"]')
    assert "5-2" in person.page.locator("#game-message").inner_text()


# ----- 10: the replay


def test_replay_lists_the_moves_with_pips_arrows_and_a_tied_opening(visitor: MakeClient) -> None:
    """Issue item 10: a tied opening shows both dice and the re-roll after it; each frame shows the pips,
    a move its arrows; the list of moves beside the board jumps to a move."""
    person = visitor()
    person.server.dice((3, 3), OPENING)
    quick_play(person, "georgian")
    play_the_match_to_its_end(person)
    person.page.click(".overlay [data-action=replay]")
    person.page.wait_for_selector(".replay-counter:has-text('1 of')")
    name = person.page.locator("[data-user]").inner_text().split(" ")[0]

    person.page.click("[data-action=forward]")
    assert person.page.locator(".replay-text").inner_text() == (
        f"Opening roll: {name} 3, Computer (random moves) 3 — a tie, roll again")
    assert person.page.locator("svg.board .dice-opening").count() == 2
    person.page.click("[data-action=forward]")
    assert person.page.locator(".replay-text").inner_text() == f"Opening roll: {name} 6, Computer (random moves) 1"
    assert [d.get_attribute("data-values") for d in person.page.locator("svg.board .dice-opening").all()] == ["6", "1"]
    assert person.page.locator("[data-pips=me]").text_content() == "167"

    # the list: the first move is the fourth frame; a click there shows it, its pips and its arrows
    entries = person.page.locator(".replay-moves [data-frame]")
    assert entries.count() > 20
    first_move = person.page.locator(".replay-moves .kind-moved [data-frame]").first
    assert first_move.inner_text().startswith(f"{name} 6-1 ")
    person.page.click("[data-action=last]")
    first_move.click()
    person.page.wait_for_selector(".replay-counter:has-text('4 of')")
    assert first_move.get_attribute("aria-current") == "step"
    assert person.page.locator(".replay-text").get_attribute("data-kind") == "moved"
    assert person.page.locator("[data-pips=me]").text_content() == "160"
    assert person.page.locator("svg.board path.arrow").count() == 2
    person.page.click("[data-action=forward]")
    assert person.page.locator(".replay-moves [aria-current]").count() == 1
    assert person.page.locator("[data-action=first] svg").count() == 1
    person.screenshot_page("replay-move-list")


# ----- 11: automatic roll and forced play


def test_forced_plays_and_rolls_can_be_automatic(visitor: MakeClient) -> None:
    """Issue item 11: with both settings on, the page rolls when there is no cube decision and plays
    the only legal play the server names: the first 6-6 of long nardy (two checkers to 18, 004)."""
    person = visitor()
    person.goto("#/settings")
    person.page.check("input[name=autoRoll]")
    person.page.check("input[name=autoForced]")
    settings: dict[str, Any] = person.page.evaluate("() => JSON.parse(localStorage.getItem('nardy.settings'))")
    assert settings["autoRoll"] is True and settings["autoForced"] is True
    person.server.dice(OPENING, (6, 6), (1, 2), (5, 3))
    quick_play(person, "long-traditional")
    # nothing is clicked: roll 6-6, 24/18 24/18, the computer's turn, roll 5-3, which needs me
    person.page.wait_for_selector('.game-page[data-my-turn=true][data-phase=moving] svg.board[data-dice="5-3"]')
    assert person.count(18) == (2, "me") and person.count(24) == (13, "me")
    assert "6-6 24/18 24/18" in person.page.locator(".move-list").inner_text()


# ----- 12: moves are final


def test_moves_are_final_on_long_nardy_tables(visitor: MakeClient) -> None:
    """Issue item 12, 004: «Ходы окончательны: сделанный ход нельзя отменить. После последнего
    обязательного хода очередь автоматически переходит к сопернику». No Undo, no Confirm: the last
    step hands the turn over."""
    person = visitor()
    person.server.dice(OPENING, (5, 3), (1, 2))
    person.goto("#/")
    form = person.page.locator("form.create")
    form.locator("select[name=variant]").select_option("long-traditional")
    form.locator("select[name=opponent]").select_option("computer")
    form.locator("select[name=bot_level]").select_option("random")
    form.locator("input[name=moves_final]").check()  # against the computer, only when asked for (docs/rules.md)
    form.locator("[data-action=create]").click()
    person.page.wait_for_selector(".game-page[data-status=playing]")
    assert person.page.locator(".match-info [data-moves-final]").inner_text() == "Moves are final"
    person.page.click("[data-action=roll]")
    person.page.wait_for_selector(".game-page[data-my-turn=true][data-phase=moving]")
    assert person.page.locator("[data-action=undo], [data-action=confirm]").count() == 0
    version = person.version()
    person.click_point(24)
    person.click_point(19)
    person.wait_version_after(version)
    version = person.version()
    person.page.keyboard.press("Backspace")
    person.page.wait_for_timeout(300)
    assert person.version() == version and person.count(19) == (1, "me"), "Backspace undoes nothing"
    person.click_point(19)
    person.click_point(16)
    person.page.wait_for_selector(".game-page[data-my-turn=true][data-phase=rolling]")
    assert person.count(16) == (1, "me") and person.count(24) == (14, "me")
    assert "5-3 24/19 19/16" in person.page.locator(".move-list").inner_text()
