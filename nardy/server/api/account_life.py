"""The account's life over HTTP: its settings, a new password, an e-mail address, a reset by mail, its data and
its deletion.

The rules are :mod:`nardy.server.services.account_life`'s. Every check of a
current password is guarded like a login (:mod:`nardy.server.api.login_guard`),
counted on the asking browser's session, so a stolen session cannot guess the
password it would need to take the account over. Mail needs ``NARDY_SMTP_URL``
and ``NARDY_PUBLIC_URL`` (the links point at the site the settings name,
never at a ``Host`` header a stranger sent); without them the routes that
mail answer 503. Mail leaves in a background task after the answer
(:mod:`nardy.server.services.mail`), so an answer's time tells nothing.
A reset asked for answers 202 alike whether anything was sent. A mail is
written in the account's language (``users.language``: set from the page's
language when an address is set, and by ``POST /api/account/language``),
else the request's (:mod:`nardy.server.services.mail_texts`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any, Literal

import anyio.from_thread
from fastapi import APIRouter, BackgroundTasks, HTTPException, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field

from nardy.server.api.accounts import UserReply, clear_session_cookies, start_session
from nardy.server.api.deps import DbSession, SettingsDep
from nardy.server.api.login_guard import Guesser, PasswordGuard
from nardy.server.api.ratelimit import Limit, RateLimited, RateLimiter, RateLimiterDep, client_address
from nardy.server.api.security import CurrentUser, SessionToken
from nardy.server.auth.signouts import announce_sign_outs
from nardy.server.services import account_life, accounts
from nardy.server.services.mail import Mailer, SmtpServer
from nardy.server.services.mail_texts import Mail, language_tag, mail_language, reset_mail, verification_mail
from nardy.server.services.matchmaking import MatchmakingService
from nardy.server.settings import Settings
from nardy.store.models import User

router = APIRouter(prefix="/api", tags=["accounts"])

MAIL_UNAVAILABLE = "this server sends no mail: e-mail addresses and password resets are unavailable here"
RESET_ASKED = "if that account has a verified e-mail address, a link to set a new password is on its way"

_REFUSAL_STATUS: dict[type[accounts.AccountError], int] = {
    accounts.WeakPassword: status.HTTP_422_UNPROCESSABLE_CONTENT,
    account_life.InvalidEmail: status.HTTP_422_UNPROCESSABLE_CONTENT,
    account_life.WrongPassword: status.HTTP_403_FORBIDDEN,
    account_life.NotAnAccount: status.HTTP_409_CONFLICT,
    account_life.StillPlaying: status.HTTP_409_CONFLICT,
    account_life.BadLink: status.HTTP_400_BAD_REQUEST,
}

Password = Annotated[str, Field(max_length=1024)]
Language = Literal["ru", "en", "ka", "tr", "el"]
"""A language of the site: the account's, and so its mails'."""
Token = Annotated[str, Field(min_length=1, max_length=128)]


class AccountOut(BaseModel):
    """The account's own settings, as its account page shows them."""

    model_config = ConfigDict(extra="forbid")

    username: str
    guest: bool
    email: str | None
    email_verified: bool
    mail_available: bool
    language: str | None
    """The account's language (its mails are written in it); null: none chosen yet."""


class PasswordChange(BaseModel):
    model_config = ConfigDict(extra="forbid")

    current_password: Password
    new_password: Password


class EmailChange(BaseModel):
    """A new address (``null`` or empty removes it), with the current password, and the language the page is in
    (it becomes the account's, and the verification mail's)."""

    model_config = ConfigDict(extra="forbid")

    email: Annotated[str | None, Field(max_length=account_life.EMAIL_MAX_LENGTH)]
    password: Password
    language: Language | None = None


class LanguageChange(BaseModel):
    """The language the account reads the site in (``null``: none, the browser's), so its mails' too."""

    model_config = ConfigDict(extra="forbid")

    language: Language | None


class LinkFollowed(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: Token


class ResetAsked(BaseModel):
    """A username, or an e-mail address; the language the page is in (for an account that has none of its own)."""

    model_config = ConfigDict(extra="forbid")

    account: Annotated[str, Field(min_length=1, max_length=account_life.EMAIL_MAX_LENGTH)]
    language: Language | None = None


class ResetFollowed(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: Token
    password: Password


class Confirmation(BaseModel):
    """The current password, which a deletion asks again."""

    model_config = ConfigDict(extra="forbid")

    password: Password


class Notice(BaseModel):
    model_config = ConfigDict(extra="forbid")

    detail: str


@router.get("/account")
def account(user: CurrentUser, settings: SettingsDep) -> AccountOut:
    """The signed-in account's settings, and whether this server sends mail."""
    return _account_out(user, settings)


@router.post("/account/password", status_code=status.HTTP_204_NO_CONTENT)
def change_password(
    body: PasswordChange, request: Request, user: CurrentUser, db: DbSession, settings: SettingsDep,
    limiter: RateLimiterDep, token: SessionToken,
) -> None:
    """A new password, given the current one; every other session of the account ends, this one stays."""
    session = _checked_password(request, user, body.current_password, settings, limiter, token)
    with _refusals():
        ended = account_life.change_password(
            db, user=user, new_password=body.new_password, keep_session=session,
            hasher=accounts.PASSWORD_HASHERS[settings.password_hashing],
        )
    announce_sign_outs(request.app, ended)


@router.post("/account/email")
def change_email(
    body: EmailChange, request: Request, tasks: BackgroundTasks, user: CurrentUser, db: DbSession,
    settings: SettingsDep, limiter: RateLimiterDep, token: SessionToken,
) -> AccountOut:
    """Set the account's e-mail address, unverified until the link mailed to it is followed, or remove it."""
    with _refusals():
        address = account_life.checked_email(body.email)
    if address is not None and not settings.mail_available:
        raise HTTPException(status_code=status.HTTP_503_SERVICE_UNAVAILABLE, detail=MAIL_UNAVAILABLE)
    _checked_password(request, user, body.password, settings, limiter, token)
    if address is not None:
        limiter.spend(_mails_per_account(settings), str(user.id))
    if body.language is not None:
        account_life.set_language(db, user=user, language=body.language)
    link = account_life.set_email(db, user=user, email=address)
    if link is not None and user.email is not None:
        mail = verification_mail(
            mail_language(user.language, None, request.headers.get("accept-language")), username=user.username,
            link=f"{settings.public_url}/#/verify-email/{link}", days=account_life.VERIFY_LINK_TTL.days,
        )
        _send_later(tasks, settings, user.email, mail)
    return _account_out(user, settings)


@router.post("/account/language")
def change_language(body: LanguageChange, user: CurrentUser, db: DbSession, settings: SettingsDep) -> AccountOut:
    """Set the language the account reads the site in: its mails are written in it."""
    account_life.set_language(db, user=user, language=body.language)
    return _account_out(user, settings)


@router.post("/account/email/verify")
def verify_email(body: LinkFollowed, db: DbSession) -> Notice:
    """Follow the link mailed to a new address: the address is verified. 400 for a link unknown, used or expired."""
    with _refusals():
        user = account_life.verify_email(db, body.token)
    return Notice(detail=f"{user.email} is verified")


@router.post("/password-reset", status_code=status.HTTP_202_ACCEPTED)
def ask_reset(
    body: ResetAsked, request: Request, tasks: BackgroundTasks, db: DbSession, settings: SettingsDep,
    limiter: RateLimiterDep,
) -> Notice:
    """Mail a reset link to the verified address of the account named (or of each account with that address).

    The answer is the same whether any account matched; 503 when the server sends no mail.
    """
    if not settings.mail_available:
        raise HTTPException(status_code=status.HTTP_503_SERVICE_UNAVAILABLE, detail=MAIL_UNAVAILABLE)
    limiter.spend(
        Limit.of("reset-addresses", settings.password_resets_per_address, "too many password resets from your address"),
        client_address(request),
    )
    for user in account_life.reset_recipients(db, body.account):
        if user.email is None or not _may_mail(limiter, settings, user):
            continue
        link = account_life.issue_reset(db, user)
        mail = reset_mail(
            mail_language(user.language, body.language, request.headers.get("accept-language")),
            username=user.username, link=f"{settings.public_url}/#/reset-password/{link}",
            minutes=int(account_life.RESET_LINK_TTL.total_seconds() // 60),
        )
        _send_later(tasks, settings, user.email, mail)
    return Notice(detail=RESET_ASKED)


@router.post("/password-reset/confirm")
def reset_password(
    body: ResetFollowed, request: Request, response: Response, db: DbSession, settings: SettingsDep,
    token: SessionToken,
) -> UserReply:
    """Follow a reset link: the new password is set, every session of the account ends, and this browser is
    signed in. 400 for a link unknown, used or expired (a weak password, 422, leaves the link usable)."""
    with _refusals():
        user, ended = account_life.reset_password(
            db, body.token, body.password, hasher=accounts.PASSWORD_HASHERS[settings.password_hashing],
        )
    announce_sign_outs(request.app, ended)
    start_session(db, response, settings, user=user, previous_token=token)
    return UserReply.of(user)


@router.post("/account/delete", status_code=status.HTTP_204_NO_CONTENT)
def delete_account(
    body: Confirmation, request: Request, response: Response, user: CurrentUser, db: DbSession,
    settings: SettingsDep, limiter: RateLimiterDep, token: SessionToken,
) -> None:
    """Delete the account, given its password: its games stay under an anonymous name, its coins, chat and
    ratings go, and every session of it ends. 409 while it plays or is entered in a tournament."""
    _checked_password(request, user, body.password, settings, limiter, token)
    with _refusals():
        ended = account_life.delete_account(db, user=user)
    announce_sign_outs(request.app, ended)
    _leave_matchmaking(request, user.id)
    clear_session_cookies(response, settings)


@router.get("/account/export")
def export(user: CurrentUser, db: DbSession) -> Response:
    """Everything kept about the account that is its own, as a JSON file to download."""
    data: dict[str, Any] = account_life.export(db, user)
    return Response(
        content=_json(data), media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="nardy-{user.username}.json"'},
    )


def _leave_matchmaking(request: Request, user_id: int) -> None:
    """Take a deleted account out of the matchmaking pool (an open offer counts as declined), where the app
    runs matchmaking."""
    service: MatchmakingService | None = getattr(request.app.state, "matchmaking", None)
    if service is not None:
        anyio.from_thread.run(service.leave, user_id)


def _checked_password(
    request: Request, user: User, password: str, settings: Settings, limiter: RateLimiter, token: str | None,
) -> str:
    """Check ``user``'s current password, guarded on this session; the session's digest. 403 when wrong."""
    with _refusals():
        account_life.require_account(user)
    session = accounts.token_digest(token or "")
    guard = PasswordGuard(limiter, settings)
    guesser = Guesser.of(
        user.username, accounts.password_epoch(user), address=client_address(request), device=session,
    )
    guard.attempt(guesser)
    with _refusals():
        try:
            account_life.check_current_password(
                user, password, hasher=accounts.PASSWORD_HASHERS[settings.password_hashing],
            )
        except account_life.WrongPassword:
            guard.failed(guesser)
            raise
    guard.succeeded(guesser)
    return session


@contextmanager
def _refusals() -> Iterator[None]:
    """Answer an account error raised inside with its status and message."""
    try:
        yield
    except accounts.AccountError as error:
        raise HTTPException(
            status_code=_REFUSAL_STATUS.get(type(error), status.HTTP_400_BAD_REQUEST), detail=str(error)
        ) from None


def _account_out(user: User, settings: Settings) -> AccountOut:
    return AccountOut(
        username=user.username, guest=user.is_guest, email=user.email, email_verified=user.email_verified,
        mail_available=settings.mail_available, language=language_tag(user.language),
    )


def _mails_per_account(settings: Settings) -> Limit:
    return Limit.of("account-mails", settings.mails_per_account, "too many mails to this account; try later")


def _may_mail(limiter: RateLimiter, settings: Settings, user: User) -> bool:
    """Count one mail to ``user``: whether it is within their limit (a refusal here is silent: it would tell
    that the account exists)."""
    try:
        limiter.spend(_mails_per_account(settings), str(user.id))
    except RateLimited:
        return False
    return True


def _mailer(settings: Settings) -> Mailer:
    """The mailer the settings name (only called when :attr:`Settings.mail_available`)."""
    return Mailer(SmtpServer.from_url(settings.smtp_url or ""), settings.mail_sender)


def _send_later(tasks: BackgroundTasks, settings: Settings, to: str, mail: Mail) -> None:
    """Mail ``mail`` to ``to`` in a background task, after the answer."""
    tasks.add_task(_mailer(settings).send_quietly, to, mail.subject, mail.body)


def _json(data: dict[str, Any]) -> bytes:
    return json.dumps(data, ensure_ascii=False, indent=2).encode()
