"""``GET /metrics``: the server's figures in Prometheus' text format, for the operator's monitoring.

Served only when ``NARDY_METRICS`` is ``open`` (to anyone who reaches it:
keep it behind the proxy or a firewall) or ``token:SECRET``, when the request
must carry ``Authorization: Bearer SECRET`` and is answered 401 without it.
With metrics off the route does not exist (404). What is measured:
:mod:`nardy.server.runtime.metrics`; the figures themselves:
docs/operations.md, *Metrics*.
"""

from __future__ import annotations

import hmac

from fastapi import APIRouter, HTTPException, Request, status
from fastapi.responses import Response

from nardy.server.api.deps import SettingsDep
from nardy.server.runtime.metrics import Metrics

METRICS_PATH = "/metrics"

router = APIRouter(tags=["operations"])


@router.get(METRICS_PATH, include_in_schema=False)
def metrics(request: Request, settings: SettingsDep) -> Response:
    """The figures of this process (or of every process sharing its metrics directory); 401 without the token."""
    token = settings.metrics_token
    if token is not None and not _bearer_matches(request.headers.get("authorization"), token):
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "the metrics need their token",
                            headers={"WWW-Authenticate": "Bearer"})
    measured: Metrics = request.app.state.metrics
    body, content_type = measured.exposition()
    return Response(body, media_type=content_type, headers={"Cache-Control": "no-store"})


def _bearer_matches(header: str | None, token: str) -> bool:
    scheme, _, given = (header or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())
