"""A chouette through the real app: HTTP routes, four players on WebSockets, the team channel, clocks, dice.

The dice are scripted where the test needs them (the formation, each roll a
player asks for) and come from a seeded generator otherwise (the opening
rolls the server makes between games), so every run plays the same games.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

import pytest

from nardy.notation.dice_record import verify_record
from nardy.server.services.chouette_state import fold, initial_state
from nardy.server.services.chouettes import chouette_spec_from_row
from nardy.server.services.table_state import NewEvent
from nardy.store import tables_repo
from tests.server.chouette_driver import FallbackDice, Table, make_chouette_game_server, three_at_a_chouette


def _score_sums(results: list[dict[str, Any]]) -> Counter[int]:
    sums: Counter[int] = Counter()
    for result in results:
        assert sum(points for _, points in result["points"]) == 0
        for player, points in result["points"]:
            sums[player] += points
    return sums


def _team_messages(player: Any) -> list[dict[str, Any]]:
    player.drain()
    return [m for m in player.other if m.get("t") == "team"]


@pytest.fixture
def chouette_game_server(make_game_server):
    return make_chouette_game_server(make_game_server)


def test_a_chouette_session_of_four_through_the_websocket(chouette_game_server) -> None:
    server = chouette_game_server
    ann, bob, cat, dan = (server.player(name) for name in ("ann7", "bob7", "cat7", "dan7"))
    eve = server.player("eve7")  # watches, then joins in game 2
    visitor = server.player(sign_up=False)
    created = ann.post("/api/chouettes", {"max_players": 6, "options": {"jacoby": False}})
    assert created.status_code == 201, created.text
    view = created.json()
    table = view["table"]
    assert (view["kind"], view["status"], view["max_players"]) == ("chouette", "waiting", 6)
    for player in (bob, cat, dan):
        response = player.post(f"/api/chouettes/{table}/join", {"client_seed": f"{player.name}-seed"})
        assert response.status_code == 200, response.text
    assert bob.post(f"/api/chouettes/{table}/join").status_code == 200  # already seated: the view
    for player in (ann, bob, cat, dan, eve, visitor):
        assert player.subscribe(table)["t"] == "sync"
    t = Table(server, [ann, bob, cat, dan], eve, table)
    ids = {p.name: p.user["id"] for p in (ann, bob, cat, dan, eve)}
    A, B, C, D, E = (ids[n] for n in ("ann7", "bob7", "cat7", "dan7", "eve7"))
    assert [p["role"] for p in t.state()["players"]] == ["seated"] * 4

    # ----- forming: Ann and Bob tie on 6 and roll again; Bob takes the box, Ann is captain.
    t.refused(eve, "start", "not_seated")
    server.push((6, 6), (3, 2), (2, 5), (1, 6))  # round 1 (Ann, Bob, Cat, Dan), round 2 (Ann, Bob), opening
    state = t.ok(cat, "start")
    assert state["status"] == "playing"
    assert state["formation"] == {"to_roll": [], "rolls": [[[A, 6], [B, 6], [C, 3], [D, 2]], [[A, 2], [B, 5]]]}
    roles = {p["user_id"]: p["role"] for p in state["players"]}
    assert roles == {B: "box", A: "captain", C: "member", D: "member"}
    game = state["game"]
    assert (game["number"], game["box"], game["captain"], game["turn"], game["dice"]) == (1, B, A, "team", [6, 1])
    kinds = [e["kind"] for e in ann.events[table]]
    assert kinds.count("formation_rolled") == 2 and "formed" in kinds and kinds[-1] == "opening_rolled"

    # ----- refusals change nothing
    t.refused(cat, "move", "not_your_turn", steps=[{"source": 13, "target": 7, "die": 6}, {"source": 8, "target": 7, "die": 1}])
    t.refused(bob, "vote", "illegal", agree=True)
    t.refused(eve, "roll", "not_seated")
    t.refused(bob, "team_say", "not_on_team", text="I am the box")
    reply = visitor.act("roll", table)
    assert reply["code"] == "not_signed_in"
    t.refused(ann, "beaver", "unknown_action")
    t.move()

    # ----- the box doubles: Ann and Dan take, Cat passes
    state = t.ok(bob, "double")
    assert state["game"]["phase"] == "box_doubled" and state["game"]["awaiting"] == [A, C, D]
    t.ok(ann, "take")
    t.refused(ann, "take", "not_your_turn")
    t.ok(cat, "drop")
    state = t.ok(dan, "take")
    stakes = {s["member"]: s for s in state["game"]["stakes"]}
    assert (stakes[A]["value"], stakes[A]["owner"], stakes[D]["value"]) == (2, "member", 2)
    assert (stakes[C]["result"], stakes[C]["how"]) == (-1, "passed")
    t.roll((2, 1))
    t.move()

    # ----- the team channel: the members hear it, the box and the spectator do not
    for player in t.everyone:
        player.drain()
        player.other.clear()
    reply = ann.act("team_say", table, text="double now?", suggest="double")
    assert reply["t"] == "ack" and reply["version"] == t.state()["version"]
    for member in (ann, cat, dan):
        heard = _team_messages(member)
        assert heard == [{"t": "team", "table": table, "from": A, "name": "ann7", "text": "double now?",
                          "suggest": "double", "steps": None}], member.name
    assert _team_messages(bob) == [] and _team_messages(eve) == [] and _team_messages(visitor) == []
    assert all(e["kind"] != "team_say" for e in ann.events[table])

    # ----- a team double refused by Dan, then offered unanimously: the box takes Ann's cube, passes Dan's
    state = t.ok(ann, "double")
    assert state["game"]["phase"] == "team_vote" and state["game"]["awaiting"] == [D]
    t.refused(cat, "vote", "not_your_turn", agree=True)  # Cat is out of this game
    state = t.ok(dan, "vote", agree=False)
    assert state["game"]["phase"] == "rolling" and state["game"]["awaiting"] == [A]
    t.ok(ann, "double")
    state = t.ok(dan, "vote", agree=True)
    assert state["game"]["phase"] == "team_doubled" and state["game"]["awaiting"] == [B]
    state = t.ok(bob, "box_answer", takes=[A])
    stakes = {s["member"]: s for s in state["game"]["stakes"]}
    assert (stakes[A]["value"], stakes[A]["owner"]) == (4, "box")
    assert (stakes[D]["result"], stakes[D]["how"]) == (2, "dropped-by-box")
    assert state["game"]["acting_captain"] == A

    # ----- the team races home and wins game 1
    state = t.race_to_the_end(fast="team")
    first = state["results"][0]
    assert first["number"] == 1 and first["team_won"] and first["box"] == B and first["captain"] == A
    points = dict(map(tuple, first["points"]))
    assert points[C] == -1 and points[D] == 2 and points[A] in (4, 8, 12)
    assert points[B] == -(points[A] + 1)
    roles = {p["user_id"]: p["role"] for p in state["players"]}
    assert roles == {A: "box", C: "captain", D: "member", B: "member"}  # the captain took the box
    assert [p["user_id"] for p in state["players"]] == [A, C, D, B]
    assert state["game"]["number"] == 2

    # ----- Eve sits down during game 2 and joins the team when it ends; the box wins game 2
    response = eve.post(f"/api/chouettes/{table}/join")
    assert response.status_code == 200
    eve_role = {p["user_id"]: p["role"] for p in response.json()["players"]}[E]
    assert eve_role == "joining"
    for player in t.everyone:
        player.catch_up(response.json()["version"], table)
    state = t.race_to_the_end(fast="box")
    second = state["results"][1]
    assert second["number"] == 2 and not second["team_won"] and second["box"] == A
    points = dict(map(tuple, second["points"]))
    assert points[A] > 0 and points[C] == points[D] == points[B] < 0
    assert [p["user_id"] for p in state["players"]] == [A, D, B, C, E]  # the box stays, the captain goes last
    assert state["players"][1]["role"] == "captain" and state["players"][4]["role"] == "member"

    # ----- game 3: the box resigns at once; scored from the position to every member
    state = t.ok(ann, "resign")
    third = state["results"][2]
    assert third["team_won"] and third["box"] == A and third["kind"] is None  # no board result: a resignation
    # The box has borne off nothing and still has its back checkers in the team's home board: a backgammon.
    assert dict(map(tuple, third["points"])) == {A: -12, D: 3, B: 3, C: 3, E: 3}
    assert [p["user_id"] for p in state["players"]] == [D, B, C, E, A]

    # ----- the running score is the sum of the results
    sums = _score_sums(state["results"])
    assert {p["user_id"]: p["score"] for p in state["players"]} == sums
    assert {s["user_id"]: s["score"] for s in state["scores"]} == sums
    fetched = server.view_chouette(table)
    assert fetched == {**t.state(), "server_time": fetched["server_time"]}

    # ----- every game's seed is revealed and matches its commitment; the record covers the formation
    ended = [e for e in ann.events[table] if e["kind"] in ("game_ended", "formed")]
    assert [e["payload"]["number"] for e in ended] == [0, 1, 2, 3]
    for event in ended:
        seed = event["payload"]["seed"]
        assert hashlib.sha256(bytes.fromhex(seed)).hexdigest() == event["payload"]["commitment"]
    record = server.record(table)
    assert [g["number"] for g in record["games"]] == [0, 1, 2, 3, 4]
    assert [r["number"] for r in record["games"][0]["rolls"]] == [0, 1, 2]
    assert ann.gaps == [] and eve.gaps == []


def test_fair_dice_verify_from_the_record_of_a_chouette(make_game_server) -> None:
    server = make_game_server(dice="fair")
    players = [server.guest() for _ in range(3)]
    table = players[0].post("/api/chouettes", {"max_players": 3}).json()["table"]
    for player in players[1:]:
        assert player.post(f"/api/chouettes/{table}/join").status_code == 200
    assert players[2].post(f"/api/chouettes/{table}/join").status_code == 200
    fourth = server.guest()
    assert fourth.post(f"/api/chouettes/{table}/join").status_code == 409  # three places: full
    players[0].subscribe(table)
    state = players[0].state()
    players[0].ok("start", table)
    state = players[0].wait(lambda s: s["status"] == "playing")
    box = next(p for p in players if p.user["id"] == state["game"]["box"])
    if box is not players[0]:
        box.subscribe(table)
    box.ok("resign", table)
    record = server.record(table)
    assert len(record["games"]) == 3 and record["games"][1]["seed"] is not None
    assert verify_record({"games": record["games"][:2]}) == []


def test_the_lobby_lists_chouettes_and_each_service_keeps_to_its_own_kind(game_server) -> None:
    ann = game_server.guest()
    chouette = ann.post("/api/chouettes", {"max_players": 4, "move_seconds": 30}).json()["table"]
    match = game_server.create(ann, "backgammon")["table"]
    for route in ("/api/lobby", "/api/tables"):
        lobby = game_server.client.get(route).json()
        entries = {e["table"]: e for e in lobby["waiting"]}
        assert entries[chouette]["kind"] == "chouette" and entries[chouette]["max_players"] == 4
        assert entries[chouette]["players"] == [ann.user["username"]]
        assert entries[match]["kind"] == "match"
    assert game_server.client.get(f"/api/tables/{chouette}").status_code == 404
    assert ann.post(f"/api/tables/{chouette}/join").status_code == 404
    assert game_server.client.get(f"/api/chouettes/{match}").status_code == 404
    assert game_server.client.get("/api/chouettes/nothing").status_code == 404
    assert game_server.client.get(f"/api/tables/{chouette}/replay").status_code == 404
    assert ann.post("/api/chouettes", {"max_players": 9}).status_code == 422
    assert ann.post("/api/chouettes", {"options": {"beavers": True}}).status_code == 422
    ann.subscribe(match)
    assert ann.act("vote", match, agree=True)["code"] == "unknown_action"
    ann.subscribe(chouette)
    assert ann.act("start", chouette)["code"] == "illegal"  # one player is not enough
    ann.ok("leave", chouette)
    assert ann.state(chouette)["status"] == "closed"
    assert chouette not in {e["table"] for e in game_server.client.get("/api/lobby").json()["waiting"]}
    late = game_server.player()
    refused = late.post(f"/api/chouettes/{chouette}/join")
    assert refused.status_code == 409 and "closed" in refused.json()["detail"], refused.text
    assert ann.post(f"/api/chouettes/{chouette}/join").status_code == 409, "nor does one who left sit again"
    assert game_server.client.get(f"/api/chouettes/{chouette}").json()["status"] == "closed"


def test_members_silent_on_the_box_double_pass_when_the_clock_runs_out(chouette_game_server) -> None:
    server = chouette_game_server
    players = [server.guest() for _ in range(3)]
    table = players[0].post("/api/chouettes", {"max_players": 3, "move_seconds": 1}).json()["table"]
    for player in players[1:]:
        player.post(f"/api/chouettes/{table}/join")
    for player in players:
        player.subscribe(table)
    server.push((6, 5), (4, 1), (6, 1))  # box: the first seated; the box opens with 6-1
    players[2].ok("start", table)
    t = Table(server, players, players[0], table)
    box = t.by_id[t.game()["box"]]
    assert box is players[0] and t.game()["turn"] == "box"
    t.move()
    t.roll((1, 2))
    t.move()
    t.ok(box, "double")
    state = box.wait(lambda s: s["game"] is None or s["game"]["phase"] != "box_doubled", timeout=4.0)
    kinds = [e["kind"] for e in box.events[table]]
    assert kinds[kinds.index("timed_out"):][:3] == ["timed_out", "dropped", "dropped"]
    assert state["results"][0]["points"] == [[players[0].user["id"], 2], [players[1].user["id"], -1],
                                              [players[2].user["id"], -1]]


def test_a_restarted_server_folds_the_chouette_back_identically(make_game_server) -> None:
    server = make_game_server(dice=FallbackDice())
    players = [server.player() for _ in range(4)]
    table = players[0].post("/api/chouettes", {"move_seconds": 60}).json()["table"]
    for player in players[1:]:
        player.post(f"/api/chouettes/{table}/join")
    for player in players:
        player.subscribe(table)
    server.push((5, 6), (3, 2), (6, 1))  # the second seated takes the box and opens with 6-1
    players[0].ok("start", table)
    t = Table(server, players, players[0], table)
    assert t.game()["box"] == players[1].user["id"]
    t.move()
    t.roll((4, 2))
    t.move()
    t.ok(players[1], "double")
    members = [t.by_id[m] for m in t.game()["awaiting"]]
    t.ok(members[0], "take")  # the others have not answered yet
    before = server.client.get(f"/api/chouettes/{table}").json()
    with server.app.state.db() as db:
        row = tables_repo.get_table(db, table)
        events = [(NewEvent(e.kind, e.seat, e.payload), e.at) for e in tables_repo.events_after(db, table)]
    folded = fold(initial_state(table, chouette_spec_from_row(row)), events)
    assert folded.version == before["version"] and folded.deadline is not None

    server.stop()
    again = make_game_server(dice=FallbackDice(), data_dir=server.data_dir)
    after = again.client.get(f"/api/chouettes/{table}").json()
    assert after == {**before, "server_time": after["server_time"]}
    assert after["game"]["phase"] == "box_doubled" and after["deadline"] == before["deadline"]
    # Play goes on after the restart: the last members answer, and a repeated action id changes nothing.
    watcher = again.player(sign_up=False)
    assert watcher.subscribe(table)["version"] == before["version"]
    rest = members[1:]
    for before_restart in rest:
        player = again.player(sign_up=False, connect=False)  # the same browser, back after the restart
        player.client.cookies = before_restart.client.cookies
        player.connect()
        player.subscribe(table)
        player.ok("drop", table, action_id="drop-1")
        assert player.ok("drop", table, action_id="drop-1")["version"] == player.version(table)
    final = again.client.get(f"/api/chouettes/{table}").json()
    assert final["game"]["phase"] == "rolling" and final["version"] == before["version"] + len(rest)


def test_my_games_lists_the_chouettes_i_play_in_until_i_leave(game_server) -> None:
    ann, ben, cat = game_server.guest(), game_server.guest(), game_server.guest()
    chouette = ann.post("/api/chouettes", {"max_players": 4}).json()["table"]
    assert ben.post(f"/api/chouettes/{chouette}/join").status_code == 200
    match = game_server.create(ben, "backgammon")["table"]

    def mine(player: Any) -> dict[str, str]:
        return {row["table"]: row["kind"] for row in player.client.get("/api/me/tables").json()["tables"]}

    assert mine(ann) == {chouette: "chouette"}
    assert mine(ben) == {chouette: "chouette", match: "match"}
    assert mine(cat) == {}
    ben.subscribe(chouette)
    ben.ok("leave", chouette)
    assert mine(ben) == {match: "match"}
    assert mine(ann) == {chouette: "chouette"}


def test_a_closed_chouette_is_in_the_game_history_of_each_who_played_with_their_points(make_game_server) -> None:
    """A chouette is finished when its last player leaves; one closed before any game was played is no history."""
    server = make_game_server(dice="fair")
    players, table = three_at_a_chouette(server)
    players[0].ok("start", table)
    state = players[0].wait(lambda s: s["status"] == "playing")
    box = next(p for p in players if p.user["id"] == state["game"]["box"])
    box.ok("resign", table)
    assert server.client.get(f"/api/users/{box.user['username']}/games").json()["tables"] == []  # not closed yet
    for player in players:
        player.ok("leave", table)  # during the second game: each leaves when it ends
    second = players[0].state(table)["game"]["box"]
    next(p for p in players if p.user["id"] == second).ok("resign", table)
    assert players[0].wait(lambda s: s["status"] == "closed")
    empty = players[0].post("/api/chouettes", {"max_players": 3}).json()["table"]
    players[0].subscribe(empty)
    players[0].ok("leave", empty)

    rows = {}
    for player in players:
        [row] = player.client.get(f"/api/users/{player.user['username']}/games").json()["tables"]
        assert row["table"] == table and row["kind"] == "chouette" and row["finished_at"] is not None
        assert row["score"]["games"] >= 1
        rows[player.user["id"]] = row["points"]
    assert rows[box.user["id"]] < 0 and sum(rows.values()) == 0  # the box resigned to every member
