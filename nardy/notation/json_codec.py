"""JSON-ready forms of the rules' values: one codec per concept (a step, the game options, an event).

Every place that writes a step, the options or an event as JSON (the
server's log and views, records, transcripts, the analysis) goes through the
pair of functions here, so each concept has one form. The forms are plain
dicts of JSON types; decoding checks types and names what is malformed with
:class:`~nardy.notation.errors.NotationError`. Nothing here decides a rule.

>>> from nardy.rules import Step
>>> step_to_dict(Step(8, 5, 3))
{'source': 8, 'target': 5, 'die': 3, 'hit': False}
>>> step_from_dict({"source": 8, "target": 5, "die": 3})
Step(source=8, target=5, die=3, hit=False)
>>> options_from_dict({"cube": True}) == GameOptions(cube=True)
True
>>> event_from_dict(event_to_dict(Rolled(0, (6, 5))))
Rolled(player=0, dice=(6, 5))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any, TypedDict

from nardy.notation.errors import NotationError
from nardy.rules import GameOptions, Step, WinKind
from nardy.rules.events import (
    Beavered,
    Doubled,
    Dropped,
    Moved,
    OpeningRolled,
    Passed,
    PlayEvent,
    ResignationDeclined,
    ResignationOffered,
    Resigned,
    Rolled,
    Stepped,
    Tied,
    TimedOut,
    Took,
    Undone,
)


class StepDict(TypedDict):
    """A step as JSON: from ``source`` to ``target`` by ``die``, ``hit`` when it hits a blot."""

    source: int
    target: int
    die: int
    hit: bool


def step_to_dict(step: Step) -> StepDict:
    """``step`` as JSON-ready data."""
    return {"source": step.source, "target": step.target, "die": step.die, "hit": step.hit}


def step_from_dict(data: Mapping[str, Any]) -> Step:
    """The step ``data`` names (``hit`` may be left out: false)."""
    try:
        return Step(int(data["source"]), int(data["target"]), int(data["die"]), bool(data.get("hit", False)))
    except (KeyError, TypeError, ValueError) as error:
        raise NotationError(f"not a step: {error!r}") from None


def options_to_dict(options: GameOptions) -> dict[str, Any]:
    """Game options as JSON-ready data, every option named."""
    return {field.name: getattr(options, field.name) for field in fields(GameOptions)}


def options_from_dict(data: Mapping[str, Any]) -> GameOptions:
    """The options ``data`` names; an option left out takes its default (:class:`GameOptions`).

    >>> options_from_dict({"automatic_doubles": "1"}).automatic_doubles
    1
    """
    chosen: dict[str, Any] = {}
    try:
        for field in fields(GameOptions):
            if field.name in data:
                kind = type(getattr(GameOptions(), field.name))
                chosen[field.name] = kind(data[field.name])
    except (TypeError, ValueError) as error:
        raise NotationError(f"not game options: {error!r}") from None
    return GameOptions(**chosen)


def event_to_dict(event: PlayEvent) -> dict[str, Any]:
    """A rules event as JSON: ``{"event", ...its fields}``, ``event`` named as the server's log names the
    kind of event (an opening roll adds ``first``, the player it lets play first, as the log does).

    >>> event_to_dict(Passed(1, (6, 6)))
    {'event': 'passed', 'player': 1, 'dice': [6, 6]}
    """
    data: dict[str, Any] = {"event": _KINDS[type(event)]}
    for field in fields(event):
        value = getattr(event, field.name)
        if isinstance(value, Step):
            value = step_to_dict(value)
        elif isinstance(value, tuple) and value and isinstance(value[0], Step):
            value = [step_to_dict(step) for step in value]
        elif isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, WinKind):
            value = value.value
        data[field.name] = value
    if isinstance(event, OpeningRolled):
        data["first"] = event.first
    return data


def event_from_dict(data: Mapping[str, Any]) -> PlayEvent:
    """The rules event ``data`` describes (as :func:`event_to_dict` writes it), or NotationError."""
    kind = data.get("event")
    make = _READERS.get(kind) if isinstance(kind, str) else None
    if make is None:
        raise NotationError(f"not an event kind: {kind!r}")
    try:
        return make(data)
    except NotationError:
        raise
    except (KeyError, TypeError, ValueError) as error:
        raise NotationError(f"{kind} event is malformed: {error!r}") from None


def _dice(data: Mapping[str, Any]) -> tuple[int, int]:
    first, second = (int(die) for die in data["dice"])
    return (first, second)


_KINDS: dict[type, str] = {
    OpeningRolled: "opening_rolled", Rolled: "rolled", Passed: "passed", Stepped: "stepped", Undone: "undone",
    Moved: "moved", Doubled: "doubled", Took: "took", Beavered: "beavered", Dropped: "dropped",
    ResignationOffered: "resignation_offered", ResignationDeclined: "resignation_declined", Resigned: "resigned",
    TimedOut: "timed_out", Tied: "game_tied",
}

_READERS: dict[str, Callable[[Mapping[str, Any]], PlayEvent]] = {
    "opening_rolled": lambda d: OpeningRolled(_dice(d), bool(d.get("automatic_double", False))),
    "rolled": lambda d: Rolled(int(d["player"]), _dice(d)),
    "passed": lambda d: Passed(int(d["player"]), _dice(d)),
    "stepped": lambda d: Stepped(int(d["player"]), step_from_dict(d["step"])),
    "undone": lambda d: Undone(int(d["player"])),
    "moved": lambda d: Moved(int(d["player"]), _dice(d), tuple(step_from_dict(s) for s in d["steps"])),
    "doubled": lambda d: Doubled(int(d["player"]), int(d["value"])),
    "took": lambda d: Took(int(d["player"]), int(d["value"])),
    "beavered": lambda d: Beavered(int(d["player"]), int(d["value"])),
    "dropped": lambda d: Dropped(int(d["player"])),
    "resignation_offered": lambda d: ResignationOffered(int(d["player"]), WinKind(d["kind"])),
    "resignation_declined": lambda d: ResignationDeclined(int(d["player"])),
    "resigned": lambda d: Resigned(int(d["player"]), WinKind(d["kind"])),
    "timed_out": lambda d: TimedOut(int(d["player"])),
    "game_tied": lambda d: Tied(),
}
