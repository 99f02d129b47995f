"""The pubeval port: its encoding against a plain reading of Tesauro's formula, gnubg's own pubeval, and play."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from nardy.bots import RandomBot
from nardy.bots.pubeval import CONTACT_WEIGHTS, RACE_WEIGHTS, WON, PubevalBot, is_race, pubeval
from nardy.rules import GameOptions, Play, Position, find_variant

GNUBG_PLAYER = Path(__file__).resolve().parents[2] / "benchmarks" / "gnubg_player.py"
MISSING_GNUBG = 3


def reference_inputs(position: Position) -> list[float]:
    """Tesauro's 122 inputs, read straight off the definition, point by point."""
    x: list[float] = []
    for point in range(24, 0, -1):  # board location j = 1..24 is point 25 - j
        n = position.points[point - 1]
        x.append(1.0 if n == -1 else 0.0)
        x.append(1.0 if n == 1 else 0.0)
        x.append(1.0 if n >= 2 else 0.0)
        x.append(1.0 if n == 3 else 0.0)
        x.append((n - 3) / 2.0 if n >= 4 else 0.0)
    x.append(position.bar[1] / 2.0)  # -pos[0]/2, pos[0] = -(opponent's bar)
    x.append(position.off[0] / 15.0)
    return x


def reference_score(position: Position, race: bool) -> float:
    weights = RACE_WEIGHTS if race else CONTACT_WEIGHTS
    return sum(w * v for w, v in zip(weights, reference_inputs(position), strict=True))


def game_positions(count: int, seed: int) -> Iterator[Position]:
    """Positions met in random backgammon games (random dice and plays), each from its side to move."""
    rng = random.Random(seed)
    position = Position.start("backgammon")
    for _ in range(count):
        yield position
        plays = position.legal_plays((rng.randint(1, 6), rng.randint(1, 6)))
        if plays:
            position = rng.choice(plays).position
        position = position.turned()
        if position.is_game_over():
            position = Position.start("backgammon")


def test_published_weights_spot_checks() -> None:
    assert len(RACE_WEIGHTS) == len(CONTACT_WEIGHTS) == 122
    assert (RACE_WEIGHTS[0], RACE_WEIGHTS[1], RACE_WEIGHTS[119], RACE_WEIGHTS[121]) == (0.0, -0.17160, -12.32252, 3.42040)
    assert (CONTACT_WEIGHTS[0], CONTACT_WEIGHTS[60], CONTACT_WEIGHTS[121]) == (0.25696, -0.69851, -2.75800)
    # The race weights never reward an opposing blot: Tesauro left x[5j] at zero there.
    assert all(RACE_WEIGHTS[5 * j] == 0.0 for j in range(24))


def test_start_position_by_hand() -> None:
    # Start: our 2 on 24 (location 1), 5 on 13 (location 12), 3 on 8 (location 17), 5 on 6 (location 19);
    # opposing blocks are never -1, so only the n >= 2 / n == 3 / (n-3)/2 inputs fire.
    start = Position.start("backgammon")
    w = CONTACT_WEIGHTS
    expected = (
        w[2]  # point 24: n = 2
        + w[5 * 11 + 2] + w[5 * 11 + 4] * 1.0  # point 13: n = 5
        + w[5 * 16 + 2] + w[5 * 16 + 3]  # point 8: n = 3
        + w[5 * 18 + 2] + w[5 * 18 + 4] * 1.0  # point 6: n = 5
    )
    assert pubeval(start, race=False) == pytest.approx(expected, abs=1e-9)


def test_scores_match_the_formula_on_game_positions() -> None:
    seen_bar = seen_off = 0
    for position in game_positions(1500, seed=7):
        if position.off[0] == 15:
            continue
        seen_bar += bool(position.bar[1])
        seen_off += bool(position.off[0])
        for race in (True, False):
            assert pubeval(position, race=race) == pytest.approx(reference_score(position, race), abs=1e-9)
    assert seen_bar and seen_off


def test_bearing_off_the_last_checker_wins() -> None:
    points = [0] * 24
    points[23] = -15
    finished = Position("backgammon", points, (0, 0), (15, 0))
    assert pubeval(finished, race=True) == WON


def test_race_detection() -> None:
    assert not is_race(Position.start("backgammon"))
    points = [0] * 24
    points[0], points[5] = 10, 5  # ours on 1 and 6
    points[6], points[23] = -5, -10  # theirs on 7 and 24: each side past the other
    assert is_race(Position("backgammon", points))
    points[5], points[6], points[7] = 4, 1, -5  # one of ours on 7, theirs on 8: still a race
    assert is_race(Position("backgammon", points))
    points[7], points[4] = 0, -5  # theirs on 5, in front of our 6 and 7: contact
    assert not is_race(Position("backgammon", points))
    with_bar = Position("backgammon", [*points[:4], 0, *points[5:]], (0, 5))
    assert not is_race(with_bar)


def play_game(bots: tuple[object, object], seed: int) -> tuple[int, int]:
    """One cubeless backgammon game: (winner, points). Player 0 is bots[0]."""
    rng = random.Random(seed)
    rules = find_variant("backgammon")
    first, second = rng.randint(1, 6), rng.randint(1, 6)
    while first == second:
        first, second = rng.randint(1, 6), rng.randint(1, 6)
    turn = 0 if first > second else 1
    dice = (max(first, second), min(first, second))
    position = Position.start(rules)
    while True:
        bot = bots[turn]
        play: Play | None = bot.choose_play(position, dice)  # type: ignore[attr-defined]
        if play is not None:
            assert play in position.legal_plays(dice)
            position = play.position
            if position.winner_is_mover():
                return turn, rules.win_points(position.win_kind(), GameOptions())
        position, turn = position.turned(), 1 - turn
        dice = (rng.randint(1, 6), rng.randint(1, 6))


def test_pubeval_crushes_random() -> None:
    pubeval_bot, random_bot = PubevalBot(), RandomBot(seed=11)
    wins = points = 0
    for game in range(100):
        side = game % 2
        bots = (pubeval_bot, random_bot) if side == 0 else (random_bot, pubeval_bot)
        winner, won = play_game(bots, seed=game // 2)
        wins += winner == side
        points += won if winner == side else -won
    assert wins >= 95
    assert points / 100 > 1.5


def test_pubeval_bot_refuses_long_nardy() -> None:
    with pytest.raises(ValueError):
        PubevalBot().choose_play(Position.start("long-traditional"), (3, 1))


# ---------------------------------------------------------------- against GNU Backgammon (out of process)


@pytest.fixture(scope="module")
def gnubg() -> Iterator[subprocess.Popen[str]]:
    process = subprocess.Popen(
        [sys.executable, str(GNUBG_PLAYER)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("{}\n")
    process.stdin.flush()
    if not process.stdout.readline():
        process.wait(timeout=30)
        if process.returncode == MISSING_GNUBG:
            pytest.skip("gnubg_nn is not installed (pip install 'gnubg-nn==1.1.0a11')")
        pytest.fail(f"benchmarks/gnubg_player.py failed to start: {process.returncode}")
    yield process
    process.stdin.close()
    process.wait(timeout=30)


def ask(process: subprocess.Popen[str], request: dict[str, object]) -> dict[str, object]:
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(json.dumps(request) + "\n")
    process.stdin.flush()
    answer: dict[str, object] = json.loads(process.stdout.readline())
    return answer


def board(position: Position) -> dict[str, object]:
    return {"points": list(position.points), "bar": list(position.bar), "off": list(position.off)}


@pytest.mark.oracle
def test_scores_match_gnubg_pubeval(gnubg: subprocess.Popen[str]) -> None:
    """gnubg picks race or contact weights by its own classification; ours must agree on both counts."""
    checked = races = 0
    for position in game_positions(3000, seed=3):
        if position.is_game_over():
            continue
        answer = ask(gnubg, {"op": "pubeval", **board(position)})
        race = is_race(position)
        assert answer["score"] == pytest.approx(pubeval(position, race=race), abs=1e-4), position
        checked += 1
        races += race
    assert checked > 2500 and races > 50


@pytest.mark.oracle
def test_gnubg_player_answers_legal_plays(gnubg: subprocess.Popen[str]) -> None:
    rng = random.Random(5)
    for position in game_positions(400, seed=9):
        if position.is_game_over():
            continue
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        answer = ask(gnubg, {**board(position), "dice": list(dice)})
        plays = position.legal_plays(dice)
        if answer["position"] is None:
            assert not plays
        else:
            keys = {(*p.position.points, *p.position.bar, *p.position.off) for p in plays}
            assert tuple(answer["position"]) in keys  # type: ignore[arg-type]
