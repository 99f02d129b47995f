"""Server processes for the end-to-end tests: ``python -m nardy.server``, forked from an interpreter that has it imported.

Starting the server from scratch costs about 1.3 s of CPU, nearly all of it
importing FastAPI, SQLAlchemy, Alembic, numpy and the rest, and the suite
starts some two hundred servers on two cores. A multiprocessing
*forkserver* imports the server once per test process; every server is then
a fork of it that runs ``nardy.server`` as ``__main__`` with its own
environment, working directory and log, as ``python -m nardy.server`` would
(nothing in ``nardy`` reads the environment at import). :func:`start_server`
answers a handle with the part of :class:`subprocess.Popen`'s interface the
tests use.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import runpy
import signal
import subprocess
import sys
import weakref
from multiprocessing.process import BaseProcess
from pathlib import Path

_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(["nardy.server.app", "nardy.server.__main__"])

_RUNNING: weakref.WeakSet[ServerProcess] = weakref.WeakSet()


class ServerProcess:
    """A forked server: ``pid``, ``poll``, ``wait``, ``returncode``, ``send_signal`` and ``kill``, as for a Popen."""

    def __init__(self, process: BaseProcess) -> None:
        self._process = process
        assert process.pid is not None
        self.pid: int = process.pid

    @property
    def returncode(self) -> int | None:
        """The exit status (negative: the signal that ended it), or None while it runs."""
        return self._process.exitcode

    def poll(self) -> int | None:
        """:attr:`returncode`, after looking whether it has ended."""
        return self._process.exitcode

    def wait(self, timeout: float | None = None) -> int:
        """Wait until it ends; :class:`subprocess.TimeoutExpired` after ``timeout`` seconds."""
        self._process.join(timeout)
        code = self._process.exitcode
        if code is None:
            raise subprocess.TimeoutExpired(["nardy.server", str(self.pid)], timeout or 0.0)
        return code

    def send_signal(self, sig: int) -> None:
        """Send ``sig`` unless it has ended already."""
        if self._process.exitcode is None:
            os.kill(self.pid, sig)

    def kill(self) -> None:
        """SIGKILL."""
        self.send_signal(signal.SIGKILL)


def start_server(environment: dict[str, str], cwd: Path, log_path: Path) -> ServerProcess:
    """Start ``python -m nardy.server`` with exactly ``environment``, in ``cwd``, its output appended to ``log_path``."""
    process = _CONTEXT.Process(target=_serve, args=(dict(environment), str(cwd), str(log_path)), name="nardy.server")
    process.start()
    handle = ServerProcess(process)
    _RUNNING.add(handle)
    return handle


def _serve(environment: dict[str, str], cwd: str, log_path: str) -> None:
    """In the forked child: become ``python -m nardy.server``."""
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(environment)
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.close(null)
    sys.stdout.reconfigure(write_through=True)
    sys.stderr.reconfigure(write_through=True)
    sys.argv = [sys.executable]
    runpy.run_module("nardy.server", run_name="__main__", alter_sys=True)


@atexit.register
def _kill_leftovers() -> None:
    """Never leave a server behind (multiprocessing would wait for it at exit); runs before multiprocessing's own hook."""
    for handle in list(_RUNNING):
        handle.kill()
