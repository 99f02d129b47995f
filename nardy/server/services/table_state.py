"""A table's state as a pure fold of its event log, and the decisions that extend the log.

The server never decides a rule itself: every event that is an input of the
match (a roll, a pass, a step, a move, a cube or resignation decision, ...)
is folded by the rules' one fold of a match,
:class:`nardy.rules.replay.Replay`, and every action is checked by asking
the rules what is legal. The same fold rebuilds a table after a restart,
feeds replays and checks actions, and transcripts, match files and the
analysis fold by it too, so there is one path from the log to the state.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal, cast

from nardy.notation import format_steps, position_to_dict
from nardy.notation.fair_dice import check_client_seed
from nardy.notation.json_codec import options_to_dict, step_to_dict
from nardy.notation.transcript import input_of_event
from nardy.rules import (
    Game,
    GameOptions,
    Match,
    OpeningRolled,
    Phase,
    Position,
    RulesError,
    Step,
    Turn,
    find_variant,
)
from nardy.rules.replay import GameInput, Move, OpeningRoll, Replay, Roll
from nardy.rules.turn import whole_play as rules_whole_play

TableStatus = Literal["waiting", "playing", "finished"]
MAX_STAKE = 1_000_000
"""The largest stake per point a table may state."""
Roller = Callable[[int], tuple[int, int]]
"""Gives the dice of roll ``number`` of the current game (server-rolled, provably fair)."""


class ActionError(ValueError):
    """An action the table refuses; ``code`` is machine-readable, the message says why."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def moves_final_at_new_table(variant: str, chosen: bool | None, *, against_computer: bool, binding: bool) -> bool:
    """Whether moves are final at a new table: the creator's choice, else the default for who plays there.

    004's «Ходы окончательны: сделанный ход нельзя отменить» is a rule of that
    platform's tables between people, so the variant's default
    (``Variant.moves_final``) holds there. Against the computer (004: «тренируйтесь
    с компьютером в любое время ... Эти партии не учитываются в рейтинге») the
    player may undo before confirming unless they tick the option. At a
    ``binding`` table (rated, or a tournament's) a creator may make moves final
    but may not take finality away from a variant whose default it is: an
    :class:`ActionError` says so (docs/rules.md, decisions of 2026-12-02).
    """
    default = find_variant(variant).moves_final
    if binding and default and chosen is False:
        raise ActionError(
            "moves_final_required",
            f"moves are final at rated and tournament tables of {variant} (004's rule): "
            "leave moves_final on, or play unrated to undo steps before confirming",
        )
    if chosen is not None:
        return chosen
    return default and not against_computer


@dataclass(frozen=True, slots=True)
class TableSpec:
    """What a table was created with; a rematch copies it.

    The time control is one of three: none; a limit per decision
    (``move_seconds``, 004's 30 to 120 s, or correspondence days); or a
    *bank clock* (``delay_seconds`` and ``bank_seconds_per_point``): each
    decision first spends the delay, then the deciding player's bank, which
    starts at ``bank_seconds_per_point`` for every point of the match (one
    point's worth, refilled each game, in money play). Rated tables have a
    bank clock.
    """

    variant: str
    match_length: int
    options: GameOptions
    move_seconds: int | None = None
    rated: bool = False
    private: bool = False
    delay_seconds: int | None = None
    bank_seconds_per_point: int | None = None

    final: bool | None = None
    """The creator's choice of "moves are final" (docs/rules.md, 2026-12-02); ``None`` takes the variant's default."""
    stake: int = 0
    """Virtual coins per match point (0: not played for coins; :mod:`~nardy.server.services.coins`)."""

    @property
    def coins_at_stake(self) -> int:
        """What the match is worth in coins: its length × the stake, the winner's gain and the loser's loss.

        A match to N points is won or lost once, whatever the cube (up to 64,
        seed 000) and gammons did on the way: the rules end it at N points, so
        this is also the most a player can lose at the table.
        """
        return self.stake * self.match_length

    @property
    def moves_final(self) -> bool:
        """Moves are final (004: «Ходы окончательны: сделанный ход нельзя отменить»): no step is
        undone, and the step that completes a play ends the turn without a confirm."""
        return find_variant(self.variant).moves_final if self.final is None else self.final

    def options_dict(self) -> dict[str, Any]:
        """The options as JSON-ready data: the game's, and whether moves are final."""
        return {**options_to_dict(self.options), "moves_final": self.moves_final}

    @property
    def has_bank_clock(self) -> bool:
        """True when decisions are timed by a delay and a time bank per player."""
        return self.delay_seconds is not None and self.bank_seconds_per_point is not None

    @property
    def bank_seconds(self) -> float:
        """Each player's bank when the match (or, in money play, each game) begins."""
        return float((self.bank_seconds_per_point or 0) * max(1, self.match_length))


@dataclass(frozen=True, slots=True)
class Seat:
    """Who sits in a seat: a user, or a bot of some level (``user_id`` None)."""

    user_id: int | None
    name: str
    bot: str | None
    client_seed: str
    guest: bool = False
    """A guest without an account (their results are never rated)."""


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event about to be appended: its kind, the seat it concerns, its public payload."""

    kind: str
    seat: int | None
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TableState:
    """Everything about a table that follows from its spec and its events."""

    id: str
    spec: TableSpec
    seats: tuple[Seat | None, Seat | None] = (None, None)
    status: TableStatus = "waiting"
    play: Replay | None = None
    """The match and the turn in progress of its game, folded by the rules (:class:`~nardy.rules.replay.Replay`),
    once the match has started."""
    game_number: int = 0
    commitment: str | None = None
    next_commitment: tuple[int, str] | None = None
    """The game number and seed commitment published ahead of that game (before its client seeds are fixed)."""
    game_client_seeds: tuple[str, str] = ("", "")
    """The client seeds in force for the current game, fixed when it started."""
    roll_number: int = 0
    games_announced: int = 0
    ties_announced: int = 0
    """The ties of the game in play (plakoto: both mothers pinned, the game starts again) a ``game_tied`` told."""
    last_move: dict[str, Any] | None = None
    last_result: dict[str, Any] | None = None
    whites: tuple[int, ...] = ()
    """The seat that played white in each finished game, in order."""
    finished_game: Game | None = None
    """The last finished game as it ended (the match has already begun the next one)."""
    rematch_offers: frozenset[int] = frozenset()
    rematch_table: str | None = None
    chat_spectators: frozenset[int] = frozenset()
    """The players (user ids) who let spectators read the chat (``chat_spectators_set``; docs/protocol.md, *Chat*)."""
    version: int = 0
    deadline: datetime | None = None
    clock_key: tuple[object, ...] | None = None
    """Which decision the clock is timing: (game, turns played, actor, answering a cube or resignation)."""
    clock_started: datetime | None = None
    """When the decision the clock is timing began."""
    banks: tuple[float, float] | None = None
    """With a bank clock: each seat's bank in seconds, as it stood when the timed decision began."""
    rated_result: bool | None = None
    """Whether the finished match changed the ratings (from its ``match_ended`` event); None before the end."""

    @property
    def match(self) -> Match | None:
        """The match, once started."""
        return self.play.match if self.play is not None else None

    @property
    def pending(self) -> tuple[Step, ...]:
        """The steps made of the roll and not yet confirmed."""
        return self.play.turn.made if self.play is not None else ()

    @property
    def game(self) -> Game | None:
        """The game in play (or just finished), if the match has started."""
        return self.match.game if self.match is not None else None

    def chat_public(self) -> bool:
        """Whether spectators may read the chat: always at an unrated table, at a rated one while both players
        allow it."""
        if not self.spec.rated:
            return True
        return all(seat is not None and seat.user_id in self.chat_spectators for seat in self.seats)

    def seat_of(self, user_id: int) -> int | None:
        """The seat ``user_id`` occupies, if any."""
        for index, seat in enumerate(self.seats):
            if seat is not None and seat.user_id == user_id:
                return index
        return None

    def actor(self) -> int | None:
        """The seat whose decision the table waits for (the rules' :attr:`Game.actor`), or None
        while the match is not being played."""
        if self.status != "playing" or self.match is None or self.match.is_over:
            return None
        return self.match.game.actor

    def turn(self) -> Turn:
        """The turn in progress: the steps made of the game's roll, under the table's moves-final option."""
        assert self.play is not None
        return self.play.turn


# ----- folding events into the state


def step_dict(step: Step) -> dict[str, Any]:
    """A step as the JSON-ready data of an event's payload or a view (the notation's codec)."""
    return cast(dict[str, Any], step_to_dict(step))


def apply_event(state: TableState, event: NewEvent, at: datetime) -> TableState:
    """The state after ``event`` (already accepted), at time ``at``.

    Every event's changes are made in one copy of the state (and the clock's
    in a second, where a new decision begins): the server folds every event
    it writes, and copying a state of two dozen fields is most of a fold.
    """
    changes = _event_changes(state, event)
    changes["version"] = state.version + 1
    return _clocked(replace(state, **changes), at)


def _event_changes(state: TableState, event: NewEvent) -> dict[str, Any]:
    """The fields ``event`` changes, with their new values."""
    kind, seat, data = event.kind, event.seat, event.payload
    if kind in GAME_INPUT_EVENTS:
        return _played(state, event)
    if kind == "seated":
        seats = list(state.seats)
        seats[data["seat"]] = Seat(
            data.get("user_id"), data["name"], data.get("bot"), data["client_seed"], bool(data.get("guest", False)),
        )
        return {"seats": (seats[0], seats[1])}
    if kind == "left":
        seats = list(state.seats)
        seats[data["seat"]] = None
        return {"seats": (seats[0], seats[1])}
    if kind == "match_started":
        spec = state.spec
        match = Match.new(spec.variant, length=spec.match_length, options=spec.options)
        banks = (spec.bank_seconds, spec.bank_seconds) if spec.has_bank_clock else None
        return {"play": Replay.new(match, final=spec.moves_final), "status": "playing", "banks": banks}
    if kind == "seed_committed":
        return {"next_commitment": (data["number"], data["commitment"])}
    if kind == "client_seed_set":
        seats = list(state.seats)
        current = seats[data["seat"]]
        assert current is not None
        seats[data["seat"]] = replace(current, client_seed=data["client_seed"])
        return {"seats": (seats[0], seats[1])}
    if kind == "game_started":
        seeds = data["client_seeds"]
        changes: dict[str, Any] = {
            "game_number": data["number"], "commitment": data["commitment"], "roll_number": 0,
            "game_client_seeds": (seeds[0], seeds[1]), "ties_announced": 0,
        }
        if state.spec.has_bank_clock and state.spec.match_length == 0:
            changes["banks"] = (state.spec.bank_seconds, state.spec.bank_seconds)
        return changes
    if kind == "game_ended":
        return {"games_announced": state.games_announced + 1, "last_result": data["result"]}
    if kind == "game_tied":
        return {"ties_announced": state.ties_announced + 1}
    if kind == "match_ended":
        return {"status": "finished", "rated_result": data.get("rated")}
    if kind == "rematch_offered":
        assert seat is not None
        return {"rematch_offers": state.rematch_offers | {seat}}
    if kind == "rematch_created":
        return {"rematch_table": data["table"]}
    if kind == "chat_spectators_set":
        allowing = state.chat_spectators - {data["user_id"]}
        return {"chat_spectators": (allowing | {data["user_id"]}) if data["allow"] else allowing}
    raise ValueError(f"unknown event kind {kind!r}")


GAME_INPUT_EVENTS = frozenset({
    "opening_rolled", "rolled", "passed", "stepped", "undone", "moved", "doubled", "took", "beavered", "dropped",
    "resigned", "resignation_accepted", "resignation_declined", "timed_out", "forfeited",
})
"""The events that are an input of the match (docs/protocol.md, *Events*): each is folded by the rules."""


def game_input(event: NewEvent) -> GameInput:
    """The rules' input ``event`` is (one of :data:`GAME_INPUT_EVENTS`)."""
    given = input_of_event(event.kind, event.seat, event.payload)
    assert given is not None, event
    return given


def _played(state: TableState, event: NewEvent) -> dict[str, Any]:
    """The changes of the input of the match that ``event`` is (a roll, a pass, a step or its undo, a move,
    a cube or resignation decision, a timeout, a forfeit), folded by the rules' one fold of a match
    (:class:`~nardy.rules.replay.Replay`) that records, transcripts and the analysis replay by."""
    before = state.play
    assert before is not None
    given = game_input(event)
    changes: dict[str, Any] = {}
    if isinstance(given, (OpeningRoll, Roll)):
        changes["roll_number"] = event.payload["number"] + 1
    elif isinstance(given, Move):
        changes["last_move"] = {
            "seat": event.seat, "dice": list(before.game.dice or ()), "steps": event.payload["steps"],
            "text": format_steps(given.steps),
        }
    play = before.apply(given)
    changes["play"] = play
    if play.finished is not None:
        changes["whites"] = (*state.whites, play.finished.white)
        changes["finished_game"] = play.finished
    return changes


def _checked(state: TableState, event: NewEvent) -> list[NewEvent]:
    """``[event]`` when the rules accept the input it is, else an ``illegal`` ActionError saying why."""
    play = state.play
    assert play is not None
    given = game_input(event)
    refuse_rules(lambda: play.apply(given))
    return [event]


def _clocked(state: TableState, at: datetime) -> TableState:
    """Restart the move clock whenever a new decision begins (a turn, a cube or resignation answer).

    With a bank clock, the decision that just ended is charged first: the
    time it took beyond the delay comes off its seat's bank (never below
    zero; a timeout empties it). The deadline of the new decision is the
    delay plus the actor's bank, so it is the same in every process that
    folds the log, whatever its own clock says.
    """
    actor = state.actor()
    game = state.game
    key: tuple[object, ...] | None = None
    if actor is not None and game is not None:
        key = (state.game_number, game.turns_played, actor, game.phase in (Phase.DOUBLED, Phase.RESIGNATION))
    if key is not None and key == state.clock_key:
        return state
    banks = _charged_banks(state, at)
    if key is None or actor is None:
        return replace(state, banks=banks, deadline=None, clock_key=None, clock_started=None)
    spec = state.spec
    deadline: datetime | None = None
    if spec.move_seconds:
        deadline = at + timedelta(seconds=spec.move_seconds)
    elif spec.has_bank_clock and banks is not None:
        deadline = at + timedelta(seconds=(spec.delay_seconds or 0) + banks[actor])
    return replace(state, banks=banks, deadline=deadline, clock_key=key, clock_started=at)


def _charged_banks(state: TableState, at: datetime) -> tuple[float, float] | None:
    """The banks with the decision timed so far charged to its seat's (a bank clock only)."""
    if state.banks is None or state.clock_key is None or state.clock_started is None:
        return state.banks
    seat = state.clock_key[2]
    assert isinstance(seat, int)
    spent = (at - state.clock_started).total_seconds() - (state.spec.delay_seconds or 0)
    if spent <= 0:
        return state.banks
    banks = list(state.banks)
    banks[seat] = max(0.0, banks[seat] - spent)
    return (banks[0], banks[1])


def fold(initial: TableState, events: Sequence[tuple[NewEvent, datetime]]) -> TableState:
    """Apply stored events in order."""
    state = initial
    for event, at in events:
        state = apply_event(state, event, at)
    return state


# ----- deciding what an action adds to the log


def decide(state: TableState, seat: int, action: dict[str, Any], roller: Roller) -> list[NewEvent]:
    """The events that ``seat``'s ``action`` adds, or :class:`ActionError` naming why it is refused.

    ``action`` is a validated protocol message: ``{"t": "roll"}``,
    ``{"t": "step", "source": 13, "die": 5}``, ``{"t": "move", "steps": [...]}``, ...
    """
    kind = action["t"]
    if kind == "client_seed":
        return _decide_client_seed(state, seat, action["seed"])
    if kind == "rematch":
        return _decide_rematch(state, seat)
    if kind == "leave":
        return _decide_leave(state, seat)
    if kind == "chat_spectators":
        return _decide_chat_spectators(state, seat, action["allow"])
    game = _playing_game(state)
    if kind == "resign":
        return _checked(state, NewEvent("resigned", seat, {"kind": action.get("kind")}))
    if kind in ("accept_resignation", "decline_resignation"):
        name = "resignation_accepted" if kind == "accept_resignation" else "resignation_declined"
        return _checked(state, NewEvent(name, seat))
    if state.actor() != seat:
        raise ActionError("not_your_turn", "it is not your decision now")
    if kind == "roll":
        if game.phase is not Phase.ROLLING:
            raise ActionError("illegal", "you can roll only at the start of your turn")
        return roll_events(game, seat, roller(state.roll_number), state.roll_number)
    if kind in ("double", "take", "drop", "beaver"):
        name = {"double": "doubled", "take": "took", "drop": "dropped", "beaver": "beavered"}[kind]
        return _checked(state, NewEvent(name, seat))
    if kind in ("step", "undo", "confirm", "move"):
        return turn_events(state.turn(), seat, action)
    raise ActionError("unknown_action", f"unknown action {kind!r}")


def _playing_game(state: TableState) -> Game:
    if state.status != "playing" or state.match is None or state.match.is_over:
        raise ActionError("not_playing", "the match is not in progress")
    return state.match.game


def refuse_rules(check: Callable[[], object]) -> None:
    """Run ``check``; a :class:`RulesError` becomes an ``illegal`` ActionError with the rules' message."""
    try:
        check()
    except RulesError as error:
        raise ActionError("illegal", str(error)) from None


def whole_play(game: Game, steps: Sequence[dict[str, Any]]) -> tuple[Step, ...]:
    """The legal sequence matching the ``move`` action's ``steps`` (hits filled in by the rules), or ActionError."""
    wanted = [(step["source"], step["target"], step["die"]) for step in steps]
    try:
        return rules_whole_play(game, wanted)
    except RulesError as error:
        raise ActionError("illegal", str(error)) from None


def turn_events(turn: Turn, seat: int, action: dict[str, Any]) -> list[NewEvent]:
    """The events a ``step``, ``undo``, ``confirm`` or ``move`` action of ``seat`` adds to ``turn``, as the
    rules' :class:`~nardy.rules.turn.Turn` decides them; ``seat`` is the mover's name in the log (a seat
    at a table, a user id at a chouette). Where moves are final, the step completing a play ends the
    turn (004), so a ``moved`` follows its ``stepped``."""
    kind = action["t"]
    try:
        if kind == "step":
            after = turn.push(action["source"], action["die"])
            events = [NewEvent("stepped", seat, step_dict(after.made[-1]))]
            if after.ends_itself:
                events.append(moved_event(seat, after.made))
            return events
        if kind == "undo":
            turn.pop()
            return [NewEvent("undone", seat)]
        if kind == "confirm":
            return [moved_event(seat, turn.play())]
    except RulesError as error:
        raise ActionError("illegal", str(error)) from None
    return [moved_event(seat, whole_play(turn.game, action["steps"]))]


def moved_event(seat: int, steps: Sequence[Step]) -> NewEvent:
    """The ``moved`` event of ``seat``'s play ``steps``."""
    return NewEvent("moved", seat, {"steps": [step_dict(s) for s in steps]})


def roll_events(game: Game, seat: int, dice: tuple[int, int], number: int) -> list[NewEvent]:
    """The ``rolled`` event of ``seat``'s roll ``number`` (``dice``), and ``passed`` after it when the rules
    find no legal play of it (003: «Такой ход обозначен как "pass" в записи игры»).

    ``game`` is the board the roll is made on; ``seat`` names the roller in the log.
    """
    events = [NewEvent("rolled", seat, {"dice": list(dice), "number": number})]
    if game.roll(game.turn, dice).last_pass is not None:
        events.append(NewEvent("passed", seat, {"dice": list(dice)}))
    return events


def opening_event(game: Game, dice: tuple[int, int], number: int) -> NewEvent:
    """The ``opening_rolled`` event of opening roll ``number`` (``dice``), naming the seat that plays first
    as the rules decide it (``None`` on a tie, rolled again).

    No opening roll passes: it is played from the starting position, where every roll has a play
    (``test_no_opening_roll_passes``), so no ``passed`` follows it.
    """
    first = game.opening_roll(dice).history[-1]
    assert isinstance(first, OpeningRolled)
    return NewEvent("opening_rolled", None, {"dice": list(dice), "number": number, "first": first.first})


def _decide_client_seed(state: TableState, seat: int, seed: str) -> list[NewEvent]:
    """A player's own contribution to the dice of every game not yet started (see dice.py)."""
    if state.status == "finished":
        raise ActionError("illegal", "the match is over")
    try:
        check_client_seed(seed)
    except ValueError as error:
        raise ActionError("bad_client_seed", str(error)) from None
    return [NewEvent("client_seed_set", seat, {"seat": seat, "client_seed": seed})]


def _decide_rematch(state: TableState, seat: int) -> list[NewEvent]:
    if state.status != "finished":
        raise ActionError("illegal", "a rematch is offered after the match ends")
    if seat in state.rematch_offers or state.rematch_table is not None:
        raise ActionError("illegal", "the rematch is already offered")
    return [NewEvent("rematch_offered", seat)]


def _decide_chat_spectators(state: TableState, seat: int, allow: bool) -> list[NewEvent]:
    """A player lets spectators read the chat, or stops letting them; at any time, even after the match."""
    player = state.seats[seat]
    assert player is not None and player.user_id is not None
    if (player.user_id in state.chat_spectators) == allow:
        raise ActionError("illegal", "you already let spectators read the chat" if allow
                          else "you already keep the chat from spectators")
    return [NewEvent("chat_spectators_set", seat, {"seat": seat, "user_id": player.user_id, "allow": allow})]


def _decide_leave(state: TableState, seat: int) -> list[NewEvent]:
    if state.status == "playing":
        return [NewEvent("forfeited", seat)]
    if state.status == "waiting":
        return [NewEvent("left", seat, {"seat": seat})]
    raise ActionError("illegal", "the match is over; there is nothing to leave")


def forced_events(
    state: TableState, seat: int, pick: random.Random, roller: Roller, now: datetime,
) -> list[NewEvent]:
    """What the server plays for ``seat`` whose time ran out at ``now`` (004): a uniformly random
    legal play completing the turn, a pass of a pending double, a declined resignation."""
    events: list[NewEvent] = []
    game = state.game
    assert game is not None
    if game.phase is Phase.DOUBLED:
        return [NewEvent("dropped", seat)]
    if game.phase is Phase.RESIGNATION:
        return [NewEvent("resignation_declined", seat)]
    if game.phase is Phase.ROLLING:
        rolled = roll_events(game, seat, roller(state.roll_number), state.roll_number)
        events.extend(rolled)
        state = fold(state, [(event, now) for event in rolled])
        game = state.game
        assert game is not None
        if game.phase is not Phase.MOVING or game.turn != seat:
            return events
    events.append(moved_event(seat, state.turn().timeout_play(pick)))
    return events


# ----- the view sent to clients


def view(state: TableState, *, now: datetime) -> dict[str, Any]:
    """The table as clients see it at this version: one view for players and spectators alike."""
    spec = state.spec
    data: dict[str, Any] = {
        "table": state.id,
        "version": state.version,
        "variant": spec.variant,
        "match_length": spec.match_length,
        "options": spec.options_dict(),
        "move_seconds": spec.move_seconds,
        "delay_seconds": spec.delay_seconds,
        "bank_seconds_per_point": spec.bank_seconds_per_point,
        "rated": spec.rated,
        "unrated_reason": unrated_reason(state),
        "stake": spec.stake,
        "coins_at_stake": spec.coins_at_stake,
        "private": spec.private,
        "status": state.status,
        "seats": [
            None if s is None else {
                "user_id": s.user_id, "name": s.name, "bot": s.bot, "guest": s.guest, "client_seed": s.client_seed,
            }
            for s in state.seats
        ],
        "server_time": now.isoformat(),
        "deadline": state.deadline.isoformat() if state.deadline else None,
        "banks": [round(b, 3) for b in state.banks] if state.banks is not None else None,
        "actor": state.actor(),
        "game_number": state.game_number,
        "commitment": state.commitment,
        "client_seeds": list(state.game_client_seeds),
        "next_commitment": (
            None if state.next_commitment is None
            else {"game": state.next_commitment[0], "commitment": state.next_commitment[1]}
        ),
        "last_move": state.last_move,
        "last_result": state.last_result,
        "rematch": {"offers": sorted(state.rematch_offers), "table": state.rematch_table},
        "chat": {
            "spectators": [seat is not None and seat.user_id in state.chat_spectators for seat in state.seats],
            "public": state.chat_public(),
        },
        "match": None,
        "game": None,
    }
    match = state.match
    if match is None:
        return data
    data["match"] = {
        "score": list(match.score),
        "crawford": match.game.context.crawford,
        "timeouts": list(match.timeouts),
        "winner": match.winner,
        "ended_by": match.ended_by,
        "rated": state.rated_result,
    }
    data["game"] = _game_view(state, match.game)
    return data


def shown_boards(turn: Turn) -> tuple[Position, Position]:
    """The position seen from each side (0, 1), with the steps made this turn applied."""
    shown = turn.position()
    return (shown if turn.game.turn == 0 else shown.turned(), shown if turn.game.turn == 1 else shown.turned())


def moving_legal(turn: Turn) -> dict[str, Any]:
    """The mover's choices: the steps that may follow those made, and whether to confirm or undo."""
    return {
        "steps": [step_dict(s) for s in turn.next_steps],
        "can_confirm": turn.can_confirm,
        "can_undo": turn.can_undo,
    }


def only_play(game: Game) -> list[dict[str, Any]] | None:
    """The steps of the turn's play when the rules allow exactly one (a forced play), else None."""
    play = game.only_play()
    return None if play is None else [step_dict(s) for s in play.steps]


def resign_view(game: Game) -> dict[str, Any] | None:
    """What each seat may resign for now and what it costs, as the rules score it; None when no
    one may resign (the game is over, or an offer awaits its answer).

    ``offers``: the opponent accepts or declines (backgammon, dave); otherwise the game ends at
    once. ``choices[seat]``: ``{"kind", "points"}`` for each result that seat may offer, or the
    one result its resignation gives.
    """
    if game.phase in (Phase.FINISHED, Phase.RESIGNATION):
        return None
    return {
        "offers": game.variant.resignation_offers,
        "choices": [
            [{"kind": result.kind.value, "points": result.points} for result in game.resignation_choices(seat)]
            for seat in (0, 1)
        ],
    }


def _game_view(state: TableState, game: Game) -> dict[str, Any]:
    turn = state.turn()
    boards = shown_boards(turn)
    actor = state.actor()
    legal: dict[str, Any] | None = None
    if actor is not None and game.phase is Phase.MOVING:
        legal = moving_legal(turn)
        legal["only_play"] = only_play(game)
    elif actor is not None and game.phase is Phase.ROLLING:
        legal = {"can_double": game.can_double(actor), "double_refusal": game.double_refusal(actor)}
    elif actor is not None and game.phase is Phase.DOUBLED:
        legal = {"can_beaver": game.can_beaver(actor)}
    return {
        "variant": game.variant.name,
        "phase": game.phase.value,
        "turn": game.turn,
        "white": game.white,
        "dice": list(game.dice) if game.dice else None,
        "cube": {"value": game.cube.value, "owner": game.cube.owner},
        "pending": [step_dict(s) for s in state.pending],
        "boards": [position_to_dict(b) for b in boards],
        "pips": list(boards[0].pip_counts()),
        "resignation": (
            None if game.pending_resignation is None
            else {"seat": game.pending_resignation[0], "kind": game.pending_resignation[1].value}
        ),
        "resign": resign_view(game),
        "legal": legal,
    }


def unrated_reason(state: TableState) -> str | None:
    """Why the match's result will not change the ratings, or None when it will (004).

    The one rule for both the view (shown before the match starts and after
    it ends) and the rating rows written when it ends: ``not_rated`` (the
    table was opened unrated), ``computer`` (the computer holds a seat),
    ``guest`` (a player without an account holds one), ``same_player`` (one
    account holds both). Where the players connect from plays no part.
    """
    if not state.spec.rated:
        return "not_rated"
    seats = [seat for seat in state.seats if seat is not None]
    if any(seat.bot is not None or seat.user_id is None for seat in seats):
        return "computer"
    if any(seat.guest for seat in seats):
        return "guest"
    if len(seats) == 2 and seats[0].user_id == seats[1].user_id:
        return "same_player"
    return None


def initial_state(table_id: str, spec: TableSpec) -> TableState:
    """The state of a freshly created table, after checking its spec against the rules and its time control.

    A table has at most one kind of clock, and a rated one must have the bank
    clock. A stake needs a match to a number of points (money play has no
    bounded loss) and a time control (a vanished opponent loses on time).
    """
    rules = find_variant(spec.variant)
    try:
        rules.check_options(spec.options, spec.match_length)
    except RulesError as error:
        raise ActionError("bad_settings", str(error)) from None
    if (spec.delay_seconds is None) != (spec.bank_seconds_per_point is None):
        raise ActionError("bad_settings", "a bank clock needs both its delay and its bank per point")
    if spec.has_bank_clock and spec.move_seconds is not None:
        raise ActionError("bad_settings", "choose a time per move or a bank clock, not both")
    if spec.rated and not spec.has_bank_clock:
        raise ActionError(
            "clock_required", "rated tables need a time control: a delay per move and a time bank per point",
        )
    if spec.stake < 0 or spec.stake > MAX_STAKE:
        raise ActionError("bad_settings", f"a stake is 0 to {MAX_STAKE} coins per point")
    if spec.stake and spec.match_length < 1:
        raise ActionError(
            "bad_settings", "coins are played for in a match to a number of points: money play has no end "
                            "and no limit to what it can cost",
        )
    if spec.stake and not spec.move_seconds and not spec.has_bank_clock:
        raise ActionError(
            "clock_required", "a coin table needs a time control, so that a player who goes away loses on time "
                              "instead of holding both players' coins for ever",
        )
    return TableState(table_id, spec)
