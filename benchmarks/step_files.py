"""Which server modules one checker step passes through: a measure of how spread out a table's work is.

Run in the root of the checkout to measure (this one, or one as old as 2e545fb, whose test driver it
finds too)::

    python -m benchmarks.step_files
    cd /tmp/before && PYTHONPATH=. python /path/to/nardy/benchmarks/step_files.py

Two players sit at a backgammon table through the real app in process
(the test suite's driver, scripted dice); the first legal ``step`` of the
opening is sent over the WebSocket, and every function called in any
thread from the moment it is sent until its ack and the other player's
update have come back is traced. Printed: the number of modules under
``nardy/server`` that ran, and their names.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from pathlib import Path
from types import FrameType
from typing import Any

SERVER = str(Path.cwd() / "nardy" / "server")
_recording = False
_seen: set[str] = set()


def _note(frame: FrameType, event: str, arg: Any) -> None:
    if _recording and event == "call" and frame.f_code.co_filename.startswith(SERVER):
        _seen.add(os.path.relpath(frame.f_code.co_filename, SERVER))


def main() -> None:
    global _recording
    from fastapi.testclient import TestClient

    from nardy.server.app import create_app
    from nardy.server.services.dice import ScriptedDice
    from nardy.server.settings import Settings
    try:
        from tests.server.game_server import GameServer as Driver
    except ImportError:  # the test driver before the table redesign lived in the server tests' conftest
        sys.path.insert(0, "tests/server")
        from conftest import Server as Driver  # type: ignore[import-not-found,no-redef]

    threading.setprofile(_note)
    sys.setprofile(_note)
    data = Path(tempfile.mkdtemp())
    settings = Settings(environment="testing", data_dir=data, messages_per_second=10_000.0, message_burst=10_000)
    app = create_app(settings, dice=ScriptedDice())
    client = TestClient(app)
    client.__enter__()
    server = Driver(client, app.state.dice, data)
    first, second = server.player(), server.player()
    server.dice.push((5, 3))
    table = server.create(first, "backgammon")["table"]
    server.join(second, table)
    for player in (first, second):
        player.subscribe(table)
    state = first.states[table]
    mover, other = (first, second) if state["actor"] == 0 else (second, first)
    legal = state["game"]["legal"]
    step = (legal["steps"] if isinstance(legal, dict) else legal)[0]
    _recording = True
    mover.act("step", table, source=step["source"], die=step["die"])
    other.recv()
    _recording = False
    print(len(_seen))
    for name in sorted(_seen):
        print(f"  {name}")
    sys.stdout.flush()
    os._exit(0)  # the app's threads need no orderly end for a count


if __name__ == "__main__":
    main()
