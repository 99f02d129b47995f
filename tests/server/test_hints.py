"""Hints in games against the computer, and the analysis board, through the API."""

from __future__ import annotations

from collections.abc import Callable

from nardy.notation import position_from_dict, position_id
from nardy.rules import Position
from tests.server.game_server import GameServer, Player


def _my_turn(player: Player, table: str, phase: str) -> None:
    player.wait(lambda s: s["actor"] == 0 and s["game"] is not None and s["game"]["phase"] == phase, table)


def test_a_hint_ranks_the_legal_plays_of_the_roll(game_server: GameServer) -> None:
    alice = game_server.player()
    game_server.push((6, 1), (3, 1))  # alice opens with 6-1
    table = game_server.create(alice, "backgammon", 1, opponent="computer", bot_level="random")["table"]
    alice.subscribe(table)
    _my_turn(alice, table, "moving")
    answer = alice.post(f"/api/tables/{table}/hint", {"level": "advanced"})
    assert answer.status_code == 200, answer.text
    hint = answer.json()
    assert hint["dice"] == [6, 1] and hint["cube"] is None
    assert hint["plays"][0]["text"] == "13/7 8/7", "the textbook opening 6-1"
    equities = [p["equity"] for p in hint["plays"]]
    assert equities == sorted(equities, reverse=True) and len(equities) == 5
    legal = {p.position for p in Position.start("backgammon").legal_plays((6, 1))}
    assert all(position_from_dict(p["position"]) in legal for p in hint["plays"])


def test_the_cube_hint_before_a_roll(game_server: GameServer) -> None:
    alice = game_server.player()
    game_server.push((6, 1), (2, 1), (5, 5))
    table = game_server.create(alice, "backgammon", 0, opponent="computer", bot_level="random",
                          options={"cube": True})["table"]
    alice.subscribe(table)
    _my_turn(alice, table, "moving")
    alice.ok("move", table, steps=[{"source": 13, "target": 7, "die": 6}, {"source": 8, "target": 7, "die": 1}])
    _my_turn(alice, table, "rolling")
    cube = alice.post(f"/api/tables/{table}/hint", {"level": "advanced"}).json()["cube"]
    assert cube is not None and cube["should_double"] is False, "no double after one exchange of the opening"
    assert cube["double_pass"] == 1.0


def test_no_hints_against_a_person_in_a_rated_game_or_out_of_turn(game_server: GameServer) -> None:
    table, (alice, bob) = game_server.match("georgian", 1)
    assert alice.post(f"/api/tables/{table}/hint").status_code == 403, "the opponent is a person"
    outsider = game_server.player()
    assert outsider.post(f"/api/tables/{table}/hint").status_code == 403
    carol = game_server.player()
    game_server.push((2, 1), (6, 5))  # the computer opens: not carol's decision
    bot_table = game_server.create(carol, "georgian", 1, opponent="computer", bot_level="random")["table"]
    carol.subscribe(bot_table)
    state = carol.wait(lambda s: s["actor"] is not None, bot_table)
    if state["actor"] != 0:
        assert carol.post(f"/api/tables/{bot_table}/hint").status_code == 409
    assert alice.post("/api/tables/nosuchtable/hint").status_code == 404


def test_the_analysis_board_reads_every_kind_of_position(make_game_server: Callable[..., GameServer]) -> None:
    server = make_game_server()
    anyone = server.player(sign_up=False, connect=False)

    def board(**body: object) -> dict[str, object]:
        answer = anyone.post("/api/analysis/position", {"level": "advanced", **body})
        assert answer.status_code == 200, answer.text
        data: dict[str, object] = answer.json()
        return data

    start = board(variant="backgammon", position="start", dice=[3, 1])
    assert start["plays"][0]["text"] == "8/5 6/5"  # type: ignore[index]
    by_id = board(variant="backgammon", position=position_id(Position.start("backgammon")), dice=[3, 1])
    assert by_id["plays"] == start["plays"]
    xgid = board(variant="backgammon", position="XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10")
    assert xgid["dice"] == [3, 1] and xgid["plays"][0]["text"] == "8/5 6/5"  # type: ignore[index]
    long = board(variant="long-traditional", position="start", dice=[6, 5])
    assert long["plays"] and long["variant"] == "long-traditional"
    cube = board(variant="backgammon", position="start", cube=True)
    assert cube["plays"] == [] and cube["cube"]["should_double"] is False  # type: ignore[index]
    for wrong in ({"position": "nonsense"}, {"variant": "chess"}, {"variant": "long-bolshie", "cube": True},
                  {"dice": [7, 1]}):
        refused = anyone.post("/api/analysis/position", {"variant": "backgammon", "position": "start", **wrong})
        assert refused.status_code == 422, (wrong, refused.text)


def test_the_analysis_board_is_rate_limited(make_game_server: Callable[..., GameServer]) -> None:
    server = make_game_server(rate_limits=True, board_requests_per_address="2 per minute")
    anyone = server.player(sign_up=False, connect=False)
    body = {"variant": "georgian", "position": "start", "dice": [2, 1], "level": "advanced"}
    assert [anyone.post("/api/analysis/position", body).status_code for _ in range(3)] == [200, 200, 429]


def test_plakoto_hints_come_from_its_network(game_server: GameServer) -> None:
    """Plakoto's computer player is its network (docs/strength.md): hints and the analysis board rate its plays."""
    alice = game_server.player()
    game_server.push((6, 1), (3, 1))  # alice wins the opening and rolls 3-1 (tavli's opening winner rolls again)
    table = game_server.create(alice, "plakoto", 1, opponent="computer", bot_level="random")["table"]
    alice.subscribe(table)
    _my_turn(alice, table, "rolling")
    alice.ok("roll", table)
    _my_turn(alice, table, "moving")
    answer = alice.post(f"/api/tables/{table}/hint", {"level": "advanced"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["plays"] and answer.json()["dice"] == [3, 1]
    board = alice.post("/api/analysis/position", {"variant": "plakoto", "position": "start", "dice": [3, 1]}).json()
    assert board["plays"] and "unavailable" not in board and board["position"]["variant"] == "plakoto"


def test_hints_and_the_board_offer_the_levels_of_the_variants_engine(make_game_server: Callable[..., GameServer]) -> None:
    """nardy.bots.hints.analysis_offer: fevga is rated by long nardy's network, world-class at 2 plies;
    a level the variant does not offer is refused (422), its own levels answer."""
    anyone = make_game_server().player(sign_up=False, connect=False)
    body = {"variant": "fevga", "position": "start", "dice": [6, 5]}
    refused = anyone.post("/api/analysis/position", {**body, "level": "grandmaster"})
    assert refused.status_code == 422
    for level in ("advanced", "expert", "world-class"):
        answer = anyone.post("/api/analysis/position", {**body, "level": level})
        assert answer.status_code == 200 and answer.json()["plays"], answer.text
    assert anyone.post("/api/analysis/position", body).status_code == 200  # no level: the variant's default
