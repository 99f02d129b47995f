"""Worker processes of the server that serve no requests: ``nardy worker analysis`` starts them.

Like ``python -m nardy.server``, an entry point: it reads the settings,
checks the database and hands over to the service
(:mod:`nardy.server.services.analysis_worker`).
"""

from __future__ import annotations

import logging
from typing import TextIO

from nardy.server.services.analysis_worker import run_workers
from nardy.server.settings import Settings
from nardy.store.db import make_engine
from nardy.store.migrate import current_revision, head_revision


class NotMigrated(RuntimeError):
    """The database is not at the schema's head revision: a server migrates it as it starts."""


def analysis_workers(
    out: TextIO, *, database_url: str | None, processes: int, stale_seconds: float, poll_seconds: float,
) -> None:
    """Run ``processes`` analysis worker processes on ``database_url`` (the settings' by default) until
    interrupted; NotMigrated when the database is not at head."""
    url = database_url or Settings().resolved_database_url
    engine = make_engine(url)
    try:
        revision = current_revision(engine)
        shown = engine.url.render_as_string(hide_password=True)
    finally:
        engine.dispose()
    if revision != head_revision():
        raise NotMigrated(f"the database is at revision {revision}, not {head_revision()}: start the server "
                          "(it migrates) or run `python -m nardy.store.migrate upgrade --url URL` first")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(processName)s %(levelname)s %(message)s")
    print(f"analysis workers: {processes}, claiming from {shown}", file=out, flush=True)
    run_workers(url, processes=processes, stale_seconds=stale_seconds, poll_seconds=poll_seconds)
