"""Moderation: roles, blocks, reports, the audit log, sign-in addresses (``docs/moderation.md``).

``users.moderator`` and ``users.engine_assisted``; ``rating_changes.reason``
(a restored result against an engine-assisted opponent); the tables
``user_blocks``, ``reports``, ``moderation_actions`` (the append-only audit
log) and ``login_addresses``.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = sa.DateTime(timezone=True)


def _user(column: str, table: str, ondelete: str, *, nullable: bool) -> list[sa.schema.SchemaItem]:
    return [
        sa.Column(column, sa.Integer(), nullable=nullable),
        sa.ForeignKeyConstraint([column], ["users.id"], name=f"fk_{table}_{column}_users", ondelete=ondelete),
    ]


def upgrade() -> None:
    """Add the columns and the four tables."""
    op.add_column("users", sa.Column("moderator", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("users", sa.Column("engine_assisted", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.add_column("rating_changes", sa.Column("reason", sa.String(length=16), nullable=True))
    op.create_table(
        "user_blocks",
        *_user("blocker_id", "user_blocks", "CASCADE", nullable=False),
        *_user("blocked_id", "user_blocks", "CASCADE", nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("blocker_id", "blocked_id", name="pk_user_blocks"),
    )
    op.create_index("ix_user_blocks_blocked_id", "user_blocks", ["blocked_id"])
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer(), nullable=False),
        *_user("reporter_id", "reports", "SET NULL", nullable=True),
        *_user("reported_id", "reports", "CASCADE", nullable=False),
        sa.Column("category", sa.String(length=16), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("table_id", sa.String(length=32), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", _TIME, nullable=False),
        *_user("closed_by", "reports", "SET NULL", nullable=True),
        sa.Column("closed_at", _TIME, nullable=True),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name="fk_reports_table_id_tables", ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name="pk_reports"),
    )
    op.create_index("ix_reports_status_id", "reports", ["status", "id"])
    op.create_index("ix_reports_reported_id", "reports", ["reported_id"])
    op.create_index("ix_reports_reporter_id", "reports", ["reporter_id"])
    op.create_table(
        "moderation_actions",
        sa.Column("id", sa.Integer(), nullable=False),
        *_user("moderator_id", "moderation_actions", "SET NULL", nullable=True),
        *_user("target_id", "moderation_actions", "CASCADE", nullable=False),
        sa.Column("action", sa.String(length=16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("until", _TIME, nullable=True),
        sa.Column("report_id", sa.Integer(), nullable=True),
        sa.Column("created_at", _TIME, nullable=False),
        sa.ForeignKeyConstraint(
            ["report_id"], ["reports.id"], name="fk_moderation_actions_report_id_reports", ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_moderation_actions"),
    )
    op.create_index("ix_moderation_actions_target", "moderation_actions", ["target_id", "id"])
    op.create_table(
        "login_addresses",
        *_user("user_id", "login_addresses", "CASCADE", nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("first_seen", _TIME, nullable=False),
        sa.Column("last_seen", _TIME, nullable=False),
        sa.PrimaryKeyConstraint("user_id", "address", name="pk_login_addresses"),
    )
    op.create_index("ix_login_addresses_address", "login_addresses", ["address"])


def downgrade() -> None:
    """Drop the tables and the columns; SQLite's batch copy of ``users`` loses its expression indexes, made again."""
    op.drop_table("login_addresses")
    op.drop_table("moderation_actions")
    op.drop_table("reports")
    op.drop_table("user_blocks")
    with op.batch_alter_table("rating_changes") as batch:
        batch.drop_column("reason")
    op.drop_index("ix_users_email_lower", table_name="users")
    op.drop_index("uq_users_username_lower", table_name="users")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("engine_assisted")
        batch.drop_column("moderator")
    op.create_index("uq_users_username_lower", "users", [sa.text("lower(username)")], unique=True)
    op.create_index("ix_users_email_lower", "users", [sa.text("lower(email)")])
