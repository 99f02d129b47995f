"""A match as the actions its players took, whatever it was read from: a table's record, a .mat or an SGF file.

A :class:`Transcript` holds the match's facts (variant, length, options,
players) and, per game, the actions in order: the opening roll, each roll,
each whole move (a pass is a roll that cannot be played and needs no
action), each cube and resignation decision, timeouts and a forfeit.
Nothing here decides legality: :func:`replay` folds the actions, as the
rules' inputs (:func:`as_input`), through :class:`nardy.rules.replay.Replay`,
which refuses an illegal one, and yields each game's states as the match
went, the analysis and the writers' source.

>>> record = {"variant": "backgammon", "match_length": 1, "options": {"cube": False},
...           "events": [{"kind": "seated", "seat": 0, "payload": {"name": "ann"}},
...                      {"kind": "seated", "seat": 1, "payload": {"name": "bob"}},
...                      {"kind": "match_started", "seat": None, "payload": {}},
...                      {"kind": "opening_rolled", "seat": None, "payload": {"dice": [3, 1]}},
...                      {"kind": "moved", "seat": 0, "payload": {"steps": [
...                          {"source": 8, "target": 5, "die": 3}, {"source": 6, "target": 5, "die": 1}]}}]}
>>> transcript = transcript_from_record(record)
>>> [(a.kind, a.player) for a in transcript.games[0].actions]
[('opening', None), ('move', 0)]
>>> [step.game.turn for step in replay(transcript)][-1]
1
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from nardy.notation.errors import NotationError
from nardy.notation.json_codec import options_from_dict, options_to_dict, step_from_dict, step_to_dict
from nardy.rules import GameOptions, Match, RulesError, Step, WinKind, find_variant
from nardy.rules.game import Game
from nardy.rules.replay import (
    AcceptResignation,
    Beaver,
    DeclineResignation,
    Double,
    Drop,
    Forfeit,
    GameInput,
    Move,
    OpeningRoll,
    Pass,
    Replay,
    Resign,
    Roll,
    Take,
    TakeStep,
    Timeout,
    UndoStep,
)

ActionKind = Literal[
    "opening", "roll", "move", "double", "take", "beaver", "drop",
    "resign", "accept_resignation", "decline_resignation", "timeout", "forfeit",
]

EVENT_ACTIONS: Final[dict[str, ActionKind]] = {
    "opening_rolled": "opening", "rolled": "roll", "moved": "move", "doubled": "double", "took": "take",
    "beavered": "beaver", "dropped": "drop", "resigned": "resign", "resignation_accepted": "accept_resignation",
    "resignation_declined": "decline_resignation", "timed_out": "timeout", "forfeited": "forfeit",
}
"""The table events (docs/protocol.md, *Events*) that are actions of a game, by the action they are."""


@dataclass(frozen=True, slots=True)
class Action:
    """One thing done in a game.

    ``player`` is the seat acting (``None`` for the opening roll, which both
    make). ``dice`` for the opening (seat 0's die, seat 1's) and for a roll;
    ``steps`` for a move; ``kind_offered`` for a resignation (``None``: as the
    position stands, or single where offers are made). ``forced``: done by
    the server for a player whose clock ran out (a random play), not chosen.
    ``source``: where the action was read from, when that can be pointed at
    (a table record's event version), so a view can link back to it.
    """

    kind: ActionKind
    player: int | None = None
    dice: tuple[int, int] | None = None
    steps: tuple[Step, ...] = ()
    kind_offered: WinKind | None = None
    forced: bool = False
    source: int | None = None


@dataclass(frozen=True, slots=True)
class GameTranscript:
    """The actions of one game, in order."""

    actions: tuple[Action, ...]


@dataclass(frozen=True, slots=True)
class Transcript:
    """A match (``length`` 0: a money session) and its games."""

    variant: str
    length: int
    options: GameOptions
    players: tuple[str, str] = ("", "")
    games: tuple[GameTranscript, ...] = ()


@dataclass(frozen=True, slots=True)
class Replayed:
    """One action as it was taken: the game just before it, the action, and the match just after it.

    ``game_number`` counts from 1. ``before`` is the game the action was
    decided in; ``game`` is the game afterwards (the finished game when the
    action ended it; the match has moved on to the next one by then).
    """

    game_number: int
    before: Game
    action: Action
    game: Game
    match: Match


def replay(transcript: Transcript) -> Iterator[Replayed]:
    """Every action of every game, folded through the rules' :class:`~nardy.rules.replay.Replay`;
    NotationError naming an action the rules refuse."""
    try:
        play = Replay.new(Match.new(transcript.variant, length=transcript.length, options=transcript.options))
    except RulesError as error:
        raise NotationError(f"the match cannot be played: {error}") from None
    for number, game_record in enumerate(transcript.games, start=1):
        if number > 1 and play.game.history:
            raise NotationError(f"game {number} begins before game {number - 1} ended")
        for index, action in enumerate(game_record.actions):
            before = play.game
            try:
                play = play.apply(as_input(action))
            except RulesError as error:
                raise NotationError(f"game {number}, action {index + 1} ({action.kind}): {error}") from None
            yield Replayed(number, before, action, play.left, play.match)


def as_input(action: Action) -> GameInput:
    """The rules' input ``action`` is; NotationError for an action missing its player or dice.

    >>> as_input(Action("roll", 1, dice=(6, 5)))
    Roll(player=1, dice=(6, 5))
    """
    kind = action.kind
    if kind == "opening":
        return OpeningRoll(_dice(action))
    player = _seat(action.player)
    if kind == "roll":
        return Roll(player, _dice(action))
    if kind == "move":
        return Move(player, action.steps)
    if kind == "resign":
        return Resign(player, action.kind_offered)
    return _PLAYER_INPUTS[kind](player)


_PLAYER_INPUTS: Final[dict[ActionKind, Callable[[int], GameInput]]] = {
    "double": Double, "take": Take, "beaver": Beaver, "drop": Drop, "accept_resignation": AcceptResignation,
    "decline_resignation": DeclineResignation, "timeout": Timeout, "forfeit": Forfeit,
}
"""The inputs that name only their player, by the action they are."""


def input_of_event(kind: str, seat: int | None, payload: Mapping[str, Any]) -> GameInput | None:
    """The rules' input a table event is (docs/protocol.md, *Events*): a game action, a step, an undo or a
    pass; ``None`` for an event that gives a game nothing (a seat, a seed, the end of a game, ...).

    The server folds its log through these and :meth:`~nardy.rules.replay.Replay.apply`, as records,
    transcripts and the analysis fold a match's actions. NotationError names what is malformed.

    >>> input_of_event("stepped", 0, {"source": 8, "target": 5, "die": 3, "hit": False})
    TakeStep(player=0, step=Step(source=8, target=5, die=3, hit=False))
    >>> input_of_event("seated", 0, {"name": "ann"}) is None
    True
    """
    if kind == "stepped":
        return TakeStep(_seat(seat), step_from_dict(payload))
    if kind == "undone":
        return UndoStep(_seat(seat))
    if kind == "passed":
        return Pass(_seat(seat), _payload_dice(kind, payload))
    action = action_of_event(kind, seat, payload)
    return None if action is None else as_input(action)


def _payload_dice(kind: str, payload: Mapping[str, Any]) -> tuple[int, int]:
    try:
        first, second = (int(d) for d in payload["dice"])
    except (KeyError, TypeError, ValueError) as error:
        raise NotationError(f"({kind}) is malformed: {error}") from None
    return (first, second)


def _seat(player: int | None) -> int:
    if player not in (0, 1):
        raise NotationError(f"an action needs a player 0 or 1, got {player!r}")
    assert player is not None
    return player


def _dice(action: Action) -> tuple[int, int]:
    if action.dice is None:
        raise NotationError(f"a {action.kind} needs its dice")
    return action.dice


# ---------------------------------------------------------------- from a table's record


def transcript_from_record(record: Mapping[str, Any]) -> Transcript:
    """The transcript of a table's record (``GET /api/tables/{id}/record``, docs/protocol.md).

    Steps and undos are left out (the ``moved`` event holds the whole move);
    what the server played for a player whose clock ran out is marked
    ``forced``. NotationError names what is malformed.
    """
    try:
        variant = find_variant(str(record["variant"])).name
        length = int(record["match_length"])
        options = options_from_dict(record.get("options") or {})
        events = list(record["events"])
    except (KeyError, TypeError, ValueError, RulesError) as error:
        raise NotationError(f"not a table record: {error}") from None
    names = ["", ""]
    games: list[list[Action]] = []
    forced_seat: int | None = None
    for index, event in enumerate(events):
        if not isinstance(event, Mapping):
            raise NotationError(f"events[{index}] is not an object")
        kind, seat, payload = event.get("kind"), event.get("seat"), event.get("payload") or {}
        where = payload.get("seat", seat)
        if kind == "seated" and where in (0, 1):
            names[int(where)] = str(payload.get("name", ""))
        elif kind in ("match_started", "game_ended"):
            games.append([])
            forced_seat = None
        elif kind in EVENT_ACTIONS:
            if not games:
                raise NotationError(f"events[{index}] ({kind}) comes before the match started")
            try:
                action = _event_action(EVENT_ACTIONS[kind], seat, payload)
            except NotationError as error:
                raise NotationError(f"events[{index}] {error}") from None
            version = event.get("version")
            if isinstance(version, int):
                action = replace(action, source=version)
            if action.kind == "timeout":
                forced_seat = action.player
            elif forced_seat is not None and action.player is not None and action.player != forced_seat:
                forced_seat = None
            if forced_seat is not None and action.kind not in ("timeout", "forfeit") and action.player == forced_seat:
                action = replace(action, forced=True)
            games[-1].append(action)
    played = tuple(GameTranscript(tuple(actions)) for actions in games if actions)
    return Transcript(variant, length, options, (names[0], names[1]), played)


ACTION_EVENTS: Final[dict[ActionKind, str]] = {action: event for event, action in EVENT_ACTIONS.items()}
"""The table event each action of a game is (the inverse of :data:`EVENT_ACTIONS`)."""


def record_from_transcript(transcript: Transcript) -> dict[str, Any]:
    """A record of the match, in the shape :func:`transcript_from_record` reads (a match read from a file, kept).

    Each action becomes its event, numbered from 1 in the match as
    ``version``; that number is the action's ``source`` once read back, so
    an analysis of the record points at the actions by it. Games are
    separated as a table's record separates them (``game_ended``). Only what
    a transcript holds is written: no seats' ids, seeds or times.
    """
    events: list[dict[str, Any]] = [
        {"kind": "seated", "seat": seat, "payload": {"seat": seat, "name": name}}
        for seat, name in enumerate(transcript.players)
    ]
    version = 0
    for number, game in enumerate(transcript.games, start=1):
        events.append({"kind": "match_started" if number == 1 else "game_ended", "seat": None, "payload": {}})
        for action in game.actions:
            version += 1
            events.append({"version": version, "kind": ACTION_EVENTS[action.kind], "seat": action.player,
                           "payload": _action_payload(action)})
    return {
        "variant": transcript.variant,
        "match_length": transcript.length,
        "options": options_to_dict(transcript.options),
        "events": events,
    }


def _action_payload(action: Action) -> dict[str, Any]:
    if action.dice is not None:
        return {"dice": list(action.dice)}
    if action.kind == "move":
        return {"steps": [step_to_dict(s) for s in action.steps]}
    if action.kind == "resign":
        return {"kind": action.kind_offered.value if action.kind_offered is not None else None}
    return {}


def action_of_event(kind: str, seat: int | None, payload: Mapping[str, Any]) -> Action | None:
    """The game action a table event is (``kind``, ``seat``, ``payload`` as docs/protocol.md's *Events*
    describe them), or ``None`` for an event that is no action of a game (a seat, a step, a pass, ...).

    :func:`input_of_event` gives the rules' input of any event that has one, steps and passes included.

    >>> action_of_event("rolled", 1, {"dice": [6, 5], "number": 3})
    Action(kind='roll', player=1, dice=(6, 5), steps=(), kind_offered=None, forced=False, source=None)
    >>> action_of_event("stepped", 0, {"source": 8, "target": 5, "die": 3}) is None
    True
    """
    action_kind = EVENT_ACTIONS.get(kind)
    return None if action_kind is None else _event_action(action_kind, seat, payload)


def _event_action(kind: ActionKind, seat: object, payload: Mapping[str, Any]) -> Action:
    player = seat if seat in (0, 1) else None
    assert player is None or isinstance(player, int)
    try:
        if kind in ("opening", "roll"):
            first, second = (int(d) for d in payload["dice"])
            return Action(kind, player, dice=(first, second))
        if kind == "move":
            steps = tuple(step_from_dict(s) for s in payload["steps"])
            return Action(kind, player, steps=steps)
        if kind == "resign":
            offered = payload.get("kind")
            return Action(kind, player, kind_offered=WinKind(offered) if offered else None)
    except (KeyError, TypeError, ValueError) as error:
        raise NotationError(f"({kind}) is malformed: {error}") from None
    return Action(kind, player)


def games_of(transcript: Transcript) -> Sequence[Sequence[Replayed]]:
    """:func:`replay` grouped by game."""
    grouped: list[list[Replayed]] = [[] for _ in transcript.games]
    for step in replay(transcript):
        grouped[step.game_number - 1].append(step)
    return grouped


__all__ = [
    "ACTION_EVENTS", "Action", "ActionKind", "EVENT_ACTIONS", "action_of_event", "GameTranscript", "Replayed", "Transcript",
    "as_input", "input_of_event",
    "games_of", "record_from_transcript", "replay", "transcript_from_record",
]
