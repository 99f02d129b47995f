"""Tables over HTTP: create, list, look at, join, and the records of finished play.

A private table and everything of it is shown only to its members and to holders of its invite token
(:mod:`nardy.server.api.private_tables`).

Routers stay thin: the table service decides, the repository queries.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from nardy.bots import levels_for
from nardy.notation import NotationError
from nardy.notation.fair_dice import check_client_seed
from nardy.notation.transcript import transcript_from_record
from nardy.rules import VARIANTS, GameOptions
from nardy.server.api.bounds import LARGEST_ROW_NUMBER, LONGEST_MATCH, ClockSeconds
from nardy.server.api.deps import DbSession, SettingsDep
from nardy.server.api.match_files import MatchFormat, download
from nardy.server.api.moderation import refuse_restricted
from nardy.server.api.private_tables import READABLE
from nardy.server.api.security import CurrentUser, OptionalUser
from nardy.server.auth.table_access import invite_matches
from nardy.server.services import moderation
from nardy.server.services.chat import ChatService
from nardy.server.services.chouette_state import CHOUETTE_KIND
from nardy.server.services.dice import DiceStatistics, dice_statistics
from nardy.server.services.recent import Recent
from nardy.server.services.records import public_record, replay
from nardy.server.services.table_state import MAX_STAKE, ActionError, TableSpec, moves_final_at_new_table
from nardy.server.services.tables import TableService, spec_from_row
from nardy.server.settings import (
    BANK_CLOCK_CHOICES,
    CORRESPONDENCE_DAYS_CHOICES,
    MOVE_SECONDS_CHOICES,
    Settings,
)
from nardy.store import tables_repo, tournaments_repo, users_repo
from nardy.store.models import GameTable, User

router = APIRouter(prefix="/api", tags=["tables"])

_ERROR_STATUS = {
    "no_such_table": status.HTTP_404_NOT_FOUND,
    "not_open": status.HTTP_409_CONFLICT,
    "table_full": status.HTTP_409_CONFLICT,
    "wrong_kind": status.HTTP_404_NOT_FOUND,
    "account_required": status.HTTP_403_FORBIDDEN,
    "invite_required": status.HTTP_403_FORBIDDEN,
    "too_many_tables": status.HTTP_409_CONFLICT,
    "not_enough_coins": status.HTTP_409_CONFLICT,
}


class OptionsIn(BaseModel):
    """Cube options (backgammon and dave), and whether moves are final (when omitted: the variant's default
    between people, off against the computer; rated tables may not turn a variant's default off)."""

    model_config = ConfigDict(extra="forbid")

    cube: bool | None = None
    jacoby: bool = False
    automatic_doubles: Annotated[int, Field(ge=0, le=1)] = 0
    backgammon_value: Literal[2, 3] = 3
    beavers: bool = False
    moves_final: bool | None = None


class TableIn(BaseModel):
    """A new table: the variant, match length, time control, options, and who to play.

    The time control is seconds per move, correspondence days, or a bank clock
    (``delay_seconds`` with ``bank_seconds_per_point``), or none; a rated table needs a bank clock.
    ``stake`` is virtual coins per match point, for a match between two account holders.
    """

    model_config = ConfigDict(extra="forbid")

    variant: str
    match_length: Annotated[int, Field(ge=0, le=LONGEST_MATCH)] = 1
    move_seconds: ClockSeconds | None = None
    correspondence_days: Annotated[int, Field(ge=1, le=max(CORRESPONDENCE_DAYS_CHOICES))] | None = None
    delay_seconds: ClockSeconds | None = None
    bank_seconds_per_point: ClockSeconds | None = None
    options: OptionsIn = Field(default_factory=OptionsIn)
    rated: bool = False
    private: bool = False
    opponent: Literal["human", "computer"] = "human"
    bot_level: str = "random"
    client_seed: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    stake: Annotated[int, Field(ge=0, le=MAX_STAKE)] = 0


class JoinIn(BaseModel):
    """Joining a table, optionally with one's own client seed for the dice; a private table needs its invite."""

    model_config = ConfigDict(extra="forbid")

    client_seed: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    invite: Annotated[str, Field(min_length=1, max_length=64)] | None = None


def check_invite(db: Session, table_id: str, invite: str | None) -> None:
    """A private table is joined only with its invite token (002: play with a friend); an ActionError otherwise.

    The token is compared in constant time; a table that does not exist is
    left to the service, which names it.
    """
    row = tables_repo.get_table(db, table_id)
    if row is None or not row.private:
        return
    if not invite_matches(invite, row.invite_token):
        raise ActionError("invite_required", "this table is private: join it through its invite link")


def check_company(db: Session, table_id: str, user: User) -> None:
    """403 when ``user`` is banned, or blocks or is blocked by a player seated at the table (``docs/moderation.md``)."""
    row = tables_repo.get_table(db, table_id)
    seated = [] if row is None else [p for p in (row.player0_id, row.player1_id) if p is not None and p != user.id]
    refuse_restricted(db, user, seated)


def _service(request: Request) -> TableService:
    tables: TableService = request.app.state.tables
    return tables


def _chat(request: Request) -> ChatService:
    chat: ChatService = request.app.state.chat
    return chat


def refuse(error: ActionError) -> HTTPException:
    """The HTTP error for a refusal of the table or chouette service."""
    code = _ERROR_STATUS.get(error.code, status.HTTP_422_UNPROCESSABLE_CONTENT)
    return HTTPException(status_code=code, detail=str(error))


BANK_CLOCK_NAMES = ", ".join(f"{delay} s + {bank} s per point" for delay, bank in BANK_CLOCK_CHOICES)
"""The bank clocks offered, as a refusal names them."""


def bank_clock_or_422(delay: int | None, bank: int | None, settings: Settings) -> tuple[int, int] | None:
    """A bank clock offered to players (any positive pair in testing), None for none; 422 naming the choices."""
    if delay is None and bank is None:
        return None
    if delay is None or bank is None:
        raise HTTPException(
            422, f"a bank clock needs delay_seconds and bank_seconds_per_point; clocks: {BANK_CLOCK_NAMES}",
        )
    if (delay, bank) not in BANK_CLOCK_CHOICES and not settings.testing:
        raise HTTPException(422, f"bank clocks are {BANK_CLOCK_NAMES}")
    return delay, bank


def _spec(body: TableIn, settings: Settings) -> TableSpec:
    if body.variant not in VARIANTS:
        raise HTTPException(422, f"unknown variant {body.variant!r}; known variants: {', '.join(VARIANTS)}")
    variant = VARIANTS[body.variant]
    seconds = body.move_seconds
    bank_clock = bank_clock_or_422(body.delay_seconds, body.bank_seconds_per_point, settings)
    if bank_clock is not None and (seconds is not None or body.correspondence_days is not None):
        raise HTTPException(422, "choose one time control: seconds per move, correspondence days or a bank clock")
    rated = body.rated and body.opponent == "human"
    if rated and bank_clock is None:
        raise HTTPException(
            422, "a rated table needs a time control: a bank clock (delay_seconds and bank_seconds_per_point, "
                 f"a delay per move and a time bank per point); clocks: {BANK_CLOCK_NAMES}",
        )
    if body.correspondence_days is not None:
        if seconds is not None:
            raise HTTPException(422, "choose seconds per move or correspondence days, not both")
        if body.correspondence_days not in CORRESPONDENCE_DAYS_CHOICES:
            raise HTTPException(422, f"correspondence days are one of {list(CORRESPONDENCE_DAYS_CHOICES)}")
        seconds = body.correspondence_days * 86400
    elif seconds is not None and seconds not in MOVE_SECONDS_CHOICES and not settings.testing:
        raise HTTPException(422, f"seconds per move are one of {list(MOVE_SECONDS_CHOICES)}")
    if body.stake and body.opponent == "computer":
        raise HTTPException(422, "the computer does not play for coins: a stake needs a human opponent")
    if body.opponent == "computer" and body.bot_level not in levels_for(variant.name):
        levels = ", ".join(levels_for(variant.name))
        raise HTTPException(422, f"unknown computer level {body.bot_level!r} for {variant.name}; levels: {levels}")
    options = body.options
    cube = variant.cube_required if options.cube is None else options.cube
    game_options = GameOptions(
        cube=cube, jacoby=options.jacoby, automatic_doubles=options.automatic_doubles,
        backgammon_value=options.backgammon_value, beavers=options.beavers,
    )
    try:
        final = moves_final_at_new_table(
            variant.name, options.moves_final, against_computer=body.opponent == "computer", binding=rated,
        )
    except ActionError as error:
        raise refuse(error) from None
    return TableSpec(
        variant=body.variant, match_length=body.match_length, options=game_options, move_seconds=seconds,
        rated=rated, private=body.private, final=final,
        delay_seconds=bank_clock[0] if bank_clock else None,
        bank_seconds_per_point=bank_clock[1] if bank_clock else None, stake=body.stake,
    )


def client_seed_or_422(seed: str | None) -> str | None:
    """A checked client seed (or None); 422 naming the problem otherwise."""
    if seed is None:
        return None
    try:
        return check_client_seed(seed)
    except ValueError as error:
        raise HTTPException(422, str(error)) from None


@router.post("/tables", status_code=status.HTTP_201_CREATED)
async def create_table(body: TableIn, request: Request, user: CurrentUser, settings: SettingsDep) -> dict[str, Any]:
    """Open a table; against the computer the match begins at once."""
    spec = _spec(body, settings)
    service = _service(request)
    against_people = body.opponent == "human"
    await run_in_threadpool(in_session, request, refuse_restricted, user, [])
    try:
        state = await service.create(
            user=user, spec=spec, bot_level=None if against_people else body.bot_level,
            client_seed=client_seed_or_422(body.client_seed),
            waiting_cap=settings.max_waiting_tables if against_people else None,
        )
    except ActionError as error:
        raise refuse(error) from None
    row = await run_in_threadpool(in_session, request, tables_repo.get_table, state.id)
    invite = row.invite_token if row is not None else None
    return {"table": service.view_of(await service.current(state.id)), "invite": invite}


def in_session(request: Request, work: Any, *args: Any) -> Any:
    """``work(db, *args)`` in a database session of its own: what a route runs in a worker thread, off the event loop."""
    with request.app.state.db() as db:
        return work(db, *args)


@router.get("/tables")
@router.get("/lobby")
def lobby(
    db: DbSession,
    viewer: OptionalUser,
    kind: Literal["match", "chouette"] | None = None,
    offset: Annotated[int, Query(ge=0, le=LARGEST_ROW_NUMBER)] = 0,
    limit: Annotated[int, Query(ge=1, le=100)] = 100,
) -> dict[str, Any]:
    """Public tables and chouettes waiting for players, and a page of those people are playing (to watch).

    Games against the computer are not listed (each is in its player's own list, ``GET /api/me/tables``), nor,
    for a signed-in viewer, the tables of players they block or are blocked by.
    """
    page = tables_repo.lobby(db, kind=kind, offset=offset, limit=limit)
    apart = set() if viewer is None else moderation.kept_apart_from(db, viewer.id)
    waiting = [row for row in page.waiting if not _seats_any(row, apart)]
    playing = [row for row in page.playing if not _seats_any(row, apart)]
    names = _player_names(db, [*waiting, *playing])
    return {
        "waiting": [_summary(row, names) for row in waiting],
        "playing": [_summary(row, names) for row in playing],
        "playing_total": page.playing_total, "offset": offset, "limit": limit,
    }


def _seats_any(row: GameTable, players: set[int]) -> bool:
    """Whether one of ``players`` created the table or sits at it (a chouette's players are in its summary)."""
    if not players:
        return False
    seated = {row.player0_id, row.player1_id, row.created_by}
    if row.kind == CHOUETTE_KIND and row.score:
        seated |= {p.get("user_id") for p in row.score.get("players", [])}
    return bool(seated & players)


@router.get("/me/tables")
def my_tables(db: DbSession, user: CurrentUser) -> dict[str, Any]:
    """The signed-in player's (or guest's) tables waiting or being played, private ones too: to resume them."""
    rows = tables_repo.unfinished_tables_of(db, user.id)
    names = _player_names(db, rows)
    return {"tables": [_summary(row, names) for row in rows]}


def _player_names(db: Session, rows: list[GameTable]) -> dict[int, str]:
    """The usernames of the players seated at ``rows``, by user id, in one query."""
    ids = {user_id for row in rows for user_id in (row.player0_id, row.player1_id) if user_id is not None}
    return users_repo.names_by_id(db, ids)


def _summary(row: GameTable, names_by_id: dict[int, str]) -> dict[str, Any]:
    """A match's entry in the lobby and the players' lists, its players named from ``names_by_id``
    (:func:`_player_names`); a chouette's from its own summary."""
    if row.kind == CHOUETTE_KIND:
        return _chouette_summary(row)
    names = [None if user_id is None else names_by_id.get(user_id) for user_id in (row.player0_id, row.player1_id)]
    bots: list[str | None] = [None, None]
    if row.bot_seat is not None:
        names[row.bot_seat] = f"Computer ({row.bot_level})"
        bots[row.bot_seat] = row.bot_level
    return {
        "table": row.id, "kind": row.kind, "variant": row.variant, "match_length": row.match_length,
        "options": row.options, "move_seconds": row.move_seconds, "delay_seconds": row.delay_seconds,
        "bank_seconds_per_point": row.bank_seconds_per_point, "rated": row.rated, "private": row.private,
        "stake": row.stake, "status": row.status, "players": names, "bots": bots, "max_players": 2, "score": row.score, "winner": row.winner,
        "created_at": row.created_at.isoformat(), "finished_at": row.finished_at.isoformat() if row.finished_at else None,
    }


def _chouette_summary(row: GameTable) -> dict[str, Any]:
    """A chouette's lobby entry: its players (by name, box first once formed) and its number of places."""
    summary = row.score or {}
    return {
        "table": row.id, "kind": row.kind, "variant": row.variant, "match_length": row.match_length,
        "options": row.options, "move_seconds": row.move_seconds, "delay_seconds": None,
        "bank_seconds_per_point": None, "rated": False, "private": row.private, "stake": 0, "status": row.status,
        "players": [p["name"] for p in summary.get("players", [])],
        "bots": [None for _ in summary.get("players", [])], "max_players": row.max_players,
        "score": row.score, "winner": None,
        "created_at": row.created_at.isoformat(), "finished_at": row.finished_at.isoformat() if row.finished_at else None,
    }


@router.get("/tables/{table_id}", dependencies=[READABLE])
async def table(table_id: str, request: Request) -> dict[str, Any]:
    """The table as a client sees it now."""
    service = _service(request)
    try:
        return service.view_of(await service.current(table_id))
    except ActionError as error:
        raise refuse(error) from None


@router.post("/tables/{table_id}/join")
async def join(table_id: str, body: JoinIn, request: Request, user: CurrentUser) -> dict[str, Any]:
    """Take the free seat; the match starts when both seats are taken. A private table needs its invite token."""
    service = _service(request)
    try:
        await run_in_threadpool(in_session, request, check_invite, table_id, body.invite)
        await run_in_threadpool(in_session, request, check_company, table_id, user)
        state = await service.join(table_id, user=user, client_seed=client_seed_or_422(body.client_seed))
    except ActionError as error:
        raise refuse(error) from None
    return service.view_of(state)


@router.get("/invites/{token}")
def invite(token: str, db: DbSession) -> dict[str, str]:
    """The private table (a match or a chouette) an invite link opens (play with a friend, 002)."""
    row = tables_repo.table_by_invite(db, token)
    if row is None:
        raise HTTPException(404, "this invite link is not valid")
    return {"table": row.id, "kind": row.kind}


def _record_of(db: Session, table_id: str) -> tuple[str, dict[str, Any]]:
    """A table's kind and its record of events and dice, with the tournament a match was played for (or
    None); 404 when there is no such table."""
    row = tables_repo.get_table(db, table_id)
    if row is None:
        raise HTTPException(404, f"there is no table {table_id!r}")
    record = public_record(table_id, spec_from_row(row), tables_repo.events_after(db, table_id))
    if row.kind != CHOUETTE_KIND:
        played_for = tournaments_repo.of_table(db, table_id)
        record["tournament"] = played_for[0].id if played_for is not None else None
    return row.kind, record


@router.get("/tables/{table_id}/record", dependencies=[READABLE])
async def record(table_id: str, request: Request, viewer: OptionalUser) -> dict[str, Any]:
    """The full record: every event with its time, the dice record ``nardy verify-dice`` checks and, at a
    two-seat table, its ``chat`` as far as the viewer may read it (``null`` when they may not) and the
    ``tournament`` it was played for (``null`` for none)."""
    read: tuple[str, dict[str, Any]] = await run_in_threadpool(in_session, request, _record_of, table_id)
    kind, result = read
    if kind != CHOUETTE_KIND:
        result["chat"] = await _chat(request).history(table_id, viewer.id if viewer is not None else None)
    return result


@router.get("/tables/{table_id}/chat", dependencies=[READABLE])
async def table_chat(table_id: str, request: Request, viewer: OptionalUser) -> dict[str, Any]:
    """Every message of a two-seat table's chat, for its players, and for anyone while spectators may read it."""
    try:
        messages = await _chat(request).history(table_id, viewer.id if viewer is not None else None)
    except ActionError as error:
        raise refuse(error) from None
    if messages is None:
        raise HTTPException(status.HTTP_403_FORBIDDEN, "the players of this rated match keep its chat from spectators")
    return {"table": table_id, "messages": messages}


@router.get("/tables/{table_id}/export.{fmt}", dependencies=[READABLE])
def export(table_id: str, fmt: MatchFormat, db: DbSession) -> Response:
    """A match as a Jellyfish/gnubg .mat or a gnubg SGF file (docs/formats.md), to download."""
    row = tables_repo.get_table(db, table_id)
    if row is None or row.kind == CHOUETTE_KIND:
        raise HTTPException(404, f"there is no match table {table_id!r}")
    record = public_record(table_id, spec_from_row(row), tables_repo.events_after(db, table_id))
    try:
        transcript = transcript_from_record(record)
    except NotationError as error:
        raise HTTPException(422, str(error)) from None
    return download(transcript, fmt, f"nardy-{table_id}")


@router.get("/tables/{table_id}/replay", dependencies=[READABLE])
def table_replay(table_id: str, db: DbSession) -> dict[str, Any]:
    """Move-by-move replay frames of a table (004: replay of any finished game)."""
    row = tables_repo.get_table(db, table_id)
    if row is None:
        raise HTTPException(404, f"there is no table {table_id!r}")
    if row.kind == CHOUETTE_KIND:
        raise HTTPException(404, f"table {table_id!r} is a chouette: its replay is not available")
    return {"table": table_id, "variant": row.variant,
            "frames": replay(table_id, spec_from_row(row), tables_repo.events_after(db, table_id))}


@router.get("/users/{username}/games")
def user_games(username: str, db: DbSession, viewer: OptionalUser) -> dict[str, Any]:
    """A player's finished matches and the closed chouettes they sat at (once a game was played there), newest
    first, at most 100; private ones only for the player themself. A chouette's row carries the player's
    ``points`` there."""
    user = _user(db, username)
    own = viewer is not None and viewer.id == user.id
    finished = tables_repo.tables_of_user(db, user.id, status="finished", include_private=own)
    names = _player_names(db, finished)
    matches = [_summary(row, names) for row in finished]
    chouettes = []
    for row in tables_repo.closed_chouettes_of(db, user.id, include_private=own):
        summary = row.score or {}
        points = {player: score for player, score in summary.get("scores", [])}
        if summary.get("games") and user.id in points:  # a chouette closed before any game was played is no history
            chouettes.append({**_chouette_summary(row), "points": points[user.id]})
    rows = sorted([*matches, *chouettes], key=lambda row: row["finished_at"] or "", reverse=True)[:100]
    return {"user": user.username, "tables": rows}


@router.get("/users/{username}/dice")
def user_dice(username: str, db: DbSession) -> dict[str, Any]:
    """Public statistics of a player's dice against their expectation."""
    user = _user(db, username)
    rolls = [(roll[0], roll[1]) for roll in tables_repo.rolls_of_user(db, user.id)]
    return {"user": user.username, "statistics": dice_statistics(rolls)}


@router.get("/users/{username}/colours")
def user_colours(username: str, db: DbSession, viewer: OptionalUser) -> dict[str, Any]:
    """A player's own games and wins by the colour they played, per variant (003's statistics, for one player);
    their private tables count only for the player themself."""
    user = _user(db, username)
    own = viewer is not None and viewer.id == user.id
    table: dict[str, dict[str, dict[str, int]]] = {}
    for variant, played, winner, count in tables_repo.colour_statistics_of_user(db, user.id, include_private=own):
        colours = table.setdefault(variant, {colour: {"games": 0, "wins": 0} for colour in ("white", "black")})
        colours[played]["games"] += count
        if winner == played:
            colours[played]["wins"] += count
    return {"user": user.username, "variants": table}


@router.get("/stats/colours")
def colours(db: DbSession) -> dict[str, Any]:
    """Wins by colour per variant over the whole site (003)."""
    table: dict[str, dict[str, int]] = {}
    for variant, colour, count in tables_repo.colour_statistics(db):
        table.setdefault(variant, {"white": 0, "black": 0})[colour] = count
    return {"variants": table}


@router.get("/stats/dice")
def site_dice(request: Request, db: DbSession) -> dict[str, Any]:
    """The site's dice: every roll's faces and doubles against their expectation, with the faces' chi-square.

    It reads every roll ever made, so each process works it out at most once per
    ``Settings.site_statistics_seconds`` (:mod:`~nardy.server.services.recent`).
    """
    def scan() -> DiceStatistics:
        return dice_statistics((roll[0], roll[1]) for roll in tables_repo.site_rolls(db))

    recent: Recent[DiceStatistics] = request.app.state.site_dice
    return {"statistics": recent.get(scan)}


def _user(db: DbSession, username: str) -> User:
    user = users_repo.by_name(db, username)
    if user is None:
        raise HTTPException(404, f"there is no player {username!r}")
    return user
