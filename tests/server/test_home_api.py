"""The home page's API: the quick-pairing pools with the players waiting in each (``GET /api/matchmaking/pools``),
and the people at tables, the games being played and the featured live game (``GET /api/home``)."""

from __future__ import annotations

from typing import Any

from nardy.rules import VARIANTS
from nardy.server.api.home import strongest
from nardy.server.services.matchmaking import quick_pairing_grid
from nardy.store.models import GameTable


def pools_of(server: Any) -> list[dict[str, Any]]:
    reply = server.client.get("/api/matchmaking/pools")
    assert reply.status_code == 200, reply.text
    pools: list[dict[str, Any]] = reply.json()["pools"]
    return pools


def key(pool: dict[str, Any]) -> tuple[str, int, int, int]:
    return pool["variant"], pool["match_length"], pool["delay_seconds"], pool["bank_seconds_per_point"]


def test_the_grid_offers_every_variant_at_lengths_it_is_played_to(game_server: Any) -> None:
    pools = pools_of(game_server)
    assert {pool["variant"] for pool in pools} == set(VARIANTS)
    assert [key(pool) for pool in pools] == quick_pairing_grid()
    for pool in pools:
        allowed = VARIANTS[pool["variant"]].match_lengths
        assert allowed is None or pool["match_length"] in allowed, pool
        assert pool["waiting"] == 0


def test_the_pools_count_who_waits_in_them(game_server: Any) -> None:
    alice, bob = game_server.player(connect=False), game_server.player(connect=False)
    tile = pools_of(game_server)[0]
    joined = alice.post("/api/matchmaking/join", {k: tile[k] for k in
                                                  ("variant", "match_length", "delay_seconds", "bank_seconds_per_point")})
    assert joined.status_code == 200, joined.text
    # a pool outside the grid that someone waits in is listed after the grid
    other = {"variant": "backgammon", "match_length": 11, "delay_seconds": 15, "bank_seconds_per_point": 120}
    assert bob.post("/api/matchmaking/join", other).status_code == 200
    pools = pools_of(game_server)
    assert pools[0]["waiting"] == 1
    assert key(pools[-1]) == key(other) and pools[-1]["waiting"] == 1
    assert sum(pool["waiting"] for pool in pools) == 2
    alice.post("/api/matchmaking/leave")
    assert pools_of(game_server)[0]["waiting"] == 0


def test_home_counts_people_and_games_and_features_a_public_match(game_server: Any) -> None:
    empty = game_server.client.get("/api/home").json()
    assert empty == {"players_online": 0, "games_playing": 0, "featured": None}

    table, players = game_server.match("georgian", 3, players=[game_server.player(), game_server.player()])
    game_server.match("backgammon", 1, private=True)  # two guests, privately: counted, never featured
    loner = game_server.guest()
    game_server.create(loner, "backgammon", 1, opponent="computer", bot_level="random")
    home = game_server.client.get("/api/home").json()
    assert home["games_playing"] == 3
    assert home["players_online"] == 5
    featured = home["featured"]
    assert featured["table"] == table
    assert featured["variant"] == "georgian" and featured["match_length"] == 3
    assert featured["players"] == [p.user["username"] for p in players]
    assert featured["ratings"] == [None, None]


def row(table: str, variant: str, *seats: int) -> GameTable:
    return GameTable(id=table, variant=variant, player0_id=seats[0], player1_id=seats[1])


def test_the_featured_match_is_the_strongest_in_its_family() -> None:
    newest, strong, weak = row("a", "georgian", 1, 2), row("b", "backgammon", 3, 4), row("c", "dave", 5, 6)
    ratings = {(1, "georgian"): 1600.0, (2, "georgian"): 1500.0, (3, "backgammon"): 1900.0,
               (3, "georgian"): 1000.0, (5, "backgammon"): 1200.0}
    # b: (1900 + an unrated 1500) / 2 = 1700 beats a's 1550; player 3's georgian rating plays no part in b
    assert strongest([newest, strong, weak], ratings) is strong
    assert strongest([newest, weak], {}) is newest  # equals: the newest (first) wins
    assert strongest([], ratings) is None
