"""An account's life after sign-up: a new password, an e-mail address, a reset by mail, its data, its deletion.

Plain functions over a SQLAlchemy session, like :mod:`.accounts`; each that
writes commits. A mailed link carries a random token of
:data:`LINK_TOKEN_BYTES` from :mod:`secrets`; only its SHA-256 is stored
(``account_tokens``), using it deletes it, and it expires: a reset link
after :data:`RESET_LINK_TTL`, a verification link after
:data:`VERIFY_LINK_TTL`. A verification link verifies the address it was
mailed to, and only while that is still the account's address.

A reset is asked for by username or by e-mail address, and goes only to a
verified address; who asks learns nothing either way (the route answers the
same), so the functions here that find the accounts to mail return an empty
list rather than raise.
"""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from argon2 import PasswordHasher
from sqlalchemy.orm import Session

from nardy.server.services import accounts
from nardy.server.services.accounts import AccountError
from nardy.store import account_data_repo, coins_repo, moderation_repo, tables_repo, users_repo
from nardy.store.models import AccountToken, GameTable, User

VERIFY_EMAIL: Final = "verify_email"
RESET_PASSWORD: Final = "reset_password"
RESET_LINK_TTL: Final = timedelta(hours=1)
VERIFY_LINK_TTL: Final = timedelta(days=2)
LINK_TOKEN_BYTES: Final = 32
EMAIL_MAX_LENGTH: Final = 254

_EMAIL = re.compile(r"[^@\s]{1,64}@[^@\s.]+(\.[^@\s.]+)+")
"""One ``@``, a local part and a dotted domain, no spaces: enough to catch a typo; the link proves the rest."""


class NotAnAccount(AccountError):
    """A guest (or a deleted account) has no password, address or account to delete."""


class WrongPassword(AccountError):
    """The current password given is not the account's."""


class InvalidEmail(AccountError):
    """The text is not an e-mail address."""


class BadLink(AccountError):
    """The mailed link is unknown, used already or expired."""


class StillPlaying(AccountError):
    """The account sits at an unfinished table or is entered in a tournament not yet over."""


BAD_LINK = "this link is unknown, used already or expired; ask for a new one"


def require_account(user: User) -> None:
    """Raise :class:`NotAnAccount` for a guest."""
    if user.is_guest or user.password_hash is None:
        raise NotAnAccount("a guest has no password: sign up to make the guest an account first")


def check_current_password(user: User, password: str, *, hasher: PasswordHasher = accounts.STRONG_HASHER) -> None:
    """Raise :class:`WrongPassword` unless ``password`` is ``user``'s."""
    if not accounts.password_matches(user, password, hasher=hasher):
        raise WrongPassword("the current password is wrong")


def change_password(
    db: Session, *, user: User, new_password: str, keep_session: str, hasher: PasswordHasher = accounts.STRONG_HASHER,
) -> list[str]:
    """Give ``user`` ``new_password`` (the current one was checked) and end every other session.

    ``keep_session`` is the digest of the session asking, which stays signed
    in. Reset links mailed before are void. The digests of the sessions ended.
    """
    accounts.check_password_strength(new_password, user.username)
    accounts.set_password(user, new_password, hasher=hasher)
    ended = users_repo.delete_sessions_of(db, user.id, keep=keep_session)
    users_repo.delete_tokens_of(db, user.id, purpose=RESET_PASSWORD)
    db.commit()
    return ended


def checked_email(email: str | None) -> str | None:
    """``email`` without surrounding spaces, or ``None`` for none; :class:`InvalidEmail` when it is no address."""
    address = (email or "").strip()
    if not address:
        return None
    if len(address) > EMAIL_MAX_LENGTH or not _EMAIL.fullmatch(address):
        raise InvalidEmail("this is not an e-mail address: name@example.org")
    return address


def set_email(db: Session, *, user: User, email: str | None, now: datetime | None = None) -> str | None:
    """Make ``email`` ``user``'s address, unverified, or remove it (``None`` or empty); either way the links
    mailed before (to verify, or to reset the password) are void.

    The token of the verification link to mail to it, or ``None`` when there is
    nothing to mail (removed, or the same address, already verified).
    """
    address = checked_email(email)
    if address is None:
        user.email, user.email_verified = None, False
        users_repo.delete_tokens_of(db, user.id)
        db.commit()
        return None
    if user.email is not None and user.email.lower() == address.lower() and user.email_verified:
        return None
    user.email, user.email_verified = address, False
    users_repo.delete_tokens_of(db, user.id)
    return _issue(db, user, VERIFY_EMAIL, email=address, now=now)


def set_language(db: Session, *, user: User, language: str | None) -> None:
    """Remember the language ``user`` reads the site in (``None``: none), the one their mails are written in;
    commits."""
    user.language = language or ""
    db.commit()


def verify_email(db: Session, token: str, *, now: datetime | None = None) -> User:
    """Follow a verification link: its address becomes verified. Raises :class:`BadLink`."""
    row = _live(db, token, VERIFY_EMAIL, now)
    user = db.get(User, row.user_id)
    if user is None or user.email is None or row.email is None or user.email.lower() != row.email.lower():
        raise BadLink(BAD_LINK)
    if not users_repo.use_token(db, row.token_hash):
        db.rollback()
        raise BadLink(BAD_LINK)
    user.email_verified = True
    db.commit()
    return user


def reset_recipients(db: Session, account: str) -> list[User]:
    """The accounts a reset asked for ``account`` (a username, or an e-mail address) goes to: those with a
    verified address; often none."""
    if "@" in account:
        return users_repo.verified_by_email(db, account.strip())
    user = accounts.account_named(db, account.strip())
    return [user] if user is not None and user.email_verified and user.deleted_at is None else []


def issue_reset(db: Session, user: User, *, now: datetime | None = None) -> str:
    """The token of a new reset link for ``user``."""
    return _issue(db, user, RESET_PASSWORD, email=user.email, now=now)


def reset_password(
    db: Session, token: str, new_password: str, *, now: datetime | None = None,
    hasher: PasswordHasher = accounts.STRONG_HASHER,
) -> tuple[User, list[str]]:
    """Follow a reset link: ``new_password`` becomes the account's, every session of it ends, its other reset
    links are void. The user and the digests of the sessions ended.

    The password is checked before the link is used, so a weak one leaves the
    link usable. Raises :class:`BadLink` or :class:`~.accounts.WeakPassword`.
    """
    row = _live(db, token, RESET_PASSWORD, now)
    user = db.get(User, row.user_id)
    if user is None or user.deleted_at is not None:
        raise BadLink(BAD_LINK)
    accounts.check_password_strength(new_password, user.username)
    if not users_repo.use_token(db, row.token_hash):
        db.rollback()
        raise BadLink(BAD_LINK)
    accounts.set_password(user, new_password, hasher=hasher)
    ended = users_repo.delete_sessions_of(db, user.id)
    users_repo.delete_tokens_of(db, user.id, purpose=RESET_PASSWORD)
    db.commit()
    return user, ended


def delete_account(db: Session, *, user: User, now: datetime | None = None) -> list[str]:
    """Delete ``user``'s account (its password was checked): see :mod:`nardy.store.account_data_repo`.

    Refused with :class:`StillPlaying` while it sits at an unfinished table or
    is entered in a tournament not yet over. The digests of the sessions ended.
    """
    if tables_repo.unfinished_tables_of(db, user.id, limit=1):
        raise StillPlaying("finish or resign your games, and leave the tables you wait at, first")
    if account_data_repo.open_tournament_entries(db, user.id):
        raise StillPlaying("withdraw from the tournaments you are entered in first")
    ended = users_repo.sessions_of(db, user.id)
    account_data_repo.erase(db, user, new_name=f"{accounts.DELETED_PREFIX.capitalize()}{user.id}", at=_now(now))
    db.commit()
    return ended


def export(db: Session, user: User) -> dict[str, Any]:
    """Everything kept about ``user`` that is theirs: the profile, the games, the chat they wrote, the addresses they
    signed in from, whom they block, the coins."""
    tables = account_data_repo.tables_played(db, user.id)
    seated = {t.player0_id for t in tables} | {t.player1_id for t in tables}
    names = users_repo.names_by_id(db, {user_id for user_id in seated if user_id is not None})
    balance = coins_repo.balance_of(db, user.id)
    return {
        "profile": {
            "id": user.id, "username": user.username, "guest": user.is_guest, "created_at": _iso(user.created_at),
            "email": user.email, "email_verified": user.email_verified,
            "language": user.language, "preferences": user.preferences,
        },
        "games": [_game(table, names) for table in tables],
        "chat": [
            {"table_id": m.table_id, "text": m.text, "phrase": m.phrase, "at": _iso(m.created_at)}
            for m in account_data_repo.chat_written(db, user.id)
        ],
        "addresses": [
            {"address": a.address, "first_seen": _iso(a.first_seen), "last_seen": _iso(a.last_seen)}
            for a in account_data_repo.addresses_of(db, user.id)
        ],
        "blocked": [name for _id, name in moderation_repo.blocked_by(db, user.id)],
        "coins": {
            "balance": None if balance is None else balance.balance,
            "held": None if balance is None else balance.held,
            "ledger": [
                {"amount": m.amount, "reason": m.reason, "table_id": m.table_id, "balance_after": m.balance_after,
                 "at": _iso(m.at)}
                for m in account_data_repo.coin_ledger(db, user.id)
            ],
        },
    }


def _game(table: GameTable, names: dict[int, str]) -> dict[str, Any]:
    """One table as the export lists it."""
    def seat(player_id: int | None, number: int) -> str | None:
        if player_id is not None:
            return names.get(player_id)
        return f"Computer ({table.bot_level})" if table.bot_seat == number else None

    return {
        "id": table.id, "kind": table.kind, "variant": table.variant, "match_length": table.match_length,
        "rated": table.rated, "private": table.private, "stake": table.stake, "status": table.status,
        "created_at": _iso(table.created_at), "finished_at": _iso(table.finished_at),
        "players": [seat(table.player0_id, 0), seat(table.player1_id, 1)] if table.kind == "match" else None,
        "winner": table.winner, "summary": table.score,
    }


def _issue(db: Session, user: User, purpose: str, *, email: str | None, now: datetime | None) -> str:
    """Store a new link of ``purpose`` for ``user`` and commit; its token."""
    token = secrets.token_urlsafe(LINK_TOKEN_BYTES)
    created = _now(now)
    ttl = RESET_LINK_TTL if purpose == RESET_PASSWORD else VERIFY_LINK_TTL
    users_repo.add_token(db, AccountToken(
        token_hash=accounts.token_digest(token), user_id=user.id, purpose=purpose, email=email,
        created_at=created, expires_at=created + ttl,
    ))
    db.commit()
    return token


def _live(db: Session, token: str, purpose: str, now: datetime | None) -> AccountToken:
    row = users_repo.live_token(db, accounts.token_digest(token), purpose=purpose, at=_now(now))
    if row is None:
        raise BadLink(BAD_LINK)
    return row


def _now(now: datetime | None) -> datetime:
    return datetime.now(UTC) if now is None else now.astimezone(UTC)


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()

