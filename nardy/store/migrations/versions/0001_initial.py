"""Initial schema: users, login sessions, tables, their event logs, finished games and dice seeds.

Mirrors :mod:`nardy.store.models` as first written. Every constraint is
named (``pk_<table>``, ``fk_<table>_<column>_<referred table>``,
``uq_<table>_<column>``, ``ix_<table>_<column>``, or the name the model
gives) so that a later migration can drop or alter it by name, which SQLite's
batch mode needs.

Revision ID: 0001
Revises:
Create Date: 2025-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create every table of the first schema."""
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(32), nullable=False),
        sa.Column("password_hash", sa.String(200), nullable=True),
        sa.Column("is_guest", sa.Boolean(), nullable=False),
        sa.Column("language", sa.String(8), nullable=False),
        sa.Column("preferences", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
        sa.UniqueConstraint("username", name="uq_users_username"),
    )

    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("csrf_token", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("token_hash", name="pk_sessions"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_sessions_user_id_users", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])

    op.create_table(
        "tables",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("match_length", sa.Integer(), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("move_seconds", sa.Integer(), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("private", sa.Boolean(), nullable=False),
        sa.Column("invite_token", sa.String(64), nullable=True),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("player0_id", sa.Integer(), nullable=True),
        sa.Column("player1_id", sa.Integer(), nullable=True),
        sa.Column("bot_seat", sa.Integer(), nullable=True),
        sa.Column("bot_level", sa.String(16), nullable=True),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("score", sa.JSON(), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("rematch_of", sa.String(32), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_tables"),
        sa.UniqueConstraint("invite_token", name="uq_tables_invite_token"),
        sa.ForeignKeyConstraint(["created_by"], ["users.id"], name="fk_tables_created_by_users"),
        sa.ForeignKeyConstraint(["player0_id"], ["users.id"], name="fk_tables_player0_id_users"),
        sa.ForeignKeyConstraint(["player1_id"], ["users.id"], name="fk_tables_player1_id_users"),
    )
    op.create_index("ix_tables_status", "tables", ["status"])
    op.create_index("ix_tables_player0_id", "tables", ["player0_id"])
    op.create_index("ix_tables_player1_id", "tables", ["player1_id"])

    op.create_table(
        "table_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("action_id", sa.String(64), nullable=True),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_table_events"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_table_events_table_id_tables", ondelete="CASCADE"
        ),
        sa.UniqueConstraint("table_id", "version", name="uq_table_event_version"),
        sa.UniqueConstraint("table_id", "action_id", name="uq_table_event_action"),
    )
    op.create_index("ix_table_events_table_version", "table_events", ["table_id", "version"])

    op.create_table(
        "finished_games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("white_id", sa.Integer(), nullable=True),
        sa.Column("black_id", sa.Integer(), nullable=True),
        sa.Column("winner_colour", sa.String(8), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_finished_games"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_finished_games_table_id_tables", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(["white_id"], ["users.id"], name="fk_finished_games_white_id_users"),
        sa.ForeignKeyConstraint(["black_id"], ["users.id"], name="fk_finished_games_black_id_users"),
        sa.UniqueConstraint("table_id", "number", name="uq_finished_game"),
    )
    op.create_index("ix_finished_games_table_id", "finished_games", ["table_id"])
    op.create_index("ix_finished_games_variant", "finished_games", ["variant"])

    op.create_table(
        "game_seeds",
        sa.Column("table_id", sa.String(32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "number", name="pk_game_seeds"),
        sa.ForeignKeyConstraint(
            ["table_id"], ["tables.id"], name="fk_game_seeds_table_id_tables", ondelete="CASCADE"
        ),
    )


def downgrade() -> None:
    """Drop every table, children before parents."""
    op.drop_table("game_seeds")
    op.drop_table("finished_games")
    op.drop_table("table_events")
    op.drop_table("tables")
    op.drop_table("sessions")
    op.drop_table("users")
