"""Security headers on every HTTP response: a Content-Security-Policy for the static client, and no framing.

The policy lets the page load scripts, styles, images and fonts from its own
origin only, with nothing inline (the client sets styles through
``element.style``, which a policy does not block), connect only to its own
origin (``fetch`` and the same-origin WebSocket: in CSP 3 ``'self'`` covers
``ws:`` and ``wss:`` to the page's host), embed no plugins, change no base
URL, submit forms only to itself and be framed by nobody. The web app manifest and
the service worker (``/sw.js``) come from its own origin too; ``default-src``
would cover them, the two directives say so where a reader looks for them.

FastAPI's interactive API pages (``/docs``, ``/redoc``, outside production
only) are built from a CDN and an inline script, so ``create_app`` names them
in ``csp_exempt_paths``: they get every header but the policy.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY: Final = "; ".join((
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
))

HEADERS: Final = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
"""Sent with every HTTP response, the API pages' included."""


class SecurityHeadersMiddleware:
    """Add :data:`HEADERS` and the :data:`CONTENT_SECURITY_POLICY` to every HTTP response.

    Pure ASGI: WebSocket connections pass through untouched. Paths in
    ``csp_exempt_paths`` (below the app's ``root_path``) get no policy.
    """

    def __init__(self, app: ASGIApp, *, csp_exempt_paths: Iterable[str] = ()) -> None:
        self.app = app
        self.csp_exempt_paths = frozenset(csp_exempt_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with_policy = _app_path(scope) not in self.csp_exempt_paths

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers[name] = value
                if with_policy:
                    headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _app_path(scope: Scope) -> str:
    """The request path less any ``root_path`` the app is mounted at."""
    path: str = scope["path"]
    root_path: str = scope.get("root_path", "")
    return path[len(root_path):] if root_path and path.startswith(root_path) else path
