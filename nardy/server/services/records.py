"""Game records and replays, built from a table's event log by the same fold the server plays with."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nardy.notation import position_to_dict
from nardy.rules import Game
from nardy.server.services.table_state import NewEvent, TableSpec, TableState, apply_event
from nardy.store.tables_repo import StoredEvent

_ROLL_KINDS = {"opening_rolled": "opening", "rolled": "roll"}
_STARTS = ("game_started", "formation_started")
"""Events that fix a game's (or a chouette formation's) commitment and client seeds."""
_REVEALS = ("game_ended", "formed")
"""Events that reveal a game's (or a chouette formation's) seed."""


def dice_record(events: Sequence[StoredEvent]) -> dict[str, Any]:
    """The record ``nardy verify-dice`` checks: per game, its commitment, revealed seed and rolls.

    A chouette's formations count as games of their own (``docs/chouette.md``):
    each ``formation_rolled`` round is whole two-dice rolls, recorded as rolls.
    """
    games: list[dict[str, Any]] = []
    for event in events:
        if event.kind in _STARTS:
            games.append({
                "number": event.payload["number"], "seed": None, "seed_hash": event.payload["commitment"],
                "client_seeds": event.payload["client_seeds"], "rolls": [],
            })
        elif event.kind in _ROLL_KINDS and games:
            games[-1]["rolls"].append(
                {"number": event.payload["number"], "dice": event.payload["dice"], "kind": _ROLL_KINDS[event.kind]}
            )
        elif event.kind == "formation_rolled" and games:
            first = event.payload["number"]
            games[-1]["rolls"].extend(
                {"number": first + i, "dice": dice, "kind": "roll"} for i, dice in enumerate(event.payload["rolls"])
            )
        elif event.kind in _REVEALS:
            for game in games:
                if game["number"] == event.payload["number"]:
                    game["seed"] = event.payload["seed"]
    return {"games": games}


def replay(table_id: str, spec: TableSpec, events: Sequence[StoredEvent]) -> list[dict[str, Any]]:
    """One frame per event that changes the board, dice, cube or score: move-by-move replay data.

    Each frame has the board from seat 0's side, the dice, the cube, the score
    and the move text, so a client can step forward and back without rules.
    """
    state = TableState(table_id, spec)
    frames: list[dict[str, Any]] = []
    for event in events:
        finished_before = len(state.whites)
        state = apply_event(state, NewEvent(event.kind, event.seat, event.payload), event.at)
        game = state.finished_game if len(state.whites) > finished_before else state.game
        if game is None or event.kind in ("stepped", "undone", "seated", "match_started"):
            continue
        board = game.board_for(0)
        frames.append({
            "version": event.version,
            "kind": event.kind,
            "seat": event.seat,
            "at": event.at.isoformat(),
            "game_number": state.game_number,
            "dice": _frame_dice(event, state, game),
            "text": state.last_move["text"] if event.kind == "moved" and state.last_move else None,
            "board": position_to_dict(board),
            "pips": list(board.pip_counts()),
            "white": game.white,
            "turn": game.turn,
            "cube": {"value": game.cube.value, "owner": game.cube.owner},
            "score": list(state.match.score) if state.match else [0, 0],
            "result": event.payload.get("result"),
        })
    return frames


def _frame_dice(event: StoredEvent, state: TableState, game: Game) -> list[int] | None:
    """The dice a frame shows: those rolled, those just played, or those still to play."""
    if "dice" in event.payload:
        dice: list[int] = event.payload["dice"]
        return dice
    if event.kind == "moved" and state.last_move is not None:
        played: list[int] = state.last_move["dice"]
        return played
    return list(game.dice) if game.dice else None


def public_record(table_id: str, spec: TableSpec, events: Sequence[StoredEvent]) -> dict[str, Any]:
    """A table's full record: settings, players, every event with its time, and the dice record."""
    return {
        "table": table_id,
        "variant": spec.variant,
        "match_length": spec.match_length,
        "options": spec.options_dict(),
        "move_seconds": spec.move_seconds,
        "events": [
            {"version": e.version, "kind": e.kind, "seat": e.seat, "payload": e.payload, "at": e.at.isoformat()}
            for e in events
        ],
        **dice_record(events),
    }
