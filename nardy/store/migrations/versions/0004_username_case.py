"""Usernames unique in any letter case: a unique index on ``lower(username)``.

Until now only the service's lookup before the write kept "Bob" from joining
"bob"; two sign-ups racing could both pass it. The index makes the database
refuse the second, which the service reports as "taken". Both SQLite and
PostgreSQL index the expression.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``uq_users_username_lower``."""
    op.create_index("uq_users_username_lower", "users", [sa.text("lower(username)")], unique=True)


def downgrade() -> None:
    """Drop it."""
    op.drop_index("uq_users_username_lower", table_name="users")
