"""Ratings (004): current ratings per variant family, their history, and the seats' client addresses.

Follows :class:`nardy.store.models.Rating`, :class:`~nardy.store.models.RatingChange`
and the new ``tables.player0_ip`` / ``tables.player1_ip`` columns (the address
each seat joined from, used only to refuse rating a match between two seats
on one connection). Constraints are named as in ``0001``.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``ratings`` and ``rating_changes``; add the seat address columns to ``tables``."""
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("family", sa.String(16), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("experience", sa.Integer(), nullable=False),
        sa.Column("matches", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "family", name="pk_ratings"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_ratings_user_id_users", ondelete="CASCADE"),
    )
    op.create_table(
        "rating_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("family", sa.String(16), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=True),
        sa.Column("before", sa.Float(), nullable=False),
        sa.Column("after", sa.Float(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_rating_changes"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_rating_changes_table_id_tables", ondelete="SET NULL"
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_rating_changes_user_id_users", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_rating_changes_user_family", "rating_changes", ["user_id", "family"])
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("player0_ip", sa.String(64), nullable=True))
        batch.add_column(sa.Column("player1_ip", sa.String(64), nullable=True))


def downgrade() -> None:
    """Drop what :func:`upgrade` added, children before parents."""
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("player1_ip")
        batch.drop_column("player0_ip")
    op.drop_index("ix_rating_changes_user_family", table_name="rating_changes")
    op.drop_table("rating_changes")
    op.drop_table("ratings")
