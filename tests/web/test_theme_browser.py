"""The dark theme: it follows the device's prefers-color-scheme, a switch in Settings overrides it, and the
text and the board keep enough contrast in both themes.

Contrast is measured as WCAG 2 defines it, in the page: every visible HTML
element with text of its own, against the first background behind it, must
reach 4.5:1; the board's edge against the page, a graphic, 3:1.

The tests share one server and its pages (one per colour scheme and locale), each test's person new in them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.web.browser_client import Client


MakeClient = Callable[..., Client]
TEXT_CONTRAST = 4.5
GRAPHIC_CONTRAST = 3.0

COLOUR_TOOLS = """
const rgb = (text) => {
  const m = String(text).match(/rgba?\\(([\\d.]+),\\s*([\\d.]+),\\s*([\\d.]+)(?:,\\s*([\\d.]+))?/);
  return m ? { r: +m[1], g: +m[2], b: +m[3], a: m[4] === undefined ? 1 : +m[4] } : null;
};
const luminance = ({ r, g, b }) => {
  const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
};
const contrast = (x, y) => {
  const [a, b] = [luminance(x), luminance(y)].sort((p, q) => q - p);
  return (a + 0.05) / (b + 0.05);
};
const backgroundOf = (el) => {
  for (let node = el; node; node = node.parentElement) {
    const style = getComputedStyle(node);
    const colour = rgb(style.backgroundColor);
    if (colour && colour.a >= 0.5) return colour;
    if (style.backgroundImage.includes("gradient")) return rgb(style.backgroundImage);
  }
  return { r: 255, g: 255, b: 255, a: 1 };
};
"""

LOW_CONTRAST_TEXT = COLOUR_TOOLS + """
const found = [];
for (const el of document.querySelectorAll("body *")) {
  if (el.closest("svg, [hidden], option") || el.matches(":disabled") || !el.checkVisibility({ opacityProperty: true })) continue;
  const own = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent.trim()).join("");
  if (!own) continue;
  let faded = false;
  for (let node = el; node; node = node.parentElement) if (Number(getComputedStyle(node).opacity) < 1) faded = true;
  if (faded) continue;
  const ratio = contrast(rgb(getComputedStyle(el).color), backgroundOf(el));
  if (ratio < %s) found.push(`${el.tagName.toLowerCase()}.${el.className} "${own.slice(0, 30)}": ${ratio.toFixed(2)}`);
}
return found;
"""


def low_contrast_text(person: Client) -> list[str]:
    """Each visible text that stands out from its background by less than 4.5:1, with its ratio."""
    found: list[str] = person.page.evaluate(f"() => {{ {LOW_CONTRAST_TEXT % TEXT_CONTRAST} }}")
    return found


def page_is_dark(person: Client) -> bool:
    """Whether the page's background is a dark colour (relative luminance under 0.1)."""
    dark: bool = person.page.evaluate(
        f"() => {{ {COLOUR_TOOLS} return luminance(backgroundOf(document.documentElement)) < 0.1; }}")
    return dark


def board_edge_contrast(person: Client) -> float:
    """The contrast of the board's edge (the ring around it) against the page behind the board."""
    ratio: float = person.page.evaluate(f"""() => {{ {COLOUR_TOOLS}
        const board = document.querySelector("svg.board");
        return contrast(rgb(getComputedStyle(board).boxShadow), backgroundOf(board.parentElement)); }}""")
    return ratio


def check_pages(person: Client) -> None:
    """The lobby, settings, sign-in, tournaments, leaderboards, the analysis board, a game against the computer
    and the player's profile: every text readable, the board apart from the page."""
    for page, selector in (("#/", "[data-action=quick-play]"), ("#/settings", ".page.settings select[name=theme]"),
                           ("#/login", ".page.login form"), ("#/tournaments", ".page"),
                           ("#/ratings", ".page.leaderboard"), ("#/analysis", ".board-plays li, .board-results .error")):
        person.goto(page)
        person.page.wait_for_selector(selector)
        person.page.wait_for_load_state("networkidle")
        assert low_contrast_text(person) == [], page
    person.server.dice((6, 1))  # the opening, the person's to play
    person.goto("#/")
    person.page.select_option("select[name=quick-variant]", "backgammon")
    person.page.click("[data-action=quick-play]")
    person.page.wait_for_selector(".game-page[data-status=playing]")
    person.page.wait_for_selector("svg.board .checker")
    person.wait_my_turn_or_end()
    assert low_contrast_text(person) == [], "the game page"
    assert board_edge_contrast(person) >= GRAPHIC_CONTRAST
    person.page.click("[data-user]")
    person.page.wait_for_selector("#profile-dice .bar-row")
    person.page.wait_for_load_state("networkidle")
    assert low_contrast_text(person) == [], "the profile"


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_page_follows_the_device_and_stays_readable(visitor: MakeClient, scheme: str) -> None:
    person = visitor(color_scheme=scheme)
    person.goto("#/")
    person.page.wait_for_selector("[data-action=quick-play]")
    assert page_is_dark(person) is (scheme == "dark")
    assert person.page.evaluate("document.documentElement.dataset.theme") is None, "nobody chose: the device decides"
    check_pages(person)
    assert page_is_dark(person) is (scheme == "dark")


def test_the_settings_switch_overrides_the_device(visitor: MakeClient) -> None:
    person = visitor(color_scheme="light")
    person.goto("#/settings")
    theme = person.page.locator("select[name=theme]")
    assert theme.input_value() == "auto"
    assert [option.strip() for option in theme.locator("option").all_inner_texts()] == [
        "As on the device", "Light", "Dark"]
    assert not page_is_dark(person)

    theme.select_option("dark")
    assert person.page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page_is_dark(person)
    person.page.reload()
    person.page.wait_for_selector("select[name=theme]")
    assert page_is_dark(person), "the choice is kept in this browser"
    assert person.page.locator("select[name=theme]").input_value() == "dark"

    person.page.emulate_media(color_scheme="dark")
    person.page.locator("select[name=theme]").select_option("light")
    assert not page_is_dark(person), "light, though the device is dark"
    person.page.locator("select[name=theme]").select_option("auto")
    assert page_is_dark(person), "back to the device, which is dark"
    person.page.emulate_media(color_scheme="light")  # the context's own scheme again
    assert not page_is_dark(person), "and follows it as it changes"


def test_the_theme_switch_is_translated(visitor: MakeClient) -> None:
    person = visitor(locale="ru-RU")
    person.goto("#/settings")
    person.page.wait_for_selector("select[name=theme]")
    assert person.page.locator("select[name=theme] option").all_inner_texts() == [
        "Как на устройстве", "Светлая", "Тёмная"]
