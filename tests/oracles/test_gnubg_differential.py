"""Differential test: our backgammon plays against GNU Backgammon's move generator.

For about 24,000 (position, roll) pairs the set of positions our legal plays
lead to must equal the set GNU Backgammon gives, position for position
(points + bar + off, 28 integers, mover's view). gnubg runs in its own
process (tests/oracles/gnubg_movegen.py, GPL: never imported here), fed
through pipes: a writer thread streams requests while our engine works on
the next ones, a reader thread collects the answers, so the two generators
run side by side on two cores.

The corpus, all from fixed seeds:

* ``opening``: the first 24 plies of random games (random dice, random
  legal plays), where most contact and hitting happens;
* ``deep``: whole random games, to the last checker borne off;
* ``bar``: random placements with one to four of our checkers on the bar
  against a home board holding three to six closed points (entries partly
  or wholly blocked, passes);
* ``bear-off``: random bear-off positions, with opposing checkers in our home
  (hits while bearing off), and a checker or two just outside so that the
  bear-off starts during the turn.

The assertion message counts each source and each feature (doubles, bar
entries, passes, ...) so a thin corpus is visible.
"""

from __future__ import annotations

import json
import queue
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from nardy.rules import MAX_CHECKERS, Position

pytestmark = pytest.mark.oracle

ORACLE = Path(__file__).with_name("gnubg_movegen.py")
MISSING_GNUBG = 3  # the oracle's exit status when gnubg_nn is not installed

Key = tuple[int, ...]  # points(24) + bar(2) + off(2)


@dataclass(frozen=True)
class Case:
    source: str
    position: Position
    dice: tuple[int, int]
    ours: frozenset[Key]


def key_of(position: Position) -> Key:
    return (*position.points, *position.bar, *position.off)


def our_case(source: str, position: Position, dice: tuple[int, int]) -> Case:
    return Case(source, position, dice, frozenset(key_of(play.position) for play in position.legal_plays(dice)))


def roll(rng: random.Random) -> tuple[int, int]:
    return (rng.randint(1, 6), rng.randint(1, 6))


# ------------------------------------------------------------------ corpus


def random_games(source: str, seed: int, games: int, max_plies: int) -> Iterator[Case]:
    """Each position of ``games`` random games with the roll thrown there."""
    rng = random.Random(seed)
    for _ in range(games):
        position = Position.start("backgammon")
        for _ in range(max_plies):
            if position.is_game_over():
                break
            dice = roll(rng)
            plays = position.legal_plays(dice)
            yield Case(source, position, dice, frozenset(key_of(play.position) for play in plays))
            position = (rng.choice(plays).position if plays else position).turned()


def scatter(rng: random.Random, points: list[int], count: int, where: list[int], sign: int) -> None:
    """Drop ``count`` checkers of one side (``sign``) on random points of ``where`` it may stand on."""
    for _ in range(count):
        open_points = [p for p in where if points[p - 1] * sign >= 0]
        points[rng.choice(open_points) - 1] += sign


def bar_positions(seed: int, count: int) -> Iterator[Case]:
    """Our checkers on the bar against a strong home board (our points 19..24 are the opponent's home)."""
    rng = random.Random(seed)
    for _ in range(count):
        points = [0] * 24
        closed = rng.sample(range(19, 25), rng.randint(3, 6))
        for point in closed:
            points[point - 1] = -2
        theirs_left = MAX_CHECKERS - sum(-c for c in points)
        their_bar = rng.choice([0, 0, 0, 1])
        scatter(rng, points, theirs_left - their_bar, list(range(1, 25)), -1)
        our_bar = rng.choice([1, 1, 2, 2, 3, 4])
        scatter(rng, points, MAX_CHECKERS - our_bar, list(range(1, 25)), +1)
        position = Position("backgammon", points, (our_bar, their_bar), (0, 0))
        yield our_case("bar", position, roll(rng))


def bear_off_positions(seed: int, count: int) -> Iterator[Case]:
    """Our checkers home (or one or two just outside), some borne off, some opposing checkers in our home."""
    rng = random.Random(seed)
    for _ in range(count):
        points = [0] * 24
        our_off = rng.randint(0, 13)
        outside = rng.choice([0, 0, 0, 1, 2])
        for point in rng.sample(range(1, 7), rng.randint(0, 2)):  # opposing blots and anchors
            points[point - 1] = -rng.randint(1, 2)
        theirs_left = MAX_CHECKERS - sum(-c for c in points)
        their_bar = rng.choice([0, 0, 0, 1, 2])
        their_off = rng.randint(0, 5) if rng.random() < 0.3 else 0
        scatter(rng, points, theirs_left - their_bar - their_off, list(range(13, 25)), -1)
        scatter(rng, points, outside, list(range(7, 10)), +1)
        scatter(rng, points, MAX_CHECKERS - our_off - outside, list(range(1, 7)), +1)
        position = Position("backgammon", points, (0, their_bar), (our_off, their_off))
        yield our_case("bear-off", position, roll(rng))


def corpus() -> Iterator[Case]:
    yield from random_games("opening", seed=1, games=260, max_plies=24)
    yield from random_games("deep", seed=2, games=110, max_plies=400)
    yield from bar_positions(seed=3, count=3_000)
    yield from bear_off_positions(seed=4, count=3_000)


def features(case: Case) -> list[str]:
    """The situations a case exercises, for the coverage counts."""
    position, found = case.position, [f"source {case.source}"]
    if case.dice[0] == case.dice[1]:
        found.append("doubles")
    if position.bar[0] == 1:
        found.append("one checker on the bar")
    if position.bar[0] >= 2:
        found.append("several checkers on the bar")
    if position.bar[0]:
        blocked = sum(position.points[25 - die - 1] <= -2 for die in set(case.dice))
        if blocked:
            found.append("entry blocked for a die")
        if all(position.points[p - 1] <= -2 for p in range(19, 25)):
            found.append("closed board")
    if not position.bar[0] and all(c <= 0 for c in position.points[6:]):
        found.append("bear-off")
    if not case.ours:
        found.append("pass")
    if any(key[25] > position.bar[1] for key in case.ours):
        found.append("a hit possible")
    return found


# ------------------------------------------------------------------ oracle


def request(case: Case) -> str:
    position = case.position
    return json.dumps(
        {"points": list(position.points), "bar": list(position.bar), "off": list(position.off), "dice": list(case.dice)},
        separators=(",", ":"),
    ) + "\n"


def start_oracle() -> subprocess.Popen[str]:
    """Start the oracle and check it answers; skip the test when gnubg_nn is not installed."""
    process = subprocess.Popen(
        [sys.executable, str(ORACLE)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1 << 16,
    )
    assert process.stdin and process.stdout and process.stderr
    start = Position.start("backgammon")
    try:
        process.stdin.write(request(Case("probe", start, (3, 1), frozenset())))
        process.stdin.flush()
    except BrokenPipeError:
        pass
    line = process.stdout.readline()
    if not line:
        status = process.wait(timeout=30)
        message = process.stderr.read().strip()
        if status == MISSING_GNUBG:
            pytest.skip(f"GNU Backgammon oracle unavailable ({message}); see tests/oracles/README.md")
        pytest.fail(f"the oracle exited with status {status}: {message}")
    assert len(json.loads(line)["positions"]) == 16, "the oracle's answer for 3-1 from the start"
    return process


@pytest.mark.slow
def test_backgammon_plays_match_gnubg() -> None:
    """Our resulting positions equal GNU Backgammon's for every case of the corpus: zero disagreements.

    Also: the corpus holds at least 20,000 cases and every feature that
    matters (bar entries with one and several checkers, blocked entries and
    a closed board, bear-offs, doubles, passes) appears at least 100 times.
    """
    began = time.perf_counter()
    process = start_oracle()
    assert process.stdin and process.stdout
    stdin, stdout = process.stdin, process.stdout
    lines: queue.Queue[str | None] = queue.Queue(maxsize=2_000)
    answers: list[str] = []

    def write() -> None:
        while (line := lines.get()) is not None:
            stdin.write(line)
        stdin.close()

    def read() -> None:
        answers.extend(stdout)

    threads = [threading.Thread(target=write, daemon=True), threading.Thread(target=read, daemon=True)]
    for thread in threads:
        thread.start()
    cases: list[Case] = []
    try:
        for case in corpus():
            cases.append(case)
            lines.put(request(case))
    finally:
        lines.put(None)
        for thread in threads:
            thread.join(timeout=120)
        process.kill()
        process.wait()

    coverage = Counter(feature for case in cases for feature in features(case))
    disagreements = []
    assert len(answers) == len(cases), f"{len(cases)} requests, {len(answers)} answers"
    for case, answer in zip(cases, answers):
        reply = json.loads(answer)
        assert "positions" in reply, f"oracle error {reply} for {request(case)}"
        theirs = frozenset(tuple(p) for p in reply["positions"])
        if theirs != case.ours:
            disagreements.append((case, sorted(case.ours - theirs), sorted(theirs - case.ours)))

    elapsed = time.perf_counter() - began
    summary = (
        f"{len(cases)} cases in {elapsed:.1f} s, {len(disagreements)} disagreements; coverage: "
        + ", ".join(f"{name} {count}" for name, count in sorted(coverage.items()))
    )
    print(summary)
    examples = "\n".join(
        f"  {case.source} {request(case).strip()}: only ours {only_ours[:3]}, only gnubg {only_gnubg[:3]}"
        for case, only_ours, only_gnubg in disagreements[:5]
    )
    assert not disagreements, f"{summary}\nfirst disagreements:\n{examples}"
    assert len(cases) >= 20_000, summary
    for feature in ("doubles", "one checker on the bar", "several checkers on the bar", "entry blocked for a die",
                    "closed board", "bear-off", "pass", "a hit possible"):
        assert coverage[feature] >= 100, f"too few cases of {feature!r}: {summary}"
