"""A chouette's finished games as the two-player games post-game analysis reads: one per team member.

A chouette game is one board between the box and the team, with one cube per
team member (000: «каждый член команды может индивидуально решать, принимать
или отказываться»; docs/chouette.md). Each member's game against the box is
an ordinary money game of the chouette's variant: the same opening, rolls
and plays (the captain moves for the team), and that member's own cube: the
box's double and the member's take or pass, the team's double and the box's
take or pass of that member's cube. A member's game ends where their stake was settled (a
pass, a resignation, or the board's end), so what the team played after a
member left is not theirs.

Each game is written as a table record (``docs/protocol.md``: box in seat 0,
the member in seat 1) whose event versions are the chouette's own, so an
analysis of it points at the chouette's events, as its replay frames do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nardy.rules.chouette import BOX_SIDE, TEAM_SIDE, ChouetteGame
from nardy.server.services import chouette_state
from nardy.server.services.chouette_state import ChouetteSpec
from nardy.server.services.table_state import NewEvent
from nardy.store.tables_repo import StoredEvent


@dataclass(frozen=True, slots=True)
class MemberGame:
    """One member's game against the box in chouette game ``number``, as a table record to analyse."""

    number: int
    box: int
    member: int
    record: dict[str, Any]


@dataclass(slots=True)
class _Game:
    """The game being read: its number, its box, and each member's events so far (None once settled)."""

    number: int
    box: int
    events: dict[int, list[dict[str, Any]]] = field(default_factory=dict)

    def add(self, members: Sequence[int], version: int, *actions: tuple[str, int | None, dict[str, Any]]) -> None:
        for member in members:
            self.events[member].extend(
                {"version": version, "kind": kind, "seat": seat, "payload": payload} for kind, seat, payload in actions
            )


def member_games(table_id: str, spec: ChouetteSpec, events: Sequence[StoredEvent]) -> list[MemberGame]:
    """Every finished game of the chouette, one :class:`MemberGame` per team member, in the order played.

    The events are folded by the fold the server plays with; the game in play is left out.
    """
    state = chouette_state.initial_state(table_id, spec)
    games: list[MemberGame] = []
    current: _Game | None = None
    for event in events:
        before = state.game
        ended_before = len(state.chouette.results)
        state = chouette_state.apply_event(state, NewEvent(event.kind, event.seat, event.payload), event.at)
        if event.kind == "game_started" and state.game is not None:
            current = _Game(state.number, state.game.lineup.box, {m: [] for m in state.game.lineup.team})
            continue
        if current is None or before is None:
            continue
        _read(current, before, event)
        if len(state.chouette.results) > ended_before:
            games.extend(
                MemberGame(current.number, current.box, member, _record(spec, state.names, current.box, member, moves))
                for member, moves in current.events.items()
            )
            current = None
    return games


def _read(game: _Game, before: ChouetteGame, event: StoredEvent) -> None:
    """Add what ``event`` did to the games of the members it concerns (those still in the game before it)."""
    kind, who, data, version = event.kind, event.seat, event.payload, event.version
    in_play = before.in_play
    side = BOX_SIDE if who == game.box else TEAM_SIDE
    if kind == "opening_rolled":
        game.add(in_play, version, ("opening_rolled", None, {"dice": list(data["dice"])}))
    elif kind == "rolled":
        game.add(in_play, version, ("rolled", side, {"dice": list(data["dice"])}))
    elif kind == "moved":
        game.add(in_play, version, ("moved", side, {"steps": list(data["steps"])}))
    elif kind == "doubled":  # the box doubles every member still in
        game.add(in_play, version, ("doubled", BOX_SIDE, {}))
    elif kind in ("took", "dropped") and who is not None:  # a member answers the box's double alone
        game.add([who], version, (kind, TEAM_SIDE, {}))
    elif kind == "box_answered":  # the team's double, offered on every member's cube, answered cube by cube
        takes = set(data["takes"])
        for member in in_play:
            game.add([member], version, ("doubled", TEAM_SIDE, {}), ("took" if member in takes else "dropped", BOX_SIDE, {}))
    elif kind == "resigned" and who is not None:
        _resigned(game, before, who, version)


def _resigned(game: _Game, before: ChouetteGame, who: int, version: int) -> None:
    """The box resigns to every member still in, or a member resigns their own stake: in each game concerned an
    offer of the result as the position stands (docs/rules.md §6, as the chouette scores it), accepted."""
    loser = BOX_SIDE if who == game.box else TEAM_SIDE
    winner = 1 - loser
    view = before.board.board_for(winner)
    kind = before.board.variant.win_kind(view.points, view.bar[1], view.off[1])
    members = before.in_play if loser == BOX_SIDE else (who,)
    game.add(members, version, ("resigned", loser, {"kind": kind.value}), ("resignation_accepted", winner, {}))


def _record(
    spec: ChouetteSpec, names: Mapping[int, str], box: int, member: int, events: list[dict[str, Any]],
) -> dict[str, Any]:
    """A member's game as a money game's table record: the box in seat 0, the member in seat 1."""
    options = spec.options
    seated = [{"kind": "seated", "seat": seat, "payload": {"seat": seat, "name": names.get(user, "")}}
              for seat, user in enumerate((box, member))]
    return {
        "variant": spec.variant, "match_length": 0,
        "options": {"cube": True, "jacoby": options.jacoby, "automatic_doubles": 0,
                    "backgammon_value": options.backgammon_value, "beavers": False},
        "events": [*seated, {"kind": "match_started", "seat": None, "payload": {}}, *events],
    }
