"""Chouette tables (issue 7): a table's kind and, for a chouette, its number of places.

``tables.kind`` is ``"match"`` for the two-seat tables of ``0001`` (every
existing row, through the server default) or ``"chouette"``;
``tables.max_players`` is a chouette's number of places (3 to 8), null for a
match. A chouette keeps its log, seeds and summary in the same tables as a
match (``docs/chouette.md``).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``tables.kind`` (every existing table is a match) and ``tables.max_players``."""
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("kind", sa.String(16), nullable=False, server_default="match"))
        batch.add_column(sa.Column("max_players", sa.Integer(), nullable=True))


def downgrade() -> None:
    """Drop the two columns."""
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("max_players")
        batch.drop_column("kind")
