"""The command's flags turned into what the levels need: the variants' shares, the servers to compare, the play.

Kept apart from the parser (:mod:`benchmarks.load.__main__`) so that what ``--variants``,
``--server``, ``--server-env`` and the cluster flags mean can be tested without running anything.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from benchmarks.load.cluster import ServerSpec
from benchmarks.load.levels import LevelOptions
from benchmarks.load.server import ROOT

DEFAULT_VARIANTS = "backgammon=0.5,georgian=0.2,long-traditional=0.3"
DEFAULT_MAX_CONNECTIONS = 2048
"""The server's own ``NARDY_MAX_CONNECTIONS``: connections per process beyond which HTTP gets 503."""

UNTHROTTLED = {"NARDY_MESSAGES_PER_SECOND": "1000", "NARDY_MESSAGE_BURST": "1000"}
"""The per-connection message limits lifted, on every server of a run with an ``--analysis-backlog``, for the
backlog's players, who act without thinking (the load's, at a message every two seconds or so, meet neither)."""


def parse_variants(text: str) -> list[tuple[str, float]]:
    """``variant=weight,...`` as (variant, weight) pairs (a weight left out is 1); SystemExit for an unknown variant."""
    from nardy.rules import VARIANTS

    weights = []
    for part in text.split(","):
        name, _, weight = part.partition("=")
        if name not in VARIANTS:
            raise SystemExit(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}")
        weights.append((name, float(weight or 1)))
    return weights


def parse_servers(servers: list[str], envs: list[str], backlogs: Sequence[str] = ()) -> list[ServerSpec]:
    """The servers to compare, from ``LABEL=DIR``, ``LABEL:KEY=VALUE`` and ``LABEL=N`` (the analysis backlog)
    arguments."""
    roots = dict(part.split("=", 1) for part in servers) if servers else {"this": str(ROOT)}
    env: dict[str, dict[str, str]] = {label: {} for label in roots}
    for part in envs:
        label, _, assignment = part.partition(":")
        key, _, value = assignment.partition("=")
        if label not in env or not key:
            raise SystemExit(f"--server-env {part!r}: give LABEL:KEY=VALUE for a LABEL of --server")
        env[label][key] = value
    backlog = {label: 0 for label in roots}
    for part in backlogs:
        label, _, count = part.partition("=")
        if label not in backlog or not count.isdigit():
            raise SystemExit(f"--analysis-backlog {part!r}: give LABEL=N for a LABEL of --server")
        backlog[label] = int(count)
    return [ServerSpec(label, Path(root).resolve(), env[label], analysis_backlog=backlog[label])
            for label, root in roots.items()]


def connection_cap(games: int, processes: int) -> dict[str, str]:
    """``NARDY_MAX_CONNECTIONS`` for ``games`` games over ``processes`` processes, where the default would refuse
    the setup: two sockets a game, the proxy's spread a quarter uneven, 256 HTTP connections beside them."""
    needed = math.ceil(2 * games / processes * 1.25) + 256
    return {"NARDY_MAX_CONNECTIONS": str(needed)} if needed > DEFAULT_MAX_CONNECTIONS else {}


def server_specs(args: argparse.Namespace) -> list[ServerSpec]:
    """Every server of ``--server`` (this checkout if none) as a cluster of ``--processes`` on ``--database``,
    with the settings the run needs beneath each server's own ``--server-env``."""
    bot_delay = {"NARDY_BOT_DELAY_SECONDS": str(args.think)} if args.computer else {}
    cap = connection_cap(max(args.games), args.processes)
    specs = parse_servers(args.server, args.server_env, args.analysis_backlog)
    unthrottled = UNTHROTTLED if any(spec.analysis_backlog for spec in specs) else {}
    return [replace(spec, processes=args.processes, redis_url=args.redis_url,
                    env={**bot_delay, **cap, **unthrottled, **spec.env},
                    cpu_per_process=args.cpu_per_process,
                    database_url=args.postgres_url if args.database == "postgresql" else None)
            for spec in specs]


def level_options(args: argparse.Namespace, weights: list[tuple[str, float]]) -> LevelOptions:
    """How each level plays and measures, from the flags."""
    return LevelOptions(
        weights=weights, think=args.think, warmup=args.warmup, duration=args.duration, clients=args.clients,
        seed=args.seed, compression=not args.no_compression, computer=args.computer,
        computer_level=args.computer_level, rss_every=args.rss_every, profile=args.profile,
        profile_native=args.profile_native,
    )
