"""The game protocol of a tournament (001, 3.6 «Фиксация счета»), built from its tables' records.

001 asks that every game's result be written on a protocol with the date, the
game number, the season, and the players. Here each tournament game gets one
entry: the date, its number in the tournament, the tournament and season, the
round and board, the players (who had white), who started (won the opening
roll), every action with its dice and move, the result and its kind (oin or
mars in long nardy; single, gammon, backgammon on the short board), and the
match score after it. A match that ended without finishing its last game (a
forfeit, a timeout) ends its protocol with that game and the match's reason.

The .mat export is the Jellyfish text of each match
(:func:`~nardy.notation.transcript_to_mat`), each headed by comment tags
naming the tournament, season, round and board.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nardy.notation import transcript_to_mat
from nardy.notation.movetext import format_steps
from nardy.notation.transcript import Replayed, replay, transcript_from_record
from nardy.rules import Phase


@dataclass(frozen=True, slots=True)
class MatchContext:
    """Where a match stands in its tournament."""

    tournament_id: str
    tournament: str
    season: str | None
    round: int
    board: int
    table_id: str


def match_protocol(context: MatchContext, record: Mapping[str, Any], *, first_number: int) -> list[dict[str, Any]]:
    """The protocol entries of one tournament match, numbered from ``first_number``."""
    transcript = transcript_from_record(record)
    names = transcript.players
    events = list(record["events"])
    ended = [e for e in events if e["kind"] == "game_ended"]
    match_end = next((e for e in events if e["kind"] == "match_ended"), None)
    steps: dict[int, list[Replayed]] = defaultdict(list)
    for step in replay(transcript):
        steps[step.game_number].append(step)
    entries = []
    for number in range(1, len(transcript.games) + 1):
        game_steps = steps[number]
        end = ended[number - 1] if number <= len(ended) else None
        white = end["payload"]["white"] if end is not None else game_steps[-1].game.white if game_steps else None
        openings = (s for s in game_steps if s.action.kind == "opening" and s.game.phase is not Phase.OPENING)
        started = next((s.game.turn for s in openings), None)
        score = list(game_steps[-1].match.score) if game_steps else [0, 0]
        entries.append({
            "number": first_number + number - 1,
            "date": (end or match_end or events[-1])["at"],
            "tournament": context.tournament, "tournament_id": context.tournament_id, "season": context.season,
            "round": context.round, "board": context.board, "table": context.table_id, "match_game": number,
            "players": list(names),
            "white": names[white] if white is not None else None,
            "black": names[1 - white] if white is not None else None,
            "started": names[started] if started is not None else None,
            "moves": [_move(step, names) for step in game_steps],
            "result": _result(end, match_end, names),
            "score": score if end is not None or match_end is None else list(match_end["payload"]["score"]),
        })
    return entries


def _move(step: Replayed, names: tuple[str, str]) -> dict[str, Any]:
    action = step.action
    seat = action.player
    return {
        "action": action.kind,
        "player": names[seat] if seat is not None else None,
        "dice": list(action.dice) if action.dice is not None else None,
        "move": format_steps(action.steps) if action.kind == "move" else None,
        "forced": action.forced,
    }


def _result(
    end: Mapping[str, Any] | None, match_end: Mapping[str, Any] | None, names: tuple[str, str],
) -> dict[str, Any] | None:
    if end is not None:
        result = end["payload"]["result"]
        return {"winner": names[result["winner"]], "kind": result["kind"], "points": result["points"],
                "reason": result["reason"]}
    if match_end is not None and match_end["payload"]["winner"] is not None:
        return {"winner": names[match_end["payload"]["winner"]], "kind": None, "points": None,
                "reason": match_end["payload"]["reason"]}
    return None


def match_mat(context: MatchContext, record: Mapping[str, Any]) -> str:
    """One match as .mat text, headed by the tournament's tags (gnubg reads ``;`` lines as comments)."""
    tags = [("Event", context.tournament), ("Season", context.season or ""), ("Round", str(context.round)),
            ("Board", str(context.board)), ("Table", context.table_id)]
    header = [f'; [{name} "{value}"]' for name, value in tags if value]
    return "\n".join(header) + "\n" + transcript_to_mat(transcript_from_record(record))


def protocol_mat(matches: Sequence[tuple[MatchContext, Mapping[str, Any]]]) -> str:
    """Every match of a tournament as .mat text, one after another, in the order given."""
    return "\n\n".join(match_mat(context, record) for context, record in matches) + "\n"
