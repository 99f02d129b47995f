"""Bank clocks, when a table last changed, and no more client addresses.

* ``tables.delay_seconds`` and ``tables.bank_seconds_per_point``: the bank
  clock (a delay per decision, then a time bank per match point) that rated
  tables now need.
* ``tables.active_at``: when the table's last event was appended, so that an
  untimed game against the computer left alone for long can be found and
  ended. Stored tables get the time of their last event (or their creation).
* ``tables.player0_ip`` and ``tables.player1_ip`` go: two seats joining from
  one address no longer makes a match unrated, so the addresses are not kept.
* The matchmaking pool's entries now name a bank clock instead of seconds
  per move; the players waiting at the upgrade are let go (they find
  themselves idle and queue again).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TABLES = sa.table("tables", sa.column("id", sa.String), sa.column("created_at"), sa.column("active_at"))
_EVENTS = sa.table("table_events", sa.column("table_id", sa.String), sa.column("created_at"))
_POOL = sa.table("matchmaking", sa.column("version", sa.Integer), sa.column("state", sa.JSON))


def upgrade() -> None:
    """Add the clock and activity columns, fill ``active_at``, drop the addresses, empty the pool."""
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("delay_seconds", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("bank_seconds_per_point", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("active_at", sa.DateTime(timezone=True), nullable=True))
        batch.drop_column("player0_ip")
        batch.drop_column("player1_ip")
    last_event = (
        sa.select(sa.func.max(_EVENTS.c.created_at)).where(_EVENTS.c.table_id == _TABLES.c.id).scalar_subquery()
    )
    op.execute(_TABLES.update().values(active_at=sa.func.coalesce(last_event, _TABLES.c.created_at)))
    op.execute(_POOL.update().values(version=_POOL.c.version + 1, state={}))


def downgrade() -> None:
    """Take the new columns away and bring the (empty) address columns back."""
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("player0_ip", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("player1_ip", sa.String(length=64), nullable=True))
        batch.drop_column("active_at")
        batch.drop_column("bank_seconds_per_point")
        batch.drop_column("delay_seconds")
