"""A bot in another process, asked for each decision over one JSON line: the benchmarks' ``outside:`` player.

``python -m benchmarks.strength --matchup level:advanced,outside:COMMAND`` starts ``COMMAND`` (split as a
shell would, run without a shell) once per worker and keeps it for every game. Nothing the outside program
says is trusted: :mod:`nardy.rules` alone decides what is legal, and a play it does not allow is never made.

Protocol, one JSON object a line each way (UTF-8, ``\\n``-terminated):

Request, for each decision with at least two legal plays (a forced play or a pass is made without asking)::

    {"variant": "long-traditional",
     "points": [24 ints], "off": [mover, opponent], "bar": [mover, opponent],
     "dice": [5, 3], "first_roll": true,
     "plays": [{"steps": [[source, target, die], ...], "points": [24 ints], "off": [m, o], "bar": [m, o]}, ...]}

* The board is the mover's view (docs/rules.md §2): ``points[i]`` is point ``i + 1``, positive for the
  side to move, negative for the opponent; the mover travels from 24 towards 1 and bears off past point 1
  (long nardy: the mover's head is point 24, the opponent's head point 12, the mover's home points 1-6).
* ``first_roll``: all the mover's checkers are still on the head (long nardy's first-roll exception).
* ``plays``: every legal play, one per distinct resulting position, each with one order of its steps
  (``source`` 1..24 or 25 for the bar, ``target`` 1..24 or 0 for off, ``die``) and the position it
  leaves, still seen from the mover. ``bar`` is always ``[0, 0]`` in long nardy; the ``steps`` answer
  below covers neither entering from the bar nor hitting (answer with ``play`` in a variant with either).

Answer, one of::

    {"play": 3}                                   the index of a play in ``plays``
    {"steps": [[source, target, die], ...]}       the outside bot's own play, in the numbering above

Steps are applied checker by checker to the request's board (no legality check) and the play whose
resulting position is the same is made. When none is (a play our rules refuse) or the index is out of
range, the answer is **refused**: the play made instead is the legal play whose resulting ``points``
are nearest to the wanted ones (sum of absolute differences per point, first in ``plays`` order on a
tie); an answer with no usable steps falls back to the first legal play. A process that dies, closes
its output, writes something that is not JSON, or does not answer within ``timeout`` seconds is a
**failure**: the first legal play is made and the process is started again for the next decision;
:data:`MAX_FAILURES` failures in a row raise :class:`OutsideBotError`.

Record: with ``NARDY_OUTSIDE_LOG`` set in the environment, each asked decision appends one JSON line
``{"seconds": wall time of the exchange, "plays": n, "outcome": "chosen"|"refused"|"failure"}`` to that
file (workers inherit the variable); ``python -m benchmarks.outside_player --summary FILE`` prints the
counts and the decision times' median and 90th percentile.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from nardy.rules import Play, Position

MAX_FAILURES: Final = 3
"""Failures in a row after which the outside bot is given up."""
LOG_VARIABLE: Final = "NARDY_OUTSIDE_LOG"


class OutsideBotError(RuntimeError):
    """The outside program failed :data:`MAX_FAILURES` times in a row."""


def position_fields(position: Position) -> dict[str, list[int]]:
    """The board part of a request or a play: points, off and bar from the mover's view."""
    return {"points": list(position.points), "off": list(position.off), "bar": list(position.bar)}


def request_for(position: Position, dice: tuple[int, int], plays: Sequence[Play]) -> dict[str, Any]:
    """The JSON object sent for one decision (see the module docstring)."""
    return {
        "variant": position.variant.name,
        **position_fields(position),
        "dice": list(dice),
        "first_roll": position.is_first_roll(),
        "plays": [
            {"steps": [[s.source, s.target, s.die] for s in play.steps], **position_fields(play.position)}
            for play in plays
        ],
    }


def applied(points: Sequence[int], steps: Sequence[Sequence[int]]) -> list[int] | None:
    """``points`` after moving one of the mover's checkers per step (no legality check); None if a step
    names no checker of the mover's or a point off the board."""
    board = list(points)
    for step in steps:
        if len(step) < 2:
            return None
        source, target = int(step[0]), int(step[1])
        if not 1 <= source <= len(board) or not 0 <= target <= len(board) or board[source - 1] <= 0:
            return None
        board[source - 1] -= 1
        if target:
            board[target - 1] += 1
    return board


def nearest(plays: Sequence[Play], wanted: Sequence[int]) -> Play:
    """The play whose resulting points differ least from ``wanted`` (the first such in order)."""
    return min(plays, key=lambda play: sum(abs(a - b) for a, b in zip(play.position.points, wanted)))


class OutsidePlayer:
    """A player whose decisions come from ``command``, a separate process speaking the protocol above."""

    def __init__(self, command: Sequence[str], name: str | None = None, timeout: float = 60.0) -> None:
        self.command = list(command)
        self.name = name or f"outside {shlex.join(self.command)}"
        self.timeout = timeout
        self.outcomes: Counter[str] = Counter()
        self.failures_in_a_row = 0
        self.log = os.environ.get(LOG_VARIABLE)
        self.process: subprocess.Popen[str] | None = None

    def _start(self) -> subprocess.Popen[str]:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen(
                self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True, bufsize=1,
            )
        return self.process

    def _exchange(self, request: dict[str, Any]) -> Any:
        """The decoded answer line, or None on a failure (a process found dead is cleaned up here)."""
        process = self._start()
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            line = _read_line(process, self.timeout)
            return json.loads(line) if line else None
        except (OSError, ValueError):
            return None
        finally:
            if process.poll() is not None:
                self.close(grace=0.0)

    def close(self, grace: float = 5.0) -> None:
        """Stop the outside process, killing it after ``grace`` seconds (a later decision starts it again)."""
        process, self.process = self.process, None
        if process is None:
            return
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:
                    pass
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def choose_play(self, position: Position, dice: tuple[int, int]) -> Play | None:
        plays = position.legal_plays(dice)
        if len(plays) <= 1:
            return plays[0] if plays else None
        began = time.perf_counter()
        answer = self._exchange(request_for(position, dice, plays))
        play, outcome = self._judge(answer, position, plays)
        self._record(time.perf_counter() - began, len(plays), outcome)
        if outcome == "failure":
            self.close(grace=0.0)
            self.failures_in_a_row += 1
            if self.failures_in_a_row >= MAX_FAILURES:
                raise OutsideBotError(f"{self.name} failed {MAX_FAILURES} decisions in a row")
        else:
            self.failures_in_a_row = 0
        return play

    @staticmethod
    def _judge(answer: Any, position: Position, plays: Sequence[Play]) -> tuple[Play, str]:
        """The play to make for ``answer`` and whether it was chosen, refused or a failure."""
        if not isinstance(answer, dict):
            return plays[0], "failure"
        index = answer.get("play")
        if isinstance(index, int) and not isinstance(index, bool):
            return (plays[index], "chosen") if 0 <= index < len(plays) else (plays[0], "refused")
        steps = answer.get("steps")
        try:
            wanted = applied(position.points, steps) if isinstance(steps, list) else None
        except (TypeError, ValueError):
            wanted = None
        if wanted is None:
            return plays[0], "refused"
        for play in plays:  # the same points leave the same checkers off: nothing else moves in a steps answer
            if list(play.position.points) == wanted:
                return play, "chosen"
        return nearest(plays, wanted), "refused"

    def _record(self, seconds: float, plays: int, outcome: str) -> None:
        self.outcomes[outcome] += 1
        if self.log:
            with open(self.log, "a", encoding="utf-8") as log:
                log.write(json.dumps({"seconds": round(seconds, 6), "plays": plays, "outcome": outcome}) + "\n")


def _read_line(process: subprocess.Popen[str], timeout: float) -> str:
    """One line of the process's output, or "" when it ends or says nothing for ``timeout`` seconds."""
    import selectors

    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout):
            return ""
    return process.stdout.readline()


def summary(path: Path) -> dict[str, Any]:
    """Counts of each outcome and the decision times (seconds) of a ``NARDY_OUTSIDE_LOG`` file."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    seconds = sorted(r["seconds"] for r in records)
    outcomes = Counter(r["outcome"] for r in records)
    result: dict[str, Any] = {"decisions": len(records), **{k: outcomes.get(k, 0) for k in
                                                           ("chosen", "refused", "failure")}}
    if seconds:
        result["median_s"] = statistics.median(seconds)
        result["p90_s"] = seconds[min(len(seconds) - 1, int(0.9 * len(seconds)))]
        result["mean_s"] = statistics.fmean(seconds)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--summary", type=Path, required=True, help=f"a {LOG_VARIABLE} file")
    args = parser.parse_args(argv)
    json.dump(summary(args.summary), sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
