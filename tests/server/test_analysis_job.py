"""A server pool's analysis process does not outlive its server: killed mid-job, the server leaves no worker
behind (its job goes stale and is claimed again)."""

from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from nardy.server.services.analysis_job import start_pool_worker


def server_with_a_busy_pool(pid_file: str) -> None:
    """In a spawned process standing in for the server: a pool like the server's, its process busy, then wait."""
    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                               initializer=start_pool_worker)
    worker = pool.submit(os.getpid).result()
    pool.submit(time.sleep, 600)  # a long job under way when the server dies
    Path(pid_file).write_text(str(worker))
    time.sleep(600)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def test_a_pool_process_ends_when_its_server_is_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "worker.pid"
    server = multiprocessing.get_context("spawn").Process(target=server_with_a_busy_pool, args=(str(pid_file),))
    server.start()
    try:
        deadline = time.monotonic() + 60
        while not pid_file.exists() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the pool did not start"
            time.sleep(0.05)
        worker = int(pid_file.read_text())
        assert _alive(worker)
    finally:
        server.kill()
        server.join()
    deadline = time.monotonic() + 15
    while _alive(worker):
        assert time.monotonic() < deadline, "the pool's process outlived its server"
        time.sleep(0.1)
