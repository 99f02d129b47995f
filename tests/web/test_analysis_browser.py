"""A guest finishes a game against the computer, opens its replay, presses Analyse, and reads the analysis:
the progress, the players' figures, the equity graph (a point jumps to its move), each move's loss and mark,
and the best play drawn on the board on demand. The short board and long nardy alike; and a tavli match,
whose replay names each of its three games and whose panel shows the analysis of the game the replay is in.

The tests share one server (its analysis worker too) and its pages, each test's person new in them
(``visitor``); each queues the rolls it uses."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from nardy.notation import transcript_from_mat
from tests.web.browser_client import Client
from tests.web.scripted_game import play_the_match_to_its_end
from tests.web.test_browser import OPENING, quick_play
from tests.web.test_new_variants_browser import TAVLI_GAMES, open_match_against_the_computer
from tests.web.web_driver import Http


MakeClient = Callable[..., Client]
ANALYSIS_SECONDS = 180_000
"""Milliseconds the worker process may take: spawned, engines loaded, a whole game analysed on a busy machine."""


def finish_against_the_computer(person: Client, variant: str) -> None:
    """A game of ``variant`` against the random computer, won by the person to the end screen: played over the
    WebSocket with the rolls queued as they are needed (:mod:`tests.web.scripted_game`)."""
    person.server.dice(OPENING)
    quick_play(person, variant)
    play_the_match_to_its_end(person)


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["backgammon", "long-traditional"])
def test_a_finished_game_is_analysed_from_its_replay(variant: str, visitor: MakeClient) -> None:
    person = visitor()
    finish_against_the_computer(person, variant)
    person.page.click(".overlay [data-action=replay]")
    person.page.wait_for_selector(".analysis-panel [data-action=analyse]")
    person.page.select_option("select[name=analysis-level]", "advanced")
    person.page.click("[data-action=analyse]")
    person.page.wait_for_selector(".analysis-panel progress, .analysis-panel[data-status=done]")
    person.page.wait_for_selector(".analysis-panel[data-status=done]", timeout=ANALYSIS_SECONDS)

    summary = person.page.locator(".analysis-summary")
    assert summary.locator("tbody tr").count() == 7
    assert "Error rate" in summary.inner_text() and "Rating" in summary.inner_text()
    points = person.page.locator(".equity-graph circle.equity-point")
    decisions = person.page.locator(".analysis-moves li")
    assert points.count() == decisions.count() > 5
    assert person.page.locator(".analysis-moves li.marked").count() > 0, "the random computer made no error?"
    person.screenshot_page(f"analysis-{variant}")

    # the equity graph is under the board, as wide as it; the figures and the moves stay beside the board
    board_box = person.page.locator(".board-wrap").bounding_box()
    graph_box = person.page.locator(".equity-graph svg").bounding_box()
    assert board_box and graph_box
    assert graph_box["y"] >= board_box["y"] + board_box["height"] - 1, "the graph is under the board"
    assert graph_box["width"] >= 0.9 * board_box["width"], "the graph is as wide as the board"
    moves_box = person.page.locator(".analysis-moves").bounding_box()
    assert moves_box and moves_box["x"] >= board_box["x"] + board_box["width"], "the moves are beside the board"

    # a marked move of the computer's: click its point on the graph, the replay shows that move and its verdict
    marked = person.page.locator(".equity-graph circle.equity-point.marked").last
    source = marked.get_attribute("data-source")
    marked.click()
    person.page.wait_for_selector(".replay-verdict")
    verdict = person.page.locator(".replay-verdict")
    assert "best:" in verdict.inner_text()
    played_board = person.page.locator(".board-wrap").inner_html()
    person.page.click("[data-action=show-best]")
    person.page.wait_for_selector('.board-wrap[data-showing="best"]')
    assert person.page.locator(".board-wrap").inner_html() != played_board, "the best play is drawn"
    assert person.page.locator(".board-wrap path.arrow.pending").count() > 0, "the best play's steps are arrows"
    person.page.click("[data-action=show-best]")
    person.page.wait_for_selector('.board-wrap[data-showing="played"]')
    assert source

    # the analysis stays: a reload shows it at once, without asking again
    person.page.reload()
    person.page.wait_for_selector(".analysis-panel[data-status=done]")


@pytest.mark.slow
def test_a_tavli_match_is_analysed_game_by_game_from_its_replay(visitor: MakeClient) -> None:
    """docs/rules.md §11: tavli's games are portes, plakoto and fevga in turn, and the analysis reads the variant
    of each game. A match to 5 points won with a gammon a game takes the three; its replay names each game, and
    the analysis panel shows the analysis of the game the replay is in."""
    person = visitor()
    open_match_against_the_computer(person, "tavli", 5)
    play_the_match_to_its_end(person, games=len(TAVLI_GAMES))
    table = person.table_id()
    person.page.click(".overlay [data-action=replay]")
    person.page.wait_for_selector(".analysis-panel [data-action=analyse]")
    person.page.select_option("select[name=analysis-level]", "advanced")
    person.page.click("[data-action=analyse]")
    person.page.wait_for_selector(".analysis-panel[data-status=done]", timeout=ANALYSIS_SECONDS)

    cookies = {cookie["name"]: cookie["value"] for cookie in person.context.cookies()}
    analysis = Http(person.server, cookies).get(f"/api/tables/{table}/analysis")
    assert [game["number"] for game in analysis["games"]] == [1, 2, 3]
    starts = person.page.locator(".replay-moves li.kind-game_started button")
    assert starts.all_inner_texts() == [f"Game {n} · {game.capitalize()}" for n, game in enumerate(TAVLI_GAMES, 1)]
    for number, game in enumerate(TAVLI_GAMES, start=1):
        starts.nth(number - 1).click()  # the replay goes to the game's start: the caption names the game
        person.page.wait_for_selector(f'.replay-caption [data-game-variant="{game}"]')
        sources = [decision["source"] for decision in analysis["games"][number - 1]["decisions"]]
        person.page.wait_for_function(  # the panel shows this game's decisions, each naming its move's event
            "sources => JSON.stringify([...document.querySelectorAll('.analysis-moves li')]"
            ".map((li) => Number(li.dataset.source))) === JSON.stringify(sources)", arg=sources)
        assert person.page.locator(".equity-graph circle.equity-point").count() == len(sources)

    # the replay offers the match as .mat only (SGF cannot hold fevga's long board): the file is the whole match
    links = person.page.locator(".downloads a[data-download]")
    assert links.evaluate_all("links => links.map((a) => a.dataset.download)") == ["mat"]
    with person.page.expect_download() as download:
        links.first.click()
    match = transcript_from_mat(Path(download.value.path()).read_text(encoding="utf-8"))
    assert (match.variant, match.length, len(match.games)) == ("tavli", 5, 3)


def test_a_hint_in_a_game_against_the_computer(visitor: MakeClient) -> None:
    person = visitor()
    web_server = person.server
    web_server.dice((6, 1))  # the guest opens 6-1
    person.goto("#/")
    person.page.select_option("select[name=quick-variant]", "backgammon")
    person.page.click("[data-action=quick-play]")
    person.page.wait_for_selector(".game-page[data-my-turn=true][data-phase=moving]")
    person.page.click("[data-action=hint]")
    person.page.wait_for_selector(".hint-plays li")
    assert person.page.locator(".hint-plays li").first.locator(".play").inner_text() == "13/7 8/7"
    assert person.page.locator(".hint-plays li").count() == 5
    assert person.page.locator(".board-wrap path.arrow.pending").count() == 2, "the best play, 13/7 8/7, is drawn"


def test_the_analysis_board(visitor: MakeClient) -> None:
    person = visitor()
    person.goto("#/analysis")
    person.page.wait_for_selector(".board-plays li, .board-results .error")
    person.page.select_option("select[name=die-a]", "3")
    person.page.select_option("select[name=die-b]", "1")
    person.page.select_option("select[name=board-level]", "advanced")
    person.page.click("[data-action=analyse-position]")
    person.page.wait_for_selector(".board-plays li:first-child button:has-text('8/5 6/5')")
    person.page.locator("[data-action=play-it]").first.click()  # the opponent's turn after 8/5 6/5, a new roll
    person.page.wait_for_function("() => document.querySelector('input[name=board-position]').value.startsWith('{')")
    person.page.wait_for_selector(".board-plays li, .board-results p")

    person.page.fill("input[name=board-position]", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    person.page.check("input[name=no-roll]")
    person.page.check("input[name=board-cube]")
    person.page.click("[data-action=analyse-position]")
    person.page.wait_for_selector(".board-cube .verdict")
    assert person.page.locator(".board-cube .verdict").inner_text() == "No double"

    person.page.select_option("select[name=board-variant]", "long-traditional")
    person.page.fill("input[name=board-position]", "start")
    person.page.uncheck("input[name=no-roll]")
    person.page.click("[data-action=analyse-position]")
    person.page.wait_for_selector(".board-plays li")
    person.screenshot_page("analysis-board-long")
