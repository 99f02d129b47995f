"""The site-wide figures are worked out at most once in a while (nardy.server.services.recent)."""

from __future__ import annotations

import threading

from nardy.server.services.recent import Recent


class FakeTime:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_an_answer_is_served_until_it_is_old_then_worked_out_again() -> None:
    clock = FakeTime()
    recent: Recent[int] = Recent(300, now=clock)
    scans: list[float] = []

    def scan() -> int:
        scans.append(clock.now)
        return len(scans)

    assert recent.get(scan) == 1
    clock.now = 299.0
    assert recent.get(scan) == 1
    clock.now = 300.0
    assert recent.get(scan) == 2
    assert scans == [0.0, 300.0]


def test_threads_asking_together_scan_once() -> None:
    recent: Recent[str] = Recent(300)
    started = threading.Event()
    release = threading.Event()
    scans: list[int] = []

    def slow_scan() -> str:
        scans.append(1)
        started.set()
        release.wait(5)
        return "figures"

    answers: list[str] = []
    first = threading.Thread(target=lambda: answers.append(recent.get(slow_scan)))
    first.start()
    started.wait(5)
    others = [threading.Thread(target=lambda: answers.append(recent.get(slow_scan))) for _ in range(3)]
    for thread in others:
        thread.start()
    release.set()
    for thread in (first, *others):
        thread.join(5)
    assert answers == ["figures"] * 4
    assert scans == [1]
