"""Server processes and table owners: any live process serves the clocks and bots of one that died.

Until now a move clock and a computer player's turn lived only in the memory
of the process that made the table's last change: kill that process and the
deadline never fired, the bot never moved. Each process now writes a
heartbeat row (``server_processes``), each table records the process that
serves it (``tables.owner``, written by the same UPDATE that appends its
events), and the processes sweep for running tables needing attention whose
owner stopped answering. The partial index holds exactly those tables, so
the sweep reads a handful of index entries however many tables exist.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ATTENTION = "status = 'playing' AND (deadline_at IS NOT NULL OR bot_seat IS NOT NULL)"
"""The tables some process must serve (``nardy.store.models.ATTENTION``)."""


def upgrade() -> None:
    """Create ``server_processes``, add ``tables.owner`` and the sweep's partial index."""
    op.create_table(
        "server_processes",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_server_processes"),
    )
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("owner", sa.String(length=64), nullable=True))
    where = sa.text(ATTENTION)
    op.create_index(
        "ix_tables_attention", "tables", ["status", "owner"], unique=False, sqlite_where=where, postgresql_where=where,
    )


def downgrade() -> None:
    """Drop them."""
    op.drop_index("ix_tables_attention", table_name="tables")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("owner")
    op.drop_table("server_processes")
