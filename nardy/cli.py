"""The ``nardy`` command line: legal plays, boards, perft, a terminal game, dice verification, bots, training, rollouts,
analysis, and the operator's tasks (``nardy admin``: the site's figures, backups and their restore, moderator roles
and bans).

Every command reads positions in the formats of :mod:`nardy.notation`
(canonical JSON, a gnubg Position ID for the backgammon family, or ``start``)
and reports malformed input as one line on stderr with exit status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from nardy.bots import BOT_LEVELS, Bot, make_bot
from nardy.bots.analysis import LEVELS, Analysis, Decision, PlayerSummary, analyse
from nardy.bots.encoding import trainable_variants
from nardy.bots.neural import WEIGHTS
from nardy.notation import (
    format_steps,
    position_from_dict,
    position_from_id,
    position_to_dict,
    render,
)
from nardy.notation.match_file import read_match_file
from nardy.notation.transcript import Transcript
from nardy.rules import VARIANTS, Game, Phase, Play, Position, RulesError, find_variant
from nardy.rules.dice import check_dice
from nardy.rules.perft import divide
from nardy.notation.dice_record import parse_record, verify_games

if TYPE_CHECKING:
    from nardy.bots.rollout import RolloutResult
    from nardy.store.stats_repo import SiteStatistics

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
    family = training.features_family(variant) if args.features else None
    name = training.run_name(variant, family)
    config = training.TrainConfig(
        variant=variant,
        mix=mix,
        family=family,
        checkpoint_dir=Path(args.out) if args.out else training.default_checkpoint_dir(name),
        hidden=args.hidden,
        alpha=args.alpha,
        lambda_=args.lambda_,
        games=args.games,
        seed=args.seed,
        checkpoint_every=args.checkpoint_every,
        keep_checkpoints=args.keep_checkpoints,
        benchmark_every=args.benchmark_every,
        benchmark_games=args.benchmark_games,
        init=Path(args.init) if args.init else None,
    )
    counts = (("--games", config.games), ("--hidden", config.hidden), ("--checkpoint-every", config.checkpoint_every),
              ("--keep-checkpoints", config.keep_checkpoints))
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


def _average(args: argparse.Namespace, out: TextIO) -> None:
    """Write the mean of a training run's checkpoints (float64), naming them in its metadata."""
    from nardy.bots.phased import average_networks, load_network

    try:
        networks = [load_network(path) for path in args.checkpoints]
        averaged = average_networks(networks, [Path(path).name for path in args.checkpoints])
        averaged.save(args.out, exact=True)
    except (OSError, ValueError, KeyError) as error:
        raise UsageError(f"cannot average {', '.join(args.checkpoints)}: {error}") from error
    out.write(f"{args.out}: the mean of {len(networks)} networks ({averaged.meta['games']} games)\n")


def _rollout(args: argparse.Namespace, out: TextIO) -> None:
    """Roll out a position of a variant our networks play (long nardy, fevga, plakoto, hypergammon), or with --dice
    each of its candidate plays (the best first)."""
    from nardy.bots.neural import default_evaluator
    from nardy.bots.race import network_evaluator
    from nardy.bots.rollout import rollout, rollout_plays

    if args.trials < 1 or args.workers < 1 or (args.truncate is not None and args.truncate < 0) or args.player_plies < 0:
        raise UsageError("--trials and --workers are 1 or more, --truncate and --player-plies 0 or more")
    position = parse_position(args.position, args.variant)
    if position.variant.name not in WEIGHTS:
        raise UsageError(f"rollouts play with our networks; none plays {position.variant.name}")
    name = position.variant.name
    rater = network_evaluator(name) if args.bearoff else default_evaluator(name)
    settings = {"trials": args.trials, "truncate": args.truncate, "seed": args.seed,
                "variance_reduction": args.luck, "player_plies": args.player_plies, "workers": args.workers}
    labels: list[str | None]
    with _progress_bar("rolling out") as progress:
        if args.dice is None:
            labels = [None]
            results = rollout(rater, [position], progress=progress, **settings)
        else:
            plays = position.legal_plays(check_dice(args.dice))
            if not plays:
                raise UsageError(f"{args.dice[0]}-{args.dice[1]} cannot be played here: nothing to roll out")
            labels = [format_steps(play.steps) for play in plays]
            results = rollout_plays(rater, plays, progress=progress, **settings)
    ranked = sorted(zip(labels, results), key=lambda pair: -pair[1].equity)
    if args.json:
        answer = {"variant": position.variant.name, "position": position_to_dict(position),
                  "dice": args.dice, **settings, "bearoff": args.bearoff,
                  "results": [_rollout_json(label, result) for label, result in ranked]}
        out.write(json.dumps(answer) + "\n")
        return
    out.write(f"{'play':<24} {'equity':>7} {'±':>6}  {'win':>6} {'win 2':>6} {'lose 2':>6}  trials\n")
    for label, result in ranked:
        p = result.probabilities
        out.write(f"{label or 'on roll':<24} {result.equity:+7.3f} {result.equity_error:6.3f}  "
                  f"{p[0]:6.3f} {p[1]:6.3f} {p[3]:6.3f}  {result.trials}\n")


def _rollout_json(label: str | None, result: RolloutResult) -> dict[str, Any]:
    return {"play": label, "equity": result.equity, "equity_error": result.equity_error,
            "probabilities": result.probabilities.tolist(), "standard_errors": result.standard_errors.tolist(),
            "trials": result.trials}


@contextlib.contextmanager
def _progress_bar(title: str) -> Iterator[Callable[[int, int], None]]:
    """A rich progress bar on stderr when it is a terminal (gone when done), as a ``(done, total)`` callback."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    columns = (TextColumn(f"[bold]{title}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True, disable=not console.is_terminal) as bar:
        task = bar.add_task(title, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def _analyze(args: argparse.Namespace, out: TextIO) -> None:
    """Analyse a match file: one line (or JSON row) per decision, then each player's summary."""
    analysis = _analyse_with_progress_bar(read_transcript(args.file), args.level)
    if args.json:
        out.write(json.dumps(analysis_json(analysis)) + "\n")
        return
    names = _player_names(analysis)
    out.write(f"{'game':>4} {'move':>4}  {'player':<12} {'dice':<5} {'played':<24} {'best':<24} "
              f"{'loss':>6}  {'mark':<9} {'luck':>6}\n")
    for decision in analysis.decisions():
        out.write(_decision_line(decision, names[decision.player]) + "\n")
    for summary in analysis.summaries:
        out.write(_summary_line(summary, names[summary.player]) + "\n")


def read_transcript(path: str) -> Transcript:
    """The match in the file at ``path`` (a table record, a .mat or an SGF file); UsageError when unreadable.

    What is in the file but does not read or replay raises NotationError (a ValueError), as the CLI reports it.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {path}: {getattr(error, 'strerror', None) or error}") from None
    return read_match_file(text, path)


def _analyse_with_progress_bar(transcript: Transcript, level: str) -> Analysis:
    """:func:`nardy.bots.analysis.analyse` with a rich progress bar on stderr when it is a terminal (gone when done)."""
    with _progress_bar(f"analysing ({level})") as progress:
        return analyse(transcript, level=level, progress=progress)


def analysis_json(analysis: Analysis) -> dict[str, Any]:
    """What ``nardy analyze --json`` prints: the match, a row per decision, each player's summary."""
    rows = [
        {"game": d.game, "move": d.move, "player": d.player, "kind": d.kind, "dice": list(d.dice),
         "played": d.played, "best": d.best, "equity_loss": d.equity_loss, "mark": d.mark, "luck": d.luck,
         "forced": d.forced}
        for d in analysis.decisions()
    ]
    return {"variant": analysis.variant, "level": analysis.level, "players": list(analysis.players),
            "decisions": rows, "summaries": [asdict(summary) for summary in analysis.summaries]}


def _player_names(analysis: Analysis) -> tuple[str, str]:
    first, second = (name or f"player {seat}" for seat, name in enumerate(analysis.players))
    return first, second


def _decision_line(decision: Decision, name: str) -> str:
    dice = "-".join(map(str, decision.dice)) or "cube"
    luck = f"{decision.luck:+6.3f}" if decision.kind == "move" else ""
    mark = decision.mark + (" forced" if decision.forced else "")
    return (f"{decision.game:>4} {decision.move:>4}  {name[:12]:<12} {dice:<5} {decision.played:<24} "
            f"{decision.best:<24} {decision.equity_loss:6.3f}  {mark:<9} {luck:>6}")


def _summary_line(summary: PlayerSummary, name: str) -> str:
    return (
        f"{name}: {summary.decisions} decisions ({summary.counted} counted, {summary.forced} forced); "
        f"loss {summary.total_loss:.3f} (checker {summary.checker_loss:.3f}, cube {summary.cube_loss:.3f}); "
        f"error rate {summary.error_rate:.1f} mEMG per decision, PR {summary.pr:.1f}: {summary.rating}; "
        f"{summary.doubtful} doubtful, {summary.errors} errors, {summary.blunders} blunders; "
        f"luck {summary.luck:+.3f} ({summary.luck_points:+.2f} points), result {summary.result:+g}, "
        f"luck-adjusted {summary.luck_adjusted:+.2f}"
    )


# ----- nardy admin: the operator's tasks, on the database the server's NARDY_* settings name
#
# The database, settings and backup modules are imported by these tasks alone: the other commands start
# without SQLAlchemy and the server's settings.

ADMIN_FAILED = 1
"""Exit status of an operator's task that could not be done (the message says why)."""


def _admin_task(task: Callable[[argparse.Namespace, str, TextIO], None]) -> Callable[[argparse.Namespace, TextIO], int]:
    """A ``nardy admin`` handler: ``task(args, database_url, out)``, a failure printed as one line, exit status 1.

    The database is ``--database-url``, else the server's own (``NARDY_DATABASE_URL``, ``NARDY_DATA_DIR``).
    """

    def handler(args: argparse.Namespace, out: TextIO) -> int:
        from nardy.server.settings import Settings
        from nardy.store.backup import BackupError
        from nardy.store.stats_repo import StatisticsError

        url = str(args.database_url) if args.database_url else Settings().resolved_database_url
        try:
            task(args, url, out)
        except (BackupError, StatisticsError) as error:
            print(f"nardy: {error}", file=sys.stderr)
            return ADMIN_FAILED
        return 0

    return handler


def _admin_stats(args: argparse.Namespace, url: str, out: TextIO) -> None:
    from nardy.server.settings import Settings
    from nardy.store.stats_repo import read_site_statistics

    figures = read_site_statistics(url, now=datetime.now(UTC),
                                   alive_within=timedelta(seconds=Settings().peer_timeout_seconds))
    out.write(json.dumps(asdict(figures)) + "\n" if args.json else _statistics_text(figures))


def _statistics_text(figures: SiteStatistics) -> str:
    def by_status(counts: dict[str, int]) -> str:
        return ", ".join(f"{status} {count}" for status, count in sorted(counts.items())) or "none"

    lines = [
        ("accounts", str(figures.accounts)),
        ("guests", str(figures.guests)),
        ("rated players", str(figures.rated_players)),
        ("tables", by_status(figures.tables)),
        ("finished games", str(figures.finished_games)),
        ("tournaments", by_status(figures.tournaments)),
        ("analyses", by_status(figures.analyses)),
        ("coins", f"{figures.coins_in_play} in accounts, {figures.coins_held} held at tables"),
        ("server processes", f"{figures.processes_alive} alive"),
    ]
    return "".join(f"{name:<17} {value}\n" for name, value in lines)


def _admin_backup(args: argparse.Namespace, url: str, out: TextIO) -> None:
    from nardy.store.backup import backup

    backup(url, Path(args.file))
    out.write(f"backed up to {args.file}\n")


def _admin_restore(args: argparse.Namespace, url: str, out: TextIO) -> None:
    from nardy.store.backup import restore

    restore(url, Path(args.file), replace=args.replace)
    out.write(f"restored from {args.file}; the server migrates it to its schema when it starts\n")


# ----- nardy admin: roles and bans (docs/moderation.md)
#
# grant-moderator, revoke-moderator, ban and unban work on the database the server's own settings name
# (NARDY_DATABASE_URL or NARDY_DATA_DIR) unless --database-url names another, and each is an entry of the audit
# log, the operator's. A ban ends the account's sessions; with NARDY_REDIS_URL set every server process closes
# their sockets at once, else each process's sweep does within a minute. The database and settings modules are
# imported by these tasks alone.

ROLE_REASON_MAX = 500
"""The longest reason the audit log takes (as a moderator's, ``nardy.server.services.moderation.REASON_MAX``)."""


def _add_role_commands(tasks: Any, database: argparse.ArgumentParser) -> None:
    """Add ``grant-moderator``, ``revoke-moderator``, ``ban`` and ``unban`` to ``nardy admin``'s subcommands
    (``database``: the parent parser with ``--database-url``)."""
    grant = tasks.add_parser("grant-moderator", parents=[database], help="make an account a moderator")
    grant.add_argument("name")
    grant.set_defaults(handler=_role_task(_admin_grant))

    revoke = tasks.add_parser("revoke-moderator", parents=[database], help="take the moderator role away")
    revoke.add_argument("name")
    revoke.set_defaults(handler=_role_task(_admin_revoke))

    ban = tasks.add_parser("ban", parents=[database], help="ban an account (its sockets close at once)")
    ban.add_argument("name")
    ban.add_argument("--reason", required=True)
    ban.add_argument("--minutes", type=int, default=None, help="how long (default: for good)")
    ban.set_defaults(handler=_role_task(_admin_ban))

    unban = tasks.add_parser("unban", parents=[database], help="lift an account's ban")
    unban.add_argument("name")
    unban.add_argument("--reason", required=True)
    unban.set_defaults(handler=_role_task(_admin_unban))


class RoleError(ValueError):
    """A task that cannot be done: no such account, or one that cannot hold the role."""


def _role_task(work: Callable[[argparse.Namespace, Any, TextIO], None]) -> Callable[[argparse.Namespace, TextIO], int]:
    """A handler running ``work(args, db, out)`` in a session of the database; a refusal is one line, status 1."""

    def handler(args: argparse.Namespace, out: TextIO) -> int:
        from nardy.server.settings import Settings
        from nardy.store.db import make_engine, make_sessionmaker

        url = args.database_url or Settings().resolved_database_url
        engine = make_engine(url)
        try:
            with make_sessionmaker(engine)() as db:
                work(args, db, out)
        except RoleError as error:
            print(f"nardy: {error}", file=sys.stderr)
            return ADMIN_FAILED
        finally:
            engine.dispose()
        return 0

    return handler


def _admin_account(db: Any, name: str) -> Any:
    from nardy.store import users_repo

    user = users_repo.by_name(db, name)
    if user is None or user.password_hash is None:
        raise RoleError(f"no account is named {name!r}")
    return user


def _admin_log(db: Any, user: Any, action: str, reason: str, until: datetime | None = None) -> None:
    """One entry of the audit log, the operator's (no moderator)."""
    from nardy.store import moderation_repo
    from nardy.store.models import ModerationAction

    moderation_repo.add_action(db, ModerationAction(
        moderator_id=None, target_id=user.id, action=action, reason=reason, until=until, created_at=datetime.now(UTC),
    ))


def _admin_grant(args: argparse.Namespace, db: Any, out: TextIO) -> None:
    from nardy.store import moderation_repo

    user = _admin_account(db, args.name)
    moderation_repo.set_moderator(db, user.id, True)
    _admin_log(db, user, "grant_moderator", "granted by the operator")
    db.commit()
    out.write(f"{user.username} is a moderator\n")


def _admin_revoke(args: argparse.Namespace, db: Any, out: TextIO) -> None:
    from nardy.store import moderation_repo

    user = _admin_account(db, args.name)
    moderation_repo.set_moderator(db, user.id, False)
    _admin_log(db, user, "revoke_moderator", "revoked by the operator")
    db.commit()
    out.write(f"{user.username} is no longer a moderator\n")


def _admin_reason(text: str) -> str:
    if not text.strip() or len(text) > ROLE_REASON_MAX:
        raise RoleError(f"give a reason of at most {ROLE_REASON_MAX} characters")
    return text.strip()


def _admin_ban(args: argparse.Namespace, db: Any, out: TextIO) -> None:
    from nardy.server.auth.signouts import announce_from_outside
    from nardy.server.settings import Settings
    from nardy.store import users_repo

    user = _admin_account(db, args.name)
    reason = _admin_reason(args.reason)
    if args.minutes is not None and args.minutes < 1:
        raise RoleError("a ban lasts at least a minute")
    until = None if args.minutes is None else datetime.now(UTC) + timedelta(minutes=args.minutes)
    _admin_log(db, user, "ban", reason, until)
    ended = users_repo.delete_sessions_of(db, user.id)
    db.commit()
    told = announce_from_outside(Settings().redis_url, ended)
    how_long = "for good" if until is None else f"until {until.isoformat()}"
    sockets = "their sockets close now" if told else "their sockets close within a minute (no Redis reached)"
    out.write(f"{user.username} is banned {how_long}; {len(ended)} session(s) ended, {sockets}\n")


def _admin_unban(args: argparse.Namespace, db: Any, out: TextIO) -> None:
    user = _admin_account(db, args.name)
    _admin_log(db, user, "unban", _admin_reason(args.reason))
    db.commit()
    out.write(f"{user.username} is no longer banned\n")


def _add_admin_commands(commands: Any) -> None:
    """``nardy admin SUBCOMMAND``: each an operator's task on the site's database."""
    admin = commands.add_parser("admin", help="the operator's tasks: the site's figures, backups and restores")
    tasks = admin.add_subparsers(dest="task", required=True, parser_class=_Parser)
    database = argparse.ArgumentParser(add_help=False)
    database.add_argument("--database-url", default=None,
                          help="SQLAlchemy URL (default: the server's, from NARDY_DATABASE_URL or NARDY_DATA_DIR)")

    stats = tasks.add_parser("stats", parents=[database], help="accounts, tables, games, analyses, coins, processes")
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    stats.set_defaults(handler=_admin_task(_admin_stats))

    backup_task = tasks.add_parser(
        "backup", parents=[database],
        help="back up the database while the server runs (SQLite: its backup API; PostgreSQL: pg_dump)",
    )
    backup_task.add_argument("file", help="the backup to write (replaced if it exists)")
    backup_task.set_defaults(handler=_admin_task(_admin_backup))

    restore_task = tasks.add_parser(
        "restore", parents=[database],
        help="restore a backup into a database without tables, with the server stopped (PostgreSQL: pg_restore)",
    )
    restore_task.add_argument("file", help="a backup written by nardy admin backup")
    restore_task.add_argument("--replace", action="store_true",
                              help="replace what the database holds (the server must be stopped)")
    restore_task.set_defaults(handler=_admin_task(_admin_restore))

    _add_role_commands(tasks, database)


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
                     help="the computer level (world-class: variants on the backgammon board only)")
    bot.add_argument("--seed", type=int, default=None, help="seed of the noise of the weaker levels")
    bot.add_argument("--dice", nargs=2, type=int, metavar=("A", "B"))
    bot.add_argument("--batch", action="store_true", help='answer {"position": P, "dice": [A, B]} per stdin line')
    bot.add_argument("position", nargs="?", help="canonical JSON, a gnubg Position ID, or 'start'")
    bot.set_defaults(handler=_bot)

    train = commands.add_parser(
        "train", help="train a network (long nardy, fevga, plakoto, hypergammon) by TD(lambda) self-play, resuming")
    train.add_argument("--variant", choices=sorted(trainable_variants()), nargs="+", required=True,
                       help="the variant; more of one family (the long-nardy regulations) interleave their games (one network for all)")
    train.add_argument("--games", type=int, default=10_000, help="total games to reach (resumed runs count)")
    train.add_argument("--hidden", type=int, default=80, help="hidden units of a new network (an --init network with fewer grows to this many)")
    train.add_argument("--alpha", type=float, default=0.1)
    train.add_argument("--lambda", dest="lambda_", type=float, default=0.7)
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--out", default=None, help="checkpoint directory (default ~/.cache/nardy/train/NAME)")
    train.add_argument("--init", default=None, help="start a new run from these weights (.npz)")
    train.add_argument("--features", action="store_true",
                       help="long nardy's hand-made inputs with a contact and a race network, both warm-started "
                            "from --init, or an earlier run's pair in --init trained on "
                            "(weights file NAME: the pair the first variant plays with)")
    train.add_argument("--checkpoint-every", type=int, default=1_000)
    train.add_argument("--keep-checkpoints", type=int, default=2,
                       help="the newest checkpoints kept (2; more to average them with 'nardy average')")
    train.add_argument("--benchmark-every", type=int, default=5_000, help="0 for none")
    train.add_argument("--benchmark-games", type=int, default=200)
    train.add_argument("--no-progress", dest="progress", action="store_false", help="log lines instead of a bar")
    train.add_argument("--export", action="store_true", help="write nardy/bots/weights/NAME.npz afterwards")
    train.set_defaults(handler=_train)

    average = commands.add_parser(
        "average", help="average the weights of checkpoints of one training run (smooths TD's step-to-step noise)")
    average.add_argument("--out", required=True, help="the averaged network's file (.npz, float64)")
    average.add_argument("checkpoints", nargs="+", help="network files of one kind, family and shape")
    average.set_defaults(handler=_average)

    rollout = commands.add_parser("rollout", help="roll out a position (long nardy, fevga, plakoto, hypergammon), or each play of a roll (--dice)")
    rollout.add_argument("--variant", choices=sorted(WEIGHTS), default=None)
    rollout.add_argument("--dice", nargs=2, type=int, metavar=("A", "B"),
                         help="roll out every legal play of this roll instead of the position")
    rollout.add_argument("--trials", type=int, default=360, help="games per position or play (360)")
    rollout.add_argument("--truncate", type=int, default=None,
                         help="rolls played before the network rates the position (default: to the end)")
    rollout.add_argument("--seed", type=int, default=0)
    rollout.add_argument("--workers", type=int, default=1, help="processes (the result does not depend on it)")
    rollout.add_argument("--luck", action="store_true",
                         help="subtract each roll's luck as the network sees it (unbiased; fewer trials, each slower)")
    rollout.add_argument("--player-plies", type=int, default=0,
                         help="how deep the player searches each move (0: the network's choice; 1 plays better, "
                              "each trial twenty to fifty times slower)")
    rollout.add_argument("--no-bearoff", dest="bearoff", action="store_false",
                         help="rate long nardy's bear-off races with the network instead of the exact database")
    rollout.add_argument("--json", action="store_true", help="print one JSON object with every result")
    rollout.add_argument("position", nargs="?", default="start", help="canonical JSON or 'start' (with --variant)")
    rollout.set_defaults(handler=_rollout)

    analyze = commands.add_parser("analyze", help="analyse a match: each decision's equity loss, luck, ratings")
    analyze.add_argument("file", help="a table record (.json); .mat and SGF files where this install reads them")
    analyze.add_argument("--level", choices=list(LEVELS), default="expert",
                         help="depth: advanced 1-ply, expert 2-ply, world-class 3-ply (the long board: 0, 1, 2)")
    analyze.add_argument("--json", action="store_true",
                         help="print one JSON object: {variant, level, players, decisions: [...], summaries: [...]}")
    analyze.set_defaults(handler=_analyze)

    worker = commands.add_parser("worker", help="run worker processes claiming jobs from the server's database")
    jobs = worker.add_subparsers(dest="queue", required=True, parser_class=_Parser)
    analysis = jobs.add_parser("analysis", help="analyse queued matches (users' requests first, then fair play)")
    analysis.add_argument("--database-url", default=None,
                          help="the server's database (SQLAlchemy URL); NARDY_DATABASE_URL or the server's default")
    analysis.add_argument("--processes", type=int, default=1, help="worker processes, one CPU core each while busy")
    analysis.add_argument("--poll-seconds", type=float, default=2.0, help="how often an idle worker looks again")
    analysis.add_argument("--stale-seconds", type=float, default=120.0,
                          help="a job whose worker wrote no progress this long is taken again (as the server's)")
    analysis.set_defaults(handler=_worker_analysis)
    _add_admin_commands(commands)
    return parser


def _worker_analysis(args: argparse.Namespace, out: TextIO) -> int:
    """Claim and analyse jobs until interrupted (``nardy.server.worker``, the server's own entry point)."""
    from nardy.server.worker import NotMigrated, analysis_workers

    if args.processes < 1:
        raise UsageError("--processes must be 1 or more")
    try:
        analysis_workers(out, database_url=args.database_url, processes=args.processes,
                         stale_seconds=args.stale_seconds, poll_seconds=args.poll_seconds)
    except NotMigrated as error:
        print(f"nardy: {error}", file=sys.stderr)
        return USAGE_ERROR
    return 0


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
