"""The computer's pace: a pause before each of its actions, and its roll reaching the client before its move.

A person cannot follow a computer that rolls and moves within a tenth of a
second: unless told otherwise (``NARDY_BOT_DELAY_SECONDS``) the server pauses
0.6 s before each computer action, none in testing. The roll and the move are
two commits, so they reach a watcher as two ``events`` messages, the pause
apart: the page shows the dice, then the checkers moving.
"""

from __future__ import annotations

import time

import pytest

from nardy.server.settings import COMPUTER_PAUSE_SECONDS, Settings

PAUSE = 0.3
"""The pause the paced server of these tests is given, in seconds."""


@pytest.mark.parametrize("environment", ["development", "production"])
def test_the_computer_pauses_by_default_where_people_play(environment):
    assert COMPUTER_PAUSE_SECONDS == pytest.approx(0.6)
    assert Settings(environment=environment).computer_pause_seconds == COMPUTER_PAUSE_SECONDS
    assert Settings(environment=environment, bot_delay_seconds=0).computer_pause_seconds == 0
    assert Settings(environment=environment, bot_delay_seconds=1.5).computer_pause_seconds == 1.5


def test_tests_keep_no_pause(make_game_server):
    assert Settings(environment="testing").computer_pause_seconds == 0
    assert make_game_server().client.app.state.tables.bot_delay_seconds == 0


def test_the_apps_tables_take_the_default_pause(make_game_server):
    server = make_game_server(environment="development")
    assert server.client.app.state.tables.bot_delay_seconds == COMPUTER_PAUSE_SECONDS


def test_the_computers_roll_and_move_arrive_as_two_messages_the_pause_apart(make_game_server):
    server = make_game_server(bot_delay_seconds=PAUSE)
    alice = server.guest()
    server.push((6, 2), (5, 3), (4, 2))
    server.top_up()
    table = server.create(alice, "long-traditional", 1, opponent="computer")["table"]
    alice.subscribe(table)
    alice.ok("roll", table=table)
    alice.ok("move", table=table, steps=[{"source": 24, "target": 19, "die": 5}, {"source": 19, "target": 16, "die": 3}])
    moved_at = time.monotonic()

    arrivals: list[tuple[float, list[str]]] = []
    while not any("moved" in kinds for _, kinds in arrivals):
        message = alice.recv()
        if message["t"] == "events" and message["table"] == table:
            kinds = [e["kind"] for e in message["events"] if e["seat"] == 1]
            if kinds:
                arrivals.append((time.monotonic(), kinds))
    (rolled_at, first), (computer_moved_at, second) = arrivals
    assert first == ["rolled"] and second == ["moved"], "the roll and the move come one after the other"
    assert rolled_at - moved_at >= PAUSE * 0.9, "a pause before the roll"
    assert computer_moved_at - rolled_at >= PAUSE * 0.9, "the dice stay a moment before the checkers move"
    assert alice.state(table)["actor"] == 0
