"""The messages a client may send, parsed once at the edge into typed objects.

Every inbound message is a JSON object with a ``t`` field naming its type;
unknown fields, wrong types and out-of-range values are refused with an
error naming them. See ``docs/protocol.md``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

TableId = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
ActionId = Annotated[str, Field(min_length=1, max_length=60, pattern=r"^[A-Za-z0-9_.:-]+$")]
"""A client's id for one action; the server de-duplicates per seat, so players cannot collide."""


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Subscribe(_Message):
    """Watch a table; ``since`` asks for the events after that version (resync), else a full state.
    ``invite`` is a private table's invite token, for a watcher who is not one of its members."""

    t: Literal["subscribe"]
    table: TableId
    since: Annotated[int, Field(ge=0)] | None = None
    invite: Annotated[str, Field(min_length=1, max_length=64)] | None = None


class Unsubscribe(_Message):
    t: Literal["unsubscribe"]
    table: TableId


class Ping(_Message):
    t: Literal["ping"]


class _Action(_Message):
    table: TableId
    action_id: ActionId


class Roll(_Action):
    t: Literal["roll"]


class StepAction(_Action):
    """Move one checker from ``source`` (25 = bar) by ``die``; the server finds the target."""

    t: Literal["step"]
    source: Annotated[int, Field(ge=1, le=25)]
    die: Annotated[int, Field(ge=1, le=6)]


class Undo(_Action):
    t: Literal["undo"]


class Confirm(_Action):
    t: Literal["confirm"]


class StepSpec(_Message):
    source: Annotated[int, Field(ge=1, le=25)]
    target: Annotated[int, Field(ge=0, le=24)]
    die: Annotated[int, Field(ge=1, le=6)]
    hit: bool = False


class Move(_Action):
    """A whole play at once (bots, scripts): the steps of one legal order."""

    t: Literal["move"]
    steps: Annotated[list[StepSpec], Field(min_length=1, max_length=4)]


class Double(_Action):
    t: Literal["double"]


class Take(_Action):
    t: Literal["take"]


class Drop(_Action):
    t: Literal["drop"]


class Beaver(_Action):
    t: Literal["beaver"]


class Resign(_Action):
    t: Literal["resign"]
    kind: Literal["single", "gammon", "backgammon", "oin", "mars", "koks"] | None = None


class AcceptResignation(_Action):
    t: Literal["accept_resignation"]


class DeclineResignation(_Action):
    t: Literal["decline_resignation"]


class Rematch(_Action):
    t: Literal["rematch"]


class ClientSeed(_Action):
    """The player's own contribution to the dice of every game not yet started."""

    t: Literal["client_seed"]
    seed: Annotated[str, Field(min_length=1, max_length=64)]


class Leave(_Action):
    t: Literal["leave"]


class Start(_Action):
    """A chouette: roll for places once three or more players sit (``docs/chouette.md``)."""

    t: Literal["start"]


class Vote(_Action):
    """A chouette member agrees to, or refuses, the team double the captain proposed."""

    t: Literal["vote"]
    agree: bool


class BoxAnswer(_Action):
    """The chouette box takes the cubes of ``takes`` (user ids) and passes the others."""

    t: Literal["box_answer"]
    takes: Annotated[list[Annotated[int, Field(ge=1)]], Field(max_length=8)]


class TeamSay(_Action):
    """A message to the chouette team only: words, a suggestion, and with ``play`` a proposed play."""

    t: Literal["team_say"]
    text: Annotated[str, Field(max_length=200)] = ""
    suggest: Literal["double", "no_double", "take", "pass", "play"] | None = None
    steps: Annotated[list[StepSpec], Field(min_length=1, max_length=4)] | None = None

    @model_validator(mode="after")
    def _steps_with_play(self) -> TeamSay:
        if self.steps is not None and self.suggest != "play":
            raise ValueError('steps go with "suggest": "play"')
        return self


ChatPhrase = Literal["hello", "good_luck", "well_played", "thanks", "must_go"]
"""The quick phrases of the chat, sent by id so that every reader sees them in their own language."""


class Say(_Action):
    """A line in a two-seat table's chat: free ``text`` (its length is a setting) or a quick ``phrase``."""

    t: Literal["say"]
    text: Annotated[str, Field(min_length=1)] | None = None
    phrase: ChatPhrase | None = None

    @model_validator(mode="after")
    def _text_or_phrase(self) -> Say:
        if (self.text is None) == (self.phrase is None):
            raise ValueError('give "text" or "phrase", one of them')
        return self


class ChatSpectators(_Action):
    """A player lets spectators read the chat of a rated table (both must), or stops letting them."""

    t: Literal["chat_spectators"]
    allow: bool


Action = (
    Roll | StepAction | Undo | Confirm | Move | Double | Take | Drop | Beaver | Resign
    | AcceptResignation | DeclineResignation | Rematch | Leave | ClientSeed
    | Start | Vote | BoxAnswer | TeamSay | Say | ChatSpectators
)
Inbound = Annotated[Subscribe | Unsubscribe | Ping | Action, Field(discriminator="t")]

_INBOUND: TypeAdapter[Any] = TypeAdapter(Inbound)


class ProtocolError(ValueError):
    """A message that is not valid; the message names the first problem."""


def parse_message(text: str | bytes) -> Subscribe | Unsubscribe | Ping | Action:
    """Parse and validate one inbound message, or raise :class:`ProtocolError` naming the problem."""
    try:
        parsed: Subscribe | Unsubscribe | Ping | Action = _INBOUND.validate_json(text)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "message"
        raise ProtocolError(f"{where}: {first['msg']}") from None
    return parsed


_ECHO: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])
_TABLE_ID: TypeAdapter[str] = TypeAdapter(TableId)
_ACTION_ID: TypeAdapter[str] = TypeAdapter(ActionId)


def echoed_ids(text: str | bytes) -> dict[str, str]:
    """The well-formed ``table`` and ``action_id`` of a message refused as a whole, to echo in the error.

    A client can then settle the action it sent even when the message was
    malformed or dropped by the rate limit; anything not well formed is left out.
    """
    try:
        fields = _ECHO.validate_json(text)
    except ValidationError:
        return {}
    echoed = {}
    for name, adapter in (("table", _TABLE_ID), ("action_id", _ACTION_ID)):
        try:
            echoed[name] = adapter.validate_python(fields.get(name), strict=True)
        except ValidationError:
            pass
    return echoed


def action_payload(action: Action) -> dict[str, Any]:
    """The action as the table service takes it (no table or action id)."""
    return action.model_dump(exclude={"table", "action_id"}, exclude_none=True)
