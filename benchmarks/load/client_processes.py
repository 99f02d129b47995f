"""The client processes of a level, both sides of their pipe: the parent starts, readies, starts and collects them.

The players run in processes of their own (``--clients``), so that the client's CPU is not the
server's and several cores can drive one server. Each process is spawned fresh, sets up its share
of the games, says ``ready``; once all are ready the parent sends one ``go`` with the window's
bounds in wall-clock time, so that every process measures the same window, and each answers
``done`` with its :class:`~benchmarks.load.players.ClientResult` (or ``failed``).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import multiprocessing.connection
import multiprocessing.process
import os
import signal
import time

from benchmarks.load.client import DRAIN_TIMEOUT, PLAY_PAST_WINDOW, Client
from benchmarks.load.players import ClientConfig, ClientResult

CLIENT_STOP_TIMEOUT = 30.0


def client_main(conn: multiprocessing.connection.Connection, config: ClientConfig) -> None:
    """A client process: set up, report ready, wait for the start time, play, report the results."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(ImportError):
        import uvloop

        uvloop.install()

    async def main() -> None:
        client = Client(config)
        try:
            try:
                await asyncio.wait_for(client.setup(), config.setup_timeout)
            except Exception as error:  # noqa: BLE001 - reported to the parent
                conn.send(("failed", f"setup: {error!r}"))
                return
            conn.send(("ready", client.result.setup_seconds))
            loop = asyncio.get_running_loop()
            ready = asyncio.Event()
            loop.add_reader(conn.fileno(), ready.set)
            await asyncio.wait_for(ready.wait(), 600)
            loop.remove_reader(conn.fileno())
            os.set_blocking(conn.fileno(), True)  # uvloop left it non-blocking: a long run's results outgrow the pipe
            command, go_at, window_start, window_end = conn.recv()
            if command != "go":
                return
            await asyncio.wait_for(client.run(go_at, window_start, window_end),
                                   window_end + PLAY_PAST_WINDOW - time.time() + DRAIN_TIMEOUT + 30)
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.close(), CLIENT_STOP_TIMEOUT)
        conn.send(("done", client.result))

    asyncio.run(main())


class ClientProcesses:
    """The parent's side: one spawned process and one pipe per :class:`~benchmarks.load.players.ClientConfig`."""

    def __init__(self) -> None:
        self._context = multiprocessing.get_context("spawn")
        self._children: list[tuple[multiprocessing.process.BaseProcess, multiprocessing.connection.Connection]] = []

    def start(self, configs: list[ClientConfig]) -> None:
        """Spawn a process for each config; each sets up its games at once."""
        for config in configs:
            parent_end, child_end = self._context.Pipe()
            spawned = self._context.Process(target=client_main, args=(child_end, config), daemon=True)
            spawned.start()
            child_end.close()
            self._children.append((spawned, parent_end))

    def wait_ready(self, setup_timeout: float) -> float:
        """Wait until every process has set up; the longest setup's seconds. RuntimeError if one failed or is late."""
        setups = []
        for _, conn in self._children:
            if not conn.poll(setup_timeout + 30):
                raise RuntimeError(f"a client was not ready within {setup_timeout + 30:.0f} s")
            status, value = conn.recv()
            if status != "ready":
                raise RuntimeError(f"a client failed: {value}")
            setups.append(value)
        return float(max(setups))

    def go(self, go_at: float, window_start: float, window_end: float) -> None:
        """Tell every process when to start playing and the window to measure (wall-clock seconds)."""
        for _, conn in self._children:
            conn.send(("go", go_at, window_start, window_end))

    def results(self) -> list[ClientResult]:
        """Every process's results once it has drained and closed; RuntimeError if one failed or is late."""
        results = []
        for process, conn in self._children:
            if not conn.poll(DRAIN_TIMEOUT + CLIENT_STOP_TIMEOUT + 60):
                raise RuntimeError("a client did not report its results in time")
            status, result = conn.recv()
            if status != "done":
                raise RuntimeError(f"a client failed: {result}")
            results.append(result)
            process.join(10)
        return results

    def stop(self) -> None:
        """End the processes still running: SIGTERM, then SIGKILL after 5 s."""
        for process, _ in self._children:
            if process.is_alive():
                process.terminate()
                process.join(5)
            if process.is_alive():
                process.kill()
                process.join(5)
