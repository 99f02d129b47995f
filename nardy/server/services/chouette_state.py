"""A chouette table's state as a pure fold of its event log, the decisions that extend it, and its view.

Like :mod:`~nardy.server.services.table_state` for a match, but every rule is
asked of :class:`nardy.rules.chouette.Chouette` and its
:class:`~nardy.rules.chouette.ChouetteGame`: who sits where, who acts, what a
double, a vote, an answer or a resignation does, and how a game is settled.
The server adds only what the rules leave to it: dice, seeds, clocks, names
and the view (``docs/chouette.md``).

Events name the player they concern in their ``seat`` (a user id: a
chouette has no seats); the server's own events have none.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar

from nardy.notation import format_steps, options_to_dict, position_to_dict, step_from_dict
from nardy.notation.fair_dice import check_client_seed
from nardy.rules import GameOptions, OpeningRolled, RulesError, Step, Turn, WrongTurnError
from nardy.rules.chouette import BOX_SIDE, MAX_PLAYERS, Chouette, ChouetteGame, ChouettePhase
from nardy.rules.replay import TakeStep, UndoStep, turn_after
from nardy.server.services.publisher import TeamSaid
from nardy.server.services.table_state import (
    ActionError,
    NewEvent,
    Roller,
    moved_event,
    moving_legal,
    roll_events,
    shown_boards,
    step_dict,
    turn_events,
)

CHOUETTE_KIND = "chouette"
"""The ``tables.kind`` of a chouette."""

ChouetteStatus = Literal["waiting", "forming", "playing", "paused", "closed"]

T = TypeVar("T")

_BOARD_PHASES = (ChouettePhase.ROLLING, ChouettePhase.MOVING)


@dataclass(frozen=True, slots=True)
class ChouetteSpec:
    """What a chouette was created with."""

    options: GameOptions
    max_players: int = MAX_PLAYERS
    move_seconds: int | None = None
    private: bool = False
    variant: str = "backgammon"
    """The rule set of every game (a variant with backgammon's cube and money play, as the rules decide)."""

    def options_dict(self) -> dict[str, Any]:
        """Every game option, as stored in ``tables.options``."""
        return options_to_dict(self.options)


@dataclass(frozen=True, slots=True)
class ChouetteTableState:
    """Everything about a chouette table that follows from its spec and its events."""

    id: str
    spec: ChouetteSpec
    chouette: Chouette
    names: Mapping[int, str] = field(default_factory=dict)
    client_seeds: Mapping[int, str] = field(default_factory=dict)
    """Each player's client seed now (applies to every formation or game not yet started)."""
    number: int = -1
    """The dice number in use: 0 is the first formation; each later formation or game takes the next."""
    commitment: str | None = None
    round_client_seeds: tuple[str, str] = ("", "")
    """The two client seeds the current formation's or game's rolls use, fixed when it started."""
    next_commitment: tuple[int, str] | None = None
    roll_number: int = 0
    formation_open: bool = False
    """A formation has started and its seed is not revealed yet."""
    game_open: bool = False
    """The rules' current game has been announced (``game_started``) and is being played."""
    result_numbers: tuple[int, ...] = ()
    """The dice number of each finished game, in the order of ``chouette.results``."""
    results_announced: int = 0
    pending: tuple[Step, ...] = ()
    """The steps made this turn and not yet confirmed."""
    last_move: dict[str, Any] | None = None
    finished_game: ChouetteGame | None = None
    """The last game that ended, as it ended (the rules begin the next one at once): for the replay."""
    version: int = 0
    deadline: datetime | None = None
    clock_key: tuple[object, ...] | None = None

    @property
    def game(self) -> ChouetteGame | None:
        """The game in play, once announced."""
        return self.chouette.game if self.game_open else None

    @property
    def status(self) -> ChouetteStatus:
        """``waiting`` for players or a start, ``forming`` (rolling for places), ``playing``,
        ``paused`` (formed, fewer than three players), ``closed`` (nobody left)."""
        chouette = self.chouette
        if not chouette.players:
            return "closed" if self.version > 0 else "waiting"
        if chouette.game is not None:
            return "playing"
        if chouette.lineup is not None:
            return "paused"
        if chouette.formation is not None:
            return "forming"
        return "waiting"

    def awaiting(self) -> tuple[int, ...]:
        """The players whose decision the table waits for now."""
        game = self.game
        return game.awaiting() if game is not None else ()


def initial_state(table_id: str, spec: ChouetteSpec) -> ChouetteTableState:
    """The state of a fresh chouette, after checking its variant and options against the rules."""
    return ChouetteTableState(table_id, spec, _ask(lambda: Chouette.new(spec.options, spec.variant), "bad_settings"))


# ----- asking the rules


def _ask(check: Callable[[], T], code: str = "illegal") -> T:
    """The rules' answer; a refusal becomes an ActionError (``not_your_turn`` for a wrong player)."""
    try:
        return check()
    except WrongTurnError as error:
        raise ActionError("not_your_turn", str(error)) from None
    except RulesError as error:
        raise ActionError(code, str(error)) from None


# ----- folding events into the state


def apply_event(state: ChouetteTableState, event: NewEvent, at: datetime) -> ChouetteTableState:
    """The state after ``event`` (already accepted), at time ``at``."""
    kind, who, data = event.kind, event.seat, event.payload
    chouette = state.chouette
    if kind == "sat":
        user = data["user_id"]
        state = replace(
            state, chouette=chouette.sit(user), names={**state.names, user: data["name"]},
            client_seeds={**state.client_seeds, user: data["client_seed"]},
        )
    elif kind == "stood":
        state = replace(state, chouette=chouette.stand(data["user_id"]))
    elif kind == "client_seed_set":
        state = replace(state, client_seeds={**state.client_seeds, data["user_id"]: data["client_seed"]})
    elif kind == "seed_committed":
        state = replace(state, next_commitment=(data["number"], data["commitment"]))
    elif kind == "formation_started":
        state = replace(
            state, chouette=chouette.begin(), formation_open=True, **_round_started(data),
        )
    elif kind == "formation_rolled":
        dice = {player: die for player, die in data["dice"]}
        state = replace(
            state, chouette=chouette.formation_rolled(dice), roll_number=data["number"] + len(data["rolls"]),
        )
    elif kind == "formed":
        state = replace(state, formation_open=False)
    elif kind == "game_started":
        state = replace(state, game_open=True, pending=(), **_round_started(data))
    elif kind == "opening_rolled":
        state = _with_game(replace(state, roll_number=data["number"] + 1), lambda g: g.opening_roll(data["dice"]))
    elif kind == "rolled":
        assert who is not None
        state = _with_game(replace(state, roll_number=data["number"] + 1), lambda g: g.roll(who, data["dice"]))
    elif kind == "stepped":
        assert who is not None
        state = _stepped(state, TakeStep(who, step_from_dict(data)))
    elif kind == "undone":
        assert who is not None
        state = _stepped(state, UndoStep(who))
    elif kind == "passed":
        pass  # the roll before it already handed the turn over (the rules pass a roll with no play)
    elif kind == "moved":
        assert who is not None and state.game is not None
        steps = tuple(step_from_dict(s) for s in data["steps"])
        played = list(state.game.board.dice or ())
        last = {"player": who, "dice": played, "steps": data["steps"], "text": format_steps(steps)}
        state = _with_game(replace(state, pending=(), last_move=last), lambda g: g.move(who, steps))
    elif kind in _GAME_ACTIONS:
        assert who is not None
        state = _with_game(state, _GAME_ACTIONS[kind](who, data))
    elif kind == "timed_out":
        pass
    elif kind == "game_ended":
        state = replace(state, results_announced=state.results_announced + 1)
    else:
        raise ValueError(f"unknown chouette event kind {kind!r}")
    return _clocked(replace(state, version=state.version + 1), at)


_GAME_ACTIONS: dict[str, Callable[[int, dict[str, Any]], Callable[[ChouetteGame], ChouetteGame]]] = {
    "doubled": lambda who, _: lambda g: g.box_double(who),
    "double_proposed": lambda who, _: lambda g: g.propose_double(who),
    "voted": lambda who, d: lambda g: g.vote(who, d["agree"]),
    "box_answered": lambda who, d: lambda g: g.answer_team_double(who, d["takes"]),
    "took": lambda who, _: lambda g: g.answer_box_double(who, True),
    "dropped": lambda who, _: lambda g: g.answer_box_double(who, False),
    "resigned": lambda who, _: lambda g: g.resign(who),
}


def _stepped(state: ChouetteTableState, given: TakeStep | UndoStep) -> ChouetteTableState:
    """The state after a step or an undo of the board's turn in progress, as the rules' fold takes it
    (:func:`~nardy.rules.replay.turn_after`; who may step was checked when it was decided)."""
    game = state.game
    assert game is not None
    return replace(state, pending=turn_after(_turn(state, game), given).made)


def _round_started(data: dict[str, Any]) -> dict[str, Any]:
    seeds = data["client_seeds"]
    return {
        "number": data["number"], "commitment": data["commitment"], "round_client_seeds": (seeds[0], seeds[1]),
        "roll_number": 0,
    }


def _with_game(state: ChouetteTableState, change: Callable[[ChouetteGame], ChouetteGame]) -> ChouetteTableState:
    game = state.chouette.game
    assert game is not None
    changed = change(game)
    chouette = state.chouette.update(changed)
    if len(chouette.results) == len(state.chouette.results):
        return replace(state, chouette=chouette)
    return replace(
        state, chouette=chouette, game_open=False, pending=(), result_numbers=(*state.result_numbers, state.number),
        finished_game=changed,
    )


def _clocked(state: ChouetteTableState, at: datetime) -> ChouetteTableState:
    """One deadline per decision: a side's turn (roll and move), a vote, the box's answer, the members' answers."""
    game = state.game
    if game is None or game.phase in (ChouettePhase.OPENING, ChouettePhase.FINISHED):
        return replace(state, deadline=None, clock_key=None)
    key: tuple[object, ...] = (state.number, game.board.turns_played, game.phase.value)
    if game.phase in _BOARD_PHASES:
        key = (state.number, game.board.turns_played, "board", game.awaiting()[0])
    if key == state.clock_key:
        return state
    seconds = state.spec.move_seconds
    return replace(state, deadline=at + timedelta(seconds=seconds) if seconds else None, clock_key=key)


def fold(initial: ChouetteTableState, events: Sequence[tuple[NewEvent, datetime]]) -> ChouetteTableState:
    """Apply stored events in order."""
    state = initial
    for event, at in events:
        state = apply_event(state, event, at)
    return state


# ----- deciding what an action adds to the log


def sit_events(state: ChouetteTableState, user_id: int, name: str, client_seed: str) -> list[NewEvent]:
    """``user_id`` sits down (``POST .../join``); nothing when already seated; ``table_full`` or ``not_open``.

    A closed chouette (everyone left) stays closed: it is a finished session
    in its players' game histories, which a late join would reopen.
    """
    chouette = state.chouette
    if user_id in chouette.players:
        return []
    if state.status == "closed":
        raise ActionError("not_open", "this chouette has closed: everyone left")
    if len(chouette.players) >= state.spec.max_players:
        raise ActionError("table_full", f"all {state.spec.max_players} places are taken")
    _ask(lambda: chouette.sit(user_id), "not_open")
    return [NewEvent("sat", user_id, {"user_id": user_id, "name": name, "client_seed": client_seed})]


def decide(state: ChouetteTableState, user_id: int, action: dict[str, Any], roller: Roller) -> list[NewEvent]:
    """The events that ``user_id``'s ``action`` adds, or :class:`ActionError` naming why it is refused.

    ``action`` is a validated protocol message (``{"t": "vote", "agree": true}``, ...).
    ``team_say`` is not an event: see :func:`team_message`.
    """
    kind = action["t"]
    chouette = state.chouette
    if user_id not in chouette.players:
        raise ActionError("not_seated", "only the players of this chouette can act on it")
    if kind == "client_seed":
        try:
            seed = check_client_seed(action["seed"])
        except ValueError as error:
            raise ActionError("bad_client_seed", str(error)) from None
        return [NewEvent("client_seed_set", user_id, {"user_id": user_id, "client_seed": seed})]
    if kind == "leave":
        _ask(lambda: chouette.stand(user_id))
        return [NewEvent("stood", user_id, {"user_id": user_id})]
    if kind == "start":
        _ask(chouette.begin)
        upcoming = state.next_commitment
        assert upcoming is not None and upcoming[0] == state.number + 1
        first, second = chouette.seated[0], chouette.seated[1]
        return [NewEvent("formation_started", user_id, {
            "number": upcoming[0], "commitment": upcoming[1],
            "client_seeds": [state.client_seeds[first], state.client_seeds[second]],
        })]
    game = state.game
    if game is None:
        raise ActionError("not_playing", "no game is being played at this chouette now")
    if kind == "resign":
        if action.get("kind") is not None:
            raise ActionError("illegal", "a chouette resignation is scored from the position: send no kind")
        return [_checked(game, NewEvent("resigned", user_id))]
    if kind == "double":
        name = "doubled" if user_id == game.lineup.box else "double_proposed"
        return [_checked(game, NewEvent(name, user_id))]
    if kind == "vote":
        return [_checked(game, NewEvent("voted", user_id, {"agree": action["agree"]}))]
    if kind == "box_answer":
        return [_checked(game, NewEvent("box_answered", user_id, {"takes": sorted(set(action["takes"]))}))]
    if kind in ("take", "drop"):
        return [_checked(game, NewEvent("took" if kind == "take" else "dropped", user_id))]
    if kind == "roll":
        _expect_board_actor(game, user_id, ChouettePhase.ROLLING)
        dice = roller(state.roll_number)
        _ask(lambda: game.roll(user_id, dice))
        return roll_events(game.board, user_id, dice, state.roll_number)
    if kind not in ("step", "undo", "confirm", "move"):
        raise ActionError("unknown_action", f"{kind!r} is not an action of a chouette")
    _expect_board_actor(game, user_id, ChouettePhase.MOVING)
    return turn_events(_turn(state, game), user_id, action)


def opening_event(game: ChouetteGame, dice: tuple[int, int], number: int) -> NewEvent:
    """The ``opening_rolled`` event of opening roll ``number`` (``dice``: the box's die, the captain's), naming
    as ``first`` the player who plays first as the rules decide it: the box, or the captain when the
    captain's die is higher (000: «Игрок с большим значением ходит первым»); ``None`` on a tie, rolled
    again. As at a table, no opening roll passes (``table_state.opening_event``).
    """
    rolled = game.opening_roll(dice).board.history[-1]
    assert isinstance(rolled, OpeningRolled)
    first = None if rolled.first is None else game.lineup.box if rolled.first == BOX_SIDE else game.captain
    return NewEvent("opening_rolled", None, {"dice": list(dice), "number": number, "first": first})


def _turn(state: ChouetteTableState, game: ChouetteGame) -> Turn:
    """The turn in progress on the board (a chouette's moves are never final)."""
    return Turn(game.board, made=state.pending)


def _checked(game: ChouetteGame, event: NewEvent) -> NewEvent:
    """``event`` if the rules accept it on ``game``."""
    assert event.seat is not None
    _ask(lambda: _GAME_ACTIONS[event.kind](event.seat or 0, event.payload)(game))
    return event


def _expect_board_actor(game: ChouetteGame, user_id: int, phase: ChouettePhase) -> None:
    """Refuse unless ``user_id`` is the board actor (the box, or the acting captain) and the game is in ``phase``."""
    if game.phase in _BOARD_PHASES and game.awaiting() != (user_id,):
        raise ActionError("not_your_turn", "it is not your decision now")
    if game.phase is not phase:
        what = "roll only at the start of your turn" if phase is ChouettePhase.ROLLING else "move only after rolling"
        raise ActionError("illegal", f"the game is {game.phase.value}: you can {what}")


def forced_events(
    state: ChouetteTableState, pick: random.Random, roller: Roller, now: datetime,
) -> list[NewEvent]:
    """What the server does when the decision's time runs out (``docs/chouette.md``, *Clocks*).

    ``timed_out`` names who ran out, then: on a turn, a uniformly random legal
    play (rolling first if needed); on the box's double, every member yet to
    answer passes; on a team vote, the first member yet to vote refuses (one
    refusal is enough); on a team double, the box passes every cube.
    """
    game = state.game
    assert game is not None
    waiting = game.awaiting()
    events = [NewEvent("timed_out", None, {"players": list(waiting)})]
    phase = game.phase
    if phase is ChouettePhase.BOX_DOUBLED:
        return [*events, *(NewEvent("dropped", member) for member in waiting)]
    if phase is ChouettePhase.TEAM_VOTE:
        return [*events, NewEvent("voted", waiting[0], {"agree": False})]
    if phase is ChouettePhase.TEAM_DOUBLED:
        return [*events, NewEvent("box_answered", game.lineup.box, {"takes": []})]
    assert phase in _BOARD_PHASES
    actor = waiting[0]
    if phase is ChouettePhase.ROLLING:
        rolled = roll_events(game.board, actor, roller(state.roll_number), state.roll_number)
        events.extend(rolled)
        state = fold(state, [(event, now) for event in rolled])
        game = state.game
        if game is None or game.phase is not ChouettePhase.MOVING or game.awaiting() != (actor,):
            return events
    events.append(moved_event(actor, _turn(state, game).timeout_play(pick)))
    return events


# ----- the team channel


def team_message(state: ChouetteTableState, user_id: int, action: dict[str, Any]) -> tuple[tuple[int, ...], TeamSaid]:
    """Who receives ``user_id``'s ``team_say`` (the team at this moment), and what they receive.

    Refused for anyone not on the team now: the box, a newcomer waiting for
    the next game, a spectator.
    """
    chouette = state.chouette
    if user_id not in chouette.players:
        raise ActionError("not_seated", "only the players of this chouette can act on it")
    lineup = chouette.lineup
    if lineup is None or user_id not in lineup.team:
        raise ActionError("not_on_team", "only the members of the team use the team channel")
    return lineup.team, TeamSaid(
        state.id, user_id, state.names.get(user_id, ""), action.get("text", ""), action.get("suggest"),
        action.get("steps"),
    )


# ----- the view sent to clients


def view(state: ChouetteTableState, *, now: datetime) -> dict[str, Any]:
    """The chouette as clients see it at this version: one view for players and spectators alike."""
    chouette = state.chouette
    spec = state.spec
    formation = chouette.formation
    return {
        "table": state.id,
        "kind": CHOUETTE_KIND,
        "variant": spec.variant,
        "version": state.version,
        "status": state.status,
        "max_players": spec.max_players,
        "move_seconds": spec.move_seconds,
        "options": {"jacoby": spec.options.jacoby, "backgammon_value": spec.options.backgammon_value},
        "private": spec.private,
        "players": [
            {"user_id": p, "name": state.names.get(p, ""), "role": _role(chouette, p),
             "leaving": p in chouette.leaving, "score": chouette.score_of(p), "client_seed": state.client_seeds.get(p)}
            for p in chouette.players
        ],
        "scores": [{"user_id": p, "name": state.names.get(p, ""), "score": score} for p, score in chouette.scores],
        "formation": None if formation is None else {
            "to_roll": list(formation.to_roll),
            "rolls": [[[p, die] for p, die in rolled] for rolled in formation.rolls],
        },
        "game": _game_view(state),
        "results": [
            {"number": number, "box": r.box, "captain": r.captain, "team_won": r.team_won,
             "kind": r.kind.value if r.kind is not None else None, "points": [[p, points] for p, points in r.points]}
            for number, r in zip(state.result_numbers, chouette.results, strict=True)
        ],
        "last_move": state.last_move,
        "deadline": state.deadline.isoformat() if state.deadline else None,
        "server_time": now.isoformat(),
        "commitment": state.commitment,
        "client_seeds": list(state.round_client_seeds),
        "next_commitment": (
            None if state.next_commitment is None
            else {"number": state.next_commitment[0], "commitment": state.next_commitment[1]}
        ),
    }


def _role(chouette: Chouette, player: int) -> str:
    lineup = chouette.lineup
    if lineup is None:
        return "seated"
    if player == lineup.box:
        return "box"
    if player == lineup.captain:
        return "captain"
    return "member" if player in lineup.team else "joining"


def _game_view(state: ChouetteTableState) -> dict[str, Any] | None:
    game = state.game
    if game is None:
        return None
    board = game.board
    turn = _turn(state, game)
    boards = shown_boards(turn)
    phase = game.phase
    legal: dict[str, Any] | None = None
    if phase in _BOARD_PHASES:
        refusal = game.double_refusal(game.awaiting()[0])
        legal = {"steps": [], "can_confirm": False, "can_undo": False}
        if phase is ChouettePhase.MOVING:
            legal = moving_legal(turn)
        legal.update({"can_double": refusal is None, "double_refusal": refusal})
    return {
        "number": state.number,
        "phase": phase.value,
        "box": game.lineup.box,
        "captain": game.lineup.captain,
        "acting_captain": game.captain,
        "turn": None if phase is ChouettePhase.OPENING else "box" if game.turn_side == BOX_SIDE else "team",
        "awaiting": list(game.awaiting()),
        "dice": list(board.dice) if board.dice else None,
        "pending": [step_dict(s) for s in state.pending],
        "boards": {"box": position_to_dict(boards[0]), "team": position_to_dict(boards[1])},
        "pips": {"box": boards[0].pip_counts()[0], "team": boards[1].pip_counts()[0]},
        "stakes": [
            {"member": s.member, "value": s.value, "owner": s.owner, "result": s.result, "how": s.how}
            for s in game.stakes
        ],
        "agreed": sorted(game.agreed),
        "answers": [{"member": m, "take": take} for m, take in game.answers],
        "legal": legal,
    }
