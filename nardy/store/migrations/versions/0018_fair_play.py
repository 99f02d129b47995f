"""Fair play: ``analyses.priority``, ``fair_play_games`` and ``fair_play_flags``.

Every finished rated match is analysed in the background, behind the
analyses users ask for (``priority``); each player's figures from it
(``fair_play_games``) feed the detector, whose findings wait for a moderator
(``fair_play_flags``).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | Sequence[str] | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Add the column (every existing analysis was a user's) and the two tables."""
    op.add_column("analyses", sa.Column("priority", sa.Integer(), nullable=False, server_default="10"))
    op.create_table(
        "fair_play_games",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(length=32), nullable=False),
        sa.Column("level", sa.String(length=16), nullable=False),
        sa.Column("counted", sa.Integer(), nullable=False),
        sa.Column("total_loss", sa.Float(), nullable=False),
        sa.Column("unforced_moves", sa.Integer(), nullable=False),
        sa.Column("best_moves", sa.Integer(), nullable=False),
        sa.Column("played_at", _TIME, nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name="fk_fair_play_games_table_id_tables",
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_fair_play_games_user_id_users", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("table_id", "user_id", name="pk_fair_play_games"),
    )
    op.create_index("ix_fair_play_games_user_variant", "fair_play_games", ["user_id", "variant", "played_at"])
    op.create_table(
        "fair_play_flags",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(length=32), nullable=False),
        sa.Column("statistic", sa.String(length=32), nullable=False),
        sa.Column("value", sa.Float(), nullable=False),
        sa.Column("threshold", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("evidence", sa.JSON(), nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("reviewed_at", _TIME, nullable=True),
        sa.Column("reviewed_by", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_fair_play_flags_user_id_users", ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["reviewed_by"], ["users.id"], name="fk_fair_play_flags_reviewed_by_users",
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name="pk_fair_play_flags"),
    )
    op.create_index("ix_fair_play_flags_user_id", "fair_play_flags", ["user_id"])


def downgrade() -> None:
    """Drop them."""
    op.drop_index("ix_fair_play_flags_user_id", table_name="fair_play_flags")
    op.drop_table("fair_play_flags")
    op.drop_index("ix_fair_play_games_user_variant", table_name="fair_play_games")
    op.drop_table("fair_play_games")
    with op.batch_alter_table("analyses") as batch:
        batch.drop_column("priority")
