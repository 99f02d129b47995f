"""Profile truth: a player's wins by colour are their own; the site's figures are on their own routes.

Issue 39: «"Wins by colour" on a new account shows site-wide numbers as if
they were the player's: show the player's own, and put the site-wide figures
(wins by colour per variant, like 003's page, and the site's dice distribution
with its chi-square) on a public statistics page».
"""

from __future__ import annotations

from typing import Any


def _colours(viewer: Any, name: str) -> dict[str, Any]:
    reply = viewer.get(f"/api/users/{name}/colours")
    assert reply.status_code == 200, reply.text
    variants: dict[str, Any] = reply.json()["variants"]
    return variants


def test_wins_by_colour_are_the_player_s_own(game_server: Any) -> None:
    alice, bob, carol = game_server.player(), game_server.player(), game_server.player()
    table, _ = game_server.match("georgian", 1, players=[alice, bob])
    final = game_server.play_out(table, [alice, bob])
    white = alice if final["seats"][0]["user_id"] == alice.user["id"] else bob
    white_won = final["match"]["winner"] == 0
    private, _ = game_server.match("georgian", 1, opening=[(3, 1)], players=[alice, bob], private=True)
    alice.ok("resign", private)
    bob.wait(lambda s: s["status"] == "finished", private)

    anyone = game_server.new_client()
    assert _colours(anyone, carol.name) == {}, "a new account has no games by colour"
    site = anyone.get("/api/stats/colours").json()["variants"]
    assert sum(site["georgian"].values()) == 2, "the site counts every finished game"
    shown = _colours(anyone, alice.name)["georgian"]
    assert sum(colour["games"] for colour in shown.values()) == 1, "a private table counts for its player only"
    played = "white" if white is alice else "black"
    alice_won = white_won == (white is alice)
    assert shown[played] == {"games": 1, "wins": int(alice_won)}
    own = _colours(alice.client, alice.name)["georgian"]
    assert sum(colour["games"] for colour in own.values()) == 2
    assert sum(colour["wins"] for colour in own.values()) == int(alice_won), "she resigned the private match"
    assert anyone.get("/api/users/nobody-here/colours").status_code == 404


def test_the_site_s_dice_are_every_player_s_rolls(game_server: Any) -> None:
    anyone = game_server.new_client()
    assert anyone.get("/api/stats/dice").json()["statistics"]["rolls"] == 0
    alice, bob = game_server.player(), game_server.player()
    table, _ = game_server.match("georgian", 1, players=[alice, bob])
    game_server.play_out(table, [alice, bob])
    site = anyone.get("/api/stats/dice").json()["statistics"]
    each = [anyone.get(f"/api/users/{p.name}/dice").json()["statistics"] for p in (alice, bob)]
    assert site["rolls"] == each[0]["rolls"] + each[1]["rolls"] > 0
    assert {face: each[0]["faces"][face] + each[1]["faces"][face] for face in site["faces"]} == site["faces"]
    assert site["chi_square"] >= 0 and site["expected_face"] == site["dice"] / 6
