"""Tournaments over HTTP: list, organise, register, withdraw, look at, and the game protocol (001).

Thin: the tournament service decides; this checks the settings an organiser
sends against the variants, clocks and computer levels the server offers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from nardy.bots import levels_for
from nardy.notation import NotationError
from nardy.rules import VARIANTS, GameOptions, RulesError, Variant
from nardy.server.api.bounds import ClockSeconds
from nardy.server.api.deps import SettingsDep
from nardy.server.api.security import CurrentUser, OptionalUser
from nardy.server.api.moderation import refuse_restricted
from nardy.server.api.tables import BANK_CLOCK_NAMES, OptionsIn, bank_clock_or_422, in_session, refuse
from nardy.server.services.table_state import ActionError, moves_final_at_new_table
from nardy.server.services.tournament_steps import REGISTRATION_AFTER_START
from nardy.server.services.tournaments import NewTournament, RoundSettings, TournamentError, TournamentService
from nardy.server.settings import MOVE_SECONDS_CHOICES, Settings
from nardy.store.models import User

router = APIRouter(prefix="/api/tournaments", tags=["tournaments"])

_ERROR_STATUS = {
    "no_such_tournament": status.HTTP_404_NOT_FOUND,
    "account_required": status.HTTP_403_FORBIDDEN,
    "not_open": status.HTTP_409_CONFLICT,
    "full": status.HTTP_409_CONFLICT,
    "already_registered": status.HTTP_409_CONFLICT,
    "not_registered": status.HTTP_409_CONFLICT,
    "too_many_tournaments": status.HTTP_409_CONFLICT,
    "not_organiser": status.HTTP_403_FORBIDDEN,
    "busy": status.HTTP_409_CONFLICT,
    "too_few_places": status.HTTP_409_CONFLICT,
}


class RoundIn(BaseModel):
    """A round's match length and time control: seconds per move, or a bank clock (one of them)."""

    model_config = ConfigDict(extra="forbid")

    match_length: Annotated[int, Field(ge=1, le=25)] = 1
    move_seconds: ClockSeconds | None = None
    delay_seconds: ClockSeconds | None = None
    bank_seconds_per_point: ClockSeconds | None = None


TournamentName = Annotated[str, Field(min_length=1, max_length=80)]
Season = Annotated[str, Field(min_length=1, max_length=40)]
PlayerCount = Annotated[int, Field(ge=2, le=64)]


class TournamentIn(BaseModel):
    """A new tournament. ``round`` is every round's match length and clock unless ``per_round`` sets round
    *n*'s (the *n*-th item); ``rounds`` is for a Swiss (default: enough to single out a winner)."""

    model_config = ConfigDict(extra="forbid")

    name: TournamentName
    season: Season | None = None
    format: Literal["knockout", "swiss", "round_robin"]
    start: Literal["sit_and_go", "scheduled"] = "sit_and_go"
    variant: str
    round: RoundIn = Field(default_factory=lambda: RoundIn(delay_seconds=12, bank_seconds_per_point=60))
    per_round: Annotated[list[RoundIn], Field(max_length=20)] = Field(default_factory=list)
    rounds: Annotated[int, Field(ge=1, le=20)] | None = None
    options: OptionsIn = Field(default_factory=OptionsIn)
    rated: bool = False
    max_players: PlayerCount = 8
    min_players: PlayerCount = 2
    registration_opens_at: datetime | None = None
    starts_at: datetime | None = None
    bots_fill: bool = False
    bot_level: str = "random"
    fill_after_seconds: Annotated[int, Field(ge=0, le=3600)] = 60


class TournamentEditIn(BaseModel):
    """What the organiser changes before the start; a field left out stays as it is."""

    model_config = ConfigDict(extra="forbid")

    name: TournamentName | None = None
    season: Season | None = None
    max_players: PlayerCount | None = None
    min_players: PlayerCount | None = None
    starts_at: datetime | None = None
    registration_opens_at: datetime | None = None


def _service(request: Request) -> TournamentService:
    service: TournamentService = request.app.state.tournaments
    return service


async def _act(
    request: Request, tournament_id: str, user: User,
    step: Callable[[TournamentService, str, User], Awaitable[None]],
) -> dict[str, Any]:
    """Do ``step`` for ``user`` and answer the tournament as they now see it; a refusal as its status."""
    service = _service(request)
    try:
        await step(service, tournament_id, user)
    except TournamentError as error:
        raise _refuse(error) from None
    return await service.view(tournament_id, user.id)


def _refuse(error: TournamentError) -> HTTPException:
    return HTTPException(_ERROR_STATUS.get(error.code, status.HTTP_422_UNPROCESSABLE_CONTENT), str(error))


def _round(body: RoundIn, *, rated: bool, settings: Settings) -> RoundSettings:
    clock = bank_clock_or_422(body.delay_seconds, body.bank_seconds_per_point, settings)
    if (clock is None) == (body.move_seconds is None):
        raise HTTPException(422, "every tournament round needs one clock, seconds per move or a bank clock "
                                 "(a player who does not come loses on time)")
    if body.move_seconds is not None and body.move_seconds not in MOVE_SECONDS_CHOICES and not settings.testing:
        raise HTTPException(422, f"seconds per move are one of {list(MOVE_SECONDS_CHOICES)}")
    if rated and clock is None:
        raise HTTPException(422, f"a rated tournament plays with a bank clock; clocks: {BANK_CLOCK_NAMES}")
    return RoundSettings(
        match_length=body.match_length, move_seconds=body.move_seconds,
        delay_seconds=clock[0] if clock else None, bank_seconds_per_point=clock[1] if clock else None,
    )


def _new(body: TournamentIn, settings: Settings) -> NewTournament:
    if body.variant not in VARIANTS:
        raise HTTPException(422, f"unknown variant {body.variant!r}; known variants: {', '.join(VARIANTS)}")
    variant = VARIANTS[body.variant]
    if body.min_players > body.max_players:
        raise HTTPException(422, "min_players is more than max_players")
    if body.start == "scheduled" and body.starts_at is None:
        raise HTTPException(422, "a scheduled tournament needs starts_at")
    if body.start == "sit_and_go" and body.starts_at is not None:
        raise HTTPException(422, "a sit-and-go starts when full: it takes no starts_at")
    for moment in (body.starts_at, body.registration_opens_at):
        if moment is not None and moment.tzinfo is None:
            raise HTTPException(422, "times need a time zone (e.g. 2027-01-01T18:00:00Z)")
    if body.starts_at is not None and body.registration_opens_at is not None \
            and body.registration_opens_at >= body.starts_at:
        raise HTTPException(422, REGISTRATION_AFTER_START)
    if body.bots_fill and body.start != "sit_and_go":
        raise HTTPException(422, "computer players fill a sit-and-go only")
    if body.bots_fill and body.bot_level not in levels_for(variant.name):
        levels = ", ".join(levels_for(variant.name))
        raise HTTPException(422, f"unknown computer level {body.bot_level!r} for {variant.name}; levels: {levels}")
    options = body.options
    cube = variant.cube_required if options.cube is None else options.cube
    game_options: dict[str, Any] = {
        "cube": cube, "jacoby": options.jacoby, "automatic_doubles": options.automatic_doubles,
        "backgammon_value": options.backgammon_value, "beavers": options.beavers,
    }
    try:  # a tournament's tables bind like rated ones: a variant's final moves stay final there
        moves_final_at_new_table(variant.name, options.moves_final, against_computer=False, binding=True)
    except ActionError as error:
        raise refuse(error) from None
    default = _round(body.round, rated=body.rated, settings=settings)
    per_round = tuple(_round(r, rated=body.rated, settings=settings) for r in body.per_round)
    _check_matches(variant, GameOptions(**game_options), (default, *per_round))
    if options.moves_final is not None:
        game_options["moves_final"] = options.moves_final
    return NewTournament(
        name=body.name.strip(), season=body.season, format=body.format, start_kind=body.start,
        variant=body.variant, options=game_options, default=default, per_round=per_round,
        rounds=body.rounds if body.format == "swiss" else None, rated=body.rated,
        max_players=body.max_players, min_players=body.min_players,
        registration_opens_at=body.registration_opens_at, starts_at=body.starts_at, bots_fill=body.bots_fill,
        bot_level=body.bot_level if body.bots_fill else None,
        fill_after_seconds=body.fill_after_seconds if body.bots_fill else None,
    )


def _check_matches(variant: Variant, options: GameOptions, rounds: tuple[RoundSettings, ...]) -> None:
    """422 unless the rules let ``variant`` play every round's match with ``options`` (a tavli match to 1 point,
    a tavla match with the cube): refused when organised, not when a round's tables are made."""
    for settings in rounds:
        try:
            variant.check_options(options, settings.match_length)
        except RulesError as error:
            raise HTTPException(422, str(error)) from None


@router.get("")
async def listing(request: Request) -> dict[str, Any]:
    """Upcoming, running and recently finished tournaments."""
    return await _service(request).listing()


@router.post("", status_code=status.HTTP_201_CREATED)
async def create(body: TournamentIn, request: Request, user: CurrentUser, settings: SettingsDep) -> dict[str, Any]:
    """Organise a tournament (an account; a few waiting to start at a time)."""
    await run_in_threadpool(in_session, request, refuse_restricted, user, [])
    service = _service(request)
    try:
        tournament_id = await service.create(user, _new(body, settings))
    except TournamentError as error:
        raise _refuse(error) from None
    return await service.view(tournament_id, user.id)


@router.get("/{tournament_id}")
async def view(tournament_id: str, request: Request, viewer: OptionalUser) -> dict[str, Any]:
    """A tournament: settings, entries, rounds with their tables and results, standings."""
    try:
        return await _service(request).view(tournament_id, viewer.id if viewer is not None else None)
    except TournamentError as error:
        raise _refuse(error) from None


@router.post("/{tournament_id}/register")
async def register(tournament_id: str, request: Request, user: CurrentUser) -> dict[str, Any]:
    """Enter while registration is open; a full sit-and-go starts at once."""
    await run_in_threadpool(in_session, request, refuse_restricted, user, [])
    return await _act(request, tournament_id, user, TournamentService.register)


@router.post("/{tournament_id}/withdraw")
async def withdraw(tournament_id: str, request: Request, user: CurrentUser) -> dict[str, Any]:
    """Leave: before the start the entry goes; after it, the match being played is forfeited."""
    return await _act(request, tournament_id, user, TournamentService.withdraw)


@router.post("/{tournament_id}/cancel")
async def cancel(tournament_id: str, request: Request, user: CurrentUser) -> dict[str, Any]:
    """The organiser calls the tournament off before it starts."""
    return await _act(request, tournament_id, user, TournamentService.cancel)


@router.patch("/{tournament_id}")
async def edit(tournament_id: str, body: TournamentEditIn, request: Request, user: CurrentUser) -> dict[str, Any]:
    """The organiser changes the name, the season, the places or the times before the start; ``season`` and
    ``registration_opens_at`` may be set to null. 409 once it has started, or below the players registered."""
    changes = body.model_dump(exclude_unset=True)
    if not changes:
        raise HTTPException(422, "nothing to change: give at least one field")
    for name in ("name", "max_players", "min_players", "starts_at"):
        if name in changes and changes[name] is None:
            raise HTTPException(422, f"{name} cannot be null")
    if isinstance(changes.get("name"), str):
        changes["name"] = changes["name"].strip()
        if not changes["name"]:
            raise HTTPException(422, "name cannot be blank")
    for name in ("starts_at", "registration_opens_at"):
        if changes.get(name) is not None and changes[name].tzinfo is None:
            raise HTTPException(422, "times need a time zone (e.g. 2027-01-01T18:00:00Z)")

    async def step(service: TournamentService, tournament: str, organiser: User) -> None:
        await service.edit(tournament, organiser, changes)

    return await _act(request, tournament_id, user, step)


@router.get("/{tournament_id}/protocol.json")
async def protocol(tournament_id: str, request: Request) -> dict[str, Any]:
    """The game protocol (001): one entry per tournament game played so far."""
    try:
        return await _service(request).protocol(tournament_id)
    except TournamentError as error:
        raise _refuse(error) from None
    except NotationError as error:
        raise HTTPException(422, str(error)) from None


@router.get("/{tournament_id}/protocol.mat")
async def protocol_mat(tournament_id: str, request: Request) -> Response:
    """Every match played so far as Jellyfish .mat text, each headed by the tournament's tags."""
    try:
        text = await _service(request).protocol_mat(tournament_id)
    except TournamentError as error:
        raise _refuse(error) from None
    except NotationError as error:
        raise HTTPException(422, str(error)) from None
    return Response(text, media_type="text/plain; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="tournament-{tournament_id}.mat"'})
