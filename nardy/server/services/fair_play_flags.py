"""The fair-play flags in the moderators' console (``docs/fair-play.md``, ``docs/moderation.md``).

The detector (:mod:`nardy.server.services.fair_play`) writes a flag when an
account's play lies far outside that of accounts of its rating; the console
shows the unreviewed ones beside the report queue, and each account's in its
user view. A moderator marks a flag reviewed, with a reason, which is one
entry of the audit log, naming the account and the flag. Reviewing changes nothing else: no flag bans anyone,
and what to do about the account is the moderator's own action.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from sqlalchemy.orm import Session

from nardy.server.services.moderation import REASON_MAX, VIEW_ROWS, ModerationError, entry_json
from nardy.store import fair_play_repo, moderation_repo, users_repo
from nardy.store.models import FairPlayFlag, ModerationAction, User

QUEUE_ROWS: Final = 200
"""How many unreviewed flags the queue shows, oldest first."""
REVIEW_ACTION: Final = "review_fair_play"
"""The audit log's name for a reviewed flag."""


def flag_json(row: FairPlayFlag, names: dict[int, str]) -> dict[str, Any]:
    """A flag as the console shows it: the statistic, its threshold, and the evidence as the detector stored it."""
    return {
        "id": row.id, "username": names.get(row.user_id), "variant": row.variant, "statistic": row.statistic,
        "value": row.value, "threshold": row.threshold, "games": row.games, "evidence": row.evidence,
        "created_at": row.created_at.isoformat(),
        "reviewed_at": None if row.reviewed_at is None else row.reviewed_at.isoformat(),
        "reviewed_by": None if row.reviewed_by is None else names.get(row.reviewed_by),
    }


def _as_json(db: Session, rows: list[FairPlayFlag]) -> list[dict[str, Any]]:
    people = {u for row in rows for u in (row.user_id, row.reviewed_by) if u is not None}
    names = users_repo.names_by_id(db, people)
    return [flag_json(row, names) for row in rows]


def queue(db: Session) -> list[dict[str, Any]]:
    """The flags no moderator has reviewed yet, oldest first."""
    return _as_json(db, fair_play_repo.unreviewed(db, limit=QUEUE_ROWS))


def flags_of(db: Session, user_id: int) -> list[dict[str, Any]]:
    """The account's newest flags, reviewed or not."""
    return _as_json(db, fair_play_repo.flags_of(db, user_id, limit=VIEW_ROWS))


def review(
    db: Session, moderator: User, flag_id: int, *, reason: str, now: datetime,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Mark a flag reviewed, logged with ``reason``; commits. Returns the flag and the audit log's entry.

    Refused: ``unknown_flag``, ``bad_action`` (no reason, or too long), ``self`` (a flag on the moderator's own
    account), ``flag_reviewed``.
    """
    row = fair_play_repo.flag(db, flag_id)
    if row is None:
        raise ModerationError("unknown_flag", "there is no such fair-play flag")
    if not reason.strip() or len(reason) > REASON_MAX:
        raise ModerationError("bad_action", f"give a reason of at most {REASON_MAX} characters")
    if row.user_id == moderator.id:
        raise ModerationError("self", "a moderator does not review a flag on their own account")
    if row.reviewed_at is not None:
        raise ModerationError("flag_reviewed", "this flag is reviewed already")
    row.reviewed_at, row.reviewed_by = now, moderator.id
    entry = moderation_repo.add_action(db, ModerationAction(
        moderator_id=moderator.id, target_id=row.user_id, action=REVIEW_ACTION, reason=reason.strip(),
        flag_id=row.id, created_at=now,
    ))
    db.commit()
    return _as_json(db, [row])[0], entry_json(db, entry)
