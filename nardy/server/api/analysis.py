"""Post-game analysis over HTTP: request one, follow its progress, read it (docs/protocol.md, *Analysis*).

Requesting queues a job (``nardy.server.services.analysis_queue``); the
analysis itself runs in a worker process. Routes only query the database,
so they are plain functions FastAPI runs in its thread pool.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request, Response, status
from pydantic import BaseModel, ConfigDict

from nardy.server.api.deps import DbSession, SettingsDep
from nardy.server.api.ratelimit import Limit, RateLimiterDep
from nardy.server.api.security import CurrentUser
from nardy.server.services.chouette_state import CHOUETTE_KIND
from nardy.store import analyses_repo, tables_repo
from nardy.store.models import Analysis, GameTable

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
    match. Each user may queue ``analyses_per_user`` an hour.
    """
    row = _finished_table(db, table_id)
    players = (row.player0_id, row.player1_id)
    if row.private and user.id not in players:
        raise HTTPException(403, "only its players may have a private match analysed")
    existing = analyses_repo.get(db, table_id)
    if existing is None or existing.status == "failed":
        limiter.spend(Limit.of("analyses", settings.analyses_per_user, "too many analyses requested"), str(user.id))
    level = (body or AnalysisIn()).level
    now = request.app.state.clock.now()
    job, queued = analyses_repo.request(db, table_id=table_id, level=level, user_id=user.id, now=now)
    if queued:
        request.app.state.analysis_queue.wake()
    else:
        response.status_code = status.HTTP_200_OK
    return view(job)


@router.get("/tables/{table_id}/analysis")
def get_analysis(table_id: str, db: DbSession) -> dict[str, Any]:
    """The analysis of a table: 404 until requested, then its status, progress and, once done, the result."""
    job = analyses_repo.get(db, table_id)
    if job is None:
        raise HTTPException(404, f"table {table_id!r} has not been analysed: POST to this address to ask")
    return view(job)


def view(job: Analysis) -> dict[str, Any]:
    """A job as the API shows it; the result's fields are merged in once it is done."""
    shown: dict[str, Any] = {
        "table": job.table_id, "status": job.status, "level": job.level, "progress": round(job.progress, 3),
        "requested_at": job.requested_at.isoformat(),
        "finished_at": job.finished_at.isoformat() if job.finished_at else None,
    }
    if job.status == "failed":
        shown["error"] = job.error
    if job.status == "done" and job.result is not None:
        shown.update(job.result)
    return shown


def _finished_table(db: DbSession, table_id: str) -> GameTable:
    row = tables_repo.get_table(db, table_id)
    if row is None:
        raise HTTPException(404, f"there is no table {table_id!r}")
    if row.kind == CHOUETTE_KIND:
        raise HTTPException(422, "chouette games are not analysed yet")
    if row.status != "finished":
        raise HTTPException(409, "only a finished match can be analysed")
    return row
