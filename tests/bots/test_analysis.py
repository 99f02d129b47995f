"""Post-game analysis (nardy.bots.analysis): sound on random matches, fair to bots and dice, faithful to bgsage.

Random matches come from ``tests/match_records.py``; games between
bots are played here through the rules, with dice from ``random.Random(seed)``.
"""

from __future__ import annotations

import json
import random
import statistics
from collections.abc import Sequence
from dataclasses import astuple, replace
from typing import Any

import pytest

from nardy.bots import Bot, RandomBot, make_bot
from nardy.bots.analysis import (
    LEVELS,
    Analysis,
    Decision,
    analyse,
    judge_for,
    mark,
    rating,
)
from nardy.bots.engines import engine_for
from nardy.bots.judge import CubeEquities, PlayVerdict
from nardy.bots.judge_sage import SageJudge
from nardy.bots.sage import CubeContext, board_of, engine
from nardy.notation import position_from_dict
from nardy.notation.transcript import Action, ActionKind, GameTranscript, Transcript, replay, transcript_from_record
from nardy.rules import DICE_ROLLS, VARIANTS, Game, GameOptions, Match, Phase, Play, Step
from tests.match_records import random_record


# ---------------------------------------------------------------- making transcripts


def bot_game(variant: str, bots: Sequence[Bot], *, seed: int, options: GameOptions, length: int = 0) -> Transcript:
    """One game between ``bots`` (seat 0, seat 1), its dice drawn from ``random.Random(seed)``."""
    rng = random.Random(seed)
    game = Match.new(variant, length=length, options=options).game
    actions: list[Action] = []
    while game.result is None:
        player = game.turn
        if game.phase is Phase.OPENING:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            actions.append(Action("opening", dice=dice))
            game = game.opening_roll(dice)
        elif game.phase is Phase.ROLLING and game.can_double(player) and bots[player].wants_to_double(game, player):
            actions.append(Action("double", player))
            game = game.double(player)
        elif game.phase is Phase.ROLLING:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            actions.append(Action("roll", player, dice=dice))
            game = game.roll(player, dice)
        elif game.phase is Phase.MOVING:
            assert game.dice is not None
            play = bots[player].choose_play(game.position, game.dice, game)
            assert play is not None
            actions.append(Action("move", player, steps=play.steps))
            game = game.move(player, play.steps)
        else:
            taker = game.opponent
            took = bots[taker].accepts_double(game, taker)
            actions.append(Action("take" if took else "drop", taker))
            game = game.take(taker) if took else game.drop(taker)
    return Transcript(variant, length, options, ("zero", "one"), (GameTranscript(tuple(actions)),))


def scripted(variant: str, script: Sequence[tuple[Any, ...]], *, options: GameOptions) -> Transcript:
    """A money game from a script: ``("opening", dice)``, ``("roll", dice)``, ``("move", index)`` (the
    index-th legal play), ``("double",)``, ``("take",)``, ``("drop",)``, ``("beaver",)``; a last element
    ``"forced"`` marks the action forced."""
    game = Match.new(variant, length=0, options=options).game
    actions: list[Action] = []
    for kind, *rest in script:
        forced = bool(rest) and rest[-1] == "forced"
        action, game = _scripted_action(game, kind, rest[0] if rest and rest[0] != "forced" else None)
        actions.append(replace(action, forced=forced))
    return Transcript(variant, 0, options, ("ann", "bob"), (GameTranscript(tuple(actions)),))


def _scripted_action(game: Game, kind: ActionKind, argument: Any) -> tuple[Action, Game]:
    player = game.turn
    if kind == "opening":
        return Action("opening", dice=argument), game.opening_roll(argument)
    if kind == "roll":
        return Action("roll", player, dice=argument), game.roll(player, argument)
    if kind == "move":
        play = game.legal_plays()[argument]
        return Action("move", player, steps=play.steps), game.move(player, play.steps)
    if kind == "double":
        return Action("double", player), game.double(player)
    taker = game.opponent
    return Action(kind, taker), getattr(game, kind)(taker)


class ScriptedJudge:
    """A judge with made-up numbers: the first legal play is best, each later one 0.05 worse; fixed cube
    equities; every roll worth (high + low) / 10, so a roll's luck is (high + low) / 10 - 0.7."""

    def __init__(self, cube: CubeEquities) -> None:
        self._cube = cube

    def checker_play(self, game: Game, played: Play) -> PlayVerdict:
        plays = game.legal_plays()
        made = [play.position for play in plays].index(played.position)
        return PlayVerdict(plays[0], 0.5, 0.5 - 0.05 * made, len(plays))

    def cube(self, game: Game) -> CubeEquities:
        return self._cube

    def roll_equities(self, game: Game, player: int) -> dict[tuple[int, int], float]:
        return {roll: (roll[0] + roll[1]) / 10 for roll in DICE_ROLLS}


# ---------------------------------------------------------------- invariants on random matches


def _checks(analysis: Analysis, transcript: Transcript) -> None:
    """What holds for any analysis: legal best plays, losses, marks, the graph, and summaries that add up."""
    moves = [d for d in analysis.decisions() if d.kind == "move"]
    assert len(moves) == sum(a.kind == "move" for g in transcript.games for a in g.actions)
    for decision in analysis.decisions():
        assert decision.equity_loss >= 0.0
        assert decision.equity_loss == pytest.approx(decision.equity_best - decision.equity_played, abs=1e-9)
        assert decision.mark == mark(decision.equity_loss)
        if decision.kind == "move":
            position = position_from_dict(decision.position)
            steps = [Step(s["source"], s["target"], s["die"], s["hit"]) for s in decision.best_steps]
            assert position.play(decision.dice, steps) in {p.position for p in position.legal_plays(decision.dice)}
            assert not decision.forced or not decision.counted
    for game in analysis.games:
        assert len(game.equity) == len(game.decisions)
        assert all(-3.0 <= e <= 3.0 for e in game.equity)
    for summary in analysis.summaries:
        _summary_adds_up(summary.player, analysis.decisions(), analysis)
    assert sum(s.luck_adjusted for s in analysis.summaries) == pytest.approx(0.0, abs=1e-9)
    assert Analysis.from_json(json.loads(json.dumps(analysis.to_json()))) == analysis


def _summary_adds_up(player: int, decisions: list[Decision], analysis: Analysis) -> None:
    summary = analysis.summaries[player]
    mine = [d for d in decisions if d.player == player]
    counted = [d for d in mine if d.counted]
    assert summary.decisions == len(mine) == summary.moves + summary.cube_decisions
    assert summary.counted == len(counted)
    assert summary.forced == sum(d.forced for d in mine)
    assert summary.total_loss == pytest.approx(sum(d.equity_loss for d in counted))
    assert summary.total_loss == pytest.approx(summary.checker_loss + summary.cube_loss)
    assert (summary.doubtful, summary.errors, summary.blunders) == tuple(
        sum(d.mark == m for d in counted) for m in ("doubtful", "bad", "very bad")
    )
    if counted:
        assert summary.error_rate == pytest.approx(1000 * summary.total_loss / len(counted))
        assert summary.pr == pytest.approx(summary.error_rate / 2)
        assert summary.rating == rating(summary.mean_loss)
    rolls = [r for g in analysis.games for r in g.rolls]
    expected = sum(r.luck * (0.5 if r.player == player else -0.5) if r.opening else r.luck * (r.player == player)
                   for r in rolls)
    assert summary.luck == pytest.approx(expected)


RANDOM_MATCHES = [
    ("backgammon", 3, 3), ("backgammon", 0, 4), ("dave", 3, 5), ("georgian", 3, 6),
    ("long-traditional", 1, 7), ("long-tournament", 1, 8), ("long-bolshie", 3, 9),
    ("hypergammon", 3, 10), ("nackgammon", 1, 11), ("portes", 1, 12), ("tavla", 1, 13),
    ("plakoto", 1, 14), ("fevga", 1, 15),
]


@pytest.mark.parametrize(("variant", "length", "seed"), RANDOM_MATCHES)
def test_random_matches_are_analysed_soundly(variant: str, length: int, seed: int) -> None:
    """Every move action has one decision, legal best plays, non-negative losses; summaries add up."""
    record, _ = random_record(variant, seed, length=length, money_games=2)
    transcript = transcript_from_record(record)
    seen: list[tuple[int, int]] = []
    analysis = analyse(transcript, level="advanced", progress=lambda done, total: seen.append((done, total)))
    _checks(analysis, transcript)
    assert [done for done, _ in seen] == list(range(1, len(seen) + 1))
    assert seen and seen[-1][0] == seen[-1][1]


SHORT_GAMES: dict[str, list[tuple[Any, ...]]] = {
    "backgammon": [("opening", (3, 1)), ("move", 5), ("roll", (6, 5)), ("move", 3), ("double",), ("take",),
                   ("roll", (4, 2)), ("move", 0), ("roll", (2, 2)), ("move", 2)],
    "long-traditional": [("opening", (2, 5)), ("roll", (6, 5)), ("move", 0), ("roll", (4, 3)), ("move", 0),
                         ("roll", (3, 3)), ("move", 1), ("roll", (5, 1)), ("move", 1)],
}


@pytest.mark.parametrize("level", ["expert", "world-class"])
@pytest.mark.parametrize("variant", sorted(SHORT_GAMES))
def test_the_deeper_levels_are_sound_too(variant: str, level: str) -> None:
    transcript = scripted(variant, SHORT_GAMES[variant], options=GameOptions(cube=variant == "backgammon"))
    analysis = analyse(transcript, level=level)
    _checks(analysis, transcript)
    assert [d.kind for d in analysis.decisions()].count("move") == 4


def test_every_variant_is_covered() -> None:
    """Every variant an engine rates is analysed (a hand-written score would rate no equities); tavli's games are
    those of its three rule sets."""
    rated = {name for name, rules in VARIANTS.items() if not rules.games and engine_for(name).kind != "heuristic"}
    assert {variant for variant, _, _ in RANDOM_MATCHES} == rated


def test_a_money_session_with_cube_has_cube_decisions_with_their_options() -> None:
    record, _ = random_record("backgammon", 4, length=0, money_games=2,
                              options=GameOptions(cube=True, beavers=True, jacoby=True))
    analysis = analyse(transcript_from_record(record), level="advanced")
    cube = [d for d in analysis.decisions() if d.kind != "move"]
    played = {d.played for d in cube}
    assert {"no double", "double"} <= played and played & {"take", "drop", "beaver"}
    assert all(d.best in {"no double", "double", "take", "drop", "beaver"} for d in cube)


def test_hypergammon_with_the_cube_judges_its_plays_by_its_network_and_its_cube_by_bgsage() -> None:
    """Hypergammon keeps backgammon's cube (docs/rules.md §8.3); its network is cubeless, so bgsage judges the cube
    decisions, as its bots' cube decisions are bgsage's (nardy.bots.engines)."""
    record, _ = random_record("hypergammon", 5, length=0, money_games=3, options=GameOptions(cube=True))
    transcript = transcript_from_record(record)
    analysis = analyse(transcript, level="advanced")
    _checks(analysis, transcript)
    kinds = {d.kind for d in analysis.decisions()}
    assert {"move", "cube"} <= kinds
    assert engine_for("hypergammon").cube == "bgsage"


# ---------------------------------------------------------------- the bookkeeping, with made-up numbers


MONEY = GameOptions(cube=True)


def test_a_missed_double_is_an_error_and_the_answers_are_judged() -> None:
    """With no double 0.3 < double/take 0.5 < double/pass 1.0, not doubling loses 0.2; doubling and taking are right."""
    script = [("opening", (3, 1)), ("move", 0), ("roll", (5, 2)), ("move", 1), ("double",), ("take",)]
    transcript = scripted("backgammon", script, options=MONEY)
    analysis = analyse(transcript, level="advanced", judge=ScriptedJudge(CubeEquities(0.3, 0.5, 1.0)))
    opening, missed, second, double, take = analysis.decisions()
    assert (opening.kind, opening.counted, opening.equity_loss) == ("move", True, 0.0)
    assert (missed.player, missed.kind, missed.played, missed.best) == (1, "cube", "no double", "double")
    assert missed.equity_loss == pytest.approx(0.2) and missed.mark == "very bad" and missed.counted
    assert second.equity_loss == pytest.approx(0.05) and second.mark == "doubtful"
    assert (double.player, double.played, double.best, double.equity_loss) == (0, "double", "double", 0.0)
    assert (take.player, take.kind, take.played, take.best) == (1, "take", "take", "take")
    assert take.equity_best == pytest.approx(-0.5)
    assert position_from_dict(take.position) == position_from_dict(double.position).turned()
    assert analysis.games[0].equity == pytest.approx((0.5, -0.5, -0.5, 0.5, 0.5))


def test_a_wrong_drop_a_beaver_and_an_uncounted_no_double() -> None:
    beavers = GameOptions(cube=True, beavers=True)
    judge = ScriptedJudge(CubeEquities(0.1, -0.2, 1.0))  # taking is worth 0.2 to the taker, beavering 0.4
    script = [("opening", (3, 1)), ("move", 0), ("roll", (5, 2)), ("move", 0), ("double",), ("take",)]
    analysis = analyse(scripted("backgammon", script, options=beavers), level="advanced", judge=judge)
    _, no_double, _, double, take = analysis.decisions()
    assert not no_double.counted  # doubling would lose 0.5: not a close decision, as gnubg counts
    assert double.best == "no double" and [double.equity_played, double.equity_loss] == pytest.approx([-0.4, 0.5])
    assert take.best == "beaver" and take.equity_loss == pytest.approx(0.2)
    dropped = analyse(scripted("backgammon", script[:-1] + [("drop",)], options=beavers), judge=judge)
    assert dropped.decisions()[-1].equity_loss == pytest.approx(1.4) and dropped.decisions()[-1].mark == "very bad"


def test_forced_actions_are_shown_but_not_counted() -> None:
    script = [("opening", (3, 1)), ("move", 3, "forced"), ("roll", (5, 2)), ("move", 2)]
    transcript = scripted("backgammon", script, options=GameOptions())
    analysis = analyse(transcript, judge=ScriptedJudge(CubeEquities(0, 0, 1)))
    forced, played = analysis.decisions()
    assert forced.forced and not forced.counted and forced.equity_loss == pytest.approx(0.15)
    first, second = analysis.summaries
    assert (first.decisions, first.counted, first.forced, first.total_loss, first.rating) == (1, 0, 1, 0.0, "n/a")
    assert second.total_loss == pytest.approx(0.1) and second.error_rate == pytest.approx(100.0)


def test_luck_is_each_roll_against_the_average_roll_and_the_opening_is_shared() -> None:
    script = [("opening", (3, 1)), ("move", 0), ("roll", (5, 2)), ("move", 0), ("roll", (4, 4)), ("move", 0)]
    transcript = scripted("backgammon", script, options=GameOptions())
    analysis = analyse(transcript, judge=ScriptedJudge(CubeEquities(0, 0, 1)))
    rolls = analysis.games[0].rolls
    assert [(r.player, r.opening) for r in rolls] == [(0, True), (1, False), (0, False)]
    assert [r.luck for r in rolls] == pytest.approx([0.4, 0.0, 0.1])  # the opening's average is 0 by symmetry
    assert [d.luck for d in analysis.decisions()] == pytest.approx([0.4, 0.0, 0.1])
    assert [s.luck for s in analysis.summaries] == pytest.approx([0.2 + 0.1, -0.2])


def test_long_nardys_opening_luck_is_the_starters_equity() -> None:
    """The opening only picks the starter: its luck is the starter's pre-roll equity (0.7 here), half each."""
    script = [("opening", (2, 5)), ("roll", (6, 5)), ("move", 0)]
    analysis = analyse(scripted("long-traditional", script, options=GameOptions()),
                       judge=ScriptedJudge(CubeEquities(0, 0, 1)))
    opening, roll = analysis.games[0].rolls
    assert opening.player == 1 and [opening.luck, roll.luck] == pytest.approx([0.7, 0.4])
    assert [s.luck for s in analysis.summaries] == pytest.approx([-0.35, 0.35 + 0.4])


def test_marks_and_ratings_follow_gnubgs_thresholds() -> None:
    assert [mark(x) for x in (0.0, 0.04, 0.0401, 0.08, 0.0801, 0.16, 0.1601)] == [
        "", "", "doubtful", "doubtful", "bad", "bad", "very bad"]
    errors = (0.001, 0.002, 0.004, 0.007, 0.011, 0.017, 0.025, 0.034, 0.035)
    assert [rating(x) for x in errors] == [
        "Supernatural", "World class", "World class", "Expert", "Advanced", "Intermediate", "Casual player",
        "Beginner", "Awful!"]


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="world-class"):
        judge_for("backgammon", "grandmaster")
    assert LEVELS == ("advanced", "expert", "world-class")


# ---------------------------------------------------------------- fair to bots and to dice


@pytest.mark.parametrize(("variant", "options", "length"), [
    ("backgammon", GameOptions(cube=True), 0),
    pytest.param("long-traditional", GameOptions(), 1, marks=pytest.mark.slow),
])
def test_a_random_mover_errs_five_times_as_much_as_a_strong_bot(
    variant: str, options: GameOptions, length: int,
) -> None:
    strong, weak = [0.0, 0.0], [0.0, 0.0]  # total loss, counted decisions
    for seed in range(2):
        bots: list[Bot] = [make_bot("advanced", variant=variant, seed=seed), RandomBot(seed=seed)]
        if seed:
            bots.reverse()
        analysis = analyse(bot_game(variant, bots, seed=seed, options=options, length=length), level="advanced")
        for summary in analysis.summaries:
            side = weak if isinstance(bots[summary.player], RandomBot) else strong
            side[0] += summary.total_loss
            side[1] += summary.counted
    assert weak[0] / weak[1] >= 5 * strong[0] / strong[1]
    assert weak[0] / weak[1] > 0.035  # "Awful!"


@pytest.mark.slow
def test_luck_is_zero_on_average_between_equal_bots() -> None:
    """Each roll's luck has mean zero whatever the position, so a player's luck per game averages zero.

    The games are the first 16 seeds, not picked. Luck per game has a standard
    deviation near 0.9 (normalized); the bound is four standard errors
    estimated from the games themselves (a false alarm about 1 in 15,000).
    """
    bots = [make_bot("advanced", variant="backgammon", seed=1), make_bot("advanced", variant="backgammon", seed=2)]
    per_game: list[tuple[float, float]] = []
    for seed in range(16):
        transcript = bot_game("backgammon", bots, seed=seed, options=GameOptions())
        first, second = analyse(transcript, level="advanced").summaries
        per_game.append((first.luck, second.luck))
    for player in (0, 1):
        lucks = [luck[player] for luck in per_game]
        error = statistics.stdev(lucks) / len(lucks) ** 0.5
        assert 0.05 < error < 0.5  # the test can tell a biased luck from none
        assert abs(statistics.mean(lucks)) < 4 * error


# ---------------------------------------------------------------- faithful to bgsage


def _backgammon_moves(options: GameOptions, length: int, seed: int, count: int) -> list[tuple[Game, Play]]:
    """The first ``count`` checker plays with a choice in a random backgammon match, with their games."""
    record, _ = random_record("backgammon", seed, length=length, options=options, money_games=1)
    chosen: list[tuple[Game, Play]] = []
    for step in replay(transcript_from_record(record)):
        game = step.before
        if step.action.kind == "move" and len(game.legal_plays()) > 1:
            assert game.dice is not None
            chosen.append((game, Play(step.action.steps, game.position.play(game.dice, step.action.steps))))
    return chosen[:count]


@pytest.mark.parametrize(("plies", "options", "length", "seed"), [
    (1, GameOptions(), 0, 1), (2, GameOptions(), 0, 2), (1, GameOptions(cube=True, jacoby=True), 0, 7),
    (1, GameOptions(cube=True), 5, 6), (2, GameOptions(cube=True), 5, 6),
])
def test_losses_agree_with_bgsages_own_analysis(plies: int, options: GameOptions, length: int, seed: int) -> None:
    """Our loss of each play equals bgsage's analyser's (its best minus the play, the play forced in).

    Cubeless at 1 and 2 plies, cubeful at 1 ply for money (Jacoby) and at 1
    and 2 plies for a match score; the positions are a random match's first
    plays with a choice.
    """
    from bgsage import BgBotAnalyzer

    analyser = BgBotAnalyzer(eval_level=f"{plies}ply", cubeful=options.cube)
    judge = SageJudge(plies)
    moves = _backgammon_moves(options, length, seed=seed, count=12)
    assert len(moves) >= 8
    for game, played in moves:
        assert game.dice is not None
        verdict = judge.checker_play(game, played)
        context = CubeContext.of(game, game.turn)
        board = board_of(played.position)
        theirs = analyser.checker_play(
            board_of(game.position), *game.dice, cube_value=context.value, cube_owner=context.owner,
            away1=context.away[0], away2=context.away[1], is_crawford=context.crawford, jacoby=context.jacoby,
            beaver=context.beaver, force_boards=[board],
        )
        made = next(m for m in theirs.moves if m.board == board)
        assert verdict.equity_best - verdict.equity_played == pytest.approx(-made.equity_diff, abs=1e-5)
        assert verdict.equity_best == pytest.approx(theirs.moves[0].equity, abs=1e-5)


@pytest.mark.parametrize(("options", "length"), [(GameOptions(cube=True, jacoby=True), 0), (GameOptions(cube=True), 7)])
def test_one_ply_cube_equities_are_bgsages(options: GameOptions, length: int) -> None:
    """The 1-ply cube analysis worked out from the loaded network gives bgsage's own numbers."""
    record, _ = random_record("backgammon", 21, length=length, options=options, money_games=1)
    judge = SageJudge(1)
    games = [s.before for s in replay(transcript_from_record(record)) if s.action.kind == "roll"]
    doubling = [game for game in games if game.can_double(game.turn)][:10]
    assert doubling
    for game in doubling:
        context = replace(CubeContext.of(game, game.turn), beaver=False)
        advice = engine().cube(board_of(game.position), context, plies=1)
        assert astuple(judge.cube(game)) == pytest.approx((advice.no_double, advice.double_take, advice.double_pass))
