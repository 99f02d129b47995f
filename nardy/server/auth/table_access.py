"""Who may read a private table: its members, and whoever holds its invite token.

A private table (002: play with a friend by an invite link) is kept from
everyone else: its live view and chat over the socket, and its record, chat,
replay, export and analysis over HTTP. The HTTP routers and the WebSocket
subscribe ask the same question here, so they cannot disagree. A table that
does not exist is readable here: whoever looks it up names it missing.
"""

from __future__ import annotations

import hmac
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Final

from sqlalchemy.orm import Session

from nardy.store import tables_repo

PRIVATE_TABLE: Final = "private_table"
"""The error code of a refusal to show a private table."""
PRIVATE_TABLE_MESSAGE: Final = "this table is private: only its players and holders of its invite link see it"


def invite_matches(given: str | None, token: str | None) -> bool:
    """Whether ``given`` is the table's invite ``token``, compared in constant time; never when either is missing."""
    if given is None or token is None:
        return False
    return hmac.compare_digest(given.encode(), token.encode())


def may_read_table(db: Session, table_id: str, user_id: int | None, invite: str | None) -> bool:
    """Whether ``user_id`` (None: a visitor) holding ``invite`` (or None) may see the table and its history."""
    access = tables_repo.table_access(db, table_id)
    if access is None or not access.private:
        return True
    if user_id is not None and user_id in access.members:
        return True
    return invite_matches(invite, access.invite_token)


def may_watch_table(
    sessions: Callable[[], AbstractContextManager[Session]], table_id: str, user_id: int | None, invite: str | None,
) -> bool:
    """:func:`may_read_table` in a database session of its own: what a WebSocket subscribe runs in a worker thread."""
    with sessions() as db:
        return may_read_table(db, table_id, user_id, invite)
