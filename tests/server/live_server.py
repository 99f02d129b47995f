"""End-to-end helpers: a real ``python -m nardy.server`` process and clients that speak to it.

:class:`LiveServer` starts the server as its own process (forked from one
that has it imported: :mod:`tests.server_process`) with ``NARDY_*``
environment variables (testing mode, a free port, a data directory, and
optionally a database URL and a Redis URL), waits until ``GET /api/tables``
answers, and stops it gracefully (SIGINT) or kills it (SIGKILL). Its log is
kept in a file and shown when it fails to start.

:class:`HttpUser` is a browser's HTTP side: an ``httpx.Client`` that keeps the
session cookies and sends the ``X-CSRF-Token`` header on every POST.

:class:`WsClient` is a browser's WebSocket side, on the ``websockets`` sync
client. It follows each subscribed table the way a real client must: it keeps
the last version and state, applies ``events`` messages in order, ignores
duplicates, and records a gap (``from_version`` beyond the next version) so a
test can see that it would have had to resubscribe with ``since``.

:func:`next_action` chooses a legal action for the seat the table waits for
from the state view alone, rebuilding the position with
:func:`nardy.notation.position_from_dict`; :func:`play` drives two clients
with it. With a real server the dice are real (provably fair), so the game
goes wherever they take it.

PostgreSQL and Redis helpers say why a service cannot be used (for a skip)
and make a fresh database per test; ``inprocess_*`` do the same sign-up,
POST and WebSocket chores against the in-process app (``TestClient``).
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import psycopg
import redis
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from websockets.sync.client import ClientConnection, connect
from websockets.typing import Origin

from nardy.notation import position_from_dict
from nardy.server.ws.view_changes import apply_changes
from tests.migrated_sqlite import provide_migrated_sqlite
from tests.server_process import ServerProcess, start_server

REPO_ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "correct horse battery"
POSTGRES_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
REDIS_URL = "redis://127.0.0.1:6379/9"
START_TIMEOUT = 30.0
FAST_CLIENT_ENV = {"NARDY_MESSAGES_PER_SECOND": "1000", "NARDY_MESSAGE_BURST": "1000"}
"""Scripted players act far faster than people: lift the per-connection rate limit for them."""
RECV_TIMEOUT = 10.0

Json = dict[str, Any]


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


# ----- the server process


class LiveServer:
    """One ``python -m nardy.server`` process; ``start`` again after ``kill`` or ``stop`` for a restart."""

    def __init__(
        self,
        data_dir: Path,
        *,
        port: int | None = None,
        database_url: str | None = None,
        redis_url: str | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.data_dir = data_dir
        self.port = port if port is not None else free_port()
        self.database_url = database_url
        self.redis_url = redis_url
        self.extra_env = env or {}
        self.process: ServerProcess | None = None
        self.starts = 0
        self.log_path = data_dir / f"server-{self.port}.log"

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def environment(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("NARDY_")}
        env.update({
            "NARDY_ENVIRONMENT": "testing",
            "NARDY_HOST": "127.0.0.1",
            "NARDY_PORT": str(self.port),
            "NARDY_DATA_DIR": str(self.data_dir),
            "PYTHONUNBUFFERED": "1",
        })
        if self.database_url:
            env["NARDY_DATABASE_URL"] = self.database_url
        if self.redis_url:
            env["NARDY_REDIS_URL"] = self.redis_url
        env.update(self.extra_env)
        return env

    def start(self, timeout: float = START_TIMEOUT) -> LiveServer:
        """Start the process and wait until it answers ``GET /api/tables``."""
        self.launch()
        return self.wait_ready(timeout)

    def launch(self) -> None:
        """Start the process without waiting (to start several at once; then :meth:`wait_ready`)."""
        assert self.process is None or self.process.poll() is not None, "the server is already running"
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        with open(self.log_path, "ab") as log:
            log.write(f"\n===== start {self.starts} =====\n".encode())
            log.flush()
        if not self.database_url and "NARDY_DATABASE_URL" not in self.extra_env:
            provide_migrated_sqlite(self.data_dir)
        self.process = start_server(self.environment(), REPO_ROOT, self.log_path)
        if self.starts == 1:
            atexit.register(self.kill)  # never leave a server behind, whatever happens to the test

    def wait_ready(self, timeout: float = START_TIMEOUT) -> LiveServer:
        """Wait until the launched process answers ``GET /api/tables``."""
        assert self.process is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with {self.process.returncode}:\n{self.log_tail()}")
            try:
                if httpx.get(f"{self.base_url}/api/tables", timeout=1.0).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"the server did not answer within {timeout} s:\n{self.log_tail()}")

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a crash or a power cut."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self, timeout: float = 10.0) -> None:
        """Graceful stop (SIGINT, as Ctrl-C: uvicorn runs the shutdown); SIGKILL if it hangs."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def __enter__(self) -> LiveServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill()


@contextmanager
def running_together(servers: list[LiveServer], *, graceful: bool = False) -> Iterator[None]:
    """Start ``servers`` together (all launched before any is awaited, so they migrate at once), and end them
    however the test ends: killed, or stopped with SIGTERM where ``graceful``."""
    try:
        for server in servers:
            server.launch()
        for server in servers:
            server.wait_ready()
        yield
    finally:
        for server in servers:
            if graceful:
                server.stop()
            else:
                server.kill()


# ----- outside services


def postgres_unreachable(url: str = POSTGRES_URL) -> str | None:
    """Why PostgreSQL cannot be used here, or ``None`` when it answers."""
    try:
        with psycopg.connect(_libpq(url), connect_timeout=2):
            return None
    except psycopg.Error as error:
        return f"PostgreSQL is not reachable at {url}: {str(error).strip()}"


def redis_unreachable(url: str = REDIS_URL) -> str | None:
    """Why Redis cannot be used here, or ``None`` when it answers."""
    client = redis.Redis.from_url(url, socket_connect_timeout=1, socket_timeout=1)
    try:
        client.ping()
    except redis.RedisError as error:
        return f"Redis is not reachable at {url}: {error}"
    finally:
        client.close()
    return None


def _libpq(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


@contextmanager
def fresh_postgres_database(url: str = POSTGRES_URL) -> Iterator[str]:
    """A new, empty database ``nardy_<random>`` on the server of ``url``, dropped afterwards.

    Yields its SQLAlchemy URL.
    """
    name = f"nardy_{uuid.uuid4().hex[:12]}"
    admin = _libpq(url)
    with psycopg.connect(admin, autocommit=True, connect_timeout=5) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    parts = urlsplit(url)
    try:
        yield parts._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(admin, autocommit=True, connect_timeout=5) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# ----- HTTP


class HttpUser:
    """A browser's HTTP side: keeps the cookies and sends the CSRF header on POSTs."""

    def __init__(self, base_url: str) -> None:
        self.http = httpx.Client(base_url=base_url, timeout=15.0)
        self.user: Json | None = None

    def post(self, path: str, body: Json | None = None) -> httpx.Response:
        headers = {}
        csrf = self.http.cookies.get("nardy_csrf")
        if csrf:
            headers["X-CSRF-Token"] = csrf
        return self.http.post(path, json=body if body is not None else {}, headers=headers)

    def get(self, path: str) -> httpx.Response:
        return self.http.get(path)

    def signup(self, username: str, password: str = PASSWORD) -> Json:
        reply = self.post("/api/signup", {"username": username, "password": password})
        assert reply.status_code == 201, reply.text
        self.user = reply.json()["user"]
        return self.user

    @property
    def cookie_header(self) -> str:
        return "; ".join(f"{name}={value}" for name, value in self.http.cookies.items())

    def table(self, table_id: str) -> Json:
        reply = self.get(f"/api/tables/{table_id}")
        assert reply.status_code == 200, reply.text
        data: Json = reply.json()
        return data

    def record(self, table_id: str) -> Json:
        reply = self.get(f"/api/tables/{table_id}/record")
        assert reply.status_code == 200, reply.text
        data: Json = reply.json()
        return data

    def close(self) -> None:
        self.http.close()


def unique_name(prefix: str) -> str:
    """A username no other test run uses (usernames are 3 to 32 characters)."""
    return f"{prefix}{uuid.uuid4().hex[:8]}"


# ----- WebSocket


class ProtocolFailure(AssertionError):
    """The server answered something a correct client cannot accept."""


@dataclass
class Feed:
    """What a client knows of one table: the last version, its state and the events it saw."""

    version: int = 0
    state: Json | None = None
    events: dict[int, Json] = field(default_factory=dict)
    gaps: list[tuple[int, int]] = field(default_factory=list)
    syncs: int = 0


class WsClient:
    """One WebSocket connection, following its subscribed tables by version."""

    def __init__(self, ws_url: str, cookie: str | None = None, *, origin: str | None = None) -> None:
        headers = {"Cookie": cookie} if cookie else None
        opened = connect(
            ws_url, additional_headers=headers, origin=Origin(origin) if origin else None, open_timeout=10, max_size=2**23
        )
        self.conn: ClientConnection = opened.__enter__()  # as ``with connect(...)`` does; closed by close()
        self.feeds: dict[str, Feed] = {}
        self.acked: list[tuple[str, int]] = []
        self.log: list[tuple[str, Json]] = []
        self.hello = self.recv()
        if self.hello.get("t") != "hello":
            raise ProtocolFailure(f"the first message is not hello: {self.hello}")

    # low level

    def send(self, message: Json | str | bytes) -> None:
        if isinstance(message, dict):
            self.log.append(("out", message))
            self.conn.send(json.dumps(message))
        else:
            self.conn.send(message)

    def recv(self, timeout: float = RECV_TIMEOUT) -> Json:
        """The next message, absorbed into the feeds; TimeoutError when none comes."""
        text = self.conn.recv(timeout=timeout)
        message: Json = json.loads(text)
        self.log.append(("in", message))
        self._absorb(message)
        return message

    def close(self) -> None:
        try:
            self.conn.close()
        except Exception:  # noqa: BLE001 - the server may be gone already
            pass

    def _absorb(self, message: Json) -> None:
        kind = message.get("t")
        if kind not in ("sync", "events"):
            return
        feed = self.feeds.setdefault(message["table"], Feed())
        if kind == "sync":
            feed.version = message["version"]
            feed.state = message["state"]
            feed.syncs += 1
            return
        first, last = message["from_version"], message["version"]
        if last <= feed.version:
            return  # a duplicate: already seen
        changes = message.get("changes")
        if first > feed.version + 1 or (changes is not None and (first != feed.version + 1 or feed.state is None)):
            feed.gaps.append((feed.version, first))
            return  # a correct client resubscribes with since=feed.version
        for event in message["events"]:
            if event["version"] > feed.version:
                feed.events[event["version"]] = event
        feed.version = last
        feed.state = message["state"] if changes is None else apply_changes(feed.state, changes)

    # protocol

    def subscribe(self, table: str, since: int | None = None) -> Json:
        """Subscribe and return the reply (``sync``, ``events`` or ``error``)."""
        message: Json = {"t": "subscribe", "table": table}
        if since is not None:
            message["since"] = since
            self.feeds.setdefault(table, Feed()).version = since
        self.send(message)
        while True:
            reply = self.recv()
            if reply.get("t") in ("sync", "events", "error") and reply.get("table") == table:
                return reply

    def act(self, table: str, t: str, *, action_id: str | None = None, **fields: Any) -> Json:
        """Send an action and return its ``ack`` or ``error``; table events read meanwhile are absorbed."""
        action_id = action_id or uuid.uuid4().hex
        self.send({"t": t, "table": table, "action_id": action_id, **fields})
        while True:
            reply = self.recv()
            if reply.get("t") == "error" and reply.get("code") == "rate_limited":
                return reply  # the message was dropped unread, so the reply cannot name it
            if reply.get("t") in ("ack", "error") and reply.get("action_id") == action_id:
                if reply["t"] == "ack":
                    self.acked.append((action_id, reply["version"]))
                return reply

    def must(self, table: str, t: str, **fields: Any) -> int:
        """An action that must be accepted; waits until its events arrived too. Returns the version."""
        reply = self.act(table, t, **fields)
        if reply["t"] != "ack":
            raise ProtocolFailure(f"{t} {fields} refused: {reply}")
        self.wait_version(table, reply["version"])
        return int(reply["version"])

    def wait_version(self, table: str, version: int, timeout: float = RECV_TIMEOUT) -> Json:
        """Read until the table reached ``version``; returns its state."""
        end = time.monotonic() + timeout
        feed = self.feeds.setdefault(table, Feed())
        while feed.version < version:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"version {version} of {table} did not arrive (at {feed.version})")
            self.recv(timeout=left)
            if feed.gaps:
                raise ProtocolFailure(f"gap in the events of {table}: {feed.gaps}")
        assert feed.state is not None
        return feed.state

    def wait_for(self, predicate: Callable[[Json], bool], timeout: float = RECV_TIMEOUT) -> Json:
        """Read until a message satisfies ``predicate``; returns it."""
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise TimeoutError("the awaited message did not come")
            message = self.recv(timeout=left)
            if predicate(message):
                return message

    def state(self, table: str) -> Json:
        state = self.feeds[table].state
        assert state is not None
        return state


def connected(server: LiveServer, user: HttpUser) -> WsClient:
    return WsClient(server.ws_url, user.cookie_header)


# ----- the same, against the in-process app (``fastapi.testclient.TestClient``)
#
# One TestClient runs the app's lifespan; its cookie jar is swapped per user,
# so several users share it without a second lifespan.


def inprocess_signup(client: TestClient, name: str) -> dict[str, str]:
    """Sign ``name`` up through ``client``; returns that user's cookies (the jar is left empty)."""
    client.cookies.clear()
    reply = client.post("/api/signup", json={"username": name, "password": PASSWORD})
    assert reply.status_code == 201, reply.text
    jar = dict(client.cookies.items())
    client.cookies.clear()
    return jar


def inprocess_post(client: TestClient, jar: dict[str, str], path: str, body: Json | None = None) -> Json:
    """POST as the user of ``jar`` (with its CSRF header); a 200 or 201 is required."""
    client.cookies.clear()
    client.cookies.update(jar)
    try:
        reply = client.post(path, json=body or {}, headers={"X-CSRF-Token": jar["nardy_csrf"]})
    finally:
        client.cookies.clear()
    assert reply.status_code in (200, 201), reply.text
    data: Json = reply.json()
    return data


def inprocess_ws(stack: ExitStack, client: TestClient, jar: dict[str, str] | None) -> WebSocketTestSession:
    """A WebSocket as the user of ``jar`` (anonymous without), its ``hello`` read; closed with ``stack``."""
    headers = {"cookie": "; ".join(f"{k}={v}" for k, v in jar.items())} if jar else {}
    ws: WebSocketTestSession = stack.enter_context(client.websocket_connect("/ws", headers=headers))
    assert ws.receive_json()["t"] == "hello"
    return ws


# ----- choosing moves


def next_action(state: Json) -> tuple[int, Json] | None:
    """The seat whose decision the table waits for and a legal action for it, or ``None``.

    Rolls when it is time to roll, plays the first of the ``legal_plays`` of a
    position rebuilt from the view that hit least, finishes a turn begun with single steps
    by stepping on (``legal.steps``) and confirming, takes a double and
    accepts a resignation.
    """
    if state["status"] != "playing" or state["actor"] is None:
        return None
    seat: int = state["actor"]
    game = state["game"]
    phase = game["phase"]
    if phase == "rolling":
        return seat, {"t": "roll"}
    if phase == "moving":
        if game["pending"]:
            legal = game["legal"]
            if legal["can_confirm"]:
                return seat, {"t": "confirm"}
            step = legal["steps"][0]
            return seat, {"t": "step", "source": step["source"], "die": step["die"]}
        position = position_from_dict(game["boards"][seat])
        plays = position.legal_plays(game["dice"])
        assert plays, f"the view is moving with no legal play: {game}"
        play = min(plays, key=lambda p: sum(s.hit for s in p.steps))  # the first with fewest hits: shorter games
        steps = [{"source": s.source, "target": s.target, "die": s.die} for s in play.steps]
        return seat, {"t": "move", "steps": steps}
    if phase == "doubled":
        return seat, {"t": "take"}
    if phase == "resignation":
        return seat, {"t": "accept_resignation"}
    raise ProtocolFailure(f"the table waits for seat {seat} in phase {phase!r}")


def first_step(state: Json) -> Json:
    """A single ``step`` action for the mover (``legal.steps[0]``), to leave a turn half made."""
    step = state["game"]["legal"]["steps"][0]
    return {"t": "step", "source": step["source"], "die": step["die"]}


def play(
    table: str,
    clients: tuple[WsClient, WsClient],
    *,
    actions: int | None = None,
    until: Callable[[Json], bool] | None = None,
    max_actions: int = 5000,
) -> Json:
    """Play ``actions`` actions (or until ``until(state)`` or the match ends); both clients keep up.

    Each action is sent by the client of the seat on turn; both clients must
    then see the table reach the acked version live.
    """
    done = 0
    state = clients[0].state(table)
    while done < max_actions:
        if actions is not None and done >= actions:
            return state
        if until is not None and until(state):
            return state
        chosen = next_action(state)
        if chosen is None:
            return state
        seat, action = chosen
        payload = {k: v for k, v in action.items() if k != "t"}
        version = clients[seat].must(table, action["t"], **payload)
        state = clients[1 - seat].wait_version(table, version)
        mine = clients[seat].state(table)
        if mine["version"] == state["version"]:
            assert _comparable(mine) == _comparable(state), "the two players see different states"
        done += 1
    raise ProtocolFailure(f"the match did not end within {max_actions} actions")


def _comparable(state: Json) -> Json:
    return {k: v for k, v in state.items() if k != "server_time"}


def comparable(state: Json) -> Json:
    """The state view without the fields that depend on when it was rendered."""
    return _comparable(state)
