"""The simulated players of one client process: their WebSockets, their play, and what they measure.

Each player keeps its table's state as the server sends it (a full state, then changes), acts when
the state says the decision is its own after an exponential think time, and times each action from
send to ``ack``. Everything a player sees go wrong is counted as an error of a kind, with a few
samples, so that a level that loses games, connections or answers cannot pass unseen.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import gc
import json
import random
import re
import time
from typing import Any

from benchmarks.load.lobby import Lobby
from benchmarks.load.players import ClientConfig, ClientResult, Player, Slot
from nardy.server.ws.view_changes import apply_changes

DRAIN_TIMEOUT = 10.0
MAX_ERRORS_PER_PLAYER = 20
PLAY_PAST_WINDOW = 5.0
"""Seconds the clients play on after the window, untimed, so that the census finds the games live."""


def ports_named(error_sample: str) -> list[int]:
    """The client ports an error sample names: a dropped connection's, or a stalled game's players'."""
    ports = [int(port) for port in re.findall(r", port (\d+):", error_sample)]
    for listed in re.findall(r"ports \[([\d, ]+)\]", error_sample):
        ports.extend(int(port) for port in listed.split(","))
    return ports


class Client:
    """All the players of one client process."""

    def __init__(self, config: ClientConfig) -> None:
        self.config = config
        self.rng = random.Random(f"load:{config.seed}:{config.index}")
        self.result = ClientResult()
        self.slots = [Slot(i, v, c) for i, (v, c) in enumerate(zip(config.variants, config.opponents, strict=True))]
        self.pending: dict[str, tuple[float, Player]] = {}
        self.sequence = 0
        self.playing = False
        self.window = (float("inf"), float("inf"))
        self.lobby: Lobby | None = None
        self.tasks: list[asyncio.Task[None]] = []

    # ----- errors

    def error(self, kind: str, detail: str) -> None:
        """Count an error of ``kind``, keeping the first ten samples of each kind."""
        self.result.errors[kind] += 1
        if sum(sample.startswith(f"{kind}:") for sample in self.result.error_samples) < 10:
            self.result.error_samples.append(f"{kind}: {detail}"[:300])

    def time_request(self, ms: float) -> None:
        """Keep an HTTP request's round trip if it was made during play."""
        if self.playing:
            self.result.http_ms.append(ms)

    # ----- WebSocket

    async def connect(self, player: Player) -> None:
        """Open the player's WebSocket, check the greeting, and start reading it."""
        from websockets.asyncio.client import connect

        # the table in the URL lets a reverse proxy keep both players of a table on one process
        uri = self.config.url.replace("http://", "ws://") + f"/ws?table={player.slot.table_id}"
        player.ws = await connect(
            uri, additional_headers={"Cookie": player.cookie}, open_timeout=60, close_timeout=5,
            compression="deflate" if self.config.compression else None, max_size=2**20,
        )
        hello = json.loads(await asyncio.wait_for(player.ws.recv(), 60))
        if hello.get("t") != "hello" or hello.get("user") is None:
            raise RuntimeError(f"unexpected greeting {hello}")
        self.tasks.append(asyncio.create_task(self.read(player)))

    async def send(self, player: Player, message: dict[str, Any]) -> None:
        """Send ``message`` on the player's socket; a failure is an error unless the player is closing."""
        try:
            await player.ws.send(json.dumps(message))
        except Exception as error:  # noqa: BLE001 - a dropped connection is a measured error
            if not player.closing:
                self.error("send_failed", repr(error))

    async def subscribe(self, player: Player, table_id: str) -> None:
        """Ask for the table's state and its changes."""
        await self.send(player, {"t": "subscribe", "table": table_id})

    async def read(self, player: Player) -> None:
        """Handle the player's messages until the socket closes; a close the player did not ask for is an error."""
        from websockets.exceptions import ConnectionClosed

        result = self.result
        try:
            async for raw in player.ws:
                result.messages_in += 1
                result.bytes_in += len(raw)
                self.handle(player, json.loads(raw))
        except ConnectionClosed as closed:
            if not player.closing:
                self.error("connection_dropped", f"player {player.slot.index}/{player.index} at "
                           f"{datetime.datetime.now(datetime.timezone.utc):%H:%M:%S.%f}, port "
                           f"{player.ws.local_address[1]}: {closed!r}")
            return
        if not player.closing:
            self.error("connection_dropped", f"player {player.slot.index}/{player.index}: closed by the server")

    def handle(self, player: Player, message: dict[str, Any]) -> None:
        """One message from the server: an ``ack`` ends a round trip, a state or its changes wake the player,
        an ``error`` is counted and lets the player try again."""
        kind = message.get("t")
        if kind == "ack":
            self.acknowledged(message.get("action_id", ""))
        elif kind in ("sync", "events"):
            self.changed(player, message)
        elif kind == "error":
            self.pending.pop(message.get("action_id") or "", None)
            self.error(f"error:{message.get('code')}", json.dumps(message))
            player.errors += 1
            player.acted_version = -1
            player.changed.set()

    def acknowledged(self, action_id: str) -> None:
        """Time the round trip of the action acknowledged, where it was sent during the window."""
        sent = self.pending.pop(action_id, None)
        if sent is None:
            return
        now = time.perf_counter()
        self.result.accepted_total += 1
        if self.window[0] <= sent[0] < self.window[1]:
            self.result.latencies_ms.append((now - sent[0]) * 1000)
            self.result.sent_at.append(time.time() - (now - sent[0]))
        if self.window[0] <= now < self.window[1]:
            self.result.accepted += 1

    def changed(self, player: Player, message: dict[str, Any]) -> None:
        """Bring the player's state of its table to the message's version (a whole state, or changes to it)."""
        if message.get("table") != player.slot.table_id:
            return
        version = int(message["version"])
        if version <= player.version:
            return
        changes = message.get("changes")
        if changes is not None:
            if message["from_version"] != player.version + 1 or player.state is None:
                self.error("changes_without_base", json.dumps(message)[:300])
                return
            player.state = apply_changes(player.state, changes)
        else:
            player.state = message["state"]
        player.version = version
        player.changed_at = time.perf_counter()
        player.synced.set()
        player.changed.set()

    # ----- play

    def choose(self, player: Player, state: dict[str, Any]) -> dict[str, Any] | None:
        """The player's action in ``state``: roll, or a uniformly random legal play; None when it has none."""
        from nardy.notation import position_from_dict

        game = state.get("game") or {}
        phase = game.get("phase")
        table = player.slot.table_id
        if phase == "rolling":
            return {"t": "roll", "table": table}
        if phase == "moving":
            plays = position_from_dict(game["boards"][player.seat]).legal_plays(game["dice"])
            if not plays:
                return None
            play = self.rng.choice(plays)
            steps = [{"source": s.source, "target": s.target, "die": s.die, "hit": s.hit} for s in play.steps]
            return {"t": "move", "table": table, "steps": steps}
        return None

    async def play(self, player: Player) -> None:
        """The player's loop: on each change, if the decision is its own, think, then act once for that version."""
        think = self.config.think
        while self.playing:
            await player.changed.wait()
            player.changed.clear()
            state = player.state
            if state is None or not self.playing:
                continue
            if state.get("status") == "finished":
                if player.index == 0 and state["table"] not in player.slot.finished_tables:
                    player.slot.finished_tables.add(state["table"])
                    await self.renew(player.slot)
                continue
            if state.get("actor") != player.seat or player.acted_version >= player.version:
                continue
            if player.errors > MAX_ERRORS_PER_PLAYER:
                return
            await asyncio.sleep(self.rng.expovariate(1 / think) if think > 0 else 0)
            state = player.state
            if not self.playing or state is None or state.get("actor") != player.seat:
                continue
            if player.acted_version >= player.version:
                continue
            action = self.choose(player, state)
            if action is None:
                continue
            self.sequence += 1
            action_id = f"a{self.config.index}.{self.sequence}"
            action["action_id"] = action_id
            player.acted_version = player.version
            self.pending[action_id] = (time.perf_counter(), player)
            await self.send(player, action)

    async def renew(self, slot: Slot) -> None:
        """The match ended: the same players open (and join) a new table."""
        assert self.lobby is not None, "set up before play"
        self.result.games_finished += 1
        try:
            table_id = await self.lobby.open_table(slot, rated=self.config.rated)
        except Exception as error:  # noqa: BLE001 - measured
            self.error("http_failed", repr(error))
            return
        old = slot.table_id
        slot.table_id = table_id
        self.result.tables_opened += 1
        for player in slot.players:
            player.version = -1
            player.acted_version = -1
            player.state = None
            await self.send(player, {"t": "unsubscribe", "table": old})
            await self.subscribe(player, table_id)

    # ----- phases

    async def setup(self) -> None:
        """Guests, tables and sockets for every slot (16 at a time), until every player has its table's state."""
        started = time.monotonic()
        lobby = self.lobby = Lobby(self.config.url, self.time_request)
        limit = asyncio.Semaphore(16)

        async def prepare(slot: Slot) -> None:
            async with limit:
                people = 1 if slot.computer is not None else 2
                seat = lobby.new_account if self.config.rated else lobby.new_guest
                slot.players = [await seat(slot, index) for index in range(people)]
                slot.table_id = await lobby.open_table(slot, rated=self.config.rated)
                for player in slot.players:
                    await self.connect(player)
                    await self.subscribe(player, slot.table_id)

        await asyncio.gather(*(prepare(slot) for slot in self.slots))
        for slot in self.slots:
            for player in slot.players:
                await asyncio.wait_for(player.synced.wait(), max(1.0, self.config.setup_timeout - (time.monotonic() - started)))
        self.result.setup_seconds = time.monotonic() - started

    async def run(self, go_at: float, window_start: float, window_end: float) -> None:
        """Play from ``go_at`` (wall clock) and measure between the window's bounds."""
        loop = asyncio.get_running_loop()
        offset = time.perf_counter() - time.time()
        await asyncio.sleep(max(0.0, go_at - time.time()))
        self.window = (window_start + offset, window_end + offset)
        players = self.start_playing()
        gc.collect()
        gc.disable()  # a collection of the client's own objects counts in every round trip under way then
        try:
            await asyncio.sleep(max(0.0, window_start - time.time()))
            cpu_start = time.process_time()
            await asyncio.sleep(max(0.0, window_end - time.time()))
            self.result.cpu_seconds = time.process_time() - cpu_start
            self.report_stalled()
            await asyncio.sleep(max(0.0, window_end + PLAY_PAST_WINDOW - time.time()))
            self.playing = False
            for player in players:
                player.changed.set()
            drain_until = loop.time() + DRAIN_TIMEOUT
            while self.pending and loop.time() < drain_until:
                await asyncio.sleep(0.05)
        finally:
            gc.enable()
        for action_id, (_, player) in self.pending.items():
            self.error("unanswered", f"{action_id} of player {player.slot.index}/{player.index}")

    def start_playing(self) -> list[Player]:
        """Every player starts its loop; the players."""
        self.playing = True
        players = [p for slot in self.slots for p in slot.players]
        for player in players:
            player.changed.set()
            self.tasks.append(asyncio.create_task(self.play(player)))
        return players

    async def play_until(self, matches: int) -> None:
        """Play, untimed, until ``matches`` matches have ended (:mod:`benchmarks.load.backlog`); RuntimeError at
        the first error, which would otherwise leave a table waiting forever."""
        self.start_playing()
        while self.result.games_finished < matches:
            if self.result.errors:
                raise RuntimeError(f"playing the matches: {self.result.error_samples[:3]}")
            await asyncio.sleep(0.05)
        self.playing = False

    def report_stalled(self) -> None:
        """An error for each game that did not change for any of its players during the window: one that waits
        for a message nobody sends fails no action, and would otherwise only thin the load unseen."""
        for slot in self.slots:
            if slot.players and max(player.changed_at for player in slot.players) < self.window[0]:
                state = slot.players[0].state or {}
                game = state.get("game") or {}
                self.error("stalled", f"table {slot.table_id} ({slot.variant}) at version "
                           f"{[player.version for player in slot.players]}, status {state.get('status')}, actor "
                           f"{state.get('actor')}, phase {game.get('phase')}, ports "
                           f"{[player.ws.local_address[1] for player in slot.players]}")

    async def close(self) -> None:
        """Stop playing, close every socket (20 s at most) and the HTTP pool."""
        players = [p for slot in self.slots for p in slot.players]
        for player in players:
            player.closing = True
        self.playing = False
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

        async def close_one(player: Player) -> None:
            if player.ws is not None:
                with contextlib.suppress(Exception):
                    await player.ws.close()

        await asyncio.wait_for(asyncio.gather(*(close_one(p) for p in players), return_exceptions=True), 20)
        if self.lobby is not None:
            await self.lobby.close()
