"""HAProxy in front of several server processes, as a deployment would put it, and what its log says.

Several processes share the tables only through the database and Redis; both players' WebSockets of a
table must reach the same process, which HAProxy does by the ``table`` in their URL (the client puts it
there). Its log tells how each connection ended, so that a connection the client saw dropped can be
traced to the proxy or to a server.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
import time
from collections import Counter
from pathlib import Path

from benchmarks.load.probes import proc_cpu_seconds
from benchmarks.load.server import free_port

HAPROXY_CONFIG = """global
    maxconn 8000
    log stdout format raw local0 info
defaults
    mode http
    log global
    log-format "%tr %ci:%cp %s %bi:%bp %ST %tsc %Tt %B %U"
    timeout connect 5s
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h
frontend players
    bind 127.0.0.1:{port}
    default_backend servers
backend servers
    balance url_param table
    hash-type consistent
{servers}
"""


class Proxy:
    """HAProxy in front of the servers: WebSockets sticky by the table in their URL, other requests spread."""

    def __init__(self, ports: list[int], data_dir: Path) -> None:
        self.port = free_port()
        self.config_path = data_dir / "haproxy.cfg"
        self.log_path = data_dir / "haproxy.log"
        self.config_path.write_text(HAPROXY_CONFIG.format(port=self.port, servers="\n".join(
            f"    server s{i} 127.0.0.1:{port}" for i, port in enumerate(ports))))
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start HAProxy and wait until it listens (10 s at most)."""
        binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
        if not Path(binary).exists():
            raise RuntimeError("several processes need HAProxy in front of them: apt-get install haproxy")
        with self.log_path.open("ab") as log:
            self._process = subprocess.Popen([binary, "-f", str(self.config_path), "-db"], stdout=log,
                                             stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"haproxy exited: {self._process.stderr.read().decode(errors='replace')[-500:]}"
                                   if self._process.stderr else "haproxy exited")
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            time.sleep(0.1)
        raise RuntimeError("haproxy did not listen within 10 s")

    def cpu_seconds(self) -> float:
        """HAProxy's CPU seconds so far."""
        return proc_cpu_seconds(self._process.pid) if self._process is not None else 0.0

    def endings(self, client_ports: set[int]) -> tuple[Counter[str], list[str]]:
        """How HAProxy's connections ended (termination states, counted), and its log lines for the connections
        from ``client_ports`` (those the load client saw dropped) and those that ended abnormally (all but the
        readiness check's, closed during its request)."""
        states: Counter[str] = Counter()
        lines: list[str] = []
        with contextlib.suppress(OSError):
            for line in self.log_path.read_text(errors="replace").splitlines():
                fields = line.split()  # as HAPROXY_CONFIG's log-format: the client's port second, the state sixth
                if len(fields) < 6:
                    continue
                states[fields[5]] += 1
                port = fields[1].rpartition(":")[2]
                if (port.isdigit() and int(port) in client_ports) or fields[5] not in ("----", "CR--"):
                    lines.append(line)
        return states, lines

    def stop(self) -> None:
        """SIGTERM, SIGKILL after 10 s."""
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(timeout=10)
            if self._process.poll() is None:
                self._process.kill()
        self._process = None
