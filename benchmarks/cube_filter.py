"""How often the short-board bots' deeper cube analysis can be skipped, and what skipping would change.

The expert and world-class levels ask bgsage for a 3-ply cube analysis at
every turn where a double is legal (80-140 ms each). Most of those turns
are far from the doubling window, where bgsage's 1-ply analysis (a tenth of
a millisecond) already says so. This run plays games of the advanced level
against itself (cubeless), keeps about half the positions before a roll,
and asks both analyses about each in several cube states and scores. It
reports, for the decisions where the 3-ply analysis doubles, how far below
holding the 1-ply analysis put doubling, and for each threshold how many
decisions the 1-ply analysis would skip and how many 3-ply doubles it would
skip with them (``nardy.bots.sage.far_from_doubling``)::

    python -m benchmarks.cube_filter --games 110
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import time
from collections import Counter
from typing import NamedTuple

from nardy.bots.sage import (
    SAGE_LEVELS,
    CubeAdvice,
    DOUBLING_FAR,
    CubeContext,
    SageBot,
    board_of,
    doubling_gain,
    engine,
    far_from_doubling,
)
from nardy.rules import Cube, Game, GameOptions, MatchContext, Phase, Position

THRESHOLDS = (0.05, 0.1, 0.15, 0.2, 0.3)
MONEY = GameOptions(cube=True, jacoby=True, beavers=True)
STATES: tuple[tuple[str, str, GameOptions, MatchContext, Cube], ...] = (
    ("money, centred cube, Jacoby", "backgammon", MONEY, MatchContext(), Cube()),
    ("money, cube 2 on our side", "backgammon", MONEY, MatchContext(), Cube(2, 0)),
    ("7 points, 0-0", "backgammon", GameOptions(cube=True), MatchContext(length=7, score=(0, 0)), Cube()),
    ("7 points, 2-4", "backgammon", GameOptions(cube=True), MatchContext(length=7, score=(2, 4)), Cube()),
    ("7 points, 5-3", "backgammon", GameOptions(cube=True), MatchContext(length=7, score=(5, 3)), Cube()),
    ("7 points, 3-6 after Crawford", "backgammon", GameOptions(cube=True), MatchContext(length=7, score=(3, 6)),
     Cube()),
    ("dave, 5 points, 0-0", "dave", GameOptions(cube=True), MatchContext(length=5, score=(0, 0)), Cube()),
)


class Asked(NamedTuple):
    """One cube decision, asked of both analyses."""

    state: str
    one_ply: CubeAdvice
    three_ply: CubeAdvice


def positions(games: int, seed: int) -> list[Position]:
    """About half the positions before a roll of ``games`` cubeless games of the advanced level against itself."""
    rng = random.Random(seed)
    bot = SageBot(SAGE_LEVELS["advanced"], seed=seed)
    kept: list[Position] = []
    for _ in range(games):
        position = Position.start("backgammon")
        while True:
            if rng.random() < 0.5:
                kept.append(position)
            play = bot.choose_play(position, (rng.randint(1, 6), rng.randint(1, 6)))
            after = play.position if play is not None else position
            if after.off[0] == 15:
                break
            position = after.turned()
    return kept


def ask(kept: list[Position]) -> tuple[list[Asked], list[float], list[float]]:
    """Both analyses of every position in every state where the side to roll may double; and their times."""
    asked: list[Asked] = []
    one_ply_times: list[float] = []
    three_ply_times: list[float] = []
    for state, variant, options, context, cube in STATES:
        start = Game.new(variant, options=options, context=context, first_player=0)
        for position in kept:
            placed = Position(start.position.variant, position.points, position.bar, position.off)
            game = dataclasses.replace(start, position=placed, cube=cube, turns_played=6, phase=Phase.ROLLING)
            if not game.can_double(0):
                continue
            board, cube_context = board_of(game.board_for(0)), CubeContext.of(game, 0)
            began = time.perf_counter()
            one_ply = engine().cube(board, cube_context, plies=1)
            one_ply_times.append(time.perf_counter() - began)
            began = time.perf_counter()
            three_ply = engine().cube(board, cube_context, plies=3)
            three_ply_times.append(time.perf_counter() - began)
            asked.append(Asked(state, one_ply, three_ply))
    return asked, one_ply_times, three_ply_times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=110)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    print(f"python -m benchmarks.cube_filter --games {args.games} --seed {args.seed}", flush=True)
    kept = positions(args.games, args.seed)
    asked, one_ply_times, three_ply_times = ask(kept)
    doubles = [d for d in asked if d.three_ply.should_double]
    print(f"{len(kept)} positions, {len(asked)} cube decisions; median time 1-ply "
          f"{statistics.median(one_ply_times) * 1e3:.2f} ms, 3-ply {statistics.median(three_ply_times) * 1e3:.1f} ms")
    short = [d for d in doubles if d.one_ply.no_double < d.one_ply.double_pass]
    worst = min(doubling_gain(d.one_ply) for d in short)
    print(f"the 3-ply analysis doubles in {len(doubles)}; in the {len(short)} of them short of too good at 1-ply, "
          f"the 1-ply analysis put doubling at worst {worst:+.3f} against holding")
    print(f"too good to double at 1-ply (never skipped): "
          f"{sum(1 for d in asked if d.one_ply.no_double >= d.one_ply.double_pass)}")
    print("\n| threshold | decisions skipped | 3-ply doubles among them |\n| ---: | ---: | ---: |")
    for threshold in THRESHOLDS:
        skips = [d for d in asked if far_from_doubling(d.one_ply, by=threshold)]
        print(f"| {threshold} | {len(skips):,} of {len(asked):,} ({100 * len(skips) / len(asked):.0f} %) | "
              f"{sum(d.three_ply.should_double for d in skips)} |")
    totals = Counter(d.state for d in asked)
    skips_by_state = Counter(d.state for d in asked if far_from_doubling(d.one_ply))
    doubles_by_state = Counter(d.state for d in doubles)
    print(f"\n| cube state and score | decisions | skipped at {DOUBLING_FAR} | 3-ply doubles |")
    print("| --- | ---: | ---: | ---: |")
    for state, *_ in STATES:
        print(f"| {state} | {totals[state]} | {skips_by_state[state]} | {doubles_by_state[state]} |")


if __name__ == "__main__":
    main()
