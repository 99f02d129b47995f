"""The analysis backlog of a level (``--analysis-backlog LABEL=N``): rated matches played before the window, so
that the server's analysis workers are busy while the live games are measured, and what they finished when.

Once the level's players are seated, and before their warm-up, accounts at :data:`SEED_TABLES` rated tables
play ``N`` one-point backgammon matches through the server's own API and WebSockets, as people do, with
uniformly random legal plays and no think time (:meth:`benchmarks.load.client.Client.play_until`). Each match
that ends writes its ratings and queues its background fair-play analysis (unless
``NARDY_FAIR_PLAY_ANALYSIS=false``), which the server's pool of niced worker processes
(``NARDY_ANALYSIS_WORKERS``) starts on at once. A server compared without a backlog plays the same live
games with its workers idle (the load's guests play unrated, which queues nothing).

After the window, the level's database says when each analysis ended
(:func:`nardy.store.analyses_repo.table_jobs`): how many before, in and after the window. The workers
were busy for the whole window only where some of the backlog was still unfinished at its end.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from benchmarks.load.client import Client
from benchmarks.load.measurements import AnalysisBacklog
from benchmarks.load.players import ClientConfig

SEED_VARIANT = "backgammon"
SEED_TABLES = 8
"""Matches played at once: enough to keep the server's event loop, not the client, the bound."""
SEED_SECONDS_PER_MATCH = 3.0
"""The most a match may take to play, on average, before the seeding is given up as stuck (on two shared cores
one took 0.3–0.7 s, :data:`SEED_TABLES` at a time)."""
SEED_SETUP_SECONDS = 60.0
"""The most the accounts, tables and sockets may take to set up."""


@dataclass(frozen=True)
class Seeded:
    """The matches played for the backlog, how long they took and how many actions they needed."""

    matches: int
    seconds: float
    actions: int


def seed_budget(matches: int) -> float:
    """The most seconds playing ``matches`` may take (the run's alarm counts it)."""
    return SEED_SETUP_SECONDS + 30 + SEED_SECONDS_PER_MATCH * matches if matches else 0.0


def play_backlog(url: str, matches: int, seed: int) -> Seeded:
    """Play ``matches`` rated one-point matches on the server at ``url``; RuntimeError if one goes wrong."""
    config = ClientConfig(index=0, url=url, variants=[SEED_VARIANT] * min(SEED_TABLES, matches),
                          opponents=[None] * min(SEED_TABLES, matches), think=0.0, seed=seed, compression=False,
                          setup_timeout=SEED_SETUP_SECONDS, rated=True)

    async def play() -> Seeded:
        client = Client(config)
        started = time.monotonic()
        try:
            await asyncio.wait_for(client.setup(), config.setup_timeout)
            await asyncio.wait_for(client.play_until(matches), seed_budget(matches) - config.setup_timeout)
        finally:
            await client.close()
        return Seeded(client.result.games_finished, time.monotonic() - started, client.sequence)

    return asyncio.run(play())


def analyses_measured(seeded: Seeded, database_url: str) -> AnalysisBacklog:
    """What the level's workers made of the backlog: when each analysis ended, read from its database."""
    from nardy.store import analyses_repo
    from nardy.store.db import make_engine, make_sessionmaker

    engine = make_engine(database_url)
    try:
        with make_sessionmaker(engine)() as session:
            jobs = analyses_repo.table_jobs(session)
    finally:
        engine.dispose()
    return AnalysisBacklog(matches=seeded.matches, seconds=seeded.seconds, actions=seeded.actions, queued=len(jobs),
                           finished=[moment.timestamp() for status, moment in jobs
                                     if status == "done" and moment is not None],
                           failed=sum(status == "failed" for status, _ in jobs))
