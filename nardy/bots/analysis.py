"""Post-game analysis of a match in any variant: each decision's equity loss, each roll's luck, each player's figures.

:func:`analyse` replays a :class:`~nardy.notation.transcript.Transcript`
through the rules and asks a judge (:mod:`nardy.bots.judge`) about every
decision and every roll. docs/analysis.md explains it at length.

Equity. The short board (backgammon, dave, Georgian nardy) is judged by
bgsage (:mod:`nardy.bots.judge_sage`): in a game with the cube, cubeful
equity for the cube's value and owner and the match score
(:meth:`nardy.bots.sage.CubeContext.of`); without it, cubeless equity with
single, double and triple wins worth 1, 2 and 3 (Georgian's and dave's
oin, mars and koks). Long nardy, fevga, plakoto and hypergammon are judged by
our networks and expectimax (:mod:`nardy.bots.judge_neural`), cubeless, a
single 1, a double 2 (oin and mars in long nardy) and hypergammon's backgammon 3;
hypergammon's cube decisions by bgsage, as its bots' are (cubeful, as on the
rest of the short board), its checker plays cubeless by its network. Every
equity is the acting player's, normalized to a cube of 1 (multiply by a
decision's ``cube`` for points at stake).

Levels (:data:`LEVELS`): ``advanced``, ``expert`` and ``world-class``
search 1, 2 and 3 plies with bgsage, 0, 1 and 2 plies with our network.

Decisions. A checker play is judged against the best legal play of its
roll; a roll where the roller could double (``game.can_double``) is a cube
decision, "no double" (a missed double is an error too), as is each double
offered; each answer to a double (take, drop, beaver) is a decision of the
doubled player. The loss is the best option's equity minus the chosen
one's (0 or more). Marks use GNU Backgammon's default thresholds on the
normalized loss (``arSkillLevel`` in gnubg's gnubg.c; its ``Skill()`` in
analysis.c compares strictly): over :data:`DOUBTFUL` (0.04) "doubtful",
over :data:`BAD` (0.08) "bad", over :data:`VERY_BAD` (0.16) "very bad".
What the server played for a player whose clock ran out (``forced``) is
shown but never counted.

Counted decisions, as gnubg counts them for its error rate: checker plays
with more than one legal play, every double and every answer, and the
"no double" decisions that were close (doubling would have cost less than
:data:`VERY_BAD`; gnubg's ``isCloseCubedecision``). Per player:
``error_rate`` is gnubg's normalized error rate per decision in millipoints
(1000 × total loss / counted decisions), ``pr`` is eXtreme Gammon's
performance rating on the same decisions (500 × total loss / counted
decisions, so always half the error rate), ``rating`` is gnubg's label for
the error rate (:data:`RATINGS`, gnubg's ``arThrsRating`` in analysis.c).

Luck. A roll's luck is the roller's equity after it (its best play with
those dice) minus the equity before it (the average over the 21 rolls,
doubles 1/36, others 2/36), both rated at the luck depth: bgsage's 1-ply
or our 0-ply, as gnubg's luck analysis uses its 0-ply by default
(``ecLuck`` in analysis.c). A roll that cannot be played is rated as the
position it leaves. The opening roll is both players' roll: its luck is
the starter's equity after it minus the average over the 30 equally likely
opening outcomes (15 rolls, either player moving first; in long nardy,
where it only decides who starts, each player's pre-roll equity as
starter); half of it is counted to the starter, minus half to the other,
which leaves each player's luck zero on average and the luck-adjusted
result as gnubg's. ``result`` is the points won less the points lost;
``luck_adjusted`` is the result minus the player's luck in points plus the
opponent's (gnubg's luck-adjusted result, in points also in match play).

The equity graph of a game (``GameAnalysis.equity``) is player 0's equity
before each decision, assuming best play from there: the best option's
equity, turned to player 0's side; it lies in [-3, 3].
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final, TypedDict

from nardy.bots.engines import engine_for
from nardy.bots.judge import ROLL_WEIGHT, CubeEquities, Judge, roll_key
from nardy.bots.judge_neural import NeuralJudge
from nardy.bots.judge_sage import SageJudge
from nardy.notation import PositionDict, format_steps, position_to_dict
from nardy.notation.json_codec import StepDict, step_to_dict
from nardy.notation.transcript import Replayed, Transcript, games_of
from nardy.rules import Game, Phase, Play, RulesError, Step, find_variant

LEVELS: Final = ("advanced", "expert", "world-class")
"""The analysis levels, shallowest first."""

SHORT_PLIES: Final[dict[str, int]] = {"advanced": 1, "expert": 2, "world-class": 3}
"""bgsage's depth per level (the short board)."""

LONG_PLIES: Final[dict[str, int]] = {"advanced": 0, "expert": 1, "world-class": 2}
"""Our search's depth per level (long nardy)."""

DOUBTFUL: Final = 0.04
BAD: Final = 0.08
VERY_BAD: Final = 0.16
"""gnubg's default marks: a normalized loss over each is doubtful, bad ("error") and very bad ("blunder")."""

RATINGS: Final[tuple[tuple[float, str], ...]] = (
    (0.002, "Supernatural"),
    (0.005, "World class"),
    (0.008, "Expert"),
    (0.012, "Advanced"),
    (0.018, "Intermediate"),
    (0.026, "Casual player"),
    (0.035, "Beginner"),
)
"""gnubg's rating by normalized error per counted decision: the first label whose bound the error is under."""

AWFUL: Final = "Awful!"
"""gnubg's label for an error rate of 0.035 per decision or more."""

ANALYSED: Final = frozenset({"opening", "roll", "move", "double", "take", "drop", "beaver"})
"""The actions analysis looks at (resignations, timeouts and forfeits are not decisions it judges)."""

Progress = Callable[[int, int], None]


def mark(loss: float) -> str:
    """gnubg's mark of a normalized loss: ``""``, ``"doubtful"``, ``"bad"`` or ``"very bad"``.

    >>> [mark(loss) for loss in (0.04, 0.05, 0.1, 0.2)]
    ['', 'doubtful', 'bad', 'very bad']
    """
    if loss > VERY_BAD:
        return "very bad"
    if loss > BAD:
        return "bad"
    if loss > DOUBTFUL:
        return "doubtful"
    return ""


def rating(error_per_decision: float) -> str:
    """gnubg's rating label of a normalized error per counted decision.

    >>> rating(0.004), rating(0.015), rating(0.05)
    ('World class', 'Intermediate', 'Awful!')
    """
    for bound, label in RATINGS:
        if error_per_decision < bound:
            return label
    return AWFUL


def judge_for(variant: str, level: str) -> Judge:
    """The judge of ``variant`` at ``level``: bgsage, or our network (long nardy, fevga, plakoto, hypergammon), as
    its engine is (:mod:`nardy.bots.engines`), with bgsage judging the cube where the engine's ``cube`` says so."""
    _check_level(level)
    rules = find_variant(variant)
    kind = engine_for(rules.name).kind
    if kind == "heuristic":
        raise ValueError(f"no analysis of {rules.name}: its computer player rates no equities")
    if kind == "bgsage":
        return SageJudge(SHORT_PLIES[level])
    cube = SageJudge(SHORT_PLIES[level]) if engine_for(rules.name).cube == "bgsage" else None
    return NeuralJudge(rules.name, LONG_PLIES[level], cube=cube)


def _check_level(level: str) -> None:
    if level not in LEVELS:
        raise ValueError(f"unknown analysis level {level!r}; the levels are {', '.join(LEVELS)}")


# ---------------------------------------------------------------- the result


@dataclass(frozen=True)
class Decision:
    """One decision of one player, judged.

    ``kind`` is ``"move"`` (a checker play), ``"cube"`` (double or not,
    before a roll) or ``"take"`` (the answer to a double: take, drop or
    beaver). ``move`` numbers the turns of the game from 1; a cube decision
    has the number of the turn it comes before. ``played`` and ``best`` are
    move text (:func:`nardy.notation.format_steps`) or the cube action.
    Equities are the player's, normalized; ``cube`` is the cube's value at
    the decision. ``luck`` is the luck of the roll a checker play plays (0
    for cube decisions). ``counted``: the decision counts in the player's
    figures. ``position`` is the position before, from the player's side.
    ``source`` points at the action in its record (a table event's version).
    ``best_board``: for a checker play, the board the best play leaves, seen
    from player 0's side (as replay frames show boards), to draw it.
    """

    game: int
    move: int
    player: int
    kind: str
    dice: tuple[int, ...]
    played: str
    best: str
    equity_best: float
    equity_played: float
    equity_loss: float
    mark: str
    luck: float
    forced: bool
    counted: bool
    cube: int
    position: PositionDict
    best_steps: tuple[StepDict, ...]
    source: int | None = None
    best_board: PositionDict | None = None


@dataclass(frozen=True)
class RollLuck:
    """One roll's luck for its roller (normalized; ``cube`` is the cube's value then).

    For the opening roll (``opening``) ``dice`` are player 0's die and
    player 1's, ``player`` is the one who starts, and ``luck`` is the
    starter's (counted half to each player, see the module docstring).
    """

    game: int
    move: int
    player: int
    dice: tuple[int, ...]
    luck: float
    cube: int
    opening: bool = False


@dataclass(frozen=True)
class GameAnalysis:
    """One game: its decisions and rolls in order, player 0's equity before each decision, its result.

    ``winner`` is ``None`` (and ``points`` 0) for a game the match ended
    before it was over.
    """

    number: int
    decisions: tuple[Decision, ...]
    rolls: tuple[RollLuck, ...]
    equity: tuple[float, ...]
    winner: int | None
    points: int


@dataclass(frozen=True)
class PlayerSummary:
    """One player's figures over the match (losses normalized; see the module docstring)."""

    player: int
    name: str
    decisions: int
    moves: int
    cube_decisions: int
    counted: int
    forced: int
    total_loss: float
    checker_loss: float
    cube_loss: float
    mean_loss: float
    error_rate: float
    pr: float
    rating: str
    doubtful: int
    errors: int
    blunders: int
    luck: float
    luck_points: float
    result: float
    luck_adjusted: float


@dataclass(frozen=True)
class Analysis:
    """A match analysed: per game its decisions and rolls, per player a summary.

    :meth:`to_json` gives plain JSON data (what the server stores);
    :meth:`from_json` reads it back.
    """

    variant: str
    level: str
    length: int
    players: tuple[str, str]
    games: tuple[GameAnalysis, ...]
    summaries: tuple[PlayerSummary, PlayerSummary]

    def decisions(self) -> list[Decision]:
        """Every decision of every game, in order."""
        return [decision for game in self.games for decision in game.decisions]

    def to_json(self) -> dict[str, Any]:
        """Plain data: dicts, lists, strings, numbers, booleans and ``None``."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Analysis:
        """The analysis :meth:`to_json` wrote."""
        first, second = (PlayerSummary(**summary) for summary in data["summaries"])
        names = data["players"]
        return cls(
            variant=data["variant"], level=data["level"], length=data["length"], players=(names[0], names[1]),
            games=tuple(_game_from_json(game) for game in data["games"]), summaries=(first, second),
        )


def _game_from_json(data: Mapping[str, Any]) -> GameAnalysis:
    decisions = tuple(
        Decision(**{**d, "dice": tuple(d["dice"]), "best_steps": tuple(d["best_steps"])}) for d in data["decisions"]
    )
    rolls = tuple(RollLuck(**{**r, "dice": tuple(r["dice"])}) for r in data["rolls"])
    return GameAnalysis(data["number"], decisions, rolls, tuple(data["equity"]), data["winner"], data["points"])


# ---------------------------------------------------------------- analysing


def analyse(
    transcript: Transcript, *, level: str = "expert", progress: Progress | None = None, judge: Judge | None = None,
) -> Analysis:
    """Analyse every decision and roll of ``transcript`` at ``level`` (see the module docstring).

    ``progress(done, total)`` is called after each action analysed.
    ``judge`` replaces the level's own (:func:`judge_for`), e.g. a scripted
    one in tests. NotationError names an action the rules refuse;
    ValueError an unknown level.
    """
    _check_level(level)
    rules = find_variant(transcript.variant)
    judges = {game.name: judge or judge_for(game.name, level) for game in rules.game_variants}
    games = games_of(transcript)
    total = sum(step.action.kind in ANALYSED for steps in games for step in steps)
    done = 0
    analysed: list[GameAnalysis] = []
    for number, steps in enumerate(games, start=1):
        walker = _GameWalker(judges[rules.game_variant(number - 1).name], number)
        for step in steps:
            if step.action.kind in ANALYSED:
                walker.take(step)
                done += 1
                if progress is not None:
                    progress(done, total)
            walker.note_result(step.game)
        analysed.append(walker.result())
    return Analysis(
        variant=find_variant(transcript.variant).name, level=level, length=transcript.length,
        players=transcript.players, games=tuple(analysed), summaries=summarise(analysed, transcript.players),
    )


class _GameWalker:
    """Collects one game's decisions and rolls as its actions come."""

    def __init__(self, judge: Judge, number: int) -> None:
        self.judge = judge
        self.number = number
        self.decisions: list[Decision] = []
        self.rolls: list[RollLuck] = []
        self.winner: int | None = None
        self.points = 0
        self._luck = 0.0
        self._cubes: dict[tuple[object, ...], CubeEquities] = {}

    def take(self, step: Replayed) -> None:
        """Judge one action of :data:`ANALYSED`."""
        kind = step.action.kind
        if kind == "opening":
            self._opening(step)
        elif kind == "roll":
            self._roll(step)
        elif kind == "move":
            self._move(step)
        else:
            self._cube_decision(step)

    def note_result(self, game: Game) -> None:
        """Keep the game's result once an action has ended it."""
        if game.result is not None:
            self.winner, self.points = game.result.winner, game.result.points

    def result(self) -> GameAnalysis:
        """The game analysed so far."""
        equity = tuple(d.equity_best if d.player == 0 else -d.equity_best for d in self.decisions)
        return GameAnalysis(self.number, tuple(self.decisions), tuple(self.rolls), equity, self.winner, self.points)

    # ----- rolls

    def _opening(self, step: Replayed) -> None:
        after = step.game
        if after.phase is Phase.OPENING:  # a tie, rolled again
            return
        starter = after.turn
        mine = self.judge.roll_equities(step.before, starter)
        theirs = self.judge.roll_equities(step.before, 1 - starter)
        if after.dice is not None:  # the short board: the opening roll is the starter's first roll
            outcomes = [roll for roll in mine if roll[0] != roll[1]]
            average = sum(mine[roll] - theirs[roll] for roll in outcomes) / (2 * len(outcomes))
            luck = mine[roll_key(after.dice)] - average
        else:  # long nardy: the opening only decides who starts
            luck = (_average(mine) + _average(theirs)) / 2
        self._luck = luck
        assert step.action.dice is not None
        self.rolls.append(RollLuck(self.number, 1, starter, step.action.dice, luck, after.cube.value, opening=True))

    def _roll(self, step: Replayed) -> None:
        before, roller = step.before, step.before.turn
        if before.can_double(roller):
            self._judge_cube(step, "no double")
        assert step.action.dice is not None
        equities = self.judge.roll_equities(before, roller)
        self._luck = equities[roll_key(step.action.dice)] - _average(equities)
        move = before.turns_played + 1
        self.rolls.append(RollLuck(self.number, move, roller, step.action.dice, self._luck, before.cube.value))

    # ----- checker plays

    def _move(self, step: Replayed) -> None:
        before, action = step.before, step.action
        assert before.dice is not None
        played = Play(action.steps, before.position.play(before.dice, action.steps))
        verdict = self.judge.checker_play(before, played)
        loss = verdict.equity_best - verdict.equity_played
        self.decisions.append(Decision(
            game=self.number, move=before.turns_played + 1, player=before.turn, kind="move", dice=before.dice,
            played=format_steps(action.steps), best=format_steps(verdict.best.steps),
            equity_best=verdict.equity_best, equity_played=verdict.equity_played, equity_loss=loss, mark=mark(loss),
            luck=self._luck, forced=action.forced, counted=not action.forced and verdict.plays > 1,
            cube=before.cube.value, position=position_to_dict(before.position),
            best_steps=tuple(step_to_dict(s) for s in verdict.best.steps), source=action.source,
            best_board=position_to_dict(verdict.best.position if before.turn == 0 else verdict.best.position.turned()),
        ))

    # ----- the cube

    def _cube_decision(self, step: Replayed) -> None:
        kind = step.action.kind
        self._judge_cube(step, "double" if kind == "double" else kind)

    def _judge_cube(self, step: Replayed, played: str) -> None:
        """Judge a cube action: the doubler's (no double, double) or the doubled player's (take, drop, beaver)."""
        before, action = step.before, step.action
        doubler = before.turn
        equities = self._cube(before)
        if before.phase is Phase.DOUBLED:
            player, options = 1 - doubler, _answers(equities, beaver=_can_beaver(before))
        else:
            player, options = doubler, _offers(equities, beaver=_can_beaver(before.double(doubler)))
        best = max(options, key=lambda name: (options[name], name == played))
        loss = options[best] - options[played]
        close = played != "no double" or options[best] - options["double"] < VERY_BAD
        self.decisions.append(Decision(
            game=self.number, move=before.turns_played + 1, player=player,
            kind="take" if before.phase is Phase.DOUBLED else "cube", dice=(), played=played, best=best,
            equity_best=options[best], equity_played=options[played], equity_loss=loss, mark=mark(loss), luck=0.0,
            forced=action.forced, counted=not action.forced and close, cube=before.cube.value,
            position=position_to_dict(before.board_for(player)), best_steps=(), source=action.source,
        ))

    def _cube(self, game: Game) -> CubeEquities:
        """The judge's cube equities for ``game.turn``, asked once per position and cube (offer and answer share)."""
        key = (game.position, game.turn, game.cube, game.context)
        if key not in self._cubes:
            self._cubes[key] = self.judge.cube(game)
        return self._cubes[key]


def _offers(equities: CubeEquities, *, beaver: bool) -> dict[str, float]:
    """The doubler's options: not doubling, or doubling and meeting the opponent's best answer."""
    answers = _answers(equities, beaver=beaver)
    return {"no double": equities.no_double, "double": -max(answers.values())}


def _answers(equities: CubeEquities, *, beaver: bool) -> dict[str, float]:
    """The doubled player's options; a beaver (money play) doubles the take's stake, the taker keeping the cube."""
    options = {"take": -equities.double_take, "drop": -equities.double_pass}
    if beaver:
        options["beaver"] = -2.0 * equities.double_take
    return options


def _can_beaver(doubled: Game) -> bool:
    """Whether the rules let the doubled player of ``doubled`` beaver."""
    try:
        doubled.beaver(doubled.opponent)
    except RulesError:
        return False
    return True


def _average(equities: Mapping[tuple[int, int], float]) -> float:
    """The average equity over the 21 rolls, each weighted by its probability."""
    return sum(ROLL_WEIGHT[roll] * equity for roll, equity in equities.items())


# ---------------------------------------------------------------- per player


def summarise(games: Sequence[GameAnalysis], names: tuple[str, str]) -> tuple[PlayerSummary, PlayerSummary]:
    """Each player's figures over ``games`` (see the module docstring for every definition)."""
    luck = [_luck(games, player) for player in (0, 1)]
    result = [_result(games, player) for player in (0, 1)]
    first, second = (
        _summary(
            player, names[player], [d for g in games for d in g.decisions if d.player == player],
            luck=luck[player], result=result[player], opponent_luck_points=luck[1 - player][1],
        )
        for player in (0, 1)
    )
    return first, second


def _summary(
    player: int, name: str, decisions: list[Decision], *, luck: tuple[float, float], result: float,
    opponent_luck_points: float,
) -> PlayerSummary:
    counted = [d for d in decisions if d.counted]
    checker_loss = sum(d.equity_loss for d in counted if d.kind == "move")
    cube_loss = sum(d.equity_loss for d in counted if d.kind != "move")
    total = checker_loss + cube_loss
    mean = total / len(counted) if counted else 0.0
    marks = [d.mark for d in counted]
    return PlayerSummary(
        player=player, name=name, decisions=len(decisions), moves=sum(d.kind == "move" for d in decisions),
        cube_decisions=sum(d.kind != "move" for d in decisions), counted=len(counted),
        forced=sum(d.forced for d in decisions), total_loss=total, checker_loss=checker_loss, cube_loss=cube_loss,
        mean_loss=mean, error_rate=1000.0 * mean, pr=500.0 * mean, rating=rating(mean) if counted else "n/a",
        doubtful=marks.count("doubtful"), errors=marks.count("bad"), blunders=marks.count("very bad"),
        luck=luck[0], luck_points=luck[1], result=result, luck_adjusted=result - luck[1] + opponent_luck_points,
    )


def _luck(games: Iterable[GameAnalysis], player: int) -> tuple[float, float]:
    """``player``'s luck over ``games``, normalized and in points (the opening split half and half)."""
    normalized = points = 0.0
    for roll in (roll for game in games for roll in game.rolls):
        share = (0.5 if roll.player == player else -0.5) if roll.opening else float(roll.player == player)
        normalized += share * roll.luck
        points += share * roll.luck * roll.cube
    return normalized, points


def _result(games: Iterable[GameAnalysis], player: int) -> float:
    """Points won less points lost by ``player``."""
    return float(sum(g.points if g.winner == player else -g.points for g in games if g.winner is not None))
