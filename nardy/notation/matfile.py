"""Jellyfish / GNU Backgammon ``.mat`` match files, written from and read into a :class:`Transcript`.

The layout is the one Jellyfish introduced and gnubg imports and exports
(``import mat``, ``export match mat``)::

    ; [Variant "backgammon"]

     5 point match

     Game 1
     ann : 0                        bob : 0
      1) 31: 8/5 6/5                 52: 24/22 13/8
      2)  Doubles => 2                Drops
          Wins 1 point

**Players.** Seat 0 is the left column (the first name of each score line),
seat 1 the right column; a row holds seat 0's action, then seat 1's. The
opening roll is written as the roll of the player it lets move, higher die
first, in that player's column: when seat 1 starts, the left column of the
first row is blank.

**Actions.** ``52: 24/22 13/8`` is a roll and the move played with it, in
gnubg's move text (:func:`nardy.notation.format_steps`; long nardy without
``bar`` and ``*``). A roll with no move is ``52:``: a pass when the roll
cannot be played, else a roll the player did not play (a resignation or a
timeout came first; the move, if any, follows later in the same column
with the same dice). ``Doubles => 2``, ``Beavers => 4``, ``Takes``,
``Drops``. ``Wins 2 points`` (``and the match`` after the last game) in the
winner's column ends a game: after a bear-off or a drop it repeats what the
rules decided, otherwise it is a resignation, as gnubg reads it (in
backgammon, the offer worth that many points, accepted).

**The variant** is named in the header, ``; [Variant "plakoto"]`` (every
variant, backgammon too). For nackgammon and hypergammon the header also
holds the tag gnubg writes and reads for its variations,
``; [Variation "NackGammon"]`` or ``; [Variation "HyperGammon (3)"]``
(:mod:`nardy.notation.gnubg_variations`), so gnubg imports the match on the
right board; a file without ``[Variant]`` is read as the variation its
``[Variation]`` names, else as backgammon, and a file naming both must name
the same game.

**What only nardy has** is written on comment lines gnubg passes over (it
notes the first one as an unrecognised move and goes on): the options in the
header, ``; [Cube "Off"]``,
``; [Jacoby "On"]``, ``; [Beaver "On"]``, ``; [AutomaticDoubles "2"]``,
``; [BackgammonValue "2"]`` (options are written when they differ from the
variant's usual ones), and inside a game, at the place they happened:

- ``; nardy opening 4 4``: an opening roll that moved nobody (a tie, or
  where the opening winner rolls again, as in long nardy and the games of
  tavli, the roll that chose who starts);
- ``; nardy timeout 1``, ``; nardy forfeit 0``: a seat's clock ran out, a
  seat left the match (what the server then played for a timed-out seat is
  marked ``forced`` again on reading, as :func:`transcript_from_record` does);
- ``; nardy resign 1 gammon`` and ``; nardy decline 0``: a resignation offer
  that was declined or is still open, or whose kind the points of its
  ``Wins`` line would not tell.

A file written here and read back replays to the same match. What is lost:
the ``source`` of each action, and a resignation offered without naming a
kind comes back as an offer of a single game. Plakoto's pins are in the
move text: a checker that pins is marked ``*`` as a hit is
(``24/18*``), and a plakoto game that ends in a tie (both mothers pinned)
has ``; nardy tie`` after the play that tied it, then goes on, in the file
as in the rules, with the next ``; nardy opening`` (a reader checks that the
rules tied the game there; a file without the line replays the same).

>>> from nardy.rules import Step, GameOptions
>>> from nardy.notation.transcript import Action, GameTranscript, Transcript
>>> game = GameTranscript((Action("opening", dice=(3, 1)),
...                        Action("move", 0, steps=(Step(8, 5, 3), Step(6, 5, 1)))))
>>> text = transcript_to_mat(Transcript("backgammon", 3, GameOptions(cube=True), ("ann", "bob"), (game,)))
>>> print(text.split("Game 1")[1].strip())
ann : 0                        bob : 0
  1) 31: 8/5 6/5
>>> [(action.kind, action.player) for action in transcript_from_mat(text).games[0].actions]
[('opening', None), ('move', 0)]
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal

from nardy.notation.errors import NotationError
from nardy.notation.gnubg_variations import mat_variation, variant_of_mat_variation
from nardy.notation.movetext import format_steps, parse_play
from nardy.notation.transcript import (
    Action,
    ActionKind,
    GameTranscript,
    Replayed,
    Transcript,
    as_input,
    games_of,
)
from nardy.rules import (
    Game,
    GameOptions,
    GameResult,
    Match,
    Phase,
    RulesError,
    Step,
    Variant,
    WinKind,
    find_variant,
)
from nardy.rules.replay import Replay

# ---------------------------------------------------------------- what a file holds, format aside
#
# Both this module and nardy.notation.sgf write a game as these entries and
# read one back through _Builder, so the two formats agree on what they hold.


@dataclass(frozen=True, slots=True)
class _Roll:
    """A roll (the opening roll: the mover's die first) and the move played with it.

    ``steps`` is ``None`` when no move follows at once; ``can_move`` is false
    for a roll that cannot be played (a pass).
    """

    player: int
    dice: tuple[int, int]
    steps: tuple[Step, ...] | None
    can_move: bool


CubeKind = Literal["double", "take", "beaver", "drop"]
_CUBE_KINDS: Final[dict[str, CubeKind]] = {"double": "double", "take": "take", "beaver": "beaver", "drop": "drop"}


@dataclass(frozen=True, slots=True)
class _Cube:
    """A cube action and the cube value it names (the value offered, taken or dropped)."""

    player: int
    kind: CubeKind
    value: int


@dataclass(frozen=True, slots=True)
class _Win:
    """The end of a game: who won, the points, whether by resignation, whether it won the match."""

    player: int
    points: int
    resigned: bool
    match_over: bool


@dataclass(frozen=True, slots=True)
class _Tie:
    """The play before it tied the game (plakoto: both mothers pinned); the game starts again (docs/rules.md §9)."""


@dataclass(frozen=True, slots=True)
class _Fact:
    """An action only nardy records (see the module docstring)."""

    action: Action


_Entry = _Roll | _Cube | _Win | _Tie | _Fact


@dataclass(frozen=True, slots=True)
class _GameEntries:
    """One game as files write it: the score and Crawford flag it began with, and its entries."""

    score: tuple[int, int]
    crawford: bool
    entries: tuple[_Entry, ...]


def _game_entries(transcript: Transcript) -> list[_GameEntries]:
    """Each game of ``transcript`` (replayed through the rules) as entries; games with no action are left out."""
    games = []
    for steps in games_of(transcript):
        if steps:
            context = steps[0].before.context
            games.append(_GameEntries(context.score, context.crawford, tuple(_entries(steps))))
    return games


def _entries(steps: Sequence[Replayed]) -> Iterator[_Entry]:
    """A game's actions as entries: a roll joined with the move that follows it, ends of games, facts."""
    joined: set[int] = set()
    for index, step in enumerate(steps):
        action, after = step.action, step.game
        following = steps[index + 1] if index + 1 < len(steps) else None
        if action.kind == "opening" and (after.phase is Phase.OPENING or after.variant.previous_winner_starts):
            yield _Fact(action)
        elif action.kind in ("opening", "roll"):
            roll = _roll_entry(step, following)
            yield roll
            if roll.steps is not None and following is not None:
                joined.add(index + 1)
                yield from _ending(following)
        elif action.kind == "move":
            if index not in joined:
                assert step.before.dice is not None
                yield _Roll(_player(action), step.before.dice, action.steps, True)
                yield from _ending(step)
        elif action.kind in _CUBE_KINDS:
            yield _cube_entry(step)
            yield from _ending(step)
        elif action.kind == "resign" and after.phase is Phase.FINISHED:
            yield from _ending(step)
        elif action.kind == "resign" and _accepted_as_written(step, following):
            continue
        elif action.kind == "accept_resignation":
            yield from _ending(step)
        else:
            yield _Fact(action)


def _roll_entry(step: Replayed, following: Replayed | None) -> _Roll:
    """A roll, or an opening roll that lets a player move, with the move if that player's move comes next."""
    action, after = step.action, step.game
    player = after.turn if action.kind == "opening" else _player(action)
    dice = after.dice if action.kind == "opening" else action.dice
    assert dice is not None
    moves_next = following is not None and following.action.kind == "move" and following.action.player == player
    steps = following.action.steps if following is not None and moves_next else None
    return _Roll(player, dice, steps, after.phase is Phase.MOVING and after.turn == player)


def _player(action: Action) -> int:
    assert action.player is not None
    return action.player


def _cube_entry(step: Replayed) -> _Cube:
    """The cube action with the value a file names: offered (double), now on the cube (take, beaver), lost (drop)."""
    kind = _CUBE_KINDS[step.action.kind]
    values = {"double": step.before.cube.value * 2, "drop": step.before.cube.value}
    return _Cube(_player(step.action), kind, values.get(kind, step.game.cube.value))


def _ending(step: Replayed) -> Iterator[_Win | _Tie]:
    """What the action of ``step`` ended: the game, won; or the game as it was, tied and begun again."""
    if step.game.tied:
        yield _Tie()
    result = step.game.result
    if result is not None:
        match_over = step.match.is_over and step.match.ended_by == "score"
        yield _Win(result.winner, result.points, result.reason == "resigned", match_over)


def _accepted_as_written(step: Replayed, following: Replayed | None) -> bool:
    """True when a resignation offer needs no line of its own: it was accepted at once,
    and the points of the win name the kind that was offered."""
    if following is None or following.action.kind != "accept_resignation" or following.game.result is None:
        return False
    pending = step.game.pending_resignation
    assert pending is not None
    return _kind_worth(step.before, _player(step.action), following.game.result.points) == pending[1]


def _kind_worth(game: Game, resigner: int, points: int) -> WinKind | None:
    """The first kind of win (single, gammon, backgammon) that a resignation accepted now is worth
    ``points`` for, as the rules score it; ``None`` if there is none."""
    for kind in game.variant.kinds:
        try:
            result = game.resign(resigner, kind).accept_resignation(1 - resigner).result
        except RulesError:
            return None
        if result is not None and result.points == points:
            return kind
    return None


# ---------------------------------------------------------------- nardy-only actions as text

_FACT_WORDS: Final[dict[ActionKind, str]] = {
    "opening": "opening", "timeout": "timeout", "forfeit": "forfeit", "resign": "resign",
    "decline_resignation": "decline",
}
_FACT_KINDS: Final[dict[str, ActionKind]] = {word: kind for kind, word in _FACT_WORDS.items()}
TIE_WORD: Final = "tie"
"""The fact of a tied game (``; nardy tie``, ``NA[tie]``): no action, what the play before it did, which a
reader checks against the rules."""
_WIN_KINDS: Final = frozenset(kind.value for kind in WinKind)


def _fact_text(action: Action) -> str:
    """``opening 4 4``, ``timeout 1``, ``forfeit 0``, ``resign 1 gammon``, ``decline 0``."""
    if action.kind == "opening":
        assert action.dice is not None
        return f"opening {action.dice[0]} {action.dice[1]}"
    words = [_FACT_WORDS[action.kind], str(action.player)]
    if action.kind_offered is not None:
        words.append(action.kind_offered.value)
    return " ".join(words)


def _fact_action(text: str, where: str) -> Action:
    """The action a fact's text names (the inverse of :func:`_fact_text`)."""
    words = text.split()
    kind = _FACT_KINDS.get(words[0]) if words else None
    if kind == "opening" and len(words) == 3 and all(w in "123456" and len(w) == 1 for w in words[1:]):
        return Action("opening", dice=(int(words[1]), int(words[2])))
    if kind is not None and kind != "opening" and len(words) == 2 and words[1] in ("0", "1"):
        return Action(kind, int(words[1]))
    if kind == "resign" and len(words) == 3 and words[1] in ("0", "1") and words[2] in _WIN_KINDS:
        return Action("resign", int(words[1]), kind_offered=WinKind(words[2]))
    raise NotationError(
        f"{where}: cannot read the nardy action {text!r}; write opening 4 4, timeout 1, forfeit 0, "
        f"resign 1 gammon, decline 0 or {TIE_WORD}"
    )


def _read_fact(builder: _Builder, text: str, where: str) -> None:
    """Apply the fact ``text`` names: an action, or a tie, which the rules must have made just before."""
    if text.split() == [TIE_WORD]:
        builder.tied(where)
    else:
        builder.add(_fact_action(text, where), where)


# ---------------------------------------------------------------- reading: actions through the rules


class _Builder:
    """Builds a transcript action by action, applying each through the rules as it comes.

    Readers hand it what a file says; it decides nothing itself: the game's
    phase tells an opening roll from a roll, :func:`parse_play` reads moves,
    and a refused action becomes a :class:`NotationError` naming where in the
    file it was.
    """

    def __init__(self, variant: str, length: int, options: GameOptions, where: str) -> None:
        try:
            self.play = Replay.new(Match.new(variant, length=length, options=options))
        except RulesError as error:
            raise NotationError(f"{where}: the match cannot be played: {error}") from None
        self.variant: Variant = self.match.variant
        self.length = length
        self.options = options
        self.games: list[list[Action]] = []
        self.result: GameResult | None = None
        self._forced_seat: int | None = None

    @property
    def match(self) -> Match:
        """The match as the file's actions so far leave it."""
        return self.play.match

    def start_game(self, where: str) -> None:
        """Begin the file's next game; the one before must have ended."""
        if self.games and self.match.game.history:
            raise NotationError(f"{where}: game {len(self.games) + 1} begins before game {len(self.games)} ended")
        self.games.append([])
        self.result = None
        self._forced_seat = None

    def check_score(self, score: tuple[int, int], where: str) -> None:
        """Refuse a game that a file says begins at ``score`` when the games before it leave another."""
        if score != self.match.score:
            raise NotationError(
                f"{where}: the game begins at {score[0]}-{score[1]}, "
                f"but the games before it leave the score at {self.match.score[0]}-{self.match.score[1]}"
            )

    def add(self, action: Action, where: str) -> None:
        """Apply ``action``; what the server played for a timed-out seat is marked forced, as in a record."""
        if not self.games:
            raise NotationError(f"{where}: an action before the first game")
        if self.result is not None and action.kind not in ("timeout", "forfeit"):
            raise NotationError(f"{where}: game {len(self.games)} is already over")
        if action.kind == "timeout":
            self._forced_seat = action.player
        elif self._forced_seat is not None and action.player is not None and action.player != self._forced_seat:
            self._forced_seat = None
        forced = self._forced_seat is not None and action.player == self._forced_seat
        if forced and action.kind not in ("timeout", "forfeit"):
            action = replace(action, forced=True)
        try:
            self.play = self.play.apply(as_input(action))
        except RulesError as error:
            raise NotationError(f"{where}: {error}") from None
        self.result = self.play.left.result or self.result
        self.games[-1].append(action)

    def roll(self, player: int, dice: tuple[int, int], move: str | None, where: str) -> None:
        """``player`` rolls ``dice`` (the opening roll while the game opens) and plays ``move`` if given.

        The same dice again while that player is still to move them only add the move.
        """
        game = self.match.game
        if not (game.phase is Phase.MOVING and game.turn == player and sorted(game.dice or ()) == sorted(dice)):
            if game.phase is Phase.OPENING:
                high, low = max(dice), min(dice)
                self.add(Action("opening", dice=(high, low) if player == 0 else (low, high)), where)
            else:
                self.add(Action("roll", player, dice=dice), where)
        if move is None:
            return
        game = self.match.game
        if game.phase is not Phase.MOVING or game.turn != player or game.dice is None:
            raise NotationError(f"{where}: {dice[0]}-{dice[1]} cannot be played here, yet the file plays {move!r}")
        try:
            play = parse_play(move, game.position, game.dice)
        except (NotationError, RulesError) as error:
            raise NotationError(f"{where}: {error}") from None
        self.add(Action("move", player, steps=play.steps), where)

    def cube(self, player: int, kind: CubeKind, where: str) -> None:
        self.add(Action(kind, player), where)

    def tied(self, where: str) -> None:
        """The file says the play before tied the game: refused unless the rules tied it there."""
        if not self.games or not self.match.game.tied:
            raise NotationError(f"{where}: the file says the game is tied here, but the rules did not tie it")

    def wins(self, player: int, points: int, where: str, *, resigned: bool = True) -> None:
        """The game ends with ``player`` winning ``points``: a resignation unless the rules ended it already.

        An open offer is accepted; otherwise the loser resigns (in
        backgammon, offering the first kind that is worth ``points``).
        """
        game = self.match.game
        if self.result is None and not resigned:
            raise NotationError(f"{where}: the file says seat {player} won, but the game is not over")
        if self.result is None and game.phase is Phase.RESIGNATION:
            self.add(Action("accept_resignation", player), where)
        elif self.result is None and game.variant.resignation_offers:
            kind = _kind_worth(game, 1 - player, points)
            if kind is None:
                raise NotationError(f"{where}: no resignation by seat {1 - player} is worth {points} points here")
            self.add(Action("resign", 1 - player, kind_offered=kind), where)
            self.add(Action("accept_resignation", player), where)
        elif self.result is None:
            self.add(Action("resign", 1 - player), where)
        assert self.result is not None
        if (self.result.winner, self.result.points) != (player, points):
            raise NotationError(
                f"{where}: the file says seat {player} wins {points}, "
                f"the rules give seat {self.result.winner} {self.result.points}"
            )

    def transcript(self, players: tuple[str, str]) -> Transcript:
        games = tuple(GameTranscript(tuple(actions)) for actions in self.games if actions)
        return Transcript(self.variant.name, self.length, self.options, players, games)


# ---------------------------------------------------------------- options as header tags


def _option_tags(variant: Variant, options: GameOptions) -> list[tuple[str, str]]:
    """The header tags for ``options`` that differ from what a reader assumes for ``variant``."""
    tags = [("Variant", variant.name)]
    variation = mat_variation(variant.name)
    if variation is not None:
        tags.append(("Variation", variation))
    if options.cube != variant.cube_allowed:
        tags.append(("Cube", _on_off(options.cube)))
    if options.jacoby:
        tags.append(("Jacoby", "On"))
    if options.beavers:
        tags.append(("Beaver", "On"))
    if options.automatic_doubles:
        tags.append(("AutomaticDoubles", str(options.automatic_doubles)))
    if options.backgammon_value != 3:
        tags.append(("BackgammonValue", str(options.backgammon_value)))
    return tags


def _on_off(flag: bool) -> str:
    return "On" if flag else "Off"


def _variant_from_tags(tags: dict[str, tuple[str, str]]) -> Variant:
    """The variant ``[Variant]`` names, else the one gnubg's ``[Variation]`` names, else backgammon.

    A file naming both must name the same game.
    """
    variant_name, where = tags.get("Variant", ("backgammon", "the header"))
    try:
        variant = find_variant(variant_name)
    except RulesError as error:
        raise NotationError(f"{where}: {error}") from None
    if "Variation" not in tags:
        return variant
    value, at = tags["Variation"]
    try:
        gnubg_variant = variant_of_mat_variation(value)
    except NotationError as error:
        raise NotationError(f"{at}: {error}") from None
    if "Variant" in tags and gnubg_variant != variant.name:
        raise NotationError(f"{at}: [Variation {value!r}] is gnubg's {gnubg_variant}, but {where} names {variant.name}")
    return find_variant(gnubg_variant)


def _options_from_tags(tags: dict[str, tuple[str, str]]) -> tuple[str, GameOptions]:
    """The variant and options that header tags (name -> (value, where)) give, defaults where absent."""
    variant = _variant_from_tags(tags)

    def flag(name: str, default: bool) -> bool:
        value, at = tags.get(name, (_on_off(default), ""))
        if value.lower() not in ("on", "off"):
            raise NotationError(f"{at}: [{name}] is \"On\" or \"Off\", got {value!r}")
        return value.lower() == "on"

    def number(name: str, default: int) -> int:
        value, at = tags.get(name, (str(default), ""))
        if not value.isdigit():
            raise NotationError(f"{at}: [{name}] is a whole number, got {value!r}")
        return int(value)

    options = GameOptions(
        cube=flag("Cube", variant.cube_allowed),
        jacoby=flag("Jacoby", False),
        automatic_doubles=number("AutomaticDoubles", 0),
        backgammon_value=number("BackgammonValue", 3),
        beavers=flag("Beaver", False),
    )
    return variant.name, options


# ---------------------------------------------------------------- writing .mat

_COLUMN: Final = 27
_NAME_COLUMN: Final = 31


def transcript_to_mat(transcript: Transcript) -> str:
    """The ``.mat`` text of ``transcript`` (any variant; see the module docstring for the conventions).

    Raises :class:`NotationError` when the transcript does not replay, or a
    player's name cannot stand in a score line (it holds ``:`` or a line break).
    """
    names = _mat_names(transcript.players)
    games = _game_entries(transcript)
    variant = find_variant(transcript.variant)
    lines = [f'; [{name} "{value}"]' for name, value in _option_tags(variant, transcript.options)]
    lines += ["", f" {transcript.length} point match", ""]
    for number, game in enumerate(games, start=1):
        lines += [f" Game {number}", _score_line(names, game.score), *_rows(game.entries), ""]
    return "\n".join(lines)


def _mat_names(players: tuple[str, str]) -> tuple[str, str]:
    """The names for the score lines; an empty name is written ``Player 1`` or ``Player 2``."""
    names = []
    for index, name in enumerate(players):
        if ":" in name or "\n" in name or "\r" in name:
            raise NotationError(f"a .mat score line cannot hold the player name {name!r} (':' or a line break)")
        names.append(name.strip() or f"Player {index + 1}")
    return names[0], names[1]


def _score_line(names: tuple[str, str], score: tuple[int, int]) -> str:
    first = f"{names[0]} : {score[0]}"
    return f" {first.ljust(_NAME_COLUMN) if len(first) < _NAME_COLUMN else first + ' '}{names[1]} : {score[1]}"


def _rows(entries: Sequence[_Entry]) -> list[str]:
    """The numbered rows of a game: seat 0's cell, then seat 1's; ends of games and facts on lines of their own."""
    lines: list[str] = []
    row: list[str | None] = [None, None]
    number = 0

    def flush() -> None:
        nonlocal row, number
        if row != [None, None]:
            number += 1
            lines.append(_row_line(f"{number:3d}) ", row))
            row = [None, None]

    for entry in entries:
        if isinstance(entry, _Fact):
            flush()
            lines.append(f"; nardy {_fact_text(entry.action)}")
        elif isinstance(entry, _Tie):
            flush()
            lines.append(f"; nardy {TIE_WORD}")
        elif isinstance(entry, _Win):
            flush()
            cells: list[str | None] = [None, None]
            cells[entry.player] = _wins_text(entry)
            lines.append(_row_line(" " * 5, cells).rstrip())
        else:
            if row[entry.player] is not None or (entry.player == 0 and row[1] is not None):
                flush()
            row[entry.player] = _cell_text(entry)
    flush()
    return lines


def _row_line(prefix: str, cells: list[str | None]) -> str:
    """A row: the left cell padded to its column, as gnubg writes it, then the right cell.

    The padding matters: gnubg 1.07 reads a line of 15 characters or fewer
    with the right cell of the line before it.
    """
    left, right = cells[0] or "", cells[1]
    gap = " " if len(left) < _COLUMN else "  "
    return f"{prefix}{left.ljust(_COLUMN)}{gap}{right or ''}"


def _cell_text(entry: _Roll | _Cube) -> str:
    if isinstance(entry, _Cube):
        return {
            "double": f" Doubles => {entry.value}", "beaver": f" Beavers => {entry.value}",
            "take": " Takes", "drop": " Drops",
        }[entry.kind]
    roll = f"{entry.dice[0]}{entry.dice[1]}:"
    return roll if entry.steps is None else f"{roll} {format_steps(entry.steps)}"


def _wins_text(entry: _Win) -> str:
    points = f"{entry.points} point{'' if entry.points == 1 else 's'}"
    return f" Wins {points}{' and the match' if entry.match_over else ''}"


# ---------------------------------------------------------------- reading .mat

_MATCH_LINE: Final = re.compile(r"\s*(\d+)\s+point\s+match\s*", re.IGNORECASE)
_TAG: Final = re.compile(r';\s*\[\s*([A-Za-z ]+?)\s+"(.*)"\s*\]\s*')
_GAME_LINE: Final = re.compile(r"\s*Game\s+(\d+)\s*", re.IGNORECASE)
_SCORE_LINE: Final = re.compile(r"\s*(.*?)\s*:\s*(\d+)\s+(.*?)\s*:\s*(\d+)\s*")
_ROW_NUMBER: Final = re.compile(r"\s*\d+\)")
_ROLL: Final = re.compile(r"([1-6])([1-6]):\s*(.*)")
_OFFER: Final = re.compile(r"(Doubles|Beavers)\s*=>\s*(\d+)", re.IGNORECASE)
_WINS: Final = re.compile(r"Wins\s+(\d+)\s+points?(?:\s+and\s+the\s+match)?", re.IGNORECASE)
_FACT: Final = re.compile(r";\s*nardy\s+(.*)")
_PLAIN_BAR: Final = re.compile(r"(?<!\d)25/")
_PLAIN_OFF: Final = re.compile(r"/0(?!\d)")


def transcript_from_mat(text: str) -> Transcript:
    """The transcript a ``.mat`` file records, every action applied through the rules.

    The variant is the one the ``[Variant]`` header tag names (backgammon if
    none). Raises :class:`NotationError` naming the line that is malformed or
    that the rules refuse.
    """
    lines = text.lstrip("\ufeff").splitlines()
    tags, length, start = _read_header(lines)
    variant, options = _options_from_tags(tags)
    builder = _Builder(variant, length, options, f"line {start}")
    players: tuple[str, str] | None = None
    index = start
    while index < len(lines):
        line, where = lines[index], f"line {index + 1}"
        index += 1
        game = _GAME_LINE.fullmatch(line)
        if game is not None:
            if int(game[1]) != len(builder.games) + 1:
                raise NotationError(f"{where}: expected game {len(builder.games) + 1}, got game {game[1]}")
            builder.start_game(where)
            index, names, score = _read_score_line(lines, index)
            players = players or names
            builder.check_score(score, f"line {index}")
        elif line.strip() and not line.lstrip().startswith(("#", ";")) and not builder.games:
            raise NotationError(f"{where}: expected ' Game 1', got {line.strip()!r}")
        else:
            _read_line(builder, line, where)
    return builder.transcript(players or ("", ""))


def _read_header(lines: Sequence[str]) -> tuple[dict[str, tuple[str, str]], int, int]:
    """The header's tags (name -> (value, where)), the match length, and the index of the line after it."""
    tags: dict[str, tuple[str, str]] = {}
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith(("#", ";")):
            tag = _TAG.fullmatch(stripped)
            if tag is not None:
                tags[tag[1]] = (tag[2], f"line {index + 1}")
            continue
        match_line = _MATCH_LINE.fullmatch(line)
        if match_line is None:
            raise NotationError(f"line {index + 1}: expected ' N point match', got {stripped!r}")
        return tags, int(match_line[1]), index + 1
    raise NotationError("not a .mat file: no ' N point match' line")


def _read_score_line(lines: Sequence[str], index: int) -> tuple[int, tuple[str, str], tuple[int, int]]:
    """The first non-blank line from ``index`` read as ``name : score   name : score``; the index after it."""
    while index < len(lines) and not lines[index].strip():
        index += 1
    line = lines[index] if index < len(lines) else ""
    score = _SCORE_LINE.fullmatch(line)
    if score is None:
        raise NotationError(f"line {index + 1}: expected the players and score, like ' ann : 0   bob : 0'")
    return index + 1, (score[1], score[3]), (int(score[2]), int(score[4]))


def _read_line(builder: _Builder, line: str, where: str) -> None:
    stripped = line.strip()
    if stripped.startswith(("#", ";")):
        fact = _FACT.fullmatch(stripped)
        if fact is not None:
            _read_fact(builder, fact[1], where)
        return
    for player, cell in enumerate(_cells(line)):
        if cell:
            _read_cell(builder, player, cell, where)


def _cells(line: str) -> tuple[str, str]:
    """A row's two cells, split as gnubg splits them.

    With two ``:`` (two rolls) the right cell begins at the second roll's
    dice; otherwise at the first two spaces after column 15. The row number
    is dropped.
    """
    text = line.rstrip()
    first = text.find(":")
    second = text.find(":", first + 1) if first >= 0 else -1
    gap = text.find("  ", 15) if len(text) > 15 else -1
    if second > 3:
        left, right = text[:second - 2], text[second - 2:]
    elif gap >= 0:
        left, right = text[:gap], text[gap:]
    else:
        left, right = text, ""
    number = _ROW_NUMBER.match(left)
    if number is not None:
        left = left[number.end():]
    return left.strip(), right.strip()


def _read_cell(builder: _Builder, player: int, cell: str, where: str) -> None:
    roll = _ROLL.fullmatch(cell)
    offer = _OFFER.fullmatch(cell)
    wins = _WINS.fullmatch(cell)
    word = cell.lower()
    if roll is not None:
        builder.roll(player, (int(roll[1]), int(roll[2])), _standard_points(roll[3].strip()) or None, where)
    elif offer is not None:
        builder.cube(player, "double" if offer[1].lower() == "doubles" else "beaver", where)
    elif word in ("takes", "drops"):
        builder.cube(player, "take" if word == "takes" else "drop", where)
    elif wins is not None:
        builder.wins(player, int(wins[1]), where)
    else:
        raise NotationError(
            f"{where}: cannot read {cell!r}; expected a roll like '52: 24/22 13/8', "
            "'Doubles => 2', 'Takes', 'Drops' or 'Wins 1 point'"
        )


def _standard_points(move: str) -> str:
    """Move text with gnubg's plain point numbers (bar 25, off 0, as its ``export match mat`` writes) named."""
    return _PLAIN_OFF.sub("/off", _PLAIN_BAR.sub("bar/", move))


__all__ = ["transcript_from_mat", "transcript_to_mat"]
