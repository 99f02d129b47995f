"""Helpers for the browser tests: a real server process with scripted dice, and a WebSocket driver.

:class:`WebServer` runs ``python -m nardy.server`` (:mod:`tests.server_process`) in testing mode with
``NARDY_SCRIPTED_DICE=1`` on a free port and a temporary data folder, so the
tests can queue dice with ``POST /api/testing/dice``.

:class:`Driver` plays one seat of a table over the WebSocket with the cookies
of a browser context, so a test can play most of a game quickly and leave the
last turns and the end screen to clicks in the browser. It chooses its plays
with :mod:`nardy.rules` from the state views (the test may know the rules; the
page never does): the play leaving the fewest pips.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import ClientConnection, connect

from nardy.notation import position_from_dict
from nardy.server.ws.view_changes import apply_changes
from tests.migrated_sqlite import provide_migrated_sqlite
from tests.server_process import ServerProcess, start_server

REPO_ROOT = Path(__file__).resolve().parents[2]
Json = dict[str, Any]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class WebServer:
    """One server process in testing mode with scripted dice."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self.port = free_port()
        self.process: ServerProcess | None = None
        self.log_path = data_dir / "server.log"
        self._http: httpx.Client | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def launch(self) -> WebServer:
        """Start the process without waiting for it (see :meth:`wait_ready`)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("NARDY_")}
        env.update({
            "NARDY_ENVIRONMENT": "testing",
            "NARDY_SCRIPTED_DICE": "1",
            "NARDY_HOST": "127.0.0.1",
            "NARDY_PORT": str(self.port),
            "NARDY_DATA_DIR": str(self.data_dir),
            "NARDY_MESSAGES_PER_SECOND": "1000",
            "NARDY_MESSAGE_BURST": "1000",
            "PYTHONUNBUFFERED": "1",
        })
        provide_migrated_sqlite(self.data_dir)
        self.process = start_server(env, REPO_ROOT, self.log_path)
        return self

    def wait_ready(self, timeout: float = 60.0) -> WebServer:
        """Wait until the server answers ``GET /api/tables``."""
        assert self.process is not None, "launch the server first"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.url}/api/tables", timeout=1.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the server did not answer within {timeout} s:\n{self.log_tail()}")

    def start(self, timeout: float = 60.0) -> WebServer:
        return self.launch().wait_ready(timeout)

    def stop(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def dice(self, *rolls: tuple[int, int] | list[int]) -> int:
        """Queue scripted rolls; returns how many are queued now. (One connection for them all: a test that
        queues each roll as it is needed does not open one per roll.)"""
        reply = self._testing().post("/api/testing/dice", json={"rolls": [list(r) for r in rolls]})
        reply.raise_for_status()
        queued: int = reply.json()["queued"]
        return queued

    def _testing(self) -> httpx.Client:
        """The one connection for the testing routes, opened on first use."""
        if self._http is None:
            self._http = httpx.Client(base_url=self.url, timeout=10)
        return self._http

    def drop_dice(self) -> int:
        """Drop the rolls still queued; how many they were."""
        reply = self._testing().delete("/api/testing/dice")
        reply.raise_for_status()
        dropped: int = reply.json()["dropped"]
        return dropped


class Http:
    """A browser's HTTP side outside the browser (its own cookies, the CSRF header on POST)."""

    def __init__(self, server: WebServer, cookies: dict[str, str] | None = None) -> None:
        self.client = httpx.Client(base_url=server.url, timeout=10)
        for name, value in (cookies or {}).items():
            self.client.cookies.set(name, value, domain="127.0.0.1", path="/")

    def post(self, path: str, body: Json | None = None) -> Any:
        token = self.client.cookies.get("nardy_csrf")
        reply = self.client.post(path, json=body or {}, headers={"X-CSRF-Token": token} if token else {})
        reply.raise_for_status()
        return reply.json() if reply.content else None

    def get(self, path: str) -> Any:
        reply = self.client.get(path)
        reply.raise_for_status()
        return reply.json()

    def cookie_header(self) -> str:
        return "; ".join(f"{name}={value}" for name, value in self.client.cookies.items())


def racing_play(position: Any, dice: tuple[int, int]) -> list[Json] | None:
    """The legal play leaving the mover the fewest pips, as step dicts (None: no play)."""
    plays = position.legal_plays(dice)
    if not plays:
        return None
    best = min(plays, key=lambda play: play.position.pip_counts()[0])
    return [{"source": s.source, "target": s.target, "die": s.die, "hit": s.hit} for s in best.steps]


class Driver:
    """Plays one seat of one table over the WebSocket, with a browser's cookie header."""

    def __init__(self, server: WebServer, cookie_header: str, table: str) -> None:
        self.table = table
        self._stack = ExitStack()
        self.ws: ClientConnection = self._stack.enter_context(
            connect(server.ws_url, additional_headers={"Cookie": cookie_header}, max_size=2**22))
        hello = self._recv()
        assert hello["t"] == "hello", hello
        assert hello["user"] is not None, "the driver is not signed in"
        self.user = hello["user"]
        self.version = -1
        self.state: Json = {}
        self.events: list[Json] = []
        self._ids = 0
        self.ws.send(json.dumps({"t": "subscribe", "table": table}))
        self._wait(lambda: self.version >= 0)

    @property
    def seat(self) -> int:
        for index, seat in enumerate(self.state["seats"]):
            if seat is not None and seat.get("user_id") == self.user["id"]:
                return index
        raise AssertionError("the driver's user is not seated")

    def close(self) -> None:
        self._stack.close()

    def _recv(self, timeout: float = 10.0) -> Json:
        message: Json = json.loads(self.ws.recv(timeout=timeout))
        if message.get("t") == "sync" and message.get("table") == self.table:
            if message["version"] >= self.version:
                self.version, self.state = message["version"], message["state"]
        elif message.get("t") == "events" and message.get("table") == self.table:
            changes = message.get("changes")
            if changes is not None and message["from_version"] != self.version + 1:
                raise AssertionError(f"changes to version {message['from_version'] - 1}, but the driver has "
                                     f"{self.version}")
            self.events.extend(e for e in message["events"] if e["version"] > self.version)
            if message["version"] > self.version:
                state = message["state"] if changes is None else apply_changes(self.state, changes)
                self.version, self.state = message["version"], state
        return message

    def _wait(self, condition: Callable[[], bool], timeout: float = 20.0) -> None:
        deadline = time.monotonic() + timeout
        while not condition():
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting; state: {json.dumps(self.state)[:2000]}")
            try:
                self._recv(timeout=left)
            except TimeoutError:
                continue

    def act(self, t: str, **fields: Any) -> Json:
        self._ids += 1
        action_id = f"drv-{self.seat}-{self._ids}-{time.monotonic_ns()}"
        self.ws.send(json.dumps({"t": t, "table": self.table, "action_id": action_id, **fields}))
        while True:
            reply = self._recv()
            if reply.get("action_id") == action_id and reply["t"] in ("ack", "error"):
                if reply["t"] == "error":
                    raise AssertionError(f"{t} refused: {reply}")
                version = reply["version"]
                self._wait(lambda: self.version >= version)
                return reply

    def wait_version(self, version: int) -> None:
        """Read the table's updates until this driver has seen ``version`` (one a page has seen, say)."""
        self._wait(lambda: self.version >= version)

    def my_turn(self) -> bool:
        return self.state.get("status") == "playing" and self.state.get("actor") == self.seat

    def wait_my_turn_or_end(self, timeout: float = 20.0) -> None:
        self._wait(lambda: self.my_turn() or self.state.get("status") == "finished"
                   or self.game_over(), timeout)

    def game_over(self) -> bool:
        game = self.state.get("game")
        return game is not None and game["phase"] == "finished"

    def board(self) -> Json:
        board: Json = self.state["game"]["boards"][self.seat]
        return board

    def checkers_on_board(self) -> int:
        """This seat's checkers not borne off: on the points (pinned ones too, plakoto) and on the bar."""
        board = self.board()
        on_points: int = sum(c for c in board["points"] if c > 0)
        pinned: int = sum(1 for c in board.get("pinned", ()) if c > 0)
        on_bar: int = board["bar"][0]
        return on_points + pinned + on_bar

    def play_turn(self) -> None:
        """Do whatever the table waits for from this seat now (roll, move, answer the cube)."""
        game = self.state["game"]
        phase = game["phase"]
        if phase == "rolling":
            self.act("roll")
        elif phase == "moving":
            position = position_from_dict(self.board())
            steps = racing_play(position, tuple(game["dice"]))
            assert steps is not None, "moving without a legal play"
            self.act("move", steps=steps)
        elif phase == "doubled":
            self.act("take")
        elif phase == "resignation":
            self.act("accept_resignation")
        else:
            raise AssertionError(f"nothing to do in phase {phase}")

    def play_until(self, stop: Callable[[Driver], bool], limit: int = 400) -> None:
        """Play this seat's turns until ``stop(self)`` holds at the start of one of its turns."""
        for _ in range(limit):
            self.wait_my_turn_or_end()
            if self.state.get("status") == "finished" or stop(self):
                return
            self.play_turn()
        raise AssertionError("the game did not reach the stop condition")
