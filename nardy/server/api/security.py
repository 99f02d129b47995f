"""Who is asking: the session cookie, the signed-in user, and protection against cross-site requests.

A signed-in browser holds two cookies: ``nardy_session`` (HttpOnly) with the
session's random token, and ``nardy_csrf`` (readable by the page's script)
with the session's CSRF token. Another site can make the browser send the
cookies but cannot read them, so a state-changing API request that comes
with a valid session must also carry the CSRF token in the ``X-CSRF-Token``
header (:class:`CSRFMiddleware`). A request without a valid session has
nothing to abuse and is let through; that is how signup, login and "continue
as a guest" work for a visitor.

The dependencies here and the middleware read the cookie with
:func:`nardy.server.auth.cookies.session_token`, as the WebSocket endpoint
does, so they always agree on which session a request belongs to.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from nardy.server.api.deps import DbSession
from nardy.server.auth.cookies import Login, session_token
from nardy.server.runtime.log_context import note_user
from nardy.server.services import accounts
from nardy.store.models import User

CSRF_COOKIE = "nardy_csrf"
CSRF_HEADER = "X-CSRF-Token"

SIGN_IN_REQUIRED = "sign in or continue as a guest"
CSRF_REJECTED = "missing or wrong CSRF token"

_STATE_CHANGING_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_PROTECTED_PREFIX = "/api/"


def current_session_token(request: Request) -> str | None:
    """The session token the request's cookie carries, valid or not."""
    return session_token(request.headers.get("cookie"))


SessionToken = Annotated[str | None, Depends(current_session_token)]


def current_login_optional(token: SessionToken, db: DbSession) -> Login | None:
    """The signed-in user and their session, or ``None`` without a valid session; the request's log lines name
    the user from here on."""
    login = None if token is None else accounts.session_user(db, token)
    if login is not None:
        note_user(login[0].id)
    return login


OptionalLogin = Annotated[Login | None, Depends(current_login_optional)]


def current_user_optional(login: OptionalLogin) -> User | None:
    """The signed-in user (an account or a guest), or ``None``."""
    return None if login is None else login[0]


OptionalUser = Annotated[User | None, Depends(current_user_optional)]


def require_user(user: OptionalUser) -> User:
    """The signed-in user; 401 when there is none."""
    if user is None:
        raise HTTPException(status_code=status.HTTP_401_UNAUTHORIZED, detail=SIGN_IN_REQUIRED)
    return user


CurrentUser = Annotated[User, Depends(require_user)]


class CSRFMiddleware:
    """Refuse state-changing ``/api/`` requests that carry a valid session but not its CSRF token.

    Pure ASGI, so WebSocket connections and responses pass through
    untouched. The session is looked up in a worker thread with a database
    session of its own from ``app.state.db``. Install it with
    ``app.add_middleware(CSRFMiddleware)``.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in _STATE_CHANGING_METHODS and _is_protected(scope):
            headers = Headers(scope=scope)
            token = session_token(headers.get("cookie"))
            if token is not None:
                expected = await run_in_threadpool(_csrf_token_of, scope["app"].state.db, token)
                if expected is not None and not _same_token(expected, headers.get(CSRF_HEADER)):
                    refusal = JSONResponse({"detail": CSRF_REJECTED}, status_code=status.HTTP_403_FORBIDDEN)
                    await refusal(scope, receive, send)
                    return
        await self.app(scope, receive, send)


def _is_protected(scope: Scope) -> bool:
    """Whether the request path, less any ``root_path`` the app is mounted at, is under ``/api/``."""
    path: str = scope["path"]
    root_path: str = scope.get("root_path", "")
    if root_path and path.startswith(root_path):
        path = path[len(root_path) :]
    return path.startswith(_PROTECTED_PREFIX)


def _csrf_token_of(sessions: sessionmaker[Session], token: str) -> str | None:
    """The CSRF token of the session signed in by ``token``, or ``None`` without a valid session."""
    with sessions() as db:
        login = accounts.session_user(db, token)
        return None if login is None else login[1].csrf_token


def _same_token(expected: str, given: str | None) -> bool:
    return given is not None and hmac.compare_digest(expected.encode(), given.encode())
