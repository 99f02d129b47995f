"""Each variant added beside backgammon and long nardy, played whole between two people in their browsers.

For each of hypergammon, nackgammon, portes, tavla, plakoto and fevga the
first person opens a private table against a person through the lobby's form
(which offers the variant), the second joins by the invite link in their own
page, and both see the start drawn as the rules lay it out, each from their own
side. Two drivers with the pages' cookies play the turns over the WebSocket
(:mod:`tests.web.scripted_game`: the first person wins the opening 6-1 and
races with big rolls, the second rolls 1-2 and never hits, each queuing their
own roll as they roll), the first person's page clicks the last turn, and
both pages show the end: "You won!" to the winner, "You lost" to the loser,
each with the kind of win the server scored and its reason. A tavli match to
5 points between them goes round its three games, portes, plakoto and fevga,
both pages naming each game in play, to the match's end on both.

The tests share one server and the two pages (a test leaves no roll queued and
no error in either page), so each costs the clicks of its game.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from nardy.rules import Position
from tests.web.browser_client import Client, new_client
from tests.web.scripted_game import (
    ScriptingDriver,
    TrailingDriver,
    drawn_board,
    play_the_last_turn,
    play_to_the_leaders_last_turn,
)
from tests.web.test_new_variants_browser import NEW_VARIANTS, TAVLI_GAMES, end_card
from tests.web.web_driver import REPO_ROOT, WebServer

ENGLISH = json.loads((REPO_ROOT / "nardy" / "web" / "i18n" / "en.json").read_text(encoding="utf-8"))
"""The page's English strings: the names of the kinds of win (``result.*``)."""


@pytest.fixture(scope="module")
def shared_pages(browser: Any, module_web_server: WebServer) -> Iterator[tuple[Client, Client]]:
    """Two people, each in their own browser context, for the whole module."""
    pair = tuple(new_client(browser, module_web_server, reduced_motion="reduce") for _ in range(2))
    yield pair[0], pair[1]
    for person in pair:
        person.context.close()


@pytest.fixture
def people(shared_pages: tuple[Client, Client]) -> Iterator[tuple[Client, Client]]:
    """The module's two people for one test, which finds no roll queued and leaves none, and no error in a page."""
    server = shared_pages[0].server
    assert server.dice() == 0, "a test before this one left rolls queued"
    errors = [len(person.errors) for person in shared_pages]
    yield shared_pages
    left = server.drop_dice()  # dropped, so one failed test does not fail the module's next ones
    for person, before in zip(shared_pages, errors):
        assert not person.errors[before:], f"errors in the page: {person.errors[before:]}"
    assert left == 0, f"{left} roll(s) were left queued"


def open_private_table(person: Client, variant: str, length: int | None = None) -> str:
    """Open a private table against a person through the lobby's form, a match to ``length`` points (else the
    form's first choice); the invite link the table page shows."""
    person.goto("#/")
    form = person.page.locator("form.create")
    form.locator("select[name=variant]").select_option(variant)
    if length is not None:
        form.locator("select[name=match_length]").select_option(str(length))
    assert form.locator("select[name=opponent]").input_value() == "human"
    form.locator("input[name=private]").check()
    form.locator("[data-action=create]").click()
    person.page.wait_for_selector(".game-page[data-status=waiting]")
    link = person.page.locator("[data-invite]").get_attribute("data-invite") or ""
    assert "#/invite/" in link, link
    return link


def join_by_invite(person: Client, link: str) -> None:
    person.page.goto(link)
    person.page.click("[data-action=accept-invite]")
    person.page.wait_for_selector(".game-page[data-status=playing]")


@pytest.mark.slow
@pytest.mark.parametrize("variant", NEW_VARIANTS)
def test_two_people_play_a_new_variant_to_both_end_screens(variant: str, people: tuple[Client, Client]) -> None:
    alice, bob = people
    server = alice.server
    link = open_private_table(alice, variant)
    server.dice((6, 1))  # the opening: Alice's 6 against Bob's 1, so Alice plays first
    join_by_invite(bob, link)
    alice.page.wait_for_selector(".game-page[data-status=playing][data-my-turn=true]")
    assert alice.table_id() == bob.table_id()
    start = list(Position.start(variant).points)
    assert drawn_board(alice) == start and drawn_board(bob) == start, "each sees the start from their own side"

    leader = ScriptingDriver(server, alice, reply=None)
    trailer = TrailingDriver(server, bob)
    try:
        play_to_the_leaders_last_turn(leader, trailer)
        bob.page.wait_for_function(  # Bob's page has followed the game, drawn from his side
            "v => Number(document.querySelector('.game-page').dataset.version) >= v", arg=trailer.version)
        assert drawn_board(bob) == trailer.board()["points"]
        assert play_the_last_turn(alice, leader) == "match"
        trailer.wait_version(leader.version)
        ended = [event["payload"] for event in trailer.events if event["kind"] == "game_ended"]
    finally:
        leader.close()
        trailer.close()
    assert len(ended) == 1, ended
    result = ended[0]["result"]
    assert result["winner"] == leader.seat and result["reason"] == "bore-off", result
    kind = ENGLISH[f"result.{result['kind']}"]
    heading, text = end_card(alice)
    assert heading == "You won!", heading
    assert f"{kind}: " in text and "all checkers borne off" in text, text
    bob.page.wait_for_selector('.overlay[data-end="match"]')
    heading, text = end_card(bob)
    assert heading == "You lost", heading
    assert f"{kind}: " in text and "all checkers borne off" in text, text


@pytest.mark.slow
def test_two_people_play_a_tavli_match_round_its_three_games(people: tuple[Client, Client]) -> None:
    """docs/rules.md §11: "game 1 is portes (§8.2), game 2 plakoto (§9), game 3 fevga (§10)"; "every later game
    is started by the winner of the game before, who rolls at once"; a gammon scores 2. Alice wins each game
    with a gammon, so a match to 5 points takes the three games: both pages name each game in play and draw its
    start, each from its own side, show each game's end with the match score, then the match's end."""
    alice, bob = people
    server = alice.server
    link = open_private_table(alice, "tavli", 5)
    server.dice((6, 1))
    join_by_invite(bob, link)
    alice.page.wait_for_selector(".game-page[data-status=playing][data-my-turn=true]")
    leader = ScriptingDriver(server, alice, reply=None)
    trailer = TrailingDriver(server, bob)
    try:
        for number, game in enumerate(TAVLI_GAMES, start=1):
            score = 2 * (number - 1)
            for person, driver in ((alice, leader), (bob, trailer)):
                person.page.wait_for_function(
                    "v => Number(document.querySelector('.game-page').dataset.version) >= v", arg=driver.version)
                assert drawn_board(person) == list(Position.start(game).points), f"game {number}: {game}'s start"
                named = person.page.locator(".game-page .match-info [data-game-variant]")
                assert named.get_attribute("data-game-variant") == game, "the page names the game in play"
                assert named.inner_text() == game.capitalize()
            assert alice.page.locator('.player[data-player="me"] .score').inner_text() == str(score)
            assert bob.page.locator('.player[data-player="opponent"] .score').inner_text() == str(score)
            if number > 1:  # the winner of the game before rolls at once
                assert alice.game().get("myTurn") == "true" and alice.game().get("phase") == "rolling"
            play_to_the_leaders_last_turn(leader, trailer)
            assert leader.state["game"]["variant"] == game and leader.state["game_number"] == number
            end = play_the_last_turn(alice, leader)
            trailer.wait_version(leader.version)
            bob.page.wait_for_function(
                "v => Number(document.querySelector('.game-page').dataset.version) >= v", arg=trailer.version)
            bob.page.wait_for_selector(f'.overlay[data-end="{end}"]')
            (_, alice_text), (bob_heading, bob_text) = end_card(alice), end_card(bob)
            assert "all checkers borne off" in alice_text and "all checkers borne off" in bob_text
            if number < len(TAVLI_GAMES):
                assert end == "game" and bob_heading == "You lost the game", (end, bob_heading)
                assert f" {score + 2} – 0 " in alice_text and f" 0 – {score + 2} " in bob_text, (alice_text, bob_text)
                for person in (alice, bob):
                    person.page.click("[data-action=next-game]")
            else:
                assert end == "match" and bob_heading == "You lost", (end, bob_heading)
    finally:
        leader.close()
        trailer.close()
    ended = [event["payload"]["result"] for event in trailer.events if event["kind"] == "game_ended"]
    assert [(result["winner"], result["points"]) for result in ended] == [(leader.seat, 2)] * 3, ended
    assert end_card(alice)[0] == "You won!"
    assert " 6 – 0 " in end_card(alice)[1] and " 0 – 6 " in end_card(bob)[1]
