"""Queries of moderation: blocks, reports, the audit log (only ever added to) and sign-in addresses."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.orm import Session

from nardy.store.models import (
    Analysis,
    ChatMessage,
    CoinMovement,
    GameTable,
    LoginAddress,
    ModerationAction,
    Rating,
    RatingChange,
    Report,
    User,
    UserBlock,
)

# ----- blocks


def add_block(db: Session, blocker_id: int, blocked_id: int, *, at: datetime) -> None:
    """``blocker_id`` blocks ``blocked_id`` (again: no change); the caller commits."""
    if db.get(UserBlock, (blocker_id, blocked_id)) is None:
        db.add(UserBlock(blocker_id=blocker_id, blocked_id=blocked_id, created_at=at))


def remove_block(db: Session, blocker_id: int, blocked_id: int) -> None:
    """Lift the block, if there is one; the caller commits."""
    db.execute(delete(UserBlock).where(UserBlock.blocker_id == blocker_id, UserBlock.blocked_id == blocked_id))


def blocked_by(db: Session, blocker_id: int) -> list[tuple[int, str]]:
    """Whom ``blocker_id`` blocks: (id, username), by name."""
    rows = db.execute(
        select(User.id, User.username).join(UserBlock, UserBlock.blocked_id == User.id)
        .where(UserBlock.blocker_id == blocker_id).order_by(User.username)
    )
    return [(user_id, name) for user_id, name in rows]


def apart_from(db: Session, user_id: int) -> set[int]:
    """Everyone ``user_id`` blocks or is blocked by: the players kept apart from them."""
    rows = db.execute(select(UserBlock.blocker_id, UserBlock.blocked_id).where(
        or_(UserBlock.blocker_id == user_id, UserBlock.blocked_id == user_id)
    ))
    return {other for pair in rows for other in pair if other != user_id}


def kept_apart(db: Session, a: int, b: int) -> bool:
    """Whether either of the two blocks the other."""
    return db.scalar(select(func.count()).select_from(UserBlock).where(or_(
        and_(UserBlock.blocker_id == a, UserBlock.blocked_id == b),
        and_(UserBlock.blocker_id == b, UserBlock.blocked_id == a),
    ))) != 0


def blocks_among(db: Session, user_ids: Collection[int]) -> set[frozenset[int]]:
    """The pairs of ``user_ids`` kept apart by a block, in one query."""
    if len(user_ids) < 2:
        return set()
    ids = list(user_ids)
    rows = db.execute(select(UserBlock.blocker_id, UserBlock.blocked_id).where(
        UserBlock.blocker_id.in_(ids), UserBlock.blocked_id.in_(ids)
    ))
    return {frozenset(pair) for pair in rows}


# ----- reports


def add_report(db: Session, row: Report) -> Report:
    """Store a report; the caller commits."""
    db.add(row)
    db.flush()
    return row


def reports_since(db: Session, reporter_id: int, reported_id: int, since: datetime) -> int:
    """How many reports ``reporter_id`` made about ``reported_id`` since ``since``."""
    return db.scalar(select(func.count()).select_from(Report).where(
        Report.reporter_id == reporter_id, Report.reported_id == reported_id, Report.created_at >= since,
    )) or 0


def open_reports(db: Session, *, limit: int) -> list[Report]:
    """The oldest ``limit`` open reports: the moderators' queue."""
    return list(db.scalars(select(Report).where(Report.status == "open").order_by(Report.id).limit(limit)))


def reports_about(db: Session, user_id: int, *, limit: int) -> list[Report]:
    """The newest ``limit`` reports against ``user_id``."""
    return list(db.scalars(select(Report).where(Report.reported_id == user_id).order_by(Report.id.desc()).limit(limit)))


def reports_by(db: Session, user_id: int, *, limit: int) -> list[Report]:
    """The newest ``limit`` reports ``user_id`` made."""
    return list(db.scalars(select(Report).where(Report.reporter_id == user_id).order_by(Report.id.desc()).limit(limit)))


def report(db: Session, report_id: int) -> Report | None:
    """The report ``report_id``, or ``None``."""
    return db.get(Report, report_id)


# ----- the audit log


def add_action(db: Session, row: ModerationAction) -> ModerationAction:
    """Append one entry to the audit log; the caller commits. Entries are never changed nor removed."""
    db.add(row)
    db.flush()
    return row


def latest_action(db: Session, target_id: int, actions: Collection[str]) -> ModerationAction | None:
    """The newest entry about ``target_id`` among ``actions`` (a ban and its lifting, say)."""
    return db.scalars(
        select(ModerationAction).where(ModerationAction.target_id == target_id, ModerationAction.action.in_(actions))
        .order_by(ModerationAction.id.desc()).limit(1)
    ).first()


def actions_about(db: Session, target_id: int, *, limit: int) -> list[ModerationAction]:
    """The newest ``limit`` entries about ``target_id``."""
    return list(db.scalars(
        select(ModerationAction).where(ModerationAction.target_id == target_id)
        .order_by(ModerationAction.id.desc()).limit(limit)
    ))


def audit_log(db: Session, *, before: int | None, limit: int) -> list[ModerationAction]:
    """A page of the audit log, newest first: the ``limit`` entries before the id ``before`` (or the newest)."""
    query = select(ModerationAction)
    if before is not None:
        query = query.where(ModerationAction.id < before)
    return list(db.scalars(query.order_by(ModerationAction.id.desc()).limit(limit)))


# ----- roles and marks


def set_moderator(db: Session, user_id: int, moderator: bool) -> None:
    """Grant or take the moderator role; the caller commits."""
    db.execute(update(User).where(User.id == user_id).values(moderator=moderator))


def set_engine_assisted(db: Session, user_id: int, marked: bool) -> None:
    """Mark or unmark an account as engine-assisted; the caller commits."""
    db.execute(update(User).where(User.id == user_id).values(engine_assisted=marked))


def engine_assisted_among(db: Session, user_ids: Collection[int]) -> set[int]:
    """Which of ``user_ids`` are marked engine-assisted."""
    return set(db.scalars(select(User.id).where(User.id.in_(list(user_ids)), User.engine_assisted.is_(True))))


def opponents_results(db: Session, user_id: int) -> list[RatingChange]:
    """The rating changes of ``user_id``'s opponents in the rated matches they played, not yet restored."""
    tables = select(RatingChange.table_id).where(RatingChange.user_id == user_id, RatingChange.table_id.is_not(None))
    restored = select(RatingChange.table_id).where(RatingChange.reason == "restored", RatingChange.table_id.is_not(None))
    return list(db.scalars(select(RatingChange).where(
        RatingChange.table_id.in_(tables), RatingChange.user_id != user_id, RatingChange.reason.is_(None),
        RatingChange.table_id.not_in(restored),
    ).order_by(RatingChange.id)))


def rating_row(db: Session, user_id: int, family: str) -> Rating | None:
    """The player's current rating in ``family``."""
    return db.get(Rating, (user_id, family))


# ----- addresses


def seen_at(db: Session, user_id: int, address: str, *, at: datetime) -> None:
    """Note that ``user_id`` signed in from ``address`` at ``at``; the caller commits."""
    row = db.get(LoginAddress, (user_id, address))
    if row is None:
        db.add(LoginAddress(user_id=user_id, address=address, first_seen=at, last_seen=at))
    else:
        row.last_seen = at


def shared_addresses(db: Session, user_id: int, *, limit: int) -> list[tuple[str, str]]:
    """(address, other account's name) for each address ``user_id`` signed in from that another account used."""
    mine = select(LoginAddress.address).where(LoginAddress.user_id == user_id)
    rows = db.execute(
        select(LoginAddress.address, User.username).join(User, User.id == LoginAddress.user_id)
        .where(LoginAddress.address.in_(mine), LoginAddress.user_id != user_id)
        .order_by(LoginAddress.address, User.username).limit(limit)
    )
    return [(address, name) for address, name in rows]


# ----- what a moderator reads about an account


def recent_tables(db: Session, user_id: int, *, limit: int) -> list[GameTable]:
    """The newest ``limit`` two-seat tables ``user_id`` sat at."""
    return list(db.scalars(
        select(GameTable).where(or_(GameTable.player0_id == user_id, GameTable.player1_id == user_id))
        .order_by(GameTable.created_at.desc()).limit(limit)
    ))


def chat_of(db: Session, user_id: int, *, limit: int) -> list[ChatMessage]:
    """The newest ``limit`` chat messages ``user_id`` wrote."""
    return list(db.scalars(
        select(ChatMessage).where(ChatMessage.user_id == user_id).order_by(ChatMessage.id.desc()).limit(limit)
    ))


def coin_ledger(db: Session, user_id: int, *, limit: int) -> list[CoinMovement]:
    """The newest ``limit`` movements of ``user_id``'s coins."""
    return list(db.scalars(
        select(CoinMovement).where(CoinMovement.user_id == user_id).order_by(CoinMovement.id.desc()).limit(limit)
    ))


def analysis_results(db: Session, table_ids: Collection[str]) -> dict[str, dict[str, Any]]:
    """The finished analyses of ``table_ids``: their results, by table."""
    if not table_ids:
        return {}
    rows = db.execute(select(Analysis.table_id, Analysis.result).where(
        Analysis.table_id.in_(list(table_ids)), Analysis.status == "done",
    ))
    return {table_id: result for table_id, result in rows if result is not None}


def table_exists(db: Session, table_id: str) -> bool:
    """Whether there is a table ``table_id``."""
    return db.get(GameTable, table_id) is not None
