"""A driver for playing through the real app in-process: users, tables, WebSocket players, whole matches.

Tests reach it through the fixtures of ``conftest.py`` (``game_server``,
``make_game_server``) and import from here only what they name in type hints
or call directly (``from tests.server.game_server import Player, racing_play``):

* the ``game_server`` fixture is a :class:`GameServer`: the real app from ``create_app`` with
  :class:`~nardy.server.services.dice.ScriptedDice` (``game_server.dice``), a
  ``TestClient`` that ran its lifespan, and helpers to sign users up, open
  and join tables and read records. ``make_game_server(**settings)`` builds more
  (``dice="fair"`` for the production, provably fair dice; ``data_dir=`` of
  a stopped server to restart it); :meth:`GameServer.stop` shuts one down.
* :class:`Player` is one browser: its own ``TestClient`` (so its own cookies)
  and one WebSocket. It follows the tables it subscribed to like a real
  client: the latest version and state per table, every event in order,
  duplicates ignored, gaps recorded. ``act(t, **fields)`` sends an action and
  reads until its ``ack`` or ``error``; after an ack it also reads until its
  own copy of the table has caught up with the acknowledged version.
* :meth:`GameServer.play_out` drives a match to its end from the state views alone:
  roll when rolling, ``move`` with the steps of a legal play (rebuilt from
  ``state.game.boards[actor]`` with :func:`nardy.notation.position_from_dict`),
  take doubles, accept resignations, and wait while a bot is to act.

All clients share the event loop of the ``TestClient`` that ran the lifespan
(``client.portal``), as they would share one server process; every read from
a WebSocket is bounded by a timeout so that a missing message fails the test
instead of hanging it.
"""

from __future__ import annotations

import itertools
import json
import random
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
from fastapi.testclient import TestClient

from nardy.notation import position_from_dict
from nardy.rules import Play, Position
from nardy.server.services.dice import DiceSource, ScriptedDice
from nardy.server.ws.view_changes import apply_changes

PASSWORD = "correct horse battery"
TIMEOUT = 5.0
"""Seconds to wait for any one expected message."""

State = dict[str, Any]
Message = dict[str, Any]
Chooser = Callable[[Position, tuple[int, int], list[Play]], Play]

_NAMES = itertools.count(1)
"""Fresh user names, unique across servers (a restarted server keeps its users)."""


class NoMessage(AssertionError):
    """An expected WebSocket message did not come in time."""


def step_json(play: Play) -> list[dict[str, Any]]:
    """The steps of ``play`` as the ``move`` action sends them."""
    return [{"source": s.source, "target": s.target, "die": s.die, "hit": s.hit} for s in play.steps]


def first_play(position: Position, dice: tuple[int, int], plays: list[Play]) -> Play:
    """The first legal play the rules list."""
    return plays[0]


def racing_play(position: Position, dice: tuple[int, int], plays: list[Play]) -> Play:
    """The play leaving the mover the fewest pips (ties: the first listed): games end quickly."""
    return min(plays, key=lambda play: play.position.pip_counts()[0])


def random_chooser(seed: object) -> Chooser:
    """A chooser picking uniformly among the legal plays, reproducibly from ``seed``."""
    pick = random.Random(str(seed))

    def choose(position: Position, dice: tuple[int, int], plays: list[Play]) -> Play:
        return pick.choice(plays)

    return choose


class Player:
    """One browser: an HTTP client with its own cookies and one WebSocket following tables."""

    def __init__(self, server: GameServer, client: TestClient, name: str) -> None:
        self.server = server
        self.client = client
        self.name = name
        self.user: dict[str, Any] | None = None
        self.hello: Message | None = None
        self.table: str | None = None
        """The table :meth:`act` and :meth:`state` default to (the last one subscribed)."""
        self.states: dict[str, State] = {}
        self.versions: dict[str, int] = {}
        self.events: dict[str, list[dict[str, Any]]] = {}
        """Per table, the events received in order since the first sync (no duplicates)."""
        self.gaps: list[tuple[str, int | None, int]] = []
        """(table, expected from_version, received from_version) for every gap seen."""
        self.other: list[Message] = []
        """Messages that are neither table updates nor replies to an action (pong, subscribe errors)."""
        self._ws: Any = None
        self._stack = ExitStack()
        self._ids = itertools.count(1)

    # ----- HTTP

    def csrf(self) -> dict[str, str]:
        """The CSRF header for a state-changing API request."""
        token = self.client.cookies.get("nardy_csrf")
        return {"X-CSRF-Token": token} if token else {}

    def post(self, url: str, body: dict[str, Any] | None = None) -> Any:
        """POST with the CSRF header; returns the response."""
        return self.client.post(url, json=body if body is not None else {}, headers=self.csrf())

    # ----- WebSocket

    def connect(self, headers: dict[str, str] | None = None) -> Message:
        """Open the WebSocket (with this client's cookies, or ``headers``) and read the hello."""
        self._ws = self._stack.enter_context(self.client.websocket_connect("/ws", headers=dict(headers or {})))
        hello = self._receive(TIMEOUT)
        assert hello["t"] == "hello", hello
        self.hello = hello
        return hello

    def close(self) -> None:
        """Close the WebSocket."""
        self._stack.close()
        self._ws = None

    def send(self, message: Message) -> None:
        """Send one raw message."""
        self._ws.send_text(json.dumps(message))

    def _receive(self, timeout: float) -> Message:
        session = self._ws

        async def receive() -> Any:
            with anyio.fail_after(timeout):
                return await session._send_rx.receive()

        try:
            raw = session.portal.call(receive)
        except TimeoutError:
            raise NoMessage(f"{self.name}: no message within {timeout} s") from None
        session._raise_on_close(raw)
        message: Message = json.loads(raw["text"])
        return message

    def recv(self, timeout: float = TIMEOUT) -> Message:
        """The next message, after folding it into what this client knows of its tables."""
        message = self._receive(timeout)
        self._note(message)
        return message

    def _note(self, message: Message) -> None:
        kind = message.get("t")
        table = message.get("table")
        if kind == "sync":
            if message["version"] >= self.versions.get(table, -1):
                self.versions[table] = message["version"]
                self.states[table] = message["state"]
                self.events.setdefault(table, [])
        elif kind == "events":
            known = self.versions.get(table)
            if "changes" in message and known != message["from_version"] - 1:
                if known is None or message["version"] > known:  # changes to a view this client lacks
                    self.gaps.append((table, None if known is None else known + 1, message["from_version"]))
                return
            if known is not None and message["from_version"] > known + 1:
                self.gaps.append((table, known + 1, message["from_version"]))
            fresh = [e for e in message["events"] if known is None or e["version"] > known]
            self.events.setdefault(table, []).extend(fresh)
            if known is None or message["version"] > known:
                self.versions[table] = message["version"]
                self.states[table] = (
                    apply_changes(self.states[table], message["changes"]) if "changes" in message
                    else message["state"]
                )
        elif kind not in ("ack", "error") or "action_id" not in message:
            self.other.append(message)

    def subscribe(self, table: str, since: int | None = None) -> Message:
        """Subscribe and return the first reply about ``table`` (a sync, events or an error)."""
        message: Message = {"t": "subscribe", "table": table}
        if since is not None:
            message["since"] = since
        self.send(message)
        while True:
            reply = self.recv()
            if reply.get("table") == table and reply["t"] in ("sync", "events", "error"):
                if reply["t"] != "error":
                    self.table = table
                return reply

    def act(self, t: str, table: str | None = None, *, action_id: str | None = None, **fields: Any) -> Message:
        """Send an action; the reply (ack or error). After an ack, this client has caught up with it."""
        table = table or self.table
        assert table is not None, "subscribe first or name the table"
        action_id = action_id or f"{self.name}-{next(self._ids)}"
        self.send({"t": t, "table": table, "action_id": action_id, **fields})
        while True:
            reply = self.recv()
            if reply.get("action_id") == action_id and reply["t"] in ("ack", "error"):
                break
            if reply["t"] == "error" and "action_id" not in reply and "table" not in reply:
                # Refused before parsing (rate limit, size, bad JSON): the connection answers
                # its messages in order, so this is the answer to the action just sent.
                break
        if reply["t"] == "ack" and table in self.versions:
            self.catch_up(reply["version"], table)
        return reply

    def ok(self, t: str, table: str | None = None, **fields: Any) -> Message:
        """:meth:`act`, requiring an ack."""
        reply = self.act(t, table, **fields)
        assert reply["t"] == "ack", reply
        return reply

    def refused(self, t: str, table: str | None = None, **fields: Any) -> Message:
        """:meth:`act`, requiring an error."""
        reply = self.act(t, table, **fields)
        assert reply["t"] == "error", reply
        return reply

    def state(self, table: str | None = None) -> State:
        """The latest state seen of ``table``."""
        return self.states[table or self.table or ""]

    def version(self, table: str | None = None) -> int:
        """The latest version seen of ``table``."""
        return self.versions[table or self.table or ""]

    def wait(self, predicate: Callable[[State], bool], table: str | None = None, timeout: float = TIMEOUT) -> State:
        """Read messages until the table's state satisfies ``predicate``; returns that state."""
        table = table or self.table
        assert table is not None
        deadline = time.monotonic() + timeout
        while table not in self.states or not predicate(self.states[table]):
            left = deadline - time.monotonic()
            if left <= 0:
                raise NoMessage(f"{self.name}: the state of {table} did not get there in {timeout} s: "
                                f"{summary(self.states.get(table))}")
            self.recv(left)
        return self.states[table]

    def catch_up(self, version: int, table: str | None = None, timeout: float = TIMEOUT) -> State:
        """Read until this client has seen ``table`` at ``version`` or later."""
        return self.wait(lambda s: s["version"] >= version, table, timeout)

    def drain(self, quiet: float = 0.05) -> list[Message]:
        """Read whatever arrives until ``quiet`` seconds pass with nothing."""
        seen = []
        while True:
            try:
                seen.append(self.recv(quiet))
            except NoMessage:
                return seen


def summary(state: State | None) -> str:
    """A short description of a state view for failure messages."""
    if state is None:
        return "no state"
    game = state.get("game") or {}
    return (f"v{state['version']} {state['status']} actor={state['actor']} phase={game.get('phase')} "
            f"dice={game.get('dice')} score={(state.get('match') or {}).get('score')}")


class GameServer:
    """The real app in-process, with helpers to create users, tables and players."""

    def __init__(self, client: TestClient, dice: DiceSource, data_dir: Path) -> None:
        self.client = client
        self.data_dir = data_dir
        self.running = True
        self.app = client.app
        self.dice = dice
        self.random = random.Random(2024)
        self.players: list[Player] = []
        self.first = first_play
        self.racing = racing_play
        self.random_chooser = random_chooser
        self.invites: dict[str, str] = {}
        """The invite tokens of the private tables this driver opened, by table."""

    def stop(self) -> None:
        """Close every player's WebSocket and shut the app down (its lifespan ends); idempotent."""
        if not self.running:
            return
        self.running = False
        for player in self.players:
            try:
                player.close()
            except Exception:  # noqa: BLE001 - a connection the test already broke
                pass
        self.client.__exit__(None, None, None)

    # ----- dice

    def push(self, *rolls: tuple[int, int]) -> None:
        """Queue scripted rolls (opening rolls are one pair: player 0's die, player 1's die)."""
        assert isinstance(self.dice, ScriptedDice)
        self.dice.push(*rolls)

    def seed(self, seed: object) -> None:
        """Reseed the random rolls :meth:`top_up` queues."""
        self.random.seed(str(seed))

    def top_up(self, keep: int = 24) -> None:
        """Keep at least ``keep`` random rolls queued (no-op with real dice)."""
        if isinstance(self.dice, ScriptedDice):
            while self.dice.remaining < keep:
                self.dice.push((self.random.randint(1, 6), self.random.randint(1, 6)))

    # ----- people

    def new_client(self) -> TestClient:
        """Another browser on the same app and event loop (cookies are per client)."""
        other = TestClient(self.app)
        other.portal = self.client.portal
        return other

    def player(self, name: str | None = None, *, sign_up: bool = True, connect: bool = True) -> Player:
        """A new browser; signed up as ``name`` (or a fresh name) unless ``sign_up`` is false."""
        name = name or f"user{next(_NAMES)}"
        player = Player(self, self.new_client(), name)
        if sign_up:
            response = player.post("/api/signup", {"username": name, "password": PASSWORD})
            assert response.status_code == 201, response.text
            player.user = response.json()["user"]
        if connect:
            player.connect()
        self.players.append(player)
        return player

    def guest(self, *, connect: bool = True) -> Player:
        """A new browser continuing as a guest."""
        player = Player(self, self.new_client(), f"guest{next(_NAMES)}")
        response = player.post("/api/guest")
        assert response.status_code == 201, response.text
        player.user = response.json()["user"]
        if connect:
            player.connect()
        self.players.append(player)
        return player

    # ----- tables

    def create(self, player: Player, variant: str, match_length: int = 1, **body: Any) -> State:
        """``player`` opens a table; returns its view (201 required)."""
        response = player.post("/api/tables", {"variant": variant, "match_length": match_length, **body})
        assert response.status_code == 201, response.text
        view: State = response.json()["table"]
        if response.json()["invite"] is not None:
            self.invites[view["table"]] = response.json()["invite"]
        return view

    def join(self, player: Player, table: str) -> State:
        """``player`` takes the free seat (200 required), with the invite of a private table; returns the view."""
        invite = self.invites.get(table)
        response = player.post(f"/api/tables/{table}/join", {"invite": invite} if invite else {})
        assert response.status_code == 200, response.text
        view: State = response.json()
        return view

    def match(
        self,
        variant: str,
        match_length: int = 1,
        *,
        opening: Sequence[tuple[int, int]] | None = None,
        players: Sequence[Player] | None = None,
        **body: Any,
    ) -> tuple[str, list[Player]]:
        """Two players (guests unless ``players`` are given) at a new table, both subscribed;
        the match has begun.

        ``opening`` is pushed before the second player joins (the opening rolls
        and anything after); without it random rolls are kept queued.
        """
        if players is None:
            players = [self.guest(), self.guest()]
        first, second = players
        table = self.create(first, variant, match_length, **body)["table"]
        if opening is not None:
            self.push(*opening)
        else:
            self.top_up()
        self.join(second, table)
        for player in players:
            reply = player.subscribe(table)
            assert reply["t"] == "sync", reply
            assert reply["state"]["status"] == "playing", summary(reply["state"])
        return table, list(players)

    def view(self, table: str) -> State:
        """GET /api/tables/{table}."""
        response = self.client.get(f"/api/tables/{table}")
        assert response.status_code == 200, response.text
        view: State = response.json()
        return view

    def record(self, table: str) -> dict[str, Any]:
        """GET /api/tables/{table}/record."""
        response = self.client.get(f"/api/tables/{table}/record")
        assert response.status_code == 200, response.text
        record: dict[str, Any] = response.json()
        return record

    # ----- playing

    def play_out(
        self,
        table: str,
        players: Sequence[Player | None],
        *,
        choose: Chooser = first_play,
        feed: bool = True,
        max_actions: int = 4000,
    ) -> State:
        """Drive the match at ``table`` to its end; ``players[seat]`` is None for a bot's seat.

        Every human player is kept up to date after each action, so at the end
        each has seen every event. Returns the final state.
        """
        humans = [p for p in players if p is not None]
        for _ in range(max_actions):
            state = max((p.states[table] for p in humans), key=lambda s: s["version"])
            if state["status"] == "finished":
                break
            actor = state["actor"]
            player = players[actor] if actor is not None else None
            if player is None:
                humans[0].wait(lambda s, v=state["version"]: s["version"] > v, table)
                continue
            if feed:
                self.top_up()
            kind, fields = next_action(state, choose)
            player.ok(kind, table, **fields)
            for other in humans:
                other.catch_up(player.version(table), table)
        else:
            raise AssertionError(f"the match did not end in {max_actions} actions: {summary(state)}")
        for other in humans:
            other.catch_up(state["version"], table)
        return state


def next_action(state: State, choose: Chooser = first_play) -> tuple[str, dict[str, Any]]:
    """The action the seat the table waits for takes now, as ``(t, fields)``.

    Roll when rolling, take a double, accept a resignation, and in the moving
    phase send the steps of the legal play ``choose`` picks among those the
    rules give for ``state.game.boards[actor]`` and the dice.
    """
    game = state["game"]
    actor = state["actor"]
    phase = game["phase"]
    if phase == "rolling":
        return "roll", {}
    if phase == "doubled":
        return "take", {}
    if phase == "resignation":
        return "accept_resignation", {}
    assert phase == "moving", summary(state)
    assert not game["pending"], "play_out plays whole moves only"
    position = position_from_dict(game["boards"][actor])
    dice = (game["dice"][0], game["dice"][1])
    plays = position.legal_plays(dice)
    assert plays, f"the server asks for a move with no legal play: {summary(state)}"
    return "move", {"steps": step_json(choose(position, dice, plays))}
