"""The lobby and the game page in the browser: matchmaking after a match, bank clocks, matches that count,
and "My games" beside the paged list of games between people.

Second players are HTTP clients (``Http``) or WebSocket drivers with their own cookies, so each test
drives only the page it checks. The tests share one server and its pages, each test's person new in them
(``visitor``); a match between people ends by the test's end, so the lobby's list of games being played
has only the games of the test that reads it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.web.browser_client import Client, visit_afresh
from tests.web.scripted_game import play_the_match_to_its_end
from tests.web.test_analysis_browser import ANALYSIS_SECONDS
from tests.web.test_browser import OPENING, quick_play
from tests.web.test_chouette_browser import create_from_lobby
from tests.web.web_driver import Driver, Http, WebServer


MakeClient = Callable[..., Client]
PASSWORD = "correct horse battery"


def sign_up(person: Client, name: str) -> None:
    """Sign ``person`` up through the page's form."""
    person.goto("#/login")
    form = person.page.locator('form[data-form="signup"]')
    form.locator("input[name=username]").fill(name)
    form.locator("input[name=password]").fill(PASSWORD)
    form.locator("button[type=submit]").click()
    person.page.wait_for_selector(f'[data-user="{name}"]')


def account(server: WebServer, name: str) -> Http:
    """Another player with an account, outside the browser."""
    other = Http(server)
    other.post("/api/signup", {"username": name, "password": PASSWORD})
    return other


@pytest.mark.slow
def test_a_finished_matchmaking_match_does_not_send_the_player_back(visitor: MakeClient) -> None:
    """Issue item 1: after a match found by matchmaking ends, "Back to the lobby" stays in the lobby (the
    status is idle at once), and a new search works."""
    person = visitor()
    web_server = person.server
    sign_up(person, "mm_finisher")
    person.goto("#/")
    person.page.select_option("select[name=mm-variant]", "georgian")
    assert person.page.locator("select[name=mm-clock]").input_value() == "b12-60"
    person.page.click("[data-action=find-opponent]")
    person.page.wait_for_selector("[data-action=leave-pool]")
    web_server.dice((3, 1))
    other = account(web_server, "mm_opponent")
    other.post("/api/matchmaking/join", {"variant": "georgian", "match_length": 1})
    person.page.wait_for_function("() => location.hash.startsWith('#/table/')", timeout=20_000)
    person.page.wait_for_selector(".game-page[data-status=playing]")

    driver = Driver(web_server, other.cookie_header(), person.table_id())
    try:
        driver.act("leave")
    finally:
        driver.close()
    person.page.wait_for_selector('.overlay[data-end="match"]')
    person.page.click("[data-action=lobby]")
    person.page.wait_for_selector("[data-action=find-opponent]")
    person.page.wait_for_timeout(3000)  # longer than the card's 2 s status poll
    assert person.page.evaluate("() => location.hash") in ("#/", "")
    assert person.page.locator("[data-action=open-match]").count() == 0
    assert person.page.evaluate("() => fetch('/api/matchmaking/status').then((r) => r.json())") == {"status": "idle"}
    person.page.wait_for_selector("#my-games:not([hidden]) .hint")  # "My games" is empty: the match is over
    person.page.click("[data-action=find-opponent]")
    person.page.wait_for_selector("[data-action=leave-pool]")


def test_a_rated_table_has_a_bank_clock_beside_each_player(visitor: MakeClient) -> None:
    """Issue item 2: checking "Rated" switches the form to a bank clock (per-move limits stay for unrated
    tables); the game page names the clock and shows each player's bank, the mover's delay first."""
    alice = visitor()
    web_server = alice.server
    sign_up(alice, "clock_alice")
    alice.goto("#/")
    form = alice.page.locator("form.create")
    form.locator("select[name=variant]").select_option("georgian")
    form.locator("select[name=time]").select_option("s60")
    form.locator("input[name=rated]").check()
    assert form.locator("select[name=time]").input_value() == "b12-60"
    assert form.locator("select[name=time] option[value=s60]").is_disabled()
    assert not form.locator("select[name=time] option[value=b8-30]").is_disabled()
    form.locator("input[name=rated]").uncheck()
    assert not form.locator("select[name=time] option[value=s60]").is_disabled()
    form.locator("input[name=rated]").check()
    form.locator("[data-action=create]").click()
    alice.page.wait_for_selector(".game-page[data-status=waiting]")
    info = alice.page.locator(".match-info")
    assert "12 s + 1 min per point" in info.locator("[data-time-control]").inner_text()

    web_server.dice((3, 1))
    bob = account(web_server, "clock_bob")
    bob.post(f"/api/tables/{alice.table_id()}/join")
    alice.page.wait_for_selector(".game-page[data-status=playing][data-my-turn=true]")
    mine = alice.page.locator(".player.bottom [data-clock]")
    theirs = alice.page.locator(".player.top [data-clock]")
    assert re.fullmatch(r"delay 0:1[0-2]", mine.locator("[data-delay]").inner_text()), mine.inner_text()
    assert mine.locator("[data-bank]").inner_text() == "bank 1:00"
    assert theirs.locator("[data-bank]").inner_text() == "bank 1:00"
    assert theirs.locator("[data-delay]").count() == 0
    alice.screenshot_page("bank-clock")
    driver = Driver(web_server, bob.cookie_header(), alice.table_id())
    try:
        driver.act("leave")  # the match ends: it is no longer among the games being played
    finally:
        driver.close()


def test_two_accounts_on_one_address_play_a_match_that_counts(visitor: MakeClient) -> None:
    """Issue item 3: two accounts on one address (both here are 127.0.0.1) play a rated match; the page
    says "Rated" before it starts and in the result, and both ratings move."""
    alice = visitor()
    web_server = alice.server
    sign_up(alice, "home_alice")
    alice.goto("#/")
    form = alice.page.locator("form.create")
    form.locator("select[name=variant]").select_option("georgian")
    form.locator("input[name=rated]").check()
    form.locator("[data-action=create]").click()
    alice.page.wait_for_selector(".game-page[data-status=waiting]")
    assert alice.page.locator('.match-info [data-rated="true"]').inner_text() == "Rated"

    web_server.dice((3, 1))
    bob = account(web_server, "home_bob")
    table = alice.table_id()
    bob.post(f"/api/tables/{table}/join")
    alice.page.wait_for_selector(".game-page[data-status=playing]")
    driver = Driver(web_server, bob.cookie_header(), table)
    try:
        driver.act("resign")  # Georgian: the game ends at once, scored from the position
    finally:
        driver.close()
    alice.page.wait_for_selector('.overlay[data-end="match"]')
    assert alice.page.locator(".overlay h2").inner_text() == "You won!"
    assert "Rated" in alice.page.locator(".overlay").inner_text()  # the verdict in the result too
    assert alice.page.locator('.match-info [data-rated="true"]').inner_text() == "Rated"
    assert bob.get(f"/api/tables/{table}")["match"]["rated"] is True

    alice.goto("#/profile/home_alice")
    alice.page.wait_for_selector('#profile-ratings [data-family="georgian"]')
    georgian = alice.page.locator('#profile-ratings [data-family="georgian"]').inner_text()
    assert "1510" in georgian and "1 rated" in georgian, georgian
    assert bob.get("/api/users/home_bob/ratings")["ratings"]["georgian"]["rating"] == 1490


def test_my_games_and_a_paged_list_of_games_between_people(visitor: MakeClient) -> None:
    """Issue item 4: a game against the computer is in its player's "My games" with a link back, never in
    "Games being played", which lists games between people ten at a time."""
    person = visitor()
    web_server = person.server
    web_server.dice((6, 1))  # the opening, the person's to play
    quick_play(person, "georgian")
    mine = person.table_id()

    web_server.dice(*[(3, 1)] * 11)
    for _ in range(11):
        host, guest = Http(web_server), Http(web_server)
        host.post("/api/guest")
        guest.post("/api/guest")
        table = host.post("/api/tables", {"variant": "georgian"})["table"]["table"]
        guest.post(f"/api/tables/{table}/join")

    person.goto("#/")
    person.page.wait_for_selector(f'#my-games [data-my-table="{mine}"]')
    assert person.page.locator("#my-games [data-my-table]").count() == 1
    person.page.wait_for_selector("#live-tables .table-row")
    assert person.page.locator("#live-tables .table-row").count() == 10
    assert person.page.locator(f'#live-tables [data-table="{mine}"]').count() == 0
    assert person.page.locator("#live-pager [data-page]").inner_text() == "1–10 of 11"
    assert person.page.locator("[data-action=live-newer]").is_disabled()
    person.page.click("[data-action=live-older]")
    person.page.wait_for_selector("#live-pager [data-page]:has-text('11–11 of 11')")
    assert person.page.locator("#live-tables .table-row").count() == 1
    person.screenshot_page("lobby-my-games")

    person.page.click(f'[data-resume="{mine}"]')
    person.page.wait_for_selector(".game-page[data-status=playing]")
    assert person.table_id() == mine

    chouette = create_from_lobby(person, 4)  # a chouette of theirs is there too, and leads to its own page
    person.goto("#/")
    person.page.click(f'#my-games [data-resume="{chouette}"]')
    person.page.wait_for_url(re.compile(f"#/chouette/{chouette}$"))


def test_the_create_form_offers_final_moves_with_the_variants_default(visitor: MakeClient) -> None:
    """004's platform: «Ходы окончательны» for long nardy; the form checks it for the variants whose
    rules default to it, any table may choose otherwise, and the table keeps the choice."""
    alice = visitor()
    alice.goto("#/")
    form = alice.page.locator("form.create")
    final = form.locator("input[name=moves_final]")
    form.locator("select[name=variant]").select_option("long-traditional")
    assert final.is_checked()
    form.locator("select[name=variant]").select_option("backgammon")
    assert not final.is_checked()
    form.locator("select[name=variant]").select_option("long-bolshie")
    assert not final.is_checked()
    final.check()
    form.locator("[data-action=create]").click()
    alice.page.wait_for_selector(".game-page[data-status=waiting]")
    assert Http(alice.server).get(f"/api/tables/{alice.table_id()}")["options"]["moves_final"] is True


PHONE_UPRIGHT = {"width": 360, "height": 780}
"""A small phone held upright."""

WIDE_CONTENT = """() => {
  const width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth <= width) return [];
  return [...document.querySelectorAll("body *")]
    .filter((el) => el.getBoundingClientRect().right > width + 1)
    .map((el) => `${el.tagName.toLowerCase()}${el.getAttribute("name") ? `[name=${el.getAttribute("name")}]` : ""}`);
}"""
"""The elements past the right edge when the page scrolls sideways, else nothing."""

BROKEN_WORDS = """(selector) => {
  const broken = [];
  for (const cell of document.querySelectorAll(selector)) {
    const texts = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = texts.nextNode(); node; node = texts.nextNode()) {
      for (const word of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        if (new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size > 1) broken.push(word[0]);
      }
    }
  }
  return broken;
}"""
"""The words of the cells ``selector`` finds that are split over two lines."""


@pytest.mark.slow
def test_pages_fit_a_small_phone_in_every_language(visitor: MakeClient) -> None:
    """The mission's mobile layout: nothing is wider than a 360-pixel screen, whatever the language. The
    Russian and Georgian names of the long-nardy regulations, the longest options of the lobby's and the
    analysis board's selects, once widened the one column past the screen (a sideways scroll). One phone
    visits in each language in turn (the page's language, not the browser's, sets its words and formats)."""
    person = visitor(viewport=PHONE_UPRIGHT, has_touch=True, is_mobile=True)
    for language in ("ru", "en", "ka", "tr", "el"):
        visit_afresh(person, {"language": language}, PHONE_UPRIGHT)
        for page, ready in (("#/", "select[name=variant]"), ("#/analysis", "svg.board")):
            person.goto(page)
            person.page.wait_for_function("language => document.documentElement.lang === language", arg=language)
            if page == "#/":
                person.page.click("details.create-table > summary")  # on a phone the form waits behind its summary
            person.page.wait_for_selector(ready)
            assert person.page.evaluate(WIDE_CONTENT) == [], f"{language} {page} is wider than the screen"


@pytest.mark.slow
def test_a_players_pages_fit_a_small_phone(visitor: MakeClient) -> None:
    """After a finished match, its replay with its analysis and the player's profile, whose tables of matches are
    wider than a phone, scroll inside their cards: the page itself never scrolls sideways. The analysis's figures
    once split Georgian and Russian words over two lines ("გათვალისწინებით", "Начинающий")."""
    person = visitor(viewport=PHONE_UPRIGHT, locale="ka-GE", has_touch=True, is_mobile=True)
    person.server.dice(OPENING)
    quick_play(person, "backgammon")
    play_the_match_to_its_end(person)
    person.page.click(".overlay [data-action=replay]")
    person.page.wait_for_selector(".analysis-panel [data-action=analyse]")
    assert person.page.evaluate(WIDE_CONTENT) == [], "the replay is wider than the screen"
    person.page.select_option("select[name=analysis-level]", "advanced")
    person.page.click("[data-action=analyse]")
    person.page.wait_for_selector(".analysis-panel[data-status=done]", timeout=ANALYSIS_SECONDS)
    summary_cells = ".analysis-summary tbody th, .analysis-summary tbody td"
    assert person.page.evaluate(BROKEN_WORDS, summary_cells) == [], "a word of the analysis is cut in two"
    assert person.page.evaluate(WIDE_CONTENT) == [], "the analysis is wider than the screen"
    person.page.click("header [data-action=menu]")  # on a phone the header's links wait behind the menu button
    person.page.click("header a[href^='#/profile/']")
    person.page.wait_for_selector("table.data tbody tr[data-table]")
    assert person.page.evaluate(WIDE_CONTENT) == [], "the profile is wider than the screen"
