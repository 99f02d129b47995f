"""Whole matches through the real app: every variant between two WebSocket clients, a guest
against the computer, and the provably fair dice of a finished match checked from its record.

The driver (``GameServer.play_out``, in ``game_server.py``) reads only what a client
sees: ``state.actor``, the phase, the dice and ``state.game.boards[actor]``,
from which it rebuilds the position to pick a legal play.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from nardy.bots import make_bot
from nardy.notation.dice_record import verify_record

MATCHES = {
    "backgammon": 1,
    "dave": 3,
    "georgian": 1,
    "long-traditional": 1,
    "long-tournament": 1,
    "long-bolshie": 1,
}

ROLL_KINDS = ("opening_rolled", "rolled")


def _results(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e["payload"]["result"] for e in events if e["kind"] == "game_ended"]


def _check_finished_match(final: dict[str, Any], events: list[dict[str, Any]], length: int) -> None:
    """The final state agrees with itself and with the games' results in the event log."""
    match = final["match"]
    assert final["status"] == "finished"
    assert final["actor"] is None
    assert match["ended_by"] == "score"
    winner = match["winner"]
    assert winner in (0, 1)
    assert match["score"][winner] >= length > match["score"][1 - winner]

    results = _results(events)
    assert results, "no game_ended event"
    score = [0, 0]
    for result in results:
        assert result["points"] >= 1
        score[result["winner"]] += result["points"]
    assert score == match["score"]
    assert final["last_result"] == results[-1]
    assert final["last_result"]["winner"] == winner

    ended = [e for e in events if e["kind"] == "match_ended"]
    assert len(ended) == 1 and ended[0] is events[-1]
    assert ended[0]["payload"] == {"winner": winner, "reason": "score", "score": match["score"], "rated": False}


def _untimed(event: dict[str, Any]) -> dict[str, Any]:
    """An event without its time (see test_ws_resync.py for the time itself)."""
    return {key: value for key, value in event.items() if key != "at"}


def _check_same_log(players, table: str, record: dict[str, Any]) -> None:
    """Every client saw every event exactly once, in order, as the record stores it."""
    final = record["events"][-1]["version"]
    stored = {e["version"]: _untimed(e) for e in record["events"]}
    for player in players:
        assert player.gaps == []
        assert player.version(table) == final
        seen = player.events[table]
        assert [e["version"] for e in seen] == list(range(seen[0]["version"], final + 1))
        assert [_untimed(e) for e in seen] == [stored[e["version"]] for e in seen]


@pytest.mark.parametrize("variant", list(MATCHES))
def test_two_clients_play_a_whole_match(game_server, variant):
    game_server.seed(variant)
    length = MATCHES[variant]
    table, players = game_server.match(variant, length)
    final = game_server.play_out(table, players, choose=game_server.racing)

    assert players[0].state(table) == players[1].state(table) | {
        "server_time": players[0].state(table)["server_time"]
    }
    assert players[0].version(table) == players[1].version(table) == final["version"]
    record = game_server.record(table)
    _check_finished_match(final, record["events"], length)
    _check_same_log(players, table, record)
    assert game_server.view(table)["match"] == final["match"]

    kinds = {e["kind"] for e in record["events"]}
    assert {"seated", "match_started", "game_started", "opening_rolled", "moved", "game_ended"} <= kinds
    if variant.startswith("long"):
        # Long nardy: the opening winner plays white and then rolls both dice (004).
        first_moves = [e for e in record["events"] if e["kind"] in ("rolled", "moved")][:2]
        assert [e["kind"] for e in first_moves] == ["rolled", "moved"]


def test_a_game_with_random_plays(game_server):
    """Random (not racing) plays: hits, entering from the bar and passes come up on the way."""
    game_server.seed("georgian-random")
    table, players = game_server.match("georgian", 1)
    final = game_server.play_out(table, players, choose=game_server.random_chooser("georgian-random"))
    record = game_server.record(table)
    _check_finished_match(final, record["events"], 1)
    hits = [s for e in record["events"] if e["kind"] == "moved" for s in e["payload"]["steps"] if s["hit"]]
    assert hits, "no checker was hit in a whole game of random plays"
    _check_same_log(players, table, record)
    numbers = [e["payload"]["number"] for e in record["events"] if e["kind"] == "game_started"]
    assert numbers == list(range(1, len(numbers) + 1))
    assert len(numbers) == len(_results(record["events"]))


def test_a_guest_plays_a_whole_match_against_the_computer(game_server):
    game_server.seed("computer")
    guest = game_server.guest()
    game_server.top_up()  # against the computer the match, and its opening roll, start at once
    created = game_server.create(guest, "georgian", 1, opponent="computer")
    table = created["table"]
    assert created["seats"][1]["bot"] == "random"
    assert created["seats"][1]["user_id"] is None
    assert created["status"] == "playing"
    assert guest.subscribe(table)["t"] == "sync"

    final = game_server.play_out(table, [guest, None], choose=game_server.racing)

    record = game_server.record(table)
    _check_finished_match(final, record["events"], 1)
    _check_same_log([guest], table, record)
    bot_events = [e for e in guest.events[table] if e["seat"] == 1]
    assert {"rolled", "moved"} <= {e["kind"] for e in bot_events}
    assert all(e["kind"] in ("rolled", "passed", "moved", "seated") for e in bot_events)
    assert final["rated"] is False


def test_provably_fair_dice_verify_after_a_match_against_the_computer(make_game_server):
    server = make_game_server(dice="fair")
    guest = server.guest()
    table = server.create(guest, "backgammon", 1, opponent="computer", client_seed="my own seed")["table"]
    guest.subscribe(table)
    final = server.play_out(table, [guest, None], choose=server.racing, feed=False)
    assert final["status"] == "finished"

    record = server.record(table)
    assert verify_record(record) == []
    events = record["events"]
    seated = [e for e in events if e["kind"] == "seated"]
    assert seated[0]["payload"]["client_seed"] == "my own seed"
    assert record["games"], "the dice record has no games"
    for game in record["games"]:
        assert game["seed"] is not None, "the seed is revealed once the game is over"
        assert hashlib.sha256(bytes.fromhex(game["seed"])).hexdigest() == game["seed_hash"]
        assert game["client_seeds"][0] == "my own seed"
        assert [roll["number"] for roll in game["rolls"]] == list(range(len(game["rolls"])))
        assert game["rolls"][0]["kind"] == "opening"

    # The commitment is published before the game's first roll, and the seed only at its end.
    current = None
    for event in events:
        if event["kind"] == "game_started":
            current = event["payload"]
            assert "seed" not in current
            game = record["games"][current["number"] - 1]
            assert current["commitment"] == game["seed_hash"]
        elif event["kind"] in ROLL_KINDS:
            assert current is not None, f"roll before any commitment: {event}"
        elif event["kind"] == "game_ended":
            assert event["payload"]["commitment"] == current["commitment"]
            current = None
    first_roll = next(e for e in events if e["kind"] == "opening_rolled")
    started = next(e for e in events if e["kind"] == "game_started")
    assert started["version"] < first_roll["version"]


def test_the_computer_is_made_for_the_tables_variant(game_server, monkeypatch):
    """The bot is built for the table's variant (its weights checked when the table opens), and again per turn."""
    made = []

    def factory(level, *, variant=None):
        made.append((level, variant))
        return make_bot(level, variant=variant)

    monkeypatch.setattr(game_server.app.state.tables, "_bot_factory", factory)
    guest = game_server.guest()
    game_server.top_up()
    created = game_server.create(guest, "long-tournament", 1, opponent="computer", bot_level="beginner")
    assert made[0] == ("beginner", "long-tournament")
    guest.subscribe(created["table"])
    game_server.play_out(created["table"], [guest, None], choose=game_server.racing)
    assert len(made) > 2 and set(made) == {("beginner", "long-tournament")}


def test_a_tavli_match_plays_each_game_by_its_own_variant(game_server, monkeypatch):
    """docs/rules.md §11: tavli's games rotate portes → plakoto → fevga (Wikipedia, "Tavli": "played in
    succession: Portes, Plakoto and Fevga"); each game's board is its own variant's, in the view and the replay,
    and the computer is made for the game in play ("After the first game, the winner of the previous game goes
    first", bkgm.com's Tavli)."""
    made = []

    def factory(level, *, variant=None):
        made.append(variant)
        return make_bot(level, variant=variant)

    monkeypatch.setattr(game_server.app.state.tables, "_bot_factory", factory)
    game_server.seed("tavli")
    guest = game_server.guest()
    game_server.top_up()
    table = game_server.create(guest, "tavli", 3, opponent="computer", bot_level="random")["table"]
    assert guest.subscribe(table)["state"]["game"]["variant"] == "portes"
    final = game_server.play_out(table, [guest, None], choose=game_server.racing)

    record = game_server.record(table)
    _check_finished_match(final, record["events"], 3)
    rotation = ("portes", "plakoto", "fevga")
    assert final["game_number"] >= 2
    assert final["game"]["variant"] == rotation[(final["game_number"] - 1) % 3]
    frames = guest.client.get(f"/api/tables/{table}/replay").json()["frames"]
    boards = {(frame["game_number"], frame["board"]["variant"]) for frame in frames if frame["kind"] == "moved"}
    assert boards == {(number, rotation[(number - 1) % 3]) for number in range(1, final["game_number"] + 1)}
    assert made[0] == "tavli" and {"portes", "plakoto"} <= set(made[1:]) <= set(rotation)
    starts = [e for e in record["events"] if e["kind"] in ("game_ended", "rolled", "opening_rolled")]
    for ended, first in zip(starts, starts[1:]):
        if ended["kind"] == "game_ended":
            assert first["kind"] == "rolled" and first["seat"] == ended["payload"]["result"]["winner"]
