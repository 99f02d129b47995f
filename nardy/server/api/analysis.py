"""Analysis over HTTP: post-game analyses (request, progress, result), hints, the analysis board.

Requesting an analysis queues a job (``nardy.server.services.analysis_queue``);
the analysis itself runs in a worker process. The analysis routes only query
the database, so they are plain functions FastAPI runs in its thread pool;
hints and the board rate a position in a worker thread (bgsage releases the GIL).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from nardy.bots.hints import Hint, analysis_offer, cube_hint, top_plays
from nardy.bots.sage import CUBELESS, CubeAdvice, CubeContext
from nardy.notation import (
    NotationError, format_steps, from_xgid, position_from_dict, position_from_id, position_from_json, position_to_dict,
)
from nardy.notation.json_codec import step_to_dict
from nardy.rules import VARIANTS, Phase, Position, RulesError
from nardy.server.api.deps import DbSession, SettingsDep
from nardy.server.api.private_tables import READABLE
from nardy.server.api.ratelimit import Limit, RateLimiter, RateLimiterDep, client_address
from nardy.server.api.security import CurrentUser
from nardy.server.api.tables import refuse
from nardy.server.services.chouette_state import CHOUETTE_KIND
from nardy.server.services.table_state import ActionError
from nardy.server.settings import Settings
from nardy.store import analyses_repo, tables_repo
from nardy.store.models import Analysis, AnalysisJob, GameTable

router = APIRouter(prefix="/api", tags=["analysis"])

AnalysisLevel = Literal["advanced", "expert", "world-class"]


class AnalysisIn(BaseModel):
    """How deep to analyse (``expert`` by default)."""

    model_config = ConfigDict(extra="forbid")

    level: AnalysisLevel = "expert"


@router.post("/tables/{table_id}/analysis", status_code=status.HTTP_202_ACCEPTED)
def request_analysis(
    table_id: str, request: Request, response: Response, db: DbSession, user: CurrentUser, settings: SettingsDep,
    limiter: RateLimiterDep, body: AnalysisIn | None = None,
) -> dict[str, Any]:
    """Queue the analysis of a finished match (202), or answer the one already queued or made (200).

    A player of the match may ask; anyone signed in may ask for a public
    match. A chouette is analysed once it has closed, each member's game
    against the box on its own (one cube per member). Each user may queue
    ``analyses_per_user`` an hour. The background analysis of a rated match
    (fair play, shallow) answers a request for its level once done; a
    request for a deeper level, or one made while it still waits, queues
    the user's own at the user's priority.
    """
    row = _finished_table(db, table_id)
    access = tables_repo.table_access(db, table_id)
    if row.private and (access is None or user.id not in access.members):
        raise HTTPException(403, "only its players may have a private match analysed")
    level = (body or AnalysisIn()).level
    if analyses_repo.wants_work(analyses_repo.get(db, table_id), level):
        spend_analysis(limiter, settings, user.id)
    now = request.app.state.clock.now()
    job, queued = analyses_repo.request(db, table_id=table_id, level=level, user_id=user.id, now=now)
    if queued:
        request.app.state.analysis_queue.wake()
    else:
        response.status_code = status.HTTP_200_OK
    return view(job)


@router.get("/tables/{table_id}/analysis", dependencies=[READABLE])
def get_analysis(table_id: str, db: DbSession) -> dict[str, Any]:
    """The analysis of a table: 404 until requested, then its status, progress and, once done, the result."""
    job = analyses_repo.get(db, table_id)
    if job is None:
        raise HTTPException(404, f"table {table_id!r} has not been analysed: POST to this address to ask")
    return view(job)


def analyses_limit(settings: Settings) -> Limit:
    """How many analyses one user may queue (``analyses_per_user``), whatever they analyse."""
    return Limit.of("analyses", settings.analyses_per_user, "too many analyses requested")


def spend_analysis(limiter: RateLimiter, settings: Settings, user_id: int) -> None:
    """Count one analysis queued by ``user_id`` against ``analyses_per_user`` (429 past it)."""
    limiter.spend(analyses_limit(settings), str(user_id))


def view(job: Analysis) -> dict[str, Any]:
    """A table's analysis as the API shows it; the result's fields are merged in once it is done."""
    return {"table": job.table_id, **job_view(job, with_result=True)}


def job_view(job: AnalysisJob, *, with_result: bool) -> dict[str, Any]:
    """An analysis job's status, level and progress (a failure's reason), and ``with_result`` its result's fields."""
    shown: dict[str, Any] = {
        "status": job.status, "level": job.level, "progress": round(job.progress, 3),
        "requested_at": job.requested_at.isoformat(),
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }
    if job.status == "failed":
        shown["error"] = job.error
    if with_result and job.status == "done" and job.result is not None:
        shown.update(job.result)
    return shown


def _finished_table(db: DbSession, table_id: str) -> GameTable:
    row = tables_repo.get_table(db, table_id)
    if row is None:
        raise HTTPException(404, f"there is no table {table_id!r}")
    if row.kind == CHOUETTE_KIND:
        if row.status != "closed":
            raise HTTPException(409, "a chouette is analysed once it has closed: when its last player has left")
        if not (row.score or {}).get("games"):
            raise HTTPException(409, "this chouette closed before any game was played: there is nothing to analyse")
        return row
    if row.status != "finished":
        raise HTTPException(409, "only a finished match can be analysed")
    return row


# ---------------------------------------------------------------- hints and the analysis board


class HintIn(BaseModel):
    """How deep the hint looks: one of the variant's levels (``GET /api/variants``), ``expert`` by default."""

    model_config = ConfigDict(extra="forbid")

    level: AnalysisLevel | None = None


def offered_level(variant: str, level: str | None) -> str:
    """The level to rate ``variant``'s plays at: ``level``, or the variant's default when none is named; 422 where
    the variant's engine offers no hints or not that level (nardy.bots.hints.analysis_offer decides)."""
    offer = analysis_offer(variant)
    chosen = level or offer.default_level
    if offer.unavailable is not None or chosen is None:
        raise HTTPException(422, f"no hints in {variant}: its computer player rates no equities")
    if chosen not in offer.levels:
        raise HTTPException(422, f"the levels of {variant} are {', '.join(offer.levels)}, not {chosen}")
    return chosen


@router.post("/tables/{table_id}/hint")
async def hint(table_id: str, request: Request, user: CurrentUser, body: HintIn | None = None) -> dict[str, Any]:
    """The best plays of the roll to play, or the cube decision before it, for a player against the computer.

    Never in a rated game, never where the opponent is a person: 403.
    409 when it is not the player's decision.
    """
    service = request.app.state.tables
    try:
        state = await service.current(table_id)
    except ActionError as error:
        raise refuse(error) from None
    seat = state.seat_of(user.id)
    if seat is None:
        raise HTTPException(403, "hints are for the player of the table")
    opponent = state.seats[1 - seat]
    if state.spec.rated or opponent is None or opponent.bot is None:
        raise HTTPException(403, "hints are for games against the computer that are not rated")
    game = state.game
    if game is None or state.actor() != seat:
        raise HTTPException(409, "it is not your decision")
    level = offered_level(game.position.variant.name, (body or HintIn()).level)
    context = CubeContext.of(game, seat)
    if game.phase is Phase.MOVING and game.dice is not None:
        dice = game.dice
        plays = await run_in_threadpool(top_plays, game.position, dice, context=context, level=level)
        return {"level": level, "dice": list(dice), "plays": [_hint_json(h) for h in plays], "cube": None}
    if game.phase is Phase.ROLLING and game.can_double(seat):
        advice = await run_in_threadpool(cube_hint, game.position, context, level=level)
        return {"level": level, "dice": None, "plays": [], "cube": _cube_json(advice)}
    raise HTTPException(409, "nothing to decide: roll the dice")


class BoardIn(BaseModel):
    """A position to study: any variant, any position, a roll (or none: the cube decision before it)."""

    model_config = ConfigDict(extra="forbid")

    variant: str = "backgammon"
    position: str | dict[str, Any] = "start"
    """``start``, a canonical position (object or JSON text), a gnubg Position ID or an XGID."""
    dice: Annotated[list[Annotated[int, Field(ge=1, le=6)]], Field(min_length=2, max_length=2)] | None = None
    cube_value: Annotated[int, Field(ge=1, le=64)] = 1
    cube_owner: Literal["centered", "player", "opponent"] = "centered"
    cube: bool = False
    """Whether the cube is in play (the short board only); the ratings are then cubeful, money play."""
    level: AnalysisLevel | None = None
    """One of the variant's levels (``GET /api/variants``); its default (``expert``) when omitted."""


@router.post("/analysis/position")
async def analyse_position(body: BoardIn, request: Request, settings: SettingsDep, limiter: RateLimiterDep) -> dict[str, Any]:
    """The analysis board: the ranked plays of a roll, or the cube decision, for a position of any variant.

    An XGID brings its own dice and cube when the request names none. Where the variant's engine rates no
    equities the position comes back with no plays and ``unavailable``, the reason's code
    (:func:`nardy.bots.hints.analysis_offer`); a level the variant does not offer is refused (422).
    Rate-limited per address.
    """
    limiter.spend(Limit.of("board", settings.board_requests_per_address, "too many analysis board requests"),
                  client_address(request))
    position, dice, context = _board(body)
    offer = analysis_offer(position.variant.name)
    if offer.unavailable is not None:
        return {"variant": position.variant.name, "position": position_to_dict(position),
                "dice": list(dice) if dice is not None else None, "plays": [], "cube": None,
                "unavailable": offer.unavailable}
    level = offered_level(position.variant.name, body.level)
    if dice is not None:
        plays = await run_in_threadpool(top_plays, position, dice, context=context, level=level, count=10)
        return {"variant": position.variant.name, "position": position_to_dict(position), "dice": list(dice),
                "plays": [_hint_json(h) for h in plays], "cube": None}
    advice = None
    if context.live:
        advice = _cube_json(await run_in_threadpool(cube_hint, position, context, level=level))
    return {"variant": position.variant.name, "position": position_to_dict(position), "dice": None, "plays": [],
            "cube": advice}


def _board(body: BoardIn) -> tuple[Position, tuple[int, int] | None, CubeContext]:
    """The request's position, dice and cube, or 422 naming what is wrong."""
    if body.variant not in VARIANTS:
        raise HTTPException(422, f"unknown variant {body.variant!r}; known variants: {', '.join(VARIANTS)}")
    variant = VARIANTS[body.variant]
    dice = (body.dice[0], body.dice[1]) if body.dice else None
    live = body.cube
    context = CubeContext(live=live, value=body.cube_value, owner=body.cube_owner) if live else CUBELESS
    text = body.position
    try:
        if isinstance(text, dict):
            position = position_from_dict({**text, "variant": text.get("variant", variant.name)})
        elif text.strip() == "start":
            position = Position.start(variant)
        elif text.strip().startswith("{"):
            position = position_from_json(text)
        elif text.strip().upper().startswith("XGID="):
            position, fields = from_xgid(text.strip(), variant)
            if dice is None and fields.dice != (0, 0):
                dice = fields.dice
            if not body.cube and variant.cube_allowed:
                owner = {"centre": "centered", f"player{fields.player_on_roll}": "player"}.get(fields.cube_owner, "opponent")
                context = CubeContext(live=True, value=fields.cube_value, owner=owner)  # type: ignore[arg-type]
        else:
            position = position_from_id(text.strip(), variant)
    except (NotationError, RulesError, ValueError) as error:
        raise HTTPException(422, f"cannot read the position: {error}") from None
    if context.live and position.variant.board != "short":
        raise HTTPException(422, f"{position.variant.name} is played without the doubling cube")
    if position.is_game_over():
        raise HTTPException(422, "the game is over in this position")
    return position, dice, context


class SetupIn(BaseModel):
    """One edit of a position on the analysis board: clear it, or move one checker of one side.

    Points are the position's own (1..24, the side to move's numbering); ``0`` is ``side``'s tray
    (borne off) and ``25`` its bar; ``side`` 0 is the side to move.
    """

    model_config = ConfigDict(extra="forbid")

    variant: str = "backgammon"
    position: dict[str, Any]
    edit: Literal["clear", "move"] = "move"
    side: Literal[0, 1] = 0
    source: Annotated[int, Field(ge=0, le=25)] = 0
    target: Annotated[int, Field(ge=0, le=25)] = 0


@router.post("/analysis/setup")
def setup_position(body: SetupIn) -> dict[str, Any]:
    """Set a position up checker by checker: the position after the edit, or 422 saying why it cannot be.

    The rules decide what a position may hold (:class:`nardy.rules.Position`); a cleared
    board has every checker in its tray, ready to be put on the points.
    """
    if body.variant not in VARIANTS:
        raise HTTPException(422, f"unknown variant {body.variant!r}; known variants: {', '.join(VARIANTS)}")
    try:
        position = position_from_dict({**body.position, "variant": body.variant})
        edited = cleared(position) if body.edit == "clear" else moved_checker(position, body.side, body.source, body.target)
    except (NotationError, RulesError, ValueError) as error:
        raise HTTPException(422, f"cannot set that up: {error}") from None
    return {"variant": edited.variant.name, "position": position_to_dict(edited)}


def cleared(position: Position) -> Position:
    """``position`` with every checker of both sides in its tray."""
    return Position(position.variant, (0,) * len(position.points), (0, 0), (position.variant.checkers,) * 2)


def moved_checker(position: Position, side: int, source: int, target: int) -> Position:
    """``position`` with one checker of ``side`` taken from ``source`` and put on ``target``.

    Points are the position's own (the side to move's numbering, whose checkers count positive);
    ``0`` and ``25`` are ``side``'s tray and bar. The rules' position check refuses what cannot
    stand (a checker on the bar of a variant that has none, a count other than fifteen).
    """
    if source == target:
        return position
    sign = -1 if side else 1
    points, bar, off = list(position.points), list(position.bar), list(position.off)
    if source == 0:
        there = off[side]
    elif source == 25:
        there = bar[side]
    else:
        there = sign * points[source - 1]
    if there <= 0:
        raise ValueError(f"there is no checker of that side to take from {_place(source)}")
    if 1 <= target <= 24 and sign * points[target - 1] < 0:
        raise ValueError(f"point {target} holds the other side's checkers")
    for place, change in ((source, -1), (target, 1)):
        if place == 0:
            off[side] += change
        elif place == 25:
            bar[side] += change
        else:
            points[place - 1] += sign * change
    return Position(position.variant, tuple(points), (bar[0], bar[1]), (off[0], off[1]))


def _place(place: int) -> str:
    return {0: "the tray", 25: "the bar"}.get(place, f"point {place}")


def _hint_json(hint: Hint) -> dict[str, Any]:
    steps = [step_to_dict(s) for s in hint.play.steps]
    return {"text": format_steps(hint.play.steps), "equity": round(hint.equity, 4), "deep": hint.deep, "plies": hint.plies,
            "steps": steps, "position": position_to_dict(hint.play.position),
            "next": position_to_dict(hint.play.position.turned())}


def _cube_json(advice: CubeAdvice) -> dict[str, Any]:
    return {"no_double": round(advice.no_double, 4), "double_take": round(advice.double_take, 4),
            "double_pass": round(advice.double_pass, 4), "should_double": advice.should_double,
            "should_take": advice.should_take}
