"""Account life: ``users.email``, ``users.email_verified``, ``users.deleted_at`` and ``account_tokens``.

An optional e-mail address per account, for password resets once verified;
the single-use links mailed for both (their SHA-256 only); and the time an
account was deleted (its row stays, renamed, so its games keep a player).

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Add the columns, the index on ``lower(email)`` and the tokens' table."""
    op.add_column("users", sa.Column("email", sa.String(length=254), nullable=True))
    op.add_column("users", sa.Column("email_verified", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("users", sa.Column("deleted_at", _TIME, nullable=True))
    op.create_index("ix_users_email_lower", "users", [sa.text("lower(email)")])
    op.create_table(
        "account_tokens",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("purpose", sa.String(length=16), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=True),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("expires_at", _TIME, nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_account_tokens_user_id_users", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("token_hash", name="pk_account_tokens"),
    )
    op.create_index("ix_account_tokens_user_id", "account_tokens", ["user_id"])


def downgrade() -> None:
    """Drop them; SQLite's batch copy of ``users`` loses its expression index, which is made again."""
    op.drop_index("ix_account_tokens_user_id", table_name="account_tokens")
    op.drop_table("account_tokens")
    op.drop_index("ix_users_email_lower", table_name="users")
    op.drop_index("uq_users_username_lower", table_name="users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("deleted_at")
        batch.drop_column("email_verified")
        batch.drop_column("email")
    op.create_index("uq_users_username_lower", "users", [sa.text("lower(username)")], unique=True)
