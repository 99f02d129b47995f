"""Chouette tables over HTTP: create, join, look at (``docs/chouette.md``). The lobby lists them with the tables.

Routers stay thin: the chouette service decides.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Request, status
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from nardy.rules import VARIANTS, GameOptions
from nardy.rules.chouette import MAX_PLAYERS, MIN_PLAYERS
from nardy.server.api.bounds import ClockSeconds
from nardy.server.api.deps import DbSession, SettingsDep
from nardy.server.api.private_tables import READABLE
from nardy.server.api.moderation import refuse_restricted
from nardy.server.api.security import CurrentUser
from nardy.server.api.tables import JoinIn, check_invite, client_seed_or_422, in_session, refuse
from nardy.server.services.chouette_state import CHOUETTE_KIND, ChouetteSpec
from nardy.server.services.chouettes import ChouetteService, chouette_spec_from_row
from nardy.server.services.records import chouette_replay
from nardy.server.services.table_state import ActionError
from nardy.server.settings import MOVE_SECONDS_CHOICES
from nardy.store import tables_repo

router = APIRouter(prefix="/api", tags=["chouettes"])


class ChouetteOptionsIn(BaseModel):
    """A chouette is a money game with the cube; Jacoby and the backgammon's value are the choices."""

    model_config = ConfigDict(extra="forbid")

    jacoby: bool = False
    backgammon_value: Literal[2, 3] = 3


class ChouetteIn(BaseModel):
    """A new chouette: its variant (one with backgammon's cube and money play), places, time control, options
    and privacy."""

    model_config = ConfigDict(extra="forbid")

    variant: Annotated[str, Field(max_length=40)] = "backgammon"
    max_players: Annotated[int, Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)] = MAX_PLAYERS
    move_seconds: ClockSeconds | None = None
    options: ChouetteOptionsIn = Field(default_factory=ChouetteOptionsIn)
    private: bool = False
    client_seed: Annotated[str, Field(min_length=1, max_length=64)] | None = None


def _service(request: Request) -> ChouetteService:
    service: ChouetteService = request.app.state.chouettes
    return service


@router.post("/chouettes", status_code=status.HTTP_201_CREATED)
async def create_chouette(body: ChouetteIn, request: Request, user: CurrentUser, settings: SettingsDep) -> dict[str, Any]:
    """Open a chouette; the creator sits down. It forms when a player sends ``start`` with three or more seated.

    422 for an unknown variant, or one the rules play no chouette in (no cube, or no money play).
    """
    if body.variant not in VARIANTS:
        raise HTTPException(422, f"unknown variant {body.variant!r}; known variants: {', '.join(VARIANTS)}")
    await run_in_threadpool(in_session, request, refuse_restricted, user, [])
    if body.move_seconds is not None and body.move_seconds not in MOVE_SECONDS_CHOICES and not settings.testing:
        raise HTTPException(422, f"seconds per move are one of {list(MOVE_SECONDS_CHOICES)}")
    options = GameOptions(cube=True, jacoby=body.options.jacoby, backgammon_value=body.options.backgammon_value)
    spec = ChouetteSpec(options=options, max_players=body.max_players, move_seconds=body.move_seconds,
                        private=body.private, variant=body.variant)
    service = _service(request)
    try:
        state = await service.create(
            user=user, spec=spec, client_seed=client_seed_or_422(body.client_seed),
            waiting_cap=settings.max_waiting_tables,
        )
    except ActionError as error:
        raise refuse(error) from None
    row = await run_in_threadpool(in_session, request, tables_repo.get_table, state.id)
    invite = row.invite_token if row is not None else None
    return {**service.view_of(state), "invite": invite}


@router.get("/chouettes/{table_id}", dependencies=[READABLE])
async def chouette(table_id: str, request: Request) -> dict[str, Any]:
    """The chouette as a client sees it now."""
    service = _service(request)
    try:
        return service.view_of(await service.current(table_id))
    except ActionError as error:
        raise refuse(error) from None


@router.get("/chouettes/{table_id}/replay", dependencies=[READABLE])
def replay_chouette(table_id: str, db: DbSession) -> dict[str, Any]:
    """Each finished game of the chouette, frame by frame; the game in play is not replayed."""
    row = tables_repo.get_table(db, table_id)
    if row is None or row.kind != CHOUETTE_KIND:
        raise HTTPException(404, f"there is no chouette {table_id!r}")
    return {"table": table_id, "games": chouette_replay(table_id, chouette_spec_from_row(row),
                                                         tables_repo.events_after(db, table_id))}


@router.post("/chouettes/{table_id}/join")
async def join_chouette(table_id: str, body: JoinIn, request: Request, user: CurrentUser) -> dict[str, Any]:
    """Sit down: before forming to roll for a place, later at the end of the team from the next game.

    A private chouette needs its invite token. 403 for a banned account, or one that blocks or is blocked by
    a player seated there (``docs/moderation.md``).
    """
    service = _service(request)
    try:
        await run_in_threadpool(in_session, request, check_invite, table_id, body.invite)
        seated = [p for p in (await service.current(table_id)).chouette.players if p != user.id]
        await run_in_threadpool(in_session, request, refuse_restricted, user, seated)
        state = await service.join(table_id, user=user, client_seed=client_seed_or_422(body.client_seed))
    except ActionError as error:
        raise refuse(error) from None
    return service.view_of(state)
