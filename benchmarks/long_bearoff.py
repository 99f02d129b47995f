"""What the bear-off database would change in long nardy: the network's loss in races it can rate exactly.

Self-play games of our network (0-ply, seeded dice) are followed into the
race where both sides have every checker home; at each such decision with
more than one legal play, every play is rated exactly by the database
(:class:`nardy.bots.race.RaceEvaluator`), and the network's choice at
``--plies`` is charged its exact loss against the best. The mean loss per
race decision is what wiring the database into the bots would gain there
(exact for the database's policy; see :mod:`nardy.bots.bearoff`).

    python -m benchmarks.long_bearoff --games 200 --plies 0
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Sequence

import numpy as np

from nardy.bots.encoding import raw_boards
from nardy.bots.evaluator import after_play_probabilities, equity
from nardy.bots.neural import WEIGHTS, NeuralBot, default_evaluator
from nardy.bots.race import RaceEvaluator, race_rows
from nardy.rules import Position


def race_losses(variant: str, games: int, *, plies: int, seed: int) -> tuple[list[float], int]:
    """The exact loss of each race decision of ``games`` self-play games, and how many decisions were forced."""
    rng = random.Random(f"long-bearoff:{variant}:{seed}")
    evaluator = default_evaluator(variant)
    exact = RaceEvaluator(evaluator)
    bot = NeuralBot(evaluator, plies=plies)
    losses: list[float] = []
    forced = 0
    for _ in range(games):
        position = Position.start(variant)
        while True:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            play = bot.choose_play(position, dice)
            if race_rows(raw_boards([position]))[0]:
                plays = position.legal_plays(dice)
                if len(plays) > 1 and play is not None:
                    values = equity(after_play_probabilities(exact, [p.position for p in plays]))
                    losses.append(float(values.max() - values[plays.index(play)]))
                else:
                    forced += 1
            if play is not None and play.position.winner_is_mover():
                break
            position = (play.position if play is not None else position).turned()
    return losses, forced


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", action="append", choices=sorted(WEIGHTS))
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--plies", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    print("python -m benchmarks.long_bearoff " + " ".join(argv if argv is not None else sys.argv[1:]))
    print(f"{'regulation':<17} {'games':>5} {'decisions':>9} {'forced':>6} {'loss (mp)':>9} {'± 95%':>6} {'not best':>8}")
    for variant in args.variant or sorted(WEIGHTS):
        losses, forced = race_losses(variant, args.games, plies=args.plies, seed=args.seed)
        values = np.array(losses)
        half = 1.96 * values.std(ddof=1) / np.sqrt(len(values)) if len(values) > 1 else float("nan")
        print(f"{variant:<17} {args.games:>5} {len(values):>9} {forced:>6} {1000 * values.mean():>9.2f} "
              f"{1000 * half:>6.2f} {np.mean(values > 1e-12):>8.1%}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
