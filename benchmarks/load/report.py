"""What the load benchmark prints: the machine, one table per level, the summary, and the JSON.

The tables are Markdown, as benchmarks/RESULTS.md quotes them, and their row names say what each
figure is; a change here changes what the results page quotes, so rows are added, not renamed.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import platform
import statistics
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.load.launcher import Census, Pause
from benchmarks.load.measurements import P99_TARGET_MS, Level, percentile
from benchmarks.load.probes import SERVICES

SLOWEST = 5
"""How many of the slowest round trips a level reports, with when they began."""


def machine_info() -> list[str]:
    """The header's lines on when, on what and under what load the run began."""
    cpu = "unknown"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return [
        f"date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M UTC}",
        f"machine: {cpu}, nproc {os.cpu_count()}, {platform.system()} {platform.release()}",
        f"python: {platform.python_implementation()} {platform.python_version()}",
        f"load average at start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}",
    ]


def commit_of(root: Path) -> str:
    """The checkout's commit, with "+changes" when its working tree differs from it."""
    def git(*command: str) -> str:
        return subprocess.run(["git", "-C", str(root), *command], capture_output=True, text=True).stdout.strip()
    return (git("rev-parse", "--short", "HEAD") or "?") + (" +changes" if git("status", "--porcelain", "nardy") else "")


def rss_trend(series: list[tuple[float, float]]) -> str:
    """The slope of RSS over the second half of the window, in MiB per 10 minutes (start-up growth left out)."""
    half = series[-1][0] / 2 if series else 0.0
    late = [(t, m) for t, m in series if t >= half]
    if len(late) < 3:
        return "too few samples (a longer window, or a smaller --rss-every)"
    slope = statistics.linear_regression([t for t, _ in late], [m for _, m in late]).slope
    return f"{slope * 600:+.1f} MiB per 10 min ({len(late)} samples)"


def slowest_summary(level: Level) -> str:
    """The slowest round trips, each with the second into the window it was sent."""
    slowest = sorted(zip(level.latencies_ms, level.sent_at), reverse=True)[:SLOWEST]
    return ", ".join(f"{ms:,.0f} @ {sent - level.window_start:.1f}" for ms, sent in slowest) or "-"


def looks_summary(level: Level) -> str:
    """Each collection and probe of the old generation: when into the window, how long, a probe's stall."""
    collections = [f"{p.start - level.window_start:.1f}: collected, {p.seconds * 1e3:.0f}"
                   for p in level.gc if p.generation == 2]
    probes = [f"{p.start - level.window_start:.1f}: probed, {p.seconds * 1e3:.0f}; {p.stall_ms:.1f}"
              for p in level.probes]
    return ", ".join(collections + probes) or "-"


def caught_summary(level: Level) -> str:
    """How many round trips the old generation's looks overlapped, and their percentiles."""
    caught = level.caught_latencies()
    if not caught:
        return "-"
    return f"{len(caught)}, {percentile(caught, 50):,.1f} / {percentile(caught, 99):,.1f} / {max(caught):,.1f}"


def gc_summary(level: Level) -> str:
    """The window's collections: their share of it, their CPU per action, and their count and length by generation."""
    by_generation: dict[int, list[Pause]] = {}
    for pause in level.gc:
        by_generation.setdefault(pause.generation, []).append(pause)
    total = sum(pause.seconds for pause in level.gc) * 1000
    parts = [f"gen{g}: {len(v)} × {statistics.mean(p.seconds for p in v) * 1000:.1f} ms "
             f"(max {max(p.seconds for p in v) * 1000:.0f}; CPU max {max(p.cpu_seconds for p in v) * 1000:.0f})"
             for g, v in sorted(by_generation.items())]
    if not parts:
        return "none"
    cpu_per_action = sum(pause.cpu_seconds for pause in level.gc) * 1000 / max(level.accepted, 1)
    return (f"{total / level.duration / 10:.1f} % of the window, "
            f"{cpu_per_action:.3f} ms of CPU per accepted action; " + "; ".join(parts))


def census_summary(census: Census) -> str:
    """The objects, then the two walks, for the level's table."""
    return (f"{' / '.join(f'{n:,}' for n in (*census.generations, census.frozen, census.garbage))}; "
            f"walks: old generation {census.old_ms:,.1f} ms, everything {census.everything_ms:,.1f} ms"
            + ("" if census.probe_ms is None else
               f"; probe: a stall of {census.probe_stall_ms:,.2f} ms, {census.probe_ms:,.0f} ms in all, "
               f"{census.probe_found:,} found"))


def backlog_rows(level: Level) -> list[tuple[str, str]]:
    """The analysis backlog's rows, where the level played one (``--analysis-backlog``)."""
    backlog = level.backlog
    if backlog is None:
        return []
    start, end = level.window_start, level.window_start + level.duration
    before, inside, after = backlog.split(start, end)
    each = backlog.seconds_each(start, end)
    return [
        ("analysis backlog: rated matches played before the warm-up (s; actions per match)",
         f"{backlog.matches} ({backlog.seconds:.0f} s; {backlog.actions / max(backlog.matches, 1):.0f})"),
        ("their analyses: queued / ended before the window / in it / not by its end / failed",
         f"{backlog.queued} / {before} / {inside} / {after} / {backlog.failed}"),
        ("analysis workers busy for the whole window; median s between two analyses ending in it",
         f"{'yes' if backlog.busy_throughout(start, end) else 'no'}; {each:.1f}"),
    ]


def level_rows(level: Level) -> list[tuple[str, str]]:
    """The rows of a level's table: (what, its value)."""
    n = level.games
    # a game against the computer offers half as many actions to acknowledge: only the person's
    offered = n * (1 - level.computer / 2) / level.think if level.think > 0 else float("nan")
    return [
        ("accepted actions/s", f"{level.rate:,.1f} (offered ≈ {offered:,.0f})"),
        ("round trip p50 / p95 / p99 / max (ms)",
         " / ".join(f"{level.percentile(q):,.1f}" for q in (50, 95, 99)) + f" / {max(level.latencies_ms, default=float('nan')):,.1f}"),
        ("actions timed", f"{len(level.latencies_ms):,}"),
        ("errors", f"{level.error_count}" + (f" ({', '.join(f'{k}: {v}' for k, v in level.errors.most_common())})" if level.errors else "")),
        ("server CPU % (window mean / max 1 s)", f"{level.server_cpu_pct:.0f} / {level.server_cpu_max_1s:.0f}"),
        ("server CPU ms per accepted action (of which in the kernel; on the event loop's thread)",
         f"{level.cpu_ms_per_action:.2f} ({level.server_sys_share:.0f} %; {level.loop_cpu_share:.0f} %)"),
        ("server threads' sleeps per accepted action (all threads / the event loop's)",
         f"{level.sleeps_per_action[1]:.2f} / {level.sleeps_per_action[0]:.2f}"),
        ("server threads' sleeps per accepted action, by thread name", ", ".join(
            f"{name} {count / max(level.accepted, 1):.2f}"
            for name, count in sorted(level.sleeps_by_thread.items(), key=lambda item: -item[1]))),
        ("server RSS MiB (after setup / start / end / max)",
         f"{level.rss_after_setup:.0f} / {level.rss_start:.0f} / {level.rss_end:.0f} / {level.rss_max:.0f}"),
        ("server RSS MiB over the window (s: MiB)", ", ".join(f"{t:.0f}: {m:.0f}" for t, m in level.rss_series)),
        ("server RSS trend over the window's second half (least squares)", rss_trend(level.rss_series)),
        ("client CPU % per process", ", ".join(f"{c:.0f}" for c in level.client_cpu_pct)),
        ("proxy CPU %", f"{level.proxy_cpu_pct:.0f}"),
        ("server processes held back by their CPU caps (periods; seconds waited)",
         "-" if level.throttled is None else f"{level.throttled[0]:,}; {level.throttled[1]:.1f}"),
        ("PostgreSQL / Redis CPU % (every process of the machine's services; ms per action)", " / ".join(
            f"{level.services_cpu_pct.get(name, 0.0):.0f} ({level.services_cpu_pct.get(name, 0.0) * 10 / max(level.rate, 1e-9):.2f})"
            for name in SERVICES)),
        ("machine CPU % (all processes, of " + f"{level.machine_cpus * 100})", f"{level.machine_cpu_pct:.0f}"),
        ("load average (1 min) window start / end", f"{level.load[0]:.2f} / {level.load[1]:.2f}"),
        ("messages received by clients", f"{level.messages_in:,} ({level.bytes_in / 1e6:,.1f} MB of JSON)"),
        ("matches finished (new table opened)", f"{level.games_finished}"),
        ("HTTP create+join during play p50 / max (ms)",
         f"{statistics.median(level.http_ms):,.0f} / {max(level.http_ms):,.0f}" if level.http_ms else "-"),
        ("setup (guests, tables, connections) s", f"{level.setup_seconds:.1f}"),
        ("server garbage collections in the window", gc_summary(level)),
        ("the slowest round trips (ms @ s into the window)", slowest_summary(level)),
        ("the old generation collected or probed (s into the window: ms; a probe's stall ms)",
         looks_summary(level)),
        ("round trips under way during those: count, p50 / p99 / max ms", caught_summary(level)),
        ("objects tracked by the server's gc after the window (gen0 / gen1 / gen2 / frozen / cyclic garbage)",
         "-" if level.census is None else census_summary(level.census)),
        ("server log errors", f"{len(level.server_log_errors)}"),
        ("HAProxy's connections by termination state", ", ".join(
            f"{state}: {count}" for state, count in level.proxy_states.most_common()) or "-"),
        *backlog_rows(level),
    ]


def print_level(level: Level) -> None:
    """A level's table, then samples of its errors, server log errors and HAProxy lines; or why it failed."""
    n = level.games
    print(f"\n### {n} concurrent games\n")
    if level.failed is not None:
        print(f"FAILED: {level.failed}")
        for line in level.server_log_errors[:10]:
            print(f"  server log: {line[:300]}")
        return
    print(f"| N = {n}, server {level.server} | |\n| --- | --- |")
    for name, value in level_rows(level):
        print(f"| {name} | {value} |")
    shown: Counter[str] = Counter()
    for sample in level.error_samples:  # up to five of each kind
        kind = sample.partition(":")[0]
        shown[kind] += 1
        if shown[kind] <= 5:
            print(f"  error sample: {sample}")
    for line in level.server_log_errors[:5]:
        print(f"  server log: {line[:300]}")
    for line in level.proxy_lines[:5]:
        print(f"  HAProxy log, dropped or ended abnormally: {line[:300]}")


def print_summary(levels: list[Level]) -> None:
    """One row per level, then per server its median cost per action and the largest N that held."""
    print("\n### Summary\n")
    print("| server | games | accepted actions/s | p50 ms | p95 ms | p99 ms | max ms | errors | server CPU % "
          "| server CPU ms/action | of which the loop's thread | sleeps/action (loop's) | longest gc ms (its CPU ms) | server RSS MiB "
          "| client CPU % | machine CPU % |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for level in levels:
        if level.failed is not None:
            print(f"| {level.server} | {level.games} | failed | | | | | | | | | | | | | |")
            continue
        longest, longest_cpu = level.longest_gc_ms
        print(f"| {level.server} | {level.games} | {level.rate:,.1f} | {level.percentile(50):,.1f} | {level.percentile(95):,.1f} | "
              f"{level.percentile(99):,.1f} | {max(level.latencies_ms, default=float('nan')):,.1f} | {level.error_count} | "
              f"{level.server_cpu_pct:.0f} | {level.cpu_ms_per_action:.2f} | "
              f"{level.cpu_ms_per_action * level.loop_cpu_share / 100:.2f} | "
              f"{level.sleeps_per_action[1]:.2f} ({level.sleeps_per_action[0]:.2f}) | {longest:.0f} ({longest_cpu:.0f}) | {level.rss_max:.0f} | "
              f"{', '.join(f'{c:.0f}' for c in level.client_cpu_pct)} | {level.machine_cpu_pct:.0f} |")
    print_backlogs(levels)
    for label in dict.fromkeys(level.server for level in levels):
        mine = [level for level in levels if level.server == label and level.failed is None]
        costs = [level.cpu_ms_per_action for level in mine if level.accepted]
        if costs:
            cost = statistics.median(costs)
            print(f"\n{label}: at the median {cost:.2f} ms of server CPU per action, one fully available core would "
                  f"serve at most {1000 / cost:,.0f} actions/s ≈ {1000 / cost * levels[0].think:,.0f} games at this "
                  "think time, at 100 % utilisation.")
        holding = [level.games for level in mine if level.holds]
        best = max(holding) if holding else None
        print(f"{label}: largest N with p99 < {P99_TARGET_MS:.0f} ms and no errors: "
              f"{best if best is not None else 'none of those tried'}")


def print_backlogs(levels: list[Level]) -> None:
    """Per level that played an analysis backlog: what its workers did in the window."""
    played = [level for level in levels if level.backlog is not None and level.failed is None]
    if not played:
        return
    print("\n| server | games | analyses queued | ended in the window | not ended by its end | workers busy throughout "
          "| median s between two in it |\n| --- | ---: | ---: | ---: | ---: | --- | ---: |")
    for level in played:
        assert level.backlog is not None
        start, end = level.window_start, level.window_start + level.duration
        _, inside, after = level.backlog.split(start, end)
        busy = "yes" if level.backlog.busy_throughout(start, end) else "no"
        print(f"| {level.server} | {level.games} | {level.backlog.queued} | {inside} | {after} | {busy} "
              f"| {level.backlog.seconds_each(start, end):.1f} |")


def level_json(level: Level) -> dict[str, Any]:
    """A level's figures for ``--json``."""
    return {
        "server": level.server, "games": level.games, "failed": level.failed, "accepted_per_s": level.rate,
        "p50_ms": level.percentile(50), "p95_ms": level.percentile(95), "p99_ms": level.percentile(99),
        "max_ms": max(level.latencies_ms, default=None), "errors": dict(level.errors),
        "server_cpu_pct": level.server_cpu_pct, "server_cpu_ms_per_action": level.cpu_ms_per_action,
        "server_sys_share_pct": level.server_sys_share, "server_loop_share_pct": level.loop_cpu_share,
        "server_sleeps_per_action": level.sleeps_per_action[1],
        "server_loop_sleeps_per_action": level.sleeps_per_action[0],
        "server_rss_max_mib": level.rss_max,
        "server_rss_series_mib": level.rss_series,
        "longest_gc_ms": level.longest_gc_ms[0], "longest_gc_cpu_ms": level.longest_gc_ms[1],
        "client_cpu_pct": level.client_cpu_pct, "machine_cpu_pct": level.machine_cpu_pct, "load": level.load,
        "gc_census": None if level.census is None else level.census._asdict(),
        "probes": [probe._asdict() for probe in level.probes],
        "old_generation_looks_s": level.looks(), "caught_ms": level.caught_latencies(),
        "analysis_backlog": None if level.backlog is None else {
            "matches": level.backlog.matches, "queued": level.backlog.queued, "failed": level.backlog.failed,
            "ended": level.backlog.split(level.window_start, level.window_start + level.duration),
            "seconds_each_in_window": level.backlog.seconds_each(level.window_start,
                                                                  level.window_start + level.duration),
        },
    }
