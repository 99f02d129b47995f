"""CPU per append of one event on SQLite: through an ORM session, and as the grouped writer does it.

Run::

    python -m benchmarks.appends [--tables 400] [--appends 4000] [--pace-ms 0 4] [--rounds 2]

A fresh database (the project's migrations, the server's pragmas) with
``--tables`` playing tables, each given 50 events first. Then, per round,
per pace and per way, ``--appends`` appends of one event (a step's payload)
to a random table, each committed on its own, and the CPU time of this
thread per append:

- ``session``: :func:`nardy.store.tables_repo.append` in an ORM session
  from the pool, as the server writes an append that carries other rows;
- ``core``: the same two statements executed by SQLAlchemy on a
  connection kept throughout, then its commit, as the grouped writer wrote
  a batch of one before the driver path (1b12e7f and earlier);
- ``driver``: :func:`nardy.store.tables_repo.append_uncommitted` on the
  driver's cursor of one connection kept throughout, then its commit, as
  the grouped writer (:mod:`nardy.server.services.group_commit`) writes a
  batch of one.

``--pace-ms`` sleeps that long between appends: the server's writer thread
wakes for each batch, and a write after a sleep costs more CPU than one
straight after another (cold caches), which the back-to-back figure hides.
Medians over the rounds are printed with the ratio driver / core.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import Engine, insert

from nardy.store import tables_repo
from nardy.store.db import make_engine, make_sessionmaker
from nardy.store.migrate import upgrade
from nardy.store.models import GameTable
from nardy.store.tables_repo import StoredEvent

PAYLOAD = {"source": 13, "die": 5, "steps": [[13, 8]], "text": "13/8"}
PREFILL = 50
WAYS = ("session", "core", "driver")


class Appender:
    """The tables of a fresh database and their versions, appended to one event at a time."""

    def __init__(self, engine: Engine, tables: int, seed: int = 1) -> None:
        self.engine = engine
        self.ids = [f"table-{i:05d}" for i in range(tables)]
        self.versions = dict.fromkeys(self.ids, 0)
        self.random = random.Random(seed)
        self.sessions = make_sessionmaker(engine)
        self.connection = engine.raw_connection()
        self.core_connection = engine.connect()
        now = datetime.now(UTC)
        with engine.begin() as connection:
            connection.execute(insert(GameTable.__table__), [
                {"id": i, "kind": "match", "variant": "backgammon", "match_length": 1, "options": {},
                 "rated": False, "private": False, "status": "playing", "version": 0, "stake": 0, "created_at": now}
                for i in self.ids
            ])

    def _next(self) -> tuple[str, int, list[StoredEvent]]:
        table_id = self.random.choice(self.ids)
        version = self.versions[table_id]
        self.versions[table_id] = version + 1
        return table_id, version, [StoredEvent(version + 1, "stepped", 0, PAYLOAD, datetime.now(UTC), f"a{version}")]

    def session(self) -> None:
        table_id, version, events = self._next()
        with self.sessions() as db:
            tables_repo.append(db, table_id=table_id, expected_version=version, events=events, summary={}, owner="p")

    def core(self) -> None:
        table_id, version, events = self._next()
        tables_repo.write_append(self.core_connection, table_id, version, events, {}, "p")
        self.core_connection.commit()

    def driver(self) -> None:
        table_id, version, events = self._next()
        tables_repo.append_uncommitted(self.connection.cursor(), self.engine.dialect, table_id=table_id,
                                       expected_version=version, events=events, summary={}, owner="p")
        self.connection.commit()


def cpu_per_call(call: Callable[[], None], count: int, pace: float) -> float:
    """Microseconds of this thread's CPU per call of ``call``, sleeping ``pace`` seconds between calls."""
    spent = 0.0
    for _ in range(count):
        started = time.thread_time()
        call()
        spent += time.thread_time() - started
        if pace:
            time.sleep(pace)
    return spent / count * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tables", type=int, default=400)
    parser.add_argument("--appends", type=int, default=4000)
    parser.add_argument("--pace-ms", type=float, nargs="+", default=[0.0, 4.0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        engine = make_engine(f"sqlite:///{Path(directory) / 'appends.db'}")
        upgrade(engine)
        appender = Appender(engine, args.tables)
        for _ in range(PREFILL * args.tables):
            appender.driver()
        results: dict[tuple[float, str], list[float]] = {}
        for _ in range(args.rounds):
            for pace in args.pace_ms:
                for way in WAYS:
                    cost = cpu_per_call(getattr(appender, way), args.appends, pace / 1000)
                    results.setdefault((pace, way), []).append(cost)
        appender.connection.close()
        appender.core_connection.close()
        engine.dispose()
    print("| pause between appends | session µs CPU/append | core µs CPU/append | driver µs CPU/append "
          "| driver / core |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for pace in args.pace_ms:
        session, core, driver = (statistics.median(results[pace, way]) for way in WAYS)
        print(f"| {pace:g} ms | {session:.0f} | {core:.0f} | {driver:.0f} | {driver / core:.2f} |")


if __name__ == "__main__":
    main()
