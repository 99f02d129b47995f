"""The home page invites play: a quick-pairing grid whose tiles are the server's pools (one tap joins one, the
number waiting shown), the players and games online, a featured live game on a small board that follows it (a tap
opens it to watch), the next tournaments, and the create form behind "Create a table"; on a phone the grid comes
first. In Debian's chromium against a real server, like the other browser tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.web.browser_client import Client
from tests.web.test_lobby_browser import sign_up
from tests.web.web_driver import Http, WebServer


MakeClient = Callable[..., Client]
PHONE = {"width": 360, "height": 740}
PASSWORD = "correct horse battery"
POOL_FIELDS = ("variant", "match_length", "delay_seconds", "bank_seconds_per_point")


def pool_key(pool: dict[str, Any]) -> str:
    """A pool as its tile names it (``data-pool``)."""
    return ":".join(str(pool[field]) for field in POOL_FIELDS)


def test_one_tap_on_a_tile_pairs_two_players_and_the_home_page_features_their_match(
        client: MakeClient, web_server: WebServer) -> None:
    visitor = client()
    visitor.goto("#/")
    pools = Http(web_server).get("/api/matchmaking/pools")["pools"]
    tiles = visitor.page.locator(".pool-tile")
    tiles.first.wait_for()
    shown = [tiles.nth(i).get_attribute("data-pool") for i in range(tiles.count())]
    assert shown == [pool_key(pool) for pool in pools]
    georgian = next(p for p in pools if p["variant"] == "georgian")
    tile = f'.pool-tile[data-pool="{pool_key(georgian)}"]'
    assert "Waiting: 0" in visitor.page.inner_text(tile)
    assert visitor.page.locator("details.create-table[open] form.create").is_visible(), "a wide screen shows the form"
    visitor.page.wait_for_selector("#site-live [data-players-online='0']")
    assert visitor.page.locator(".featured-none").is_visible()

    # a guest's tap asks for an account; a player's joins the pool, and everyone sees one waiting there
    visitor.page.click(tile)
    visitor.page.wait_for_selector(".toast.error")
    alice = client()
    sign_up(alice, "alice_home")
    alice.goto("#/")
    alice.page.click(tile)
    alice.page.wait_for_selector("#quick-pairing [data-action=leave-pool]")
    visitor.page.wait_for_selector(f'{tile}[data-waiting="1"]')

    # the second player in the same pool: both are paired and land on the rated table
    web_server.dice((3, 1))
    bob = Http(web_server)
    bob.post("/api/signup", {"username": "bob_home", "password": PASSWORD})
    bob.post("/api/matchmaking/join", {field: georgian[field] for field in POOL_FIELDS})
    alice.page.wait_for_function("() => location.hash.startsWith('#/table/')", timeout=20_000)
    table = alice.table_id()

    # the visitor's home page now features that match, drawn on its small board, and counts its two players
    visitor.page.wait_for_selector(f'.featured[data-featured="{table}"] svg.board .checker')
    visitor.page.wait_for_selector("#site-live [data-players-online='2']")
    assert visitor.page.locator("#site-live [data-games-playing='1']").count() == 1
    assert "alice_home" in visitor.page.inner_text(".featured-title")
    visitor.page.click(".featured .featured-board")
    visitor.page.wait_for_function("t => location.hash === `#/table/${t}`", arg=table)
    visitor.page.wait_for_selector(".game-page[data-status=playing]")


def test_the_next_tournaments_are_listed(client: MakeClient, web_server: WebServer) -> None:
    organiser = Http(web_server)
    organiser.post("/api/signup", {"username": "organiser", "password": PASSWORD})
    created = organiser.post("/api/tournaments", {"name": "Sunday cup", "format": "knockout", "variant": "georgian", "max_players": 8})
    person = client()
    person.goto("#/")
    link = person.page.locator(f'#next-tournaments [data-tournament="{created["id"]}"] a')
    link.wait_for()
    assert "Sunday cup" in link.inner_text()
    link.click()
    person.page.wait_for_function("t => location.hash === `#/tournament/${t}`", arg=created["id"])


def test_on_a_phone_the_grid_comes_first_and_the_form_waits_behind_its_summary(client: MakeClient) -> None:
    person = client(viewport=PHONE, has_touch=True, is_mobile=True)
    person.goto("#/")
    person.page.wait_for_selector(".pool-tile")
    grid = person.page.locator("#quick-pairing").bounding_box()
    assert grid is not None and grid["y"] < PHONE["height"] / 4, f"the grid starts the page: {grid}"
    for other in ["#site-live", ".card.quick", "details.create-table", "#next-tournaments", "#open-tables"]:
        box = person.page.locator(other).bounding_box()
        assert box is not None and box["y"] > grid["y"], f"{other} comes after the grid"
    first_tile = person.page.locator(".pool-tile").first.bounding_box()
    assert first_tile is not None and first_tile["y"] + first_tile["height"] <= PHONE["height"]
    assert first_tile["height"] >= 32 and first_tile["width"] >= 32
    assert person.page.locator("form.create").is_hidden()
    person.page.click("details.create-table > summary")
    assert person.page.locator("form.create select[name=variant]").is_visible()
    assert person.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
