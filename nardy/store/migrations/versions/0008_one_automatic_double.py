"""At most one automatic double per game (seed 000: «лишь одно автоматическое удвоение за партию»).

The API used to accept up to six automatic doubles, which 000 does not
allow, and the rules now refuse more than one. Tables stored with more are
set to one, so that they load again; a game of such a table in which the
opening tied more than once replays with a cube of 2 where 4 or more was
shown at the time.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TABLES = sa.table("tables", sa.column("id", sa.String), sa.column("options", sa.JSON))


def upgrade() -> None:
    """Set ``automatic_doubles`` above one to one in every stored table's options."""
    connection = op.get_bind()
    for table_id, options in connection.execute(sa.select(_TABLES.c.id, _TABLES.c.options)).all():
        stored = json.loads(options) if isinstance(options, str) else dict(options or {})
        if int(stored.get("automatic_doubles", 0)) > 1:
            stored["automatic_doubles"] = 1
            connection.execute(_TABLES.update().where(_TABLES.c.id == table_id).values(options=stored))


def downgrade() -> None:
    """Nothing to undo: the number of automatic doubles each table had is not kept."""
