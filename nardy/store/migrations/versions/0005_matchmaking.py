"""The matchmaking pool shared by every server process: one JSON row with a version.

Until now each process kept its own pool in memory, so with several
processes two players could wait forever in different ones, and a status
poll reaching another process saw nothing. The pool is small and changes a
few times a second at most: one row, rewritten whole under a version check
(``nardy/server/services/matchmaking.py``), serves every process.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``matchmaking``."""
    op.create_table(
        "matchmaking",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_matchmaking"),
    )


def downgrade() -> None:
    """Drop it."""
    op.drop_table("matchmaking")
