"""Two short-board levels' checker plays, compared decision by decision against a rollout judge.

In games, two strong levels differ by a few thousandths of a point a game
while duplicate pairs vary by most of a point, so a gain of one ply takes
tens of thousands of games to show (docs/strength.md). Compared decision by
decision the noise is far smaller: both levels choose on the same positions
and dice, most of the time the same play, and only where their plays
differ does a judge stronger than either decide which was better. The
judge is one of bgsage's truncated rollouts (``truncated2`` by default:
360 trials, 7 rolls played at 2-ply then 1-ply, rated at 2-ply; bgsage's
code records it beating XG Roller+ on bgsage's benchmark), run on both plays with
the same dice, so the noise of their difference is a few thousandths.

Positions: bgsage's 1-ply (the advanced level) playing cubeless money
backgammon against itself on dice drawn from ``--seed``; every roll with
more than one legal play is a decision. Each level chooses with its shipped
settings (``nardy.bots.sage.SAGE_LEVELS``, time budget included) in
``--workers`` processes, one core each.

Reported: how often the levels choose differently, and the second level's
gain over the first in millipoints of equity per decision (the judge's
equity of its play less the first level's; 0 where they agree), with a 95%
interval ``mean ± 1.96·sd/√decisions`` over all decisions::

    python -m benchmarks.level_plays --levels expert,world-class --positions 3000 --json level-plays.json
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass

from benchmarks.strength import commit, machine, speed_corpus
from nardy.bots.sage import SAGE_LEVELS, SageBot, board_of
from nardy.rules import Position

VARIANT = "backgammon"
JUDGES = ("truncated1", "truncated2", "truncated3")


def corpus(count: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    """``count`` (position, roll) decisions with more than one legal play, from the advanced level's self-play."""
    return speed_corpus(VARIANT, count, f"level_plays:{seed}", bot=SageBot(SAGE_LEVELS["advanced"]))


@dataclass(frozen=True)
class Choice:
    """What two levels played on one decision, and how long each took."""

    index: int
    dice: tuple[int, int]
    before: list[int]
    first: list[int]
    second: list[int]
    first_seconds: float
    second_seconds: float


def choose(levels: tuple[str, str], count: int, seed: int, indices: Sequence[int]) -> list[Choice]:
    """Both levels' plays on the decisions ``indices`` of the corpus (as bgsage boards after the play)."""
    decisions = corpus(count, seed)
    bots = [SageBot(SAGE_LEVELS[level]) for level in levels]
    chosen = []
    for index in indices:
        position, dice = decisions[index]
        boards, seconds = [], []
        for bot in bots:
            began = time.perf_counter()
            play = bot.choose_play(position, dice)
            seconds.append(time.perf_counter() - began)
            assert play is not None, "a decision has more than one legal play"
            boards.append(board_of(play.position))
        chosen.append(Choice(index, dice, board_of(position), boards[0], boards[1], seconds[0], seconds[1]))
    return chosen


@dataclass(frozen=True)
class Judged:
    """The judge's equities of both plays of a decision where the levels disagreed."""

    index: int
    first: float
    second: float
    first_error: float
    second_error: float

    @property
    def gain(self) -> float:
        return self.second - self.first


def judge(choices: Sequence[Choice], judge_level: str, seed: int, threads: int) -> list[Judged]:
    """Roll out both plays of each decision where the levels disagreed, on the same dice."""
    import bgsage

    analyzer = bgsage.create_analyzer(judge_level, cubeful=False, seed=seed, parallel_threads=threads)
    judged = []
    for choice in choices:
        if choice.first == choice.second:
            continue
        result = analyzer.checker_play(choice.before, *choice.dice, force_boards=[choice.first, choice.second])
        rated = {tuple(move.board): move for move in result.moves}
        first, second = rated[tuple(choice.first)], rated[tuple(choice.second)]
        judged.append(Judged(choice.index, first.equity, second.equity, first.std_error, second.std_error))
        print(f"decision {choice.index}: {second.equity - first.equity:+.4f}", file=sys.stderr, flush=True)
    return judged


@dataclass(frozen=True)
class Report:
    """The comparison's figures (equities in millipoints per decision)."""

    levels: tuple[str, str]
    judge: str
    decisions: int
    differing: int
    gain_mp: float
    half_width_mp: float
    gain_when_differing_mp: float
    second_better: int
    first_better: int
    median_ms: tuple[float, float]


def summarise(levels: tuple[str, str], judge_level: str, choices: Sequence[Choice], judged: Sequence[Judged]) -> Report:
    """The mean gain over all decisions (0 where the levels agree) with its 95% interval."""
    gains = [1000 * j.gain for j in judged] + [0.0] * (len(choices) - len(judged))
    spread = statistics.stdev(gains) if len(gains) > 1 else 0.0
    return Report(
        levels=levels, judge=judge_level, decisions=len(choices), differing=len(judged),
        gain_mp=statistics.fmean(gains), half_width_mp=1.96 * spread / math.sqrt(len(gains)),
        gain_when_differing_mp=statistics.fmean(1000 * j.gain for j in judged) if judged else 0.0,
        second_better=sum(j.gain > 0 for j in judged), first_better=sum(j.gain < 0 for j in judged),
        median_ms=(1000 * statistics.median(c.first_seconds for c in choices),
                   1000 * statistics.median(c.second_seconds for c in choices)),
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="expert,world-class", help="two short-board levels, first,second")
    parser.add_argument("--positions", type=int, default=3000, help="decisions to compare")
    parser.add_argument("--seed", type=int, default=0, help="the corpus's dice and the judge's")
    parser.add_argument("--judge", choices=JUDGES, default="truncated2", help="bgsage's rollout that judges")
    parser.add_argument("--workers", type=int, default=2, help="processes choosing plays, one core each")
    parser.add_argument("--json", help="write the report, every judged decision and both plays of each here")
    args = parser.parse_args(argv)
    first, second = args.levels.split(",")
    levels = (first, second)
    for level in levels:
        if level not in SAGE_LEVELS:
            parser.error(f"unknown level {level!r}: one of {', '.join(SAGE_LEVELS)}")
    began = time.time()
    print(f"{machine()}; commit {commit()}", flush=True)
    slices = [range(k, args.positions, args.workers) for k in range(args.workers)]
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        parts = list(pool.map(choose, [levels] * args.workers, [args.positions] * args.workers,
                              [args.seed] * args.workers, slices))
    choices = sorted((c for part in parts for c in part), key=lambda c: c.index)
    print(f"plays chosen in {time.time() - began:.0f} s", flush=True)
    judged = judge(choices, args.judge, args.seed, threads=args.workers)
    report = summarise(levels, args.judge, choices, judged)
    print(f"{second} against {first}, {report.decisions} decisions, judged by bgsage's {args.judge}:")
    print(f"  plays differ in {report.differing} ({100 * report.differing / report.decisions:.1f}%); "
          f"{second} better in {report.second_better}, {first} in {report.first_better}")
    print(f"  {second}'s gain: {report.gain_mp:+.3f} ± {report.half_width_mp:.3f} millipoints a decision "
          f"({report.gain_when_differing_mp:+.2f} where the plays differ)")
    print(f"  median decision time: {first} {report.median_ms[0]:.0f} ms, {second} {report.median_ms[1]:.0f} ms")
    print(f"  {time.time() - began:.0f} s in all")
    if args.json:
        with open(args.json, "w") as out:
            differing = [asdict(c) for c in choices if c.first != c.second]
            json.dump({"report": asdict(report), "judged": [asdict(j) for j in judged], "differing": differing}, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
