"""Long nardy's position benchmark, part one: reproducible positions with rollout labels.

Positions come from seeded self-play of our network at 0-ply with a little
noise (so that games differ), taken at random plies across whole games, only
where the roll has more than one legal play; each regulation plays its own
games, since the head and block rules change which plays are legal. Each
position's candidate plays, the ``--top`` best at 0-ply, are rolled out on
the same dice (:func:`nardy.bots.rollout.rollout_outcomes`), and the file
keeps each candidate's rollout equity, its standard error and the standard
error of its difference from the rollout's best (paired trials).

    python -m benchmarks.long_positions --positions 3400 --workers 16 --seed 0 \\
        --out benchmarks/data/long-positions.json.gz

``python -m benchmarks.long_benchmark`` then measures how much equity a bot
gives up against the rollout's best play on these positions, and
``python -m nardy.bots.supervised`` fits a network to other such files
(other seeds: other games). Position ``k`` always gets the same dice,
whatever ``--workers``; ``--weights`` names the network that plays the games
and the rollouts (default: the shipped one, so a file made before a network
was replaced is reproduced with ``--weights`` on the old file).

Training sets may instead be labelled by the network's own deeper look:
``--plies N`` gives each candidate its N-ply search value, exact for that
depth (a 1-ply label of two candidates costs about a twenty-fifth of their
36-trial rollout, a 2-ply label about as much), and ``--streams`` lets
several processes play one regulation's games, which with cheap labels are
much of the work:

    python -m benchmarks.long_positions --positions 40000 --top 2 --plies 1 --rate 0.5 \
        --streams 16 --workers 16 --seed 11 --out ply1.json.gz
"""

from __future__ import annotations

import argparse
import concurrent.futures
import functools
import json
import random
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np

from nardy.bots.evaluator import after_play_probabilities, equity, invert
from nardy.bots.neural import WEIGHTS, NeuralBot, NeuralEvaluator, default_evaluator, evaluator_for
from nardy.bots.phased import load_network
from nardy.bots.race import RaceEvaluator
from nardy.bots.rollout import rollout_outcomes
from nardy.bots.search import after_values
from nardy.bots.supervised import open_labelled
from nardy.notation import format_steps, position_to_dict
from nardy.rules import Play, Position, find_variant

FORMAT: Final = 1
DEFAULT_OUT: Final = Path("benchmarks/data/long-positions.json.gz")


@dataclass(frozen=True)
class Sample:
    """A position to label: the side to move, its roll and the ply of the game it came from."""

    position: Position
    dice: tuple[int, int]
    ply: int


@functools.cache
def network_evaluator(variant: str, weights: str | None) -> NeuralEvaluator:
    """The evaluator of the network in ``weights`` (a .npz file), or the shipped one when ``None``."""
    if weights is None:
        return default_evaluator(variant)
    return evaluator_for(load_network(weights), find_variant(variant))


def self_play_samples(variant: str, count: int, *, seed: int, rate: float = 0.12, noise: float = 0.05,
                      weights: str | None = None, stream: int = 0) -> Iterator[Sample]:
    """``count`` decisions with two or more legal plays, each kept with probability ``rate``, from seeded games.

    ``stream`` numbers independent sequences of games under one seed, so that
    several processes can make one regulation's positions at once; stream 0
    is the sequence of files made before streams existed.
    """
    rng = random.Random(f"long-positions:{variant}:{seed}" + (f":{stream}" if stream else ""))
    bot = NeuralBot(network_evaluator(variant, weights), noise=noise, seed=seed + stream * 1_000_003)
    found = 0
    while True:
        position = Position.start(variant)
        for ply in range(10_000):
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            plays = position.legal_plays(dice)
            if len(plays) > 1 and rng.random() < rate:
                yield Sample(position, dice, ply)
                found += 1
                if found == count:
                    return
            play = bot.choose_play(position, dice)
            if play is not None and play.position.winner_is_mover():
                break
            position = (play.position if play is not None else position).turned()


def candidates(position: Position, dice: tuple[int, int], top: int, weights: str | None = None) -> list[tuple[Play, float]]:
    """The ``top`` best plays at 0-ply with their 0-ply equities, best first."""
    plays = position.legal_plays(dice)
    values = equity(after_play_probabilities(network_evaluator(position.variant.name, weights), [p.position for p in plays]))
    order = np.argsort(-values, kind="stable")[:top]
    return [(plays[i], float(values[i])) for i in order]


def label(sample: Sample, *, top: int, trials: int, truncate: int | None, seed: int,
          weights: str | None = None, plies: int | None = None, player_plies: int = 0) -> dict[str, Any]:
    """One entry: the position, the roll and its candidates' rollout results, or their ``plies``-ply search values.

    A search value is exact for its depth (no dice are sampled), so its
    standard errors are 0; it is the training target of a network fitted to
    what a deeper look of this one sees. ``player_plies``: how deep the
    rollout's player searches each move.
    """
    chosen = candidates(sample.position, sample.dice, top, weights)
    evaluator = RaceEvaluator(network_evaluator(sample.position.variant.name, weights))
    if plies is None:
        starts = [play.position.turned() for play, _ in chosen]
        outcomes = invert(rollout_outcomes(evaluator, starts, trials=trials, truncate=truncate, seed=seed,
                                           player_plies=player_plies))
    else:
        outcomes = after_values(evaluator, [play.position for play, _ in chosen], plies)[:, None, :]
    values = equity(outcomes)  # (candidates, trials): the mover's equity, trial by trial on the same dice
    means = values.mean(axis=1)
    best = int(np.argmax(means))
    exact = plies is not None  # a search value samples no dice: it has no standard error
    rows = []
    for index, (play, zero_ply) in enumerate(chosen):
        difference = values[best] - values[index]
        rows.append({
            "play": format_steps(play.steps),
            "position": position_to_dict(play.position),
            "zero_ply": zero_ply,
            "equity": float(means[index]),
            "equity_error": 0.0 if exact else _error(values[index]),
            "loss": float(means[best] - means[index]),
            "loss_error": 0.0 if exact else _error(difference),
            "probabilities": outcomes[index].mean(axis=0).tolist(),
        })
    if exact:  # exact values: six decimals keep a training file of 100,000 positions to about 11 MB
        rows = [_rounded(row) for row in rows]
    return {
        "variant": sample.position.variant.name,
        "position": position_to_dict(sample.position),
        "dice": list(sample.dice),
        "ply": sample.ply,
        "pips": list(sample.position.pip_counts()),
        "plays": len(sample.position.legal_plays(sample.dice)),
        "candidates": rows,
    }


def _error(values: np.ndarray[Any, Any]) -> float:
    return float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else float("nan")


def _rounded(row: dict[str, Any]) -> dict[str, Any]:
    """``row`` with its numbers to six decimals."""
    return {key: round(value, 6) if isinstance(value, float)
            else [round(x, 6) for x in value] if key == "probabilities" else value
            for key, value in row.items()}


def _write_document(path: Path, document: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open_labelled(path, "wt") as file:
        file.write(json.dumps(document, separators=(",", ":")) + "\n")


def _samples_of(variant: str, count: int, settings: dict[str, Any], stream: int) -> list[Sample]:
    return list(self_play_samples(variant, count, seed=settings["seed"], rate=settings.get("rate", 0.12),
                                  weights=settings["weights_file"], stream=stream))


def _label_batch(indexed: Sequence[tuple[int, Sample]], settings: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"index": index, **label(sample, top=settings["top"], trials=settings["trials"],
                                     truncate=settings["truncate"], seed=settings["seed"] * 1_000_003 + index,
                                     weights=settings["weights_file"], plies=settings.get("plies"),
                                     player_plies=settings.get("player_plies", 0))}
            for index, sample in indexed]


def stream_counts(count: int, streams: int) -> list[int]:
    """How many of a regulation's ``count`` positions each of ``streams`` streams of games makes."""
    return [count // streams + (1 if stream < count % streams else 0) for stream in range(streams)]


def label_all(variants: Sequence[str], settings: dict[str, Any], *, workers: int,
              deadline: float | None = None, batch: int = 1) -> list[dict[str, Any]]:
    """Every regulation's positions labelled, ``batch`` positions per task on ``workers`` processes, in index order.

    Position ``index`` (counted across the regulations in order) is rolled
    out on the dice of ``seed * 1_000_003 + index`` whatever the number of
    workers; the regulations take turns, so a run cut short by ``deadline``
    (seconds) labels about as many positions of each, every entry as the
    full run labels it. ``settings["streams"]`` (default 1) splits each
    regulation's games into that many streams made in parallel, which pays
    when labels are cheap (search values) and the games are the work.
    """
    count = settings["positions"]
    jobs = [(variant, made, stream) for variant in variants
            for stream, made in enumerate(stream_counts(count, settings.get("streams", 1))) if made]
    began = time.perf_counter()
    entries: list[dict[str, Any]] = []
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers) as pool:
        made_lists = pool.map(_samples_of, [job[0] for job in jobs], [job[1] for job in jobs],
                              [settings] * len(jobs), [job[2] for job in jobs])
        lists: dict[str, list[Sample]] = {variant: [] for variant in variants}
        for (variant, _, _), samples in zip(jobs, made_lists):
            lists[variant].extend(samples)
        indexed = [(number * count + i, lists[variant][i]) for i in range(count) for number, variant in enumerate(variants)]
        pending = [pool.submit(_label_batch, indexed[start:start + batch], settings)
                   for start in range(0, len(indexed), batch)]
        remaining = None if deadline is None else max(0.0, deadline - (time.perf_counter() - began))
        reported = 0
        try:
            for future in concurrent.futures.as_completed(pending, timeout=remaining):
                entries.extend(future.result())
                if len(entries) >= reported + 100:
                    reported = len(entries)
                    print(f"{len(entries)}/{len(indexed)} labelled, {time.perf_counter() - began:.0f} s", flush=True)
        except TimeoutError:
            print(f"deadline: {len(entries)}/{len(indexed)} labelled", flush=True)
            pool.shutdown(wait=True, cancel_futures=True)
    return sorted(entries, key=lambda entry: int(entry["index"]))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", action="append", choices=sorted(WEIGHTS),
                        help="a regulation (repeatable; default all three)")
    parser.add_argument("--positions", type=int, default=100, help="positions per regulation (100)")
    parser.add_argument("--top", type=int, default=4, help="candidate plays rolled out per position, best at 0-ply (4)")
    parser.add_argument("--trials", type=int, default=36, help="trials per candidate (36)")
    parser.add_argument("--truncate", type=int, default=7, help="rolls before the network rates the position (7; -1: to the end)")
    parser.add_argument("--plies", type=int,
                        help="label with this deep a search of the network instead of rollouts (exact, no trials)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games and of the rollouts' dice")
    parser.add_argument("--rate", type=float, default=0.12, help="chance that a decision with a choice is kept (0.12)")
    parser.add_argument("--streams", type=int, default=1,
                        help="independent streams of games per regulation, made in parallel (1)")
    parser.add_argument("--workers", type=int, default=1, help="positions labelled at once, each in its own process")
    parser.add_argument("--deadline", type=float, help="stop after this many seconds and write what is labelled")
    parser.add_argument("--player-plies", type=int, default=0,
                        help="how deep the rollouts' player searches each move (0: the network's choice)")
    parser.add_argument("--weights", help="the network that plays and rolls out (.npz; default the shipped one)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="the file to write (gzipped if it ends in .gz)")
    args = parser.parse_args(argv)
    variants = args.variant or sorted(WEIGHTS)
    truncate = None if args.truncate < 0 else args.truncate
    command = "python -m benchmarks.long_positions " + " ".join(argv if argv is not None else sys.argv[1:])
    print(command, flush=True)
    labels = ({"trials": args.trials, "truncate": truncate, "rollout_player": f"network {args.player_plies}-ply",
               "player_plies": args.player_plies} if args.plies is None
              else {"trials": 1, "truncate": None, "plies": args.plies})
    settings = {"variants": variants, "positions": args.positions, "top": args.top, **labels,
                "seed": args.seed, "rate": args.rate, "streams": args.streams,
                "bearoff": "exact database", "weights_file": args.weights,
                "weights": network_evaluator(variants[0], args.weights).network.meta.get("training", "")}
    began = time.perf_counter()
    entries = label_all(variants, settings, workers=args.workers, deadline=args.deadline,
                        batch=1 if args.plies is None else 32)
    document = {
        "format": FORMAT,
        "command": command,
        "settings": settings,
        "complete": len(entries) == args.positions * len(variants),
        "seconds": round(time.perf_counter() - began, 1),
        "entries": entries,
    }
    _write_document(args.out, document)
    print(f"wrote {len(entries)} positions to {args.out} in {document['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
