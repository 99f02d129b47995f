"""A player's own unfinished tables, the lobby's paged list of games between people, and the ending of
games against the computer that their human abandoned."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import event

from nardy.store import tables_repo

Server = Any
Player = Any


def _computer_game(server: Server, player: Player, **body: Any) -> str:
    """``player`` opens a game against the computer and waits until it is their decision."""
    server.top_up()
    table: str = server.create(player, "georgian", 3, opponent="computer", bot_level="random", **body)["table"]
    player.subscribe(table)
    player.wait(lambda s: s["actor"] == 0)
    return table


def test_my_tables_lists_what_the_player_can_resume(game_server: Server) -> None:
    guest = game_server.guest()
    against_computer = _computer_game(game_server, guest)
    waiting = game_server.create(guest, "long-traditional", 1, private=True)["table"]
    other = game_server.guest()
    finished, _ = game_server.match("georgian", 1, players=[guest, other])
    other.ok("leave", finished)
    mine = guest.client.get("/api/me/tables").json()["tables"]
    assert [row["table"] for row in mine] == [waiting, against_computer]
    assert [row["status"] for row in mine] == ["waiting", "playing"]
    assert mine[0]["private"] is True and mine[1]["players"][1] == "Computer (random)"
    assert other.client.get("/api/me/tables").json()["tables"] == []
    assert game_server.new_client().get("/api/me/tables").status_code == 401


def test_the_lobby_lists_games_between_people_a_page_at_a_time(game_server: Server) -> None:
    _computer_game(game_server, game_server.guest())
    tables = [game_server.match("georgian", 1)[0] for _ in range(3)]
    whole = game_server.client.get("/api/tables?kind=match").json()
    assert [row["table"] for row in whole["playing"]] == tables[::-1], "newest first, no computer game"
    assert whole["playing_total"] == 3
    first = game_server.client.get("/api/tables?kind=match&limit=2").json()
    second = game_server.client.get("/api/tables?kind=match&limit=2&offset=2").json()
    assert [row["table"] for row in first["playing"] + second["playing"]] == tables[::-1]
    assert (first["playing_total"], first["offset"], first["limit"]) == (3, 0, 2)
    assert game_server.client.get("/api/tables?kind=chouette").json()["playing"] == []
    for query in ("limit=0", "limit=101", "offset=-1", "kind=chess"):
        assert game_server.client.get(f"/api/tables?{query}").status_code == 422, query


def test_the_lobby_names_every_table_s_players_with_one_query(game_server: Server) -> None:
    tables = [game_server.match("georgian", 1)[0] for _ in range(4)]
    statements: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    engine = game_server.app.state.engine
    event.listen(engine, "before_cursor_execute", note)
    try:
        lobby = game_server.client.get("/api/tables?kind=match").json()
    finally:
        event.remove(engine, "before_cursor_execute", note)
    assert [row["table"] for row in lobby["playing"]] == tables[::-1]
    assert all(None not in row["players"] for row in lobby["playing"]), "every player named"
    assert len({name for row in lobby["playing"] for name in row["players"]}) == 8
    assert sum("FROM users" in statement for statement in statements) == 1, statements


def test_an_abandoned_game_against_the_computer_is_forfeited_by_its_human(game_server: Server) -> None:
    service = game_server.app.state.tables
    guest = game_server.guest()
    table = _computer_game(game_server, guest)
    timed = _computer_game(game_server, guest, move_seconds=60)
    now = game_server.app.state.clock.now()
    almost = now + timedelta(seconds=service.computer_idle_seconds - 60)
    assert game_server.client.portal.call(service.end_abandoned, almost) == []

    later = now + timedelta(seconds=service.computer_idle_seconds + 1)
    assert game_server.client.portal.call(service.end_abandoned, later) == [table], "a timed game is left to its clock"
    final = guest.wait(lambda s: s["status"] == "finished", table)
    assert final["match"]["winner"] == 1 and final["match"]["ended_by"] == "forfeit"
    forfeit = [e for e in guest.events[table] if e["kind"] == "forfeited"]
    assert forfeit == [{**forfeit[0], "seat": 0, "payload": {"reason": "abandoned"}}]
    assert game_server.record(table)["events"][-1]["kind"] == "match_ended"
    assert [row["table"] for row in guest.client.get("/api/me/tables").json()["tables"]] == [timed]
    assert game_server.client.portal.call(service.end_abandoned, later) == []


def test_only_one_process_claims_an_idle_table(game_server: Server) -> None:
    """Every process sweeps; the conditional UPDATE lets exactly one of them end a given table."""
    guest = game_server.guest()
    table = _computer_game(game_server, guest)
    later = game_server.app.state.clock.now() + timedelta(hours=2)
    with game_server.app.state.db() as db:
        [idle] = tables_repo.idle_computer_tables(db, active_before=later - timedelta(hours=1))
        assert idle.table_id == table
        assert tables_repo.claim_idle(db, idle, now=later) is True
        assert tables_repo.claim_idle(db, idle, now=later) is False
    assert guest.state(table)["status"] == "playing"
