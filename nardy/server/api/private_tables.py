"""The HTTP side of private tables: a route that shows a table or its history depends on :data:`READABLE`.

Whoever is not a member of a private table names its invite token in the
``invite`` query parameter; the decision is
:func:`nardy.server.auth.table_access.may_read_table`, the one the WebSocket
subscribe makes too.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, HTTPException, Query, status

from nardy.server.api.deps import DbSession
from nardy.server.api.security import OptionalUser
from nardy.server.auth.table_access import PRIVATE_TABLE_MESSAGE, may_read_table

InviteToken = Annotated[str | None, Query(min_length=1, max_length=64)]
"""A private table's invite token, for someone who is not its member."""


def require_readable(table_id: str, db: DbSession, viewer: OptionalUser, invite: InviteToken = None) -> None:
    """403 unless the viewer may see table ``table_id`` (a path parameter of the route)."""
    if not may_read_table(db, table_id, viewer.id if viewer is not None else None, invite):
        raise HTTPException(status.HTTP_403_FORBIDDEN, PRIVATE_TABLE_MESSAGE)


READABLE = Depends(require_readable)
"""The dependency of a route that shows table ``table_id``: ``dependencies=[READABLE]``."""
