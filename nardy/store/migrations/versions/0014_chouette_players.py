"""``chouette_players``: who has sat at each chouette, so that a player's own list of games holds their chouettes.

A chouette's players are in no seat column of ``tables``; only its summary
JSON named them, which no index can search. Every chouette already stored
gets a row for each player its summary lists now (who left before this
migration is not known from the summary and gets none).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-04
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TABLES = sa.table("tables", sa.column("id", sa.String), sa.column("kind", sa.String), sa.column("score", sa.JSON))


def upgrade() -> None:
    """Create the table and fill it from the chouettes' summaries."""
    players = op.create_table(
        "chouette_players",
        sa.Column("table_id", sa.String(length=32), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name="fk_chouette_players_table_id_tables",
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], name="fk_chouette_players_user_id_users",
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("table_id", "user_id", name="pk_chouette_players"),
    )
    op.create_index("ix_chouette_players_user_id", "chouette_players", ["user_id"])
    connection = op.get_bind()
    rows: list[dict[str, object]] = []
    chouettes = sa.select(_TABLES.c.id, _TABLES.c.score).where(_TABLES.c.kind == "chouette")
    for table_id, score in connection.execute(chouettes):
        summary = json.loads(score) if isinstance(score, str) else dict(score or {})
        users = {player["user_id"] for player in summary.get("players", []) if player.get("user_id") is not None}
        rows.extend({"table_id": table_id, "user_id": user} for user in sorted(users))
    if rows:
        op.bulk_insert(players, rows)


def downgrade() -> None:
    """Drop the table."""
    op.drop_index("ix_chouette_players_user_id", table_name="chouette_players")
    op.drop_table("chouette_players")
