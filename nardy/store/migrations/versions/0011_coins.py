"""Virtual coins: ``coin_accounts``, ``coin_movements``, ``coin_holds`` and ``tables.stake``.

Coins are not money (seed 002): a balance per account, a ledger of every
change, the coins each player has set aside at each coin table, and each
table's stake per match point (0 for the tables that existed before).

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create the coin tables and add ``tables.stake``."""
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("stake", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "coin_accounts",
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("balance", sa.Integer(), nullable=False),
        sa.Column("held", sa.Integer(), nullable=False),
        sa.Column("topped_up_on", sa.String(length=10), nullable=False),
        sa.CheckConstraint("held >= 0 AND balance >= held", name="ck_coin_accounts_held_covered"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_coin_accounts_user_id_users", ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", name="pk_coin_accounts"),
    )
    op.create_table(
        "coin_movements",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("amount", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(length=16), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=True),
        sa.Column("balance_after", sa.Integer(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_coin_movements_user_id_users", ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_coin_movements_table_id_tables", ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_coin_movements"),
    )
    op.create_index("ix_coin_movements_user", "coin_movements", ["user_id", "id"], unique=False)
    op.create_table(
        "coin_holds",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("amount", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_coin_holds_table_id_tables", ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_coin_holds_user_id_users", ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("table_id", "user_id", name="pk_coin_holds"),
    )


def downgrade() -> None:
    """Drop them."""
    op.drop_table("coin_holds")
    op.drop_index("ix_coin_movements_user", table_name="coin_movements")
    op.drop_table("coin_movements")
    op.drop_table("coin_accounts")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("stake")
