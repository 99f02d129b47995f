"""Moderation (``docs/moderation.md``): reports, blocks, and the moderators' actions on an account.

Every action a moderator (or the operator, through ``nardy admin``) takes is
one entry of the append-only audit log (``moderation_actions``), with its
reason; an account's restrictions are read back from it: the newest ``ban``
or ``unban`` says whether a ban holds (until its ``until``, or for good), the
newest ``mute`` or ``unmute`` the same of a mute. A ban also ends every
session of the account: the caller announces the ended sessions, which
closes their sockets in every process (:mod:`nardy.server.auth.signouts`).

Marking an account engine-assisted takes it off the leaderboards and freezes
its rating (a match against it rates neither player), and restores each
opponent's rated results against it: a ``restored`` rating change gives back
what each such match moved, once per match.

A block keeps two players apart, whichever blocked whom: no chat between
them (a chouette's team messages included), neither sits at a table or
chouette where the other sits, no rematch between them, matchmaking never
pairs them, and each one's tables are left out of the other's lobby. A
tournament still pairs them (a block does not choose one's opponents); only
their table's chat stays closed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy.orm import Session

from nardy.store import moderation_repo, ratings_repo, users_repo
from nardy.store.models import ModerationAction, RatingChange, Report, User

REPORT_CATEGORIES: Final = ("cheating", "abuse", "stalling", "other")
REPORT_TEXT_MAX: Final = 1000
REASON_MAX: Final = 500
REPORTS_PER_PAIR_PER_DAY: Final = 3
"""Reports one player may make about one other in 24 hours (beside the per-user rate limit of the route)."""
TIMED_ACTIONS: Final = ("mute", "ban")
ACTIONS: Final = ("warn", "mute", "unmute", "ban", "unban", "mark_engine", "unmark_engine")
"""What a moderator may do to an account."""
MAX_MINUTES: Final = 60 * 24 * 366 * 10
VIEW_ROWS: Final = 50
"""How many of each kind of row (games, chat lines, reports, log entries...) the moderator's view of a user shows."""


class ModerationError(ValueError):
    """A moderation request that cannot be granted: ``code`` names why (the routes' HTTP status follows it)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True, slots=True)
class Restriction:
    """A ban or mute that holds: why, and until when (``None``: for good)."""

    reason: str
    until: datetime | None
    at: datetime

    def to_json(self) -> dict[str, Any]:
        """As the API returns it."""
        return {"reason": self.reason, "until": _iso(self.until), "at": self.at.isoformat()}


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _holding(db: Session, user_id: int, on: str, off: str, now: datetime) -> Restriction | None:
    entry = moderation_repo.latest_action(db, user_id, (on, off))
    if entry is None or entry.action != on or (entry.until is not None and entry.until <= now):
        return None
    return Restriction(entry.reason, entry.until, entry.created_at)


def ban_of(db: Session, user_id: int, now: datetime) -> Restriction | None:
    """The ban on ``user_id`` holding at ``now``, or ``None``."""
    return _holding(db, user_id, "ban", "unban", now)


def mute_of(db: Session, user_id: int, now: datetime) -> Restriction | None:
    """The chat mute on ``user_id`` holding at ``now``, or ``None``."""
    return _holding(db, user_id, "mute", "unmute", now)


def chat_refusal(db: Session, user_id: int, other_id: int | None, now: datetime) -> tuple[str, str] | None:
    """Why ``user_id`` may not write to ``other_id`` (the other player) now, as (code, message), or ``None``."""
    mute = mute_of(db, user_id, now)
    if mute is not None:
        until = "for good" if mute.until is None else f"until {mute.until.isoformat()}"
        return "muted", f"a moderator muted your chat {until}: {mute.reason}"
    if other_id is not None and moderation_repo.kept_apart(db, user_id, other_id):
        return "blocked", "you cannot chat with this player"
    return None


def sitting_refusal(db: Session, user_id: int, others: list[int], now: datetime) -> tuple[str, str] | None:
    """Why ``user_id`` may not sit with ``others`` (create a table when there are none), or ``None``."""
    if ban_of(db, user_id, now) is not None:
        return "banned", "this account is banned"
    if others and moderation_repo.apart_from(db, user_id) & set(others):
        return "blocked", "you cannot play with this player"
    return None


def kept_apart(db: Session, user_id: int, other_id: int) -> bool:
    """Whether either of the two blocks the other."""
    return moderation_repo.kept_apart(db, user_id, other_id)


def kept_apart_from(db: Session, user_id: int) -> set[int]:
    """The players ``user_id`` blocks or is blocked by."""
    return moderation_repo.apart_from(db, user_id)


# ----- blocks


def block(db: Session, blocker: User, name: str, now: datetime) -> User:
    """``blocker`` blocks the account ``name``; commits. Refused: ``unknown_user``, ``self``."""
    target = _user_named(db, name)
    if target.id == blocker.id:
        raise ModerationError("self", "you cannot block yourself")
    moderation_repo.add_block(db, blocker.id, target.id, at=now)
    db.commit()
    return target


def unblock(db: Session, blocker: User, name: str) -> None:
    """Lift ``blocker``'s block of ``name``; commits. Refused: ``unknown_user``."""
    target = _user_named(db, name)
    moderation_repo.remove_block(db, blocker.id, target.id)
    db.commit()


def blocked_names(db: Session, blocker_id: int) -> list[str]:
    """The names ``blocker_id`` blocks, alphabetically."""
    return [name for _id, name in moderation_repo.blocked_by(db, blocker_id)]


# ----- reports


def report(
    db: Session, reporter: User, *, name: str, category: str, text: str, table_id: str | None, now: datetime,
) -> Report:
    """File ``reporter``'s report about ``name``; commits. Refused: ``unknown_user``, ``self``, ``bad_report``,
    ``unknown_table``, ``too_many_reports``."""
    target = _user_named(db, name)
    if target.id == reporter.id:
        raise ModerationError("self", "you cannot report yourself")
    if category not in REPORT_CATEGORIES:
        raise ModerationError("bad_report", f"the category must be one of {', '.join(REPORT_CATEGORIES)}")
    text = text.strip()
    if len(text) > REPORT_TEXT_MAX or (category == "other" and not text):
        raise ModerationError("bad_report", f"say what happened in at most {REPORT_TEXT_MAX} characters")
    if table_id is not None and not moderation_repo.table_exists(db, table_id):
        raise ModerationError("unknown_table", "there is no such table")
    if moderation_repo.reports_since(db, reporter.id, target.id, now - timedelta(days=1)) >= REPORTS_PER_PAIR_PER_DAY:
        raise ModerationError("too_many_reports", "you have reported this player enough today; moderators will look")
    row = moderation_repo.add_report(db, Report(
        reporter_id=reporter.id, reported_id=target.id, category=category, text=text, table_id=table_id,
        status="open", created_at=now,
    ))
    db.commit()
    return row


# ----- the moderator's actions


def act(
    db: Session,
    moderator: User,
    name: str,
    *,
    action: str,
    reason: str,
    minutes: int | None,
    now: datetime,
    report_id: int | None = None,
) -> tuple[ModerationAction, list[str]]:
    """``moderator`` takes ``action`` on the account ``name``; commits (the operator's ``nardy admin`` writes its
    own entries).

    Returns the audit log's new entry and the digests of the sessions a ban
    ended (to announce). Refused: ``unknown_user``, ``self``, ``bad_action``
    (an unknown action, no reason, minutes where none belong or missing for a
    mute), ``unknown_report``.
    """
    target = _user_named(db, name)
    if target.id == moderator.id:
        raise ModerationError("self", "a moderator does not act on their own account")
    _check_action(action, reason, minutes)
    if report_id is not None and moderation_repo.report(db, report_id) is None:
        raise ModerationError("unknown_report", "there is no such report")
    until = None if minutes is None else now + timedelta(minutes=minutes)
    entry = moderation_repo.add_action(db, ModerationAction(
        moderator_id=moderator.id, target_id=target.id, action=action,
        reason=reason.strip(), until=until, report_id=report_id, created_at=now,
    ))
    ended: list[str] = []
    if action == "ban":
        ended = users_repo.delete_sessions_of(db, target.id)
    elif action in ("mark_engine", "unmark_engine"):
        moderation_repo.set_engine_assisted(db, target.id, action == "mark_engine")
        if action == "mark_engine":
            _restore_opponents(db, target.id, now)
    db.commit()
    return entry, ended


def _check_action(action: str, reason: str, minutes: int | None) -> None:
    if action not in ACTIONS:
        raise ModerationError("bad_action", f"the action must be one of {', '.join(ACTIONS)}")
    if not reason.strip() or len(reason) > REASON_MAX:
        raise ModerationError("bad_action", f"give a reason of at most {REASON_MAX} characters")
    if minutes is not None and (action not in TIMED_ACTIONS or not 1 <= minutes <= MAX_MINUTES):
        raise ModerationError("bad_action", f"only a mute or a ban lasts minutes, 1 to {MAX_MINUTES}")
    if action == "mute" and minutes is None:
        raise ModerationError("bad_action", "say how many minutes the mute lasts")


def _restore_opponents(db: Session, user_id: int, now: datetime) -> None:
    """Give each opponent of ``user_id`` back what their rated matches against them moved, once per match."""
    for change in moderation_repo.opponents_results(db, user_id):
        current = moderation_repo.rating_row(db, change.user_id, change.family)
        if current is None:
            continue
        before = current.rating
        current.rating = before - (change.after - change.before)
        current.updated_at = now
        db.add(RatingChange(
            user_id=change.user_id, family=change.family, table_id=change.table_id, before=before,
            after=current.rating, at=now, reason="restored",
        ))


def close_report(db: Session, moderator: User, report_id: int, *, reason: str, now: datetime) -> dict[str, Any]:
    """Close an open report, logged with ``reason``; commits. Refused: ``unknown_report``, ``bad_action``."""
    row = moderation_repo.report(db, report_id)
    if row is None:
        raise ModerationError("unknown_report", "there is no such report")
    if not reason.strip() or len(reason) > REASON_MAX:
        raise ModerationError("bad_action", f"give a reason of at most {REASON_MAX} characters")
    if row.status != "open":
        raise ModerationError("report_closed", "this report is closed already")
    row.status, row.closed_by, row.closed_at = "closed", moderator.id, now
    moderation_repo.add_action(db, ModerationAction(
        moderator_id=moderator.id, target_id=row.reported_id, action="close_report", reason=reason.strip(),
        report_id=row.id, created_at=now,
    ))
    db.commit()
    return report_json(row, users_repo.names_by_id(db, _report_users([row])))


# ----- what is read


def own_standing(db: Session, user: User, now: datetime) -> dict[str, Any]:
    """What a player sees of moderation on their own account: warnings, a mute, a ban, the engine mark."""
    ban, mute = ban_of(db, user.id, now), mute_of(db, user.id, now)
    warnings = [e for e in moderation_repo.actions_about(db, user.id, limit=VIEW_ROWS) if e.action == "warn"]
    return {
        "warnings": [{"reason": e.reason, "at": e.created_at.isoformat()} for e in warnings],
        "muted": None if mute is None else mute.to_json(),
        "banned": None if ban is None else ban.to_json(),
        "engine_assisted": user.engine_assisted,
    }


def report_json(row: Report, names: dict[int, str]) -> dict[str, Any]:
    """A report as the console shows it."""
    return {
        "id": row.id, "reporter": None if row.reporter_id is None else names.get(row.reporter_id),
        "reported": names.get(row.reported_id), "category": row.category, "text": row.text,
        "table": row.table_id, "status": row.status, "created_at": row.created_at.isoformat(),
        "closed_at": _iso(row.closed_at),
    }


def action_json(row: ModerationAction, names: dict[int, str]) -> dict[str, Any]:
    """An audit log entry as the console shows it (``moderator`` null: the operator; ``report`` and ``flag``: the
    report it answers and the fair-play flag it reviewed, or null)."""
    return {
        "id": row.id, "moderator": None if row.moderator_id is None else names.get(row.moderator_id),
        "target": names.get(row.target_id), "action": row.action, "reason": row.reason,
        "until": _iso(row.until), "report": row.report_id, "flag": row.flag_id, "at": row.created_at.isoformat(),
    }


def queue(db: Session) -> list[dict[str, Any]]:
    """The open reports, oldest first."""
    rows = moderation_repo.open_reports(db, limit=200)
    names = users_repo.names_by_id(db, _report_users(rows))
    return [report_json(row, names) for row in rows]


def entry_json(db: Session, entry: ModerationAction) -> dict[str, Any]:
    """One audit log entry as the console shows it, its people named."""
    return action_json(entry, users_repo.names_by_id(db, _action_users([entry])))


def audit(db: Session, *, before: int | None, limit: int) -> list[dict[str, Any]]:
    """A page of the audit log, newest first."""
    rows = moderation_repo.audit_log(db, before=before, limit=limit)
    names = users_repo.names_by_id(db, _action_users(rows))
    return [action_json(row, names) for row in rows]


def user_view(db: Session, name: str, now: datetime) -> dict[str, Any]:
    """Everything the console shows of one account. Refused: ``unknown_user``."""
    user = _user_named(db, name)
    tables = moderation_repo.recent_tables(db, user.id, limit=VIEW_ROWS)
    analyses = moderation_repo.analysis_results(db, [t.id for t in tables])
    reports = [*moderation_repo.reports_about(db, user.id, limit=VIEW_ROWS),
               *moderation_repo.reports_by(db, user.id, limit=VIEW_ROWS)]
    log = moderation_repo.actions_about(db, user.id, limit=VIEW_ROWS)
    player_ids = {p for t in tables for p in (t.player0_id, t.player1_id) if p is not None}
    names = users_repo.names_by_id(db, player_ids | _report_users(reports) | _action_users(log) | {user.id})
    return {
        "user": {"id": user.id, "username": user.username, "guest": user.is_guest, "moderator": user.moderator,
                 "created_at": user.created_at.isoformat(), "deleted": user.deleted_at is not None},
        "standing": own_standing(db, user, now),
        "games": [{
            "table": t.id, "variant": t.variant, "match_length": t.match_length, "rated": t.rated,
            "status": t.status, "created_at": t.created_at.isoformat(), "winner": t.winner,
            "players": [None if p is None else names.get(p) for p in (t.player0_id, t.player1_id)],
            "analysis": analyses.get(t.id, {}).get("summaries"),
        } for t in tables],
        "chat": [{"table": m.table_id, "text": m.text, "phrase": m.phrase, "at": m.created_at.isoformat()}
                 for m in moderation_repo.chat_of(db, user.id, limit=VIEW_ROWS)],
        "reports_against": [report_json(r, names) for r in reports if r.reported_id == user.id],
        "reports_by": [report_json(r, names) for r in reports if r.reporter_id == user.id],
        "ratings": [{"family": c.family, "before": c.before, "after": c.after, "table": c.table_id,
                     "reason": c.reason, "at": c.at.isoformat()}
                    for c in ratings_repo.history_of(db, user.id)[-VIEW_ROWS:]],
        "coins": [{"amount": m.amount, "reason": m.reason, "table": m.table_id, "balance_after": m.balance_after,
                   "at": m.at.isoformat()} for m in moderation_repo.coin_ledger(db, user.id, limit=VIEW_ROWS)],
        "shared_addresses": [{"address": a, "username": n}
                             for a, n in moderation_repo.shared_addresses(db, user.id, limit=VIEW_ROWS)],
        "log": [action_json(e, names) for e in log],
    }


def note_address(db: Session, user: User, address: str, now: datetime) -> None:
    """Remember that ``user`` signed in from ``address``; commits. No address (a test client): nothing."""
    if address:
        moderation_repo.seen_at(db, user.id, address[:64], at=now)
        db.commit()


def _report_users(rows: list[Report]) -> set[int]:
    return {u for r in rows for u in (r.reporter_id, r.reported_id) if u is not None}


def _action_users(rows: list[ModerationAction]) -> set[int]:
    return {u for r in rows for u in (r.moderator_id, r.target_id) if u is not None}


def _user_named(db: Session, name: str) -> User:
    user = users_repo.by_name(db, name) if name and len(name) <= 64 else None
    if user is None:
        raise ModerationError("unknown_user", "there is no such player")
    return user
