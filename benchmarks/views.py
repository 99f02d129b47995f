"""What publishing one action's view costs the server: building the table's view and diffing it against the
last one published, per variant, hot.

Run::

    python -m benchmarks.views [--states 200] [--repeat 5]

For each variant, the states a table passes through in a seeded random game
(random dice, uniformly random legal plays, folded with the server's own
``apply_event``) up to ``--states`` of them. Each state's view is built
(``table_state.view``) and shown as the changes from the state before it
(``view_changes.show``), as :meth:`SocketPublisher.batch` does after every
committed action; each figure is the median over the states of the best of
``--repeat`` timings, in microseconds. These are hot figures (the same work
back to back): the server pays more per action, since it runs after a sleep
(``benchmarks/wakeups.py``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from datetime import UTC, datetime
from typing import Any

from nardy.rules import GameOptions, Phase
from nardy.server.services.table_state import NewEvent, TableSpec, TableState, apply_event, initial_state, step_dict, view
from nardy.server.ws.view_changes import show

VARIANTS = ("backgammon", "georgian", "long-traditional")


def game_states(variant: str, count: int, seed: str) -> list[TableState]:
    """The first ``count`` states of a seeded random match of ``variant`` (one game to one point), as the
    server folds them."""
    rng = random.Random(seed)
    spec = TableSpec(variant, 1, GameOptions(cube=variant == "backgammon"), move_seconds=60)
    now = datetime.now(UTC)
    state = initial_state("bench", spec)
    opening = rng.sample(range(1, 7), 2)
    for event in (
        NewEvent("seated", None, {"seat": 0, "user_id": 1, "name": "white", "client_seed": "a"}),
        NewEvent("seated", None, {"seat": 1, "user_id": 2, "name": "black", "client_seed": "b"}),
        NewEvent("match_started", None, {}),
        NewEvent("game_started", None, {"number": 1, "commitment": "c", "client_seeds": ["a", "b"]}),
        NewEvent("opening_rolled", None, {"number": 0, "dice": opening}),
    ):
        state = apply_event(state, event, now)
    states = [state]
    while len(states) < count and state.game is not None and state.game.result is None:
        game, actor = state.game, state.actor()
        if game.phase is Phase.ROLLING:
            event = NewEvent("rolled", actor, {"number": state.roll_number, "dice": [rng.randint(1, 6), rng.randint(1, 6)]})
        else:
            assert game.dice is not None
            play = rng.choice(game.position.legal_plays(game.dice))
            event = NewEvent("moved", actor, {"steps": [step_dict(step) for step in play.steps]})
        state = apply_event(state, event, now)
        states.append(state)
    return states


def best_microseconds(work: Any, repeat: int) -> float:
    """The quickest of ``repeat`` runs of ``work()``, in microseconds."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=200, help="states per variant (fewer if the game ends first)")
    parser.add_argument("--repeat", type=int, default=5, help="timings of each state; the quickest counts")
    args = parser.parse_args(argv)
    now = datetime.now(UTC)
    print("| variant | states | view µs (median) | diff µs (median) | both µs (median) | both µs (90th percentile) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for variant in VARIANTS:
        states = game_states(variant, args.states, seed=f"views:{variant}")
        views, diffs, both = [], [], []
        shown = show(view(states[0], now=now), states[0].version, None)[0]
        for state in states[1:]:
            built = view(state, now=now)
            views.append(best_microseconds(lambda s=state: view(s, now=now), args.repeat))
            diffs.append(best_microseconds(lambda v=built, s=state: show(v, s.version, shown), args.repeat))
            both.append(views[-1] + diffs[-1])
            shown = show(built, state.version, shown)[0]
        tenth = statistics.quantiles(both, n=10)[-1] if len(both) > 1 else both[0]
        print(f"| {variant} | {len(both)} | {statistics.median(views):.1f} | {statistics.median(diffs):.1f} | "
              f"{statistics.median(both):.1f} | {tenth:.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
