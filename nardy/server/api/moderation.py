"""Moderation over HTTP (``docs/moderation.md``): reports, blocks, one's own standing, and the moderator's console.

A player reports another (``POST /api/reports``, rate-limited per user) and
blocks or unblocks them (``/api/me/blocks``); ``GET /api/me/moderation``
shows them the warnings and restrictions on their own account. The routes
under ``/api/mod/`` answer moderators only (403 for everyone else): the
report queue with the unreviewed fair-play flags, one account's view, the
actions, a flag's review, and the audit log. Nothing bans on a flag.

A ban ends every session of the account; the sessions' sockets close at once
in every server process (:func:`nardy.server.auth.signouts.announce_sign_outs`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

import anyio.from_thread
from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request, status
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session

from nardy.server.api.deps import DbSession, SettingsDep
from nardy.server.api.ratelimit import Limit, RateLimiterDep
from nardy.server.api.security import CurrentUser
from nardy.server.auth.signouts import announce_sign_outs
from nardy.server.services import fair_play_flags, moderation
from nardy.server.services.matchmaking import MatchmakingService
from nardy.server.services.moderation import ModerationError
from nardy.store.models import User

router = APIRouter(prefix="/api", tags=["moderation"])

_STATUS = {
    "unknown_user": status.HTTP_404_NOT_FOUND,
    "unknown_report": status.HTTP_404_NOT_FOUND,
    "unknown_table": status.HTTP_404_NOT_FOUND,
    "report_closed": status.HTTP_409_CONFLICT,
    "unknown_flag": status.HTTP_404_NOT_FOUND,
    "flag_reviewed": status.HTTP_409_CONFLICT,
    "too_many_reports": status.HTTP_429_TOO_MANY_REQUESTS,
    "banned": status.HTTP_403_FORBIDDEN,
    "blocked": status.HTTP_403_FORBIDDEN,
}
NOT_A_MODERATOR = "only moderators may do this"


def refusal(error: ModerationError) -> HTTPException:
    """The HTTP error of a refused moderation request (422 unless its code says otherwise)."""
    return HTTPException(_STATUS.get(error.code, status.HTTP_422_UNPROCESSABLE_CONTENT), str(error))


def now() -> datetime:
    """The time moderation's rows carry."""
    return datetime.now(UTC)


def refuse_restricted(db: Session, user: User, others: list[int]) -> None:
    """403 when ``user`` is banned, or blocks or is blocked by one of ``others`` (the players they would sit with)."""
    refused = moderation.sitting_refusal(db, user.id, others, now())
    if refused is not None:
        raise HTTPException(status.HTTP_403_FORBIDDEN, refused[1])


def require_moderator(user: CurrentUser) -> User:
    """The signed-in moderator; 403 for anyone else."""
    if not user.moderator:
        raise HTTPException(status.HTTP_403_FORBIDDEN, NOT_A_MODERATOR)
    return user


Moderator = Annotated[User, Depends(require_moderator)]

Name = Annotated[str, Field(min_length=1, max_length=64)]
Reason = Annotated[str, Field(min_length=1, max_length=moderation.REASON_MAX)]


class ReportIn(BaseModel):
    """A report about a player: what kind, in the reporter's words, and at which table if any."""

    model_config = ConfigDict(extra="forbid")

    username: Name
    category: Literal["cheating", "abuse", "stalling", "other"]
    text: Annotated[str, Field(max_length=moderation.REPORT_TEXT_MAX)] = ""
    table: Annotated[str, Field(min_length=1, max_length=32)] | None = None


class BlockIn(BaseModel):
    """Whom to block."""

    model_config = ConfigDict(extra="forbid")

    username: Name


class ActionIn(BaseModel):
    """A moderator's action on an account, with its reason; ``minutes`` for a mute (required) or a ban (optional)."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["warn", "mute", "unmute", "ban", "unban", "mark_engine", "unmark_engine"]
    reason: Reason
    minutes: Annotated[int, Field(ge=1, le=moderation.MAX_MINUTES)] | None = None
    report: Annotated[int, Field(ge=1, le=2**31 - 1)] | None = None


class CloseIn(BaseModel):
    """Why a report is closed, or a fair-play flag reviewed."""

    model_config = ConfigDict(extra="forbid")

    reason: Reason


@router.post("/reports", status_code=status.HTTP_201_CREATED)
def file_report(
    body: ReportIn, db: DbSession, user: CurrentUser, settings: SettingsDep, limiter: RateLimiterDep,
) -> dict[str, Any]:
    """Report a player; the answer says it was received. Rate-limited per reporter."""
    limiter.require_room(Limit.of("reports", settings.reports_per_user, "too many reports"), str(user.id))
    try:
        row = moderation.report(
            db, user, name=body.username, category=body.category, text=body.text, table_id=body.table, now=now(),
        )
    except ModerationError as error:
        raise refusal(error) from None
    limiter.spend(Limit.of("reports", settings.reports_per_user, "too many reports"), str(user.id))
    return {"id": row.id, "received": True}


@router.get("/me/blocks")
def my_blocks(db: DbSession, user: CurrentUser) -> dict[str, Any]:
    """The players the signed-in user blocks."""
    return {"blocked": moderation.blocked_names(db, user.id)}


@router.post("/me/blocks")
def add_block(body: BlockIn, db: DbSession, user: CurrentUser) -> dict[str, Any]:
    """Block a player: no chat, no sitting together, no pairing, their tables hidden from the lobby."""
    try:
        moderation.block(db, user, body.username, now())
    except ModerationError as error:
        raise refusal(error) from None
    return {"blocked": moderation.blocked_names(db, user.id)}


@router.delete("/me/blocks/{username}")
def remove_block(username: str, db: DbSession, user: CurrentUser) -> dict[str, Any]:
    """Unblock a player (not blocked: no change)."""
    try:
        moderation.unblock(db, user, username)
    except ModerationError as error:
        raise refusal(error) from None
    return {"blocked": moderation.blocked_names(db, user.id)}


@router.get("/me/moderation")
def my_standing(db: DbSession, user: CurrentUser) -> dict[str, Any]:
    """The warnings and restrictions on the signed-in user's account."""
    return moderation.own_standing(db, user, now())


@router.get("/mod/reports")
def report_queue(db: DbSession, _moderator: Moderator) -> dict[str, Any]:
    """The open reports and the unreviewed fair-play flags, oldest first."""
    return {"reports": moderation.queue(db), "fair_play": fair_play_flags.queue(db)}


@router.post("/mod/reports/{report_id}/close")
def close_report(
    report_id: Annotated[int, Path(ge=1, le=2**31 - 1)], body: CloseIn, db: DbSession, moderator: Moderator,
) -> dict[str, Any]:
    """Close a report, with a reason (logged)."""
    try:
        closed = moderation.close_report(db, moderator, report_id, reason=body.reason, now=now())
    except ModerationError as error:
        raise refusal(error) from None
    return {"report": closed}


@router.get("/mod/users/{username}")
def user_view(username: str, db: DbSession, _moderator: Moderator) -> dict[str, Any]:
    """One account as the console shows it, with its fair-play flags (reviewed or not)."""
    try:
        view = moderation.user_view(db, username, now())
    except ModerationError as error:
        raise refusal(error) from None
    return {**view, "fair_play": fair_play_flags.flags_of(db, view["user"]["id"])}


@router.post("/mod/fair-play/{flag_id}/review")
def review_flag(
    flag_id: Annotated[int, Path(ge=1, le=2**31 - 1)], body: CloseIn, db: DbSession, moderator: Moderator,
) -> dict[str, Any]:
    """Mark a fair-play flag reviewed, with a reason (logged); nothing else changes on the account."""
    try:
        flag, entry = fair_play_flags.review(db, moderator, flag_id, reason=body.reason, now=now())
    except ModerationError as error:
        raise refusal(error) from None
    return {"flag": flag, "entry": entry}


@router.post("/mod/users/{username}/actions", status_code=status.HTTP_201_CREATED)
def act(username: str, body: ActionIn, request: Request, db: DbSession, moderator: Moderator) -> dict[str, Any]:
    """Act on an account (logged with the reason); a ban closes its sockets in every process at once."""
    try:
        entry, ended = moderation.act(
            db, moderator, username, action=body.action, reason=body.reason, minutes=body.minutes, now=now(),
            report_id=body.report,
        )
    except ModerationError as error:
        raise refusal(error) from None
    announce_sign_outs(request.app, ended)
    if body.action == "ban":  # nor does matchmaking pair them while the ban holds
        matchmaking: MatchmakingService = request.app.state.matchmaking
        anyio.from_thread.run(matchmaking.leave, entry.target_id)
    return {"entry": moderation.entry_json(db, entry)}


@router.get("/mod/log")
def audit_log(
    db: DbSession,
    _moderator: Moderator,
    before: Annotated[int, Query(ge=1, le=2**31 - 1)] | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    """A page of the audit log, newest first (``before``: the entries older than that id)."""
    return {"entries": moderation.audit(db, before=before, limit=limit)}
