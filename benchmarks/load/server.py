"""One server process under test: started from a checkout with a fresh data directory, read, stopped.

Each level starts its servers afresh, so that no level inherits another's tables, memory or
collector state; the process runs the checkout named by ``--server`` through the launcher
(:mod:`benchmarks.load.launcher`), and is measured from outside through ``/proc``
(:mod:`benchmarks.load.probes`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.cpu_cap import CpuCap
from benchmarks.load.launcher import SERVER_LAUNCHER, Census, Pause, Probed, census_logged, pauses_logged, probes_logged
from benchmarks.load.probes import event_loop_cpu_seconds, proc_cpu_split, proc_rss_mib, sleeps, slept_between
from benchmarks.load.profiling import start_recording

ROOT = Path(__file__).resolve().parents[2]
"""This checkout: the server run when no ``--server`` is given."""
SERVER_START_TIMEOUT = 60.0
CENSUS_TIMEOUT = 20.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """One ``python -m nardy.server`` process (optionally under py-spy) with a fresh data directory."""

    def __init__(self, profile: Path | None, label: str, *, native: bool = False, root: Path = ROOT,
                 env: dict[str, str] | None = None, cpu_cap: float | None = None) -> None:
        self.native = native
        self.cap_cores = cpu_cap
        self.cap: CpuCap | None = None
        self.root = root
        self.extra_env = env or {}
        self.port = free_port()
        self.data_dir = Path(tempfile.mkdtemp(prefix="nardy-load-"))
        self.gc_path = self.data_dir / "gc.log"
        self.log_path = self.data_dir / "server.log"
        self.profile_path = profile / f"server-{label}.txt" if profile is not None else None
        self.url = f"http://127.0.0.1:{self.port}"
        self._process: subprocess.Popen[bytes] | None = None
        self.pid = 0

    def start(self) -> None:
        """Start the process and wait until it listens."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("NARDY_")}
        env.update({
            "NARDY_ENVIRONMENT": "testing",
            "NARDY_DATA_DIR": str(self.data_dir),
            "NARDY_HOST": "127.0.0.1",
            "NARDY_PORT": str(self.port),
            # every simulated player connects from 127.0.0.1: lift the per-address socket cap out of the way
            "NARDY_MAX_SOCKETS_PER_ADDRESS": "1000000",
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        })
        command = [sys.executable, "-c", SERVER_LAUNCHER, str(self.gc_path)]
        log = self.log_path.open("wb")
        self._process = subprocess.Popen(command, cwd=self.root, env=env, stdout=log, stderr=subprocess.STDOUT,
                                         stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        if self.cap_cores is not None:  # made here, not earlier, so that cleanup() always follows it
            self.cap = CpuCap(self.cap_cores)
            self.cap.add(self._process.pid)
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"the server exited at start:\n{self.log_tail()}")
            self.pid = self._process.pid
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            time.sleep(0.2)
        raise RuntimeError(f"the server did not listen within {SERVER_START_TIMEOUT:.0f} s:\n{self.log_tail()}")

    def cpu_split(self) -> tuple[float, float]:
        """(user, system) CPU seconds of the server so far."""
        return proc_cpu_split(self.pid)

    def loop_cpu_seconds(self) -> float:
        """CPU seconds of the server's event-loop thread so far."""
        return event_loop_cpu_seconds(self.pid)

    def sleeps(self) -> dict[int, int]:
        """How many times each of the server's threads slept so far, by thread id."""
        return sleeps(self.pid)

    def slept_between(self, before: dict[int, int], after: dict[int, int]) -> tuple[int, int]:
        """(of the event loop's thread, of all threads) sleeps between two counts of :meth:`sleeps`."""
        return slept_between(before, after, self.pid)

    def rss_mib(self) -> float:
        """The server's resident memory now."""
        return proc_rss_mib(self.pid)

    def throttled(self) -> tuple[int, float]:
        """(periods, seconds) its CPU cap has held the server back so far; (0, 0.0) uncapped."""
        return self.cap.throttled() if self.cap is not None else (0, 0.0)

    def start_profile(self, seconds: float) -> subprocess.Popen[bytes] | None:
        """Attach ``py-spy record`` to the server for ``seconds`` (the measured window only)."""
        if self.profile_path is None:
            return None
        return start_recording(self.pid, seconds, self.profile_path, native=self.native)

    def count_objects(self) -> None:
        """Ask the server (SIGUSR1) to log how many objects its collector tracks, and wait for the line."""
        with contextlib.suppress(OSError):
            os.kill(self.pid, signal.SIGUSR1)
        deadline = time.monotonic() + CENSUS_TIMEOUT
        while self.census() is None and time.monotonic() < deadline:
            time.sleep(0.1)

    def census(self) -> Census | None:
        """The collector's objects and garbage after the window, as last logged."""
        return census_logged(self.gc_path)

    def gc_pauses(self, start: float, end: float) -> list[Pause]:
        """The server's garbage collections that began in [start, end)."""
        return pauses_logged(self.gc_path, start, end)

    def probes(self, start: float, end: float) -> list[Probed]:
        """The collector's probes of the old generation that began in [start, end)."""
        return probes_logged(self.log_path, start, end)

    def log_tail(self, lines: int = 30) -> str:
        """The last ``lines`` of the server's log, for a level that failed."""
        with contextlib.suppress(OSError):
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        return ""

    def errors_logged(self) -> list[str]:
        """Server log lines that report an error or a traceback."""
        with contextlib.suppress(OSError):
            text = self.log_path.read_text(errors="replace")
            lines = text.splitlines()
            return [line for i, line in enumerate(lines)
                    if "ERROR" in line or "Traceback" in line or (i and "Traceback" in lines[i - 1])
                    or (line and not line[0].isspace() and "Error" in line.split(":")[0])]
        return []

    def stop(self) -> None:
        """SIGTERM (uvicorn shuts down cleanly), SIGKILL after 30 s."""
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(OSError):
                process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
        self._process = None

    def cleanup(self) -> None:
        """Remove the data directory and the CPU cap's cgroup, once the process has stopped."""
        shutil.rmtree(self.data_dir, ignore_errors=True)
        if self.cap is not None:
            self.cap.remove()
