"""Queries about the chat of two-seat tables (``chat_messages``), apart from their event logs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from nardy.store.models import ChatMessage


@dataclass(frozen=True, slots=True)
class StoredChat:
    """A chat message as stored: its id (increasing in the order of writing), writer, words and time."""

    id: int
    table_id: str
    user_id: int | None
    seat: int
    name: str
    text: str | None
    phrase: str | None
    at: datetime


def _stored(row: ChatMessage) -> StoredChat:
    return StoredChat(row.id, row.table_id, row.user_id, row.seat, row.name, row.text, row.phrase, row.created_at)


def _by_action(db: Session, table_id: str, action_id: str) -> ChatMessage | None:
    return db.scalar(select(ChatMessage).where(ChatMessage.table_id == table_id, ChatMessage.action_id == action_id))


def message_of_action(db: Session, table_id: str, action_id: str) -> StoredChat | None:
    """The message stored for ``action_id`` at the table, if one was."""
    row = _by_action(db, table_id, action_id)
    return None if row is None else _stored(row)


def add_message(db: Session, row: ChatMessage) -> tuple[StoredChat, bool]:
    """Store ``row``; the stored message and True, or, when its action id is stored already, that one and False.

    Two copies of one message racing from two connections store it once:
    the unique ``(table_id, action_id)`` refuses the second, which then
    answers with the first.
    """
    db.add(row)
    try:
        db.commit()
    except IntegrityError:
        db.rollback()
        earlier = _by_action(db, row.table_id, row.action_id)
        if earlier is None:
            raise
        return _stored(earlier), False
    return _stored(row), True


def messages_of(db: Session, table_id: str, *, last: int | None = None) -> list[StoredChat]:
    """The table's messages in the order they were written; only the ``last`` ones when given."""
    query = select(ChatMessage).where(ChatMessage.table_id == table_id).order_by(ChatMessage.id.desc())
    if last is not None:
        query = query.limit(last)
    rows = list(db.scalars(query))
    rows.reverse()
    return [_stored(row) for row in rows]
