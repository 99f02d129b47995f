"""``python -m benchmarks.load``: the flags, the run's header, every level in turn, the summary.

The levels run in the order ``--games`` gives them, each ``--rounds`` times, and within a round
against every ``--server`` one after the other, so that servers compared side by side meet the
same machine at about the same time. A whole-run alarm stops a run whose steps all hang.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from pathlib import Path

import benchmarks.load
from benchmarks.cpu_cap import describe as describe_cap
from benchmarks.load.cluster import ServerSpec
from benchmarks.load.levels import LevelOptions, level_budget, run_level
from benchmarks.load.measurements import Level
from benchmarks.load.options import DEFAULT_VARIANTS, level_options, parse_variants, server_specs
from benchmarks.load.report import commit_of, level_json, machine_info, print_level, print_summary


def build_parser() -> argparse.ArgumentParser:
    """The command's flags (``--help`` describes each)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.load",
                                     description=(benchmarks.load.__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games", type=int, nargs="+", default=[100, 500, 1000], help="concurrent games per level")
    parser.add_argument("--think", type=float, default=2.0, help="mean think time before each action, seconds")
    parser.add_argument("--duration", type=float, default=60.0, help="measured window per level, seconds")
    parser.add_argument("--warmup", type=float, default=10.0, help="play before the window, seconds")
    parser.add_argument("--clients", type=int, default=1, help="client processes")
    parser.add_argument("--variants", default=DEFAULT_VARIANTS, help="variant=weight,... of the tables")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-compression", action="store_true", help="do not offer permessage-deflate")
    parser.add_argument("--computer", type=float, default=0.0,
                        help="share of the games played against the computer (0 to 1); the server then waits "
                             "--think seconds before each computer action (NARDY_BOT_DELAY_SECONDS), as people do")
    parser.add_argument("--computer-level", default="intermediate", help="the computer's level in those games")
    parser.add_argument("--rss-every", type=float, default=60.0,
                        help="seconds between the samples of the server's RSS reported over the window (a soak)")
    parser.add_argument("--profile", type=Path, default=None, help="profile the server with py-spy during the window; write to DIR")
    parser.add_argument("--profile-native", action="store_true",
                        help="with --profile: include C frames (py-spy pauses the server for each sample)")
    parser.add_argument("--server", action="append", default=[], metavar="LABEL=DIR",
                        help="run each level against the server of checkout DIR too, named LABEL (repeatable; "
                             "default: this checkout only), one after the other, --rounds times")
    parser.add_argument("--server-env", action="append", default=[], metavar="LABEL:KEY=VALUE",
                        help="an extra environment variable for the server named LABEL (repeatable)")
    parser.add_argument("--rounds", type=int, default=1, help="times each (level, server) pair runs, interleaved")
    parser.add_argument("--processes", type=int, default=1,
                        help="server processes per level: more than one share a database and Redis behind HAProxy "
                             "(apt-get install haproxy), WebSockets sticky by table")
    parser.add_argument("--database", choices=("sqlite", "postgresql"), default="sqlite",
                        help="postgresql: a fresh database per level on --postgres-url's server")
    parser.add_argument("--postgres-url", default="postgresql://postgres@127.0.0.1:5432/postgres",
                        help="an admin connection to the PostgreSQL server (creates and drops the level's database)")
    parser.add_argument("--cpu-per-process", type=float, default=None, metavar="CORES",
                        help="cap every server process at this share of a core (a cgroup's CPU quota; needs root), "
                             "so that one process is a fixed amount of CPU on a small machine")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0", help="the Redis of several processes")
    parser.add_argument("--analysis-backlog", action="append", default=[], metavar="LABEL=N",
                        help="before each window, play N rated matches on the server named LABEL, whose analyses "
                             "keep its analysis workers busy through the window (repeatable); the report says how "
                             "many ended in the window")
    parser.add_argument("--json", type=Path, default=None, help="also write the results as JSON")
    return parser


def print_header(args: argparse.Namespace, argv: list[str], weights: list[tuple[str, float]],
                 specs: list[ServerSpec]) -> None:
    """The command, the machine, what the tables play, and each server with its checkout's commit."""
    print("command: python -m benchmarks.load " + " ".join(argv))
    for line in machine_info():
        print(line)
    share = ", ".join(f"{name} {w / sum(x for _, x in weights):.0%}" for name, w in weights)
    print(f"tables: {share}; match length 1; think time exponential, mean {args.think} s, before every action; "
          f"warm-up {args.warmup:.0f} s, window {args.duration:.0f} s; {args.clients} client process(es); "
          f"permessage-deflate {'off' if args.no_compression else 'offered'}")
    print(f"server: {args.processes} process(es) on {args.database}"
          + (f" with Redis {args.redis_url} behind HAProxy (WebSockets sticky by table)" if args.processes > 1 else "")
          + (f"; each capped at {describe_cap(args.cpu_per_process)}" if args.cpu_per_process else ""))
    for spec in specs:
        if spec.analysis_backlog:
            print(f"analysis backlog of server {spec.label}: {spec.analysis_backlog} rated one-point backgammon matches "
                  "of random play before each warm-up, each queueing its fair-play analysis")
    for spec in specs:
        print(f"server {spec.label}: {spec.root} (commit {commit_of(spec.root)})"
              + "".join(f"; {key}={value}" for key, value in spec.env.items()))


def run_levels(games: list[int], rounds: int, options: LevelOptions, specs: list[ServerSpec]) -> list[Level]:
    """Every level, each round against every server in turn, each printed as it ends."""
    levels: list[Level] = []
    for count in games:
        for _ in range(rounds):
            for spec in specs:
                started = time.monotonic()
                level = run_level(count, options, spec)
                levels.append(level)
                print_level(level)
                print(f"\n(level took {time.monotonic() - started:.0f} s)", flush=True)
    return levels


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; 0 when every level ran (errors in a level are reported, not a failure)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    weights = parse_variants(args.variants)
    if not 0 <= args.computer <= 1:
        parser.error("--computer is a share of the games, from 0 to 1")
    specs = server_specs(args)
    options = level_options(args, weights)
    if args.profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
    budget = args.rounds * sum(level_budget(n, options, spec) for n in args.games for spec in specs)

    def out_of_time(_signum: int, _frame: object) -> None:
        raise TimeoutError(f"the whole run exceeded its {budget:.0f} s budget")

    signal.signal(signal.SIGALRM, out_of_time)
    signal.alarm(int(budget))
    print_header(args, sys.argv[1:] if argv is None else argv, weights, specs)
    try:
        levels = run_levels(args.games, args.rounds, options, specs)
    finally:
        signal.alarm(0)
    print_summary(levels)
    if args.json is not None:
        args.json.write_text(json.dumps([level_json(level) for level in levels], indent=2))
    return 0 if levels and all(level.failed is None for level in levels) else 1


if __name__ == "__main__":
    sys.exit(main())
