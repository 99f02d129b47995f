"""Tables leave memory when finished or idle, and come back from their log unchanged.

The table services hold a table in memory only while it is in use
(``LiveTables.evict``): a finished table shortly after its last use,
any table after a long idle spell, never one whose owner has a message running or
waiting, or that a bot's move holds. The state is the fold of the database log, so the next
access reloads it as it was.
"""

from __future__ import annotations

import time

from typing import Any

from nardy.notation import position_from_dict

WAIT = 4.0
"""Seconds to wait for a one-second clock to run out and be acted on."""


def _tables(server: Any) -> Any:
    return server.app.state.tables


def _evict(server: Any, service: Any, *, idle: float | None = None, finished: float | None = None) -> list[str]:
    """Run one eviction pass in the server's event loop with the given limits (seconds)."""
    live = service.live

    def run() -> list[str]:
        saved = live.idle_seconds, live.finished_seconds
        live.idle_seconds = idle if idle is not None else saved[0]
        live.finished_seconds = finished if finished is not None else saved[1]
        try:
            dropped: list[str] = service.evict()
            return dropped
        finally:
            live.idle_seconds, live.finished_seconds = saved
    result: list[str] = server.client.portal.call(run)
    return result


def _play_turn(server: Any, table: str, players: list[Any]) -> None:
    """The player on turn rolls and, if the roll can be played, plays the first legal play."""
    server.top_up()
    state = players[0].state(table)
    player = players[state["actor"]]
    player.ok("roll", table)
    state = player.state(table)
    game = state["game"]
    if state["actor"] == game["turn"] and game["phase"] == "moving":
        plays = position_from_dict(game["boards"][game["turn"]]).legal_plays(tuple(game["dice"]))
        player.ok("move", table, steps=[
            {"source": s.source, "target": s.target, "die": s.die, "hit": s.hit} for s in plays[0].steps
        ])
    for other in players:
        other.catch_up(player.version(table), table)


def _same_view(first: dict[str, Any], second: dict[str, Any]) -> None:
    """Two views of a table agree on everything but the moment they were made."""
    assert {**first, "server_time": None} == {**second, "server_time": None}


def test_a_finished_match_leaves_memory_and_still_reads_subscribes_and_replays(game_server) -> None:
    service = _tables(game_server)
    table, players = game_server.match("backgammon", 1)
    game_server.play_out(table, players, choose=game_server.racing)
    assert service.is_loaded(table)
    before = game_server.view(table)
    record = game_server.record(table)
    replay = game_server.client.get(f"/api/tables/{table}/replay").json()

    assert _evict(game_server, service, idle=3600) == []  # used just now: within the finished grace
    assert table in _evict(game_server, service, idle=3600, finished=0)
    assert not service.is_loaded(table)
    directory = game_server.app.state.directory  # nor does the routing of tables keep anything of it
    assert [name for name, kept in vars(directory).items() if isinstance(kept, dict | set) and table in kept] == []

    after = game_server.view(table)
    _same_view(before, after)
    assert game_server.record(table) == record
    assert game_server.client.get(f"/api/tables/{table}/replay").json() == replay
    watcher = game_server.guest()
    sync = watcher.subscribe(table)
    assert sync["t"] == "sync" and sync["version"] == before["version"]
    _same_view(before, sync["state"])
    assert watcher.subscribe(table, since=0)["t"] in ("sync", "events")


def test_a_rematch_offer_reloads_an_evicted_finished_table(game_server) -> None:
    service = _tables(game_server)
    table, (alice, bob) = game_server.match("georgian", 1)
    game_server.play_out(table, [alice, bob], choose=game_server.racing)
    assert table in _evict(game_server, service, finished=0)
    alice.ok("rematch", table)
    bob.ok("rematch", table)
    state = alice.wait(lambda s: s["rematch"]["table"] is not None, table)
    assert state["rematch"]["offers"] == [0, 1]


def test_an_idle_table_is_evicted_and_reloads_identically_then_plays_on(game_server) -> None:
    service = _tables(game_server)
    table, players = game_server.match("long-traditional", 1)
    for _ in range(6):  # a few turns in: the fold has something to rebuild
        _play_turn(game_server, table, players)
    before = game_server.view(table)
    assert _evict(game_server, service) == []  # in play and recently used: stays
    assert table in _evict(game_server, service, idle=0)
    assert not service.is_loaded(table)
    _same_view(before, game_server.view(table))
    assert service.is_loaded(table)
    final = game_server.play_out(table, players)
    assert final["status"] == "finished"


def test_a_held_table_is_not_evicted(game_server) -> None:
    service = _tables(game_server)
    table, _ = game_server.match("backgammon", 1)

    async def while_a_message_runs() -> list[str]:
        async def evict(owner: Any) -> list[str]:
            return list(service.evict())
        return await service.live.send(table, evict, fresh=False)

    def held() -> list[str]:
        owner = service.live._owners[table]
        owner.holds += 1
        try:
            return list(service.evict())
        finally:
            owner.holds -= 1

    service.live.idle_seconds, saved = 0, service.live.idle_seconds
    try:
        assert table not in game_server.client.portal.call(while_a_message_runs)
        assert table not in game_server.client.portal.call(held)
    finally:
        service.live.idle_seconds = saved
    assert table in _evict(game_server, service, idle=0)


def test_the_move_clock_of_an_evicted_table_still_runs_out(game_server) -> None:
    service = _tables(game_server)
    table, (alice, _) = game_server.match("georgian", 3, opening=[(3, 1)], move_seconds=1)
    deadline = time.monotonic() + WAIT
    while table not in _evict(game_server, service, idle=0):  # the join's follow-ups may still hold it a moment
        assert time.monotonic() < deadline, "the table stayed held"
        time.sleep(0.02)
    state = alice.wait(lambda s: s["match"]["timeouts"][0] >= 1, timeout=WAIT)
    assert state["actor"] == 1
    assert service.is_loaded(table)


def test_an_idle_chouette_is_evicted_and_reloads(game_server) -> None:
    service = game_server.app.state.chouettes
    ann, bob = game_server.guest(), game_server.guest()
    table = ann.post("/api/chouettes", {"max_players": 4}).json()["table"]
    assert bob.post(f"/api/chouettes/{table}/join").status_code == 200
    before = game_server.client.get(f"/api/chouettes/{table}").json()
    assert table in _evict(game_server, service, idle=0)
    assert not service.is_loaded(table)
    _same_view(before, game_server.client.get(f"/api/chouettes/{table}").json())
    ann.subscribe(table)
    ann.ok("leave", table)
    bob.subscribe(table)
    bob.ok("leave", table)
    assert bob.state(table)["status"] == "closed"
    assert table in _evict(game_server, service, finished=0)
