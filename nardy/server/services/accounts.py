"""Accounts: users, guests, passwords and login sessions.

Plain functions over a SQLAlchemy session, called by the routers; each one
that writes commits its own unit of work. Passwords are kept as argon2id
hashes. A password must be 8 to 128 characters long and not easily guessed:
zxcvbn (Dropbox's estimator, with its lists of common passwords, names and
words, given the username and the site's name as words an attacker tries
first) must score it :data:`PASSWORD_MIN_SCORE` or more. A login session is
a random token held by the browser, of which only the SHA-256 is stored, so
a copy of the database signs nobody in.

New hashes take argon2id's parameters from :data:`PASSWORD_HASHERS`: RFC
9106's low-memory profile everywhere but in testing, whose servers sign up
thousands of players and use argon2-cffi's cheapest (the ``hasher`` argument,
the strong one unless the caller names another; ``Settings.password_hashing``).

Usernames are unique without regard to case ("Bob" and "bob" are one name)
but are shown as typed. Time enters through an optional ``now`` (an aware
datetime; the current UTC time by default) so tests can open sessions in
the past.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import threading
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Final

from argon2 import PasswordHasher, profiles
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from zxcvbn import zxcvbn  # type: ignore[import-untyped]

from nardy.store import users_repo
from nardy.store.models import LoginSession, User

USERNAME_MIN_LENGTH = 3
USERNAME_MAX_LENGTH = 20
PASSWORD_MIN_LENGTH = 8
PASSWORD_MAX_LENGTH = 128
PASSWORD_MIN_SCORE = 3
"""zxcvbn's score, 0 to 4, a password needs: 3 is "safely unguessable" (about 10^8 to 10^10 guesses)."""
SITE_WORDS = ("nardy", "nardi", "backgammon")
"""Words every guesser of a password here tries, like the username."""

GUEST_PREFIX = "guest-"
"""Guests are named ``Guest-<number>`` (``Guest-4821``); accounts may not take names starting so."""
DELETED_PREFIX = "deleted-"
"""A deleted account is renamed ``Deleted-<id>``; accounts may not take names starting so either."""
GUEST_DIGITS = range(4, USERNAME_MAX_LENGTH - len(GUEST_PREFIX) + 1)
"""The lengths of a guest's number: four digits, a longer number only while shorter ones keep colliding."""
GUEST_TRIES_PER_LENGTH = 3

_USERNAME_CHARACTERS = re.compile(r"[A-Za-z0-9_-]+")
PASSWORD_HASHERS: Final[dict[str, PasswordHasher]] = {
    "rfc9106-low-memory": PasswordHasher.from_parameters(profiles.RFC_9106_LOW_MEMORY),
    "cheapest": PasswordHasher.from_parameters(profiles.CHEAPEST),
}
"""The argon2id hashers by the name ``Settings.password_hash_profile`` gives them."""
STRONG_HASHER: Final = PASSWORD_HASHERS["rfc9106-low-memory"]
_zxcvbn_lock = threading.Lock()
"""zxcvbn keeps the user inputs of a call in a module-level dictionary: one estimate at a time."""


class AccountError(ValueError):
    """A request about an account that cannot be granted; the message says why."""


class InvalidUsername(AccountError):
    """The username breaks the naming rules."""


class UsernameTaken(AccountError):
    """Another account has this username, perhaps in other letter case."""


class WeakPassword(AccountError):
    """The password is too short, too long or too easy to guess."""


class NotAGuest(AccountError):
    """Only a guest can be turned into an account; this user already is one."""


def create_user(
    db: Session, *, username: str, password: str, now: datetime | None = None, hasher: PasswordHasher = STRONG_HASHER,
) -> User:
    """A new account with an argon2id hash of ``password``.

    Raises :class:`InvalidUsername`, :class:`WeakPassword` or :class:`UsernameTaken`.
    """
    check_new_account(db, username=username, password=password)
    user = User(
        username=username,
        password_hash=hasher.hash(password),
        is_guest=False,
        created_at=_utc_now(now),
    )
    db.add(user)
    _commit_username(db, username)
    return user


def create_guest(db: Session, *, now: datetime | None = None) -> User:
    """A new guest, who can play the computer without an account; it has no password.

    Its name is short enough to read in a header or a move list: ``Guest-`` and a random number
    of four digits, unique like every username (a name taken, or lost to a guest created at the
    same moment, is drawn again, with a digit more after a few tries).
    """
    for digits in GUEST_DIGITS:
        for _ in range(GUEST_TRIES_PER_LENGTH):
            number = 10 ** (digits - 1) + secrets.randbelow(9 * 10 ** (digits - 1))
            username = f"{GUEST_PREFIX.capitalize()}{number}"
            if users_repo.by_name(db, username) is not None:
                continue
            user = User(username=username, password_hash=None, is_guest=True, created_at=_utc_now(now))
            db.add(user)
            try:
                db.commit()
            except IntegrityError:
                db.rollback()
                continue
            return user
    raise AccountError("no free guest name was found; try again")


def upgrade_guest(
    db: Session, *, user: User, username: str, password: str, hasher: PasswordHasher = STRONG_HASHER,
) -> User:
    """Turn the guest ``user`` into an account in place, so its games and history stay its own.

    Raises :class:`NotAGuest` and the errors of :func:`create_user`.
    """
    check_new_account(db, username=username, password=password, guest=user)
    user.username = username
    user.password_hash = hasher.hash(password)
    user.is_guest = False
    _commit_username(db, username)
    return user


def check_new_account(db: Session, *, username: str, password: str, guest: User | None = None) -> None:
    """Raise the refusal that creating the account ``username`` (or turning ``guest`` into it) would meet.

    Creates nothing. Every check is cheap beside hashing the password, so a
    route can answer a refusal before it counts the attempt against its
    limits. Raises :class:`NotAGuest` and the errors of :func:`create_user`;
    a name taken in the moment between this check and the creation is still
    refused by the creation.
    """
    if guest is not None and not guest.is_guest:
        raise NotAGuest(f"{guest.username!r} already has an account; only a guest can become one")
    _check_username(username)
    check_password_strength(password, username)
    if users_repo.by_name(db, username) is not None:
        raise _taken(username)


def authenticate(
    db: Session, *, username: str, password: str, hasher: PasswordHasher = STRONG_HASHER,
) -> User | None:
    """The account named ``username`` (any letter case) if ``password`` is its password, else ``None``.

    An unknown name, or a guest (who has no password), costs one hash check
    against a dummy hash, so the reply time does not tell which names
    exist. A hash made with older parameters is replaced on success.
    """
    user = users_repo.by_name(db, username) if _USERNAME_CHARACTERS.fullmatch(username) else None
    if user is None or user.password_hash is None:
        _verify(hasher, _dummy_hash(hasher), password)
        return None
    if not _verify(hasher, user.password_hash, password):
        return None
    if hasher.check_needs_rehash(user.password_hash):
        user.password_hash = hasher.hash(password)
        db.commit()
    return user


def account_named(db: Session, username: str) -> User | None:
    """The account (not a guest) named ``username`` in any letter case, or ``None``."""
    user = users_repo.by_name(db, username) if _USERNAME_CHARACTERS.fullmatch(username) else None
    return None if user is None or user.password_hash is None else user


def password_epoch(user: User | None) -> str:
    """A short digest of ``user``'s password hash, which changes with every new password; ``"-"`` without one.

    Failed logins are counted under it, so a new password starts every count of the account afresh.
    """
    if user is None or user.password_hash is None:
        return "-"
    return hashlib.sha256(user.password_hash.encode()).hexdigest()[:16]


def password_matches(user: User, password: str, *, hasher: PasswordHasher = STRONG_HASHER) -> bool:
    """Whether ``password`` is ``user``'s; never for a user without one (a guest, a deleted account)."""
    if user.password_hash is None:
        _verify(hasher, _dummy_hash(hasher), password)
        return False
    return _verify(hasher, user.password_hash, password)


def set_password(user: User, password: str, *, hasher: PasswordHasher = STRONG_HASHER) -> None:
    """Store an argon2id hash of ``password`` as ``user``'s; the caller checked its strength and commits."""
    user.password_hash = hasher.hash(password)


def open_session(
    db: Session, *, user: User, days: int, now: datetime | None = None
) -> tuple[str, LoginSession]:
    """Sign ``user`` in for ``days``: the token for the browser's cookie and the stored session.

    Only the token's SHA-256 is stored; the session also gets its own CSRF
    token, which the page must echo on state-changing requests.
    """
    created_at = _utc_now(now)
    token = secrets.token_urlsafe(32)
    login = LoginSession(
        token_hash=token_digest(token),
        user_id=user.id,
        csrf_token=secrets.token_urlsafe(32),
        created_at=created_at,
        expires_at=created_at + timedelta(days=days),
    )
    db.add(login)
    db.commit()
    return token, login


def session_user(
    db: Session, token: str, *, now: datetime | None = None
) -> tuple[User, LoginSession] | None:
    """The user signed in by ``token`` and their session, or ``None``; an expired session is deleted."""
    row = users_repo.signed_in_by(db, token_digest(token))
    if row is None:
        return None
    user, login = row
    if _as_utc(login.expires_at) <= _utc_now(now):
        db.delete(login)
        db.commit()
        return None
    return user, login


LIVE_SESSIONS_PER_QUERY = 500
"""Digests one query of :func:`live_session_digests` looks up at most (an IN list of this many)."""


def live_session_digests(db: Session, digests: Sequence[str], *, now: datetime | None = None) -> set[str]:
    """Which of the session digests (``token_hash``) still sign someone in at ``now``: not signed out, not expired.

    One query per :data:`LIVE_SESSIONS_PER_QUERY` digests, for the sweep of a
    process's WebSockets (:class:`nardy.server.auth.signouts.SignOuts`).
    """
    moment = _utc_now(now)
    live: set[str] = set()
    for start in range(0, len(digests), LIVE_SESSIONS_PER_QUERY):
        chunk = digests[start : start + LIVE_SESSIONS_PER_QUERY]
        live.update(users_repo.live_token_hashes(db, chunk, at=moment))
    return live


def close_session(db: Session, token: str) -> None:
    """Sign out the session of ``token``; an unknown token is ignored."""
    users_repo.delete_session(db, token_digest(token))
    db.commit()


def _check_username(username: str) -> None:
    if not USERNAME_MIN_LENGTH <= len(username) <= USERNAME_MAX_LENGTH:
        raise InvalidUsername(
            f"username must be {USERNAME_MIN_LENGTH} to {USERNAME_MAX_LENGTH} characters long"
        )
    if not _USERNAME_CHARACTERS.fullmatch(username):
        raise InvalidUsername("username may contain only letters A-Z and a-z, digits, '_' and '-'")
    if username.lower().startswith(GUEST_PREFIX):
        raise InvalidUsername(f"usernames starting with {GUEST_PREFIX!r} are reserved for guests")
    if username.lower().startswith(DELETED_PREFIX):
        raise InvalidUsername(f"usernames starting with {DELETED_PREFIX!r} are reserved for deleted accounts")


def check_password_strength(password: str, username: str) -> None:
    """Raise :class:`WeakPassword` unless ``password`` is long enough and hard enough to guess for ``username``."""
    if len(password) < PASSWORD_MIN_LENGTH:
        raise WeakPassword(f"password must be at least {PASSWORD_MIN_LENGTH} characters long")
    if len(password) > PASSWORD_MAX_LENGTH:
        raise WeakPassword(f"password must be at most {PASSWORD_MAX_LENGTH} characters long")
    with _zxcvbn_lock:
        estimate = zxcvbn(password, user_inputs=[username, *SITE_WORDS], max_length=PASSWORD_MAX_LENGTH)
    if estimate["score"] < PASSWORD_MIN_SCORE:
        feedback = estimate["feedback"]
        reasons = " ".join(text for text in (feedback["warning"], *feedback["suggestions"]) if text)
        raise WeakPassword(f"password is too easy to guess: {reasons or 'add another word or two'}")


def _taken(username: str) -> UsernameTaken:
    return UsernameTaken(f"username {username!r} is taken")


def _commit_username(db: Session, username: str) -> None:
    """Commit a new or changed username; losing a race for the same name is :class:`UsernameTaken`.

    The check before the write gives the usual answer; the unique index on
    ``lower(username)`` refuses the loser of two sign-ups racing for "Bob"
    and "bob".
    """
    try:
        db.commit()
    except IntegrityError:
        db.rollback()
        raise _taken(username) from None


def _verify(hasher: PasswordHasher, password_hash: str, password: str) -> bool:
    try:
        return hasher.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        return False


@cache
def _dummy_hash(hasher: PasswordHasher) -> str:
    """A hash of a random password, made on first use of ``hasher``, that no password matches."""
    return hasher.hash(secrets.token_urlsafe(32))


def token_digest(token: str) -> str:
    """The SHA-256 of a random token, the only form in which sessions and mailed links are stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def _utc_now(now: datetime | None) -> datetime:
    return datetime.now(UTC) if now is None else now.astimezone(UTC)


def _as_utc(moment: datetime) -> datetime:
    """A stored time as an aware UTC datetime: SQLite gives back the naive UTC time that was written."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
