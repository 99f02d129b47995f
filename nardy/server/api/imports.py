"""Matches played elsewhere, read in from a file to be analysed and replayed (docs/protocol.md, *Imported matches*).

A user posts a .mat, SGF or table-record file's text; it is read through
:mod:`nardy.notation` and replayed through the rules (a file the rules
refuse is refused with the reason, and nothing is kept), kept as a record
of numbered actions, and its analysis is queued at once in the same queue
as the tables' (:mod:`nardy.server.services.analysis_queue`). Only the user
who read a match in sees it: anyone else gets 404, as for one that is not
there. Like the analysis routes these only query the database, so they are
plain functions FastAPI runs in its thread pool.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field

from nardy.notation import NotationError
from nardy.notation.match_file import read_match_file
from nardy.notation.transcript import Transcript, record_from_transcript, transcript_from_record
from nardy.server.api.analysis import AnalysisIn, AnalysisLevel, analyses_limit, job_view, spend_analysis
from nardy.server.api.deps import DbSession, SettingsDep
from nardy.server.api.match_files import MatchFormat, download
from nardy.server.api.ratelimit import RateLimiterDep
from nardy.server.api.security import CurrentUser
from nardy.server.services.records import transcript_replay
from nardy.server.settings import Settings
from nardy.store import analyses_repo, imports_repo
from nardy.store.models import ImportedMatch

router = APIRouter(tags=["imports"])

IMPORTS_PATH = "/api/imports"
"""Where match files are posted: its request bodies have a cap of their own (``max_import_bytes``)."""
MAX_TEXT = 1_000_000
"""The most characters of a match file read in (a long match's .mat is some tens of thousands)."""
MAX_ACTIONS = 5_000
"""The most actions (rolls, moves, cube and resignation decisions) of a match read in: a 25-point match has
some 1,500. It bounds how long one analysis holds a worker."""
UNFINISHED_PER_USER = 2
"""Analyses of one user's imports that may wait or run at once, so that nobody fills the queue that the
tables' analyses share."""


class ImportIn(BaseModel):
    """A match file: its name (which tells its kind, if it has an extension), its text, and how deep to analyse it."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Field(min_length=1, max_length=120)]
    text: Annotated[str, Field(min_length=1, max_length=MAX_TEXT)]
    level: AnalysisLevel = "expert"


@router.post(IMPORTS_PATH, status_code=status.HTTP_201_CREATED)
def import_match(
    body: ImportIn, request: Request, db: DbSession, user: CurrentUser, settings: SettingsDep, limiter: RateLimiterDep,
) -> dict[str, Any]:
    """Read a match file in and queue its analysis (201); 422 naming what cannot be read or replayed.

    Each import kept queues an analysis, so it counts against
    ``analyses_per_user`` (429); a user keeps at most ``imports_per_user``,
    and has at most :data:`UNFINISHED_PER_USER` of them waiting for their
    analysis (409). The limits are looked at before the file is read, so
    that a user at one spends no time reading it, and decided when the
    import is written, so that two uploads at once cannot both pass and a
    refused one spends none of the user's analyses.
    """
    if imports_repo.count_of_owner(db, user.id) >= settings.imports_per_user:
        raise _cap_passed("kept", settings)
    if imports_repo.count_of_owner(db, user.id, unfinished_only=True) >= UNFINISHED_PER_USER:
        raise _cap_passed("unfinished", settings)
    limiter.require_room(analyses_limit(settings), str(user.id))
    transcript = _read(body)
    now = request.app.state.clock.now()
    imported = ImportedMatch(
        id=secrets.token_urlsafe(12), owner_id=user.id, name=body.name, variant=transcript.variant,
        match_length=transcript.length, players=list(transcript.players), games=len(transcript.games),
        record=record_from_transcript(transcript), created_at=now,
        level=body.level, status="queued", progress=0.0, requested_by=user.id, requested_at=now,
    )
    passed = imports_repo.add_within_caps(
        db, imported, kept=settings.imports_per_user, unfinished=UNFINISHED_PER_USER,
        on_kept=lambda: spend_analysis(limiter, settings, user.id),
    )
    if passed is not None:
        raise _cap_passed(passed, settings)
    request.app.state.analysis_queue.wake()
    return view(imported)


def _cap_passed(cap: imports_repo.CapPassed, settings: Settings) -> HTTPException:
    if cap == "kept":
        return HTTPException(409, f"you keep {settings.imports_per_user} imported matches already: remove some first")
    return HTTPException(409, f"{UNFINISHED_PER_USER} of your matches are being analysed: wait for one to finish")


@router.get(IMPORTS_PATH)
def list_imports(db: DbSession, user: CurrentUser) -> dict[str, Any]:
    """The user's imported matches, newest first (at most ``imports_repo.LISTED``)."""
    return {"imports": [view(imported) for imported in imports_repo.of_owner(db, user.id)]}


@router.get(IMPORTS_PATH + "/{import_id}")
def get_import(import_id: str, db: DbSession, user: CurrentUser) -> dict[str, Any]:
    """One imported match and where its analysis stands."""
    return view(_owned(db, import_id, user.id))


@router.delete(IMPORTS_PATH + "/{import_id}", status_code=status.HTTP_204_NO_CONTENT)
def remove_import(import_id: str, db: DbSession, user: CurrentUser) -> Response:
    """Remove an imported match and its analysis."""
    if not imports_repo.remove(db, import_id, owner_id=user.id):
        raise _not_found(import_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get(IMPORTS_PATH + "/{import_id}/replay")
def import_replay(import_id: str, db: DbSession, user: CurrentUser) -> dict[str, Any]:
    """Move-by-move frames of an imported match, as a table's replay has them, and who played white in each game."""
    imported = _owned(db, import_id, user.id)
    transcript = transcript_from_record(imported.record)
    return {
        "id": imported.id, "name": imported.name, "variant": imported.variant, "match_length": imported.match_length,
        "options": imported.record["options"], "players": imported.players, **transcript_replay(transcript),
    }


@router.get(IMPORTS_PATH + "/{import_id}/export.{fmt}")
def export_import(import_id: str, fmt: MatchFormat, db: DbSession, user: CurrentUser) -> Response:
    """An imported match written again as a .mat or an SGF file (a file of one kind read in, the other out)."""
    imported = _owned(db, import_id, user.id)
    return download(transcript_from_record(imported.record), fmt, f"nardy-import-{imported.id}")


@router.get(IMPORTS_PATH + "/{import_id}/analysis")
def get_import_analysis(import_id: str, db: DbSession, user: CurrentUser) -> dict[str, Any]:
    """The analysis of an imported match, as a table's is shown: its status and progress, then its result."""
    imported = _owned(db, import_id, user.id)
    return {"import": imported.id, **job_view(imported, with_result=True)}


@router.post(IMPORTS_PATH + "/{import_id}/analysis", status_code=status.HTTP_202_ACCEPTED)
def request_import_analysis(
    import_id: str, request: Request, response: Response, db: DbSession, user: CurrentUser, settings: SettingsDep,
    limiter: RateLimiterDep, body: AnalysisIn | None = None,
) -> dict[str, Any]:
    """Queue a failed analysis again (202); one queued, running or done is answered as it stands (200)."""
    imported = _owned(db, import_id, user.id)
    if imported.status != "failed":
        response.status_code = status.HTTP_200_OK
    else:
        spend_analysis(limiter, settings, user.id)
        analyses_repo.queue_again(imported, level=(body or AnalysisIn()).level, user_id=user.id,
                                  now=request.app.state.clock.now())
        db.commit()
        request.app.state.analysis_queue.wake()
    return {"import": imported.id, **job_view(imported, with_result=True)}


def view(imported: ImportedMatch) -> dict[str, Any]:
    """An imported match as the API lists it: what it is, and where its analysis stands (not the result)."""
    return {
        "id": imported.id, "name": imported.name, "variant": imported.variant, "match_length": imported.match_length,
        "players": imported.players, "games": imported.games, "created_at": imported.created_at.isoformat(),
        "analysis": job_view(imported, with_result=False),
    }


def _read(body: ImportIn) -> Transcript:
    """The file's match, replayed through the rules to the end; 422 with the reason when it cannot be."""
    try:
        transcript = read_match_file(body.text, body.name)
    except NotationError as error:
        raise HTTPException(422, f"{body.name}: {error}") from None
    if not transcript.games:
        raise HTTPException(422, f"{body.name}: the file holds no game")
    actions = sum(len(game.actions) for game in transcript.games)
    if actions > MAX_ACTIONS:
        raise HTTPException(422, f"{body.name}: {actions} actions; at most {MAX_ACTIONS} are analysed")
    return transcript


def _owned(db: DbSession, import_id: str, owner_id: int) -> ImportedMatch:
    imported = imports_repo.get(db, import_id, owner_id=owner_id)
    if imported is None:
        raise _not_found(import_id)
    return imported


def _not_found(import_id: str) -> HTTPException:
    return HTTPException(404, f"you have no imported match {import_id!r}")
