"""Driving a chouette through the real app in tests: scripted dice with a seeded fallback, and a table helper.

Shared by ``test_chouette_play`` and ``test_chouette_replay``
(``from tests.server.chouette_driver import ...``).
"""

from __future__ import annotations

import itertools
import random
from typing import Any

from nardy.notation import position_from_dict
from nardy.server.services.dice import ScriptedDice

TEAM_DICE = [(6, 5), (6, 4), (5, 4), (6, 6), (5, 5), (4, 4), (5, 3), (6, 3), (4, 3)]
SLOW_DICE = [(2, 1)]


class FallbackDice(ScriptedDice):
    """Scripted rolls while any are queued; then a seeded generator (the server's own opening rolls)."""

    def __init__(self) -> None:
        super().__init__()
        self._fallback = random.Random(7)

    def roll(self, seed: str, client_seeds: tuple[str, str], number: int) -> tuple[int, int]:
        if not self.remaining:
            self.push((self._fallback.randint(1, 6), self._fallback.randint(1, 6)))
        return super().roll(seed, client_seeds, number)


class Table:
    """The four players, a spectator, and helpers to act and keep everyone up to date."""

    def __init__(self, server: Any, players: list[Any], spectator: Any, table: str) -> None:
        self.server = server
        self.players = players
        self.by_id = {p.user["id"]: p for p in players}
        self.spectator = spectator
        self.table = table

    @property
    def everyone(self) -> list[Any]:
        return [*self.players, self.spectator]

    def state(self) -> dict[str, Any]:
        return max((p.state(self.table) for p in self.everyone), key=lambda s: s["version"])

    def ok(self, player: Any, t: str, **fields: Any) -> dict[str, Any]:
        reply = player.ok(t, self.table, **fields)
        for other in self.everyone:
            other.catch_up(reply["version"], self.table)
        return self.state()

    def refused(self, player: Any, t: str, code: str, **fields: Any) -> None:
        version = self.state()["version"]
        reply = player.refused(t, self.table, **fields)
        assert reply["code"] == code, reply
        assert self.server.view_chouette(self.table)["version"] == version  # nothing changed

    def game(self) -> dict[str, Any]:
        game = self.state()["game"]
        assert game is not None
        return game

    def board_actor(self) -> Any:
        game = self.game()
        assert game["phase"] in ("rolling", "moving"), game["phase"]
        return self.by_id[game["awaiting"][0]]

    def roll(self, dice: tuple[int, int]) -> None:
        self.server.push(dice)
        self.ok(self.board_actor(), "roll")

    def move(self, choose: str = "first") -> None:
        """The board actor plays: the first legal play, or the one leaving the fewest pips."""
        game = self.game()
        side = "box" if game["turn"] == "box" else "team"
        position = position_from_dict(game["boards"][side])
        plays = position.legal_plays(tuple(game["dice"]))
        play = plays[0] if choose == "first" else min(plays, key=lambda p: p.position.pip_counts()[0])
        steps = [{"source": s.source, "target": s.target, "die": s.die, "hit": s.hit} for s in play.steps]
        self.ok(self.board_actor(), "move", steps=steps)

    def race_to_the_end(self, fast: str) -> dict[str, Any]:
        """Play the game out with racing plays; the ``fast`` side rolls high, the other 2-1."""
        number = self.game()["number"]
        high = itertools.cycle(TEAM_DICE)
        for _ in range(400):
            state = self.state()
            game = state["game"]
            if game is None or game["number"] != number:
                return state
            if game["phase"] == "rolling":
                self.roll(next(high) if game["turn"] == fast else SLOW_DICE[0])
            else:
                assert game["phase"] == "moving", game["phase"]
                self.move("racing")
        raise AssertionError("the game did not end")


def make_chouette_game_server(make_game_server: Any) -> Any:
    """A game server with :class:`FallbackDice` and ``server.view_chouette(table)``: ``GET /api/chouettes/{table}``."""
    server = make_game_server(dice=FallbackDice())

    def view_chouette(table: str) -> dict[str, Any]:
        response = server.client.get(f"/api/chouettes/{table}")
        assert response.status_code == 200, response.text
        return response.json()

    server.view_chouette = view_chouette
    return server


def three_at_a_chouette(server: Any) -> tuple[list[Any], str]:
    """Three guests at a new chouette of three places, each watching it: the players and the table."""
    players = [server.guest() for _ in range(3)]
    table = players[0].post("/api/chouettes", {"max_players": 3}).json()["table"]
    for player in players[1:]:
        assert player.post(f"/api/chouettes/{table}/join").status_code == 200
    for player in players:
        player.subscribe(table)
    return players, table
