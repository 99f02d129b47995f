"""The chat of two-seat tables: ``chat_messages``, kept beside the event log.

A message is one player's free text or quick phrase (its id) at one table;
who may read it follows from the table's log (``docs/protocol.md``, *Chat*).
Its ``action_id`` is unique per table, so a message sent again is stored once.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``chat_messages``."""
    op.create_table(
        "chat_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("phrase", sa.String(length=32), nullable=True),
        sa.Column("action_id", sa.String(length=80), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_chat_messages_table_id_tables", ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_chat_messages_user_id_users", ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_chat_messages"),
        sa.UniqueConstraint("table_id", "action_id", name="uq_chat_message_action"),
    )
    op.create_index("ix_chat_messages_table_message", "chat_messages", ["table_id", "id"], unique=False)


def downgrade() -> None:
    """Drop it."""
    op.drop_index("ix_chat_messages_table_message", table_name="chat_messages")
    op.drop_table("chat_messages")
