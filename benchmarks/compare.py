"""Two strength runs on the same duplicate dice, compared pair by pair.

Run ``benchmarks.strength`` twice with ``--json`` (say, two weights files
with ``--weights``), then::

    python -m benchmarks.compare old.json new.json

For every matchup the two runs share (same variant and opponent), the pairs
both played are matched by their index: pair k has the same dice in both
runs, so the difference of the two pair values has far less spread than
either run's ppg. The report gives the mean difference (second run minus
first) with a 95% interval ``mean ± 1.96·sd/√pairs``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Difference:
    """The second run's ppg minus the first's over the pairs both played."""

    variant: str
    opponent: str
    pairs: int
    first_ppg: float
    second_ppg: float
    mean: float
    half_width: float


def _opponent(matchup: dict[str, Any]) -> tuple[str, str]:
    return matchup["variant"], matchup["b"]


def compare(first: dict[str, Any], second: dict[str, Any]) -> list[Difference]:
    """The paired differences of every matchup found in both runs' JSON."""
    earlier = {_opponent(m): m for m in first["matchups"] if m.get("pairs")}
    differences = []
    for matchup in second["matchups"]:
        match = earlier.get(_opponent(matchup))
        if match is None or not matchup.get("pairs"):
            continue
        common = sorted(set(match["pairs"]) & set(matchup["pairs"]), key=int)
        if len(common) < 2:
            continue
        a = [match["pairs"][k] for k in common]
        b = [matchup["pairs"][k] for k in common]
        deltas = [y - x for x, y in zip(a, b)]
        differences.append(Difference(
            variant=matchup["variant"], opponent=matchup["b"], pairs=len(common),
            first_ppg=statistics.fmean(a), second_ppg=statistics.fmean(b), mean=statistics.fmean(deltas),
            half_width=1.96 * statistics.stdev(deltas) / math.sqrt(len(deltas)),
        ))
    return differences


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare", description=__doc__.split("\n\n")[0])
    parser.add_argument("first", type=Path, help="JSON of the first run (benchmarks.strength --json)")
    parser.add_argument("second", type=Path, help="JSON of the second run")
    args = parser.parse_args(argv)
    runs = [json.loads(path.read_text()) for path in (args.first, args.second)]
    differences = compare(*runs)
    if not differences:
        print("no matchup with two or more common pairs in both runs", file=sys.stderr)
        return 1
    print("| variant | opponent | pairs | first ppg | second ppg | second − first | 95% interval |")
    print("| --- | --- | ---: | ---: | ---: | ---: | --- |")
    for d in differences:
        print(f"| {d.variant} | {d.opponent} | {d.pairs:,} | {d.first_ppg:+.3f} | {d.second_ppg:+.3f} | "
              f"**{d.mean:+.3f} ± {d.half_width:.3f}** | [{d.mean - d.half_width:+.3f}, {d.mean + d.half_width:+.3f}] |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
