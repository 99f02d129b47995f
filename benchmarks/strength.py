"""Playing strength: cubeless money games with duplicate dice, and decision speed.

Run::

    python -m benchmarks.strength [--games N] [--variant V ...] [--level L] [--plies P]
                                  [--time-limit S] [--workers W] [--no-gnubg] [--no-speed]
                                  [--matchup A,B ...] [--ladder LEVEL ...] [--json FILE]

Players: ``level:<name>`` is the computer player a table of that level gets
(bgsage on the short board, :mod:`nardy.bots.sage`; our networks in long
nardy, fevga, plakoto and hypergammon), ``sage:<name>`` bgsage's level of that name whatever
the variant's engine (on the short board without pins: what hypergammon's tables got before its
network), ``ours:<plies>[~<noise>][+race]`` our own network (long nardy, fevga, plakoto and
hypergammon; ``+race`` with long nardy's bear-off database), ``pubeval``
(:mod:`nardy.bots.pubeval`), ``heuristic`` (:mod:`nardy.bots.heuristic`),
``random``, ``gnubg:<plies>`` (GNU Backgammon through
benchmarks/gnubg_player.py, a separate GPL process), and ``outside:<command>``
(any bot in another process answering one JSON line per decision:
:mod:`benchmarks.outside_player`).

Default matchups (A against B; ppg is A's points per game):

* backgammon (and dave): ``level:<--level>`` against pubeval and against
  gnubg 0-ply; and pubeval against gnubg 0-ply, the check of the pubeval
  port (gnubg 0-ply is known to score about +0.64 ppg against a correct
  pubeval, so this pairing should show roughly -0.64 for pubeval);
* georgian: ``level:<--level>`` against the heuristic bot;
* each long-nardy regulation: our network at ``--plies`` against the
  heuristic bot;
* plakoto: its network at ``--plies`` against the pin heuristic and
  against random.

``--ladder LEVEL`` plays that level of each variant against random, the
heuristic bot and the level just below it instead.

A player that cannot be built here (gnubg or bgsage missing) has its
matchups skipped with a message.

Method. Games are cubeless money games scored by the variant's values
(single 1, double 2, triple 3; a triple 2 in long nardy, tavla, portes,
plakoto and fevga); plakoto's mother rule ends a game as the rules do,
a tie scoring 0. Dice are duplicated: pair k draws all its dice from
``random.Random("strength:<variant>:<k>")``, and is played twice, A as
player 0 then A as player 1, so each bot gets the rolls the other had
(including the opening roll). The pair's value is the mean of its two games
for A; the table gives the mean over pairs with a 95% interval
``mean ± 1.96·sd/√pairs`` (sd over pairs). Pairs run in at most two worker
processes under ``nice``; a matchup stops after ``--games`` games or once
``--time-limit`` seconds have passed (the pair under way finishes; the pairs finished are reported).

Speed: the median (and 90th percentile, and mean) wall time of ``choose_play``, and the median and 90th
percentile of its CPU time (the process's, which a loaded machine inflates less),
of the players in :data:`SPEED_PLAYERS`: the short board's levels on
backgammon (over (position, roll) pairs taken from pubeval self-play games
with a fixed seed) and, when a long-nardy variant is played, our network at
0 and 2 plies on the first of them (from the heuristic bot's self-play),
and every level of each other variant played (:func:`speed_plan`, from the
heuristic bot's self-play), measured in the main process while no games run.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import random
import shlex
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

from nardy.rules import GameOptions, Play, Position, find_variant
from nardy.rules.variants import VARIANTS

ROOT = Path(__file__).resolve().parent.parent
GNUBG_PLAYER = ROOT / "benchmarks" / "gnubg_player.py"
MISSING_GNUBG = 3
DEFAULT_VARIANTS = ("backgammon", "georgian", "long-traditional", "long-tournament", "long-bolshie")
MAX_WORKERS = 2
PAIRS_PER_TASK = 1
"""Pairs a worker plays per task: one, so that a matchup out of time stops after the pair under way."""
NICENESS = 10
PROGRESS_EVERY = 60.0
"""Seconds between a matchup's progress lines on stderr, so that a run of hours can be watched and planned."""


class Player(Protocol):
    name: str

    def choose_play(self, position: Position, dice: tuple[int, int]) -> Play | None: ...


class Unavailable(RuntimeError):
    """A player that cannot be built here (missing module, weights or gnubg)."""


# ---------------------------------------------------------------- players


class GnubgPlayer:
    """GNU Backgammon choosing plays through benchmarks/gnubg_player.py (GPL, never imported)."""

    def __init__(self, plies: int = 0) -> None:
        self.name = f"gnubg {plies}-ply"
        self.process = subprocess.Popen(
            [sys.executable, str(GNUBG_PLAYER), "--plies", str(plies)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        if self._ask({}) is None:
            self.process.wait(timeout=30)
            if self.process.returncode == MISSING_GNUBG:
                raise Unavailable("gnubg_nn is not installed (pip install 'gnubg-nn==1.1.0a11')")
            raise Unavailable(f"benchmarks/gnubg_player.py failed with status {self.process.returncode}")

    def _ask(self, request: dict[str, Any]) -> dict[str, Any] | None:
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            return None
        line = self.process.stdout.readline()
        answer: dict[str, Any] | None = json.loads(line) if line else None
        return answer

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=30)

    def choose_play(self, position: Position, dice: tuple[int, int]) -> Play | None:
        plays = position.legal_plays(dice)
        if len(plays) <= 1:
            return plays[0] if plays else None
        request = {"points": list(position.points), "bar": list(position.bar), "off": list(position.off),
                   "dice": list(dice)}
        answer = self._ask(request)
        if answer is None or answer.get("position") is None:
            raise RuntimeError(f"gnubg gave no play for {request}: {answer}")
        wanted = tuple(answer["position"])
        for play in plays:
            if (*play.position.points, *play.position.bar, *play.position.off) == wanted:
                return play
        raise RuntimeError(f"gnubg's play {wanted} is not among our legal plays of {request}")


def make_player(spec: str, variant: str) -> Player:
    """``level:<name>``, ``sage:<name>``, ``ours:<plies>[~<noise>][+race][@<weights file>]``, ``pubeval``,
    ``heuristic``, ``random``, ``gnubg:<plies>``, ``outside:<command>`` (a bot in another process,
    :mod:`benchmarks.outside_player`); the weights file may hold one network or a contact-and-race pair
    (``nardy train --features``).

    ``level:<name>`` is the computer player a table of that level gets
    (``nardy.bots.make_bot``: bgsage on the short board, our networks in long
    nardy, bear-off races from the database), its noise seeded; ``ours`` is
    our own network alone at any depth, ``+race`` with the bear-off races
    answered by the database as the levels do; ``sage:<name>`` is bgsage's
    level of that name, a stand-in measured against a variant's own engine.
    """
    kind, _, arg = spec.partition(":")
    if kind == "sage":
        from nardy.bots.sage import SAGE_LEVELS, SageBot, SageUnavailable, check_available

        try:
            check_available()
        except SageUnavailable as error:
            raise Unavailable(str(error)) from None
        return SageBot(SAGE_LEVELS[arg], seed=0, name=f"bgsage {arg}")
    if kind == "level":
        from nardy.bots import make_bot
        from nardy.bots.sage import SageUnavailable

        try:
            return make_bot(arg, variant=variant, seed=0)
        except SageUnavailable as error:
            raise Unavailable(str(error)) from None
    if kind == "ours":
        arg, _, weights = arg.partition("@")
        try:
            from nardy.bots.neural import NeuralBot, default_evaluator, evaluator_for
        except ImportError as error:
            raise Unavailable(f"nardy.bots.neural is not available: {error}") from None
        try:
            if weights:  # one network or a contact-and-race pair, encoded as it was trained
                from nardy.bots.phased import load_network

                evaluator = evaluator_for(load_network(weights), find_variant(variant))
            else:
                evaluator = default_evaluator(variant)
        except (OSError, KeyError, ValueError) as error:
            raise Unavailable(f"no trained weights for {variant}: {error}") from None
        arg, race, _ = arg.partition("+race")
        depth, _, noise = arg.partition("~")
        plies = int(depth or 0)
        name = f"ours {plies}-ply" + (f" noise {noise}" if noise else "")
        name += " with the bear-off database" if race else ""
        name += f" [{Path(weights).name}]" if weights else ""
        if race:
            from nardy.bots.race import RaceEvaluator

            return NeuralBot(RaceEvaluator(evaluator), plies=plies, noise=float(noise or 0), seed=0, name=name)
        return NeuralBot(evaluator, plies=plies, noise=float(noise or 0), seed=0, name=name)
    if kind == "pubeval":
        from nardy.bots.pubeval import PubevalBot

        return PubevalBot()
    if kind == "heuristic":
        from nardy.bots.heuristic import heuristic_bot

        return heuristic_bot(variant)
    if kind == "random":
        from nardy.bots.random_bot import RandomBot

        return RandomBot(seed=0)
    if kind == "gnubg":
        return GnubgPlayer(int(arg or 0))
    if kind == "outside":
        import shutil

        from benchmarks.outside_player import OutsidePlayer

        command = shlex.split(arg)
        if not command or shutil.which(command[0]) is None:
            raise Unavailable(f"no program to run for {spec!r}")
        return OutsidePlayer(command)
    raise ValueError(f"unknown player {spec!r}")


# ---------------------------------------------------------------- games


TIE: Final = -1
"""The winner of a game that ended in a tie (plakoto, both mothers pinned)."""


@dataclass(frozen=True)
class GameResult:
    winner: int
    points: int
    plies: int


def play_game(players: tuple[Player, Player], variant: str, rng: random.Random) -> GameResult:
    """One cubeless game, every die from ``rng``; ``players[0]`` is player 0."""
    rules = find_variant(variant)
    first, second = rng.randint(1, 6), rng.randint(1, 6)
    while first == second:
        first, second = rng.randint(1, 6), rng.randint(1, 6)
    turn = 0 if first > second else 1
    if rules.previous_winner_starts:  # long nardy: the opening winner rolls both dice (004)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
    else:
        dice = (max(first, second), min(first, second))
    position = Position.start(rules)
    options = GameOptions()
    for ply in range(10_000):
        play = players[turn].choose_play(position, dice)
        if play is not None:
            position = play.position
            if position.winner_is_mover():
                return GameResult(turn, rules.win_points(position.win_kind(), options), ply + 1)
            ending = rules.early_end(position)  # plakoto's mother rule: a double win, or a tie worth nothing
            if ending == "tie":
                return GameResult(TIE, 0, ply + 1)
            if ending is not None:
                return GameResult(turn, rules.win_points(ending, options), ply + 1)
        position, turn = position.turned(), 1 - turn
        dice = (rng.randint(1, 6), rng.randint(1, 6))
    raise RuntimeError("a game ran past 10,000 plies")


@dataclass
class PairResult:
    pair: int
    value: float  # A's mean points over the two games
    a_wins: int
    doubles: int  # games won double or triple (either side)
    seconds: float


_PLAYERS: dict[tuple[str, str], Player] = {}


def lower_priority() -> None:
    """Run at niceness :data:`NICENESS` at least: raised to it, not by it, so that a run started under
    ``nice -n 10`` and its workers (which inherit the main process's) stay at 10 rather than sink to 19."""
    try:
        os.nice(max(NICENESS - os.nice(0), 0))
    except OSError:
        pass


def _player(spec: str, variant: str) -> Player:
    key = (spec, variant)
    if key not in _PLAYERS:
        _PLAYERS[key] = make_player(spec, variant)
    return _PLAYERS[key]


def play_pairs(variant: str, spec_a: str, spec_b: str, pairs: Sequence[int]) -> list[PairResult]:
    """Duplicate pairs ``pairs`` of A against B (run in a worker process)."""
    a, b = _player(spec_a, variant), _player(spec_b, variant)
    results = []
    for pair in pairs:
        began = time.perf_counter()
        total = 0.0
        wins = doubles = 0
        for a_side in (0, 1):
            rng = random.Random(f"strength:{variant}:{pair}")
            players = (a, b) if a_side == 0 else (b, a)
            game = play_game(players, variant, rng)
            won = game.winner == a_side
            total += game.points if won else -game.points
            wins += won
            doubles += game.points >= 2
        results.append(PairResult(pair, total / 2.0, wins, doubles, time.perf_counter() - began))
    return results


# ---------------------------------------------------------------- matchups


@dataclass
class Matchup:
    variant: str
    a: str
    b: str
    a_name: str = ""
    b_name: str = ""
    pairs: list[PairResult] = field(default_factory=list)
    seconds: float = 0.0
    skipped: str | None = None

    @property
    def games(self) -> int:
        return 2 * len(self.pairs)

    @property
    def ppg(self) -> float:
        return statistics.fmean(p.value for p in self.pairs) if self.pairs else math.nan

    @property
    def half_width(self) -> float:
        if len(self.pairs) < 2:
            return math.nan
        return 1.96 * statistics.stdev(p.value for p in self.pairs) / math.sqrt(len(self.pairs))

    @property
    def win_rate(self) -> float:
        return sum(p.a_wins for p in self.pairs) / self.games if self.pairs else math.nan

    @property
    def double_rate(self) -> float:
        return sum(p.doubles for p in self.pairs) / self.games if self.pairs else math.nan


def _probe(spec: str, variant: str) -> str:
    """The player's name, building it once here so that a missing one is reported before any game."""
    player = make_player(spec, variant)
    if isinstance(player, GnubgPlayer):
        player.close()
    return player.name


def run_matchup(matchup: Matchup, games: int, time_limit: float, workers: int, first_pair: int = 0) -> None:
    """Play up to ``games`` games (whole pairs, from pair ``first_pair`` on) within ``time_limit`` seconds."""
    try:
        matchup.a_name = _probe(matchup.a, matchup.variant)
        matchup.b_name = _probe(matchup.b, matchup.variant)
    except Unavailable as reason:
        matchup.skipped = str(reason)
        return
    end = first_pair + max(games // 2, 1)
    chunks: Iterator[list[int]] = (
        list(range(start, min(start + PAIRS_PER_TASK, end)))
        for start in range(first_pair, end, PAIRS_PER_TASK)
    )
    began = reported = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers, initializer=lower_priority) as pool:
        running: set[Future[list[PairResult]]] = set()
        out_of_time = False
        while True:
            while not out_of_time and len(running) < workers:
                chunk = next(chunks, None)
                if chunk is None:
                    break
                running.add(pool.submit(play_pairs, matchup.variant, matchup.a, matchup.b, chunk))
            if not running:
                break
            done, running = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                matchup.pairs.extend(future.result())
            now = time.perf_counter()
            if now - reported >= PROGRESS_EVERY:
                reported = now
                print(progress_line(matchup, games, now - began), file=sys.stderr, flush=True)
            if now - began > time_limit:
                out_of_time = True
    matchup.pairs.sort(key=lambda p: p.pair)
    matchup.seconds = time.perf_counter() - began


def progress_line(matchup: Matchup, games: int, elapsed: float) -> str:
    """How far a matchup under way has come: games played of ``games``, wall time and its score so far."""
    per_game = f", {elapsed / matchup.games:.2f} s a game" if matchup.pairs else ""
    score = f", {matchup.ppg:+.3f} a game" if matchup.pairs else ""
    return (f"{matchup.variant}: {matchup.a_name} vs {matchup.b_name}: {matchup.games} of {games} games "
            f"in {elapsed:.0f} s{per_game}{score}")


def matchups_for(variants: Sequence[str], level: str, plies: int, gnubg: bool) -> list[Matchup]:
    """The default pairings: the short board's ``level`` against pubeval and gnubg 0-ply (backgammon, dave)
    or the heuristic bot (Georgian); our long-nardy network at ``plies`` against the heuristic bot; plakoto's
    network at ``plies`` against the pin heuristic and against random."""
    chosen: list[Matchup] = []
    for variant in variants:
        if variant.startswith("long-"):
            chosen.append(Matchup(variant, f"ours:{plies}", "heuristic"))
        elif variant == "plakoto":
            chosen.append(Matchup(variant, f"ours:{plies}", "heuristic"))
            chosen.append(Matchup(variant, f"ours:{plies}", "random"))
        elif variant == "georgian":
            chosen.append(Matchup(variant, f"level:{level}", "heuristic"))
        else:
            chosen.append(Matchup(variant, f"level:{level}", "pubeval"))
            if gnubg:
                chosen.append(Matchup(variant, f"level:{level}", "gnubg:0"))
                chosen.append(Matchup(variant, "pubeval", "gnubg:0"))
    return chosen


def ladder_matchups(variant: str, level: str) -> list[Matchup]:
    """``level`` of ``variant`` against random, the heuristic bot and the level just below it (``levels_for``);
    the level below beginner is random, so beginner gets two. ValueError for a level the variant lacks."""
    from nardy.bots import levels_for

    levels = levels_for(variant)
    if level not in levels or level == "random":
        raise ValueError(f"{variant} has no level {level!r}; its levels: {', '.join(levels[1:])}")
    below = levels[levels.index(level) - 1]
    opponents = ["random", "heuristic"] + ([f"level:{below}"] if below != "random" else [])
    return [Matchup(variant, f"level:{level}", opponent) for opponent in opponents]


# ---------------------------------------------------------------- speed


def speed_corpus(
    variant: str, count: int, seed: str = "strength:speed", bot: Player | None = None,
) -> list[tuple[Position, tuple[int, int]]]:
    """(position, roll) pairs with more than one legal play, from self-play of a fixed bot with fixed dice.

    ``bot`` plays both sides; by default backgammon games are pubeval's (as before), other variants the
    heuristic bot's.
    """
    from nardy.bots.heuristic import heuristic_bot
    from nardy.bots.pubeval import PubevalBot

    rng = random.Random(seed)
    if bot is None:
        bot = PubevalBot() if variant == "backgammon" else heuristic_bot(variant)
    corpus: list[tuple[Position, tuple[int, int]]] = []
    position = Position.start(variant)
    while len(corpus) < count:
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = position.legal_plays(dice)
        if len(plays) > 1:
            corpus.append((position, dice))
        play = bot.choose_play(position, dice)
        ended = play is not None and position.variant.early_end(play.position) is not None
        position = (play.position if play else position).turned()
        if ended or position.is_game_over():
            position = Position.start(variant)
    return corpus


@dataclass
class Speed:
    variant: str
    player: str
    decisions: int
    median_ms: float
    p90_ms: float
    mean_ms: float
    cpu_median_ms: float
    cpu_p90_ms: float


SPEED_PLAYERS: Final = {
    "backgammon": ("level:advanced", "level:expert", "level:world-class"),
    "long": ("level:intermediate", "level:advanced", "level:expert"),
}
"""Whose decisions are timed: the levels of distinct cost (on the short board beginner and intermediate cost what
advanced does; in long nardy beginner costs what intermediate does)."""


TIMED_ELSEWHERE: Final = ("backgammon", "dave", "georgian", "long-traditional", "long-tournament", "long-bolshie")
"""Variants whose levels the backgammon and long-nardy timings stand for; every other variant played is timed
level by level."""


def speed_plan(variants: Sequence[str]) -> list[tuple[str, tuple[str, ...]]]:
    """Whose decisions are timed, per variant: backgammon's levels always, long nardy's when played, and every
    level but random of each other variant played (its engine and its start differ)."""
    from nardy.bots import levels_for

    long_ones = [v for v in variants if v.startswith("long-")]
    plan: list[tuple[str, tuple[str, ...]]] = [("backgammon", SPEED_PLAYERS["backgammon"])]
    plan += [(variant, SPEED_PLAYERS["long"]) for variant in long_ones[:1]]
    for variant in variants:
        if variant not in TIMED_ELSEWHERE:
            plan.append((variant, tuple(f"level:{level}" for level in levels_for(variant) if level != "random")))
    return plan


def measure_speed(variant: str, spec: str, count: int, weights: Path | None = None) -> Speed:
    """Decision times of player ``spec``; ``weights`` is used for our own network (``ours``) only."""
    if weights is not None and spec.startswith("ours"):
        spec += f"@{weights.resolve()}"
    bot = make_player(spec, variant)
    corpus = speed_corpus(variant, count)
    bot.choose_play(*corpus[0])  # load the weights, warm caches
    times, cpu_times = [], []
    for position, dice in corpus:
        began, cpu_began = time.perf_counter(), time.process_time()
        bot.choose_play(position, dice)
        times.append(time.perf_counter() - began)
        cpu_times.append(time.process_time() - cpu_began)
    times.sort()
    cpu_times.sort()
    p90 = int(0.9 * (len(times) - 1))
    return Speed(
        variant, bot.name, len(times), 1000 * statistics.median(times), 1000 * times[p90],
        1000 * statistics.fmean(times), 1000 * statistics.median(cpu_times), 1000 * cpu_times[p90],
    )


# ---------------------------------------------------------------- report


def machine() -> str:
    model = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        load = "load average " + " ".join(f"{v:.1f}" for v in os.getloadavg())
    except OSError:
        load = "load unknown"
    return (
        f"{model}, {os.cpu_count()} CPUs ({load}); {platform.system()} {platform.release()}; "
        f"Python {platform.python_version()}"
    )


def commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + (" (working tree modified)" if dirty else "")


def weights_info() -> str:
    folder = ROOT / "nardy" / "bots" / "weights"
    files = sorted(folder.glob("*.npz")) if folder.is_dir() else []
    if not files:
        return "none"
    parts = []
    for path in files:
        stamp = datetime.datetime.fromtimestamp(path.stat().st_mtime, datetime.UTC).strftime("%Y-%m-%d %H:%M")
        parts.append(f"{path.name} ({path.stat().st_size // 1024} KiB, {stamp} UTC)")
    return ", ".join(parts)


def format_table(matchups: Sequence[Matchup]) -> str:
    lines = [
        "| variant | A | B | games | A's ppg | 95% interval | A wins | doubles+ | time |",
        "| --- | --- | --- | ---: | ---: | --- | ---: | ---: | ---: |",
    ]
    for m in matchups:
        if m.skipped:
            lines.append(f"| {m.variant} | {m.a} | {m.b} | - | skipped: {m.skipped} | | | | |")
            continue
        low, high = m.ppg - m.half_width, m.ppg + m.half_width
        lines.append(
            f"| {m.variant} | {m.a_name} | {m.b_name} | {m.games:,} | {m.ppg:+.3f} ± {m.half_width:.3f} "
            f"| [{low:+.3f}, {high:+.3f}] | {100 * m.win_rate:.1f}% | {100 * m.double_rate:.1f}% | {m.seconds:.0f} s |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.strength", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per matchup, played as duplicate pairs (400)")
    parser.add_argument("--variant", action="append", choices=sorted(VARIANTS),
                        help="variant to play (repeatable; default: " + ", ".join(DEFAULT_VARIANTS) + ")")
    parser.add_argument("--plies", type=int, default=0, help="search depth of our networks in the games (0)")
    parser.add_argument("--level", default="advanced",
                        help="the short board's level in the default matchups (advanced)")
    parser.add_argument("--time-limit", type=float, default=600.0, help="seconds per matchup at most (600)")
    parser.add_argument("--workers", type=int, default=MAX_WORKERS, choices=range(1, MAX_WORKERS + 1),
                        help="worker processes (at most 2)")
    parser.add_argument("--no-gnubg", action="store_true", help="skip the matchups against GNU Backgammon")
    parser.add_argument("--no-speed", action="store_true", help="skip the decision-time measurement")
    parser.add_argument("--speed-player", action="append", metavar="SPEC",
                        help="time these players in each variant given instead of the default plan (repeatable; "
                             "e.g. 'ours:1+race@FILE')")
    parser.add_argument("--speed-decisions", type=int, default=200,
                        help="decisions timed per shallow level (200; expert a quarter, world-class an eighth)")
    parser.add_argument("--matchup", action="append", metavar="A,B",
                        help="play only these pairings in each variant, e.g. 'pubeval,gnubg:0' (repeatable; "
                             "players: level:<name>, sage:<name>, ours:<plies>[+race], pubeval, heuristic, random, "
                             "gnubg:<plies>)")
    parser.add_argument("--ladder", action="append", metavar="LEVEL",
                        help="play this level of each variant against random, the heuristic and the level below "
                             "(repeatable; with --matchup, both are played)")
    parser.add_argument("--weights", type=Path,
                        help="a network file for our bot instead of the shipped weights (e.g. a training checkpoint)")
    parser.add_argument("--first-pair", type=int, default=0,
                        help="start at this pair's dice (fresh dice for a network chosen on the first ones) (0)")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args(argv)
    lower_priority()
    variants = args.variant or list(DEFAULT_VARIANTS)
    command = "python -m benchmarks.strength " + shlex.join(list(argv if argv is not None else sys.argv[1:]))
    print(f"command: {command.strip()}")
    print(f"date: {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC; commit: {commit()}")
    print(f"machine: {machine()}")
    print(f"weights: {weights_info()}")
    print(f"games: cubeless money, duplicate dice from pair {args.first_pair}, up to {args.games} per matchup, "
          f"{args.workers} worker(s), at most {args.time_limit:.0f} s per matchup; short board at {args.level}, "
          f"our networks at {args.plies}-ply")
    print(flush=True)

    speeds: list[Speed] = []
    if not args.no_speed:
        plan = [(variant, tuple(args.speed_player)) for variant in variants] if args.speed_player \
            else speed_plan(variants)
        for variant, players in plan:
            for spec in players:
                deep = spec.endswith(("expert", "world-class")) or spec.startswith("ours:2")
                count = max(args.speed_decisions // (8 if spec.endswith("world-class") else 4), 10) if deep \
                    else args.speed_decisions
                try:
                    speed = measure_speed(variant, spec, count, args.weights)
                except Unavailable as reason:
                    print(f"speed of {spec}, {variant}, skipped: {reason}")
                    continue
                speeds.append(speed)
                print(f"speed, {speed.player}, {variant}: median {speed.median_ms:.2f} ms, "
                      f"90th percentile {speed.p90_ms:.2f} ms, mean {speed.mean_ms:.2f} ms; CPU time median "
                      f"{speed.cpu_median_ms:.2f} ms, 90th percentile {speed.cpu_p90_ms:.2f} ms "
                      f"over {speed.decisions} decisions", flush=True)
        print()

    if args.matchup or args.ladder:
        pairings = [tuple(spec.split(",", 1)) for spec in args.matchup or ()]
        if any(len(pairing) != 2 for pairing in pairings):
            parser.error("--matchup takes two players separated by a comma")
        try:
            matchups = [
                m for variant in variants for level in args.ladder or () for m in ladder_matchups(variant, level)
            ]
        except ValueError as error:
            parser.error(str(error))
        matchups += [Matchup(variant, a, b) for variant in variants for a, b in pairings]
    else:
        matchups = matchups_for(variants, args.level, args.plies, not args.no_gnubg)
    if args.weights is not None:
        for matchup in matchups:
            matchup.a, matchup.b = (
                f"{spec}@{args.weights.resolve()}" if spec.startswith("ours") and "@" not in spec else spec
                for spec in (matchup.a, matchup.b)
            )
    for matchup in matchups:
        run_matchup(matchup, args.games, args.time_limit, args.workers, args.first_pair)
        if matchup.skipped:
            print(f"{matchup.variant}: {matchup.a} vs {matchup.b} skipped: {matchup.skipped}", flush=True)
        else:
            print(f"{matchup.variant}: {matchup.a_name} vs {matchup.b_name}: {matchup.ppg:+.3f} ± "
                  f"{matchup.half_width:.3f} ppg over {matchup.games} games ({matchup.seconds:.0f} s)", flush=True)
        if args.json:
            write_json(args.json, command.strip(), speeds, matchups[: matchups.index(matchup) + 1])
    print()
    print(format_table(matchups))
    return 0


def write_json(path: Path, command: str, speeds: Sequence[Speed], matchups: Sequence[Matchup]) -> None:
    """The run so far, every pair's value by its index (rewritten after each matchup, so that a run stopped
    early keeps the matchups it finished)."""
    payload = {
        "command": command,
        "machine": machine(),
        "commit": commit(),
        "weights": weights_info(),
        "speed": [asdict(s) for s in speeds],
        "matchups": [
            {
                "variant": m.variant, "a": m.a_name or m.a, "b": m.b_name or m.b, "games": m.games,
                "ppg": m.ppg, "half_width_95": m.half_width, "a_win_rate": m.win_rate,
                "seconds": m.seconds, "skipped": m.skipped,
                "pairs": {str(p.pair): p.value for p in m.pairs},
            }
            for m in matchups
        ],
    }
    path.write_text(json.dumps(payload, indent=1, default=float) + "\n")


if __name__ == "__main__":
    sys.exit(main())
