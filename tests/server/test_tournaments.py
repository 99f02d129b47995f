"""Tournaments through the real app: a knockout and a Swiss run to the end, registration rules, withdrawals,
computer players filling a sit-and-go, and the game protocol (001) of every game.

Matches are long nardy to one point. The player meant to win moves once,
then the loser resigns: in long nardy the game ends at once, a mars at the
start, so each match takes a handful of actions and still has moves to record.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from nardy.notation import position_from_dict
from nardy.store import tournaments_repo
from nardy.store.models import GameTable, TournamentPairing

ROUND = {"match_length": 1, "delay_seconds": 30, "bank_seconds_per_point": 60}


@pytest.fixture
def game_server(make_game_server):
    return make_game_server(tournament_sweep_seconds=0.05)


def organise(server, organiser, **body: Any) -> dict[str, Any]:
    settings = {"name": "Spring cup", "season": "2027", "format": "knockout", "variant": "long-bolshie", "round": ROUND,
                "max_players": 4, **body}
    response = organiser.post("/api/tournaments", settings)
    assert response.status_code == 201, response.text
    return response.json()


def view(server, tournament: str) -> dict[str, Any]:
    response = server.client.get(f"/api/tournaments/{tournament}")
    assert response.status_code == 200, response.text
    return response.json()


def wait_for(server, tournament: str, predicate, timeout: float = 10.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        current = view(server, tournament)
        if predicate(current):
            return current
        assert time.monotonic() < deadline, f"the tournament did not get there: {current}"
        time.sleep(0.05)


def undecided_tables(current: dict[str, Any]) -> list[dict[str, Any]]:
    """The pairings of the current round waiting for their match, once every one of them has its table."""
    if not current["rounds_played"]:
        return []
    pairings = current["rounds_played"][-1]["pairings"]
    waiting = [p for p in pairings if p["result"] is None]
    return waiting if all(p["table"] for p in waiting) else []


def play_match(server, table: str, winner, loser) -> None:
    """``winner`` moves once if it is their turn to move, then ``loser`` resigns: the match is over."""
    server.top_up()
    for player in (winner, loser):
        player.subscribe(table)
    state = winner.wait(lambda s: s["status"] == "playing" and s["game"] is not None
                        and s["game"]["phase"] in ("moving", "rolling"), table)
    seat = next(i for i, s in enumerate(state["seats"]) if s["name"] == winner.name)
    if state["actor"] == seat and state["game"]["phase"] == "moving":
        position = position_from_dict(state["game"]["boards"][seat])
        plays = position.legal_plays(tuple(state["game"]["dice"]))
        if plays:
            steps = [{"source": s.source, "target": s.target, "die": s.die} for s in plays[0].steps]
            winner.ok("move", table, steps=steps)
            loser.catch_up(winner.version(table), table)
    loser.ok("resign", table)
    winner.wait(lambda s: s["status"] == "finished", table)


def run(server, tournament: str, players: dict[str, Any], choose_winner) -> dict[str, Any]:
    """Play every round until the tournament finishes; ``choose_winner(a, b)`` names who wins each match."""
    while True:
        current = wait_for(server, tournament, lambda t: t["status"] == "finished" or undecided_tables(t))
        if current["status"] == "finished":
            return current
        for pairing in undecided_tables(current):
            a, b = players[pairing["a"]["name"]], players[pairing["b"]["name"]]
            winner = choose_winner(pairing["a"], pairing["b"])
            play_match(server, pairing["table"], *((a, b) if winner == pairing["a"]["name"] else (b, a)))
        round_number = current["current_round"]
        wait_for(server, tournament, lambda t, n=round_number: t["status"] == "finished" or t["current_round"] > n)


def better_seed(a: dict[str, Any], b: dict[str, Any]) -> str:
    return str(a["name"] if a["seed"] < b["seed"] else b["name"])


def test_a_four_player_knockout_runs_to_the_end_with_its_protocol(game_server) -> None:
    people = [game_server.player() for _ in range(4)]
    final_round = {"match_length": 1, "move_seconds": 45}
    tournament = organise(game_server, people[0], per_round=[ROUND, final_round])["id"]
    for person in people:
        game_server.top_up()
        reply = person.post(f"/api/tournaments/{tournament}/register")
        assert reply.status_code == 200, reply.text
    started = view(game_server, tournament)
    assert started["status"] == "running" and started["rounds"] == 2
    first_round = started["rounds_played"][0]["pairings"]
    assert [(p["a"]["seed"], p["b"]["seed"]) for p in first_round] == [(1, 4), (2, 3)]

    final = run(game_server, tournament, {p.name: p for p in people}, better_seed)

    seeds = {e["name"]: e["seed"] for e in final["entries"]}
    assert [seeds[row["name"]] for row in final["standings"]][:2] == [1, 2]
    assert final["standings"][0]["wins"] == 2
    assert [len(r["pairings"]) for r in final["rounds_played"]] == [2, 1]
    final_table = game_server.view(final["rounds_played"][1]["pairings"][0]["table"])
    assert final_table["move_seconds"] == 45 and final_table["delay_seconds"] is None  # the final's own clock

    protocol = game_server.client.get(f"/api/tournaments/{tournament}/protocol.json").json()
    games = protocol["games"]
    assert [g["number"] for g in games] == [1, 2, 3]
    assert [g["round"] for g in games] == [1, 1, 2]
    for game in games:
        assert game["tournament"] == "Spring cup" and game["season"] == "2027"
        assert game["date"] and game["white"] in game["players"] and game["started"] in game["players"]
        assert game["moves"][0]["action"] == "opening"
        assert any(m["action"] == "resign" for m in game["moves"])
        assert game["result"]["kind"] == "mars" and game["result"]["reason"] == "resigned"
        assert game["result"]["winner"] in game["players"]
        assert sorted(game["score"]) == [0, 2]
    mat = game_server.client.get(f"/api/tournaments/{tournament}/protocol.mat")
    assert mat.status_code == 200
    assert mat.text.count('; [Event "Spring cup"]') == 3 and mat.text.count("1 point match") == 3


def test_an_eight_player_swiss_runs_to_the_end(game_server) -> None:
    people = [game_server.player() for _ in range(8)]
    tournament = organise(game_server, people[0], format="swiss", max_players=8, rounds=3, rated=True)["id"]
    for person in people:
        game_server.top_up()
        assert person.post(f"/api/tournaments/{tournament}/register").status_code == 200
    order = {p.name: i for i, p in enumerate(people)}

    final = run(game_server, tournament, {p.name: p for p in people},
                lambda a, b: min(a["name"], b["name"], key=order.__getitem__))

    rounds = final["rounds_played"]
    assert len(rounds) == 3 and all(len(r["pairings"]) == 4 for r in rounds)
    met = [frozenset((p["a"]["entry"], p["b"]["entry"])) for r in rounds for p in r["pairings"]]
    assert len(met) == len(set(met)), "a pairing repeated"
    for r in rounds:
        seen = [side["entry"] for p in r["pairings"] for side in (p["a"], p["b"])]
        assert len(seen) == len(set(seen)) == 8
    table = final["standings"]
    assert table[0]["name"] == people[0].name and table[0]["points"] == 3
    assert [row["points"] for row in table] == sorted((row["points"] for row in table), reverse=True)
    assert sum(row["points"] for row in table) == 12
    games = game_server.client.get(f"/api/tournaments/{tournament}/protocol.json").json()["games"]
    assert len(games) == 12 and {g["round"] for g in games} == {1, 2, 3}
    assert game_server.view(games[0]["table"])["rated"]  # a rated tournament's tables between people are rated
    ratings = game_server.client.get(f"/api/users/{people[0].name}/ratings").json()["ratings"]["long"]
    assert ratings["matches"] == 3 and ratings["rating"] > 1500


def test_registration_rules(game_server) -> None:
    alice, bob, carol = game_server.player(), game_server.player(), game_server.player()
    guest = game_server.guest()
    assert guest.post("/api/tournaments", {"name": "x", "format": "swiss", "variant": "long-bolshie"}).status_code == 403
    no_clock = {"name": "x", "format": "swiss", "variant": "long-bolshie", "round": {"match_length": 1}}
    assert alice.post("/api/tournaments", no_clock).status_code == 422
    tournament = organise(game_server, alice, max_players=2)["id"]
    assert guest.post(f"/api/tournaments/{tournament}/register").status_code == 403
    assert alice.post(f"/api/tournaments/{tournament}/register").status_code == 200
    assert alice.post(f"/api/tournaments/{tournament}/register").status_code == 409
    assert alice.post(f"/api/tournaments/{tournament}/withdraw").status_code == 200
    assert alice.post(f"/api/tournaments/{tournament}/withdraw").status_code == 409
    assert view(game_server, tournament)["players"] == 0
    game_server.top_up()
    assert alice.post(f"/api/tournaments/{tournament}/register").status_code == 200
    assert bob.post(f"/api/tournaments/{tournament}/register").status_code == 200
    assert view(game_server, tournament)["status"] == "running"
    assert carol.post(f"/api/tournaments/{tournament}/register").status_code == 409
    assert game_server.client.get("/api/tournaments/nope").status_code == 404
    listing = game_server.client.get("/api/tournaments").json()
    assert [t["id"] for t in listing["running"]] == [tournament]


def test_an_organiser_holds_at_most_the_cap_of_tournaments_not_yet_started(make_game_server) -> None:
    server = make_game_server(tournament_sweep_seconds=0.05, max_open_tournaments=2)
    alice = server.player()
    first = organise(server, alice)["id"]
    organise(server, alice)
    refused = alice.post("/api/tournaments", {"name": "Third", "format": "knockout", "variant": "long-bolshie",
                                              "round": ROUND, "max_players": 4})
    assert refused.status_code == 409 and "2 tournaments that have not started" in refused.json()["detail"]
    assert alice.post(f"/api/tournaments/{first}/cancel").status_code == 200
    organise(server, alice, name="Third")


def test_a_withdrawal_forfeits_the_match_and_the_rest_of_a_round_robin(game_server) -> None:
    people = [game_server.player() for _ in range(3)]
    tournament = organise(game_server, people[0], format="round_robin", max_players=3)["id"]
    for person in people:
        game_server.top_up()
        assert person.post(f"/api/tournaments/{tournament}/register").status_code == 200
    started = view(game_server, tournament)
    assert started["rounds"] == 3
    playing = next(p for p in started["rounds_played"][0]["pairings"] if p["b"] is not None)
    leaver = next(p for p in people if p.name == playing["a"]["name"])
    assert leaver.post(f"/api/tournaments/{tournament}/withdraw").status_code == 200
    others = {p.name: p for p in people if p is not leaver}

    final = run(game_server, tournament, others, better_seed)

    results = [p["result"] for r in final["rounds_played"] for p in r["pairings"]]
    assert sorted(results) == ["bye", "bye", "bye", "forfeit", "played", "played"]
    last = final["standings"][-1]
    assert last["name"] == leaver.name and last["withdrawn"] and last["points"] == 0  # a withdrawn player's bye counts nothing
    games = game_server.client.get(f"/api/tournaments/{tournament}/protocol.json").json()["games"]
    forfeited = [g for g in games if g["result"]["reason"] == "forfeit"]
    assert len(forfeited) == 1 and forfeited[0]["result"]["kind"] is None
    assert forfeited[0]["result"]["winner"] != leaver.name
    assert game_server.client.get(f"/api/tournaments/{tournament}/protocol.mat").status_code == 200


def test_a_scheduled_tournament_with_too_few_players_is_cancelled(game_server) -> None:
    alice = game_server.player(connect=False)
    later = datetime.now(UTC) + timedelta(hours=1)
    tournament = organise(game_server, alice, start="scheduled", starts_at=later.isoformat(), min_players=3)["id"]
    assert alice.post(f"/api/tournaments/{tournament}/register").status_code == 200
    # registered while the start was an hour away (a loaded machine once took longer than a start 0.3 s away),
    # then the start is moved near, with room for a slow request
    soon = datetime.now(UTC) + timedelta(seconds=1.5)
    assert patch(alice, tournament, starts_at=soon.isoformat()).status_code == 200
    cancelled = wait_for(game_server, tournament, lambda t: t["status"] == "cancelled")
    assert cancelled["rounds_played"] == [] and cancelled["finished_at"]
    assert [t["id"] for t in game_server.client.get("/api/tournaments").json()["finished"]] == [tournament]


def test_computer_players_fill_a_sit_and_go_when_allowed(game_server) -> None:
    alice = game_server.player()
    tournament = organise(game_server, alice, bots_fill=True, bot_level="random", fill_after_seconds=0)["id"]
    game_server.top_up(400)
    assert alice.post(f"/api/tournaments/{tournament}/register").status_code == 200
    started = view(game_server, tournament)
    assert started["status"] == "running"
    assert sorted(bool(e["bot"]) for e in started["entries"]) == [False, True, True, True]
    assert started["entries"][0]["name"] == alice.name  # people are seeded above computer players

    def feed(current: dict[str, Any]) -> bool:
        game_server.top_up(400)
        return current["status"] == "finished" or any(
            p["table"] and p["result"] is None and alice.name in (p["a"]["name"], p["b"]["name"])
            for r in current["rounds_played"] for p in r["pairings"]
        )

    current = wait_for(game_server, tournament, feed, timeout=30)
    mine = next(p for p in current["rounds_played"][-1]["pairings"] if p["a"]["name"] == alice.name)
    alice.subscribe(mine["table"])
    alice.wait(lambda s: s["game"] is not None and s["game"]["resign"] is not None, mine["table"])
    alice.ok("resign", mine["table"])
    final = wait_for(game_server, tournament, feed, timeout=60)
    while final["status"] != "finished":
        final = wait_for(game_server, tournament, lambda t: feed(t) and t["status"] == "finished", timeout=60)
    assert final["standings"][-1]["name"] == alice.name or final["standings"][-2]["name"] == alice.name
    assert len(game_server.client.get(f"/api/tournaments/{tournament}/protocol.json").json()["games"]) == 3


def test_two_processes_pair_a_round_once(make_game_server) -> None:
    first = make_game_server(tournament_sweep_seconds=0.02)
    second = make_game_server(tournament_sweep_seconds=0.02, data_dir=first.data_dir)
    people = [first.player(connect=False) for _ in range(4)]
    first.top_up(100)  # before anything can start: either process may open the tables
    second.top_up(100)
    starts = datetime.now(UTC) + timedelta(seconds=2)  # time for all four to register on a busy machine
    tournament = organise(first, people[0], start="scheduled", starts_at=starts.isoformat())["id"]
    for person in people:
        assert person.post(f"/api/tournaments/{tournament}/register").status_code == 200
    wait_for(second, tournament, lambda t: t["status"] == "running" and len(undecided_tables(t)) == 2)
    time.sleep(0.3)  # both processes keep sweeping: neither pairs or opens anything again
    second.stop()
    first.stop()

    with first.app.state.db() as db:
        assert db.scalar(select(func.count()).select_from(TournamentPairing)) == 2
        assert db.scalar(select(func.count()).select_from(GameTable)) == 2
        later = datetime.now(UTC)
        assert tournaments_repo.claim(db, tournament, owner="a", now=later, until=later + timedelta(seconds=5))
        assert not tournaments_repo.claim(db, tournament, owner="b", now=later, until=later + timedelta(seconds=5))
        tournaments_repo.release(db, tournament, owner="a")
        assert tournaments_repo.claim(db, tournament, owner="b", now=later, until=later)


@pytest.mark.slow
def test_players_who_do_not_come_lose_on_time(game_server) -> None:
    """Nobody comes to the final: the clock runs from the start, and the first to time out three times loses."""
    people = [game_server.player(connect=False) for _ in range(2)]
    tournament = organise(game_server, people[0], max_players=2, round={"match_length": 1, "move_seconds": 1})["id"]
    game_server.top_up(100)
    for person in people:
        assert person.post(f"/api/tournaments/{tournament}/register").status_code == 200
    final = wait_for(game_server, tournament, lambda t: t["status"] == "finished", timeout=20)
    pairing = final["rounds_played"][0]["pairings"][0]
    assert pairing["result"] == "played" and pairing["winner"] in (pairing["a"]["entry"], pairing["b"]["entry"])
    games = game_server.client.get(f"/api/tournaments/{tournament}/protocol.json").json()["games"]
    assert games[-1]["result"]["reason"] == "timeouts"
    assert any(move["action"] == "timeout" for move in games[-1]["moves"])


def test_the_organiser_may_cancel_before_the_start_and_nobody_else(game_server) -> None:
    alice, bob = game_server.player(connect=False), game_server.player(connect=False)
    tournament = organise(game_server, alice)["id"]
    assert bob.post(f"/api/tournaments/{tournament}/register").status_code == 200
    assert bob.post(f"/api/tournaments/{tournament}/cancel").status_code == 403
    assert view(game_server, tournament)["status"] == "registering"
    cancelled = alice.post(f"/api/tournaments/{tournament}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    assert alice.post(f"/api/tournaments/{tournament}/cancel").status_code == 409
    assert bob.post(f"/api/tournaments/{tournament}/register").status_code == 409  # nothing to join any more
    assert alice.post("/api/tournaments/nope/cancel").status_code == 404
    started = organise(game_server, alice, max_players=2)["id"]
    for person in (alice, bob):
        game_server.top_up()
        assert person.post(f"/api/tournaments/{started}/register").status_code == 200
    assert view(game_server, started)["status"] == "running"
    assert alice.post(f"/api/tournaments/{started}/cancel").status_code == 409  # under way: it is played out


def patch(player, tournament: str, **changes: Any):
    return player.client.patch(f"/api/tournaments/{tournament}", json=changes, headers=player.csrf())


def test_the_organiser_may_change_the_name_places_and_times_before_the_start(game_server) -> None:
    alice, bob = game_server.player(connect=False), game_server.player(connect=False)
    starts = datetime.now(UTC) + timedelta(hours=2)
    tournament = organise(game_server, alice, start="scheduled", starts_at=starts.isoformat(), max_players=8)["id"]
    later = starts + timedelta(days=1)
    changed = patch(alice, tournament, name="  Summer cup ", season=None, starts_at=later.isoformat(), max_players=6)
    assert changed.status_code == 200, changed.text
    shown = changed.json()
    assert (shown["name"], shown["season"], shown["max_players"]) == ("Summer cup", None, 6)
    assert datetime.fromisoformat(shown["starts_at"]) == later
    assert shown["variant"] == "long-bolshie" and shown["format"] == "knockout", "the game is not the organiser's to change"
    assert patch(bob, tournament, name="Mine").status_code == 403
    for refused in ({}, {"name": ""}, {"name": "   "}, {"max_players": None}, {"max_players": 65}, {"variant": "backgammon"},
                    {"starts_at": "2027-01-01T18:00:00"}, {"min_players": 7}):
        assert patch(alice, tournament, **refused).status_code == 422, refused
    past = datetime.now(UTC) - timedelta(minutes=1)
    assert patch(alice, tournament, starts_at=past.isoformat()).status_code == 422
    assert patch(bob, "nope", name="x").status_code == 404
    assert view(game_server, tournament)["name"] == "Summer cup" and view(game_server, tournament)["max_players"] == 6


def test_registration_opens_before_the_start(game_server) -> None:
    """Registration opening at or after the start would leave nobody able to register: refused at creation and
    on every change, of either time."""
    alice = game_server.player(connect=False)
    starts = datetime.now(UTC) + timedelta(hours=2)
    settings = {"name": "Late cup", "format": "knockout", "variant": "long-bolshie", "round": ROUND, "max_players": 4,
                "start": "scheduled", "starts_at": starts.isoformat(), "registration_opens_at": starts.isoformat()}
    too_late = alice.post("/api/tournaments", settings)
    assert too_late.status_code == 422 and too_late.json()["detail"] == "registration must open before the start"
    opens = starts - timedelta(hours=1)
    tournament = organise(game_server, alice, start="scheduled", starts_at=starts.isoformat(),
                          registration_opens_at=opens.isoformat())["id"]
    for refused in ({"registration_opens_at": (starts + timedelta(minutes=1)).isoformat()},
                    {"starts_at": (opens - timedelta(minutes=1)).isoformat()},
                    {"starts_at": opens.isoformat()}):
        answer = patch(alice, tournament, **refused)
        assert answer.status_code == 422 and answer.json()["detail"] == "registration must open before the start"
    earlier = opens - timedelta(minutes=30)
    assert patch(alice, tournament, starts_at=(opens + timedelta(minutes=5)).isoformat(),
                 registration_opens_at=earlier.isoformat()).status_code == 200
    assert datetime.fromisoformat(view(game_server, tournament)["registration_opens_at"]) == earlier
    assert patch(alice, tournament, registration_opens_at=None).status_code == 200


def test_fewer_places_cannot_leave_out_a_registered_player_and_may_fill_a_sit_and_go(game_server) -> None:
    alice, bob, carol = game_server.player(connect=False), game_server.player(connect=False), game_server.player(connect=False)
    tournament = organise(game_server, alice, max_players=8)["id"]
    assert patch(alice, tournament, starts_at=(datetime.now(UTC) + timedelta(hours=1)).isoformat()).status_code == 422
    for person in (alice, bob, carol):
        game_server.top_up()
        assert person.post(f"/api/tournaments/{tournament}/register").status_code == 200
    assert patch(alice, tournament, max_players=2).status_code == 409
    assert view(game_server, tournament)["max_players"] == 8
    full = patch(alice, tournament, max_players=3, min_players=3)
    assert full.status_code == 200, full.text
    assert wait_for(game_server, tournament, lambda t: t["status"] == "running")["max_players"] == 3
    assert patch(alice, tournament, name="Too late").status_code == 409


@pytest.mark.parametrize(("variant", "length"), [("tavla", 1), ("tavli", 3)])
def test_a_tournament_of_a_new_variant_is_played_to_its_end(game_server, variant: str, length: int) -> None:
    """Tavla (docs/rules.md §8.1) and tavli (§11, a match of portes, plakoto and fevga in turn): a two-player
    knockout's match is played out, game by game, and the tournament finishes with its winner and protocol."""
    people = [game_server.player() for _ in range(2)]
    rounds = {"match_length": length, "move_seconds": 120}
    tournament = organise(game_server, people[0], variant=variant, round=rounds, max_players=2)["id"]
    game_server.top_up()  # seeded rolls, kept queued: the same games every run
    for person in people:
        assert person.post(f"/api/tournaments/{tournament}/register").status_code == 200
    current = wait_for(game_server, tournament, undecided_tables)
    [pairing] = undecided_tables(current)
    table = pairing["table"]
    by_name = {p.name: p for p in people}
    seats = [by_name[seat["name"]] for seat in game_server.view(table)["seats"]]
    for person in seats:
        person.subscribe(table)
    final = game_server.play_out(table, seats, choose=game_server.racing)
    assert final["variant"] == variant and max(final["match"]["score"]) >= length

    done = wait_for(game_server, tournament, lambda t: t["status"] == "finished")
    assert done["standings"][0]["name"] == seats[final["match"]["winner"]].name
    protocol = game_server.client.get(f"/api/tournaments/{tournament}/protocol.mat")
    assert protocol.status_code == 200 and f'; [Variant "{variant}"]' in protocol.text


@pytest.mark.parametrize(("variant", "body", "message"), [
    ("tavli", {"round": {"match_length": 1, "move_seconds": 120}}, "tavli matches are played to 3, 5, 7 points"),
    ("tavla", {"options": {"cube": True}}, "tavla is played without the doubling cube"),
])
def test_a_tournament_its_variant_cannot_play_is_refused(game_server, variant: str, body: dict[str, Any],
                                                        message: str) -> None:
    """Every round's match must be one the rules let the variant play: refused when organised (422), not when a
    round is paired."""
    alice = game_server.player()
    settings = {"name": "Cup", "format": "knockout", "variant": variant, "round": ROUND, "max_players": 2, **body}
    refused = alice.post("/api/tournaments", settings)
    assert refused.status_code == 422 and message in refused.text, refused.text
    assert game_server.client.get("/api/tournaments").json()["upcoming"] == []
