"""A closed chouette's game is analysed from its replay page: a panel for each member of the team.

Issue 39, item 12: «chouette games cannot be analysed (422): analyse them (one
cube per member, a panel for each member)». Three guests outside the browser
play two short chouette games (the box resigns each) and leave; a player in
the browser opens the first game's replay, presses Analyse, and reads each
member's game against the box.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from websockets.sync.client import connect

from tests.web.browser_client import Client
from tests.web.test_analysis_browser import ANALYSIS_SECONDS
from tests.web.test_lobby_browser import sign_up
from tests.web.web_driver import Http, WebServer


MakeClient = Callable[..., Client]


class Seat:
    """One chouette player over the WebSocket: acts, and reads the state the table's messages carry."""

    def __init__(self, stack: ExitStack, server: WebServer, person: Http, table: str) -> None:
        self.table = table
        self.ws = stack.enter_context(connect(server.ws_url, additional_headers={"Cookie": person.cookie_header()}))
        self.user = json.loads(self.ws.recv(timeout=10))["user"]
        self.state: dict[str, Any] = {}
        self._ids = 0
        self.ws.send(json.dumps({"t": "subscribe", "table": table}))
        self.until(lambda: bool(self.state))

    def until(self, condition: Callable[[], bool]) -> None:
        while not condition():
            message = json.loads(self.ws.recv(timeout=20))
            if message.get("table") == self.table and "state" in message and "changes" not in message:
                self.state = message["state"]
            elif message.get("t") == "events" and message.get("table") == self.table:
                self.ws.send(json.dumps({"t": "subscribe", "table": self.table}))  # changes: ask for the state

    def act(self, t: str) -> None:
        self._ids += 1
        action_id = f"seat-{self.user['id']}-{self._ids}"
        self.ws.send(json.dumps({"t": t, "table": self.table, "action_id": action_id}))
        while True:
            message = json.loads(self.ws.recv(timeout=20))
            if message.get("action_id") == action_id:
                assert message["t"] == "ack", message
                return
            if message.get("table") == self.table and "state" in message and "changes" not in message:
                self.state = message["state"]


def _closed_chouette_of_two_games(server: WebServer) -> tuple[str, int]:
    """Three guests play two games in which the box resigns, then all leave: the table and game 1's number."""
    people = [Http(server) for _ in range(3)]
    for person in people:
        person.post("/api/guest")
    table = people[0].post("/api/chouettes", {"max_players": 3})["table"]
    for person in people[1:]:
        person.post(f"/api/chouettes/{table}/join")
    server.dice((6, 5), (4, 1), (3, 1), (5, 2), (4, 2), (6, 1), (5, 3), (2, 1))
    with ExitStack() as stack:
        seats = [Seat(stack, server, person, table) for person in people]
        watcher = seats[0]
        watcher.act("start")
        for game in (1, 2):
            watcher.until(lambda: watcher.state.get("game") is not None
                          and watcher.state["game"]["phase"] in ("rolling", "moving"))
            number = watcher.state["game"]["number"]
            next(seat for seat in seats if seat.user["id"] == watcher.state["game"]["box"]).act("resign")
            if game == 1:
                watcher.until(lambda n=number: watcher.state.get("game") is None or watcher.state["game"]["number"] != n)
                for seat in seats:
                    seat.act("leave")  # each leaves when the second game ends
        watcher.until(lambda: watcher.state.get("status") == "closed")
    games = Http(server).get(f"/api/chouettes/{table}/replay")["games"]
    assert Http(server).get(f"/api/chouettes/{table}")["status"] == "closed"
    return table, games[0]["number"]


def test_a_chouette_game_is_analysed_member_by_member(client: MakeClient, web_server: WebServer) -> None:
    table, number = _closed_chouette_of_two_games(web_server)
    person = client()
    sign_up(person, "chouette_analyst")
    person.goto(f"#/chouette-replay/{table}/{number}")
    person.page.wait_for_selector(".analysis-panel [data-action=analyse]")
    person.page.select_option("select[name=analysis-level]", "advanced")
    person.page.click("[data-action=analyse]")
    person.page.wait_for_selector(".analysis-panel[data-status=done]", timeout=ANALYSIS_SECONDS)
    members = person.page.locator(".analysis-member")
    assert members.count() == 2, "a panel for each member of the team"
    for index in range(2):
        section = members.nth(index)
        assert "against the box" in section.locator("h3").inner_text()
        assert section.locator(".analysis-summary tbody tr").count() == 7
    person.screenshot_page("analysis-chouette")
