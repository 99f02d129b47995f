"""The ``nardy`` command line: legal plays, boards, perft, a terminal game, dice verification, bots and training.

Every command reads positions in the formats of :mod:`nardy.notation`
(canonical JSON, a gnubg Position ID for the backgammon family, or ``start``)
and reports malformed input as one line on stderr with exit status 2.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from nardy.bots import BOT_LEVELS, Bot, make_bot
from nardy.bots.neural import WEIGHTS
from nardy.notation import (
    format_steps,
    position_from_dict,
    position_from_id,
    position_to_dict,
    render,
)
from nardy.rules import VARIANTS, Game, Phase, Play, Position, RulesError, find_variant
from nardy.rules.dice import check_dice
from nardy.rules.perft import divide
from nardy.server.services.dice import parse_record, verify_games

USAGE_ERROR = 2


class UsageError(ValueError):
    """Input the command cannot work with; printed as one line, exit status 2."""


def parse_position(spec: Any, variant: str | None) -> Position:
    """A position from ``start``, a gnubg Position ID, canonical JSON text or an already decoded object."""
    if isinstance(spec, dict):
        position = position_from_dict(spec)
    elif not isinstance(spec, str):
        raise UsageError(f"a position is canonical JSON, a gnubg Position ID or 'start', got {spec!r}")
    elif spec.strip() == "start":
        if variant is None:
            raise UsageError("'start' needs a variant")
        return Position.start(variant)
    elif spec.lstrip().startswith("{"):
        try:
            decoded = json.loads(spec)
        except json.JSONDecodeError as error:
            raise UsageError(f"the position is not valid JSON: {error.msg} at character {error.pos}") from None
        return parse_position(decoded, variant)
    else:
        return position_from_id(spec.strip(), variant or "backgammon")
    if variant is not None and position.variant.name != variant:
        raise UsageError(f"the position is for {position.variant.name}, not {variant}")
    return position


def plays_json(position: Position, dice: Sequence[int]) -> dict[str, Any]:
    """The ``{"plays": [...]}`` answer of ``nardy moves --json`` for one request."""
    return {
        "plays": [
            {"text": format_steps(play.steps), "position": position_to_dict(play.position)}
            for play in position.legal_plays(dice)
        ]
    }


def _moves(args: argparse.Namespace, out: TextIO) -> None:
    if args.batch:
        _moves_batch(sys.stdin, out)
        return
    if args.position is None or args.dice is None:
        raise UsageError("nardy moves needs --dice A B and a POSITION (or --batch)")
    position = parse_position(args.position, args.variant)
    if args.json:
        out.write(json.dumps(plays_json(position, args.dice)) + "\n")
        return
    plays = position.legal_plays(args.dice)
    if not plays:
        out.write("pass\n")
    for play in plays:
        out.write(format_steps(play.steps) + "\n")


def _moves_batch(source: TextIO, out: TextIO) -> None:
    for line in source:
        if not line.strip():
            continue
        try:
            answer = _batch_answer(line)
        except (ValueError, TypeError) as error:
            answer = {"error": str(error)}
        out.write(json.dumps(answer) + "\n")
        out.flush()


def _batch_answer(line: str) -> dict[str, Any]:
    try:
        request = json.loads(line)
    except json.JSONDecodeError as error:
        raise UsageError(f"the request is not valid JSON: {error.msg} at character {error.pos}") from None
    if not isinstance(request, dict):
        raise UsageError("a request is a JSON object with variant, position and dice")
    unknown = set(request) - {"variant", "position", "dice"}
    if unknown:
        raise UsageError(f"unknown request keys: {', '.join(sorted(unknown))}")
    for key in ("variant", "position", "dice"):
        if key not in request:
            raise UsageError(f"the request has no {key!r}")
    variant = find_variant(request["variant"]).name
    dice = request["dice"]
    if not isinstance(dice, list):
        raise UsageError(f"dice is a list of two numbers, got {dice!r}")
    return plays_json(parse_position(request["position"], variant), dice)


def _show(args: argparse.Namespace, out: TextIO) -> None:
    out.write(render(parse_position(args.position, args.variant)) + "\n")


def _perft(args: argparse.Namespace, out: TextIO) -> None:
    if args.depth < 1:
        raise UsageError("--depth is 1 or more")
    position = parse_position(args.position, args.variant)
    total = 0
    for entry in divide(position, args.depth):
        label = f"{entry.dice[0]}-{entry.dice[1]}"
        if args.depth > 1:
            label += " " + (format_steps(entry.play.steps) if entry.play is not None else "pass")
        out.write(f"{label}: {entry.nodes}\n")
        total += entry.nodes
    out.write(f"total: {total}\n")


def _play(args: argparse.Namespace, out: TextIO) -> None:
    dice = random.SystemRandom()
    computer = random.Random(args.seed)
    game = Game.new(args.variant)
    human = 0
    out.write(f"{find_variant(args.variant).title}: you are X and move from 24 towards 1.\n")
    out.write("Type the number of a play or its text (e.g. 13/7 8/7), 'resign' or 'quit'.\n")
    while game.result is None:
        if game.phase is Phase.OPENING:
            game = game.opening_roll((dice.randint(1, 6), dice.randint(1, 6)))
            continue
        if game.phase is Phase.ROLLING:
            game = game.roll(game.turn, (dice.randint(1, 6), dice.randint(1, 6)))
            continue
        if game.phase is Phase.DOUBLED:
            game = game.take(1 - game.turn)
            continue
        plays = game.legal_plays()
        if game.turn != human:
            chosen = computer.choice(plays)
            out.write(f"Computer rolls {game.dice}: {format_steps(chosen.steps)}\n")
            game = game.move(game.turn, chosen.steps)
            continue
        chosen_play = _ask_play(game, plays, out)
        if chosen_play is None:
            game = game.resign(human)
            if game.phase is Phase.RESIGNATION:
                game = game.accept_resignation(1 - human)
            break
        game = game.move(human, chosen_play.steps)
    result = game.result
    if result is not None:
        who = "You win" if result.winner == human else "The computer wins"
        out.write(f"{who}: {result.kind.value}, {result.points} point(s).\n")


def _ask_play(game: Game, plays: list[Play], out: TextIO) -> Play | None:
    out.write("\n" + render(game.position) + "\n")
    out.write(f"You rolled {game.dice}.\n")
    for number, play in enumerate(plays, 1):
        out.write(f"{number:3}. {format_steps(play.steps)}\n")
    texts = {format_steps(play.steps): play for play in plays}
    while True:
        out.write("> ")
        out.flush()
        answer = sys.stdin.readline()
        if not answer or answer.strip() in ("quit", "resign"):
            return None
        choice = answer.strip()
        if choice.isdigit() and 1 <= int(choice) <= len(plays):
            return plays[int(choice) - 1]
        if choice in texts:
            return texts[choice]
        out.write("Not a legal play: type its number or its text as listed.\n")


def _verify_dice(args: argparse.Namespace, out: TextIO) -> int:
    """Recompute every roll of a game record; mismatches are printed and give exit status 1."""
    try:
        if args.record == "-":
            text = sys.stdin.read()
        else:
            with open(args.record, encoding="utf-8") as source:
                text = source.read()
    except OSError as error:
        raise UsageError(f"cannot read {args.record}: {error.strerror}") from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"the record is not valid JSON: {error.msg} at character {error.pos}") from None
    games = parse_record(record)
    problems = verify_games(games)
    for problem in problems:
        out.write(problem + "\n")
    if problems:
        return 1
    out.write(f"ok: {sum(len(game.rolls) for game in games)} rolls in {len(games)} games verified\n")
    return 0


def _bot(args: argparse.Namespace, out: TextIO) -> None:
    try:
        bot = make_bot(args.level, variant=args.variant, seed=args.seed)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if args.batch:
        for line in sys.stdin:
            if not line.strip():
                continue
            try:
                answer = _bot_answer(bot, _bot_request(line, args.variant))
            except (ValueError, TypeError) as error:
                answer = {"error": str(error)}
            out.write(json.dumps(answer) + "\n")
            out.flush()
        return
    if args.position is None or args.dice is None:
        raise UsageError("nardy bot needs --dice A B and a POSITION (or --batch)")
    position = parse_position(args.position, args.variant)
    out.write(json.dumps(_bot_answer(bot, (position, check_dice(args.dice)))) + "\n")


def _bot_request(line: str, variant: str) -> tuple[Position, tuple[int, int]]:
    try:
        request = json.loads(line)
    except json.JSONDecodeError as error:
        raise UsageError(f"the request is not valid JSON: {error.msg} at character {error.pos}") from None
    if not isinstance(request, dict):
        raise UsageError("a request is a JSON object with position and dice")
    unknown = set(request) - {"position", "dice"}
    if unknown:
        raise UsageError(f"unknown request keys: {', '.join(sorted(unknown))}")
    for key in ("position", "dice"):
        if key not in request:
            raise UsageError(f"the request has no {key!r}")
    dice = request["dice"]
    if not isinstance(dice, list):
        raise UsageError(f"dice is a list of two numbers, got {dice!r}")
    return parse_position(request["position"], variant), check_dice(dice)


def _bot_answer(bot: Bot, request: tuple[Position, tuple[int, int]]) -> dict[str, Any]:
    position, dice = request
    play = bot.choose_play(position, dice)
    if play is None:
        return {"play": None}
    return {"play": {"text": format_steps(play.steps), "position": position_to_dict(play.position)}}


def _train(args: argparse.Namespace, out: TextIO) -> None:
    from nardy.bots import training  # rich and the trainer only for this command

    variant, mix = training.parse_variants(args.variant)
    config = training.TrainConfig(
        variant=variant,
        mix=mix,
        checkpoint_dir=Path(args.out) if args.out else training.default_checkpoint_dir(WEIGHTS[variant]),
        hidden=args.hidden,
        alpha=args.alpha,
        lambda_=args.lambda_,
        games=args.games,
        seed=args.seed,
        checkpoint_every=args.checkpoint_every,
        benchmark_every=args.benchmark_every,
        benchmark_games=args.benchmark_games,
        init=Path(args.init) if args.init else None,
    )
    counts = (("--games", config.games), ("--hidden", config.hidden), ("--checkpoint-every", config.checkpoint_every))
    for name, value in counts:
        if value < 1:
            raise UsageError(f"{name} is 1 or more")
    trainer = training.Trainer(training.resume_config(config))
    if trainer.games:
        out.write(f"resuming {config.checkpoint_dir} at {trainer.games} games\n")
    if args.progress:
        training.train_with_progress_bar(trainer)
    else:
        trainer.train(report=lambda line: print(line, file=out, flush=True))
    if args.export:
        out.write(f"exported {trainer.export()}\n")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit status 2."""

    def error(self, message: str) -> Any:
        self.exit(USAGE_ERROR, f"{self.prog}: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every ``nardy`` subcommand."""
    parser = _Parser(prog="nardy", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    names = list(VARIANTS)

    moves = commands.add_parser("moves", help="list the legal plays of a position and roll")
    moves.add_argument("--variant", choices=names, default=None)
    moves.add_argument("--dice", nargs=2, type=int, metavar=("A", "B"))
    moves.add_argument("--json", action="store_true", help="print {\"plays\": [...]} as JSON")
    moves.add_argument("--batch", action="store_true", help="answer one JSON request per stdin line")
    moves.add_argument("position", nargs="?", help="canonical JSON, a gnubg Position ID, or 'start'")
    moves.set_defaults(handler=_moves)

    show = commands.add_parser("show", help="draw a position as an ASCII board")
    show.add_argument("--variant", choices=names, default=None)
    show.add_argument("position")
    show.set_defaults(handler=_show)

    perft = commands.add_parser("perft", help="count distinct plays over all 21 rolls per ply, with divide")
    perft.add_argument("--variant", choices=names, required=True)
    perft.add_argument("--depth", type=int, required=True)
    perft.add_argument("position", nargs="?", default="start")
    perft.set_defaults(handler=_perft)

    play = commands.add_parser("play", help="play a game against a random computer in the terminal")
    play.add_argument("--variant", choices=names, default="backgammon")
    play.add_argument("--seed", type=int, default=None)
    play.set_defaults(handler=_play)

    verify = commands.add_parser("verify-dice", help="recompute every roll of a provably fair game record")
    verify.add_argument("record", help="the record's JSON file, or '-' for stdin")
    verify.set_defaults(handler=_verify_dice)

    bot = commands.add_parser("bot", help="choose plays with a trained bot, one JSON request per line with --batch")
    bot.add_argument("--variant", choices=names, required=True)
    bot.add_argument("--level", choices=list(BOT_LEVELS), default="expert",
                     help="the computer level (world-class: backgammon, dave and georgian only)")
    bot.add_argument("--seed", type=int, default=None, help="seed of the noise of the weaker levels")
    bot.add_argument("--dice", nargs=2, type=int, metavar=("A", "B"))
    bot.add_argument("--batch", action="store_true", help='answer {"position": P, "dice": [A, B]} per stdin line')
    bot.add_argument("position", nargs="?", help="canonical JSON, a gnubg Position ID, or 'start'")
    bot.set_defaults(handler=_bot)

    train = commands.add_parser("train", help="train a long-nardy network by TD(lambda) self-play, resuming")
    train.add_argument("--variant", choices=sorted(WEIGHTS), nargs="+", required=True,
                       help="the long-nardy regulation; more of them interleave their games (one network for all)")
    train.add_argument("--games", type=int, default=10_000, help="total games to reach (resumed runs count)")
    train.add_argument("--hidden", type=int, default=80, help="hidden units of a new network (an --init network with fewer grows to this many)")
    train.add_argument("--alpha", type=float, default=0.1)
    train.add_argument("--lambda", dest="lambda_", type=float, default=0.7)
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--out", default=None, help="checkpoint directory (default ~/.cache/nardy/train/NAME)")
    train.add_argument("--init", default=None, help="start a new run from these weights (.npz)")
    train.add_argument("--checkpoint-every", type=int, default=1_000)
    train.add_argument("--benchmark-every", type=int, default=5_000, help="0 for none")
    train.add_argument("--benchmark-games", type=int, default=200)
    train.add_argument("--no-progress", dest="progress", action="store_false", help="log lines instead of a bar")
    train.add_argument("--export", action="store_true", help="write nardy/bots/weights/NAME.npz afterwards")
    train.set_defaults(handler=_train)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; return its exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status: int | None = args.handler(args, sys.stdout)
    except (UsageError, RulesError, ValueError) as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"nardy: {message}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        return 130
    return status or 0


if __name__ == "__main__":
    sys.exit(main())
