"""Accounts over HTTP: sign up, log in, log out, continue as a guest, and who am I.

``/api/me`` names the signed-in user and refuses a visitor (401), for the
routes and scripts that need someone; ``/api/session`` is what the page asks
on every load and answers a visitor too, with no user, so that a first visit
logs no error.

Every route that signs someone in starts a fresh session (closing the one
the browser held), so a session token never outlives a change of who it
stands for, and sets the two cookies described in
:mod:`nardy.server.api.security`.

Signing in is rate-limited (:mod:`nardy.server.api.ratelimit`): login counts
wrong passwords per account and address and per address
(:mod:`nardy.server.api.login_guard`, so that nobody elsewhere can lock an
owner out) and every attempt from an address; sign-up counts the accounts
created for one name and from one address (a sign-up refused for its name or
password is answered at once and counts nothing, so that a family sharing a
connection is not locked out by its typing); a new guest counts against its address. A request refused by a
limit changes nothing: no password is checked, no account or session made.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from contextlib import contextmanager
from typing import Annotated

from fastapi import APIRouter, HTTPException, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session

from nardy.server.api.deps import DbSession, SettingsDep
from nardy.server.api.login_guard import Guesser, PasswordGuard
from nardy.server.api.ratelimit import Limit, RateLimiter, RateLimiterDep, client_address
from nardy.server.api.security import CSRF_COOKIE, CurrentUser, OptionalLogin, OptionalUser, SessionToken
from nardy.server.auth.cookies import SESSION_COOKIE, Login
from nardy.server.auth.signouts import announce_sign_out
from nardy.server.services import accounts, moderation
from nardy.server.settings import Settings
from nardy.store.models import User

router = APIRouter(prefix="/api", tags=["accounts"])

WRONG_CREDENTIALS = "wrong username or password"
LOGINS_PER_ADDRESS = "too many logins from your address"

_REFUSAL_STATUS: dict[type[accounts.AccountError], int] = {
    accounts.InvalidUsername: status.HTTP_422_UNPROCESSABLE_CONTENT,
    accounts.WeakPassword: status.HTTP_422_UNPROCESSABLE_CONTENT,
    accounts.UsernameTaken: status.HTTP_409_CONFLICT,
    accounts.NotAGuest: status.HTTP_409_CONFLICT,
}


class Credentials(BaseModel):
    """A username and password as typed.

    Only sizes are capped here; the account rules are checked by the service
    so that a refusal names the rule that was broken.
    """

    model_config = ConfigDict(extra="forbid")

    username: Annotated[str, Field(max_length=64)]
    password: Annotated[str, Field(max_length=1024)]


class UserOut(BaseModel):
    """A user as the page sees them."""

    model_config = ConfigDict(extra="forbid")

    id: int
    username: str
    guest: bool
    moderator: bool = False


class UserReply(BaseModel):
    """The reply of every account route that names a user."""

    model_config = ConfigDict(extra="forbid")

    user: UserOut

    @classmethod
    def of(cls, user: User) -> UserReply:
        """The reply naming ``user``."""
        return cls(user=UserOut(id=user.id, username=user.username, guest=user.is_guest, moderator=user.moderator))


class SessionReply(BaseModel):
    """Who the browser is signed in as: a user, or ``None`` for a visitor nobody signed in yet."""

    model_config = ConfigDict(extra="forbid")

    user: UserOut | None

    @classmethod
    def of(cls, user: User | None) -> SessionReply:
        """The reply naming ``user``, or nobody."""
        return cls(user=None if user is None else UserReply.of(user).user)


@router.post("/signup", status_code=status.HTTP_201_CREATED)
def signup(
    body: Credentials,
    request: Request,
    response: Response,
    db: DbSession,
    settings: SettingsDep,
    limiter: RateLimiterDep,
    login: OptionalLogin,
    token: SessionToken,
) -> UserReply:
    """Create an account and sign it in; a signed-in guest becomes the account and keeps its games.

    The name and password are checked first: only a sign-up that will create
    an account counts against the limits.
    """
    guest = None if login is None else login[0]
    with _account_refusals():
        accounts.check_new_account(db, username=body.username, password=body.password, guest=guest)
    _spend_per_account_and_address(
        limiter,
        Limit.of("signups", settings.signups_per_account, "too many sign-ups for this username"),
        body.username.lower(),
        Limit.of("signup-addresses", settings.signups_per_address, "too many sign-ups from your address"),
        client_address(request),
    )
    hasher = accounts.PASSWORD_HASHERS[settings.password_hashing]
    with _account_refusals():
        if guest is None:
            user = accounts.create_user(db, username=body.username, password=body.password, hasher=hasher)
        else:
            user = accounts.upgrade_guest(db, user=guest, username=body.username, password=body.password, hasher=hasher)
    moderation.note_address(db, user, client_address(request), datetime.now(UTC))
    start_session(db, response, settings, user=user, previous_token=token)
    return UserReply.of(user)


@router.post("/login")
def login(
    body: Credentials,
    request: Request,
    response: Response,
    db: DbSession,
    settings: SettingsDep,
    limiter: RateLimiterDep,
    signed_in: OptionalLogin,
    token: SessionToken,
) -> UserReply:
    """Sign in to an account; unknown names and wrong passwords get the same refusal.

    Wrong passwords lock out only where they come from
    (:mod:`nardy.server.api.login_guard`): a browser signed in to the account
    is a known device and is counted on its own, and every other attempt
    counts against its address as well.
    """
    guard = PasswordGuard(limiter, settings)
    address = client_address(request)
    epoch = accounts.password_epoch(accounts.account_named(db, body.username))
    guesser = Guesser.of(body.username, epoch, address=address, device=known_device(signed_in, token, body.username))
    attempts = Limit.of("login-addresses", settings.logins_per_address, LOGINS_PER_ADDRESS)
    if guesser.device is None:
        limiter.require_room(attempts, address)
    guard.attempt(guesser)
    if guesser.device is None:
        limiter.spend(attempts, address)
    hasher = accounts.PASSWORD_HASHERS[settings.password_hashing]
    user = accounts.authenticate(db, username=body.username, password=body.password, hasher=hasher)
    if user is None:
        guard.failed(guesser)
        raise HTTPException(status_code=status.HTTP_401_UNAUTHORIZED, detail=WRONG_CREDENTIALS)
    guard.succeeded(guesser)
    ban = moderation.ban_of(db, user.id, datetime.now(UTC))
    if ban is not None:
        until = "for good" if ban.until is None else f"until {ban.until.isoformat()}"
        raise HTTPException(status_code=status.HTTP_403_FORBIDDEN, detail=f"this account is banned {until}: {ban.reason}")
    moderation.note_address(db, user, address, datetime.now(UTC))
    start_session(db, response, settings, user=user, previous_token=token)
    return UserReply.of(user)


def known_device(signed_in: Login | None, token: str | None, username: str) -> str | None:
    """The digest of the request's session when it signs in the account ``username`` (a known device of it)."""
    if signed_in is None or token is None or signed_in[0].username.lower() != username.lower():
        return None
    return accounts.token_digest(token)


@router.post("/logout", status_code=status.HTTP_204_NO_CONTENT)
def logout(request: Request, response: Response, db: DbSession, settings: SettingsDep, token: SessionToken) -> None:
    """Close the browser's session and clear its cookies; harmless when not signed in.

    The session's WebSockets, in every server process, close at once (:mod:`nardy.server.auth.signouts`).
    """
    if token is not None:
        accounts.close_session(db, token)
        announce_sign_out(request.app, token)
    clear_session_cookies(response, settings)


@router.post("/guest", status_code=status.HTTP_201_CREATED)
def guest(
    request: Request,
    response: Response,
    db: DbSession,
    settings: SettingsDep,
    limiter: RateLimiterDep,
    login: OptionalLogin,
    token: SessionToken,
) -> UserReply:
    """Continue as a guest, to play the computer without an account.

    A browser already signed in as a guest keeps that guest (200), so a
    second click does not strand its games; an account must log out first.
    """
    if login is not None:
        user = login[0]
        if not user.is_guest:
            raise HTTPException(
                status_code=status.HTTP_409_CONFLICT,
                detail=f"already signed in as {user.username!r}; log out first",
            )
        response.status_code = status.HTTP_200_OK
        return UserReply.of(user)
    limiter.spend(
        Limit.of("guest-addresses", settings.guests_per_address, "too many guests from your address"),
        client_address(request),
    )
    user = accounts.create_guest(db)
    start_session(db, response, settings, user=user, previous_token=token)
    return UserReply.of(user)


@router.get("/me")
def me(user: CurrentUser) -> UserReply:
    """The signed-in user; 401 when there is none."""
    return UserReply.of(user)


@router.get("/session")
def session(user: OptionalUser) -> SessionReply:
    """Who this browser is signed in as, ``{"user": null}`` for a visitor: answered 200 either way."""
    return SessionReply.of(user)


@contextmanager
def _account_refusals() -> Iterator[None]:
    """Answer an :class:`~nardy.server.services.accounts.AccountError` raised inside with its status
    (422 or 409) and its message."""
    try:
        yield
    except accounts.AccountError as error:
        raise HTTPException(
            status_code=_REFUSAL_STATUS.get(type(error), status.HTTP_400_BAD_REQUEST), detail=str(error)
        ) from None


def _spend_per_account_and_address(
    limiter: RateLimiter, per_account: Limit, account: str, per_address: Limit, address: str
) -> None:
    """Count one attempt against both limits, or raise 429 having counted nothing.

    The account's room is looked at first, so a request refused for its
    account does not use up its address's room (two racing requests may
    still, which only errs towards refusing).
    """
    limiter.require_room(per_account, account)
    limiter.spend(per_address, address)
    limiter.spend(per_account, account)


def clear_session_cookies(response: Response, settings: Settings) -> None:
    """Tell the browser to forget both cookies."""
    for name, http_only in ((SESSION_COOKIE, True), (CSRF_COOKIE, False)):
        response.delete_cookie(
            name, path="/", secure=settings.secure_cookies, httponly=http_only, samesite="lax"
        )


def start_session(
    db: Session, response: Response, settings: Settings, *, user: User, previous_token: str | None
) -> None:
    """Close the browser's old session, if any, open one for ``user`` and set both cookies."""
    if previous_token is not None:
        accounts.close_session(db, previous_token)
    token, login_session = accounts.open_session(db, user=user, days=settings.session_days)
    max_age = settings.session_days * 24 * 60 * 60
    for name, value, http_only in (
        (SESSION_COOKIE, token, True),
        (CSRF_COOKIE, login_session.csrf_token, False),
    ):
        response.set_cookie(
            name,
            value,
            max_age=max_age,
            path="/",
            secure=settings.secure_cookies,
            httponly=http_only,
            samesite="lax",
        )
