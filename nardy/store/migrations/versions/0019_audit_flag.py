"""The audit log names the fair-play flag a ``review_fair_play`` entry reviewed: ``moderation_actions.flag_id``.

Entries written before have none (null), like every entry of another action.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | Sequence[str] | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the column, pointing at the flag (null when the flag is gone, as a report's reference is)."""
    with op.batch_alter_table("moderation_actions") as batch:
        batch.add_column(sa.Column("flag_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(
            "fk_moderation_actions_flag_id_fair_play_flags", "fair_play_flags", ["flag_id"], ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    """Drop it."""
    with op.batch_alter_table("moderation_actions") as batch:
        batch.drop_constraint("fk_moderation_actions_flag_id_fair_play_flags", type_="foreignkey")
        batch.drop_column("flag_id")
