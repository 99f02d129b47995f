"""``imported_matches``: matches users read in from .mat, SGF or record files, each its own analysis job.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Create the table and its indexes."""
    op.create_table(
        "imported_matches",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("owner_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("variant", sa.String(length=32), nullable=False),
        sa.Column("match_length", sa.Integer(), nullable=False),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("record", sa.JSON(), nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("level", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("progress", sa.Float(), nullable=False),
        sa.Column("requested_by", sa.Integer(), nullable=True),
        sa.Column("requested_at", _TIME, nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("heartbeat_at", _TIME, nullable=True),
        sa.Column("finished_at", _TIME, nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.String(length=500), nullable=True),
        sa.ForeignKeyConstraint(["owner_id"], ["users.id"], name="fk_imported_matches_owner_id_users",
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["requested_by"], ["users.id"], name="fk_imported_matches_requested_by_users"),
        sa.PrimaryKeyConstraint("id", name="pk_imported_matches"),
    )
    op.create_index("ix_imported_matches_owner_id", "imported_matches", ["owner_id"])
    op.create_index("ix_imported_matches_status", "imported_matches", ["status"])


def downgrade() -> None:
    """Drop the table."""
    op.drop_index("ix_imported_matches_status", table_name="imported_matches")
    op.drop_index("ix_imported_matches_owner_id", table_name="imported_matches")
    op.drop_table("imported_matches")
