"""Find an opponent (004): join a pool, poll the status, answer an offer. Thin: the service decides."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from nardy.rules import VARIANTS
from nardy.server.api.bounds import ClockSeconds
from nardy.server.api.deps import SettingsDep
from nardy.server.api.security import CurrentUser
from nardy.server.api.moderation import refuse_restricted
from nardy.server.api.tables import bank_clock_or_422, in_session
from nardy.server.services.matchmaking import MatchmakingError, MatchmakingService
from nardy.server.settings import DEFAULT_BANK_CLOCK

router = APIRouter(prefix="/api/matchmaking", tags=["matchmaking"])


class PoolIn(BaseModel):
    """The pool to wait in: variant, match length and bank clock (rated play is always timed: 12 s + 1 min per
    point unless another offered clock is asked for)."""

    model_config = ConfigDict(extra="forbid")

    variant: str
    match_length: Annotated[int, Field(ge=1, le=25)] = 1
    delay_seconds: ClockSeconds = DEFAULT_BANK_CLOCK[0]
    bank_seconds_per_point: ClockSeconds = DEFAULT_BANK_CLOCK[1]


def _service(request: Request) -> MatchmakingService:
    service: MatchmakingService = request.app.state.matchmaking
    return service


@router.get("/pools")
async def pools(request: Request) -> dict[str, Any]:
    """The quick-pairing grid (a variant, a match length and a bank clock per pool) with the players waiting in
    each, then any other pool someone waits in; public, for the home page's tiles."""
    return {"pools": await _service(request).pools()}


@router.post("/join")
async def join(body: PoolIn, request: Request, user: CurrentUser, settings: SettingsDep) -> dict[str, Any]:
    """Wait for an opponent with a close rating; guests play the computer or friends instead."""
    if user.is_guest:
        raise HTTPException(403, "sign up to play rated matches")
    if body.variant not in VARIANTS:
        raise HTTPException(422, f"unknown variant {body.variant!r}; known variants: {', '.join(VARIANTS)}")
    clock = bank_clock_or_422(body.delay_seconds, body.bank_seconds_per_point, settings)
    assert clock is not None
    await run_in_threadpool(in_session, request, refuse_restricted, user, [])
    service = _service(request)
    try:
        await service.join(user, variant=body.variant, match_length=body.match_length, clock=clock)
    except MatchmakingError as error:
        raise HTTPException(409, str(error)) from None
    return await service.status(user.id)


@router.post("/leave")
async def leave(request: Request, user: CurrentUser) -> dict[str, Any]:
    """Stop waiting (an open offer counts as declined)."""
    service = _service(request)
    await service.leave(user.id)
    return await service.status(user.id)


@router.get("/status")
async def status(request: Request, user: CurrentUser) -> dict[str, Any]:
    """idle, waiting, an offer to confirm, or the table a pairing opened."""
    return await _service(request).status(user.id)


@router.post("/offers/{offer_id}/confirm")
async def confirm(offer_id: str, request: Request, user: CurrentUser) -> dict[str, Any]:
    """Accept a pairing 400 or more rating points apart; it starts once both have."""
    service = _service(request)
    try:
        await service.confirm(offer_id, user.id)
    except MatchmakingError as error:
        raise HTTPException(404, str(error)) from None
    return await service.status(user.id)


@router.post("/offers/{offer_id}/decline")
async def decline(offer_id: str, request: Request, user: CurrentUser) -> dict[str, Any]:
    """Refuse a pairing: you leave the pool, your opponent goes back to it."""
    service = _service(request)
    try:
        await service.decline(offer_id, user.id)
    except MatchmakingError as error:
        raise HTTPException(404, str(error)) from None
    return await service.status(user.id)
