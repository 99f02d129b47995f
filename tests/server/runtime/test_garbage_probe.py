"""The old generation's probe: a forked child counts the cyclic garbage a collection would find, frees
nothing of the server's, cannot write to its sockets, and is killed when it does not report in time."""

from __future__ import annotations

import gc
import os
import resource
import socket
import time
import weakref
from collections.abc import Iterator

import pytest

from nardy.server.runtime.garbage_probe import probe_old_generation


class Ring:
    """A container made into a reference cycle of one."""

    def __init__(self) -> None:
        self.me = self


@pytest.fixture
def children(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The pids of the children the probe forks."""
    forked: list[int] = []
    fork = os.fork

    def recorded() -> int:
        pid = fork()
        if pid:
            forked.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recorded)
    return forked


def test_the_probe_counts_the_garbage_a_collection_would_find_and_frees_none_of_it(no_automatic_collection) -> None:
    rings = [Ring() for _ in range(500)]
    watch = weakref.ref(rings[0])
    del rings
    probe = probe_old_generation()
    assert probe is not None
    assert dict(probe.commonest)[f"{__name__}.Ring"] == 500
    assert probe.unreachable >= 500
    assert probe.stall_seconds <= probe.seconds
    assert watch() is not None  # the child's collection freed its own copy
    assert gc.collect() == probe.unreachable


def test_what_start_up_froze_is_not_counted(no_automatic_collection) -> None:
    frozen_rings = [Ring() for _ in range(300)]
    del frozen_rings
    gc.freeze()
    try:
        probe = probe_old_generation()
    finally:
        gc.unfreeze()
    assert probe is not None and f"{__name__}.Ring" not in dict(probe.commonest)


def test_the_childs_finalizers_cannot_write_to_the_servers_sockets(no_automatic_collection) -> None:
    server_end, client_end = socket.socketpair()

    class Notifier:
        """Garbage whose finalizer writes to a socket, as a connection's closing might."""

        def __init__(self) -> None:
            self.me = self

        def __del__(self) -> None:
            server_end.send(b"finalized")

    Notifier()
    probe = probe_old_generation()
    assert probe is not None and probe.unreachable >= 1
    client_end.setblocking(False)
    with pytest.raises(BlockingIOError):
        client_end.recv(64)
    gc.collect()  # the server's own collection runs the finalizer, once
    assert client_end.recv(64) == b"finalized"
    server_end.close()
    client_end.close()


def test_a_child_that_does_not_report_in_time_is_killed_and_reaped(no_automatic_collection, children) -> None:
    class Stuck:
        """Garbage whose finalizer never returns, as one waiting on a lock another thread held at the fork."""

        def __init__(self) -> None:
            self.me = self

        def __del__(self) -> None:
            time.sleep(3600)

    Stuck()
    started = time.monotonic()
    assert probe_old_generation(timeout=0.5) is None
    assert time.monotonic() - started < 5
    assert len(children) == 1
    with pytest.raises(ChildProcessError):
        os.waitpid(children[0], os.WNOHANG)  # reaped already: no zombie left
    Stuck.__del__ = lambda self: None  # the test process collects it at the end


@pytest.fixture
def past_1024_descriptors() -> Iterator[None]:
    """Descriptors 3 to 1,100 open, so that the next one made is numbered past 1,024, as in a process serving
    some 500 games or more."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 1_200
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"this process may open only {hard} descriptors")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    opened: list[int] = []
    try:
        while not opened or opened[-1] < 1_100:
            opened.append(os.open(os.devnull, os.O_RDONLY))
        yield
    finally:
        for descriptor in opened:
            os.close(descriptor)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_the_probe_reports_in_a_process_holding_over_1024_descriptors(
    no_automatic_collection, past_1024_descriptors,
) -> None:
    rings = [Ring() for _ in range(50)]
    del rings
    probe = probe_old_generation()
    assert probe is not None and probe.unreachable >= 50
