"""What one player's action costs the server in pure Python, side by side across checkouts: deciding it,
folding its events with the server's follow-ups, building the view and its changes.

Run::

    python -m benchmarks.action_path [--actions 3000] [--repeat 5] [--server NAME=DIR ...]

Seeded random games (backgammon 50 %, Georgian 20 %, long nardy 30 %, one
point each, as ``benchmarks.load`` plays them) are played through the
server's own functions: each action is a roll or a uniformly random legal
``move``, decided (``table_state.decide``), folded with every follow-up the
server adds (dice seeds, game and match ends), viewed (``table_state.view``)
and shown as changes from the view before (``view_changes.show``): the
work an action's message does on the event loop, without the database, the
sockets or the sleeps (``benchmarks.load`` measures the whole). Each figure
is the median of ``--repeat`` runs of the process CPU time per action, in
microseconds.

Each ``--server`` runs this file in its own process with that checkout's
``nardy`` first on the path, so a checkout from before the table redesign
(2e545fb, where the same steps lived in ``TableService`` and ``eventlog``)
is measured by the same loop; :func:`_server_steps` finds whichever it has.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

NOW = datetime(2026, 1, 1, tzinfo=UTC)
VARIANTS = ["backgammon"] * 5 + ["georgian"] * 2 + ["long-traditional"] * 3

Fold = Callable[[Any, list[Any], dict[int, str], str | None], Any]
Roller = Callable[[Any, dict[int, str]], Callable[[int], tuple[int, int]]]


def _server_steps() -> tuple[Fold, Roller, Callable[..., Any]]:
    """The checkout's fold of a batch (with the server's follow-ups), its dice, and its view changes."""
    from nardy.server.services.coins import CoinPolicy
    from nardy.server.services.dice import ProvablyFairDice

    dice = ProvablyFairDice()
    try:
        from nardy.server.services.table_owner import fold_batch
        from nardy.server.services.tables import MatchKind
        from nardy.server.ws.view_changes import show
    except ImportError:  # the code before the table redesign: the same steps in TableService and eventlog
        from nardy.server.services.eventlog import fold_batch as fold_with  # type: ignore[import-not-found]
        from nardy.server.services.table_state import apply_event
        from nardy.server.services.tables import TableService
        from nardy.server.view_changes import show  # type: ignore[import-not-found,no-redef]

        service: Any = object.__new__(TableService)
        service._dice = dice

        def fold_before(state: Any, events: list[Any], seeds: dict[int, str], action_id: str | None) -> Any:
            follow = lambda folded: service._follow_up(folded, seeds, [])  # noqa: E731
            return fold_with(state, events, NOW, apply_event, follow, action_id)[0]

        def roll_before(state: Any, seeds: dict[int, str]) -> Callable[[int], tuple[int, int]]:
            return lambda number: dice.roll(seeds[state.game_number], state.game_client_seeds, number)

        return fold_before, roll_before, show
    kind = MatchKind(db=None, dice=dice, coins=CoinPolicy())  # type: ignore[arg-type]

    def fold(state: Any, events: list[Any], seeds: dict[int, str], action_id: str | None) -> Any:
        return fold_batch(kind, state, events, NOW, seeds, [], action_id)[0]

    def roll(state: Any, seeds: dict[int, str]) -> Callable[[int], tuple[int, int]]:
        return lambda number: kind.roll(state, seeds, number)

    return fold, roll, show


def measure(actions: int, seed: int) -> float:
    """CPU microseconds per action over ``actions`` actions of seeded random games (this process's ``nardy``)."""
    from nardy.notation import position_from_dict
    from nardy.rules import GameOptions
    from nardy.server.services.table_state import NewEvent, TableSpec, decide, initial_state, view

    fold, roller, show = _server_steps()
    rng = random.Random(seed)
    spent, done, tables = 0.0, 0, 0
    while done < actions:
        spec = TableSpec(variant=rng.choice(VARIANTS), match_length=1, options=GameOptions())
        seeds: dict[int, str] = {}
        seated = [NewEvent("seated", None, {"seat": s, "user_id": s + 1, "name": f"p{s}", "client_seed": f"c{s}"})
                  for s in (0, 1)]
        state = fold(initial_state(f"t{tables}", spec), seated, seeds, None)
        tables += 1
        shown = show(view(state, now=NOW), state.version, None)[0]
        shown_view = view(state, now=NOW)
        while state.status != "finished" and done < actions:
            seat, game = shown_view["actor"], shown_view.get("game") or {}
            if game.get("phase") == "rolling":
                action: dict[str, Any] = {"t": "roll"}
            elif game.get("phase") == "moving":
                play = rng.choice(position_from_dict(game["boards"][seat]).legal_plays(game["dice"]))
                action = {"t": "move", "steps": [
                    {"source": s.source, "target": s.target, "die": s.die, "hit": s.hit} for s in play.steps
                ]}
            else:
                break
            began = time.process_time()
            events = decide(state, seat, action, roller(state, seeds))
            state = fold(state, events, seeds, f"{seat}:{done}")
            shown_view = view(state, now=NOW)
            shown = show(shown_view, state.version, shown)[0]
            spent += time.process_time() - began
            done += 1
    return spent / done * 1e6


def _run_checkout(directory: Path, actions: int, repeat: int) -> list[float]:
    """This file run ``repeat`` times in a process importing ``directory``'s ``nardy``; its figures."""
    environment = {**os.environ, "PYTHONPATH": str(directory)}
    command = [sys.executable, str(Path(__file__).resolve()), "--inner", "--actions", str(actions),
               "--repeat", str(repeat)]
    answer = subprocess.run(command, cwd=directory, env=environment, capture_output=True, text=True, check=True)
    figures: list[float] = json.loads(answer.stdout.strip().splitlines()[-1])
    return figures


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--server", action="append", default=[], metavar="NAME=DIR",
                        help="a checkout to measure (repeatable; default: this one); the servers alternate")
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if options.inner:
        measure(options.actions // 3, seed=0)  # warm: imports, memo tables
        print(json.dumps([measure(options.actions, seed=run) for run in range(options.repeat)]))
        return
    servers = [entry.split("=", 1) for entry in options.server] or [["this", "."]]
    print(f"command: python -m benchmarks.action_path {' '.join(sys.argv[1:])}")
    print(f"date: {datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {options.actions} actions per run, median of "
          f"{options.repeat} runs per round, two rounds alternating the servers\n")
    figures: dict[str, list[float]] = {name: [] for name, _ in servers}
    for _ in range(2):
        for name, directory in servers:
            figures[name] += _run_checkout(Path(directory).resolve(), options.actions, options.repeat)
    first = statistics.median(figures[servers[0][0]])
    print("| server | µs of CPU per action (median) | runs | against the first |\n| --- | ---: | --- | ---: |")
    for name, _ in servers:
        median = statistics.median(figures[name])
        runs = ", ".join(f"{value:.0f}" for value in figures[name])
        print(f"| {name} | {median:.0f} | {runs} | {median / first:.3f} |")


if __name__ == "__main__":
    main()
