"""Routes mounted only when ``NARDY_ENVIRONMENT=testing``: scripted dice for end-to-end tests."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field

from nardy.server.services.dice import ScriptedDice

router = APIRouter(prefix="/api/testing", tags=["testing"])

Die = Annotated[int, Field(ge=1, le=6)]


class DiceIn(BaseModel):
    """Rolls to hand out next, in order (opening rolls included)."""

    model_config = ConfigDict(extra="forbid")

    rolls: list[tuple[Die, Die]]


def scripted_dice(request: Request) -> ScriptedDice:
    """The app's scripted dice; 409 where it was built with real ones."""
    dice = request.app.state.dice
    if not isinstance(dice, ScriptedDice):
        raise HTTPException(409, "this server rolls real dice")
    return dice


@router.post("/dice")
async def script_dice(body: DiceIn, request: Request) -> dict[str, int]:
    """Queue scripted rolls; the app must have been built with scripted dice."""
    dice = scripted_dice(request)
    dice.push(*body.rolls)
    return {"queued": dice.remaining}


@router.delete("/dice")
async def drop_dice(request: Request) -> dict[str, int]:
    """Drop the rolls still queued (a failed test's), so the next test on the same server starts with none."""
    return {"dropped": scripted_dice(request).clear(), "queued": 0}
