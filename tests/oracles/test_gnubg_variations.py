"""Differential test: our hypergammon and nackgammon plays against GNU Backgammon's own.

For 2,000 (position, roll) pairs of each variant, from random games of it
(random dice, random legal plays, from the variant's start), the positions our
legal plays lead to must be exactly those of the plays gnubg lists. gnubg is
Debian's program (GPL, never imported): it runs once per variant, in text mode,
with tests/oracles/gnubg_variation_plays.py as its script, and lists every legal
play with ``hint`` at 0-ply; each play's text (``13/7*/5 6/5``) is applied here
to the position to get the position it leads to.

Nackgammon is asked under ``set variation nackgammon``. Hypergammon is asked
under gnubg's standard variation: under ``3-chequer-hypergammon`` gnubg 1.07
rates plays only with its hypergammon database, which Debian does not ship, and
``hint`` then lists nothing; gnubg's move generator itself is the same in every
variation, and the variation's start (one checker on each of 24, 23 and 22) is
checked against ours in tests/notation/test_gnubg_id.py. Each Position ID we
send is checked against the board gnubg sets from it.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from nardy.notation.gnubg_id import position_id
from nardy.rules import Position

SCRIPT = Path(__file__).with_name("gnubg_variation_plays.py")
GNUBG = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")
CASES = 2000
SHARDS = 8

pytestmark = [
    pytest.mark.oracle,
    pytest.mark.skipif(GNUBG is None, reason="GNU Backgammon is not installed (apt-get install gnubg)"),
]

Key = tuple[int, ...]


def corpus(variant: str, count: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    """``count`` (position, roll) pairs met in random games of ``variant``, passes included."""
    rng = random.Random(seed)
    cases: list[tuple[Position, tuple[int, int]]] = []
    while len(cases) < count:
        position = Position.start(variant)
        while not position.is_game_over() and len(cases) < count:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            cases.append((position, dice))
            plays = position.legal_plays(dice)
            position = (rng.choice(plays).position if plays else position).turned()
    return cases


def apply_move_text(position: Position, text: str) -> Key:
    """The row (points, bar, off) that gnubg's text of a play leads to, from the mover's side.

    Each word is one checker's path, ``a/b/c`` with ``bar`` for 25 and ``off`` for 0, a
    ``*`` where it hits, and ``(n)`` for n checkers taking the same path; a checker landing
    on a lone opposing checker sends it to the bar.
    """
    points, bar, off = list(position.points), list(position.bar), list(position.off)
    for word in text.split():
        path, _, repeat = word.partition("(")
        places = [25 if p == "bar" else 0 if p == "off" else int(p) for p in path.replace("*", "").split("/")]
        for _ in range(int(repeat.rstrip(")")) if repeat else 1):
            for source, target in zip(places, places[1:]):
                if source == 25:
                    bar[0] -= 1
                else:
                    points[source - 1] -= 1
                if target == 0:
                    off[0] += 1
                    continue
                if points[target - 1] == -1:
                    points[target - 1] = 0
                    bar[1] += 1
                points[target - 1] += 1
    return (*points, *bar, *off)


def gnubg_answers(variation: str, cases: list[tuple[Position, tuple[int, int]]], home: Path) -> list[dict]:
    """gnubg's answer to each case, from ``SHARDS`` gnubg processes run side by side.

    gnubg's ``hint`` waits about 10 ms for its worker threads, idle (measured:
    2,000 hints take 22 s of wall time and 1.5 s of CPU), so the cases are shared
    among processes that wait together.
    """
    assert GNUBG is not None
    runs = []
    for shard in range(SHARDS):
        folder = home / f"shard{shard}"
        folder.mkdir()
        requests, answers = folder / "requests.json", folder / "answers.json"
        requests.write_text(json.dumps({
            "variation": variation,
            "requests": [{"id": position_id(p), "dice": list(d)} for p, d in cases[shard::SHARDS]],
        }))
        env = {**os.environ, "HOME": str(folder), "NARDY_GNUBG_REQUESTS": str(requests),
               "NARDY_GNUBG_ANSWERS": str(answers)}
        command = [GNUBG, "-t", "-q", "-r", "-p", str(SCRIPT)]
        process = subprocess.Popen(command, env=env, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        runs.append((process, answers))
    shards = []
    for process, answers in runs:
        _, errors = process.communicate(timeout=120)
        assert answers.exists(), errors[-2000:]
        shards.append(json.loads(answers.read_text()))
    result: list[dict] = [None] * len(cases)  # type: ignore[list-item]
    for shard, answered in enumerate(shards):
        result[shard::SHARDS] = answered
    return result


@pytest.mark.parametrize(("variant", "variation", "seed"), [
    ("hypergammon", "standard", 1), ("nackgammon", "nackgammon", 2),
])
def test_our_plays_are_gnubgs(variant: str, variation: str, seed: int, tmp_path: Path) -> None:
    """GNU Backgammon manual, "Variations": nackgammon and hypergammon are played
    by backgammon's rules from their own starts; every play must be the same set."""
    cases = corpus(variant, CASES, seed)
    answers = gnubg_answers(variation, cases, tmp_path)
    assert len(answers) == len(cases)
    seen: Counter[str] = Counter()
    for (position, dice), answer in zip(cases, answers):
        opponent, mover = answer["board"]
        assert [m - opponent[23 - i] for i, m in enumerate(mover[:24])] == list(position.points), position
        assert (mover[24], opponent[24]) == position.bar
        ours = {play.position.row() for play in position.legal_plays(dice)}
        theirs = {apply_move_text(position, text) for text in answer["moves"]}
        assert ours == theirs, (position, dice, sorted(ours ^ theirs))
        seen["doubles"] += dice[0] == dice[1]
        seen["passes"] += not ours
        seen["from the bar"] += position.bar[0] > 0
        seen["bearing off"] += any(row[26] > position.off[0] for row in ours)
    assert all(seen[feature] for feature in ("doubles", "from the bar", "bearing off")), seen
    assert variant == "hypergammon" or seen["passes"], seen  # three checkers are seldom shut out
