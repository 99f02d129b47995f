"""Post-game analyses: a queue of jobs in the database, then their results.

Analysing a match takes seconds to minutes of CPU, so it runs in a worker
process, never in a request. Any server process may take a queued job; the
claim is a conditional UPDATE of the job's row, so a job is analysed once
even with several processes, and a job whose process died (its heartbeat
went stale) is taken again.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``analyses``."""
    op.create_table(
        "analyses",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("level", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("progress", sa.Float(), nullable=False),
        sa.Column("requested_by", sa.Integer(), nullable=True),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("claimed_by", sa.String(length=64), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.String(length=500), nullable=True),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name="fk_analyses_table_id_tables"),
        sa.ForeignKeyConstraint(["requested_by"], ["users.id"], name="fk_analyses_requested_by_users"),
        sa.PrimaryKeyConstraint("table_id", name="pk_analyses"),
    )
    op.create_index("ix_analyses_status", "analyses", ["status"], unique=False)


def downgrade() -> None:
    """Drop it."""
    op.drop_index("ix_analyses_status", table_name="analyses")
    op.drop_table("analyses")
