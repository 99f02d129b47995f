"""Long nardy's position benchmark, part two: a bot's mean equity loss against the rollout's best play.

Reads the labelled positions of :mod:`benchmarks.long_positions` and lets each
bot choose its play in each; the loss of a choice is the rollout's best
equity minus the chosen play's rollout equity (0 when the bot picks the
rollout's best). Only the top candidates at 0-ply were rolled out: a bot
that picks another play is charged the largest loss among the labelled
plays, a lower bound, and the count of such choices is printed.

    python -m benchmarks.long_benchmark --bot expert --bot advanced --bot intermediate --bot beginner

``--bot`` takes a level name (the computer a table of that level gets) or any
player of :func:`benchmarks.strength.make_player` (``ours:1``, ``ours:0@file.npz``,
``heuristic``, ``random``). Losses are in millipoints of cubeless equity
(oin 1, mars 2) per decision; the ± is a 95% interval over positions.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.long_positions import DEFAULT_OUT
from benchmarks.strength import make_player
from nardy.bots.neural import LEVELS
from nardy.bots.supervised import read_labelled
from nardy.notation import position_from_dict
from nardy.rules import Position


@dataclass
class Score:
    """One bot's losses on one regulation's positions."""

    losses: list[float] = field(default_factory=list)
    unlabelled: int = 0

    @property
    def mean(self) -> float:
        return float(np.mean(self.losses)) if self.losses else float("nan")

    @property
    def half_width(self) -> float:
        if len(self.losses) < 2:
            return float("nan")
        return float(1.96 * np.std(self.losses, ddof=1) / np.sqrt(len(self.losses)))

    @property
    def best_rate(self) -> float:
        return float(np.mean([loss == 0.0 for loss in self.losses])) if self.losses else float("nan")


def score(spec: str, entries: Sequence[dict[str, Any]]) -> dict[str, Score]:
    """Per regulation, the losses of the player ``spec`` on ``entries``."""
    players: dict[str, Any] = {}
    scores: dict[str, Score] = {}
    for entry in entries:
        variant = entry["variant"]
        if variant not in players:
            players[variant] = make_player(f"level:{spec}" if spec in LEVELS else spec, variant)
        position = position_from_dict(entry["position"])
        play = players[variant].choose_play(position, (entry["dice"][0], entry["dice"][1]))
        scores.setdefault(variant, Score()).losses.append(_loss(entry, play.position if play else position))
        if play is not None and _labelled(entry, play.position) is None:
            scores[variant].unlabelled += 1
    return scores


def _labelled(entry: dict[str, Any], reached: Position) -> dict[str, Any] | None:
    for candidate in entry["candidates"]:
        if position_from_dict(candidate["position"]) == reached:
            found: dict[str, Any] = candidate
            return found
    return None


def _loss(entry: dict[str, Any], reached: Position) -> float:
    candidate = _labelled(entry, reached)
    if candidate is None:
        return max(float(c["loss"]) for c in entry["candidates"])
    return float(candidate["loss"])


def first_of_each(entries: Sequence[dict[str, Any]], count: int | None) -> list[dict[str, Any]]:
    """The first ``count`` entries of each regulation, in file order (all of them when ``count`` is ``None``)."""
    seen: dict[str, int] = {}
    kept = []
    for entry in entries:
        seen[entry["variant"]] = seen.get(entry["variant"], 0) + 1
        if count is None or seen[entry["variant"]] <= count:
            kept.append(entry)
    return kept


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", action="append", required=True, help="a level name or a strength.py player spec")
    parser.add_argument("--file", type=Path, default=DEFAULT_OUT, help="a labelled file (.gz allowed)")
    parser.add_argument("--positions", type=int, help="only the first N positions of each regulation (a slow bot)")
    args = parser.parse_args(argv)
    document = read_labelled(args.file)
    entries = first_of_each(document["entries"], args.positions)
    print("python -m benchmarks.long_benchmark " + " ".join(argv if argv is not None else sys.argv[1:]))
    print(f"positions: {args.file} ({len(entries)}), labelled by: {document['command']}")
    print(f"{'bot':<14} {'regulation':<17} {'positions':>9} {'loss (mp)':>10} {'± 95%':>7} {'best':>6} {'unlabelled':>10}")
    for spec in args.bot:
        scores = score(spec, entries)
        everything = Score([loss for s in scores.values() for loss in s.losses], sum(s.unlabelled for s in scores.values()))
        for name, result in [*sorted(scores.items()), ("all", everything)]:
            print(f"{spec:<14} {name:<17} {len(result.losses):>9} {1000 * result.mean:>10.1f} "
                  f"{1000 * result.half_width:>7.1f} {result.best_rate:>6.1%} {result.unlabelled:>10}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
