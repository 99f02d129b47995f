"""Drop ``ix_table_events_table_version``: the unique constraint on the same columns is that index already.

``table_events`` had two B-trees on ``(table_id, version)``: the unique
constraint ``uq_table_event_version`` (which both SQLite and PostgreSQL keep
as an index, and which every read by table and version uses) and a plain
index created beside it. Every event appended, several per action, wrote
both; in SQLite the second cost about a fifth of an event's insert.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Drop the index that repeats the unique constraint."""
    op.drop_index("ix_table_events_table_version", table_name="table_events")


def downgrade() -> None:
    """Create it again."""
    op.create_index("ix_table_events_table_version", "table_events", ["table_id", "version"])
