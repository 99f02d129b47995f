"""The fair-play detector (:mod:`nardy.bots.fair_play`) measured on accounts played by our bots.

Per variant, ``--accounts`` accounts of each level: ``beginner`` and
``intermediate`` (noisy play, standing in for people) and ``expert`` (the
engine, standing in for an account that copies it). Each account plays
``--games`` rated matches of one point without the cube against the others
(the accounts' match slots are shuffled and paired, so every match counts for
both its players); every match is analysed as the server's background
analysis does it (:func:`nardy.bots.analysis.analyse` at
:data:`nardy.bots.fair_play.FAIR_PLAY_LEVEL`), and each player's
figures are taken with :func:`nardy.bots.fair_play.game_figures`.

The benchmark rates no one, so it sets the reference bands itself: each
noisy account is judged against the accounts of its own level (itself
included, as on the server an account lies in its own band); each engine
account against the intermediate accounts (the strongest noisy players, the
hardest band to stand out from) and, separately, against the beginners, each
time with itself added to the band. Reported per variant and level: how many
accounts were flagged, with a 95% Wilson interval, and the levels' mean PR
and engine-match rate; the seconds an analysis of one match took.

Every match's figures are appended to ``--log`` (JSON lines) as it finishes,
and a run that is stopped goes on from there; ``--report`` only reports::

    nice -n 10 python -m benchmarks.fair_play --variants backgammon,long-tournament --accounts 12 --games 10 \
        --log fair-play.jsonl
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
)
from nardy.notation.transcript import transcript_from_record
from nardy.rules import GameOptions, Match, Phase

NOISY = ("beginner", "intermediate")
ENGINE = "expert"
LEVELS = (*NOISY, ENGINE)


def schedule(variant: str, accounts: int, games: int, seed: int) -> list[tuple[int, str, str, str, str]]:
    """The matches to play: (number, account A, level A, account B, level B), every account in ``games``."""
    rng = random.Random(f"fair_play:{variant}:{seed}")
    names = [f"{level}-{index}" for level in LEVELS for index in range(accounts)]
    for _ in range(1000):
        slots = [name for name in names for _ in range(games)]
        rng.shuffle(slots)
        pairs = list(zip(slots[0::2], slots[1::2], strict=True))
        if all(a != b for a, b in pairs):
            return [(number, a, a.rsplit("-", 1)[0], b, b.rsplit("-", 1)[0]) for number, (a, b) in enumerate(pairs)]
    raise RuntimeError("no pairing without a self-match found")


def play_record(variant: str, levels: tuple[str, str], seed: str) -> dict[str, Any]:
    """A one-point match without the cube between bots of ``levels``, as a table's record holds it."""
    rng = random.Random(seed)
    bots = [make_bot(level, variant=variant, seed=rng.randrange(2**31)) for level in levels]
    match = Match.new(variant, length=1, options=GameOptions(cube=False))
    events: list[dict[str, Any]] = [
        {"kind": "seated", "seat": seat, "payload": {"seat": seat, "name": levels[seat], "bot": None}}
        for seat in (0, 1)
    ]
    events.append({"kind": "match_started", "seat": None, "payload": {}})
    while not match.is_over:
        game = match.game
        if game.phase is Phase.OPENING:
            first = rng.randint(1, 6)
            second = rng.choice([d for d in range(1, 7) if d != first])
            events.append({"kind": "opening_rolled", "seat": None, "payload": {"dice": [first, second]}})
            match = match.update(game.opening_roll((first, second)))
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
            raise RuntimeError(f"unexpected phase {game.phase} in a cubeless match")
    return {"variant": variant, "match_length": 1, "options": {"cube": False}, "events": events}


def play_and_analyse(variant: str, seed: int, match: tuple[int, str, str, str, str]) -> dict[str, Any]:
    """Play one scheduled match and analyse it; both players' figures and the analysis's seconds."""
    number, a, level_a, b, level_b = match
    record = play_record(variant, (level_a, level_b), f"fair_play:{variant}:{seed}:{number}")
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


def report(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Per variant: each level's accounts flagged against their bands, the levels' means, analysis seconds."""
    by_variant: dict[str, dict[str, list[GameFigures]]] = defaultdict(lambda: defaultdict(list))
    seconds: dict[str, list[float]] = defaultdict(list)
    for row in rows:
        seconds[row["variant"]].append(row["analysis_seconds"])
        for name, figures in zip(row["accounts"], row["figures"], strict=True):
            by_variant[row["variant"]][name].append(GameFigures(**figures))
    answer: dict[str, Any] = {}
    for variant, accounts in by_variant.items():
        summed = {name: account_figures(games) for name, games in accounts.items()}
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
                 for level, members in levels.items() if members}
        answer[variant] = {"flags": lines, "levels": means, "matches": len(seconds[variant]),
                           "analysis_seconds_mean": statistics.fmean(seconds[variant]),
                           "analysis_seconds_max": max(seconds[variant])}
    return answer


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
    parser.add_argument("--accounts", type=int, default=12, help="accounts of each level per variant")
    parser.add_argument("--games", type=int, default=10, help="matches per account")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--log", type=Path, default=Path("fair-play.jsonl"))
    parser.add_argument("--report", action="store_true", help="only report what the log holds")
    args = parser.parse_args(argv)
    done = [json.loads(line) for line in args.log.read_text().splitlines()] if args.log.exists() else []
    if not args.report:
        seen = {(row["variant"], row["number"]) for row in done}
        todo = [(variant, match) for variant in args.variants.split(",")
                for match in schedule(variant, args.accounts, args.games, args.seed)
                if (variant, match[0]) not in seen]
        with ProcessPoolExecutor(max_workers=args.workers) as pool, args.log.open("a") as log:
            futures = [pool.submit(play_and_analyse, variant, args.seed, match) for variant, match in todo]
            for future in futures:
                row = future.result()
                done.append(row)
                log.write(json.dumps(row) + "\n")
                log.flush()
                print(f"{row['variant']} match {row['number']}: {row['analysis_seconds']:.1f} s", file=sys.stderr)
    json.dump(report(done), sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
