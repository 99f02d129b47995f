"""Tournaments: ``tournaments``, their ``tournament_entries`` and the ``tournament_pairings`` of each round.

A pairing's match is an ordinary table (``table_id``), so clocks, bots,
replays and exports work as for any table (``docs/tournaments.md``).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-03
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    """Create the three tables."""
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("season", sa.String(length=40), nullable=True),
        sa.Column("format", sa.String(length=16), nullable=False),
        sa.Column("start_kind", sa.String(length=16), nullable=False),
        sa.Column("variant", sa.String(length=32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("rounds_settings", sa.JSON(), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("max_players", sa.Integer(), nullable=False),
        sa.Column("min_players", sa.Integer(), nullable=False),
        sa.Column("registration_opens_at", _TIME, nullable=True),
        sa.Column("starts_at", _TIME, nullable=True),
        sa.Column("bots_fill", sa.Boolean(), nullable=False),
        sa.Column("bot_level", sa.String(length=16), nullable=True),
        sa.Column("fill_after_seconds", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("current_round", sa.Integer(), nullable=False),
        sa.Column("created_by", sa.Integer(), nullable=True),
        sa.Column("created_at", _TIME, nullable=False),
        sa.Column("started_at", _TIME, nullable=True),
        sa.Column("finished_at", _TIME, nullable=True),
        sa.Column("standings", sa.JSON(), nullable=True),
        sa.Column("lease_owner", sa.String(length=64), nullable=True),
        sa.Column("lease_until", _TIME, nullable=True),
        sa.ForeignKeyConstraint(["created_by"], ["users.id"], name="fk_tournaments_created_by_users"),
        sa.PrimaryKeyConstraint("id", name="pk_tournaments"),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status"], unique=False)
    op.create_table(
        "tournament_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=True),
        sa.Column("bot_level", sa.String(length=16), nullable=True),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.Column("registered_at", _TIME, nullable=False),
        sa.Column("withdrawn_at", _TIME, nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"], name="fk_tournament_entries_tournament_id_tournaments",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_tournament_entries_user_id_users"),
        sa.PrimaryKeyConstraint("id", name="pk_tournament_entries"),
        sa.UniqueConstraint("tournament_id", "user_id", name="uq_tournament_entry_user"),
    )
    op.create_index(
        "ix_tournament_entries_tournament_id", "tournament_entries", ["tournament_id"], unique=False,
    )
    op.create_table(
        "tournament_pairings",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tournament_id", sa.String(length=32), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("entry_a", sa.Integer(), nullable=False),
        sa.Column("entry_b", sa.Integer(), nullable=True),
        sa.Column("table_id", sa.String(length=32), nullable=True),
        sa.Column("winner", sa.Integer(), nullable=True),
        sa.Column("result", sa.String(length=16), nullable=True),
        sa.Column("finished_at", _TIME, nullable=True),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"], name="fk_tournament_pairings_tournament_id_tournaments",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["entry_a"], ["tournament_entries.id"], name="fk_tournament_pairings_entry_a_tournament_entries",
        ),
        sa.ForeignKeyConstraint(
            ["entry_b"], ["tournament_entries.id"], name="fk_tournament_pairings_entry_b_tournament_entries",
        ),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name="fk_tournament_pairings_table_id_tables"),
        sa.PrimaryKeyConstraint("id", name="pk_tournament_pairings"),
        sa.UniqueConstraint("tournament_id", "round", "board", name="uq_tournament_pairing_board"),
    )
    op.create_index(
        "ix_tournament_pairings_tournament_id", "tournament_pairings", ["tournament_id"], unique=False,
    )
    op.create_index("ix_tournament_pairings_table_id", "tournament_pairings", ["table_id"], unique=False)


def downgrade() -> None:
    """Drop them."""
    op.drop_index("ix_tournament_pairings_table_id", table_name="tournament_pairings")
    op.drop_index("ix_tournament_pairings_tournament_id", table_name="tournament_pairings")
    op.drop_table("tournament_pairings")
    op.drop_index("ix_tournament_entries_tournament_id", table_name="tournament_entries")
    op.drop_table("tournament_entries")
    op.drop_index("ix_tournaments_status", table_name="tournaments")
    op.drop_table("tournaments")
