"""The analysis board reads as a player expects: a pasted XGID's roll is the one analysed, the plays come
best first with the depth each was searched to, the best play is drawn on the board as arrows, and a
position is set up by dragging checkers (cleared, or reset to the start)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.web.browser_client import Client
from tests.web.web_driver import WebServer


MakeClient = Callable[..., Client]
XGID_ROLLED_52 = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
"""The start of a money game with 5-2 to play (the 52 field: the dice of the side on roll)."""


def drag(person: Client, source: int, target: int) -> None:
    """Drag the top checker of a point (0: the tray, 25: the bar) onto another, as a mouse does."""
    def centre(p: int) -> tuple[float, float]:
        box: Any = person.point(p).bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    (x0, y0), (x1, y1) = centre(source), centre(target)
    person.page.mouse.move(x0, y0)
    person.page.mouse.down()
    person.page.mouse.move((x0 + x1) / 2, (y0 + y1) / 2, steps=4)
    person.page.mouse.move(x1, y1, steps=4)
    person.page.mouse.up()


def test_a_pasted_xgid_brings_its_roll_and_the_best_play_is_drawn(client: MakeClient, web_server: WebServer) -> None:
    person = client()
    person.goto("#/analysis")
    person.page.wait_for_selector(".board-plays li, .board-results .error, .board-results .hint")
    person.page.select_option("select[name=board-level]", "advanced")
    person.page.fill("input[name=board-position]", XGID_ROLLED_52)
    person.page.click("[data-action=analyse-position]")
    person.page.wait_for_selector(".board-plays li")
    assert person.page.locator(".board-wrap svg.board").get_attribute("data-dice") == "5-2", "the XGID's roll, not 1-1"
    assert person.page.input_value("select[name=die-a]") == "5" and person.page.input_value("select[name=die-b]") == "2"
    assert "5-2" in person.page.locator(".board-dice").inner_text() or "52" in person.page.locator(".board-dice").inner_text()

    rows = person.page.locator(".board-plays li")
    depths = [rows.nth(i).locator(".depth").inner_text() for i in range(rows.count())]
    assert all(depth.endswith("-ply") for depth in depths), depths
    assert person.page.locator(".board-wrap path.arrow.pending").count() == 2, "the best 5-2 is two steps, drawn"

    # a die picked by hand is analysed instead of the XGID's
    person.page.select_option("select[name=die-a]", "6")
    person.page.select_option("select[name=die-b]", "1")
    person.page.click("[data-action=analyse-position]")
    person.page.wait_for_selector('.board-wrap svg.board[data-dice="6-1"]')
    person.page.wait_for_selector(".board-plays li:first-child button:has-text('13/7 8/7')")


def test_a_position_is_set_up_by_dragging_checkers(client: MakeClient, web_server: WebServer) -> None:
    person = client()
    person.goto("#/analysis")
    person.page.wait_for_selector(".board-plays li, .board-results .error, .board-results .hint")
    person.page.click("[data-action=setup]")
    person.page.wait_for_selector('.board-wrap[data-setup="on"]')
    assert person.count(6) == (5, "me")
    drag(person, 6, 5)
    person.page.wait_for_selector('g.hit[data-point="5"][data-count="1"]')
    assert person.count(6) == (4, "me")
    drag(person, 5, 1)  # point 1 holds the other side's checkers: the server says so, nothing moves
    person.page.wait_for_selector(".setup-message:not([hidden])")
    assert person.count(5) == (1, "me") and person.count(1) == (2, "opp")

    person.page.click("[data-action=clear-board]")
    person.page.wait_for_selector('g.hit[data-point="6"][data-count="0"]')
    assert all(person.count(p) == (0, "") for p in range(1, 25))
    drag(person, 0, 3)  # white from its tray
    person.page.wait_for_selector('g.hit[data-point="3"][data-count="1"]')
    assert person.count(3) == (1, "me")
    person.page.select_option("select[name=setup-side]", "1")
    drag(person, 0, 20)  # black from its tray
    person.page.wait_for_selector('g.hit[data-point="20"][data-count="1"]')
    assert person.count(20) == (1, "opp")
    assert person.page.input_value("input[name=board-position]").startswith("{")

    person.page.click("[data-action=start-position]")
    person.page.wait_for_selector('g.hit[data-point="6"][data-count="5"]')
    assert person.count(24) == (2, "me") and person.count(1) == (2, "opp")

    # the levels are the server's (GET /api/variants: `analysis`), not the page's; plakoto's network rates its plays
    person.page.select_option("select[name=board-variant]", "fevga")
    levels = person.page.locator("select[name=board-level] option").evaluate_all("options => options.map((o) => o.value)")
    assert levels == ["advanced", "expert", "world-class"], "fevga's engine, its network, at 0 to 2 plies"
    person.page.select_option("select[name=board-variant]", "plakoto")
    person.page.select_option("select[name=board-level]", "advanced")
    person.page.fill("input[name=board-position]", "start")
    person.page.uncheck("input[name=no-roll]")
    person.page.click("[data-action=analyse-position]")
    person.page.wait_for_selector(".board-plays li")
