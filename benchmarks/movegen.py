"""Move-generation speed: ``Position.legal_plays`` per variant, and GNU Backgammon as a baseline.

Run::

    python -m benchmarks.movegen [--positions N] [--repeat R] [--no-oracle] [--corpus random|bots]

Corpus: for each variant, the first ``N`` (position, roll) pairs met in
random games played from the start with ``random.Random("movegen:<variant>")``
(random dice, uniformly random legal plays, the board turned each ply, a new
game when one ends). The same seed gives the same corpus on every machine.

With ``--corpus bots`` the pairs are instead those a bot's search asks
about: the positions of a fixed bot's self-play (``benchmarks.strength``'s
speed corpus) and the same boards turned over, each with all 21 rolls.

Ours: one timed pass calls ``legal_plays`` once per pair; ``plays/s`` is
plays found per second, ``positions/s`` pairs answered per second. Each
figure is the median of ``R`` passes.

Baseline: backgammon's corpus is also answered by GNU Backgammon through
tests/oracles/gnubg_movegen.py, run as a separate process (GPL; never
imported). gnubg's own generator takes microseconds, but every request
crosses a pipe and is JSON-decoded, converted and JSON-encoded by Python in
the oracle, so what is timed is the oracle's throughput with pipelined
requests (a writer thread streams the whole corpus while the main thread
reads the answers; timing starts at the first write and ends at the last
answer, with the process already started and warmed). To show how much of it
is plumbing, the same number of full-size requests with an invalid roll
(the oracle parses and validates them, then answers an error without calling
gnubg) is timed as the "floor". Finally the oracle is run once more, unchanged,
under ``python -m cProfile``, and the time spent inside gnubg's C functions is
read from the profile: ``gnubg_nn.moves`` generates the plays as packed
position keys, ``board_from_position_key`` decodes each into a board. That
is gnubg's own move generation, the closest to an engine-to-engine figure
(it leaves out the oracle's Python conversion of gnubg's answers; the
profiler adds some overhead per call, most to the many short decodes). Ratios are ours / theirs in positions
per second; above 1 means we are faster.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import pstats
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from nardy.rules import DICE_ROLLS, VARIANTS, Position

ROOT = Path(__file__).resolve().parent.parent
ORACLE = ROOT / "tests" / "oracles" / "gnubg_movegen.py"
MISSING_GNUBG = 3

Corpus = list[tuple[Position, tuple[int, int]]]


def build_corpus(variant: str, size: int) -> Corpus:
    """The first ``size`` (position, roll) pairs of seeded random games of ``variant``."""
    rng = random.Random(f"movegen:{variant}")
    corpus: Corpus = []
    while len(corpus) < size:
        position = Position.start(variant)
        while not position.is_game_over() and len(corpus) < size:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            corpus.append((position, dice))
            plays = position.legal_plays(dice)
            position = (rng.choice(plays).position if plays else position).turned()
    return corpus


def bot_corpus(variant: str, size: int) -> Corpus:
    """``size`` (position, roll) pairs like those a bot's search asks about.

    The positions of :func:`benchmarks.strength.speed_corpus` (a fixed bot's
    self-play), each also turned over, with every one of the 21 rolls.
    """
    from benchmarks.strength import speed_corpus

    corpus: Corpus = []
    for position, _ in speed_corpus(variant, -(-size // (2 * len(DICE_ROLLS)))):
        corpus.extend((side, roll) for side in (position, position.turned()) for roll in DICE_ROLLS)
    return corpus[:size]


CORPORA = {"random": build_corpus, "bots": bot_corpus}


def time_ours(corpus: Corpus) -> tuple[float, int]:
    """Seconds for one pass of ``legal_plays`` over the corpus, and the plays found."""
    plays = 0
    began = time.perf_counter()
    for position, dice in corpus:
        plays += len(position.legal_plays(dice))
    return time.perf_counter() - began, plays


class Oracle:
    """The gnubg oracle process, fed whole batches through its pipes."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(ORACLE)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1 << 16,
        )

    def batch(self, lines: Sequence[str]) -> tuple[float, list[str]]:
        """Send ``lines`` (pipelined) and collect one answer each; seconds from first write to last answer."""
        process = self.process
        assert process.stdin and process.stdout
        stdin = process.stdin

        def write() -> None:
            stdin.writelines(lines)
            stdin.flush()

        began = time.perf_counter()
        writer = threading.Thread(target=write)
        writer.start()
        answers = [process.stdout.readline() for _ in lines]
        elapsed = time.perf_counter() - began
        writer.join()
        if answers and not answers[-1]:
            status = process.wait(timeout=30)
            assert process.stderr
            raise OracleMissing(status, process.stderr.read().strip())
        return elapsed, answers

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=30)


class OracleMissing(RuntimeError):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"oracle exited with status {status}: {message}")
        self.status = status


def gnubg_core_seconds(lines: Sequence[str]) -> tuple[float, float] | None:
    """Seconds inside gnubg's C functions answering ``lines``, from a cProfile run of the oracle.

    Returns (``moves``: generate the plays as packed position keys,
    ``board_from_position_key``: decode each result into a board). The
    oracle script runs unchanged in its own process; only the profile file
    is read here. ``None`` when the profile does not name ``moves``.
    """
    with tempfile.TemporaryDirectory() as folder:
        profile = Path(folder) / "oracle.prof"
        finished = subprocess.run(
            [sys.executable, "-m", "cProfile", "-o", str(profile), str(ORACLE)],
            input="".join(lines), capture_output=True, text=True, check=False,
        )
        if finished.returncode != 0:
            raise OracleMissing(finished.returncode, finished.stderr.strip())
        stats = pstats.Stats(str(profile)).stats  # type: ignore[attr-defined]

    def inside(function: str) -> float | None:
        found = [timing[3] for (_, _, name), timing in stats.items() if "gnubg_nn" in name and name.endswith(function)]
        return sum(found) if found else None

    moves, decode = inside(".moves>"), inside(".board_from_position_key>")
    return None if moves is None else (moves, decode or 0.0)


def request(position: Position, dice: tuple[int, int]) -> str:
    return json.dumps(
        {"points": list(position.points), "bar": list(position.bar), "off": list(position.off), "dice": list(dice)},
        separators=(",", ":"),
    ) + "\n"


def key_of(position: Position) -> tuple[int, ...]:
    return (*position.points, *position.bar, *position.off)


def machine() -> str:
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{model}, {os.cpu_count()} CPUs; {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()} ({platform.python_implementation()})"
    )


def commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head}{' + uncommitted changes' if dirty else ''}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.movegen", description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=10_000, help="(position, roll) pairs per variant")
    parser.add_argument("--repeat", type=int, default=5, help="timed passes; the median is reported")
    parser.add_argument("--no-oracle", action="store_true", help="skip the GNU Backgammon baseline")
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="random",
                        help="random games (default), or the positions bots search (every roll of each)")
    args = parser.parse_args(argv)

    command = " ".join(["python -m benchmarks.movegen", *(argv if argv is not None else sys.argv[1:])])
    print(f"command: {command}")
    print(f"date:    {datetime.datetime.now().astimezone():%Y-%m-%d %H:%M %Z}")
    print(f"commit:  {commit()}")
    print(f"machine: {machine()}")
    source = "seeded random games" if args.corpus == "random" else "a fixed bot's self-play, every roll"
    print(f"corpus:  {args.positions:,} (position, roll) pairs per variant from {source}; "
          f"median of {args.repeat} passes")
    print()
    print("| variant | plays per position | plays/s | positions/s | µs per position |")
    print("| --- | ---: | ---: | ---: | ---: |")

    corpora: dict[str, Corpus] = {}
    ours_seconds: dict[str, float] = {}
    for variant in VARIANTS:
        corpus = corpora[variant] = CORPORA[args.corpus](variant, args.positions)
        runs = [time_ours(corpus) for _ in range(args.repeat)]
        seconds = ours_seconds[variant] = statistics.median(elapsed for elapsed, _ in runs)
        print(row(variant, len(corpus), runs[0][1], seconds, per_position=True))

    if args.no_oracle:
        return 0
    corpus = corpora["backgammon"]
    lines = [request(position, dice) for position, dice in corpus]
    floor_lines = [request(position, (0, 0)) for position, _ in corpus]  # invalid roll: no gnubg call
    oracle = Oracle()
    try:
        oracle.batch(lines[:200])  # start-up and warm-up, not timed
        batches = [oracle.batch(lines) for _ in range(args.repeat)]
        floor = statistics.median(oracle.batch(floor_lines)[0] for _ in range(args.repeat))
        profiled = [gnubg_core_seconds(lines) for _ in range(args.repeat)]
    except OracleMissing as missing:
        if missing.status == MISSING_GNUBG:
            print(f"\nGNU Backgammon baseline skipped: {missing}")
            return 0
        raise
    finally:
        oracle.close()

    theirs = [frozenset(tuple(p) for p in json.loads(answer)["positions"]) for answer in batches[0][1]]
    disagreements = sum(
        frozenset(key_of(play.position) for play in position.legal_plays(dice)) != found
        for (position, dice), found in zip(corpus, theirs)
    )
    plays, size = sum(len(found) for found in theirs), len(corpus)
    oracle_seconds = statistics.median(elapsed for elapsed, _ in batches)
    known = [seconds for seconds in profiled if seconds is not None]
    core = statistics.median(moves for moves, _ in known) if known else None
    decode = statistics.median(decode for _, decode in known) if known else 0.0
    ours = ours_seconds["backgammon"]

    print()
    print("| backgammon, same corpus | plays/s | positions/s | µs per position |")
    print("| --- | ---: | ---: | ---: |")
    print(row("ours: `legal_plays`, in process", size, plays, ours))
    print(row("gnubg oracle, pipelined through pipes", size, plays, oracle_seconds))
    print(row("oracle floor: parse + validate + error reply, no gnubg", size, None, floor))
    print(row("oracle minus floor: gnubg + conversion + reply JSON", size, plays, oracle_seconds - floor))
    if core is not None:
        print(row("gnubg core: inside `moves` (cProfile)", size, plays, core))
        print(row("gnubg core + decoding boards (`board_from_position_key`)", size, plays, core + decode))
    print()
    print(f"ratio ours/gnubg, positions/s: {oracle_seconds / ours:.3f} against the pipelined oracle, "
          f"{(oracle_seconds - floor) / ours:.3f} against the oracle minus its floor"
          + (f", {core / ours:.4f} against gnubg's `moves` ({ours / core:.0f}x slower), "
             f"{(core + decode) / ours:.4f} against `moves` + decoding ({ours / (core + decode):.0f}x slower)"
             if core else ""))
    print(f"disagreements with gnubg on this corpus: {disagreements} of {size}")
    return 0


def row(name: str, positions: int, plays: int | None, seconds: float, *, per_position: bool = False) -> str:
    """One Markdown table row: plays/s, positions/s and µs per position."""
    cells = [name]
    if per_position:
        cells.append(f"{(plays or 0) / positions:.1f}")
    cells += [
        "-" if plays is None else f"{plays / seconds:,.0f}",
        f"{positions / seconds:,.0f}",
        f"{1e6 * seconds / positions:.1f}",
    ]
    return "| " + " | ".join(cells) + " |"


if __name__ == "__main__":
    sys.exit(main())
