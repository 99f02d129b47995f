"""Queries about fair play: each player's figures per analysed rated match, and the flags for the moderators.

The figures are written once per (table, player), from the first analysis of
the match; the detector (``nardy.bots.fair_play``) reads an account's latest
and those of the accounts of a similar rating. A flag is a row for the
moderators' queue; nothing here changes an account.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from nardy.store.models import FairPlayFlag, FairPlayGame, Rating, RatingChange


def has_games(db: Session, table_id: str) -> bool:
    """Whether the figures of ``table_id`` are stored already."""
    return db.scalar(select(FairPlayGame.table_id).where(FairPlayGame.table_id == table_id).limit(1)) is not None


def latest(db: Session, *, user_ids: Sequence[int], variant: str, per_user: int) -> dict[int, list[FairPlayGame]]:
    """Each of ``user_ids``'s latest ``per_user`` figures in ``variant``, newest first (users with none left out)."""
    rows = db.scalars(
        select(FairPlayGame).where(FairPlayGame.user_id.in_(user_ids), FairPlayGame.variant == variant)
        .order_by(FairPlayGame.user_id, FairPlayGame.played_at.desc())
    )
    found: dict[int, list[FairPlayGame]] = defaultdict(list)
    for row in rows:
        if len(found[row.user_id]) < per_user:
            found[row.user_id].append(row)
    return dict(found)


def rated_between(db: Session, *, family: str, low: float, high: float) -> list[int]:
    """The accounts whose current rating in ``family`` lies in [``low``, ``high``]."""
    return list(db.scalars(
        select(Rating.user_id).where(Rating.family == family, Rating.rating >= low, Rating.rating <= high)
    ))


def rating(db: Session, *, user_id: int, family: str) -> float | None:
    """The account's current rating in ``family``, if it has one."""
    return db.scalar(select(Rating.rating).where(Rating.user_id == user_id, Rating.family == family))


def open_flag(db: Session, *, user_id: int, variant: str) -> FairPlayFlag | None:
    """The account's flag in ``variant`` no moderator has reviewed yet, if any."""
    return db.scalar(select(FairPlayFlag).where(
        FairPlayFlag.user_id == user_id, FairPlayFlag.variant == variant, FairPlayFlag.reviewed_at.is_(None),
    ).limit(1))


def add_flag(
    db: Session, *, user_id: int, variant: str, statistic: str, value: float, threshold: float, games: int,
    evidence: dict[str, Any], now: datetime,
) -> FairPlayFlag:
    """Put an account into the moderators' queue (the caller commits)."""
    flag = FairPlayFlag(user_id=user_id, variant=variant, statistic=statistic, value=value, threshold=threshold,
                        games=games, evidence=evidence, created_at=now)
    db.add(flag)
    return flag


def unreviewed(db: Session, *, limit: int = 100) -> list[FairPlayFlag]:
    """The moderators' queue: flags not reviewed yet, oldest first."""
    return list(db.scalars(
        select(FairPlayFlag).where(FairPlayFlag.reviewed_at.is_(None)).order_by(FairPlayFlag.created_at).limit(limit)
    ))


def flag(db: Session, flag_id: int) -> FairPlayFlag | None:
    """The flag ``flag_id``, or ``None``."""
    return db.get(FairPlayFlag, flag_id)


def flags_of(db: Session, user_id: int, *, limit: int) -> list[FairPlayFlag]:
    """The account's newest ``limit`` flags, reviewed or not."""
    return list(db.scalars(
        select(FairPlayFlag).where(FairPlayFlag.user_id == user_id).order_by(FairPlayFlag.id.desc()).limit(limit)
    ))


def rated_players(db: Session, table_id: str) -> dict[int, datetime]:
    """The players of ``table_id`` whose ratings its match changed (none: it was not rated), and when."""
    return {user_id: at for user_id, at in db.execute(
        select(RatingChange.user_id, RatingChange.at).where(RatingChange.table_id == table_id)
    )}


def add_game(
    db: Session, *, table_id: str, user_id: int, variant: str, level: str, counted: int, total_loss: float,
    unforced_moves: int, best_moves: int, played_at: datetime,
) -> None:
    """Keep one player's figures in one match (the caller commits)."""
    db.add(FairPlayGame(table_id=table_id, user_id=user_id, variant=variant, level=level, counted=counted,
                        total_loss=total_loss, unforced_moves=unforced_moves, best_moves=best_moves,
                        played_at=played_at))
