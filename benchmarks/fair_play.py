"""The fair-play detector (:mod:`nardy.bots.fair_play`) measured on accounts played by our bots.

Per variant, ``--accounts`` accounts of each noisy level, ``beginner`` and
``intermediate`` (noisy play, standing in for people), and
``--engine-accounts`` (as many unless told) of ``expert`` (the engine,
standing in for an account that copies it): the engine plays slowly (it
searches deep), so a run that measures the false flags over a large noisy
population may play few engine accounts, or none. Each account plays
``--games`` rated matches against the others (the accounts' match slots are
shuffled and paired, so every match counts for both its players), of one
point without the cube where the variant allows that, else of its shortest
length, with the cube where the variant requires it (dave; tavli's shortest
match is 3 points, two to five of its games in turn), or of ``--match-length``
points with the cube wherever the variant has one; every match is analysed
as the server's background analysis does it (:func:`nardy.bots.analysis.analyse` at
:data:`nardy.bots.fair_play.FAIR_PLAY_LEVEL`), and each player's
figures are taken with :func:`nardy.bots.fair_play.game_figures`. A match's
number is its place in time: each account is judged on its
:func:`~nardy.bots.fair_play.window` of its matches, the highest numbers first,
as the server judges an account on its latest matches.

The benchmark rates no one, so it sets the reference bands itself: each
noisy account is judged against the accounts of its own level (itself
included, as on the server an account lies in its own band); each engine
account against the intermediate accounts (the strongest noisy players, the
hardest band to stand out from) and, separately, against the beginners, each
time with itself added to the band. Reported per variant and level: how many
accounts were flagged, with a 95% Wilson interval, and the levels' mean PR
and engine-match rate; the seconds an analysis of one match took; and under
``pooled``, every judgement line summed over the variants (and logs) read.

Every match's figures are appended to ``--log`` (JSON lines) as it finishes,
and a run that is stopped goes on from there; ``--report`` only reports, and
reads every ``--log`` given (a variant found in two logs is reported once per
log, named with the log's file name, its accounts judged within their own run)::

    nice -n 10 python -m benchmarks.fair_play --variants backgammon,long-tournament --accounts 12 --games 10 \
        --log fair-play.jsonl
    nice -n 10 python -m benchmarks.fair_play --variants hypergammon --accounts 60 --engine-accounts 0 \
        --log noisy.jsonl
    python -m benchmarks.fair_play --report --log fair-play.jsonl --log noisy.jsonl
    python -m benchmarks.fair_play --report --after 10 --log fair-play.jsonl   # as after each account's 10th
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from nardy.bots import make_bot
from nardy.bots.analysis import analyse
from nardy.bots.fair_play import (
    FAIR_PLAY_LEVEL,
    MIN_GAMES,
    AccountFigures,
    GameFigures,
    account_figures,
    game_figures,
    judge,
    reference_of,
    window,
)
from nardy.notation.transcript import transcript_from_record
from nardy.rules import GameOptions, Match, Phase, find_variant

NOISY = ("beginner", "intermediate")
ENGINE = "expert"
LEVELS = (*NOISY, ENGINE)


def schedule(
    variant: str, accounts: int, games: int, seed: int, engine_accounts: int | None = None
) -> list[tuple[int, str, str, str, str]]:
    """The matches to play: (number, account A, level A, account B, level B), every account in ``games``.

    ``accounts`` of each noisy level and ``engine_accounts`` (``accounts`` unless told) of the engine.
    """
    rng = random.Random(f"fair_play:{variant}:{seed}")
    counts = {level: accounts for level in NOISY} | {ENGINE: accounts if engine_accounts is None else engine_accounts}
    names = [f"{level}-{index}" for level in LEVELS for index in range(counts[level])]
    pairs: list[tuple[str, str]] = []
    for _ in range(1000):
        slots = [name for name in names for _ in range(games)]
        rng.shuffle(slots)
        pairs = list(zip(slots[0::2], slots[1::2], strict=True))
        if all(a != b for a, b in pairs):
            break
    else:
        pairs = _without_self_matches(pairs, rng)
    return [(number, a, a.rsplit("-", 1)[0], b, b.rsplit("-", 1)[0]) for number, (a, b) in enumerate(pairs)]


def _without_self_matches(pairs: list[tuple[str, str]], rng: random.Random) -> list[tuple[str, str]]:
    """``pairs`` with each self-match (a, a) swapped with a match (c, d) of neither: (a, d) and (c, a).

    Where many matches per account make a shuffle without self-matches unlikely (20 each: about one in
    10,000), the shuffle is repaired; a schedule found by shuffling alone (every earlier log's) is kept.
    """
    pairs = list(pairs)
    for index, (a, b) in enumerate(pairs):
        if a != b:
            continue
        others = [other for other, (c, d) in enumerate(pairs) if a not in (c, d)]
        if not others:
            raise RuntimeError(f"no pairing without a self-match of {a} found")
        other = rng.choice(others)
        c, d = pairs[other]
        pairs[index], pairs[other] = (a, d), (c, a)
    return pairs


def match_terms(variant: str, length: int | None = None) -> tuple[int, GameOptions]:
    """A match of ``variant`` and its cube: of ``length`` points with the cube wherever the variant has one; by
    default the shortest match it allows (one point where it may), with the cube only where it is required."""
    rules = find_variant(variant)
    allowed = rules.match_lengths
    if length is not None:
        if allowed is not None and length not in allowed:
            raise ValueError(f"{variant} is not played to {length} points (it allows {sorted(allowed)})")
        return length, GameOptions(cube=rules.cube_allowed or rules.cube_required)
    length = 1 if allowed is None or 1 in allowed else min(length for length in allowed if length > 0)
    return length, GameOptions(cube=rules.cube_required)


def play_record(variant: str, levels: tuple[str, str], seed: str, length: int | None = None) -> dict[str, Any]:
    """A match of :func:`match_terms` between bots of ``levels``, as a table's record holds it."""
    rng = random.Random(seed)
    bots = [make_bot(level, variant=variant, seed=rng.randrange(2**31)) for level in levels]
    length, options = match_terms(variant, length)
    match = Match.new(variant, length=length, options=options)
    events: list[dict[str, Any]] = [
        {"kind": "seated", "seat": seat, "payload": {"seat": seat, "name": levels[seat], "bot": None}}
        for seat in (0, 1)
    ]
    events.append({"kind": "match_started", "seat": None, "payload": {}})
    while not match.is_over:
        game, scored = match.game, len(match.results)
        if game.phase is Phase.OPENING:
            first = rng.randint(1, 6)
            second = rng.choice([d for d in range(1, 7) if d != first])
            events.append({"kind": "opening_rolled", "seat": None, "payload": {"dice": [first, second]}})
            match = match.update(game.opening_roll((first, second)))
        elif game.phase is Phase.ROLLING and bots[game.turn].wants_to_double(game, game.turn):
            events.append({"kind": "doubled", "seat": game.turn, "payload": {}})
            match = match.update(game.double(game.turn))
        elif game.phase is Phase.DOUBLED:
            taker = game.opponent
            took = bots[taker].accepts_double(game, taker)
            events.append({"kind": "took" if took else "dropped", "seat": taker, "payload": {}})
            match = match.update(game.take(taker) if took else game.drop(taker))
        elif game.phase is Phase.ROLLING:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            events.append({"kind": "rolled", "seat": game.turn, "payload": {"dice": list(dice)}})
            match = match.update(game.roll(game.turn, dice))
        elif game.phase is Phase.MOVING:
            assert game.dice is not None
            play = bots[game.turn].choose_play(game.position, game.dice, game)
            assert play is not None
            steps = [{"source": s.source, "target": s.target, "die": s.die, "hit": s.hit} for s in play.steps]
            events.append({"kind": "moved", "seat": game.turn, "payload": {"steps": steps}})
            match = match.update(game.move(game.turn, play.steps))
        else:
            raise RuntimeError(f"unexpected phase {game.phase} in a bots' match")
        if len(match.results) > scored and not match.is_over:
            events.append({"kind": "game_ended", "seat": None, "payload": {}})
    return {"variant": variant, "match_length": length, "options": {"cube": options.cube}, "events": events}


def play_and_analyse(variant: str, seed: int, match: tuple[int, str, str, str, str],
                     length: int | None = None) -> dict[str, Any]:
    """Play one scheduled match (of ``length`` points, see :func:`match_terms`) and analyse it; both players'
    figures and the analysis's seconds."""
    number, a, level_a, b, level_b = match
    record = play_record(variant, (level_a, level_b), f"fair_play:{variant}:{seed}:{number}", length)
    began = time.perf_counter()
    result = analyse(transcript_from_record(record), level=FAIR_PLAY_LEVEL).to_json()
    seconds = time.perf_counter() - began
    return {"variant": variant, "number": number, "accounts": [a, b], "analysis_seconds": seconds,
            "figures": [game_figures(result, player).__dict__ for player in (0, 1)]}


# ---------------------------------------------------------------- the report


def wilson(hits: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if total == 0:
        return 0.0, 1.0
    p = hits / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - half), min(1.0, centre + half)


def report(rows: Sequence[dict[str, Any]], *, after: int | None = None) -> dict[str, Any]:
    """Per variant (or run, a row's ``run`` added to its variant): each level's accounts flagged against their
    bands, the levels' means, analysis seconds; ``pooled``: each judgement line summed over them all.

    ``after``: judge each account as the server would have after its first ``after`` matches (its earliest by
    number), the rest unplayed, so that one long run also tells what a shorter history shows."""
    by_variant: dict[str, dict[str, list[GameFigures]]] = defaultdict(lambda: defaultdict(list))
    seconds: dict[str, list[float]] = defaultdict(list)
    for row in sorted(rows, key=lambda row: row["number"], reverse=True):
        key = row["variant"] if row.get("run") is None else f"{row['variant']} ({row['run']})"
        seconds[key].append(row["analysis_seconds"])
        for name, figures in zip(row["accounts"], row["figures"], strict=True):
            by_variant[key][name].append(GameFigures(**figures))
    answer: dict[str, Any] = {}
    for variant, accounts in by_variant.items():
        summed = {name: account_figures(window(games if after is None else games[-after:]))
                  for name, games in accounts.items()}
        levels: dict[str, dict[str, AccountFigures]] = defaultdict(dict)
        for name, figures in summed.items():
            levels[name.rsplit("-", 1)[0]][name] = figures
        lines: dict[str, Any] = {}
        for level, band in (("beginner", "beginner"), ("intermediate", "intermediate"),
                            (ENGINE, "intermediate"), (ENGINE, "beginner")):
            lines[f"{level} vs {band} band"] = _flags(levels[level], levels[band], same=level == band)
        means = {level: {"accounts": len(members),
                         "games": sum(f.games for f in members.values()),
                         "pr": statistics.fmean(f.pr for f in members.values()),
                         "match_rate": statistics.fmean(f.match_rate for f in members.values())}
                 for level in LEVELS if (members := levels[level])}
        answer[variant] = {"flags": lines, "levels": means, "matches": len(seconds[variant]),
                           "analysis_seconds_median": statistics.median(seconds[variant]),
                           "analysis_seconds_mean": statistics.fmean(seconds[variant]),
                           "analysis_seconds_max": max(seconds[variant])}
    answer["pooled"] = _pooled([answer[variant]["flags"] for variant in by_variant])
    return answer


def _pooled(lines_per_variant: Sequence[dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """Each judgement line's accounts and flags summed over the variants, with its 95% Wilson interval."""
    pooled: dict[str, Any] = {}
    for line in dict.fromkeys(name for lines in lines_per_variant for name in lines):
        parts = [lines[line] for lines in lines_per_variant if line in lines]
        flagged, judged = sum(part["flagged"] for part in parts), sum(part["accounts"] for part in parts)
        seen = [value for part in parts for value in part["statistics"]]
        low, high = wilson(flagged, judged)
        pooled[line] = {"flagged": flagged, "accounts": judged, "rate": flagged / judged if judged else None,
                        "interval_95": [round(low, 4), round(high, 4)],
                        "statistic_range": [min(seen), max(seen)] if seen else None}
    return pooled


def _flags(tested: dict[str, AccountFigures], band: dict[str, AccountFigures], *, same: bool) -> dict[str, Any]:
    flagged = judged = 0
    statistics_seen: list[float] = []
    for name, figures in tested.items():
        if figures.games < MIN_GAMES:
            continue
        peers = list(band.values()) if same else [*band.values(), figures]
        reference = reference_of(peers)
        verdict = judge(figures, reference) if reference is not None else None
        if verdict is None:
            continue
        judged += 1
        flagged += verdict.flagged
        statistics_seen.append(round(verdict.statistic, 2))
    low, high = wilson(flagged, judged)
    return {"flagged": flagged, "accounts": judged, "rate": flagged / judged if judged else None,
            "interval_95": [round(low, 3), round(high, 3)], "statistics": sorted(statistics_seen)}


def main(argv: Sequence[str] | None = None) -> None:
    """Play, analyse and report (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variants", default="backgammon,long-tournament")
    parser.add_argument("--accounts", type=int, default=12, help="accounts of each noisy level per variant")
    parser.add_argument("--engine-accounts", type=int, default=None,
                        help="engine (expert) accounts per variant; as many as --accounts unless told")
    parser.add_argument("--games", type=int, default=10, help="matches per account")
    parser.add_argument("--match-length", type=int, default=None,
                        help="matches of this many points, with the cube wherever the variant has one "
                             "(default: its shortest, the cube only where required)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--log", type=Path, action="append",
                        help="JSON lines of the matches played (default fair-play.jsonl); --report reads each given")
    parser.add_argument("--report", action="store_true", help="only report what the logs hold")
    parser.add_argument("--after", type=int, default=None,
                        help="judge each account on its first AFTER matches only (as after that many)")
    args = parser.parse_args(argv)
    logs: list[Path] = args.log or [Path("fair-play.jsonl")]
    if not args.report and len(logs) != 1:
        parser.error("a run plays into one --log")
    read = [(path.name, json.loads(line)) for path in logs if path.exists() for line in path.read_text().splitlines()]
    runs: dict[str, set[str]] = defaultdict(set)
    for name, row in read:
        runs[row["variant"]].add(name)
    done = [row | ({"run": name} if len(runs[row["variant"]]) > 1 else {}) for name, row in read]
    if not args.report:
        seen = {(row["variant"], row["number"]) for row in done}
        todo = [(variant, match) for variant in args.variants.split(",")
                for match in schedule(variant, args.accounts, args.games, args.seed, args.engine_accounts)
                if (variant, match[0]) not in seen]
        with ProcessPoolExecutor(max_workers=args.workers) as pool, logs[0].open("a") as log:
            futures = [pool.submit(play_and_analyse, variant, args.seed, match, args.match_length) for variant, match in todo]
            for future in futures:
                row = future.result()
                done.append(row)
                log.write(json.dumps(row) + "\n")
                log.flush()
                print(f"{row['variant']} match {row['number']}: {row['analysis_seconds']:.1f} s", file=sys.stderr)
    json.dump(report(done, after=args.after), sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
