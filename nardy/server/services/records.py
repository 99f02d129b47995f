"""Game records and replays, built from a table's event log by the same fold the server plays with."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from nardy.notation import format_steps, position_to_dict, step_to_dict
from nardy.notation.transcript import ACTION_EVENTS, Replayed, Transcript, games_of
from nardy.rules import Game
from nardy.rules.chouette import BOX_SIDE, TEAM_SIDE, ChouetteGame, ChouettePhase
from nardy.server.services import chouette_state
from nardy.server.services.chouette_state import ChouetteSpec
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

    Each frame has the board from seat 0's side, the dice, the cube, the score,
    and the move's text and steps (in the mover's numbering, for arrows), so a
    client can step forward and back without rules. Every opening roll is a
    frame, a tie too, so a replay shows the tie and then the roll that decided.
    """
    state = TableState(table_id, spec)
    frames: list[dict[str, Any]] = []
    for event in events:
        finished_before = len(state.whites)
        state = apply_event(state, NewEvent(event.kind, event.seat, event.payload), event.at)
        game = state.finished_game if len(state.whites) > finished_before else state.game
        if game is None or event.kind in ("stepped", "undone", "seated", "match_started", "chat_spectators_set"):
            continue
        board = game.board_for(0)
        frames.append({
            "version": event.version,
            "kind": event.kind,
            "seat": event.seat,
            "at": event.at.isoformat(),
            "game_number": state.game_number,
            "dice": _frame_dice(event, state.last_move, game),
            "text": state.last_move["text"] if event.kind == "moved" and state.last_move else None,
            "steps": state.last_move["steps"] if event.kind == "moved" and state.last_move else None,
            "board": position_to_dict(board),
            "pips": list(board.pip_counts()),
            "white": game.white,
            "turn": game.turn,
            "cube": {"value": game.cube.value, "owner": game.cube.owner},
            "score": list(state.match.score) if state.match else [0, 0],
            "result": event.payload.get("result"),
        })
    return frames


def _frame_dice(event: StoredEvent, last_move: dict[str, Any] | None, game: Game) -> list[int] | None:
    """The dice a frame shows: those rolled, those just played, or those still to play."""
    if "dice" in event.payload:
        dice: list[int] = event.payload["dice"]
        return dice
    if event.kind == "moved" and last_move is not None:
        played: list[int] = last_move["dice"]
        return played
    return list(game.dice) if game.dice else None


def transcript_replay(transcript: Transcript) -> dict[str, Any]:
    """Frames of a match read from a file, as :func:`replay` gives a table's, and who played white in each game.

    A file has no events, so a frame's ``version`` is its action's ``source``
    (an imported match's actions are numbered, which is how its analysis
    names them); the end of each game and of the match, and a tie that
    starts a game again, get frames of their own, with no version.
    NotationError names an action the rules refuse.
    """
    frames: list[dict[str, Any]] = []
    whites: dict[str, int] = {}
    for number, steps in enumerate(games_of(transcript), start=1):
        for step in steps:
            frames.append(_transcript_frame(step, ACTION_EVENTS[step.action.kind], step.action.source))
            if step.game.tied:  # plakoto, both mothers pinned: the game starts again, as a table's game_tied says
                frames.append(_transcript_frame(step, "game_tied", None))
            result = step.game.result
            if result is not None:
                whites[str(number)] = step.game.white
                ended = _transcript_frame(step, "game_ended", None)
                ended["result"] = {"winner": result.winner, "kind": result.kind.value, "points": result.points,
                                   "reason": result.reason}
                frames.append(ended)
        if steps and steps[-1].match.is_over:
            frames.append(_transcript_frame(steps[-1], "match_ended", None))
    return {"frames": frames, "whites": whites}


def _transcript_frame(step: Replayed, kind: str, version: int | None) -> dict[str, Any]:
    action, game = step.action, step.game
    board = game.board_for(0)
    moved = kind == "moved"
    closing = kind in ("game_ended", "game_tied", "match_ended")
    dice: list[int] | None
    if closing:
        dice = None
    elif action.dice is not None:
        dice = list(action.dice)
    elif moved:
        dice = list(step.before.dice or ())
    else:
        dice = list(game.dice) if game.dice else None
    return {
        "version": version,
        "kind": kind,
        "seat": None if closing else action.player,
        "at": None,
        "game_number": step.game_number,
        "dice": dice,
        "text": format_steps(action.steps) if moved else None,
        "steps": [step_to_dict(s) for s in action.steps] if moved else None,
        "board": position_to_dict(board),
        "pips": list(board.pip_counts()),
        "white": game.white,
        "turn": game.turn,
        "cube": {"value": game.cube.value, "owner": game.cube.owner},
        "score": list(step.match.score),
        "result": None,
    }


_CHOUETTE_FRAMES = frozenset({
    "game_started", "opening_rolled", "rolled", "passed", "moved", "doubled", "double_proposed", "voted",
    "box_answered", "took", "dropped", "resigned", "timed_out",
})
"""The events of a chouette game that a replay shows, a pass included as at a table (not steps, undos, seats,
seeds or the formation)."""
_CHOUETTE_DETAILS = {"voted": ("agree",), "box_answered": ("takes",), "timed_out": ("players",)}


def chouette_replay(table_id: str, spec: ChouetteSpec, events: Sequence[StoredEvent]) -> list[dict[str, Any]]:
    """Each finished game of a chouette, frame by frame (``docs/chouette.md``, *Replay*).

    The events are folded by the same fold the server plays with; a frame is
    taken after each event that changes the game, with the board from the
    team's side and every member's stake. The game in play is left out.
    """
    state = chouette_state.initial_state(table_id, spec)
    games: list[dict[str, Any]] = []
    current: dict[str, Any] | None = None
    for event in events:
        ended_before = len(state.chouette.results)
        state = chouette_state.apply_event(state, NewEvent(event.kind, event.seat, event.payload), event.at)
        ended = len(state.chouette.results) > ended_before
        if event.kind == "game_started":
            game = state.game
            assert game is not None
            current = {"number": state.number, "box": game.lineup.box, "team": list(game.lineup.team), "frames": []}
        if current is None or event.kind not in _CHOUETTE_FRAMES:
            continue
        game = state.finished_game if ended else state.game
        assert game is not None
        current["frames"].append(_chouette_frame(event, state.last_move, game))
        if ended:
            result = state.chouette.results[-1]
            current["result"] = {
                "team_won": result.team_won, "kind": result.kind.value if result.kind is not None else None,
                "points": [[player, points] for player, points in result.points],
            }
            games.append(current)
            current = None
    return games


def _chouette_frame(event: StoredEvent, last_move: dict[str, Any] | None, game: ChouetteGame) -> dict[str, Any]:
    board = game.board
    shown = board.board_for(TEAM_SIDE)
    pips = shown.pip_counts()
    phase = game.phase
    return {
        "version": event.version,
        "kind": event.kind,
        "player": event.seat,
        "at": event.at.isoformat(),
        "dice": _frame_dice(event, last_move, board),
        "text": last_move["text"] if event.kind == "moved" and last_move else None,
        "steps": last_move["steps"] if event.kind == "moved" and last_move else None,
        "detail": {key: event.payload[key] for key in _CHOUETTE_DETAILS.get(event.kind, ()) if key in event.payload} or None,
        "board": position_to_dict(shown),
        "pips": {"team": pips[0], "box": pips[1]},
        "phase": phase.value,
        "turn": None if phase is ChouettePhase.OPENING else "box" if game.turn_side == BOX_SIDE else "team",
        "acting_captain": game.captain,
        "stakes": [
            {"member": s.member, "value": s.value, "owner": s.owner, "result": s.result, "how": s.how}
            for s in game.stakes
        ],
    }


def public_record(table_id: str, spec: TableSpec, events: Sequence[StoredEvent]) -> dict[str, Any]:
    """A table's full record: settings, players, every event with its time, and the dice record."""
    return {
        "table": table_id,
        "variant": spec.variant,
        "match_length": spec.match_length,
        "options": spec.options_dict(),
        "move_seconds": spec.move_seconds,
        "delay_seconds": spec.delay_seconds,
        "bank_seconds_per_point": spec.bank_seconds_per_point,
        "events": [
            {"version": e.version, "kind": e.kind, "seat": e.seat, "payload": e.payload, "at": e.at.isoformat()}
            for e in events
        ],
        **dice_record(events),
    }
