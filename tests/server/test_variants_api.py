"""``GET /api/variants``: the rules' data a client reads instead of keeping its own (docs/protocol.md, *Variants*)."""

from __future__ import annotations

from typing import Any

from nardy.bots import levels_for
from nardy.bots.hints import analysis_offer
from nardy.rules import VARIANTS
from nardy.rules.chouette import chouette_refusal
from nardy.server.settings import BANK_CLOCK_CHOICES, CORRESPONDENCE_DAYS_CHOICES, MOVE_SECONDS_CHOICES

Server = Any


def test_every_variant_in_order_with_what_the_rules_say(game_server: Server) -> None:
    answer = game_server.new_client().get("/api/variants")
    assert answer.status_code == 200
    listed = answer.json()["variants"]
    assert [entry["id"] for entry in listed] == list(VARIANTS)
    for entry in listed:
        variant = VARIANTS[entry["id"]]
        assert entry["topology"] == variant.board and entry["family"] == variant.family
        assert entry["group"] == variant.group and entry["checkers"] == variant.checkers
        assert entry["money_play"] == variant.money_play and entry["moves_final"] == variant.moves_final
        lengths = None if variant.match_lengths is None else list(variant.match_lengths)
        assert entry["match_lengths"] == lengths
        assert entry["levels"] == list(levels_for(variant.name))
        offer = analysis_offer(variant.name)
        assert entry["analysis"] == {"levels": list(offer.levels), "unavailable": offer.unavailable}
        assert entry["chouette"] == (chouette_refusal(variant) is None)
        assert entry["scoring"]["kinds"] == [str(kind) for kind in variant.win_kinds]
        assert entry["cube"]["allowed"] == variant.cube_allowed and entry["cube"]["required"] == variant.cube_required
        assert entry["games"] == ([game.name for game in variant.games] or None)
        numbers = entry["opponent_points"]
        assert [numbers[q] for q in range(1, 25)] == [variant.topology.opponent_point(q) for q in range(1, 25)]
    backgammon, dave, georgian, traditional = listed[:4]
    assert backgammon["cube"] == {"allowed": True, "required": False, "jacoby": True, "automatic_doubles": 1, "beavers": True}
    assert dave["cube"]["jacoby"] is False and dave["match_lengths"][0] == 3
    assert backgammon["scoring"]["backgammon_values"] == [3, 2] and dave["scoring"]["backgammon_values"] == []
    assert georgian["match_files"] == ["mat", "sgf"] and traditional["match_files"] == ["mat"]
    assert traditional["match_lengths"] is None and traditional["longest_match"] == 99
    # matchmaking pairs for the quick lengths a variant is played to: dave, played from 3 points, not for 1
    assert backgammon["pairing_lengths"] == [1, 3, 5, 7] and dave["pairing_lengths"] == [3, 5, 7]
    assert "world-class" in backgammon["levels"] and "world-class" not in traditional["levels"]
    # hypergammon is played by its own network (docs/strength.md): its levels, no world-class
    hypergammon = next(entry for entry in listed if entry["id"] == "hypergammon")
    assert hypergammon["levels"] == ["random", "beginner", "intermediate", "advanced", "expert"]
    # a chouette where the cube and money play are (docs/chouette.md); hints where the engine rates equities
    assert [entry["id"] for entry in listed if entry["chouette"]] == ["backgammon", "hypergammon", "nackgammon"]
    analysis = {entry["id"]: entry["analysis"] for entry in listed}
    assert analysis["plakoto"] == analysis["tavli"] == {"levels": ["advanced", "expert", "world-class"], "unavailable": None}
    assert analysis["fevga"]["levels"] == analysis["tavla"]["levels"] == ["advanced", "expert", "world-class"]
    assert analysis["hypergammon"] == analysis["plakoto"]


def test_each_variant_names_its_lobby_group(game_server: Server) -> None:
    """The lobby groups variants by ``group`` (docs/protocol.md, *Variants*): short, long, greek, turkish."""
    listed = game_server.new_client().get("/api/variants").json()["variants"]
    groups = {entry["id"]: entry["group"] for entry in listed}
    assert groups == {
        "backgammon": "short", "dave": "short", "georgian": "short", "hypergammon": "short", "nackgammon": "short",
        "long-traditional": "long", "long-tournament": "long", "long-bolshie": "long",
        "portes": "greek", "plakoto": "greek", "fevga": "greek", "tavli": "greek", "tavla": "turkish",
    }
    assert {entry["id"]: entry["checkers"] for entry in listed}["hypergammon"] == 3


def test_the_clocks_are_those_a_table_takes(game_server: Server) -> None:
    clocks = game_server.new_client().get("/api/variants").json()["clocks"]
    assert clocks["move_seconds"] == list(MOVE_SECONDS_CHOICES)
    assert clocks["correspondence_days"] == list(CORRESPONDENCE_DAYS_CHOICES)
    assert [(c["delay_seconds"], c["bank_seconds_per_point"]) for c in clocks["bank"]] == list(BANK_CLOCK_CHOICES)
    assert clocks["default_bank"] == {"delay_seconds": 12, "bank_seconds_per_point": 60}


def test_cacheable_with_an_etag(game_server: Server) -> None:
    client = game_server.new_client()
    first = client.get("/api/variants")
    etag = first.headers["etag"]
    assert "max-age" in first.headers["cache-control"]
    again = client.get("/api/variants", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag
    other = client.get("/api/variants", headers={"If-None-Match": '"something else"'})
    assert other.status_code == 200 and other.content == first.content


def test_lobby_entries_name_the_computer_by_level(game_server: Server) -> None:
    """The lobby's players carry the computer's level as data (``bots``), beside its English name."""
    guest = game_server.guest()
    game_server.top_up()
    table = game_server.create(guest, "georgian", 3, opponent="computer", bot_level="random")["table"]
    mine = guest.client.get("/api/me/tables").json()["tables"]
    entry = next(row for row in mine if row["table"] == table)
    assert entry["bots"] == [None, "random"] and entry["players"][1] == "Computer (random)"


def test_tavli_names_its_games_lengths_and_the_levels_all_three_offer(game_server: Server) -> None:
    """docs/rules.md §11: tavli's games are portes, plakoto and fevga in turn, in matches of 3, 5 or 7 points;
    its computer levels are those every one of its games offers (our networks', with no world-class)."""
    listed = {entry["id"]: entry for entry in game_server.new_client().get("/api/variants").json()["variants"]}
    tavli = listed["tavli"]
    assert tavli["games"] == ["portes", "plakoto", "fevga"] and tavli["family"] == "tavli"
    assert tavli["match_lengths"] == [3, 5, 7] and tavli["pairing_lengths"] == [3, 5, 7]
    assert tavli["money_play"] is False and tavli["cube"]["allowed"] is False
    shared = [level for level in listed["portes"]["levels"]
              if all(level in listed[game]["levels"] for game in ("plakoto", "fevga"))]
    assert tavli["levels"] == shared == listed["plakoto"]["levels"]
    assert tavli["match_files"] == ["mat"]
