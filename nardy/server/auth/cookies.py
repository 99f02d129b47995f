"""The session cookie: which login session a request or a WebSocket handshake belongs to.

A signed-in browser holds the session's random token in the HttpOnly
``nardy_session`` cookie. Every reader of the cookie (the HTTP dependencies
and CSRF check of :mod:`nardy.server.api.security`, and the WebSocket
endpoint) finds the token with :func:`session_token`, so they always agree
on which session a request belongs to.
"""

from __future__ import annotations

from http.cookies import CookieError, SimpleCookie

from sqlalchemy.orm import Session

from nardy.server.services import accounts
from nardy.store.models import LoginSession, User

SESSION_COOKIE = "nardy_session"

Login = tuple[User, LoginSession]
"""A signed-in user and their session."""


def session_token(cookie_header: str | None) -> str | None:
    """The ``nardy_session`` token in a ``Cookie`` header, or ``None``.

    Each ``name=value`` pair is parsed on its own because ``SimpleCookie``
    drops a whole header when one cookie in it is malformed, and another
    application's cookie on the same host must not sign a player out.
    """
    if not cookie_header:
        return None
    for pair in cookie_header.split(";"):
        cookie = SimpleCookie()
        try:
            cookie.load(pair)
        except CookieError:
            continue
        morsel = cookie.get(SESSION_COOKIE)
        if morsel is not None and morsel.value:
            return morsel.value
    return None


def session_from_cookie_header(db: Session, cookie_header: str | None) -> Login | None:
    """The user and session signed in by a raw ``Cookie`` header; for the WebSocket endpoint."""
    token = session_token(cookie_header)
    return None if token is None else accounts.session_user(db, token)
